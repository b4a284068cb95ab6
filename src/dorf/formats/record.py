"""Game records (``dorf-record/1``): seed, players and every decision, replayed exactly.

A record holds what determines a game (format, mode, tile set, seed, players,
the decisions in order) and, for people reading it, each placement's tile and
the final score.  Replaying checks that each recorded tile is the one the seed
reveals, so a record from another version or tile set is caught.

Modes: ``coop`` (placements), ``duel`` (both players' placements of each
revealed tile, in the order they were made, each with its player),
``head-to-head`` (the draft's picks, then both players' placements in the
order they were made, each with its player).

>>> from dorf.games.coop import CoopGame
>>> state = CoopGame(seed=3).new_state()
>>> state.play(state.legal_placements()[0])
>>> replay_record(record_of(state)).decisions == state.decisions
True
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from dorf.formats.notation import is_int, parse_at_rot, task_document
from dorf.games.coop import CoopState
from dorf.games.duel import DuelState
from dorf.games.headtohead import HeadToHeadState
from dorf.games.modes import MODES
from dorf.games.seat import Turn
from dorf.games.state import Decision, Pick, Revealed
from dorf.rules.area import Placement
from dorf.rules.tiles import TileSetError, load_tileset

FORMAT = "dorf-record/1"
RECORD_MODES = tuple(MODES)
#: A game any record mode can hold.
GameState = CoopState | DuelState | HeadToHeadState


class RecordError(ValueError):
    """A record that cannot be read or does not replay; the message is one line."""


def _placement_entry(turn: Turn) -> dict[str, Any]:
    assert turn.placement is not None
    return _entry(turn.number, turn.player, turn.revealed, turn.placement)


def _entry(number: int, player: int, revealed: Revealed, placement: Placement) -> dict[str, Any]:
    entry: dict[str, Any] = {
        "turn": number,
        "player": player,
        "tile": revealed.tile.face,
        "at": [placement.at.q, placement.at.r],
        "rot": placement.rot,
    }
    if revealed.task is not None:
        entry["task"] = task_document(revealed.task)
    return entry


def record_of(state: GameState, names: list[str] | None = None) -> dict[str, Any]:
    """The record of a game so far (finished or not); a game in which a decision was taken back
    (``undo()``) says ``"practice": true``, so no campaign takes it."""
    if isinstance(state, HeadToHeadState):
        record = _head_to_head_record(state, names)
    elif isinstance(state, DuelState):
        record = _duel_record(state, names)
    else:
        record = _coop_record(state, names)
    if state.taken_back:
        record["practice"] = True
    return record


def _coop_record(state: CoopState, names: list[str] | None) -> dict[str, Any]:
    game = state.game
    decisions = [_placement_entry(turn) for turn in state.turns if turn.placement is not None]
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


def _head_to_head_record(state: HeadToHeadState, names: list[str] | None) -> dict[str, Any]:
    tiles = state.game.tileset.tiles
    decisions: list[dict[str, Any]] = []
    placed = [0, 0]
    for player, decision in state.history:
        if isinstance(decision, Pick):
            decisions.append(
                {"player": player, "pick": decision.tile_id, "tile": tiles[decision.tile_id].face}
            )
            continue
        assert state.seats is not None
        turns = [t for t in state.seats[player].turns if t.placement is not None]
        decisions.append(_placement_entry(turns[placed[player]]))
        placed[player] += 1
    seats = state.seats or ()
    aside = [[p, t.number] for p, seat in enumerate(seats) for t in seat.turns if t.set_aside]
    return _two_player_record(state, names, decisions, aside)


def _duel_record(state: DuelState, names: list[str] | None) -> dict[str, Any]:
    decisions = []
    for index, player in state.history:
        turn = state.turns[index]
        placement = turn.placements[player]
        assert placement is not None
        decisions.append(_entry(turn.number, player, turn.revealed, placement))
    aside = [[p, t.number] for t in state.turns for p in (0, 1) if t.set_aside[p]]
    return _two_player_record(state, names, decisions, aside)


def _two_player_record(
    state: DuelState | HeadToHeadState,
    names: list[str] | None,
    decisions: list[dict[str, Any]],
    set_aside: list[list[int]],
) -> dict[str, Any]:
    record: dict[str, Any] = {
        "format": FORMAT,
        "mode": "duel" if isinstance(state, DuelState) else "head-to-head",
        "tileset": state.game.tileset.name,
        "seed": state.game.seed,
        "players": names or ["Player 1", "Player 2"],
        "decisions": decisions,
        "set_aside": set_aside,
        "finished": state.is_over,
    }
    if state.is_over:
        record["score"] = [pad.as_json() for pad in state.scores()]
        record["winner"] = state.winner()
    return record


def start_of(record: Any) -> GameState:
    """A fresh state for a record's game, before any decision."""
    if not isinstance(record, dict):
        raise RecordError("a record must be a JSON object")
    if "format" not in record:
        raise RecordError("missing field 'format'")
    if record["format"] != FORMAT:
        raise RecordError(f"format {record['format']!r} is not {FORMAT!r}")
    for key in ("mode", "tileset", "seed", "players", "decisions"):
        if key not in record:
            raise RecordError(f"missing field {key!r}")
    mode = MODES.get(record["mode"]) if isinstance(record["mode"], str) else None
    if mode is None:
        raise RecordError(f"mode {record['mode']!r} is not supported by this version of dorf yet")
    players = record["players"]
    low, high = mode.players
    if not isinstance(players, list) or not low <= len(players) <= high:
        raise RecordError(f"players must be a list of {mode.seat_range()} names")
    if not is_int(record["seed"]):
        raise RecordError("seed must be an integer")
    if not isinstance(record["tileset"], str):
        raise RecordError("tileset must be a name")
    try:
        tileset = load_tileset(record["tileset"])
    except TileSetError as exc:
        raise RecordError(str(exc)) from None
    try:
        state = mode.new(record["seed"], len(players), tileset)
    except ValueError as exc:
        raise RecordError(str(exc)) from None
    assert isinstance(state, CoopState | DuelState | HeadToHeadState)
    return state


def decision_of(raw: Any) -> tuple[str | None, Placement]:
    """One recorded placement: the tile it names (if any) and its placement."""
    if not isinstance(raw, dict):
        raise ValueError("a decision must be a JSON object")
    placement = parse_at_rot(raw.get("at"), raw.get("rot"))
    tile = raw.get("tile")
    if tile is not None and not isinstance(tile, str):
        raise ValueError("tile must be six edge letters")
    return tile, placement


def read_decision(state: GameState, raw: Any) -> tuple[int, Decision]:
    """A recorded decision as the engine's: its player and its placement or pick, read once.

    ``player`` may be left out where only one player may decide (a cooperative game's entry
    as the server stores it); a named tile must be the one the seed reveals (or, for a pick,
    the tile of that number).  ValueError says what does not fit."""
    if not isinstance(raw, dict):
        raise ValueError("a decision must be a JSON object")
    player = raw.get("player")
    if player is None:
        waiting = state.to_move()
        if len(waiting) != 1:
            raise ValueError(_players_are(state))
        player = waiting[0]
    elif not is_int(player) or not 0 <= player < state.players:
        raise ValueError(_players_are(state))
    tile = raw.get("tile")
    if tile is not None and not isinstance(tile, str):
        raise ValueError("tile must be six edge letters")
    if "pick" in raw:
        tile_id = raw["pick"]
        if not is_int(tile_id):
            raise ValueError("pick must be a tile number")
        tiles = state.game.tileset.tiles
        if tile is not None and 0 <= tile_id < len(tiles) and tile != tiles[tile_id].face:
            raise ValueError(f"the record has tile {tile} but tile {tile_id} is {tiles[tile_id].face}")
        return player, Pick(tile_id)
    placement = parse_at_rot(raw.get("at"), raw.get("rot"))
    revealed = state.revealed_for(player)
    if revealed is not None and tile is not None and tile != revealed.tile.face:
        raise ValueError(f"the record has tile {tile} but the seed reveals {revealed.tile.face}")
    return player, placement


def _players_are(state: GameState) -> str:
    count = state.players
    return "player must be 0 or 1" if count == 2 else f"player must be 0 to {count - 1}"


def decision_entry(player: int, decision: Decision) -> dict[str, Any]:
    """How a decision is kept (in the server's database, for instance): ``{"player", "at",
    "rot"}`` or ``{"player", "pick"}``; :func:`read_decision` reads it back."""
    if isinstance(decision, Pick):
        return {"player": player, "pick": decision.tile_id}
    return {"player": player, "at": [decision.at.q, decision.at.r], "rot": decision.rot}


def apply_decision(state: GameState, number: int, raw: Any) -> tuple[int, Decision]:
    """Play recorded decision ``number`` (1-based) on ``state``, checked once by the engine;
    returns its player and decision.  RecordError if it does not fit."""
    try:
        player, decision = read_decision(state, raw)
        state.apply(decision, player)
    except ValueError as exc:  # IllegalDecision, IllegalPlacement, a field that is not right
        raise RecordError(f"decision {number}: {exc}") from None
    return player, decision


def replay_record(record: Any) -> GameState:
    """Replay a whole record; raises :class:`RecordError` at the first problem.  A practice
    game's record replays to a state that says so (its record is a practice game's again)."""
    state = start_of(record)
    decisions = record["decisions"]
    if not isinstance(decisions, list):
        raise RecordError("decisions must be a list")
    for number, raw in enumerate(decisions, 1):
        apply_decision(state, number, raw)
    if record.get("practice") is True:
        state.taken_back = True
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


def save_record(
    state: GameState,
    path: str | Path,
    names: list[str] | None = None,
    *,
    practice: bool = False,
    withheld: int = 0,
) -> None:
    """Write the record; a practice game's (undo allowed) says ``"practice": true``.
    ``withheld``: leave out that many of the last decisions (placements another player may
    not see yet: the file is written as if they were not made)."""
    record = record_of(state, names)
    if withheld:
        record["decisions"] = record["decisions"][:-withheld]
        record["finished"] = False
        record.pop("score", None)
    if practice:
        record["practice"] = True
    Path(path).write_text(json.dumps(record, indent=1) + "\n", encoding="utf-8")
