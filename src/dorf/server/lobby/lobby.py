"""The lobby of one server: the open games (one list for everyone, live), the seeks of its
sockets, and the pairing of them (the rule is :mod:`.pairing`; the rows :mod:`dorf.server.storage.lobby`).

**Open games.** The list is the storage's (``lobby_game``), held here as one document
``{"version", "games": {id: entry}}``: a client of ``/ws/lobby`` gets it whole, then a delta
(:func:`dorf.server.protocol.delta.diff`) whenever it changes, as a game's clients do.  It is
read again when this server changed it or another server says it did (``dorf_lobby``), a read
at a time however many changes come meanwhile.  A game leaves it when its last seat is taken or
it ends (it hears the round's ``SeatTaken`` and ``GameEnded``), or when nobody took it in time
(:func:`.listing.expires_at`: 30 minutes for a real-time clock, a day for correspondence or
none; each entry says when, ``expires``).  The document (:mod:`.listing`) holds the 50
newest open games; a client whose player has open games beyond them holds a
document of its own, the same plus those (its deltas are its own too).  An address lists at
most ``open_games_per_address`` open games at once, and holds at most ``max_connections_per_address``
lobby sockets on a server.

**Seeks.** A seek lives as long as its socket: stored (at most :data:`LIMIT` open games and
seeks a player), then its pool (mode, clock, rated) is paired at once and every
:data:`SWEEP` seconds while any seek of this server waits (the accepted range widens with the
wait).  The server that makes a pair creates the game (two online seats, who starts drawn),
seats its own seekers and tells the other server the other seat's invitation; each player's
server takes the seat for them and sends ``paired`` with the game and the seat's token.

**Who is looking.** Every client hears how many seek in each pool (``seekers``: counts only, the
:data:`POOLS_SHOWN` fullest pools), when the counts change and at most once every
:data:`SEEKERS_EVERY` seconds (the changes meanwhile are counted together).
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import json
import logging
import secrets
import time
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from dorf.games.modes import MODES
from dorf.server.lobby.attention import Attention
from dorf.server.lobby.listing import Addresses, Listing, address_full, expires_at
from dorf.server.lobby.offers import push_offer
from dorf.server.lobby.pairing import pairs
from dorf.server.lobby.people import START_RATING, START_RD, rating_of
from dorf.server.lobby.waiting import LobbyCounts, Waiting
from dorf.server.protocol.messages import ProtocolError
from dorf.server.protocol.views import Json
from dorf.server.protocol.wire import dumps
from dorf.server.round.clients import Connection
from dorf.server.round.clock import parse_spec, versus
from dorf.server.round.game import Game
from dorf.server.round.session import ONLINE
from dorf.server.storage.base import StorageError
from dorf.server.storage.lobby import ADDRESS_FULL, note
from dorf.server.storage.rows import Choose, OpenGame, Pool, Seek

if TYPE_CHECKING:
    from dorf.server.config import ServerConfig
    from dorf.server.players.accounts import Player
    from dorf.server.players.service import Players
    from dorf.server.round.cache import GameCache
    from dorf.server.round.seats import Seating
    from dorf.server.storage.base import Storage
    from dorf.server.storage.bus import Bus

log = logging.getLogger("dorf.server")

#: Open games and seeks a player may have at once.
LIMIT = 3
#: Seconds between two pairings of a pool while a seek of this server waits in it.
SWEEP = 0.5
#: How long a seek that ended is remembered as gone (far longer than a pairing takes).
GONE_FOR = 60.0
#: The pools whose seekers a ``seekers`` message counts at most (the fullest; a few hundred bytes).
POOLS_SHOWN = 12
#: The least time between two ``seekers`` messages, in seconds: the changes meanwhile go as one.
SEEKERS_EVERY = 1.0


def storage_error(exc: StorageError) -> ProtocolError:
    return ProtocolError("storage", f"the lobby cannot reach the database now ({exc})", 503)


class Lobby:
    """The open games and the seeks of this server."""

    def __init__(
        self,
        config: ServerConfig,
        storage: Storage,
        bus: Bus,
        cache: GameCache,
        seating: Seating,
        players: Players,
    ) -> None:
        """``cache`` holds the games in memory, ``players`` knows their ratings."""
        self.config, self.storage, self.bus = config, storage, bus
        self.cache, self.seating, self.players = cache, seating, players
        self.clients: set[Connection] = set()
        #: The quiet lobby sockets (``/ws/lobby?only=attention``): they hear only what waits for
        #: their player (:mod:`.attention`), not the list.
        self.listeners: set[Connection] = set()
        #: The hook every feature calls to tell a player what waits for them (:mod:`.attention`).
        self.attention = Attention(storage, self._spawn, self.tell_player)
        self.waiting: dict[str, Waiting] = {}
        #: This server's seeks that ended (cancelled, or their socket closed) in the last
        #: :data:`GONE_FOR` seconds, by when: a pairing that read one before its row was deleted
        #: must not seat the other player against nobody.
        self.gone: dict[str, float] = {}
        #: The open games as last read, and the document the clients hold (:mod:`.listing`).
        self.games: dict[str, OpenGame] = {}
        #: Rematches offered (open games for one player), not in the public list.
        self.offers: dict[str, OpenGame] = {}
        self.listing = Listing()
        self.addresses = Addresses()
        #: The quiet sockets' addresses, counted apart (as many again): a player's other tabs
        #: never take the room of a front page's socket.
        self.quiet_addresses = Addresses()
        #: The time open games expire by (seconds since 1970; tests hand in their own).
        self.now: Callable[[], float] = time.time
        self.counts = LobbyCounts()
        #: The pairing rule (:func:`.pairing.pairs`), handed each pool's seeks and the storage's time.
        self.rule: Choose = pairs
        self._stale = False
        self._reading: asyncio.Task[None] | None = None
        self._pairing: dict[Pool, asyncio.Task[None]] = {}
        self._again: set[Pool] = set()
        self._sweeper: asyncio.Task[None] | None = None
        self._tasks: set[asyncio.Task[Any]] = set()
        #: How many seek in each pool, as last told (``seekers``), and the telling under way.
        self.seekers: list[Json] = []
        self._counting: asyncio.Task[None] | None = None
        self._recount = False

    # --- start and stop ---------------------------------------------------------------

    async def start(self) -> None:
        self.bus.on_lobby(self.heard)
        with contextlib.suppress(StorageError):
            await self._read()
        self._sweeper = asyncio.get_running_loop().create_task(self._sweep())

    async def close(self) -> None:
        if self._sweeper is not None:
            self._sweeper.cancel()
        extra = [t for t in (self._reading, self._counting) if t is not None]
        for task in [*self._pairing.values(), *self._tasks, *extra]:
            task.cancel()
        for seek_id in list(self.waiting):
            with contextlib.suppress(StorageError):
                await self.storage.lobby_unseek(seek_id)
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

    def room(self, address: str, quiet: bool = False) -> ProtocolError | None:
        """Why a new lobby client from ``address`` (``quiet``: a quiet one) cannot be let in
        (None: it can)."""
        addresses = self.quiet_addresses if quiet else self.addresses
        return addresses.room(address, len(self.clients) + len(self.listeners), self.config)

    def attach(self, conn: Connection, quiet: bool = False) -> None:
        """A new client: the list (the newest open games, and its player's own); a quiet one
        (``quiet``) hears only what waits for its player."""
        if quiet:
            self.quiet_addresses.add(conn.address)
            self.listeners.add(conn)
            conn.send('{"type":"listening"}')  # heard from now on
            return
        self.addresses.add(conn.address)
        self.clients.add(conn)
        self.send_state(conn)

    @property
    def doc(self) -> Json:
        """The list of open games every client holds (the newest)."""
        return self.listing.doc

    def send_state(self, conn: Connection) -> None:
        conn.doc = doc = self.listing.doc_for(conn)
        conn.send('{"type":"lobby",' + dumps(doc)[1:])
        conn.send(self.seekers_message())

    # --- who is looking: counts per pool -------------------------------------------------

    def seekers_message(self) -> str:
        """``{"type": "seekers", "pools": [{"mode", "clock", "rated", "count"}]}``: how many wait
        in each pool (the fullest :data:`POOLS_SHOWN`), never who."""
        return dumps({"type": "seekers", "pools": self.seekers})

    def count_seekers(self) -> None:
        """The seeks may have changed: count them again and tell the clients if the counts
        changed, at most once every :data:`SEEKERS_EVERY` seconds (the changes meanwhile are
        counted together)."""
        self._recount = True
        if self._counting is None or self._counting.done():
            self._counting = asyncio.get_running_loop().create_task(self._count())

    async def _count(self) -> None:
        while self._recount:
            self._recount = False
            try:
                found = await self.storage.lobby_pools(POOLS_SHOWN)
            except StorageError as exc:
                log.warning("dorf: the seeks could not be counted: %s", exc)
                return
            pools = [{"mode": m, "clock": c, "rated": r, "count": n} for m, c, r, n in found]
            if pools != self.seekers:
                self.seekers = pools
                text = self.seekers_message()
                for conn in list(self.clients):
                    conn.send(text)
                await asyncio.sleep(SEEKERS_EVERY)

    async def detach(self, conn: Connection) -> None:
        """A client left: its seeks end."""
        if conn in self.clients:
            self.clients.discard(conn)
            self.addresses.remove(conn.address)
        elif conn in self.listeners:
            self.listeners.discard(conn)
            self.quiet_addresses.remove(conn.address)
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
        found = await self.storage.lobby_games()
        self.games = {g.game: g for g in found if g.invited is None}
        offers, self.offers = self.offers, {g.game: g for g in found if g.invited is not None}
        for game_id, offer in self.offers.items():
            if game_id not in offers:  # offered just now: the invited player hears it at once
                push_offer(self.cache.games.values(), [*self.clients, *self.listeners], offer)
        self.listing.update(self.games.values(), self.clients)

    async def expire(self) -> int:
        """Take the open games (and rematches offered) nobody took in time out of the list (the
        games stay: their links still work): how many."""
        now = self.now()
        gone = 0
        for entry in [*self.games.values(), *self.offers.values()]:
            if expires_at(entry) <= now:
                try:
                    gone += await self.storage.lobby_seats(entry.game, 0)
                except StorageError as exc:
                    log.warning("dorf: an open game could not expire: %s", exc)
                    break
        if gone:
            self.stale()
        return gone

    def changed(self, game: Game) -> None:
        """A seat of ``game`` was taken, or it ended (the composition root subscribes it)."""
        entry = self.games.get(game.id) or self.offers.get(game.id)
        if entry is None:
            return
        free = 0 if game.session.is_over else len(game.invites)
        if free != entry.free:
            self._spawn(self._set_free(game.id, free))

    async def _set_free(self, game_id: str, free: int) -> None:
        try:
            if await self.storage.lobby_seats(game_id, free):
                self.stale()
        except StorageError as exc:
            log.warning("dorf: the lobby could not count the seats of %s: %s", game_id, exc)

    async def check_room(self, player: Player, address: str = "") -> None:
        """ProtocolError ``too-many`` if ``player`` has :data:`LIMIT` open games and seeks, or
        ``address`` ``open_games_per_address`` open games listed (as last read: the storage counts
        again when the game is listed)."""
        most = self.config.open_games_per_address
        if address and most and sum(g.address == address for g in self.games.values()) >= most:
            raise address_full(most)
        try:
            count = await self.storage.lobby_count(player.id)
        except StorageError as exc:
            raise storage_error(exc) from None
        if count >= LIMIT:
            raise too_many()

    async def list_open(
        self, made: Json, body: dict[str, Any], player: Player, invited: str | None = None, address: str = ""
    ) -> float:
        """List the game just made from ``body`` as open (its online seats for anyone; listed from
        ``address``, which lists at most ``open_games_per_address``; "": a rematch, not counted): when it
        leaves the list if nobody takes it (seconds since 1970)."""
        mode = made["mode"]
        rating, rd = await rating_of(self.players, player.id, mode)
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
            address,
        )
        try:
            refused = await self.storage.lobby_open(entry, LIMIT, self.config.open_games_per_address)
        except StorageError as exc:
            raise storage_error(exc) from None
        if refused == ADDRESS_FULL:
            raise address_full(self.config.open_games_per_address)
        if refused is not None:
            raise too_many()
        self.counts.games += 1
        self.stale()
        return expires_at(dataclasses.replace(entry, since=time.time()))

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
        if expires_at(entry) <= self.now():
            raise ProtocolError(
                "not-open",
                f"game {game_id[:64]!r} is not open in the lobby any more: nobody took it in time",
                404,
            )
        if entry.creator == player.id:
            raise ProtocolError("own-game", "this is your own game: someone else takes its seat", 409)
        game = await self.cache.playable(game_id)
        seated = await self.seating.take_open(game, player.name, player)
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
            await self.storage.lobby_seats(entry.game, 0)
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
        rating, rd = await rating_of(self.players, player.id, mode)
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
            stored = await self.storage.lobby_seek(seek, LIMIT)
        except StorageError as exc:
            self.waiting.pop(seek.id, None)
            raise storage_error(exc) from None
        if stored is None:
            self.waiting.pop(seek.id, None)
            raise too_many()
        waiting.seek = stored
        self.counts.seeks += 1
        self.pair_soon((stored.mode, stored.clock, stored.rated))
        self.count_seekers()
        return stored

    async def cancel(self, conn: Connection, seek_id: Any) -> bool:
        """End one of this client's seeks: whether it was waiting."""
        waiting = self.waiting.get(seek_id) if isinstance(seek_id, str) else None
        if waiting is None or waiting.conn is not conn:
            return False
        del self.waiting[seek_id]
        self.gone[seek_id] = time.monotonic()
        try:
            await self.storage.lobby_unseek(seek_id)
        except StorageError as exc:
            log.warning("dorf: a seek could not be ended: %s", exc)
        self.count_seekers()
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
                made = await self.storage.lobby_pair(pool, self.rule)
            except StorageError as exc:
                log.warning("dorf: the seeks could not be paired: %s", exc)
                return
            for a, b in made:
                await self._start_game(a, b)
            if made:
                self.count_seekers()
            again = pool in self._again

    async def _sweep(self) -> None:
        """While seeks of this server wait, pair their pools again (their ranges widen)."""
        beats = 0
        while True:
            await asyncio.sleep(SWEEP)
            beats += 1
            if beats % 10 == 0:
                with contextlib.suppress(StorageError):
                    await self.storage.lobby_sweep()
                if self.clients:  # the seeks of the other servers come and go too
                    self.count_seekers()
                await self.expire()
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
            made = await self.seating.create(body)
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
                    await self.storage.lobby_tell(
                        note("paired", seek=seek.id, game=made["id"], invite=invite)
                    )
                except StorageError as exc:
                    log.warning("dorf: a paired player's server could not be told: %s", exc)

    async def _seek_again(self, seek: Seek) -> None:
        """Store ``seek`` again (the pairing took its row) and pair its pool again."""
        try:
            stored = await self.storage.lobby_seek(seek, LIMIT)
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
            game = await self.cache.playable(game_id)
            seated = await self.seating.join(game, {"invite": invite}, waiting.player)
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

    def tell_player(self, player_id: str, text: str) -> None:
        """Send ``text`` to the lobby sockets of ``player_id`` on this server (list and quiet)."""
        for conn in [*self.clients, *self.listeners]:
            if conn.player_id == player_id:
                conn.send(text)

    def heard(self, payload: str) -> None:
        """A message on the lobby's channel (from any server)."""
        try:
            message = json.loads(payload)
            kind = message["t"]
        except (ValueError, KeyError, TypeError):
            return
        if kind == "games":
            self.stale()
        elif kind == "attention":
            to, told = message.get("to"), message.get("m")
            if isinstance(to, str) and isinstance(told, dict):
                self.tell_player(to, dumps(told))
        elif kind == "paired" and message.get("seek") in self.waiting:
            self._spawn(self.seat(str(message["seek"]), str(message["game"]), str(message["invite"])))


def too_many() -> ProtocolError:
    return ProtocolError(
        "too-many", f"a player has at most {LIMIT} open games and seeks at once: end one first", 429
    )
