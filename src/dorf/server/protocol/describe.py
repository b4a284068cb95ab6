"""What a client sees of a game: its description as JSON, made once per version and view.

:class:`Description` describes a game's session (:class:`Described`: what it reads of a
:class:`~dorf.server.round.session.GameSession`, which makes one, so that this layer need
not import the round) for the page (and for a bot program, which is shown exactly what the page
shows): the areas, tiles, tasks and score pads (:mod:`~dorf.server.protocol.views`),
whose turn it is, the revealed tiles, the draft's open pool, the log, and each
seat's legal placements.  It holds what every player at the table may know;
never the seed (until the end), the order of a stack, the removed tiles or a
marker pile.

Descriptions are cached: per version and view (``full``, or ``public``: the
game without another seat's pending placement), and for longer what does not
change once made (a placed tile, an area nobody placed on since, a log line),
so that a delta (:mod:`~dorf.server.protocol.delta`) skips what is the same
object as before.  Only an undo makes them wrong: :meth:`Description.forget`.

The description is a view of the game: it is where the wording of each game
differs (a Duel's tile fits nowhere *in* a player's area; Head to Head has a
draft pool and stacks per player).
"""

from __future__ import annotations

import functools
import itertools
import operator
from collections.abc import Collection, Sequence
from contextlib import AbstractContextManager
from typing import Any, Protocol

from dorf.formats.notation import task_document
from dorf.formats.record import GameState
from dorf.games.coop import CoopState
from dorf.games.duel import DuelState
from dorf.games.headtohead import DRAFT, HeadToHeadState
from dorf.games.modes import MODES
from dorf.games.state import COMPLETED, FAILED, PICKED, PLACED, SET_ASIDE, Happened, Revealed
from dorf.rules.area import PlayArea
from dorf.rules.hexgrid import hex_of
from dorf.rules.scoring import SCORERS
from dorf.server.protocol.views import (
    Json,
    Made,
    Pad,
    area_json,
    describe_tile,
    face_json,
    hex_json,
    log_tile,
    pad_json,
    revealed_json,
)
from dorf.server.protocol.wire import dumps

#: Each mode's name as the page shows it (``coop``: "The Board Game").
MODE_NAMES = {name: mode.title for name, mode in MODES.items()}


class _Seat(Protocol):
    """A seat as a description shows it (:class:`~dorf.server.round.session.SeatSpec`)."""

    @property
    def kind(self) -> str: ...
    @property
    def name(self) -> str: ...
    @property
    def player(self) -> str | None: ...
    @property
    def claimed(self) -> bool: ...


class _Clock(Protocol):
    def json(self) -> dict[str, Any]: ...


class _Ending(Protocol):
    @property
    def end(self) -> str: ...


class Described(Protocol):
    """What a description reads of a game's session (the members of
    :class:`~dorf.server.round.session.GameSession` of the same names)."""

    @property
    def id(self) -> str: ...
    @property
    def mode(self) -> str: ...
    @property
    def seed(self) -> int: ...
    @property
    def seats(self) -> Sequence[_Seat]: ...
    @property
    def state(self) -> GameState: ...
    @property
    def practice(self) -> bool: ...
    @property
    def first(self) -> int: ...
    @property
    def order(self) -> Sequence[int]: ...
    @property
    def player_of(self) -> dict[int, int]: ...
    @property
    def decisions(self) -> Sequence[Json]: ...
    @property
    def version(self) -> int: ...
    @property
    def pending_hidden(self) -> bool: ...
    @property
    def clock(self) -> _Clock | None: ...
    @property
    def ending(self) -> _Ending | None: ...
    @property
    def daily(self) -> str | None: ...
    @property
    def is_over(self) -> bool: ...
    def seed_public(self) -> bool: ...
    def hints_refused(self) -> str | None: ...
    def pending_seat(self) -> int | None: ...
    def sees_pending(self, seats: Collection[int]) -> bool: ...
    def name(self, seat: int) -> str: ...
    def area(self, seat: int) -> PlayArea: ...
    def areas(self) -> list[PlayArea]: ...
    def can_undo(self) -> bool: ...
    def as_before_pending(self) -> AbstractContextManager[None]: ...
    def winner(self) -> int | None: ...


_first = operator.itemgetter(0)


@functools.lru_cache(maxsize=4096)
def _qr(cell: int) -> tuple[int, int]:
    at = hex_of(cell)
    return at.q, at.r


class Description:
    """The descriptions of one game (see the module)."""

    def __init__(self, session: Described) -> None:
        self.session = session
        self._cache: dict[str, Any] = {}
        self._cache_version: object = -1
        self._forget()
        self._faces: dict[int, Json] = {}
        self._seats_made: tuple[tuple[tuple[str, str, str | None, bool], ...], list[Json]] | None = None
        self._revealed_made: dict[tuple[int, Any], Json | None] = {}

    def _forget(self) -> None:
        #: Each area's description, score pad and pad's description, keyed by (area, tiles placed,
        #: game over); placed tiles' descriptions; the log, per decision described.
        self._areas: dict[tuple[int, int, bool], tuple[Json, Pad, Json]] = {}
        self._made: list[Made] = []
        self._lines: list[list[Json]] = []
        #: The lines of every decision described, one after the other.
        self._flat: list[Json] = []
        self._lines_names: tuple[str, ...] = ()
        self._logs: dict[int, list[Json]] = {}
        self._legal: dict[tuple[int, int, int, str], list[list[Any]]] = {}
        self._owned_made: dict[tuple[int, int], list[Json]] = {}
        #: The last description with no placement pending: (decisions, names, description).  The
        #: other seats see the game as it was before a pending placement: as described then.
        self._open: tuple[int, tuple[str, ...], Json] | None = None

    def forget(self) -> None:
        """Decisions were taken back: what was described of them is wrong now."""
        self._forget()
        self._cache_version = -1

    def _fresh(self) -> dict[str, Any]:
        session = self.session
        # A daily challenge's finished game shows its seed once the day is over: a new description.
        version = session.version if session.daily is None else (session.version, session.seed_public())
        if self._cache_version != version:
            self._cache = {}
            self._cache_version = version
        return self._cache

    # --- whose turn -------------------------------------------------------------------

    def waiting(self) -> tuple[int, ...]:
        """The seats that may decide now (made once per version)."""
        cache = self._fresh()
        seats: tuple[int, ...] | None = cache.get("waiting")
        if seats is None:
            order = self.session.order
            ended = self.session.ending is not None  # by time, resign or abort: nobody decides
            to_move = () if ended else self.session.state.to_move()
            seats = cache["waiting"] = tuple(sorted(order[p] for p in to_move))
        return seats

    def view_key(self, seats: Collection[int]) -> str:
        """Which description a client holding ``seats`` sees: ``full``, or ``public`` (without
        another seat's pending placement, see ``GameSession.sees_pending``)."""
        cache = self._fresh()
        if "pending" not in cache:  # once per version: most of the time there is none
            cache["pending"] = self.session.pending_seat()
        return "full" if cache["pending"] is None or self.session.sees_pending(seats) else "public"

    def legal(self, seat: int) -> list[list[Any]]:
        """Where ``seat`` may place its tile now: ``[q, r, [rotations]]`` per cell (made once for
        each tile and number of tiles in the seat's area: in the Duel the seat still to place
        keeps its list when the other places)."""
        cache = self._fresh()
        key = f"legal{seat}"
        if key not in cache:
            session = self.session
            state = session.state
            player = session.player_of[seat]
            revealed = state.revealed_for(player) if seat in self.waiting() else None
            if revealed is None or state.phase == DRAFT:
                cache[key] = []
            else:
                lasting = (seat, len(session.area(seat).placed), revealed.tile_id, revealed.tile.face)
                found = self._legal.get(lasting)
                if found is None:
                    moves = state.legal_moves(player)
                    # The engine's (cell, rotation) moves, in the order of legal_placements (by
                    # cell: row, then column; then rotation), grouped by cell.
                    found = [
                        [*_qr(cell), [rot for _, rot in same_cell]]
                        for cell, same_cell in itertools.groupby(sorted(moves), key=_first)
                    ]
                    if len(self._legal) > 8:
                        self._legal.clear()
                    self._legal[lasting] = found
                cache[key] = found
        result: list[list[Any]] = cache[key]
        return result

    # --- the description ----------------------------------------------------------------

    def public(self, seats: Collection[int] = ()) -> Json:
        """Everything a client holding ``seats`` may know (cached per version): what every
        player at the table knows, and its own seat's pending placement."""
        cache = self._fresh()
        key = self.view_key(seats)
        if key not in cache:
            session = self.session
            names = tuple(seat.name for seat in session.seats)
            if key == "full":
                cache[key] = self._describe()
                if session.pending_seat() is None:
                    self._open = (len(session.decisions), names, cache[key])
            else:
                waiting = list(self.waiting())
                kept = self._open
                if kept is not None and kept[0] == len(session.decisions) - 1 and kept[1] == names:
                    # The game before the pending placement was described when it was made.
                    out = dict(kept[2])
                    out["seats"] = self._seats_json()
                    out["undo"] = session.can_undo()
                    out["clock"] = None if session.clock is None else session.clock.json()
                else:
                    saved, self._cache = self._cache, {}
                    try:
                        with session.as_before_pending():
                            out = self._describe()
                    finally:
                        self._cache = saved
                out["waiting"] = waiting  # who still has to place: that much is public
                out["version"] = session.version
                out["turn"] = len(session.decisions)
                cache[key] = out
        result: Json = cache[key]
        return result

    def document(self, seats: Collection[int] = ()) -> Json:
        """What a client holding ``seats`` knows now: ``{"you": {"seats", "legal"}, "game":
        public(seats)}``, ``legal`` for its seats that decide now (at a cooperative table, for
        the seat that decides, whichever it holds: the others propose among them).  Made once per version for
        each view, and never changed in place: the server sends the next change as a delta
        from it (:mod:`dorf.server.protocol.delta`)."""
        ordered = sorted(seats)
        key = "doc:" + self.view_key(seats) + ",".join(map(str, ordered))
        cache = self._fresh()
        doc: Json | None = cache.get(key)
        if doc is None:
            waiting = self.waiting()
            # At a table of one board (the cooperative game) a seated client that does not place
            # is shown where the placing seat may place: it proposes among them (issue 63).
            shown = waiting if ordered and len(self.session.state.areas) == 1 else ordered
            you = {"seats": ordered, "legal": {str(s): self.legal(s) for s in shown if s in waiting}}
            doc = cache[key] = {"you": you, "game": self.public(seats)}
        return doc

    def public_text(self, seats: Collection[int] = ()) -> str:
        """:meth:`public` as compact JSON text (cached per version)."""
        cache = self._fresh()
        key = "text:" + self.view_key(seats)
        if key not in cache:
            cache[key] = dumps(self.public(seats))
        text: str = cache[key]
        return text

    def _seats_json(self) -> list[Json]:
        seats = self.session.seats
        key = tuple((s.name, s.kind, s.player, s.claimed) for s in seats)
        if self._seats_made is None or self._seats_made[0] != key:
            described = [
                {"index": i, "name": s.name, "kind": s.kind, "player": s.player, "claimed": s.claimed}
                for i, s in enumerate(seats)
            ]
            self._seats_made = (key, described)
        return self._seats_made[1]

    def _revealed_json(self, revealed: Revealed | None) -> Json | None:
        """A revealed tile's description (made once per tile and task)."""
        if revealed is None:
            return None
        key = (revealed.tile_id, revealed.task)
        described = self._revealed_made.get(key)
        if described is None:
            if len(self._revealed_made) > 16:
                self._revealed_made.clear()
            described = self._revealed_made[key] = revealed_json(revealed)
        return described

    def _describe(self) -> Json:
        session = self.session
        state = session.state
        over = session.is_over
        ending = session.ending
        out: Json = {
            "id": session.id,
            "mode": session.mode,
            "mode_name": MODE_NAMES[session.mode],
            "version": session.version,
            "phase": state.phase,
            "over": over,
            "turn": len(session.decisions),
            "waiting": list(self.waiting()),
            "seats": self._seats_json(),
            "areas": [],
            "scores": [],
            "practice": session.practice,
            "undo": session.can_undo(),
            # whether the coach gives this game's seats a hint (never against a person, nor in
            # a counted daily attempt): the page shows no Hint button it would refuse
            "hints": session.hints_refused() is None,
            "first": session.first,
            "broken": None,
            "log": self._log(),
            # how it ended (normal, time, resign, aborted; None while it goes on), and its clock
            "end": None if not over else ("normal" if ending is None else ending.end),
            "clock": None if session.clock is None else session.clock.json(),
            # a game of the daily challenge (docs/server.md "The daily challenge"): its day, and
            # whether it is practice (not the player's counted attempt)
            "daily": None if session.daily is None else {"date": session.daily, "practice": session.practice},
        }
        for i, area in enumerate(session.areas()):
            described, _, pad = self._area_parts(i, area)
            out["areas"].append(described)
            out["scores"].append(pad)
        seat_players = [session.player_of[seat] for seat in range(len(session.seats))]
        if isinstance(state, HeadToHeadState):  # a stack and a tile per player; the draft
            out["revealed"] = [self._revealed_json(state.revealed_for(p)) for p in seat_players]
            left = state.stacks_left(0)
            out["left"] = [list(left[p]) for p in seat_players]
            tiles = state.game.tileset.tiles
            out["owned"] = [self._owned(state.owned[p], p) for p in seat_players]
            if state.phase == DRAFT:
                out["pool"] = [self._face(i) for i in state.pool]
                out["flags"] = [[face_json(tiles[i]) for i in state.flags[p]] for p in seat_players]
        else:  # one tile on the table, one pair of stacks
            out["revealed"] = [self._revealed_json(state.revealed_for(0))]
            out["left"] = [[state.task_tiles_left(), state.landscapes_left()]]
        if isinstance(state, DuelState) and state.turns:  # whose copy of the tile fit nowhere
            aside = state.turns[-1].set_aside
            out["set_aside"] = sorted(session.order[p] for p in (0, 1) if aside[p] and not over)
        if session.seed_public():
            out["seed"] = session.seed
            out["seed_text"] = str(session.seed)  # exact in JavaScript, which keeps 53 bits of a number
            if not isinstance(state, CoopState):
                out["winner"] = session.winner()
        return out

    def scores(self) -> list[Pad]:
        """The score pads in seat order (one in the cooperative game)."""
        return [self._area_parts(i, area)[1] for i, area in enumerate(self.session.areas())]

    def _area_parts(self, index: int, area: PlayArea) -> tuple[Json, Pad, Json]:
        """Area ``index``'s description, score pad and the pad's description, made once for
        each number of tiles placed on it (an area nobody placed on since is the same object
        as before, so a delta skips it at once)."""
        key = (index, len(area.placed), self.session.state.is_over)
        parts = self._areas.get(key)
        if parts is None:
            while len(self._made) <= index:
                self._made.append(Made())
            pad = SCORERS[self.session.mode](area)
            parts = (area_json(area, self._made[index]), pad, pad_json(pad))
            for old in [k for k in self._areas if k[0] == index and k[1] < key[1] - 1]:
                del self._areas[old]
            self._areas[key] = parts
        return parts

    def _owned(self, owned: list[int], player: int) -> list[Json]:
        """The tiles ``player`` took in the draft (one list while it does not grow)."""
        key = (player, len(owned))
        made = self._owned_made.get(key)
        if made is None:
            made = self._owned_made[key] = [self._face(i) for i in owned]
        return made

    def _face(self, tile_id: int) -> Json:
        """A tile of the set as the draft shows it (made once per tile)."""
        face = self._faces.get(tile_id)
        if face is None:
            tiles = self.session.state.game.tileset.tiles
            face = self._faces[tile_id] = {"id": tile_id, **face_json(tiles[tile_id])}
        return face

    # --- the log -----------------------------------------------------------------------

    def _log(self) -> list[Json]:
        """What happened, one entry a line, each naming whose it is (:meth:`log`); a list made
        once for each number of decisions (do not change it)."""
        session = self.session
        count = len(session.decisions) - session.pending_hidden
        names = tuple(seat.name for seat in session.seats)
        if names != self._lines_names:
            self._lines, self._lines_names, self._logs, self._flat = [], names, {}, []
        entries = self._logs.get(count)
        if entries is None:
            lines, flat = self._lines, self._flat
            while len(lines) < count:
                made = [self._line(event) for event in session.state.happened(len(lines))]
                lines.append(made)
                flat.extend(made)
            # as before a pending placement, the lines of the decisions after ``count`` left out
            entries = flat[: len(flat) - sum(len(line) for line in lines[count:])]
            self._logs[count] = entries
            for old in [k for k in self._logs if k < count - 1]:
                del self._logs[old]
        return entries

    def log(self) -> list[Json]:
        """What happened: placements, set-aside tiles, picks, tasks completed or failed ("Ann
        completed forest 5"), one entry a line, each naming whose it is.

        What a decision adds to the log never changes afterwards (until an undo or a new name),
        so each decision is described once."""
        return list(self._log())

    def _line(self, event: Happened) -> Json:
        session = self.session
        seat = session.order[event.player]
        name = session.name(seat)
        kind = event.kind
        if kind == PLACED:
            assert event.at is not None
            text = f"{name} placed {describe_tile(event.tile, event.task)} at {event.at.q},{event.at.r}"
        elif kind == SET_ASIDE:
            tile = describe_tile(event.tile, event.task)
            if isinstance(session.state, DuelState):  # both players have a copy of the one tile
                text = f"{tile} fits nowhere in {name}'s area: set aside"
            else:
                text = f"{name}'s tile {tile} fits nowhere: set aside"
        elif kind == PICKED:
            text = f"{name} took {describe_tile(event.tile)}"
        else:
            text = f"{name} {kind} {event.task}"  # completed, failed
        line: Json = {"turn": event.number, "seat": seat, "kind": kind, "text": text}
        # What the page says in words and draws small (the text above is for bots and tools),
        # without copying what the description already holds (issue 60: a move must not pay):
        # a placed tile is its area's next tile (an area's n-th place line is its n-th tile, its
        # task the tile's), a tile taken in the draft the seat's next one in ``owned`` (a seat's
        # n-th pick line), a completed or failed task the area's task at ``at``; a tile set
        # aside is on no board, so it is named here.
        if kind in (COMPLETED, FAILED):
            assert event.at is not None
            line["at"] = hex_json(event.at)
        elif kind == SET_ASIDE:
            line["tile"] = log_tile(event.tile)
            if event.task is not None:
                line["task"] = task_document(event.task)
        return line
