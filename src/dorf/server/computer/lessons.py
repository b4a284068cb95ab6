"""``POST /api/games/ID/lessons``: the coach's three biggest lessons of a finished game, computed
away from the event loop (``dorf analyse`` on the server).

:func:`lessons_for` is a plain function of plain data, as :func:`~dorf.server.computer.hints.hint_for`:
it weighs every placement of the record's ``players`` with the coach
(:func:`dorf.players.coach.analyse_record`) and keeps the :data:`LESSONS` that lost most, each
in words and with what the page needs to show it: the placement played, the one the coach
preferred, and how many tiles lay on the board before it (the board as it stood then is the
first ``tiles_before`` tiles of the area, which the game's description lists in placement order).

>>> record = {"format": "dorf-record/1", "mode": "coop", "tileset": "base", "seed": 4,
...           "players": ["Ann"], "decisions": []}
>>> lessons_for(record, [0], "planner:1")
{'lessons': []}
"""

from __future__ import annotations

from typing import Any

from dorf.formats.record import apply_decision, start_of
from dorf.players.coach import Verdict, analyse_record

#: How many lessons a game gets.
LESSONS = 3


def lesson_text(verdict: Verdict) -> str:
    """A lesson in words: ``Turn 12: Forest 4 at 1,-2 turned 3 rather than at 0,1 turned 0: ...``."""
    tile = verdict.tile if verdict.task is None else f"{verdict.tile} with task {verdict.task}"
    better, played = verdict.preferred, verdict.played
    text = (
        f"Turn {verdict.turn}: {tile} at {better.at.q},{better.at.r} turned {better.rot}"
        f" rather than at {played.at.q},{played.at.r} turned {played.rot}"
    )
    if verdict.reasons:
        text += ": " + "; ".join(verdict.reasons)
    return f"{text} (about {verdict.loss:.1f} points)"


def lessons_for(record: dict[str, Any], players: list[int], spec: str) -> dict[str, Any]:
    """The biggest lessons of ``players``' placements (engine numbers) in a finished game's record,
    biggest loss first; only placements that lost something."""
    verdicts = [v for v in analyse_record(record, spec) if v.player in players and v.loss > 0]
    chosen = verdicts[:LESSONS]
    wanted = {v.number: v for v in chosen}
    before: dict[int, int] = {}
    state = start_of(record)
    for number, raw in enumerate(record["decisions"], 1):
        if number in wanted:
            area = state.areas[state.area_index(wanted[number].player)]
            before[number] = len(area.placed)
        if len(before) == len(wanted):
            break
        apply_decision(state, number, raw)
    out = []
    for verdict in chosen:
        lesson = verdict.as_json()
        lesson["tiles_before"] = before[verdict.number]
        lesson["text"] = lesson_text(verdict)
        out.append(lesson)
    return {"lessons": out}


__all__ = ["LESSONS", "lesson_text", "lessons_for"]
