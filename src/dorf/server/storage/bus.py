"""What one server hears from the others: the fan-out of changes between servers.

The hub is handed a :class:`Bus` with its storage (``open_storage``): it
subscribes once (:meth:`Bus.start`) and is told of every change another server
stored, as a :class:`~dorf.server.storage.base.Change`.

- :class:`Alone`: a server alone on its database hears nothing.
- :class:`PostgresBus`: a thread that listens on the channel ``dorf_change``
  (:mod:`dorf.server.storage.postgres` notifies on it in the statement that
  stores a change) and hands every notification of another server to the
  event loop, in batches.  PostgreSQL sends a notification when the
  transaction that stored the change commits, and every listener gets them in
  commit order, so a server applies another's changes of a game in version
  order and never one that is not stored.  If the listening connection is
  lost, notifications may have been missed meanwhile: once it is back, the bus
  asks the hub to compare every game it holds with the database (``resync``).

The listener waits for notifications a tenth of a second at a time and
:meth:`PostgresBus.stop` wakes it at once, so a server stops without waiting
for a poll to run out.
"""

from __future__ import annotations

import asyncio
import logging
import os
import select
import threading
import time
from collections.abc import Callable
from typing import Protocol

from dorf.server.storage.base import Change
from dorf.server.storage.games import CHANNEL
from dorf.server.storage.lobby import LOBBY_CHANNEL
from dorf.server.storage.postgres import one_line, redact
from dorf.server.storage.talk import TABLE_CHANNEL

try:
    import psycopg
except ImportError:  # pragma: no cover - the web extra installs it
    psycopg = None  # type: ignore[assignment]

log = logging.getLogger("dorf.server")

#: The longest wait before the listener tries to connect again, in seconds.
MAX_PAUSE = 5.0
#: How long the listener waits for a notification before it looks whether to stop, in seconds.
POLL = 0.1


class Bus(Protocol):
    """Changes stored by the other servers on the same database."""

    #: Changes heard from other servers so far.
    heard: int

    def start(self, hear: Callable[[Change], None], resync: Callable[[], None]) -> None:
        """Tell ``hear`` of every change another server stores (on the event loop), and ``resync``
        when changes may have been missed."""
        ...

    async def ready(self, timeout: float = 10.0) -> bool:
        """Whether it listens (waiting at most ``timeout`` seconds)."""
        ...

    async def stop(self) -> None: ...

    def on_lobby(self, hear: Callable[[str], None]) -> None:
        """Tell ``hear`` (on the event loop) every message on the lobby's channel
        (:data:`~dorf.server.storage.lobby.LOBBY_CHANNEL`), from any server, this one too."""
        ...

    def on_table(self, hear: Callable[[str], None]) -> None:
        """Tell ``hear`` (on the event loop) every message on the tables' channel
        (:data:`~dorf.server.storage.talk.TABLE_CHANNEL`: talk, choices, proposals), from any
        server, this one too (each names its origin)."""
        ...


class Alone:
    """A server alone on its database: nobody else changes its games."""

    heard = 0

    def start(self, hear: Callable[[Change], None], resync: Callable[[], None]) -> None:
        pass

    async def ready(self, timeout: float = 10.0) -> bool:
        return True

    async def stop(self) -> None:
        pass

    def on_lobby(self, hear: Callable[[str], None]) -> None:
        """Nothing to hear: the lobby of a server alone is all here."""

    def on_table(self, hear: Callable[[str], None]) -> None:
        """Nothing to hear: every table of a server alone is here."""


class PostgresBus:
    """This server among the others: a thread listening for their changes."""

    def __init__(self, url: str, instance: str) -> None:
        self.url = url
        #: This server's name: its own changes are not heard again.
        self.instance = instance
        self._hear: Callable[[Change], None] = lambda change: None
        self._resync: Callable[[], None] = lambda: None
        self._loop: asyncio.AbstractEventLoop | None = None
        self._stop = threading.Event()
        #: Written to when the listener must stop: it wakes from its wait at once.
        self._wake_read, self._wake_write = os.pipe()
        self._thread: threading.Thread | None = None
        self._lock = threading.Lock()
        self._waiting: list[tuple[str, str]] = []
        self._hear_lobby: Callable[[str], None] = lambda payload: None
        self._hear_table: Callable[[str], None] = lambda payload: None
        #: Set once the listener listens (tests and start-up wait for it).
        self.listening = threading.Event()
        self.heard = 0

    def start(self, hear: Callable[[Change], None], resync: Callable[[], None]) -> None:
        self._hear, self._resync = hear, resync
        self._loop = asyncio.get_running_loop()
        self._thread = threading.Thread(target=self._listen, name="dorf-listen", daemon=True)
        self._thread.start()

    async def ready(self, timeout: float = 10.0) -> bool:
        return await asyncio.to_thread(self.listening.wait, timeout)

    def on_lobby(self, hear: Callable[[str], None]) -> None:
        self._hear_lobby = hear

    def on_table(self, hear: Callable[[str], None]) -> None:
        self._hear_table = hear

    async def stop(self) -> None:
        self._stop.set()
        os.write(self._wake_write, b"x")
        if self._thread is not None:
            await asyncio.to_thread(self._thread.join, 5.0)
        os.close(self._wake_read)
        os.close(self._wake_write)

    def _listen(self) -> None:
        pause = 0.1
        lost = False
        while not self._stop.is_set():
            try:
                with psycopg.connect(self.url, autocommit=True, connect_timeout=5) as conn:
                    conn.execute(f"LISTEN {CHANNEL}")
                    conn.execute(f"LISTEN {LOBBY_CHANNEL}")
                    conn.execute(f"LISTEN {TABLE_CHANNEL}")
                    self.listening.set()
                    if lost:
                        log.warning("dorf: hearing the other servers again")
                        self._call(self._resync)
                    pause = 0.1
                    while not self._stop.is_set():
                        # Wait on the connection's socket and on the stop pipe; then take what came.
                        select.select([conn.fileno(), self._wake_read], [], [], POLL)
                        for note in conn.notifies(timeout=0):
                            self._arrived(note.channel, note.payload)
            except psycopg.Error as exc:
                if self._stop.is_set():
                    return
                if not lost:
                    log.warning(
                        "dorf: not hearing the other servers (%s, %s): trying again",
                        redact(self.url),
                        one_line(exc),
                    )
                lost = True
                self.listening.clear()
                time.sleep(pause)
                pause = min(MAX_PAUSE, pause * 2)

    def _call(self, call: Callable[[], None]) -> None:
        if self._loop is not None and not self._loop.is_closed():
            self._loop.call_soon_threadsafe(call)

    def _arrived(self, channel: str, payload: str) -> None:
        """Queue a notification; the event loop is woken once for all that arrive meanwhile."""
        with self._lock:
            self._waiting.append((channel, payload))
            first = len(self._waiting) == 1
        if first:
            self._call(self._drain)

    def _drain(self) -> None:
        with self._lock:
            payloads, self._waiting = self._waiting, []
        for channel, payload in payloads:
            if channel == LOBBY_CHANNEL:
                self._hear_lobby(payload)
                continue
            if channel == TABLE_CHANNEL:
                self._hear_table(payload)
                continue
            try:
                change = Change.parse(payload)
            except (ValueError, KeyError, TypeError):
                log.warning("dorf: a notification that is not a change was ignored")
                continue
            if change.origin != self.instance:
                self.heard += 1
                self._hear(change)
