"""The planner: look-ahead over sampled futures with an evaluation learned from self-play.

The strongest player (``planner``, the ``expert`` level; docs/players.md has
its measured strength). :func:`position_of` reads what the deciding seat may
know from its view; :class:`PlannerPlayer` ranks every legal placement one
placement ahead with the learned evaluation (:mod:`dorf.players.evaluation`),
and plays each of the best few against the same sampled futures: the next
tiles by the reveal rule, each placed by a fast policy that ranks moves by
their edge contacts (on the compiled core where built) and weighs the best
few, plus those reaching an open task or a flag territory near closing, with
the quick evaluation. A rollout's end is valued by the full evaluation, or
by the exact score when the game is over there.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any

from dorf.games.headtohead import Pick
from dorf.games.modes import MODES
from dorf.games.seat import ACTIVE_TASKS, OPENING_TASK_TURNS
from dorf.games.state import GameView, Revealed
from dorf.players.evaluation import V5_WEIGHTS_FILES, WEIGHTS_FILES, Evaluator, Weights, load_weights
from dorf.players.outlook import Fits
from dorf.players.search import SearchPlayer, _Future, _Seat, coming_of, drafting, over_futures
from dorf.rules.area import Placement, PlayArea, placements_of, random_bits
from dorf.rules.hexgrid import cell_of
from dorf.rules.tasks import DOUBLE, OPEN, TaskSpec
from dorf.rules.terrain import AREA_INDEX, AREA_LETTERS
from dorf.rules.tiles import Tile, load_tileset, rotate

#: What a player is given: a view of any of the games (what its seat may know).
View = GameView
Move = tuple[int, int]
#: Sampled futures a decision by default (``planner``, the ``expert`` level), per game: under 1 s a
#: placement in the cooperative game (16-tile rollouts, 20 candidates by sequential halving), 0.2 s
#: in the Duel, 0.36 s in Head to Head (16-tile rollouts, 20 candidates by sequential halving; its
#: areas are smaller, so a rollout costs less) on one core of the 2-core VM with the compiled parts
#: (docs/players.md).
DEFAULT_FUTURES = {"coop": 160, "duel": 48, "head-to-head": 128}
#: ``planner-v6``'s, the planner before its rollouts looked for where a task tile's group reaches its
#: marker (:data:`DEFAULT_TASK_REACH`): 192 futures in the cooperative game. That look costs about a
#: sixth more a rollout, so 160 futures keep a placement under the second.
V6_FUTURES = {"coop": 192, "duel": 48, "head-to-head": 128}
#: ``planner-v4``'s, the planner before its cooperative look-ahead weighed 20 candidates by
#: sequential halving over 192 futures: 6 candidates against each of 96 futures (576 rollouts a
#: placement; 20 by halving over 192 are 1,728).
V4_FUTURES = {"coop": 96, "duel": 48, "head-to-head": 128}
#: Tiles a rollout plays after the candidate, per game, unless a depth is given: 16 in the
#: cooperative game (with 96 futures: 152.5 on seeds 1-200 and 150.4 on 201-400, against 147.4 for
#: ``planner-v2`` on 1-200; docs/research/planner.md#deeper-rollouts) and in Head to Head (at 96 futures 2.1
#: points a game more than ``planner-v2``'s 144 futures of 8 tiles, game for game on the same hands
#: over 200 seeds), 8 in the Duel (its figures were measured so).
DEFAULT_DEPTH = {"coop": 16, "duel": 8, "head-to-head": 16}
#: Candidate placements the look-ahead weighs, per game, unless a width is given ...
DEFAULT_WIDTH = {"coop": 20, "duel": 6, "head-to-head": 20}
V4_WIDTH = {"coop": 6, "duel": 6, "head-to-head": 20}
#: ... and whether it weighs them by sequential halving (:meth:`PlannerPlayer._halving`: every
#: candidate meets a quarter of the futures, the best four half more, the best two all of them
#: again) instead of all against all the futures. In Head to Head, at 16 tiles a rollout, 12
#: candidates so over 96 futures (672 rollouts a placement where 6 against all 96 are 576) gained
#: 1.1 points a game over 200 seeds, and 20 over 128 (1,152 rollouts) 1.3 more: 4.5 points a game
#: more than ``planner-v2``, 156 wins of 200 against ``search-v1:16`` where it won 136
#: (docs/research/planner.md#head-to-head-game-for-game-on-the-same-hands-2026-12-04).
#: In the cooperative game, 20 candidates so over 192 futures gained 3.5 points a game over
#: ``planner-v4`` on seeds 201-300, game for game (docs/players.md#more-futures-for-the-20-candidates).
DEFAULT_HALVING = {"coop": True, "duel": False, "head-to-head": True}
V4_HALVING = {"coop": False, "duel": False, "head-to-head": True}
#: Whether the look-ahead widens in the endgame, per game: once the tiles left to reveal (landscape
#: and task tiles) are no more than a rollout's depth, so that every rollout reaches the game's end
#: and is valued by the exact score, it weighs :data:`ENDGAME_WIDTH` candidates by sequential
#: halving over more futures, as many more as the rollouts are shorter (:func:`endgame_futures`).
#: Most tasks a game loses are revealed there and left open (docs/research/planner.md#the-endgame).
DEFAULT_ENDGAME = {"coop": True, "duel": False, "head-to-head": False}
NO_ENDGAME = dict.fromkeys(DEFAULT_ENDGAME, False)
#: Candidates an endgame decision weighs (by sequential halving).
ENDGAME_WIDTH = 20
#: The endgame's futures are at most this many times the decision's budget.
ENDGAME_SPREAD = 4
#: For a tile that carries a task of one terrain, the rollout policy also values the placements
#: after which the task's group is at most this many tiles short of its marker (completed at once,
#: or one tile short), besides its shortlist by edge contacts; per game, None: not. The few best
#: placements by edge contacts often miss them: alone on the real tiles, the policy so scores
#: 89.3 where it scores 81.2 (seeds 1-100), and valuing every placement of a task tile 90.3 at
#: nearly three times the cost
#: (docs/research/planner.md#the-rollouts-task-tiles-placed-where-their-group-reaches-its-marker).
DEFAULT_TASK_REACH: dict[str, int | None] = {"coop": 1, "duel": None, "head-to-head": None}
NO_TASK_REACH: dict[str, int | None] = dict.fromkeys(DEFAULT_TASK_REACH)
#: ... and of those it values the best this many by edge contacts (alone: 89.1 at 2, 88.8 at 4).
TASK_REACH_MOVES = 1
#: ``planner-v2``'s budget, the planner as it was before: 48 futures and 12-tile rollouts in the
#: cooperative game, 144 futures of 8 tiles in Head to Head.
V2_FUTURES = {"coop": 48, "duel": 48, "head-to-head": 144}
V2_DEPTH = {"coop": 12, "duel": 8, "head-to-head": 8}
#: ``planner-v1``'s: as ``planner-v2`` with 8-tile rollouts in every game.
V1_DEPTH = {"coop": 8, "duel": 8, "head-to-head": 8}
#: Both weighed 6 candidates against every future in every game.
V2_WIDTH = {"coop": 6, "duel": 6, "head-to-head": 6}
V2_HALVING = {"coop": False, "duel": False, "head-to-head": False}
#: The root's best moves by the quick evaluation that the full one weighs again.
RECHECK = 12
#: The rollout's moves also weigh the cells next to flag territories with this many open edges or fewer.
FLAG_CLOSING = 3


@dataclass(frozen=True)
class Version:
    """One version of the planner: its settings per game (``coop``, ``duel``, ``head-to-head``),
    what a decision does where no option of :class:`PlannerPlayer` says otherwise."""

    #: Sampled futures a decision, unless a budget (futures or seconds) is given.
    futures: Mapping[str, int]
    #: Tiles a rollout plays after the candidate, unless a depth is given.
    depth: Mapping[str, int]
    #: Candidate placements the look-ahead weighs, unless a width is given.
    width: Mapping[str, int]
    #: Whether it weighs them by sequential halving, unless told.
    halving: Mapping[str, bool]
    #: Whether the look-ahead widens in the endgame, unless told.
    endgame: Mapping[str, bool]
    #: How near its marker a task tile's group comes in the placements the rollout policy also
    #: values (:data:`DEFAULT_TASK_REACH`); None: not.
    task_reach: Mapping[str, int | None]
    #: The shipped weights file its evaluation reads when no weights are given.
    weights_files: Mapping[str, str]

    def as_json(self) -> dict[str, dict[str, Any]]:
        """The settings as plain data, per setting and game (what the tests pin)."""
        return {name: dict(getattr(self, name)) for name in self.__dataclass_fields__}


#: ``planner``, the ``expert`` level: the planner as it plays now.
PLANNER = Version(
    futures=DEFAULT_FUTURES,
    depth=DEFAULT_DEPTH,
    width=DEFAULT_WIDTH,
    halving=DEFAULT_HALVING,
    endgame=DEFAULT_ENDGAME,
    task_reach=DEFAULT_TASK_REACH,
    weights_files=WEIGHTS_FILES,
)
#: ``planner-v6``: the planner before its cooperative rollouts looked for where a task tile's group
#: reaches its marker (2026-12-06): the rollout policy's shortlist by edge contacts alone, over 192
#: futures. The older planners keep its rollouts too.
PLANNER_V6 = replace(PLANNER, futures=V6_FUTURES, task_reach=NO_TASK_REACH)
#: ``planner-v5``: before its cooperative evaluation counted open tasks 1.25 times (2026-12-05):
#: 1.96 times, as ``dorf tune`` fitted it (``planner-weights-v5.json``); the older planners keep
#: its weights too.
PLANNER_V5 = replace(PLANNER_V6, weights_files=V5_WEIGHTS_FILES)
#: ``planner-v4``: before its cooperative look-ahead weighed 20 candidates by sequential halving over
#: 192 futures (2026-12-04): 6 candidates against each of 96 futures there.
PLANNER_V4 = replace(PLANNER_V5, futures=V4_FUTURES, width=V4_WIDTH, halving=V4_HALVING)
#: ``planner-v3``: before its endgame widened (2026-12-04): in the cooperative game's endgame too
#: 6 candidates against 96 futures.
PLANNER_V3 = replace(PLANNER_V4, endgame=NO_ENDGAME)
#: ``planner-v2``: before its rollouts went 16 tiles deep over 96 futures: 12 tiles over 48 in the
#: cooperative game, 8 over 144 in Head to Head, 6 candidates against every future everywhere.
PLANNER_V2 = replace(
    PLANNER_V5,
    futures=V2_FUTURES,
    depth=V2_DEPTH,
    width=V2_WIDTH,
    halving=V2_HALVING,
    endgame=NO_ENDGAME,
)
#: ``planner-v1``: before ``planner-v2``, 8-tile rollouts in every game (the ``hard`` level is
#: ``planner-v1:8``).
PLANNER_V1 = replace(PLANNER_V2, depth=V1_DEPTH)
#: The planner's versions by name (the registry's names). The frozen ones are kept unchanged, like
#: ``search-v1``, so that progress is measured against players that do not move: a change to the
#: planner is a new row here, the old rows stay (tests/players/test_planner_versions.py pins them).
VERSIONS: dict[str, Version] = {
    "planner": PLANNER,
    "planner-v6": PLANNER_V6,
    "planner-v5": PLANNER_V5,
    "planner-v4": PLANNER_V4,
    "planner-v3": PLANNER_V3,
    "planner-v2": PLANNER_V2,
    "planner-v1": PLANNER_V1,
}


#: One sampled future: stacks (top = last) and marker piles (``search-v1``'s, shared unchanged).
Future = _Future


@dataclass
class Position(_Seat):
    """What the planner needs of its seat: ``search-v1``'s seat (its area, the tile to place and
    what may come, and how a future is sampled), with the flags, fits and supply its evaluation
    reads."""

    flags: list[tuple[int, str]]
    fits: Fits
    #: Per area letter: how many unseen landscape tiles show it.
    supply: dict[str, int]
    #: The Duel: the other area's open tasks (a task tile comes while either area has fewer than 3).
    rival_active: int = ACTIVE_TASKS
    #: Which game: its evaluation has its own weights.
    mode: str = "coop"


def flags_of(area: PlayArea) -> list[tuple[int, str]]:
    """The (cell, flag letter) of every flag tile in the area."""
    return [(cell_of(*tile.at), tile.flag) for tile in area.placed if tile.flag is not None]


def supply_of(tiles: Sequence[Tile]) -> dict[str, int]:
    """Per area letter, how many of these tiles show it."""
    return {letter: sum(1 for tile in tiles if letter in tile.face) for letter in AREA_LETTERS}


_FITS: dict[str, Fits] = {}


def fits_of(tileset: str) -> Fits:
    """The faces of a shipped tile set, for :mod:`dorf.players.outlook` (made once)."""
    fits = _FITS.get(tileset)
    if fits is None:
        fits = _FITS[tileset] = Fits(tile.face for tile in load_tileset(tileset).tiles)
    return fits


def position_of(view: View, revealed: Revealed | None = None) -> Position:
    """The deciding seat's position, read from its view only: ``revealed`` is the tile it places
    (by default the view's :attr:`~dorf.games.state.GameView.to_place`)."""
    if revealed is None:
        revealed = view.to_place
    assert revealed is not None
    coming = coming_of(view)
    area = view.area
    landscapes = [t for t in coming.unseen if not t.is_task]
    return Position(
        area,
        revealed.tile.face,
        revealed.task,
        revealed.tile.flag,
        coming.turn,
        [t for t in coming.unseen if t.is_task],
        landscapes,
        coming.tasks_left,
        coming.landscapes_left,
        coming.markers,
        coming.doubles,
        coming.printed,
        flags_of(area),
        fits_of(MODES[view.mode].tileset),
        supply_of(landscapes),
        coming.rival_active,
        view.mode,
    )


def endgame_futures(futures: int, depth: int, to_come: int) -> int:
    """The futures of an endgame decision with ``to_come`` tiles left to reveal (landscape and task
    tiles, no more than ``depth``): ``futures`` times ``depth`` over ``to_come`` (as many more as
    the rollouts are shorter), at most :data:`ENDGAME_SPREAD` times ``futures``.

    >>> endgame_futures(96, 16, 16), endgame_futures(96, 16, 8), endgame_futures(96, 16, 2)
    (96, 192, 384)
    """
    return min(futures * ENDGAME_SPREAD, futures * depth // max(to_come, 1))


class PlannerPlayer:
    """Look-ahead over sampled futures with the learned evaluation; budget in futures. ``version``
    names its settings in :data:`VERSIONS` (``planner``, the newest, by default)."""

    def __init__(
        self,
        seed: int = 0,
        *,
        version: str = "planner",
        iterations: int | None = None,
        seconds: float | None = None,
        width: int | None = None,
        depth: int | None = None,
        shortlist: int = 4,
        weights: Weights | None = None,
        task_aware: bool = True,
        expect: bool = False,
        flag_aware: bool = True,
        halving: bool | None = None,
        endgame: bool | None = None,
    ) -> None:
        if version not in VERSIONS:
            raise ValueError(f"unknown planner version {version!r}: choose from {', '.join(VERSIONS)}")
        #: The version's name (the registry's).
        self.name = version
        #: Its settings per game, where the options below leave them (None).
        self.settings = VERSIONS[version]
        self.seed = seed
        self.rng = random.Random(seed)
        #: Futures a decision; None: the version's for the game unless ``seconds``.
        self.iterations = iterations
        self.seconds = seconds
        #: Candidates a decision; None: the version's for the game.
        self.width = width
        #: Tiles a rollout plays; None: the version's for the game.
        self.depth = depth
        self.shortlist = shortlist
        self.task_aware = task_aware
        self.expect = expect
        self.flag_aware = flag_aware
        #: Sequential halving over the candidates; None: the version's for the game.
        self.halving = halving
        #: Whether the look-ahead widens in the endgame; None: the version's for the game.
        self.endgame = endgame
        self.weights = weights
        self._evaluators: dict[str, Evaluator] = {}
        self.evaluator = self.evaluator_for("coop")
        #: The rollout policy's task reach in the game being decided (set with its evaluator).
        self.task_reach = self.settings.task_reach["coop"]

    def futures_for(self, mode: str) -> int | None:
        """Futures a decision in this game: the budget given, else the game's default (None when
        the budget is in seconds)."""
        if self.iterations is None and self.seconds is None:
            return self.settings.futures[mode]
        return self.iterations

    def width_for(self, mode: str) -> int:
        """Candidate placements the look-ahead weighs in this game: the width given, else the game's."""
        return self.settings.width[mode] if self.width is None else self.width

    def halving_for(self, mode: str) -> bool:
        """Whether the candidates are weighed by sequential halving in this game (only with a budget
        of futures, not of seconds)."""
        return self.settings.halving[mode] if self.halving is None else self.halving

    def endgame_for(self, mode: str) -> bool:
        """Whether the look-ahead widens in this game's endgame (only with a budget of futures)."""
        return self.settings.endgame[mode] if self.endgame is None else self.endgame

    def depth_for(self, mode: str) -> int:
        """Tiles a rollout plays in this game: the depth given, else the game's default."""
        return self.settings.depth[mode] if self.depth is None else self.depth

    def evaluator_for(self, mode: str) -> Evaluator:
        """The evaluation for a mode: the weights given, else the version's weights file."""
        found = self._evaluators.get(mode)
        if found is None:
            weights = self.weights or load_weights(mode, self.settings.weights_files[mode])
            found = self._evaluators[mode] = Evaluator(weights)
        return found

    def choose(self, view: View) -> Placement | Pick:
        if drafting(view):
            return SearchPlayer(self.rng.getrandbits(32), iterations=16).choose(view)
        return self.analyse(view)[0][1]

    def ranked(self, position: Position) -> list[tuple[float, Move]]:
        """Every legal move with its one-ply value, best first (ties in cell, rotation order): the
        quick evaluation for all, then the full one (with the frontier) for the best few."""
        area = position.area
        ev = self.evaluator
        face, task, flag = position.face, position.task, position.flag
        flags = position.flags
        if flag is not None:
            flags = [*flags, (-1, flag)]
        left = position.landscapes_left
        tasks_left = position.tasks_left
        supply = position.supply
        fits = position.fits

        def judge(moves: list[Move], full: bool) -> list[tuple[float, Move]]:
            scored = []
            for cell, k in moves:
                same, other = area.contacts(face, cell, k)
                area.push(face, cell, k, flag=flag, task=task)
                if flag is not None:
                    flags[-1] = (cell, flag)
                if full:
                    value = ev.value(area, flags, left, tasks_left, supply, fits)
                else:
                    value = ev.quick(area, flags, left, tasks_left, supply)
                area.pop()
                scored.append((value + ev.joined_edge * same - ev.mismatched_edge * other, (cell, k)))
            scored.sort(key=lambda item: -item[0])
            return scored

        quick = judge(sorted(area.legal_moves(face, task)), False)
        head = sorted(move for _, move in quick[:RECHECK])
        return judge(head, True) + quick[RECHECK:]

    def analyse(self, view: View, include: Sequence[Placement] = ()) -> list[tuple[float, Placement]]:
        position = position_of(view)
        self.evaluator = self.evaluator_for(position.mode)
        self.task_reach = self.settings.task_reach[position.mode]
        face = position.face
        ranked = self.ranked(position)
        if not ranked:
            raise ValueError("there is no legal placement")
        mode = position.mode
        futures = self.futures_for(mode)
        width = 1 if futures == 0 else self.width_for(mode)
        halving = self.halving_for(mode)
        depth = self.depth_for(mode)
        to_come = position.landscapes_left + position.tasks_left
        if futures and not include and self.endgame_for(mode) and to_come <= depth:
            width, halving = ENDGAME_WIDTH, True
            futures = endgame_futures(futures, depth, to_come)
        candidates = [move for _, move in ranked[:width]]
        asked = []
        for placement in include:
            wanted = (cell_of(*placement.at), rotate(face, placement.rot))
            same = [move for _, move in ranked if (move[0], rotate(face, move[1])) == wanted]
            if not same:
                raise ValueError(f"placement {placement} is not legal for tile {face}")
            if same[0] not in candidates:
                candidates.append(same[0])
            asked.append(candidates.index(same[0]))
        if len(candidates) == 1 or futures == 0:
            # One placement ahead: the candidates as the evaluation ranks them.
            values = {move: value for value, move in ranked}
            return [(values[move], placements_of([move])[0]) for move in candidates]
        if self.expect:
            out = [(self.expectation(position, move), placements_of([move])[0]) for move in candidates]
            out.sort(key=lambda item: -item[0])
            return out
        if futures is not None and halving:
            return self._halving(position, candidates, futures, asked)
        return over_futures(
            self.rng,
            futures,
            self.seconds,
            candidates,
            position.sample,
            lambda move, future, rng: self.rollout(position, move, future, rng),
        )

    def _halving(
        self, position: Position, candidates: list[Move], futures: int, kept: Sequence[int] = ()
    ) -> list[tuple[float, Placement]]:
        """Sequential halving: every candidate meets a quarter of the futures, the best four half of
        them more, the best two all of them again; values are means over the futures each met.
        The candidates at the indices ``kept`` (placements the caller asked about, as the coach's)
        meet every future, however they fare."""
        totals = [0.0] * len(candidates)
        counts = [0] * len(candidates)
        alive = list(range(len(candidates)))
        survived = [0] * len(candidates)
        for phase, (keep, share) in enumerate(((len(candidates), 4), (4, 2), (2, 1))):
            means = self.weighed(candidates, totals, counts)
            alive = sorted(alive, key=lambda i: -means[i])[:keep]
            alive += [i for i in kept if i not in alive]
            for i in alive:
                survived[i] = phase
            for _ in range(max(1, futures // share)):
                future = position.sample(self.rng)
                seed = self.rng.random()
                for i in alive:
                    totals[i] += self.rollout(position, candidates[i], future, random.Random(seed))
                    counts[i] += 1
        means = self.weighed(candidates, totals, counts)
        order = sorted(range(len(candidates)), key=lambda i: (-survived[i], -means[i]))
        return [(means[i], placements_of([candidates[i]])[0]) for i in order]

    def weighed(self, candidates: list[Move], totals: list[float], counts: list[int]) -> list[float]:
        """What sequential halving ranks the candidates by: the mean of each one's rollouts so far."""
        return [total / max(count, 1) for total, count in zip(totals, counts, strict=True)]

    def next_tiles(self, position: Position, after: PlayArea) -> list[tuple[float, Tile, TaskSpec | None]]:
        """The tiles that may be revealed next, each with its chance (tiles with the same face, flag
        and task together), once the move has been made on ``after``."""
        turn = position.turn + 1
        rival = position.rival_active
        if position.tasks_left and (
            turn <= OPENING_TASK_TURNS or min(after.active_count, rival) < ACTIVE_TASKS
        ):
            pool = position.task_pool
            found: dict[tuple[str, str | None, TaskSpec], list[Any]] = {}
            for tile in pool:
                if position.printed:
                    assert tile.value is not None and tile.task is not None
                    options = [(1.0, TaskSpec(tile.task, tile.value))]
                elif tile.task == DOUBLE:
                    doubles = position.doubles
                    options = [(1.0 / len(doubles), TaskSpec(DOUBLE, 6, pair)) for pair in doubles]
                else:
                    assert tile.task is not None
                    values = position.markers.get(tile.task, ())
                    options = [(1.0 / len(values), TaskSpec(tile.task, v)) for v in values]
                for share, spec in options:
                    entry = found.setdefault((tile.face, tile.flag, spec), [0.0, tile, spec])
                    entry[0] += share / len(pool)
            return [(w, t, spec) for w, t, spec in found.values()]
        pool = position.landscape_pool
        if not position.landscapes_left or not pool:
            return []
        counted: dict[tuple[str, str | None], list[Any]] = {}
        for tile in pool:
            entry = counted.setdefault((tile.face, tile.flag), [0.0, tile, None])
            entry[0] += 1.0 / len(pool)
        return [(w, t, spec) for w, t, spec in counted.values()]

    def expectation(self, position: Position, move: Move) -> float:
        """The move's value over every tile that may come next, each placed at its best by the quick
        evaluation and then valued in full: an exact look-ahead of one tile."""
        area = position.area
        ev = self.evaluator
        fits = position.fits
        cell, k = move
        same, other = area.contacts(position.face, cell, k)
        edges = ev.joined_edge * same - ev.mismatched_edge * other
        area.push(position.face, cell, k, flag=position.flag, task=position.task)
        flags = list(position.flags)
        if position.flag is not None:
            flags.append((cell, position.flag))
        try:
            coming = self.next_tiles(position, area)
            left, tasks_left = position.landscapes_left, position.tasks_left
            if not coming:
                return ev.value(area, flags, left, tasks_left, position.supply, fits) + edges
            total = 0.0
            rng = random.Random(0)
            for chance, tile, task in coming:
                supply = position.supply
                tile_left, tile_tasks = left, tasks_left
                if task is None:
                    supply = dict(supply)
                    for letter in set(tile.face):
                        if letter in supply:
                            supply[letter] -= 1
                    tile_left -= 1
                else:
                    tile_tasks -= 1
                moves = area.legal_moves(tile.face, task)
                if not moves:
                    total += chance * ev.value(area, flags, tile_left, tile_tasks, supply, fits)
                    continue
                gain, (c, r) = self.policy(
                    area, tile, task, moves, flags, tile_left, tile_tasks, supply, fits, rng
                )
                area.push(tile.face, c, r, flag=tile.flag, task=task)
                placed = [*flags, (c, tile.flag)] if tile.flag is not None else flags
                total += chance * (ev.value(area, placed, tile_left, tile_tasks, supply, fits) + gain)
                area.pop()
            return total + edges
        finally:
            area.pop()

    def rollout(
        self,
        position: Position,
        move: Move,
        future: Future,
        rng: random.Random,
        at_end: Callable[[PlayArea, list[tuple[int, str]]], None] | None = None,
    ) -> float:
        """Play ``move``, then up to :meth:`depth_for` tiles of ``future`` by :meth:`policy`; the value
        at the end (``at_end`` sees the area and its flags there, before the tiles are taken back)."""
        area = position.area
        ev = self.evaluator
        fits = position.fits
        cell, k = move
        same, other = area.contacts(position.face, cell, k)
        edges = ev.joined_edge * same - ev.mismatched_edge * other
        area.push(position.face, cell, k, flag=position.flag, task=position.task)
        flags = list(position.flags)
        if position.flag is not None:
            flags.append((cell, position.flag))
        supply = dict(position.supply)
        pushed = 1
        tasks = list(future.tasks)
        landscapes = list(future.landscapes)
        markers = {kind: list(pile) for kind, pile in future.markers.items()}
        doubles = list(future.doubles)
        turn = position.turn
        # The Duel's other area: taken to place every task tile and complete none in the look-ahead.
        rival = position.rival_active
        for _ in range(self.depth_for(position.mode)):
            turn += 1
            task: TaskSpec | None = None
            if tasks and (turn <= OPENING_TASK_TURNS or min(area.active_count, rival) < ACTIVE_TASKS):
                tile = tasks.pop()
                rival += 1
                task = task_of(tile, position.printed, markers, doubles)
                if task is None:
                    continue
            elif landscapes:
                tile = landscapes.pop()
                for letter in set(tile.face):
                    if letter in supply:
                        supply[letter] -= 1
            else:
                break
            moves = area.legal_moves(tile.face, task)
            if not moves:
                continue
            gain, (c, r) = self.policy(
                area, tile, task, moves, flags, len(landscapes), len(tasks), supply, fits, rng
            )
            edges += gain
            area.push(tile.face, c, r, flag=tile.flag, task=task)
            if tile.flag is not None:
                flags.append((c, tile.flag))
            pushed += 1
        task_due = tasks and (turn + 1 <= OPENING_TASK_TURNS or min(area.active_count, rival) < ACTIVE_TASKS)
        if not landscapes and not task_due:
            value = ev.score_now(area, flags)  # the game is over: its exact score
        else:
            value = ev.value(area, flags, len(landscapes), len(tasks), supply, fits) + edges
        if at_end is not None:
            at_end(area, flags)
        for _ in range(pushed):
            area.pop()
        return value

    def targets(self, area: PlayArea, face: str, flags: list[tuple[int, str]]) -> set[int]:
        """The empty cells the rollout policy weighs beside its best by edge contacts: those next to
        the group of an open task that the face shows the terrain of, and those next to a flag
        territory with :data:`FLAG_CLOSING` open edges or fewer."""
        targets: set[int] = set()
        if self.task_aware:
            for open_task in area.tasks:
                if open_task.status is OPEN:
                    for letter in open_task.spec.letters:
                        if letter in face:
                            targets.update(area.open_cells(open_task.cell, letter))
            if self.flag_aware:
                figures = area.figures
                for cell, letter in flags:
                    if 0 < figures(cell, letter)[1] <= FLAG_CLOSING:
                        targets.update(area.open_cells(cell, letter))
        return targets

    def shortlisted(
        self, area: PlayArea, face: str, moves: list[Move], flags: list[tuple[int, str]], rng: random.Random
    ) -> list[tuple[float, Move]]:
        """The moves the rollout policy values: the best :attr:`shortlist` by edge contacts plus a
        little noise, then as many more of the rest reaching a :meth:`targets` cell, each in that
        order (:meth:`PlayArea.contact_values`), with their edges' worth."""
        ev = self.evaluator
        return area.contact_values(
            face,
            moves,
            ev.joined_edge,
            ev.mismatched_edge,
            random_bits(rng, len(moves)),
            self.shortlist,
            self.targets(area, face, flags),
        )

    def reaching(
        self,
        area: PlayArea,
        face: str,
        moves: list[Move],
        task: TaskSpec,
        shortlist: list[tuple[float, Move]],
    ) -> list[tuple[float, Move]]:
        """The moves of a task tile not in ``shortlist`` after which its task's group is at most
        :attr:`task_reach` tiles short of the marker (:meth:`PlayArea.grown_to`), with their edges'
        worth."""
        assert self.task_reach is not None
        value = task.value
        found = area.grown_to(face, moves, AREA_INDEX[task.letters[0]], value - self.task_reach, value)
        have = {move for _, move in shortlist}
        fresh = [move for move in found if move not in have]
        if not fresh:
            return []
        ev = self.evaluator
        # The best few by edge contacts, as the shortlist ranks them (no noise: ties keep their order).
        return area.contact_values(
            face, fresh, ev.joined_edge, ev.mismatched_edge, bytes(8 * len(fresh)), TASK_REACH_MOVES, ()
        )

    def policy(
        self,
        area: PlayArea,
        tile: Tile,
        task: TaskSpec | None,
        moves: list[Move],
        flags: list[tuple[int, str]],
        left: int,
        tasks_left: int,
        supply: dict[str, int],
        fits: Fits,
        rng: random.Random,
    ) -> tuple[float, Move]:
        """The rollout's move: the best by quick evaluation among the best few by edge contacts."""
        ev = self.evaluator
        face = tile.face
        shortlist = self.shortlisted(area, face, moves, flags, rng)
        if task is not None and self.task_reach is not None and len(task.letters) == 1:
            shortlist += self.reaching(area, face, moves, task, shortlist)
        flag = tile.flag
        if flag is not None:
            flags = [*flags, (-1, flag)]
        best = (-1e9, 0.0, *shortlist[0][1])
        # The tasks as they are now: still so after a placement that brings no task and changes none.
        ledger = ev.task_ledger(area) if task is None else None
        last_changes = area.last_changes
        for gain, (cell, k) in shortlist:
            area.push(face, cell, k, flag=flag, task=task)
            if flag is not None:
                flags[-1] = (cell, flag)
            value = ev.quick(area, flags, left, tasks_left, supply, None if last_changes() else ledger) + gain
            area.pop()
            if value > best[0]:
                best = (value, gain, cell, k)
        return best[1], (best[2], best[3])


def task_of(
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
