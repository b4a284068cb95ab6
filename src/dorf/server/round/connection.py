"""One websocket client: :class:`Connection` (lila-ws's client actor: a queue of outgoing
messages pumped in order).  Who is let in is :mod:`~dorf.server.round.clients`."""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import logging
from collections.abc import Awaitable, Callable
from typing import Any

from dorf.server.protocol.messages import ProtocolError, error_message
from dorf.server.protocol.views import Json
from dorf.server.protocol.wire import dumps

log = logging.getLogger("dorf.server")

#: Messages waiting for a slow client before the server gives up on it.
MAX_QUEUE = 256

_numbers = itertools.count(1)


class Connection:
    """One websocket client: the seats it holds and its queue of outgoing messages."""

    def __init__(
        self,
        send: Callable[[str], Awaitable[Any]],
        close: Callable[[int], Awaitable[Any]],
        address: str = "unknown",
    ) -> None:
        self._send = send
        self._close = close
        #: The client's address, for the cap of connections per address.
        self.address = address
        #: How it is counted: WATCHING, PLAYING, or None (not let in yet, or gone).
        self.role: str | None = None
        #: Why it is not let in (held back, or turned away): it is told so and closed.
        self.refusal: ProtocolError | None = None
        #: The close code once the queue is sent (:meth:`refuse` makes it 1013, try again later).
        self.close_code = 1008
        self.seats: set[int] = set()
        #: The player a bot connected as (its API token): it holds that player's seats.
        self.player_id: str | None = None
        self.queue: asyncio.Queue[str | None] = asyncio.Queue()
        self.closed = False
        #: The description of the game this client has (its last state, deltas applied): the
        #: next change is sent as a delta from it.  Never changed in place.
        self.doc: Json | None = None
        #: Its number on this server (several servers count their clients in the database).
        self.number = next(_numbers)

    def send(self, message: Json | str) -> None:
        if self.closed:
            return
        if self.queue.qsize() >= MAX_QUEUE:
            log.warning("dropping a client that does not read its messages")
            self.closed = True
            self.queue.put_nowait(None)
            return
        self.queue.put_nowait(message if isinstance(message, str) else dumps(message))

    def close(self) -> None:
        """Close once what is queued is sent."""
        self.closed = True
        self.queue.put_nowait(None)

    async def pump(self) -> None:
        """Send queued messages in order until the connection ends."""
        while True:
            message = await self.queue.get()
            if message is None:
                with contextlib.suppress(Exception):
                    await self._close(self.close_code)
                return
            await self._send(message)

    def refuse(self) -> None:
        """Turn the client away: what is queued, then the ``busy`` error of :attr:`refusal`, then
        the close 1013 (try again later)."""
        if self.refusal is not None:
            self.send(error_message(self.refusal))
        self.close_code = 1013
        self.close()


__all__ = ["MAX_QUEUE", "Connection"]
