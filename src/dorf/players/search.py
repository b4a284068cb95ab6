"""The search player: a look-ahead over futures sampled from the tiles still unseen.

For the revealed tile the player ranks every legal placement with the greedy
evaluation (:mod:`dorf.players.greedy`) and keeps the best ``width`` candidates.  It
then samples futures consistent with what its seat may know: the face-down
stacks are filled at random from the unseen tiles (the removed tiles are among
them, as a player cannot tell them apart), the marker piles from the unseen
markers.  For each sampled future it plays every candidate and then
``depth`` more tiles by the reveal rule with a fast rollout policy, and values
the end with the greedy evaluation plus the edges joined and mismatched along
the way.  All candidates meet the same futures (common random numbers), so
their differences are measured, not their luck.  It stops at its budget,
``iterations`` futures or ``seconds`` of thinking, and plays the candidate
with the best mean.

The rollout policy looks at every legal placement's edge contacts (cheap, no
placing) and runs the full greedy evaluation on the best few.

In the Duel the player looks ahead in its own area only, taking the reveal
rule from its own tasks; in Head to Head its future is its own stacks, whose
contents it knows (the draft is open) but not their order.  In the Head to
Head draft it takes the tile with the best :func:`dorf.players.greedy.draft_value`
for itself, counting also what the tile would be worth to the other player,
as candidates, and looks ahead over the rest of the draft: for each candidate
it plays the rest of the draft out several times, both players taking
greedily with a little seeded noise, and takes the candidate whose future
picks are worth most to it against the other player's.
"""

from __future__ import annotations

import random
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, NamedTuple, TypeGuard, TypeVar

from dorf.games.coop import PlayerView
from dorf.games.duel import DuelView
from dorf.games.headtohead import DRAFT, HeadToHeadView, Pick
from dorf.games.seat import ACTIVE_TASKS, OPENING_TASK_TURNS
from dorf.games.state import GameView
from dorf.players.greedy import DEFAULT, Weights, balance, draft_value, evaluate, ranked_moves, tile_worth
from dorf.rules.area import Placement, PlayArea, placements_of, random_bits
from dorf.rules.hexgrid import cell_of
from dorf.rules.tasks import DOUBLE, TaskSpec
from dorf.rules.tiles import Tile, rotate

#: What a player is given: a view of any of the games (what its seat may know).
View = GameView
#: Draft values closer than this are a matter of taste: the seed decides.
DRAFT_NOISE = 0.5
#: The draft look-ahead weighs this many candidate tiles ...
DRAFT_WIDTH = 8
#: ... each against this many played-out rests of the draft.
DRAFT_FUTURES = 16
#: The rollout policy runs the full evaluation on this many of its best-touching placements.
ROLLOUT_SHORTLIST = 4


@dataclass
class _Future:
    """One sampled future: stacks (top = last) and marker piles."""

    tasks: list[Tile]
    landscapes: list[Tile]
    markers: dict[str, list[int]]
    doubles: list[tuple[str, str]]


@dataclass
class _Seat:
    """What the player needs of its seat: its area, the tile to place and what may come."""

    area: PlayArea
    face: str
    task: TaskSpec | None
    flag: str | None
    turn: int
    task_pool: list[Tile]
    landscape_pool: list[Tile]
    tasks_left: int
    landscapes_left: int
    markers: dict[str, tuple[int, ...]]
    doubles: tuple[tuple[str, str], ...]
    printed: bool

    def sample(self, rng: random.Random) -> _Future:
        tasks = rng.sample(self.task_pool, min(self.tasks_left, len(self.task_pool)))
        landscapes = rng.sample(self.landscape_pool, min(self.landscapes_left, len(self.landscape_pool)))
        markers = {}
        for kind, values in self.markers.items():
            pile = list(values)
            rng.shuffle(pile)
            markers[kind] = pile
        doubles = list(self.doubles)
        rng.shuffle(doubles)
        return _Future(tasks, landscapes, markers, doubles)


def drafting(view: View) -> TypeGuard[HeadToHeadView]:
    """Whether the view's game is in its draft: only Head to Head has one, so the view is then
    Head to Head's (its pool, the tiles each player took)."""
    return view.phase == DRAFT


class Coming(NamedTuple):
    """What may still come to the deciding seat, as its view tells: the turn it places in (by the
    reveal rule's count), the tiles it has not seen, the task and landscape tiles left in its
    stacks, the markers not yet drawn (the Duel's Double markers apart), whether tasks are printed
    on the tiles instead of drawn, and the other area's open tasks where the reveal rule counts
    them (the Duel's: a task tile comes while either area has fewer than 3)."""

    turn: int
    unseen: tuple[Tile, ...]
    tasks_left: int
    landscapes_left: int
    markers: dict[str, tuple[int, ...]]
    doubles: tuple[tuple[str, str], ...]
    printed: bool
    rival_active: int


def _table_coming(view: PlayerView | DuelView) -> Coming:
    """The cooperative game: one table, its stacks and marker piles."""
    return Coming(
        view.turn,
        view.unseen,
        view.task_tiles_left,
        view.landscapes_left,
        view.markers_unseen,
        (),
        False,
        ACTIVE_TASKS,
    )


def _duel_coming(view: DuelView) -> Coming:
    """The Duel: the table's, with its Double markers, and the other area's tasks."""
    rival = view.areas[1 - view.player].active_count
    return _table_coming(view)._replace(doubles=view.doubles_unseen, rival_active=rival)


def _own_stacks_coming(view: HeadToHeadView) -> Coming:
    """Head to Head: the player's own stacks, whose tiles (with their printed tasks) the draft
    showed; the turn counts the player's own placements."""
    tasks_left, landscapes_left = view.stacks_left[view.player]
    turn = len(view.area.placed) + 1
    return Coming(turn, view.unseen[view.player], tasks_left, landscapes_left, {}, (), True, ACTIVE_TASKS)


#: Per game, how its view tells what may come: the views differ here (one table's stacks and
#: marker piles; the Duel's Double markers and the other area's tasks; Head to Head's own stacks).
COMING: dict[str, Callable[[Any], Coming]] = {
    "coop": _table_coming,
    "duel": _duel_coming,
    "head-to-head": _own_stacks_coming,
}


def coming_of(view: View) -> Coming:
    """What may still come to the view's player (:class:`Coming`)."""
    return COMING[view.mode](view)


def _seat_of(view: View) -> _Seat:
    """The player's own seat, read from its view only."""
    revealed = view.to_place
    assert revealed is not None
    coming = coming_of(view)
    unseen = coming.unseen
    return _Seat(
        view.area,
        revealed.tile.face,
        revealed.task,
        revealed.tile.flag,
        coming.turn,
        [t for t in unseen if t.is_task],
        [t for t in unseen if not t.is_task],
        coming.tasks_left,
        coming.landscapes_left,
        coming.markers,
        coming.doubles,
        coming.printed,
    )


class SearchPlayer:
    """Look-ahead over sampled futures with a budget of ``iterations`` futures or ``seconds``."""

    name = "search"

    def __init__(
        self,
        seed: int = 0,
        *,
        iterations: int | None = None,
        seconds: float | None = None,
        width: int = 6,
        depth: int = 8,
        weights: Weights = DEFAULT,
    ) -> None:
        if iterations is None and seconds is None:
            iterations = 24
        self.rng = random.Random(seed)
        self.iterations = iterations
        self.seconds = seconds
        self.width = width
        self.depth = depth
        self.weights = weights

    def choose(self, view: View) -> Placement | Pick:
        if drafting(view):
            return self._pick(view)
        return self.analyse(view)[0][1]

    def analyse(self, view: View, include: Sequence[Placement] = ()) -> list[tuple[float, Placement]]:
        """Each candidate placement with its estimated value (mean over sampled futures), best first.

        Placements in ``include`` (say, the move a player made) are weighed too, against the
        same futures, if the greedy ranking did not already put them among the candidates.
        """
        seat = _seat_of(view)
        face = seat.face
        ranked = ranked_moves(seat.area, face, seat.task, seat.flag, self.weights)
        if not ranked:
            raise ValueError("there is no legal placement")
        candidates = [move for _, move in ranked[: self.width]]
        for placement in include:
            wanted = (cell_of(*placement.at), rotate(face, placement.rot))
            same = [move for _, move in ranked if (move[0], rotate(face, move[1])) == wanted]
            if not same:
                raise ValueError(f"placement {placement} is not legal for tile {face}")
            if same[0] not in candidates:
                candidates.append(same[0])
        if len(candidates) == 1:
            return [(ranked[0][0], placements_of(candidates)[0])]
        return over_futures(
            self.rng,
            self.iterations,
            self.seconds,
            candidates,
            seat.sample,
            lambda move, future, rng: self._rollout(seat, move, future, rng),
        )

    def _rollout(self, seat: _Seat, move: tuple[int, int], future: _Future, rng: random.Random) -> float:
        area = seat.area
        weights = self.weights
        cell, k = move
        same, other = area.contacts(seat.face, cell, k)
        edges = weights.joined_edge * same - weights.mismatched_edge * other
        area.push(seat.face, cell, k, flag=seat.flag, task=seat.task)
        pushed = 1
        tasks = list(future.tasks)
        landscapes = list(future.landscapes)
        markers = {kind: list(pile) for kind, pile in future.markers.items()}
        doubles = list(future.doubles)
        turn = seat.turn
        for _ in range(self.depth):
            turn += 1
            task: TaskSpec | None = None
            if tasks and (turn <= OPENING_TASK_TURNS or area.active_count < ACTIVE_TASKS):
                tile = tasks.pop()
                task = _task_of(tile, seat.printed, markers, doubles)
                if task is None:
                    continue
            elif landscapes:
                tile = landscapes.pop()
            else:
                break
            moves = area.legal_moves(tile.face, task)
            if not moves:
                continue
            gain, (c, r) = self._policy(area, tile, task, moves, rng)
            edges += gain
            area.push(tile.face, c, r, flag=tile.flag, task=task)
            pushed += 1
        value = evaluate(area, weights) + edges
        for _ in range(pushed):
            area.pop()
        return value

    def _policy(
        self,
        area: PlayArea,
        tile: Tile,
        task: TaskSpec | None,
        moves: list[tuple[int, int]],
        rng: random.Random,
    ) -> tuple[float, tuple[int, int]]:
        """The rollout's move: the best by evaluation among the best few by edge contacts."""
        weights = self.weights
        face = tile.face
        moves.sort()  # the frontier's order depends on history; the rollout must not
        noise = random_bits(rng, len(moves))
        # Each move's edge contacts plus a little noise, best first (PlayArea.contact_values).
        touching = area.contact_values(face, moves, weights.joined_edge, weights.mismatched_edge, noise)
        best = (-1e9, 0.0, touching[0][1])
        for gain, (cell, k) in touching[:ROLLOUT_SHORTLIST]:
            area.push(face, cell, k, flag=tile.flag, task=task)
            value = evaluate(area, weights) + gain
            area.pop()
            if value > best[0]:
                best = (value, gain, (cell, k))
        return best[1], best[2]

    def _pick(self, view: HeadToHeadView) -> Pick:
        """A look-ahead over the rest of the draft.

        The best few tiles by draft value (for itself, plus half their worth to the other player)
        are each taken in turn, and the rest of the draft is played out ``DRAFT_FUTURES`` times
        by both players taking greedily with a little noise; a candidate scores what its player's
        picks from then on are worth to it, less what the other player's are worth to them.
        """
        tiles = view.tiles
        me = view.player
        mine = [tiles[i] for i in view.owned[me]]
        theirs = [tiles[i] for i in view.owned[1 - me]]
        ranked = sorted(
            view.pool,
            key=lambda i: (-(draft_value(tiles[i], mine) + 0.5 * draft_value(tiles[i], theirs)), i),
        )
        candidates = ranked[:DRAFT_WIDTH]
        if len(candidates) == 1 or len(view.pool) <= 2:
            return Pick(candidates[0])
        worth = {i: tile_worth(tiles[i]) for i in view.pool}
        owned = [
            (sum(1 for t in mine if t.is_task), len(mine)),
            (sum(1 for t in theirs if t.is_task), len(theirs)),
        ]
        totals = [0.0] * len(candidates)
        for _ in range(DRAFT_FUTURES):
            seed = self.rng.random()
            for c, first in enumerate(candidates):
                totals[c] += _draft_rollout(
                    tiles, view.pool, worth, owned, first, me == 1, random.Random(seed)
                )
        best = max(range(len(candidates)), key=lambda c: (totals[c], -c))
        return Pick(candidates[best])


def _draft_rollout(
    tiles: tuple[Tile, ...],
    pool: Sequence[int],
    worth: dict[int, float],
    owned: list[tuple[int, int]],
    first: int,
    taker_is_second: bool,
    rng: random.Random,
) -> float:
    """Take ``first``, play out the rest of the draft greedily with noise; return the taker's gain
    from here on less the other player's (each tile valued as the taker would value it)."""
    left = [i for i in pool if i != first]
    counts = [list(owned[0]), list(owned[1])]
    score = [0.0, 0.0]

    def take(player: int, tile_id: int) -> None:
        tasks, total = counts[player]
        is_task = tiles[tile_id].is_task
        score[player] += worth[tile_id] + balance(is_task, tasks, total)
        counts[player] = [tasks + is_task, total + 1]

    take(0, first)
    player = 1
    while len(left) > 1:
        tasks, total = counts[player]
        bonus_task = balance(True, tasks, total)
        bonus_land = balance(False, tasks, total)
        pick = max(
            left,
            key=lambda i: (
                worth[i] + (bonus_task if tiles[i].is_task else bonus_land) + rng.random() * DRAFT_NOISE
            ),
        )
        left.remove(pick)
        take(player, pick)
        player = 1 - player
    if left:  # the last tile goes to the draft's second player
        take(0 if taker_is_second else 1, left[0])
    return score[0] - score[1]


def _task_of(
    tile: Tile, printed: bool, markers: dict[str, list[int]], doubles: list[tuple[str, str]]
) -> TaskSpec | None:
    """The task a revealed task tile carries in a sampled future (None if its pile is empty)."""
    assert tile.task is not None
    if printed:
        assert tile.value is not None
        return TaskSpec(tile.task, tile.value)
    if tile.task == DOUBLE:
        return TaskSpec(DOUBLE, 6, doubles.pop()) if doubles else None
    pile = markers.get(tile.task)
    return TaskSpec(tile.task, pile.pop()) if pile else None


F = TypeVar("F")


def over_futures(
    rng: random.Random,
    iterations: int | None,
    seconds: float | None,
    candidates: Sequence[tuple[int, int]],
    sample: Callable[[random.Random], F],
    rollout: Callable[[tuple[int, int], F, random.Random], float],
) -> list[tuple[float, Placement]]:
    """Each candidate's mean over sampled futures, best first: ``iterations`` futures (or as many
    as ``seconds`` allow, at least one), every candidate meeting the same future and the same
    rollout seed."""
    totals = [0.0] * len(candidates)
    deadline = None if seconds is None else time.perf_counter() + seconds
    runs = 0
    while True:
        if iterations is not None and runs >= iterations:
            break
        if deadline is not None and runs > 0 and time.perf_counter() >= deadline:
            break
        future = sample(rng)
        seed = rng.random()
        for i, move in enumerate(candidates):
            totals[i] += rollout(move, future, random.Random(seed))
        runs += 1
    out = [(totals[i] / runs, placements_of([move])[0]) for i, move in enumerate(candidates)]
    out.sort(key=lambda item: -item[0])
    return out
