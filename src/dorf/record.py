"""Game records (``dorf-record/1``): seed, players and every decision, replayed exactly.

A record holds what determines a game (format, mode, tile set, seed, players,
the placements in order) and, for people reading it, each placement's tile and
the final score.  Replaying checks that each recorded tile is the one the seed
reveals, so a record from another version or tile set is caught.

>>> from dorf.coop import CoopGame
>>> state = CoopGame(seed=3).new_state()
>>> state.play(state.legal_placements()[0])
>>> replay_record(record_of(state)).decisions == state.decisions
True
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from dorf.area import IllegalPlacement, Placement
from dorf.coop import MAX_PLAYERS, CoopGame, CoopState
from dorf.notation import is_int, parse_at_rot
from dorf.tiles import TileSetError, load_tileset

FORMAT = "dorf-record/1"


class RecordError(ValueError):
    """A record that cannot be read or does not replay; the message is one line."""


def record_of(state: CoopState, names: list[str] | None = None) -> dict[str, Any]:
    """The record of a game so far (finished or not)."""
    game = state.game
    decisions = []
    for turn in state.turns:
        if turn.placement is None:
            continue
        entry: dict[str, Any] = {
            "turn": turn.number,
            "player": turn.player,
            "tile": turn.revealed.tile.face,
            "at": [turn.placement.at.q, turn.placement.at.r],
            "rot": turn.placement.rot,
        }
        if turn.revealed.task is not None:
            entry["task"] = {"type": turn.revealed.task.type, "value": turn.revealed.task.value}
        decisions.append(entry)
    record: dict[str, Any] = {
        "format": FORMAT,
        "mode": "coop",
        "tileset": game.tileset.name,
        "seed": game.seed,
        "players": names or [f"Player {i + 1}" for i in range(game.players)],
        "decisions": decisions,
        "set_aside": [t.number for t in state.turns if t.set_aside],
        "finished": state.is_over,
    }
    if state.is_over:
        record["score"] = state.score().as_json()
    return record


def start_of(record: Any) -> CoopState:
    """A fresh state for a record's game, before any decision."""
    if not isinstance(record, dict):
        raise RecordError("a record must be a JSON object")
    for key in ("format", "mode", "tileset", "seed", "players", "decisions"):
        if key not in record:
            raise RecordError(f"missing field {key!r}")
    if record["format"] != FORMAT:
        raise RecordError(f"format {record['format']!r} is not {FORMAT!r}")
    if record["mode"] != "coop":
        raise RecordError(f"mode {record['mode']!r} is not supported by this version of dorf yet")
    players = record["players"]
    if not isinstance(players, list) or not 1 <= len(players) <= MAX_PLAYERS:
        raise RecordError(f"players must be a list of 1 to {MAX_PLAYERS} names")
    if not is_int(record["seed"]):
        raise RecordError("seed must be an integer")
    if not isinstance(record["tileset"], str):
        raise RecordError("tileset must be a name")
    try:
        tileset = load_tileset(record["tileset"])
    except TileSetError as exc:
        raise RecordError(str(exc)) from None
    return CoopGame(seed=record["seed"], players=len(players), tileset=tileset).new_state()


def decision_of(raw: Any) -> tuple[str | None, Placement]:
    """One recorded decision: the tile it names (if any) and its placement."""
    if not isinstance(raw, dict):
        raise ValueError("a decision must be a JSON object")
    placement = parse_at_rot(raw.get("at"), raw.get("rot"))
    tile = raw.get("tile")
    if tile is not None and not isinstance(tile, str):
        raise ValueError("tile must be six edge letters")
    return tile, placement


def apply_decision(state: CoopState, number: int, raw: Any) -> None:
    """Play recorded decision ``number`` (1-based) on ``state``; RecordError if it does not fit."""
    try:
        tile, placement = decision_of(raw)
        revealed = state.revealed
        if revealed is None:
            raise ValueError("the game is already over")
        if tile is not None and tile != revealed.tile.face:
            raise ValueError(f"the record has tile {tile} but the seed reveals {revealed.tile.face}")
        state.play(placement)
    except (IllegalPlacement, ValueError) as exc:
        raise RecordError(f"decision {number}: {exc}") from None


def replay_record(record: Any) -> CoopState:
    """Replay a whole record; raises :class:`RecordError` at the first problem."""
    state = start_of(record)
    decisions = record["decisions"]
    if not isinstance(decisions, list):
        raise RecordError("decisions must be a list")
    for number, raw in enumerate(decisions, 1):
        apply_decision(state, number, raw)
    return state


def load_record(path: str | Path) -> dict[str, Any]:
    """Read a record file's JSON (not yet replayed)."""
    try:
        data = json.loads(Path(path).read_text(encoding="utf-8"))
    except OSError as exc:
        raise RecordError(f"cannot read {path}: {exc.strerror}") from None
    except (ValueError, RecursionError) as exc:
        raise RecordError(f"{path} is not valid JSON: {exc}") from None
    if not isinstance(data, dict):
        raise RecordError("a record must be a JSON object")
    return data


def save_record(state: CoopState, path: str | Path, names: list[str] | None = None) -> None:
    Path(path).write_text(json.dumps(record_of(state, names), indent=1) + "\n", encoding="utf-8")
