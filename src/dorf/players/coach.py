"""``dorf analyse``: a coach that weighs every placement of a game record against the search player.

The record is replayed decision by decision.  Before each placement the
coach takes the view of the player who made it (what that seat could know
then: never the order of a stack) and runs the search player's analysis
(:mod:`dorf.players.search`) on it, with the placement actually played always among
the candidates.  Every candidate meets the same sampled futures, so the
difference between the preferred placement's estimated value and the played
one's is measured, not luck: that difference is the *expected loss* of the
move, in the search player's evaluation (the score as it stands plus what
open tasks and flags promise, so roughly points).  A move the search would
have played itself loses nothing.

Each decision's sampled futures are seeded from ``--seed`` and the
decision's number, so an analysis is reproducible.  The Head to Head draft's
picks are replayed but not weighed.

>>> from dorf.games.coop import CoopGame
>>> from dorf.formats.record import record_of
>>> state = CoopGame(seed=3).new_state()
>>> for _ in range(4):
...     state.play(state.legal_placements()[-1])
>>> verdicts = analyse_record(record_of(state), "search:2")
>>> [v.number for v in verdicts if v.loss == 0] == sorted(v.number for v in verdicts if v.loss == 0)
True
>>> all(a.loss >= b.loss for a, b in zip(verdicts, verdicts[1:]))
True
"""

from __future__ import annotations

import random
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from dorf.formats.notation import task_document
from dorf.formats.record import GameState, RecordError, apply_decision, decision_of, start_of
from dorf.games.coop import CoopState
from dorf.games.duel import DuelState
from dorf.games.headtohead import DRAFT, HeadToHeadView
from dorf.games.seat import Revealed
from dorf.players.registry import View, make_player
from dorf.players.search import SearchPlayer
from dorf.rules.area import Placement
from dorf.rules.hexgrid import cell_of
from dorf.rules.tasks import TaskSpec
from dorf.rules.tiles import rotate

#: The default budget: 8 sampled futures a decision (a 50-turn game in some seconds).
DEFAULT_PLAYER = "search:8"


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
        }


class AnalyseError(ValueError):
    """A user error (unreadable record, a player that is not the search player); one line."""


def weigh(player: SearchPlayer, view: View, played: Placement) -> tuple[list[tuple[float, Placement]], int]:
    """:meth:`SearchPlayer.analyse` with ``played`` always among the candidates.

    Returns every candidate with its estimated value, best first (ties in the
    greedy ranking's order), and the index of the played placement in that
    list.  When ``played`` is among the search's own candidates the values
    are exactly those of ``player.analyse(view)`` with the same seed.
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
    revealed = view.revealed[view.player] if isinstance(view, HeadToHeadView) else view.revealed
    if revealed is None:
        raise ValueError("there is no tile to place")
    return revealed.tile.face


def _seed_of(seed: int, number: int) -> int:
    return random.Random(f"dorf-analyse/{seed}/{number}").getrandbits(32)


def search_player(spec: str, seed: int = 0) -> SearchPlayer:
    """The search player of a spec (``search``, ``search:8``, ``search:2s``), or AnalyseError."""
    try:
        player = make_player(spec, seed)
    except ValueError as exc:
        raise AnalyseError(str(exc)) from None
    if not isinstance(player, SearchPlayer):
        raise AnalyseError(f"the coach is the search player (search, search:8, search:2s), not {spec!r}")
    return player


def _placement_turn(state: GameState, raw: Any) -> tuple[int, int, Revealed, View] | None:
    """For a recorded placement: its player, turn, revealed tile and that player's view now."""
    if isinstance(state, CoopState):
        revealed = state.revealed
        if revealed is None:
            return None
        return state.player, state.turn, revealed, state.view()
    player = raw.get("player") if isinstance(raw, dict) else None
    if player not in (0, 1) or isinstance(player, bool) or player not in state.to_move():
        return None
    if isinstance(state, DuelState):
        revealed = state.revealed
        if revealed is None:
            return None
        return player, state.turn, revealed, state.view(player)
    if state.phase == DRAFT or "pick" in raw or state.seats is None:
        return None
    seat = state.seats[player]
    seat_revealed = seat.revealed
    if seat_revealed is None:
        return None
    return player, seat.turns[-1].number, seat_revealed, state.view(player)


def analyse_record(
    record: Any,
    spec: str = DEFAULT_PLAYER,
    seed: int = 0,
    progress: Callable[[int, int], None] | None = None,
) -> list[Verdict]:
    """Weigh every placement of a record (raises :class:`RecordError` if it does not replay);
    the verdicts come biggest expected loss first, then in the record's order."""
    search_player(spec)
    state = start_of(record)
    decisions = record["decisions"]
    if not isinstance(decisions, list):
        raise RecordError("decisions must be a list")
    verdicts = []
    for number, raw in enumerate(decisions, 1):
        found = _placement_turn(state, raw)
        if found is not None:
            player, turn, revealed, view = found
            try:
                _, played = decision_of(raw)
            except ValueError:
                played = None
            face, task = revealed.tile.face, revealed.task
            if played is not None and view.area.why_illegal(face, played, task) is None:
                weighed, index = weigh(search_player(spec, _seed_of(seed, number)), view, played)
                verdicts.append(
                    Verdict(
                        number,
                        turn,
                        player,
                        face,
                        task,
                        played,
                        weighed[0][1],
                        weighed[index][0],
                        weighed[0][0],
                        len(weighed),
                    )
                )
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
        f"{agreed} of {count} as the search would play",
    ]
    shown = verdicts if top is None else verdicts[:top]
    if not shown:
        return lines
    lines.append(f"{'turn':>4}  {'player':<10}  {'tile':<22}  {'played':<10}  {'preferred':<10}  {'loss':>6}")
    for v in shown:
        name = str(players[v.player]) if v.player < len(players) else f"Player {v.player + 1}"
        tile = v.tile if v.task is None else f"{v.tile} {v.task}"
        played, preferred = str(v.played), str(v.preferred)
        lines.append(
            f"{v.turn:>4}  {name[:10]:<10}  {tile[:22]:<22}  {played:<10}  {preferred:<10}  {v.loss:>6.1f}"
        )
    if top is not None and top < count:
        lines.append(f"... {count - top} more (--top)")
    return lines


__all__ = [
    "DEFAULT_PLAYER",
    "AnalyseError",
    "Verdict",
    "analyse_record",
    "report_lines",
    "search_player",
    "weigh",
]
