"""The clients of a game: one :class:`~dorf.server.round.connection.Connection` per websocket
(lila-ws's client actor: a queue of outgoing messages pumped in order), and :class:`Doorman`,
who lets them in.

Seat holders are always let in; spectators while there is room: at most
``max_connections`` clients on this server, ``max_spectators`` spectators of a
game and ``max_connections_per_address`` spectators (and as many seat-holding
clients) from one address.  The counts of a game and of an address are the
storage's (:meth:`~dorf.server.storage.base.Storage.admit`): this server's own,
or every server's on a shared database, counted in one transaction so that two
servers cannot both let in the last one.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Callable, Mapping
from functools import partial
from typing import TYPE_CHECKING

from dorf.server.protocol.messages import ProtocolError
from dorf.server.round.connection import MAX_QUEUE, Connection
from dorf.server.round.game import Broken, Game
from dorf.server.storage.base import Client, Storage, StorageError

if TYPE_CHECKING:
    from dorf.server.config import ServerConfig

log = logging.getLogger("dorf.server")

#: How a client is counted (:attr:`Connection.role`): a spectator, or a holder of seats.
WATCHING, PLAYING = "watching", "playing"


class Doorman:
    """Who is let in, counted per server, per game and per address."""

    def __init__(
        self, config: ServerConfig, storage: Storage, games: Mapping[str, Game], touch: Callable[[Game], None]
    ) -> None:
        """``games`` are the games in memory (the cache's), ``touch`` keeps one there a while longer."""
        self.config = config
        self.storage = storage
        self.games = games
        self.touch = touch
        #: Clients let in on this server, in all.
        self.connected = 0
        self._leaving: set[asyncio.Task[None]] = set()

    async def attach(self, game: Game | Broken, conn: Connection) -> None:
        """A new client of a game, counted as a spectator: it holds no seat until its hello
        proves one.  Without room for another spectator it is held back (``conn.refusal`` says
        why): it hears nothing of the game's changes, and unless its first message is a hello
        that proves a seat (within ``hello_seconds``) it is turned away."""
        conn.refusal = await self._room(game, conn, set())
        if conn.refusal is None:
            self._count(game, conn, WATCHING)

    async def admit(self, game: Game | Broken, conn: Connection, seats: set[int]) -> bool:
        """The client's hello proved ``seats`` (perhaps none): count it as their holder, or as a
        spectator.  False, with ``conn.refusal`` set, if there is no room for it as that."""
        refusal = await self._room(game, conn, seats)
        if refusal is None and isinstance(game, Game) and self.games.get(game.id) is not game:
            refusal = ProtocolError("busy", "the game left memory meanwhile: connect again", 503)
        conn.refusal = refusal
        if refusal is not None:
            return False
        self._uncount(game, conn)
        conn.seats = seats
        self._count(game, conn, PLAYING if seats else WATCHING)
        return True

    def detach(self, game: Game | Broken, conn: Connection) -> None:
        """The client is gone (its count in the storage is dropped in the background: the client's
        task may be cancelled)."""
        counted = conn.role is not None
        self._uncount(game, conn)
        if isinstance(game, Game):
            game.used = time.monotonic()
        if counted:
            task = asyncio.get_running_loop().create_task(self._leave(self._client(game, conn, WATCHING)))
            self._leaving.add(task)
            task.add_done_callback(self._leaving.discard)

    async def _leave(self, client: Client) -> None:
        try:
            await self.storage.leave(client)
        except StorageError as exc:
            log.warning("dorf: %s", exc)

    def _client(self, game: Game | Broken, conn: Connection, role: str) -> Client:
        return Client(self.storage.instance, conn.number, conn.address, game.id, role)

    async def _room(self, game: Game | Broken, conn: Connection, seats: set[int]) -> ProtocolError | None:
        """Why ``conn`` cannot be let in holding ``seats`` (none: as a spectator); None if it can
        (and it is counted in the storage at once)."""
        decide = partial(self._no_room, conn, seats)
        client = self._client(game, conn, PLAYING if seats else WATCHING)
        try:
            return await self.storage.admit(client, decide)
        except StorageError as exc:
            return ProtocolError("storage", f"the database cannot count clients now ({exc})", 503)

    def _no_room(
        self, conn: Connection, seats: set[int], holders: int, watching: int, spectators: int
    ) -> ProtocolError | None:
        """Why ``conn`` cannot be let in holding ``seats``, when its address has ``holders``
        other seat-holding clients and ``watching`` other spectators, and its game
        ``spectators`` other spectators; None if it can.

        A seat holder is always let in, however many spectators there are, in the game or in
        all; only its own address's other seat-holding clients count against it.  A spectator
        needs room in the game, in all, and among its address's spectators."""
        config = self.config
        per_address = config.max_connections_per_address
        if seats:
            if per_address and holders >= per_address:
                return ProtocolError(
                    "busy", f"{holders} clients from your address hold seats already: close one first", 503
                )
            return None
        if per_address and watching >= per_address:
            return ProtocolError(
                "busy", f"{watching} clients from your address watch games already: close one first", 503
            )
        if self.connected - (conn.role is not None) >= config.max_connections:
            return ProtocolError(
                "busy",
                "the server has as many clients as it takes (its players still get in): try again later",
                503,
            )
        if spectators >= config.max_spectators:
            return ProtocolError(
                "busy",
                "this game has as many spectators as it takes (its players still get in): try later",
                503,
            )
        return None

    def _count(self, game: Game | Broken, conn: Connection, role: str) -> None:
        conn.role = role
        self.connected += 1
        if isinstance(game, Game):
            game.connections.add(conn)
            self.touch(game)

    def _uncount(self, game: Game | Broken, conn: Connection) -> None:
        role, conn.role = conn.role, None
        if role is None:
            return
        self.connected -= 1
        if isinstance(game, Game):
            game.connections.discard(conn)


__all__ = ["MAX_QUEUE", "PLAYING", "WATCHING", "Connection", "Doorman"]
