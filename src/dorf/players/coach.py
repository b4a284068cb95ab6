"""``dorf analyse`` and the hint: a coach that weighs placements against the strongest player.

The record is replayed decision by decision.  Before each placement the
coach takes the view of the player who made it (what that seat could know
then: never the order of a stack) and runs the planner's analysis
(:mod:`dorf.players.planner`; the older ``search`` player too) on it, with
the placement actually played always among the candidates.  Every candidate
meets the same sampled futures, so the difference between the preferred
placement's estimated value and the played one's is measured, not luck: that
difference is the *expected loss* of the move, in the player's evaluation
(the score as it stands plus what open tasks and flags promise, so roughly
points).  A move the coach would have played itself loses nothing.  Each
verdict also says, in words, what the preferred placement gains over the
one played (:mod:`dorf.players.explain`): "completes grain 5", "keeps the
forest flag closable".

:func:`hint` is the same advice before a move: the placement (or the pick, in
the Head to Head draft) the coach would make, and why.

Each decision's sampled futures are seeded from ``--seed`` and the
decision's number, so an analysis is reproducible.  The Head to Head draft's
picks are replayed but not weighed.

>>> from dorf.games.coop import CoopGame
>>> from dorf.formats.record import record_of
>>> state = CoopGame(seed=3).new_state()
>>> for _ in range(4):
...     state.play(state.legal_placements()[-1])
>>> verdicts = analyse_record(record_of(state), "planner:2")
>>> [v.number for v in verdicts if v.loss == 0] == sorted(v.number for v in verdicts if v.loss == 0)
True
>>> all(a.loss >= b.loss for a, b in zip(verdicts, verdicts[1:]))
True
"""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from dorf.formats.notation import task_document
from dorf.formats.record import GameState, RecordError, apply_decision, read_decision, start_of
from dorf.games.headtohead import Pick
from dorf.games.modes import MODES
from dorf.games.seat import Revealed
from dorf.players.evaluation import BOARD_FEATURES, Evaluator, load_weights
from dorf.players.explain import FLAG_NAMES, effects, gains, summary, weightiest
from dorf.players.foresight import foresight_gains
from dorf.players.outlook import Fits
from dorf.players.planner import PlannerPlayer, fits_of, position_of
from dorf.players.registry import View, make_player
from dorf.players.search import SearchPlayer, drafting
from dorf.rules.area import Placement
from dorf.rules.hexgrid import cell_of
from dorf.rules.tasks import TaskSpec
from dorf.rules.tiles import rotate

#: The default coach: the strongest player at its own budget (96 futures in the cooperative game),
#: which weighs a whole solo game in under a minute (docs/players.md has the command that measures
#: it).
DEFAULT_PLAYER = "planner"
#: The players that can coach: they weigh candidates against common sampled futures.
Coach = PlannerPlayer | SearchPlayer


@dataclass(frozen=True)
class Verdict:
    """One placement of the record weighed against the search player's preferred one."""

    number: int
    turn: int
    player: int
    tile: str
    task: TaskSpec | None
    played: Placement
    preferred: Placement
    played_value: float
    preferred_value: float
    candidates: int
    #: What the preferred placement gains over the one played, in words (empty if none was played
    #: worse or the difference is not one a phrase names).
    reasons: tuple[str, ...] = ()

    @property
    def loss(self) -> float:
        """How many points (in the search's evaluation) the move played is expected to lose."""
        return max(0.0, self.preferred_value - self.played_value)

    def as_json(self) -> dict[str, Any]:
        return {
            "decision": self.number,
            "turn": self.turn,
            "player": self.player,
            "tile": self.tile,
            "task": None if self.task is None else task_document(self.task),
            "played": {"at": [self.played.at.q, self.played.at.r], "rot": self.played.rot},
            "preferred": {"at": [self.preferred.at.q, self.preferred.at.r], "rot": self.preferred.rot},
            "played_value": round(self.played_value, 3),
            "preferred_value": round(self.preferred_value, 3),
            "loss": round(self.loss, 3),
            "candidates": self.candidates,
            "reasons": list(self.reasons),
        }


class AnalyseError(ValueError):
    """A user error (unreadable record, a player that is not the search player); one line."""


def weigh(player: Coach, view: View, played: Placement) -> tuple[list[tuple[float, Placement]], int]:
    """The coach's ``analyse`` with ``played`` always among the candidates.

    Returns every candidate with its estimated value, best first (ties in the
    greedy ranking's order), and the index of the played placement in that
    list.  Where the planner weighs its candidates by sequential halving (the
    cooperative game and Head to Head), ``played`` meets every future however
    it fares, so its value is as sure as the best one's.  When ``played`` is
    among the search's own candidates, the values of the others are exactly
    those of ``player.analyse(view)`` with the same seed (``played``'s too
    unless halving would have dropped it), except in the cooperative game's
    endgame, whose wider look-ahead a given placement turns off.
    """
    ranked = player.analyse(view, include=[played])
    seat_face = view_face(view)
    wanted = (cell_of(*played.at), rotate(seat_face, played.rot))
    index = next(
        i
        for i, (_, placement) in enumerate(ranked)
        if (cell_of(*placement.at), rotate(seat_face, placement.rot)) == wanted
    )
    ranked[index] = (ranked[index][0], played)
    return ranked, index


def view_face(view: View) -> str:
    """The face of the tile the view's player is to place."""
    revealed = view.to_place
    if revealed is None:
        raise ValueError("there is no tile to place")
    return revealed.tile.face


def _seed_of(seed: int, number: int) -> int:
    return random.Random(f"dorf-analyse/{seed}/{number}").getrandbits(32)


def coach_player(spec: str, seed: int = 0) -> Coach:
    """The coach of a spec (``planner:16``, ``expert``, ``search:8``...), or AnalyseError."""
    try:
        player = make_player(spec, seed)
    except ValueError as exc:
        raise AnalyseError(str(exc)) from None
    if not isinstance(player, PlannerPlayer | SearchPlayer):
        raise AnalyseError(
            f"the coach is a look-ahead player (planner, planner:16, search:8, hard, expert), not {spec!r}"
        )
    return player


def fits_for(view: View) -> Fits:
    """The faces of the box the view's game is played with."""
    return fits_of(MODES[view.mode].tileset)


#: A change worth telling: expected points (a task's value, or a flag territory's size, times the
#: learned models' chance of completing or closing it).
TOLD_POINTS = 0.75


@dataclass(frozen=True)
class _Outlook:
    """After a placement: each open task's and flag territory's chance, and the dead frontier cells."""

    #: Per task index and flag cell: its name, chance, and points if it comes off.
    tasks: dict[int, tuple[str, float, float]]
    flags: dict[int, tuple[str, float, float]]
    dead: float
    tight: float
    stuck: float


def _outlook(view: View, placement: Placement) -> _Outlook:
    position = position_of(view)
    evaluator = Evaluator(load_weights(position.mode))
    area = position.area
    cell = cell_of(*placement.at)
    flags = list(position.flags)
    if position.flag is not None:
        flags.append((cell, position.flag))
    area.push(position.face, cell, placement.rot, flag=position.flag, task=position.task)
    try:
        terms = evaluator.terms(
            area, flags, position.landscapes_left, position.tasks_left, position.supply, position.fits
        )
        tasks = {
            i: (str(area.tasks[i].spec), evaluator.task_chance(f), float(value))
            for i, value, f in terms.tasks
        }
    finally:
        area.pop()
    letters = dict(flags)
    flag_chances = {
        at: (FLAG_NAMES.get(letters[at], letters[at]), evaluator.flag_chance(f), float(size))
        for at, size, _, f in terms.flags
    }
    board = dict(zip(BOARD_FEATURES, terms.board, strict=True))
    return _Outlook(tasks, flag_chances, board["dead_cells"], board["tight_cells"], board["stuck_tasks"])


def outlook_gains(view: View, better: Placement, worse: Placement, limit: int = 2) -> list[str]:
    """What ``better`` does for the game to come that ``worse`` does not, by the learned models:
    a task's or a flag's chance raised ("gives the forest flag a better chance to close: 80%
    instead of 40%"), fewer holes no tile can fill."""
    mine, theirs = _outlook(view, better), _outlook(view, worse)
    found: list[tuple[float, str]] = []
    wording = (
        (mine.tasks, theirs.tasks, "gives {} a better chance to complete: {:.0%} instead of {:.0%}"),
        (mine.flags, theirs.flags, "gives the {} flag a better chance to close: {:.0%} instead of {:.0%}"),
    )
    expected = 0.0
    for ours, other, words in wording:
        for key, (name, chance, points) in ours.items():
            before = other.get(key, (name, 0.0, points))[1]
            if (chance - before) * points >= TOLD_POINTS:
                found.append(((chance - before) * points, words.format(name, chance, before)))
        expected += sum(c * p for _, c, p in ours.values()) - sum(c * p for _, c, p in other.values())
    if not found and expected >= TOLD_POINTS:
        found.append(
            (expected, f"puts about {expected:.1f} more points from open tasks and flags within reach")
        )
    if mine.stuck < theirs.stuck:
        found.append((0.5, "leaves no task cut off from every tile"))
    if mine.dead < theirs.dead:
        gaps = int(theirs.dead - mine.dead)
        found.append((0.1 * gaps, f"leaves {gaps} fewer hole{'s' * (gaps != 1)} that no tile can fill"))
    if mine.tight < theirs.tight:
        cells = int(theirs.tight - mine.tight)
        found.append(
            (
                0.05 * cells,
                f"leaves {cells} fewer awkward space{'s' * (cells != 1)} that only a few tiles fit",
            )
        )
    return weightiest(found, limit)


def reasons_for(view: View, better: Placement, worse: Placement) -> tuple[str, ...]:
    """What ``better`` gains over ``worse`` (the placement played: "yours") for the tile of this
    view, in words: what it does now ("completes grain 5"), then what it does for the game to
    come ("gives the forest flag a better chance to close: 80% instead of 40%"), at most three."""
    revealed = view.to_place
    if revealed is None or better == worse:
        return ()
    face, task, flag = revealed.tile.face, revealed.task, revealed.tile.flag
    fits = fits_for(view)
    now = gains(
        effects(view.area, face, task, flag, better, fits),
        effects(view.area, face, task, flag, worse, fits),
        versus="yours",
    )
    later = outlook_gains(view, better, worse)
    edges = [r for r in now if r.startswith(("joins", "puts"))]
    told = [r for r in now if r not in edges] + later + edges
    return tuple(told[:3])


#: Per game, the number of the turn ``player`` places in: the table's turn in the cooperative game
#: and the Duel (every tile revealed counts, set aside or not); each player's own in Head to Head,
#: where the two lay from their own stacks.
_TURN_OF: dict[str, Callable[[Any, int], int]] = {
    "coop": lambda state, player: state.turn,
    "duel": lambda state, player: state.turn,
    "head-to-head": lambda state, player: state.seats[player].turns[-1].number,
}


def _placement_turn(state: GameState, raw: Any) -> tuple[int, int, Revealed, View, Placement] | None:
    """For a recorded placement: its player, turn, revealed tile, that player's view now and the
    placement (None for a pick, or an entry the engine will refuse)."""
    try:
        player, decision = read_decision(state, raw)
    except ValueError:
        return None
    if not isinstance(decision, Placement) or player not in state.to_move():
        return None
    view = state.view(player)
    revealed = view.to_place
    if revealed is None:
        return None
    return player, _TURN_OF[state.mode](state, player), revealed, view, decision


def verdict_at(
    state: GameState, number: int, raw: Any, spec: str, seed: int = 0, width: int | None = None
) -> Verdict | None:
    """The coach's verdict on decision ``number`` (``raw``, as recorded) of a game standing at
    ``state`` just before it (None for a pick, or a placement that is not legal); the state is
    left as it was.  ``width``: the candidates a planner weighs, if not its own."""
    found = _placement_turn(state, raw)
    if found is None:
        return None
    player, turn, revealed, view, played = found
    face, task = revealed.tile.face, revealed.task
    if view.area.why_illegal(face, played, task) is not None:
        return None
    coach = coach_player(spec, _seed_of(seed, number))
    if width is not None and isinstance(coach, PlannerPlayer) and coach.width is None:
        coach.width = width
    weighed, index = weigh(coach, view, played)
    preferred = weighed[0][1]
    loss = weighed[0][0] - weighed[index][0]
    why = reasons_for(view, preferred, played) if loss > 0 else ()
    if loss > 0 and not why and isinstance(coach, PlannerPlayer):
        why = tuple(foresight_gains(coach, view, preferred, played, _seed_of(seed, -number)))
    if loss > 0 and not why:
        why = (f"leaves a better board for the tiles to come (about {loss:.1f} points)",)
    return Verdict(
        number,
        turn,
        player,
        face,
        task,
        played,
        preferred,
        weighed[index][0],
        weighed[0][0],
        len(weighed),
        why,
    )


def screen_losses(record: Any, players: Sequence[int], screen: PlannerPlayer) -> dict[int, float]:
    """A quick first look at a record: per placement of ``players`` (by decision number), how much
    the ``screen`` (a cheap coach: few candidates, few short futures) finds it loses."""
    state = start_of(record)
    losses: dict[int, float] = {}
    for number, raw in enumerate(record["decisions"], 1):
        found = _placement_turn(state, raw)
        if found is not None and found[0] in players:
            _, _, revealed, view, played = found
            if view.area.why_illegal(revealed.tile.face, played, revealed.task) is None:
                screen.rng.seed(_seed_of(0, number))
                weighed, index = weigh(screen, view, played)
                losses[number] = weighed[0][0] - weighed[index][0]
        apply_decision(state, number, raw)
    return losses


def analyse_record(
    record: Any,
    spec: str = DEFAULT_PLAYER,
    seed: int = 0,
    progress: Callable[[int, int], None] | None = None,
) -> list[Verdict]:
    """Weigh every placement of a record (raises :class:`RecordError` if it does not replay);
    the verdicts come biggest expected loss first, then in the record's order."""
    coach_player(spec)
    state = start_of(record)
    decisions = record["decisions"]
    if not isinstance(decisions, list):
        raise RecordError("decisions must be a list")
    verdicts = []
    for number, raw in enumerate(decisions, 1):
        verdict = verdict_at(state, number, raw, spec, seed)
        if verdict is not None:
            verdicts.append(verdict)
        apply_decision(state, number, raw)
        if progress is not None:
            progress(number, len(decisions))
    verdicts.sort(key=lambda v: (-v.loss, v.number))
    return verdicts


def _mode_of(record: Any) -> str:
    return str(record.get("mode", "?")) if isinstance(record, dict) else "?"


def report_lines(record: Any, verdicts: list[Verdict], spec: str, top: int | None = None) -> list[str]:
    """The text report: a header, the totals and one line per decision, biggest loss first."""
    players = record.get("players", [])
    mode = _mode_of(record)
    count = len(verdicts)
    total = sum(v.loss for v in verdicts)
    agreed = sum(1 for v in verdicts if v.loss == 0)
    lines = [
        f"{mode} game, seed {record.get('seed')}, {len(players)} player{'s' * (len(players) != 1)}: "
        f"{count} placement{'s' * (count != 1)} weighed by {spec}",
        f"expected loss {total:.1f} in all, {total / count if count else 0:.2f} a placement; "
        f"{agreed} of {count} as the coach would play",
    ]
    shown = verdicts if top is None else verdicts[:top]
    if not shown:
        return lines
    lines.append(
        f"{'turn':>4}  {'player':<10}  {'tile':<22}  {'played':<10}  {'preferred':<10}  {'loss':>6}  why"
    )
    for v in shown:
        name = str(players[v.player]) if v.player < len(players) else f"Player {v.player + 1}"
        tile = v.tile if v.task is None else f"{v.tile} {v.task}"
        played, preferred = str(v.played), str(v.preferred)
        why = "; ".join(v.reasons)
        lines.append(
            f"{v.turn:>4}  {name[:10]:<10}  {tile[:22]:<22}  {played:<10}  {preferred:<10}  {v.loss:>6.1f}"
            + (f"  {why}" if why else "")
        )
    if top is not None and top < count:
        lines.append(f"... {count - top} more (--top)")
    return lines


@dataclass(frozen=True)
class Hint:
    """The coach's advice for one decision: a placement (or a pick) and why, in words."""

    placement: Placement | None
    pick: int | None
    text: str
    reasons: tuple[str, ...]
    #: The placements weighed, best first, with their estimated values.
    ranked: tuple[tuple[float, Placement], ...] = ()

    def as_json(self) -> dict[str, Any]:
        if self.placement is None:
            return {"pick": self.pick, "text": self.text, "reasons": list(self.reasons)}
        at = self.placement.at
        return {
            "at": [at.q, at.r],
            "rot": self.placement.rot,
            "text": self.text,
            "reasons": list(self.reasons),
        }


def hint(view: View, spec: str = DEFAULT_PLAYER, seed: int = 0) -> Hint:
    """What the coach would do with this view, and why (raises ValueError if there is nothing to decide)."""
    player = coach_player(spec, seed)
    if drafting(view):
        if view.player not in view.to_move:
            raise ValueError("it is not this player's pick")
        pick = player.choose(view)
        assert isinstance(pick, Pick)
        tile = view.tiles[pick.tile_id]
        name = tile.face if tile.task is None else f"{tile.face} ({tile.task} {tile.value})"
        why = "a task worth its points to you" if tile.is_task else "landscape that fits your tasks"
        return Hint(None, pick.tile_id, f"Take tile {pick.tile_id}, {name}: {why}", (why,))
    revealed = view.to_place
    if revealed is None or not view.legal_decisions():
        raise ValueError("there is no tile to place now")
    ranked = player.analyse(view)
    best = ranked[0][1]
    fits = fits_for(view)
    tile = revealed.tile
    found = effects(view.area, tile.face, revealed.task, tile.flag, best, fits)
    reasons = summary(found)
    if len(ranked) > 1:
        better = gains(found, effects(view.area, tile.face, revealed.task, tile.flag, ranked[1][1], fits))
        reasons = [*reasons, *(r for r in better if r not in reasons)][:3]
    text = f"Place at {best.at.q},{best.at.r} turned {best.rot}" + (
        f": {', '.join(reasons)}" if reasons else ""
    )
    return Hint(best, None, text, tuple(reasons), tuple(ranked))


__all__ = [
    "DEFAULT_PLAYER",
    "AnalyseError",
    "Hint",
    "Verdict",
    "analyse_record",
    "coach_player",
    "hint",
    "reasons_for",
    "report_lines",
    "screen_losses",
    "verdict_at",
    "weigh",
]
