"""Moves written behind: a move is made and told at once, and stored as soon as the database lets.

A server alone on its SQLite file keeps every game in use in memory, so a move
does not need the database to be answered.  :class:`Writer` takes each change
of a game (a decision, an undo) in order, and writes everything waiting in one
transaction: one commit for many moves when the server is busy, and when
another program holds the database file, the moves of games in memory are
still answered and written once the file is free again.

:meth:`Writer.add` answers a future for each change: done with the change's
version once it is in the database, or failed with :class:`Refused` if the
database refused it for good (not a lock or an I/O error: a broken
constraint).  The hub sends ``saved`` (``{"type": "saved", "version": V}``) to
the client that made the change when it is done; a move the server answered
``ok`` but not ``saved`` is lost if the server process dies before the write; a
saved one never is.

If the database refuses writes for longer than ``grace`` seconds, new moves
are refused (:meth:`Writer.check`: ``storage``, HTTP 503) until it takes them
again, so that players do not go on far ahead of what is stored; what is
waiting is kept and written when the database comes back.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from collections import deque
from collections.abc import Awaitable, Callable

from dorf.server.storage.base import Change, Refused, StorageError, Unavailable

log = logging.getLogger("dorf.server")

#: Changes of one game that may wait to be written; beyond that its moves are refused.
MAX_UNSAVED = 256
#: How long the writer lets changes gather before one transaction writes them all, in seconds:
#: at a person's pace one transaction a move would cost more than the rest of the move.
GATHER = 0.02
#: The longest pause between two tries of a write the database refused, in seconds.
MAX_PAUSE = 2.0


class Writer:
    """The changes waiting to be stored, written in order by one task: ``write(changes)`` stores
    a batch in one transaction (:class:`Unavailable`: try again; :class:`Refused`: for good)."""

    def __init__(self, write: Callable[[list[Change]], Awaitable[None]], grace: float) -> None:
        self._write = write
        self.grace = grace
        #: Seconds the writer waits for more changes before it writes (one transaction for all).
        self.gather = GATHER
        self._queue: deque[tuple[Change, asyncio.Future[int]]] = deque()
        self._wake = asyncio.Event()
        self._idle = asyncio.Event()
        self._idle.set()
        self._task: asyncio.Task[None] | None = None
        #: Since when the changes waiting first have been tried (time.monotonic()), or None: a
        #: write waits for a locked file for seconds before the database says it is locked.
        self.trying_since: float | None = None
        self.failure = "it is busy"
        self.batches = 0
        self.written = 0
        #: Told the seconds of each try to write a transaction (``/metrics``), if set.
        self.timed: Callable[[float], None] | None = None

    def start(self) -> None:
        self._task = asyncio.get_running_loop().create_task(self._run())

    async def _store(self, changes: list[Change]) -> None:
        """Write ``changes`` in one transaction, timed."""
        start = time.perf_counter()
        try:
            await self._write(changes)
        finally:
            if self.timed is not None:
                self.timed(time.perf_counter() - start)

    @property
    def waiting(self) -> int:
        return len(self._queue)

    def check(self, unsaved: int) -> None:
        """Raise :class:`Unavailable` if a new change of a game with ``unsaved`` changes waiting
        may not be made now."""
        if self.trying_since is not None:
            failing = time.monotonic() - self.trying_since
            if failing > self.grace:
                raise Unavailable(
                    f"the database has taken no write for {failing:.0f} s ({self.failure}); try again later"
                )
        if unsaved >= MAX_UNSAVED:
            raise Unavailable(f"{unsaved} moves of this game wait to be stored")

    def add(self, change: Change) -> asyncio.Future[int]:
        """Queue ``change``; the future is done once it is stored (or refused for good)."""
        saved: asyncio.Future[int] = asyncio.get_running_loop().create_future()
        self._queue.append((change, saved))
        self._idle.clear()
        self._wake.set()
        return saved

    async def flush(self, timeout: float) -> bool:
        """Wait until everything is written (at most ``timeout`` seconds): whether it was."""
        try:
            await asyncio.wait_for(self._idle.wait(), timeout)
        except TimeoutError:
            return False
        return True

    async def close(self, timeout: float) -> None:
        """Write what waits (at most ``timeout`` seconds), then stop."""
        if not await self.flush(timeout):
            log.error("dorf: %d changes could not be stored before the server stopped", len(self._queue))
        if self._task is not None:
            self._task.cancel()
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await self._task
        for _, saved in self._queue:
            saved.cancel()

    async def _run(self) -> None:
        pause = 0.05
        while True:
            await self._wake.wait()
            await asyncio.sleep(self.gather)  # let the changes of the next moments join this write
            self._wake.clear()
            while self._queue:
                batch = list(self._queue)
                if self.trying_since is None:
                    self.trying_since = time.monotonic()
                try:
                    await self._store([change for change, _ in batch])
                except Unavailable as exc:  # locked, busy, I/O: try again
                    self._failing(exc)
                    await asyncio.sleep(pause)
                    pause = min(MAX_PAUSE, pause * 2)
                    continue
                except StorageError:  # refused for good: find which, write the rest
                    await self._one_by_one(batch)
                else:
                    self._done(len(batch))
                pause = 0.05
                if self.failure != "it is busy":
                    log.warning("dorf: the database takes writes again")
                    self.failure = "it is busy"
                self.trying_since = None
            self._idle.set()

    def _failing(self, exc: Exception) -> None:
        if self.failure == "it is busy":
            log.warning("dorf: the database refuses writes (%s): moves wait in memory", exc)
        self.failure = str(exc) or type(exc).__name__

    def _done(self, count: int) -> None:
        for _ in range(count):
            change, saved = self._queue.popleft()
            if not saved.done():
                saved.set_result(change.version)
        self.batches += 1
        self.written += count

    async def _one_by_one(self, batch: list[tuple[Change, asyncio.Future[int]]]) -> None:
        for change, saved in batch:
            try:
                await self._store([change])
            except Unavailable as exc:
                self._failing(exc)
                return  # the rest stays queued, in order
            except StorageError as exc:
                self._queue.popleft()
                log.error("dorf: a change of game %s could not be stored: %s", change.game, exc)
                if not saved.done():
                    saved.set_exception(exc if isinstance(exc, Refused) else Refused(str(exc)))
                continue
            self._done(1)
