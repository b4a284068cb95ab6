"""The placement preview: what placing a seat's tile there would do, exactly, without doing it.

The placement is made on the seat's area and taken back before anything else
runs (no copy: a preview costs what a placement does): the tasks it completes or
fails, the open tasks it changes, the territories it joins, and the score before
and after (before: the pad the game's description already holds).
"""

from __future__ import annotations

from dorf.rules.area import Placement
from dorf.rules.hexgrid import cell_of, hex_of
from dorf.rules.scoring import SCORERS
from dorf.rules.tasks import COMPLETED, OPEN
from dorf.rules.terrain import TERRAIN_NAMES
from dorf.rules.tiles import areas
from dorf.server.protocol.messages import ProtocolError
from dorf.server.protocol.views import Json, hex_json, pad_rows, spec_json, task_figures
from dorf.server.round.session import GameSession


def refusal(session: GameSession, seat: int, placement: Placement) -> ProtocolError | None:
    """Why ``seat`` may not place its tile at ``placement`` now (the engine's reason), or None."""
    if not 0 <= seat < len(session.seats):
        return ProtocolError("bad-message", f"there is no seat {seat} in this game")
    reason = session.state.why_illegal(placement, session.player_of[seat])
    if reason is None:
        return None
    if session.is_over:
        return ProtocolError("game-over", "the game is over", 409)
    if seat not in session.waiting():
        return ProtocolError("out-of-turn", session.names(reason), 409)
    return ProtocolError("illegal", session.names(reason))


def preview(session: GameSession, seat: int, placement: Placement) -> Json:
    """What placing ``seat``'s tile at ``placement`` would do (ProtocolError if it may not)."""
    error = refusal(session, seat, placement)
    if error is not None:
        raise error
    revealed = session.state.revealed_for(session.player_of[seat])
    assert revealed is not None
    area = session.area(seat)
    pads = session.description.scores()  # in seat order; the cooperative game's one pad
    before_pad = pads[0] if len(pads) == 1 else pads[seat]
    before = {id(t): task_figures(area, t) for t in area.tasks if t.status is OPEN}
    tile = revealed.tile
    area.push(tile.face, cell_of(*placement.at), placement.rot, flag=tile.flag, task=revealed.task)
    try:
        completed: list[Json] = []
        failed: list[Json] = []
        for task, status in area.last_changes():
            entry = {**spec_json(task.spec), "at": hex_json(hex_of(task.cell))}
            (completed if status is COMPLETED else failed).append(entry)
        progress = []
        for task in area.tasks:
            if task.status is not OPEN:
                continue
            now = task_figures(area, task)
            old = before.get(id(task))
            if old != now:
                progress.append(
                    {
                        **spec_json(task.spec),
                        "at": hex_json(hex_of(task.cell)),
                        "before": None if old is None else [s for s, _ in old],
                        "sizes": [s for s, _ in now],
                        "open_edges": [e for _, e in now],
                        "new": old is None,
                    }
                )
        groups = []
        letters = [letter for letter, _dirs in areas(area.placed[-1].edges) if letter not in "LP"]
        for group in area.groups_through(placement.at, letters):
            if group is None:
                continue
            groups.append(
                {
                    "letter": group.letter,
                    "name": TERRAIN_NAMES[group.letter],
                    "size": group.size,
                    "open_edges": group.open_edges,
                    "closed": group.closed,
                    "cells": [hex_json(c) for c in group.cells],
                }
            )
        after_pad = SCORERS[session.mode](area)
    finally:
        area.pop()
    before_rows = pad_rows(before_pad)
    after_rows = pad_rows(after_pad)
    score_changes = [
        [old[0], old[1], new[1]]
        for old, new in zip(before_rows, after_rows, strict=True)
        if old[1] != new[1] and old[2] == ""
    ]
    return {
        "seat": seat,
        "at": hex_json(placement.at),
        "rot": placement.rot,
        "completes": completed,
        "fails": failed,
        "tasks": progress,
        "groups": groups,
        "score": [before_pad.total, after_pad.total],
        "score_changes": score_changes,
    }
