"""A game record as the replay viewer steps through it.

:func:`replay_steps` replays a ``dorf-record/1`` document and returns, per
decision, the tile it placed (or the tile it picked in the Head to Head
draft), every task's status in each area after it, and the scores; the
browser rebuilds the board of any step from the tiles of the steps before.

>>> from dorf.games.coop import CoopGame
>>> from dorf.formats.record import record_of
>>> state = CoopGame(seed=3).new_state()
>>> state.play(state.legal_placements()[0])
>>> steps = replay_steps(record_of(state))["steps"]
>>> steps[0]["tile"]["at"], steps[0]["tasks"]
([0, 0], ['o'])
"""

from __future__ import annotations

from typing import Any

from dorf.formats.record import RecordError, apply_decision, start_of
from dorf.games.state import Pick
from dorf.server.protocol.views import Json, describe_tile, face_json, pad_json, spec_json, tile_json

_STATUS = {"open": "o", "completed": "c", "failed": "f"}
#: How a server's record says a game ended other than by its last decision.
ENDED_OTHERWISE = ("time", "resign", "aborted")


def replay_steps(record: Any) -> Json:
    """Every step of a record; raises :class:`~dorf.formats.record.RecordError` where it does not replay."""
    state = start_of(record)
    decisions = record["decisions"]
    if not isinstance(decisions, list):
        raise RecordError("decisions must be a list")
    mode = record["mode"]
    names = [str(p) for p in record["players"]]
    steps: list[Json] = []
    for number, raw in enumerate(decisions, 1):
        seat, decision = apply_decision(state, number, raw)
        areas = state.areas
        step: Json = {"seat": seat, "name": names[seat] if 0 <= seat < len(names) else "?"}
        if isinstance(decision, Pick):
            tile = state.game.tileset.tiles[decision.tile_id]
            step["pick"] = face_json(tile)
            step["text"] = f"{step['name']} took {describe_tile(tile)}"
        else:
            index = state.area_index(seat)
            area = areas[index]
            placed = area.placed[-1]
            task_index = len(area.tasks) - 1 if placed.task is not None else None
            step["area"] = index
            step["tile"] = tile_json(placed, len(area.placed), task_index)
            if placed.task is not None:
                step["spec"] = spec_json(placed.task.spec)
            step["text"] = (
                f"{step['name']} placed {placed.face}"
                + (f" ({placed.task.spec} task)" if placed.task is not None else "")
                + f" at {placed.at.q},{placed.at.r}"
            )
        step["tasks"] = ["".join(_STATUS[t.status.value] for t in area.tasks) for area in areas]
        step["scores"] = [pad.total for pad in state.scores()]
        steps.append(step)
    out: Json = {
        "mode": mode,
        "players": names,
        "seed": record["seed"],
        # The same as text: JavaScript keeps 53 bits of a number, a drawn seed has 63.
        "seed_text": str(record["seed"]),
        "finished": state.is_over,
        "steps": steps,
        "areas": len(state.areas),
        "pads": [pad_json(pad) for pad in state.scores()],
    }
    if len(state.areas) > 1 and state.is_over:  # an area each: a winner, or a shared victory (None)
        first, second = state.returns()
        out["winner"] = None if first == second else 0 if first > second else 1
    # How it ended: by its last decision ("normal"), or as the server's record says (time,
    # resign, aborted; its winner as the record's player number); None while unfinished.
    out["end"] = "normal" if state.is_over else None
    end = record.get("end")
    if end in ENDED_OTHERWISE:
        winner = record.get("winner")
        if winner is not None and (type(winner) is not int or not 0 <= winner < len(names)):
            raise RecordError(f"winner must be a player number from 0 to {len(names) - 1}, or null")
        out["end"], out["winner"], out["finished"] = end, winner, True
    elif end is not None and end != "normal":
        raise RecordError(f"end is one of normal, {', '.join(ENDED_OTHERWISE)}")
    return out
