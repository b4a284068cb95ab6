"""What one server hears from the others on the same PostgreSQL database.

:class:`Link` is a server's membership of a site of several servers: its
name (``instance``), a thread that listens on the channel ``dorf_change``
(:mod:`dorf.server.postgres`) and hands every notification of another server
to the event loop, and what a change says (:class:`Heard`).

A notification is sent by PostgreSQL when the transaction that stored the
change commits, and every listener gets them in commit order, so a server
applies another's changes of a game in version order and never one that is
not stored.  If the listening connection is lost, notifications may have
been missed meanwhile: once it is back, the link asks the hub to compare
every game it holds with the database (``resync``).
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import secrets
import threading
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any

from dorf.server.postgres import CHANNEL, Shared, one_line, redact

try:
    import psycopg
except ImportError:  # pragma: no cover - the web extra installs it
    psycopg = None  # type: ignore[assignment]

log = logging.getLogger("dorf.server")

#: The longest wait before the listener tries to connect again, in seconds.
MAX_PAUSE = 5.0


@dataclass
class Heard:
    """A change of a game stored by another server: decision ``number`` (``decision``), an
    undo back to ``keep`` decisions (``decision`` None, ``kind`` "undo"), or a seat taken
    (``kind`` "seat"); the game's version after it."""

    game: str
    version: int
    kind: str
    seat: int = 0
    number: int = 0
    decision: dict[str, Any] | None = None
    keep: int = 0
    key: str | None = None

    def payload(self, instance: str) -> str:
        """The notification that tells the other servers (well under PostgreSQL's 8000 bytes)."""
        fields = {"o": instance, "g": self.game, "v": self.version, "t": self.kind, "s": self.seat}
        if self.kind == "move":
            fields |= {"n": self.number, "d": self.decision, "k": self.key}
        elif self.kind == "undo":
            fields["keep"] = self.keep
        return json.dumps(fields, separators=(",", ":"))

    @classmethod
    def parse(cls, payload: str) -> tuple[str, Heard]:
        """(the server that sent it, the change); raises ValueError for a payload not made by
        :meth:`payload`."""
        data = json.loads(payload)
        if not isinstance(data, dict) or data.get("t") not in ("move", "undo", "seat"):
            raise ValueError("not a change")
        return str(data["o"]), cls(
            str(data["g"]),
            int(data["v"]),
            data["t"],
            int(data.get("s", 0)),
            int(data.get("n", 0)),
            data.get("d"),
            int(data.get("keep", 0)),
            data.get("k"),
        )


class Link:
    """This server among the others: its name, and a thread listening for their changes."""

    def __init__(self, url: str, hear: Callable[[Heard], None], resync: Callable[[], None]) -> None:
        self.url = url
        #: This server's name in the database (its thinking leases, its clients).
        self.instance = secrets.token_hex(6)
        self._hear = hear
        self._resync = resync
        self._loop: asyncio.AbstractEventLoop | None = None
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self._lock = threading.Lock()
        self._waiting: list[str] = []
        #: Set once the listener listens (tests and start-up wait for it).
        self.listening = threading.Event()
        self.heard = 0

    def start(self) -> None:
        self._loop = asyncio.get_running_loop()
        self._thread = threading.Thread(target=self._listen, name="dorf-listen", daemon=True)
        self._thread.start()

    async def ready(self, timeout: float = 10.0) -> bool:
        """Wait until the listener listens (at most ``timeout`` seconds)."""
        return await asyncio.to_thread(self.listening.wait, timeout)

    def stop(self) -> None:
        self._stop.set()
        if self._thread is not None:
            self._thread.join(timeout=5.0)

    def _listen(self) -> None:
        pause = 0.1
        lost = False
        while not self._stop.is_set():
            try:
                with psycopg.connect(self.url, autocommit=True, connect_timeout=5) as conn:
                    conn.execute(f"LISTEN {CHANNEL}")
                    self.listening.set()
                    if lost:
                        log.warning("dorf: hearing the other servers again")
                        self._call(self._resync)
                    pause = 0.1
                    while not self._stop.is_set():
                        for note in conn.notifies(timeout=0.5):
                            self._arrived(note.payload)
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

    def _arrived(self, payload: str) -> None:
        """Queue a notification; the event loop is woken once for all that arrive meanwhile."""
        with self._lock:
            self._waiting.append(payload)
            first = len(self._waiting) == 1
        if first:
            self._call(self._drain)

    def _drain(self) -> None:
        with self._lock:
            payloads, self._waiting = self._waiting, []
        for payload in payloads:
            try:
                sender, change = Heard.parse(payload)
            except (ValueError, KeyError, TypeError):
                log.warning("dorf: a notification that is not a change was ignored")
                continue
            if sender != self.instance:
                self.heard += 1
                self._hear(change)


class Committer:
    """Changes of many games stored together: each :meth:`commit` waits for the transaction
    that stores its change with every other change that came while the one before was being
    written (one round trip for all, however many moves come at once)."""

    def __init__(self, write: Callable[[list[Shared]], Awaitable[list[bool]]]) -> None:
        self._write = write
        self._queue: list[tuple[Shared, asyncio.Future[bool]]] = []
        self._wake = asyncio.Event()
        self._task: asyncio.Task[None] | None = None
        self.batches = 0
        self.written = 0

    def start(self) -> None:
        self._task = asyncio.get_running_loop().create_task(self._run())

    async def close(self) -> None:
        if self._task is not None:
            self._task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._task
        for _, done in self._queue:
            if not done.done():
                done.cancel()

    async def commit(self, change: Shared) -> bool:
        """Whether ``change`` was stored (False: its game was not at the version it was made
        from); raises what the database raised."""
        done: asyncio.Future[bool] = asyncio.get_running_loop().create_future()
        self._queue.append((change, done))
        self._wake.set()
        return await done

    async def _run(self) -> None:
        while True:
            await self._wake.wait()
            self._wake.clear()
            while self._queue:
                batch, self._queue = self._queue, []
                try:
                    results = await self._write([change for change, _ in batch])
                except Exception as exc:  # every change of the batch is told
                    for _, done in batch:
                        if not done.done():
                            done.set_exception(exc)
                    continue
                self.batches += 1
                self.written += sum(results)
                for (_, done), written in zip(batch, results, strict=True):
                    if not done.done():
                        done.set_result(written)
