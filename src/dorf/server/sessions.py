"""A game on the server: its state, its seats, and what each seat may see and do.

A :class:`GameSession` wraps one engine state of any mode behind a small
interface: which seats decide now, their legal decisions, applying a checked
:class:`~dorf.server.protocol.Move`, undo, a placement preview, the record, the
log and the JSON the browser draws.  It never touches storage or sockets: the
app writes each decision to the database and then tells the clients.

The public JSON holds what every player at the table may know (both areas,
the revealed tiles, counts, the draft's open pool); never the seed, the order
of a stack, the removed tiles or a marker pile.  The seed and the record only
come out once the game is over.

>>> session = GameSession.new("g", "coop", 3, [SeatSpec("here", "Ann")])
>>> session.waiting()
(0,)
>>> move = Move(0, placement=session.state.legal_placements()[0])
>>> session.apply(move)
{'at': [0, 0], 'rot': 0}
>>> session.version
1
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from dorf.formats.record import FORMAT, GameState, apply_decision, record_of, start_of
from dorf.games.coop import CoopGame, CoopState
from dorf.games.duel import DuelGame, DuelState
from dorf.games.headtohead import DRAFT, HeadToHeadGame, HeadToHeadState, Pick
from dorf.games.seat import Revealed
from dorf.players import make_player
from dorf.rules.area import Placement, PlayArea
from dorf.rules.hexgrid import Hex, cell_of, hex_of
from dorf.rules.scoring import SCORERS
from dorf.rules.tasks import COMPLETED, OPEN, Task
from dorf.rules.terrain import TERRAIN_NAMES
from dorf.rules.tiles import areas
from dorf.server.protocol import Move, ProtocolError
from dorf.server.views import (
    Json,
    Pad,
    area_json,
    describe_tile,
    face_json,
    hex_json,
    pad_json,
    pad_rows,
    revealed_json,
    spec_json,
    task_figures,
)

MODES = ("coop", "duel", "head-to-head")
MODE_NAMES = {"coop": "The Board Game", "duel": "The Duel", "head-to-head": "Head to Head"}
TILESETS = {"coop": "base", "duel": "duel", "head-to-head": "head-to-head"}
HERE, ONLINE, COMPUTER = "here", "online", "computer"
SEAT_KINDS = (HERE, ONLINE, COMPUTER)
#: Budgets a browser may give a computer player: at most this many seconds or futures.
MAX_SECONDS = 10.0
MAX_ITERATIONS = 400
MAX_NAME = 40


@dataclass
class SeatSpec:
    """A seat as the game is created: who plays it."""

    kind: str
    name: str
    player: str | None = None
    #: An online seat someone has taken with its invitation.
    claimed: bool = False


def check_player_spec(spec: Any) -> str:
    """A computer player's name (``random``, ``greedy``, ``search``, ``search:2s``) within budget."""
    if not isinstance(spec, str) or len(spec) > 20:
        raise ProtocolError("bad-message", "a computer player is named like greedy or search:2s")
    try:
        player = make_player(spec)
    except ValueError as exc:
        raise ProtocolError("bad-message", str(exc)) from None
    seconds = getattr(player, "seconds", None)
    iterations = getattr(player, "iterations", None)
    if (seconds is not None and seconds > MAX_SECONDS) or (
        iterations is not None and seconds is None and iterations > MAX_ITERATIONS
    ):
        raise ProtocolError(
            "bad-message", f"a computer player thinks at most {MAX_SECONDS:g}s or {MAX_ITERATIONS} futures"
        )
    return spec


def check_name(raw: Any, default: str) -> str:
    if raw is None or raw == "":
        return default
    if not isinstance(raw, str):
        raise ProtocolError("bad-message", "a name must be text")
    name = " ".join(raw.split())
    if not name:
        return default
    if len(name) > MAX_NAME or any(not ch.isprintable() for ch in name):
        raise ProtocolError("bad-message", f"a name is 1 to {MAX_NAME} printable characters")
    return name


def new_state(mode: str, seed: int, players: int) -> GameState:
    if mode == "coop":
        return CoopGame(seed=seed, players=players).new_state()
    if mode == "duel":
        return DuelGame(seed=seed).new_state()
    return HeadToHeadGame(seed=seed).new_state()


class GameSession:
    """One game on the server, of any mode."""

    def __init__(self, game_id: str, mode: str, seed: int, seats: list[SeatSpec], state: GameState) -> None:
        self.id = game_id
        self.mode = mode
        self.seed = seed
        self.seats = seats
        self.state = state
        self.decisions: list[Json] = []
        #: The seat that made each decision, in order.
        self.deciders: list[int] = []
        #: Counts every change (a move, an undo, a seat taken): clients see it.
        self.version = 0
        #: Counts undos: a computer's answer computed before an undo is dropped.
        self.epoch = 0
        self.undo_allowed = mode == "coop" and all(s.kind != ONLINE for s in seats)
        self._cache: dict[str, Any] = {}
        self._cache_version = -1

    @classmethod
    def new(cls, game_id: str, mode: str, seed: int, seats: list[SeatSpec]) -> GameSession:
        if mode not in MODES:
            raise ProtocolError("bad-message", f"mode {mode!r} is not one of {', '.join(MODES)}")
        return cls(game_id, mode, seed, seats, new_state(mode, seed, len(seats)))

    @classmethod
    def replay(
        cls, game_id: str, mode: str, seed: int, seats: list[SeatSpec], decisions: list[Json]
    ) -> GameSession:
        """A stored game rebuilt from its decisions (raises RecordError if they no longer fit)."""
        record = {
            "format": FORMAT,
            "mode": mode,
            "tileset": TILESETS[mode],
            "seed": seed,
            "players": [s.name for s in seats],
            "decisions": decisions,
        }
        state = start_of(record)
        session = cls(game_id, mode, seed, seats, state)
        for number, entry in enumerate(decisions, 1):
            seat = session.waiting()[0] if mode == "coop" else int(entry["player"])
            apply_decision(state, number, entry)
            session.decisions.append(entry)
            session.deciders.append(seat)
        session.version = len(decisions)
        return session

    # --- turns ---------------------------------------------------------------------

    @property
    def is_over(self) -> bool:
        return self.state.is_over

    @property
    def phase(self) -> str:
        if isinstance(self.state, HeadToHeadState):
            return self.state.phase
        return "over" if self.state.is_over else "playing"

    def waiting(self) -> tuple[int, ...]:
        """The seats that may decide now."""
        state = self.state
        if isinstance(state, CoopState):
            return () if state.is_over else (state.player,)
        return state.to_move()

    def name(self, seat: int) -> str:
        return self.seats[seat].name

    def area(self, seat: int) -> PlayArea:
        state = self.state
        if isinstance(state, CoopState):
            return state.area
        if isinstance(state, DuelState):
            return state.areas[seat]
        return state.area(seat)

    def areas(self) -> list[PlayArea]:
        if isinstance(self.state, CoopState):
            return [self.state.area]
        return [self.area(0), self.area(1)]

    def area_index(self, seat: int) -> int:
        """Which area a seat plays on: the one shared area in the cooperative game."""
        return 0 if self.mode == "coop" else seat

    def revealed(self, seat: int) -> Revealed | None:
        state = self.state
        if isinstance(state, HeadToHeadState):
            return state.revealed(seat)
        return state.revealed

    def _fresh(self) -> dict[str, Any]:
        if self._cache_version != self.version:
            self._cache = {}
            self._cache_version = self.version
        return self._cache

    def legal(self, seat: int) -> list[list[Any]]:
        """Where ``seat`` may place its tile now: ``[q, r, [rotations]]`` per cell (cached)."""
        cache = self._fresh()
        key = f"legal{seat}"
        if key not in cache:
            cells: dict[tuple[int, int], list[int]] = {}
            if seat in self.waiting() and self.phase != DRAFT:
                state = self.state
                if isinstance(state, CoopState):
                    placements = state.legal_placements()
                else:
                    placements = state.legal_placements(seat)
                for p in placements:
                    cells.setdefault((p.at.q, p.at.r), []).append(p.rot)
            cache[key] = [[q, r, rots] for (q, r), rots in cells.items()]
        result: list[list[Any]] = cache[key]
        return result

    def why_not(self, move: Move) -> ProtocolError | None:
        """Why ``move`` may not be made now, or None."""
        if not 0 <= move.seat < len(self.seats):
            return ProtocolError("bad-message", f"there is no seat {move.seat} in this game")
        if self.is_over:
            return ProtocolError("game-over", "the game is over", 409)
        state = self.state
        if move.seat not in self.waiting():
            if isinstance(state, CoopState):
                return ProtocolError(
                    "out-of-turn",
                    f"it is {self.name(state.player)}'s turn, not {self.name(move.seat)}'s",
                    409,
                )
            decision: Pick | Placement = move.placement or Pick(move.pick or 0)
            reason = state.why_illegal(decision, move.seat)  # type: ignore[arg-type]
            return ProtocolError("out-of-turn", self._names(reason or "not this seat's turn"), 409)
        if isinstance(state, HeadToHeadState):
            decision = Pick(move.pick) if move.pick is not None else move.placement  # type: ignore[assignment]
            reason = state.why_illegal(decision, move.seat)
        elif move.placement is None:
            return ProtocolError("illegal", "this game takes placements, not picks")
        elif isinstance(state, CoopState):
            reason = state.why_illegal(move.placement)
        else:
            reason = state.why_illegal(move.placement, move.seat)
        return None if reason is None else ProtocolError("illegal", self._names(reason))

    def _names(self, text: str) -> str:
        """The engine says 'player 1'; the table knows names."""
        if self.mode == "coop":
            return text
        for seat in (0, 1):
            text = text.replace(f"player {seat + 1}'s", f"{self.name(seat)}'s")
            text = text.replace(f"player {seat + 1}", self.name(seat))
        return text

    def apply(self, move: Move) -> Json:
        """Make a checked move; returns its record entry.  Raises ProtocolError (nothing changed)."""
        error = self.why_not(move)
        if error is not None:
            raise error
        state = self.state
        entry: Json
        if move.pick is not None:
            assert isinstance(state, HeadToHeadState)
            state.apply(Pick(move.pick), move.seat)
            entry = {"player": move.seat, "pick": move.pick}
        else:
            placement = move.placement
            assert placement is not None
            entry = {"at": hex_json(placement.at), "rot": placement.rot}
            if isinstance(state, CoopState):
                state.play(placement)
            else:
                state.play(placement, move.seat)
                entry = {"player": move.seat, **entry}
        self.decisions.append(entry)
        self.deciders.append(move.seat)
        self.version += 1
        return entry

    def take_back(self) -> None:
        """Undo the last decision in memory (a write to the database failed)."""
        self.state.undo()
        self.decisions.pop()
        self.deciders.pop()
        self.version += 1

    def undo(self, seat: int) -> int:
        """Take back the last placement of a person (and the computer's after it); returns
        how many decisions were taken back.  Solo and same-screen cooperative games only."""
        if not self.undo_allowed:
            raise ProtocolError("no-undo", "undo is only for cooperative games played at one screen", 409)
        if not 0 <= seat < len(self.seats) or self.seats[seat].kind == COMPUTER:
            raise ProtocolError("bad-message", f"seat {seat} cannot undo")
        if not any(self.seats[s].kind != COMPUTER for s in self.deciders):
            raise ProtocolError("no-undo", "there is nothing to undo", 409)
        count = 0
        while True:
            self.state.undo()
            self.decisions.pop()
            decider = self.deciders.pop()
            count += 1
            if self.seats[decider].kind != COMPUTER:
                break
        self.version += 1
        self.epoch += 1
        return count

    # --- what the browser sees --------------------------------------------------------

    def scores(self) -> list[Pad]:
        cache = self._fresh()
        if "scores" not in cache:
            scorer = SCORERS[self.mode]
            cache["scores"] = [scorer(area) for area in self.areas()]
        pads: list[Pad] = cache["scores"]
        return pads

    def winner(self) -> int | None:
        state = self.state
        if isinstance(state, CoopState) or not state.is_over:
            return None
        return state.winner()

    def record(self) -> Json:
        return record_of(self.state, [s.name for s in self.seats])

    def public(self) -> Json:
        """Everything every player at the table may know (cached per version)."""
        cache = self._fresh()
        if "public" in cache:
            result: Json = cache["public"]
            return result
        state = self.state
        out: Json = {
            "id": self.id,
            "mode": self.mode,
            "mode_name": MODE_NAMES[self.mode],
            "version": self.version,
            "phase": self.phase,
            "over": self.is_over,
            "turn": len(self.decisions),
            "waiting": list(self.waiting()),
            "seats": [
                {"index": i, "name": s.name, "kind": s.kind, "player": s.player, "claimed": s.claimed}
                for i, s in enumerate(self.seats)
            ],
            "areas": [area_json(area) for area in self.areas()],
            "scores": [pad_json(pad) for pad in self.scores()],
            "undo": self.undo_allowed,
            "log": self.log(),
        }
        if isinstance(state, HeadToHeadState):
            out["revealed"] = [revealed_json(state.revealed(0)), revealed_json(state.revealed(1))]
            view = state.view(0)
            out["left"] = [list(view.stacks_left[0]), list(view.stacks_left[1])]
            tiles = state.game.tileset.tiles
            out["owned"] = [[{"id": i, **face_json(tiles[i])} for i in owned] for owned in state.owned]
            if state.phase == DRAFT:
                out["pool"] = [{"id": i, **face_json(tiles[i])} for i in state.pool]
                out["flags"] = [[face_json(tiles[i]) for i in pair] for pair in state.flags]
        else:
            out["revealed"] = [revealed_json(state.revealed)]
            out["left"] = [[state.task_tiles_left(), state.landscapes_left()]]
        if isinstance(state, DuelState) and state.turns:
            out["set_aside"] = [p for p in (0, 1) if state.turns[-1].set_aside[p] and not state.is_over]
        if self.is_over:
            out["seed"] = self.seed
            if self.mode != "coop":
                out["winner"] = self.winner()
        cache["public"] = out
        return out

    def public_text(self) -> str:
        cache = self._fresh()
        if "public_text" not in cache:
            cache["public_text"] = json.dumps(self.public(), separators=(",", ":"))
        text: str = cache["public_text"]
        return text

    def log(self) -> list[Json]:
        """What happened, one entry a line: placements, set-aside tiles, picks, tasks done or failed."""
        state = self.state
        out: list[Json] = []

        def changes(seat: int | None, turn: int, done: tuple[tuple[Task, Any], ...]) -> None:
            for task, status in done:
                verb = "completed" if status is COMPLETED else "failed"
                out.append(
                    {"turn": turn, "seat": seat, "kind": status.value, "text": f"{task.spec} task {verb}"}
                )

        if isinstance(state, CoopState):
            for t in state.turns:
                tile = describe_tile(t.revealed.tile, t.revealed.task)
                if t.set_aside:
                    out.append(
                        {
                            "turn": t.number,
                            "seat": None,
                            "kind": "aside",
                            "text": f"{tile} fits nowhere: set aside",
                        }
                    )
                elif t.placement is not None:
                    at = t.placement.at
                    text = f"{self.name(t.player)} placed {tile} at {at.q},{at.r}"
                    out.append({"turn": t.number, "seat": t.player, "kind": "place", "text": text})
                    changes(t.player, t.number, t.changes)
            return out
        if isinstance(state, DuelState):
            seen: set[int] = set()
            for index, player in state.history:
                turn = state.turns[index]
                if index not in seen:
                    seen.add(index)
                    for p in (0, 1):
                        if turn.set_aside[p]:
                            text = f"{describe_tile(turn.revealed.tile, turn.revealed.task)} fits nowhere in "
                            text += f"{self.name(p)}'s area: set aside"
                            out.append({"turn": turn.number, "seat": p, "kind": "aside", "text": text})
                placement = turn.placements[player]
                assert placement is not None
                tile = describe_tile(turn.revealed.tile, turn.revealed.task)
                text = f"{self.name(player)} placed {tile} at {placement.at.q},{placement.at.r}"
                out.append({"turn": turn.number, "seat": player, "kind": "place", "text": text})
                changes(player, turn.number, turn.changes[player])
            return out
        tiles = state.game.tileset.tiles
        placed = [0, 0]
        for number, (player, decision) in enumerate(state.history, 1):
            if isinstance(decision, Pick):
                text = f"{self.name(player)} took {describe_tile(tiles[decision.tile_id])}"
                out.append({"turn": number, "seat": player, "kind": "pick", "text": text})
                continue
            assert state.seats is not None
            turns = state.seats[player].turns
            done = [t for t in turns if t.placement is not None or t.set_aside]
            while placed[player] < len(done) and done[placed[player]].set_aside:
                t = done[placed[player]]
                text = f"{describe_tile(t.revealed.tile, t.revealed.task)} fits nowhere: set aside"
                out.append({"turn": number, "seat": player, "kind": "aside", "text": text})
                placed[player] += 1
            t = done[placed[player]]
            placed[player] += 1
            assert t.placement is not None
            at = t.placement.at
            tile = describe_tile(t.revealed.tile, t.revealed.task)
            text = f"{self.name(player)} placed {tile} at {at.q},{at.r}"
            out.append({"turn": number, "seat": player, "kind": "place", "text": text})
            changes(player, number, t.changes)
        return out

    # --- the placement preview ------------------------------------------------------------

    def preview(self, seat: int, placement: Placement) -> Json:
        """What placing ``seat``'s tile at ``placement`` would do, exactly, without doing it:
        the tasks it completes or fails, the open tasks it changes, the territories it
        joins, and the score before and after."""
        error = self.why_not(Move(seat, placement=placement))
        if error is not None:
            raise error
        revealed = self.revealed(seat)
        assert revealed is not None
        area = self.area(seat)
        before_pad = self.scores()[self.area_index(seat)]
        before = {id(t): task_figures(area, t) for t in area.tasks if t.status is OPEN}
        tile = revealed.tile
        cell = cell_of(*placement.at)
        area.push(tile.face, cell, placement.rot, flag=tile.flag, task=revealed.task)
        try:
            completed: list[Json] = []
            failed: list[Json] = []
            for task, status in area.last_changes():
                entry = {**spec_json(task.spec), "at": hex_json(_at(task))}
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
                            "at": hex_json(_at(task)),
                            "before": None if old is None else [s for s, _ in old],
                            "sizes": [s for s, _ in now],
                            "open_edges": [e for _, e in now],
                            "new": old is None,
                        }
                    )
            groups = []
            for letter, _dirs in areas(area.placed[-1].edges):
                if letter in "LP":
                    continue
                group = area.group(placement.at, letter)
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
            after_pad = SCORERS[self.mode](area)
        finally:
            area.pop()
        before_rows = pad_rows(before_pad)
        after_rows = pad_rows(after_pad)
        score_changes = [
            [label, old[1], new[1]]
            for old, new in zip(before_rows, after_rows, strict=True)
            for label in (old[0],)
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


def _at(task: Task) -> Hex:
    return hex_of(task.cell)
