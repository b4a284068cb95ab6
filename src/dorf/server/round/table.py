"""The cooperative table (issue 63): the active player's choice and the others' proposals.

While the active seat considers a cell and a rotation it says so (``choose``: never a move);
any other seat of a cooperative game may propose a placement of the current tile (``propose``,
at most :data:`PER_SEAT` standing per seat: the guide's "two reasonable locations").  Each is
checked by the engine's one legal-move check and comes with the placement preview
(:func:`~dorf.server.round.preview.preview`, computed once); everyone at the table, watchers
too, gets ``{"type": "table", "choice", "proposals"}`` when they change, and a state carries
``"table"``.  The table belongs to one tile: once the game's decisions change (a placement,
an undo) it is empty again and its clients are told so.

Nothing of it is stored; the other servers of one database hear it on the storage's tables'
channel (:data:`~dorf.server.storage.talk.TABLE_CHANNEL`, :meth:`Table.heard`), which also
carries table talk (:mod:`~dorf.server.round.talk`) to them.  The Duel and Head to Head have no
choice and no proposals (their placements are hidden until both have placed).
"""

from __future__ import annotations

import json
import logging
import time
from collections.abc import Collection, Mapping
from dataclasses import dataclass, field
from typing import Any, Protocol
from weakref import WeakKeyDictionary

from dorf.rules.area import Placement
from dorf.rules.hexgrid import Hex
from dorf.server.protocol.messages import ProtocolError
from dorf.server.protocol.views import Json
from dorf.server.protocol.wire import dumps
from dorf.server.round.connection import Connection
from dorf.server.round.events import Events, ProposalMade
from dorf.server.round.game import Game
from dorf.server.round.preview import preview
from dorf.server.round.seats import check_seat
from dorf.server.round.session import GameSession
from dorf.server.round.talk import Talk
from dorf.server.storage.base import StorageError, TalkLine
from dorf.server.storage.talk import note

log = logging.getLogger("dorf.server")

#: Standing proposals per seat and tile.
PER_SEAT = 2
#: ``choose`` and ``propose`` messages of one connection: RATE a second, a burst of BURST.
RATE, BURST = 10.0, 20.0
#: An empty table, as the live message says it.
EMPTY = '{"type":"table","choice":null,"proposals":[]}'


class TableStore(Protocol):
    """What the table asks of the storage: its name, and telling the other servers."""

    instance: str

    async def table_tell(self, payload: str) -> None: ...


@dataclass
class Entry:
    """A choice or a proposal: whose, where, and its preview (made when first shown)."""

    seat: int
    placement: Placement
    preview: Json | None = None

    def same(self, seat: int, placement: Placement) -> bool:
        return self.seat == seat and self.placement == placement

    def wire(self) -> list[int]:
        return [self.seat, self.placement.at.q, self.placement.at.r, self.placement.rot]


@dataclass
class TableState:
    """A game's table for the tile of decision ``turn + 1``."""

    turn: int
    choice: Entry | None = None
    proposals: list[Entry] = field(default_factory=list)

    @property
    def empty(self) -> bool:
        return self.choice is None and not self.proposals


class Bucket:
    """A token bucket: ``take`` is False once a connection sends faster than RATE a second."""

    def __init__(self, now: float) -> None:
        self.tokens = BURST
        self.at = now

    def take(self, now: float) -> bool:
        self.tokens = min(BURST, self.tokens + (now - self.at) * RATE)
        self.at = now
        if self.tokens < 1.0:
            return False
        self.tokens -= 1.0
        return True


def one_board(session: GameSession) -> bool:
    """Whether the seats share one board (the cooperative game): only then is there a choice to
    show and placements to propose (in the Duel and Head to Head each places on their own,
    unseen until both have)."""
    return len(session.state.areas) == 1


def turn_of(session: GameSession) -> int:
    """Which tile a table belongs to: the decisions made."""
    return len(session.decisions)


class Table:
    """The tables of the games in memory (see the module); ``games`` are the cache's."""

    def __init__(self, storage: TableStore, talk: Talk, games: Mapping[str, Game], events: Events) -> None:
        self.storage = storage
        self.talk = talk
        self.games = games
        self.events = events
        self.monotonic = time.monotonic
        self._tables: WeakKeyDictionary[Game, TableState] = WeakKeyDictionary()
        self._buckets: WeakKeyDictionary[Connection, Bucket] = WeakKeyDictionary()
        #: Table messages sent here (each to every client of a game), and heard from other servers.
        self.counts = {"sent": 0, "heard": 0}

    # --- what a client is shown ---------------------------------------------------------

    def _current(self, game: Game) -> TableState | None:
        """The game's table for its current tile (None: nothing on it)."""
        state = self._tables.get(game)
        if state is None or state.turn != turn_of(game.session) or game.session.is_over:
            return None
        return state

    def _shown(self, game: Game) -> tuple[Json | None, list[Json]]:
        """The choice and the proposals as clients see them (previews made where missing; one
        the engine no longer allows is dropped)."""
        state = self._current(game)
        if state is None:
            return None, []
        session = game.session
        waiting = session.waiting()
        if state.choice is not None and not self._ready(session, state.choice, state.choice.seat):
            state.choice = None
        active = waiting[0] if waiting else None
        state.proposals = [
            p for p in state.proposals if active is not None and self._ready(session, p, active)
        ]
        choice = None
        if state.choice is not None:
            entry = state.choice
            choice = {"seat": entry.seat, **_at_rot(entry.placement), "preview": entry.preview}
        proposals = [
            {"seat": p.seat, "name": session.name(p.seat), **_at_rot(p.placement), "preview": p.preview}
            for p in state.proposals
        ]
        return choice, proposals

    @staticmethod
    def _ready(session: GameSession, entry: Entry, seat: int) -> bool:
        """Give ``entry`` its preview (as ``seat``'s placement); False if the engine refuses it."""
        if entry.preview is None:
            try:
                entry.preview = preview(session, seat, entry.placement)
            except ProtocolError:
                return False
        return True

    def json(self, game: Game, seats: Collection[int]) -> Json:
        """A state's ``"table"`` for a client holding ``seats``."""
        choice, proposals = self._shown(game)
        return {"choice": choice, "proposals": proposals, "talk": self.talk.recent(game, seats)}

    def text(self, game: Game, seats: Collection[int]) -> str:
        return dumps(self.json(game, seats))

    def changed(self, game: Game) -> None:
        """The game changed (its clients have their deltas): a table of an earlier tile is
        emptied, and its clients told so."""
        state = self._tables.get(game)
        if state is None or state.turn == turn_of(game.session):
            return
        del self._tables[game]
        if not state.empty:
            self._send(game, EMPTY)

    def _send(self, game: Game, text: str) -> None:
        self.counts["sent"] += 1
        for conn in list(game.connections):
            conn.send(text)

    def _tell_clients(self, game: Game) -> None:
        choice, proposals = self._shown(game)
        self._send(game, dumps({"type": "table", "choice": choice, "proposals": proposals}))

    # --- what a seat does -------------------------------------------------------------------

    def _state(self, game: Game) -> TableState:
        """The game's table for its current tile (a new one if the tile is new)."""
        turn = turn_of(game.session)
        state = self._tables.get(game)
        if state is None or state.turn != turn:
            state = self._tables[game] = TableState(turn)
        return state

    def _check(self, game: Game, conn: Connection, seat: int) -> None:
        check_seat(game.session, conn.seats, seat)
        if not one_board(game.session):
            raise ProtocolError(
                "not-cooperative", "only the cooperative game has choices and proposals at its table", 409
            )
        bucket = self._buckets.get(conn)
        now = self.monotonic()
        if bucket is None:
            bucket = self._buckets[conn] = Bucket(now)
        if not bucket.take(now):
            raise ProtocolError(
                "table-too-fast", f"at most {RATE:g} choices and proposals a second: slow down", 429
            )

    async def choose(self, game: Game, conn: Connection, seat: int, placement: Placement | None) -> bool:
        """The active ``seat`` considers ``placement`` (None: nothing any more): whether the
        table changed (an identical repeat does not).  ProtocolError if it may not."""
        self._check(game, conn, seat)
        await game.settled()
        session = game.session
        state = self._state(game)
        if placement is None:
            if state.choice is None or state.choice.seat != seat:
                return False
            state.choice = None
        else:
            if state.choice is not None and state.choice.same(seat, placement):
                return False
            if session.is_over:
                raise ProtocolError("game-over", "the game is over", 409)
            if seat not in session.waiting():
                raise ProtocolError(
                    "out-of-turn",
                    f"only the seat placing this tile chooses; it is not {session.name(seat)}'s",
                    409,
                )
            entry = Entry(seat, placement, preview(session, seat, placement))  # the engine's check
            state.choice = entry
        self._tell_clients(game)
        choice = None if state.choice is None else state.choice.wire()
        await self._tell(note("choice", game.id, self.storage.instance, turn=state.turn, choice=choice))
        return True

    async def propose(
        self, game: Game, conn: Connection, seat: int, placement: Placement | None, clear: bool
    ) -> bool:
        """``seat`` proposes ``placement`` for the current tile, or withdraws it (``clear``; all
        of its proposals if ``placement`` is None): whether the table changed."""
        self._check(game, conn, seat)
        await game.settled()
        session = game.session
        state = self._state(game)
        mine = [p for p in state.proposals if p.seat == seat]
        if clear:
            gone = [p for p in mine if placement is None or p.placement == placement]
            if not gone:
                return False
            state.proposals = [p for p in state.proposals if not any(p is g for g in gone)]
        else:
            assert placement is not None
            if session.is_over:
                raise ProtocolError("game-over", "the game is over", 409)
            waiting = session.waiting()
            if not waiting:
                raise ProtocolError("out-of-turn", "nobody places a tile now: nothing to propose", 409)
            if seat in waiting:
                raise ProtocolError(
                    "own-turn", "it is your tile: choose where it goes and place it (the others propose)", 409
                )
            if any(p.placement == placement for p in mine):
                return False
            if len(mine) >= PER_SEAT:
                raise ProtocolError(
                    "too-many-proposals",
                    f"at most {PER_SEAT} proposals each for a tile: withdraw one first",
                    409,
                )
            entry = Entry(seat, placement, preview(session, waiting[0], placement))  # the engine's check
            state.proposals.append(entry)
            self.events.publish(ProposalMade(game, seat, waiting[0]))
        self._tell_clients(game)
        listed = [p.wire()[1:] for p in state.proposals if p.seat == seat]
        await self._tell(
            note("proposals", game.id, self.storage.instance, turn=state.turn, seat=seat, list=listed)
        )
        return True

    async def _tell(self, payload: str) -> None:
        """Tell the other servers (a storage error: logged; this server's clients know already)."""
        try:
            await self.storage.table_tell(payload)
        except StorageError as exc:
            log.warning("dorf: the other servers were not told of a table's change: %s", exc)

    # --- the other servers ------------------------------------------------------------------

    def heard(self, payload: str) -> None:
        """A message on the tables' channel: another server's talk, choice or proposals of a game
        held here (its clients here are told); this server's own, and games not here, are skipped."""
        try:
            data = json.loads(payload)
            if data["o"] == self.storage.instance:
                return
            game = self.games.get(data["g"])
            if game is None:
                return
            kind = data["t"]
            if kind == "talk":
                raw = data["line"]
                line = TalkLine(raw["n"], raw["seat"], raw["name"], raw["text"], raw["at"], raw["move"])
                self.talk.heard(game, line)
                return
            self.counts["heard"] += 1
            self._heard_table(game, kind, data)
        except (ValueError, KeyError, TypeError, IndexError):
            log.warning("dorf: a message on the tables' channel that is not one was ignored")

    def _heard_table(self, game: Game, kind: str, data: dict[str, Any]) -> None:
        turn = int(data["turn"])
        state = self._tables.get(game)
        if turn < turn_of(game.session) or (state is not None and turn < state.turn):
            return  # of a tile placed already
        if state is None or state.turn != turn:
            state = self._tables[game] = TableState(turn)
        if kind == "choice":
            raw = data["choice"]
            if raw is not None and not 0 <= int(raw[0]) < len(game.session.seats):
                raise ValueError("no such seat")
            state.choice = None if raw is None else Entry(raw[0], _placement(raw[1:]))
        elif kind == "proposals":
            seat = int(data["seat"])
            if not 0 <= seat < len(game.session.seats):
                raise ValueError("no such seat")
            others = [p for p in state.proposals if p.seat != seat]
            state.proposals = others + [Entry(seat, _placement(raw)) for raw in data["list"][:PER_SEAT]]
        else:
            raise ValueError(kind)
        if state.turn == turn_of(game.session):
            self._tell_clients(game)


def _at_rot(placement: Placement) -> Json:
    return {"at": [placement.at.q, placement.at.r], "rot": placement.rot}


def _placement(raw: list[Any]) -> Placement:
    q, r, rot = raw
    return Placement(Hex(int(q), int(r)), int(rot))


__all__ = ["PER_SEAT", "Table", "TableState"]
