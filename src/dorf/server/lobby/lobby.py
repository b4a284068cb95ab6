"""The lobby of one server: the open games (one list for everyone, live), the seeks of its
sockets, and the pairing of them (the rule is :mod:`.pairing`; the rows :mod:`dorf.server.storage.lobby`).

**Open games.** The list is the storage's (``lobby_game``), held here as one document
``{"version", "games": {id: entry}}``: a client of ``/ws/lobby`` gets it whole, then a delta
(:func:`dorf.server.protocol.delta.diff`) whenever it changes, as a game's clients do.  It is
read again when this server changed it or another server says it did (``dorf_lobby``), a read
at a time however many changes come meanwhile.  A game leaves it when its last seat is taken or
it ends (``hub.lobby_hooks``, the finisher's listeners).

**Seeks.** A seek lives as long as its socket: stored (at most :data:`LIMIT` open games and
seeks a player), then its pool (mode, clock, rated) is paired at once and every
:data:`SWEEP` seconds while any seek of this server waits (the accepted range widens with the
wait).  The server that makes a pair creates the game (two online seats, who starts drawn),
seats its own seekers and tells the other server the other seat's invitation; each player's
server takes the seat for them and sends ``paired`` with the game and the seat's token.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import secrets
import time
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from dorf.games.modes import MODES
from dorf.server.lobby.pairing import Seek, pairs
from dorf.server.lobby.people import START_RATING, START_RD, rating_of
from dorf.server.protocol.delta import diff
from dorf.server.protocol.messages import ProtocolError
from dorf.server.protocol.views import Json
from dorf.server.protocol.wire import dumps
from dorf.server.round.clients import Connection
from dorf.server.round.clock import parse_spec, versus
from dorf.server.round.game import Game
from dorf.server.round.session import HERE, ONLINE
from dorf.server.storage.base import StorageError
from dorf.server.storage.lobby import Choose, OpenGame, Pool, note

if TYPE_CHECKING:
    from dorf.server.hub import Hub
    from dorf.server.players.accounts import Player

log = logging.getLogger("dorf.server")

#: Open games and seeks a player may have at once.
LIMIT = 3
#: Seconds between two pairings of a pool while a seek of this server waits in it.
SWEEP = 0.5
#: How long a seek that ended is remembered as gone (far longer than a pairing takes).
GONE_FOR = 60.0
#: A rating is provisional (shown with a "?") while its RD is at least this (lichess).
PROVISIONAL_RD = 110.0


@dataclass
class Waiting:
    """A seek of this server: the player's socket hears when it is paired."""

    seek: Seek
    player: Player
    conn: Connection


@dataclass
class LobbyCounts:
    """Seeks made on this server, players it paired, open games it listed."""

    seeks: int = 0
    paired: int = 0
    games: int = 0


def storage_error(exc: StorageError) -> ProtocolError:
    return ProtocolError("storage", f"the lobby cannot reach the database now ({exc})", 503)


def entry_json(entry: OpenGame) -> Json:
    return {
        "id": entry.game,
        "mode": entry.mode,
        "clock": entry.clock,
        "rated": entry.rated,
        "name": entry.name,
        "rating": None if entry.rating is None else round(entry.rating),
        "provisional": entry.rd is not None and entry.rd >= PROVISIONAL_RD,
        "free": entry.free,
        "seats": entry.seats,
        "since": entry.since,
    }


class Lobby:
    """The open games and the seeks of this server."""

    def __init__(self, hub: Hub) -> None:
        self.hub = hub
        self.clients: set[Connection] = set()
        self.waiting: dict[str, Waiting] = {}
        #: This server's seeks that ended (cancelled, or their socket closed) in the last
        #: :data:`GONE_FOR` seconds, by when: a pairing that read one before its row was deleted
        #: must not seat the other player against nobody.
        self.gone: dict[str, float] = {}
        #: The open games as last read, and the document the clients hold.
        self.games: dict[str, OpenGame] = {}
        #: Rematches offered (open games for one player), not in the public list.
        self.offers: dict[str, OpenGame] = {}
        self.doc: Json = {"version": 0, "games": {}}
        self.counts = LobbyCounts()
        #: The pairing rule (:func:`.pairing.pairs`), handed each pool's seeks and the storage's time.
        self.rule: Choose = pairs
        self._stale = False
        self._reading: asyncio.Task[None] | None = None
        self._pairing: dict[Pool, asyncio.Task[None]] = {}
        self._again: set[Pool] = set()
        self._sweeper: asyncio.Task[None] | None = None
        self._tasks: set[asyncio.Task[Any]] = set()

    # --- start and stop ---------------------------------------------------------------

    async def start(self) -> None:
        self.hub.bus.on_lobby(self.heard)
        with contextlib.suppress(StorageError):
            await self._read()
        self._sweeper = asyncio.get_running_loop().create_task(self._sweep())

    async def close(self) -> None:
        if self._sweeper is not None:
            self._sweeper.cancel()
        for task in [*self._pairing.values(), *self._tasks, *([self._reading] if self._reading else [])]:
            task.cancel()
        for seek_id in list(self.waiting):
            with contextlib.suppress(StorageError):
                await self.hub.storage.lobby_unseek(seek_id)
        self.waiting.clear()

    def health(self) -> Json:
        """What ``/api/health`` says of the lobby: its sockets, seeks waiting, open games listed,
        and the seeks made, players paired and games listed here so far."""
        counts = self.counts
        return {
            "clients": len(self.clients),
            "waiting": len(self.waiting),
            "open": len(self.games),
            "seeks": counts.seeks,
            "paired": counts.paired,
            "listed": counts.games,
        }

    def _spawn(self, work: Any) -> None:
        task = asyncio.get_running_loop().create_task(work)
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    # --- the clients -------------------------------------------------------------------

    def attach(self, conn: Connection) -> None:
        """A new client: the whole list."""
        self.clients.add(conn)
        self.send_state(conn)

    def send_state(self, conn: Connection) -> None:
        conn.doc = self.doc
        conn.send('{"type":"lobby",' + dumps(self.doc)[1:])

    async def detach(self, conn: Connection) -> None:
        """A client left: its seeks end."""
        self.clients.discard(conn)
        for seek_id, waiting in list(self.waiting.items()):
            if waiting.conn is conn:
                await self.cancel(conn, seek_id)

    # --- the open games ------------------------------------------------------------------

    def stale(self) -> None:
        """The list changed (here or on another server): read it again, once for all changes
        that come while it is being read."""
        self._stale = True
        if self._reading is None or self._reading.done():
            self._reading = asyncio.get_running_loop().create_task(self._reread())

    async def _reread(self) -> None:
        while self._stale:
            self._stale = False
            try:
                await self._read()
            except StorageError as exc:
                log.warning("dorf: the lobby's open games could not be read: %s", exc)
                return

    async def reread_now(self) -> None:
        """Read the open games (and the rematches offered) now."""
        try:
            await self._read()
        except StorageError as exc:
            raise storage_error(exc) from None

    async def _read(self) -> None:
        found = await self.hub.storage.lobby_games()
        self.games = {g.game: g for g in found if g.invited is None}
        self.offers = {g.game: g for g in found if g.invited is not None}
        old_games = self.doc["games"]
        games = {
            gid: old_games[gid] if gid in old_games and old_games[gid] == entry_json(g) else entry_json(g)
            for gid, g in self.games.items()
        }
        new = {"version": self.doc["version"] + 1, "games": games}
        ops = diff(self.doc, new)
        if len(ops) <= 1:  # the version alone
            return
        text = dumps({"type": "delta", "from": self.doc["version"], "version": new["version"], "ops": ops})
        self.doc = new
        for conn in list(self.clients):
            conn.send(text)
            conn.doc = new

    def changed(self, game: Game) -> None:
        """A hook of ``hub.lobby_hooks``: a seat of ``game`` was taken, or it ended."""
        entry = self.games.get(game.id) or self.offers.get(game.id)
        if entry is None:
            return
        free = 0 if game.session.is_over else len(game.invites)
        if free != entry.free:
            self._spawn(self._set_free(game.id, free))

    async def ended(self, game: Game, ending: Any) -> None:
        """A listener of the finisher: a game that ended leaves the list."""
        self.changed(game)

    async def _set_free(self, game_id: str, free: int) -> None:
        try:
            if await self.hub.storage.lobby_seats(game_id, free):
                self.stale()
        except StorageError as exc:
            log.warning("dorf: the lobby could not count the seats of %s: %s", game_id, exc)

    async def check_room(self, player: Player) -> None:
        """ProtocolError ``too-many`` if ``player`` has :data:`LIMIT` open games and seeks."""
        try:
            count = await self.hub.storage.lobby_count(player.id)
        except StorageError as exc:
            raise storage_error(exc) from None
        if count >= LIMIT:
            raise too_many()

    async def list_open(
        self, made: Json, body: dict[str, Any], player: Player, invited: str | None = None
    ) -> None:
        """List the game just made from ``body`` as open (its online seats for anyone)."""
        mode = made["mode"]
        rating, rd = await rating_of(self.hub, player.id, mode)
        spec = parse_spec(body.get("clock"))
        seats = body.get("seats") or []
        entry = OpenGame(
            made["id"],
            player.id,
            player.name,
            rating,
            rd,
            mode,
            None if spec is None else spec.text,
            body.get("rated") is True,
            len(made["invites"]),
            len(seats),
            invited,
            0.0,
        )
        try:
            listed = await self.hub.storage.lobby_open(entry, LIMIT)
        except StorageError as exc:
            raise storage_error(exc) from None
        if not listed:
            raise too_many()
        self.counts.games += 1
        self.stale()

    async def take(self, game_id: Any, player: Player) -> Json:
        """``player`` takes a free seat of an open game (or a rematch offered to them)."""
        if not isinstance(game_id, str) or not game_id:
            raise ProtocolError("bad-message", 'take names a game: {"type": "take", "game": ID}')
        entry = self.games.get(game_id) or self.offers.get(game_id)
        if entry is None:
            await self._read()
            entry = self.games.get(game_id) or self.offers.get(game_id)
        if entry is None or (entry.invited is not None and entry.invited != player.id):
            raise ProtocolError(
                "not-open", f"game {game_id[:64]!r} is not open in the lobby (taken, or over)", 404
            )
        if entry.creator == player.id:
            raise ProtocolError("own-game", "this is your own game: someone else takes its seat", 409)
        game = await self.hub.playable(game_id)
        seated = await self.hub.seating.take_open(game, player.name, player)
        return {
            "type": "seated",
            "game": game_id,
            "seat": seated["seat"],
            "token": seated["token"],
            "mode": entry.mode,
        }

    async def withdraw(self, game_id: Any, player: Player) -> Json:
        """The creator takes an open game out of the list (the game stays: its link still works)."""
        entry = self.games.get(game_id) if isinstance(game_id, str) else None
        if entry is None or entry.creator != player.id:
            raise ProtocolError("not-open", "you have no open game of that id in the lobby", 404)
        try:
            await self.hub.storage.lobby_seats(entry.game, 0)
        except StorageError as exc:
            raise storage_error(exc) from None
        self.stale()
        return {"type": "withdrawn", "game": entry.game}

    # --- seeks ---------------------------------------------------------------------------

    async def seek(self, conn: Connection, player: Player, data: dict[str, Any]) -> Seek:
        """A seek from ``{"mode", "clock", "rated"}``: stored, and its pool paired at once."""
        mode = data.get("mode")
        if not isinstance(mode, str) or not versus(mode):
            two = ", ".join(m for m in MODES if versus(m))
            raise ProtocolError("bad-message", f"quick pairing is for the games of two: mode is one of {two}")
        spec = parse_spec(data.get("clock"))
        rated = data.get("rated", False)
        if not isinstance(rated, bool):
            raise ProtocolError("bad-message", "rated must be true or false")
        rating, rd = await rating_of(self.hub, player.id, mode)
        seek = Seek(
            secrets.token_urlsafe(9),
            player.id,
            player.name,
            START_RATING if rating is None else rating,
            START_RD if rd is None else rd,
            mode,
            None if spec is None else spec.text,
            rated,
            0.0,
        )
        # Waiting here before it is stored: another server may pair it the moment it is.
        self.waiting[seek.id] = waiting = Waiting(seek, player, conn)
        try:
            stored = await self.hub.storage.lobby_seek(seek, LIMIT)
        except StorageError as exc:
            self.waiting.pop(seek.id, None)
            raise storage_error(exc) from None
        if stored is None:
            self.waiting.pop(seek.id, None)
            raise too_many()
        waiting.seek = stored
        self.counts.seeks += 1
        self.pair_soon((stored.mode, stored.clock, stored.rated))
        return stored

    async def cancel(self, conn: Connection, seek_id: Any) -> bool:
        """End one of this client's seeks: whether it was waiting."""
        waiting = self.waiting.get(seek_id) if isinstance(seek_id, str) else None
        if waiting is None or waiting.conn is not conn:
            return False
        del self.waiting[seek_id]
        self.gone[seek_id] = time.monotonic()
        try:
            await self.hub.storage.lobby_unseek(seek_id)
        except StorageError as exc:
            log.warning("dorf: a seek could not be ended: %s", exc)
        return True

    def pair_soon(self, pool: Pool) -> None:
        """Pair ``pool`` now, or once more after the pairing running now."""
        task = self._pairing.get(pool)
        if task is not None and not task.done():
            self._again.add(pool)
            return
        self._pairing[pool] = asyncio.get_running_loop().create_task(self._pair(pool))

    async def _pair(self, pool: Pool) -> None:
        again = True
        while again:
            self._again.discard(pool)
            try:
                made = await self.hub.storage.lobby_pair(pool, self.rule)
            except StorageError as exc:
                log.warning("dorf: the seeks could not be paired: %s", exc)
                return
            for a, b in made:
                await self._start_game(a, b)
            again = pool in self._again

    async def _sweep(self) -> None:
        """While seeks of this server wait, pair their pools again (their ranges widen)."""
        beats = 0
        while True:
            await asyncio.sleep(SWEEP)
            beats += 1
            if beats % 10 == 0:
                with contextlib.suppress(StorageError):
                    await self.hub.storage.lobby_sweep()
            for pool in {(w.seek.mode, w.seek.clock, w.seek.rated) for w in self.waiting.values()}:
                self.pair_soon(pool)
            if self.gone:
                old = time.monotonic() - GONE_FOR
                self.gone = {seek_id: at for seek_id, at in self.gone.items() if at > old}

    async def _start_game(self, a: Seek, b: Seek) -> None:
        """Two seeks paired here: their game (who starts drawn), each seat taken on the
        server of its seeker."""
        if a.id in self.gone or b.id in self.gone:
            # One of them left before its seek's row was deleted: the other seeks again.
            for seek in (a, b):
                if seek.id not in self.gone:
                    await self._seek_again(seek)
            return
        order = [a, b] if secrets.randbelow(2) == 0 else [b, a]
        body: Json = {
            "mode": a.mode,
            "clock": a.clock,
            "rated": a.rated,
            "seats": [{"kind": ONLINE, "name": s.name} for s in order],
        }
        try:
            made = await self.hub.seating.create(body)
        except ProtocolError as exc:
            log.warning("dorf: a paired game could not be made: %s", exc.message)
            return
        self.counts.paired += 2
        for seat, seek in enumerate(order):
            invite = made["invites"][str(seat)]
            if seek.id in self.waiting:
                self._spawn(self.seat(seek.id, made["id"], invite))
            else:
                try:
                    await self.hub.storage.lobby_tell(
                        note("paired", seek=seek.id, game=made["id"], invite=invite)
                    )
                except StorageError as exc:
                    log.warning("dorf: a paired player's server could not be told: %s", exc)

    async def _seek_again(self, seek: Seek) -> None:
        """Store ``seek`` again (the pairing took its row) and pair its pool again."""
        try:
            stored = await self.hub.storage.lobby_seek(seek, LIMIT)
        except StorageError as exc:
            log.warning("dorf: a seek could not be stored again: %s", exc)
            return
        waiting = self.waiting.get(seek.id)
        if stored is not None and waiting is not None:
            waiting.seek = stored
        self.pair_soon((seek.mode, seek.clock, seek.rated))

    async def seat(self, seek_id: str, game_id: str, invite: str) -> None:
        """A seek of this server was paired: take its seat and tell its socket."""
        waiting = self.waiting.pop(seek_id, None)
        if waiting is None:
            return  # its socket closed meanwhile: the seat stays free (the clock aborts the game)
        try:
            game = await self.hub.playable(game_id)
            seated = await self.hub.seating.join(game, {"invite": invite}, waiting.player)
        except ProtocolError as exc:
            waiting.conn.send({"type": "error", "code": exc.code, "message": exc.message})
            return
        waiting.conn.send(
            {
                "type": "paired",
                "seek": seek_id,
                "game": game_id,
                "seat": seated["seat"],
                "token": seated["token"],
                "mode": waiting.seek.mode,
            }
        )

    def heard(self, payload: str) -> None:
        """A message on the lobby's channel (from any server)."""
        try:
            message = json.loads(payload)
            kind = message["t"]
        except (ValueError, KeyError, TypeError):
            return
        if kind == "games":
            self.stale()
        elif kind == "paired" and message.get("seek") in self.waiting:
            self._spawn(self.seat(str(message["seek"]), str(message["game"]), str(message["invite"])))


def too_many() -> ProtocolError:
    return ProtocolError(
        "too-many", f"a player has at most {LIMIT} open games and seeks at once: end one first", 429
    )


def open_body(data: dict[str, Any]) -> None:
    """ProtocolError unless ``data`` (``POST /api/games`` with ``"open": true``) makes a game the
    lobby can list: an online seat at least, a seat of the creator's (``here``), not practice."""
    seats = data.get("seats")
    kinds = [s.get("kind", HERE) for s in seats if isinstance(s, dict)] if isinstance(seats, list) else []
    if ONLINE not in kinds or HERE not in kinds:
        raise ProtocolError(
            "bad-message",
            "an open game has a seat of yours (here) and online seats for anyone who takes them",
        )
    if data.get("practice") is True:
        raise ProtocolError("bad-message", "a practice game is played at one screen: it cannot be open")
