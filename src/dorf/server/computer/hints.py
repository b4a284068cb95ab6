"""``POST /api/games/ID/hint``: the coach's advice for a seat, computed away from the event loop.

:func:`hint_for` is a plain function of plain data (the game's record, the
seat, a seed), like :func:`dorf.server.computer.thinking.think`: it rebuilds the game,
takes the seat's view (what that seat may know, never a stack's order) and
asks the coach (:func:`dorf.players.coach.hint`) what to do and why.

A hint is refused (code ``no-hint``) in a game with an online seat, to every
seat alike: the host and the guest of a Duel both play against a person, and
advice from the computer would be an unfair help against them (in the
cooperative game it would play for the others too, unasked).  A practice game
has no online seats; against the computer, alone, or at one screen, hints are
given.

>>> record = {"format": "dorf-record/1", "mode": "coop", "tileset": "base", "seed": 4,
...           "players": ["Ann"], "decisions": []}
>>> sorted(hint_for(record, 0, 1, "planner:2")["hint"])
['at', 'reasons', 'rot', 'text']
"""

from __future__ import annotations

from typing import Any

from dorf.formats.record import replay_record
from dorf.players.coach import DEFAULT_PLAYER, hint
from dorf.server.protocol.messages import ProtocolError
from dorf.server.round.session import GameSession

#: The coach behind a hint: the same as ``dorf analyse`` (about a second a decision).
HINT_PLAYER = DEFAULT_PLAYER


def check_hint_allowed(session: GameSession, seats: set[int], seat: int) -> None:
    """Raise ProtocolError unless ``seat`` (held by the asker) may have a hint now: never in a
    game with an online seat, whichever seats the asker holds (the same for both sides)."""
    refused = session.hints_refused()
    if refused is not None:
        raise ProtocolError("no-hint", refused, 403)
    if session.is_over or seat not in session.waiting():
        raise ProtocolError("no-decision", f"seat {seat} has nothing to decide now", 409)


def hint_for(record: dict[str, Any], seat: int, seed: int, spec: str | None = None) -> dict[str, Any]:
    """The coach's hint for ``seat`` in the game so far: ``{"hint": {...}}`` (the coach is
    :data:`HINT_PLAYER` unless ``spec`` names another)."""
    state = replay_record(record)
    view = state.view(seat)
    return {"hint": hint(view, spec or HINT_PLAYER, seed).as_json()}


__all__ = ["HINT_PLAYER", "check_hint_allowed", "hint_for"]
