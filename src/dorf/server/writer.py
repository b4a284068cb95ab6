"""Moves written behind: a move is made and told at once, and stored as soon as the database lets.

The server keeps every game in use in memory, so a move does not need the
database to be answered.  :class:`Writer` takes each change of a game (a
decision, an undo) in order, and writes everything waiting in one
transaction: one commit for many moves when the server is busy, and when
another program holds the database file, the moves of games in memory are
still answered and written once the file is free again.

Two acknowledgements follow a move: ``ok`` (the move is made: every client
has been told) at once, and ``saved`` (``{"type": "saved", "version": V}``:
every change of the game up to version ``V`` is in the database), to the
client that made it, when the write has committed.  A move the server answered ``ok`` but not ``saved`` is
lost if the server process dies before the write; a saved one never is.

If the database refuses writes for longer than ``grace`` seconds, new moves
are refused (``storage``, HTTP 503) until it takes them again, so that
players do not go on far ahead of what is stored; what is waiting is kept and
written when the database comes back.  A write the database refuses for good
(not a lock or an I/O error: a broken constraint) is logged, and the game is
let go from memory so that it is read again as stored.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import sqlite3
import time
from collections import deque
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any

from dorf.server.protocol import ProtocolError
from dorf.server.storage import ChangeRow

log = logging.getLogger("dorf.server")

#: Changes of one game that may wait to be written; beyond that its moves are refused.
MAX_UNSAVED = 256
#: How long the writer lets changes gather before one transaction writes them all, in seconds:
#: at a person's pace one transaction a move would cost more than the rest of the move.
GATHER = 0.02
#: The longest pause between two tries of a write the database refused, in seconds.
MAX_PAUSE = 2.0


@dataclass
class Change:
    """One change of a game to store: decision ``number`` (``entry``), or an undo back to
    ``keep`` decisions (``entry`` None)."""

    game: Any
    version: int
    number: int
    seat: int
    entry: dict[str, Any] | None
    finished: bool = False
    keep: int = 0
    #: The client that made it (told once it is stored), if any.
    by: Any = None
    #: The key the client gave the move, if any.
    key: str | None = None

    def row(self) -> ChangeRow:
        """What the storage writes."""
        return ChangeRow(
            self.game.id, self.number, self.seat, self.entry, self.finished, self.keep, self.version, self.key
        )


class Writer:
    """The changes waiting to be stored, written in order by one task.

    ``write(rows)`` stores a batch in one transaction (run in the database thread);
    ``saved(game, version, clients)`` is told when a game's changes up to ``version`` are
    stored, with the clients that made them;
    ``lost(game, error)`` when the database refused one of them for good.
    """

    def __init__(
        self,
        write: Callable[[list[ChangeRow]], Awaitable[None]],
        saved: Callable[[Any, int, list[Any]], None],
        lost: Callable[[Any, Exception], None],
        grace: float,
    ) -> None:
        self._write = write
        self._saved = saved
        self._lost = lost
        self.grace = grace
        #: Seconds the writer waits for more changes before it writes (one transaction for all).
        self.gather = GATHER
        self._queue: deque[Change] = deque()
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

    def start(self) -> None:
        self._task = asyncio.get_running_loop().create_task(self._run())

    @property
    def waiting(self) -> int:
        return len(self._queue)

    def check(self, game: Any) -> None:
        """Raise ProtocolError (``storage``) if a new change of ``game`` may not be made now."""
        if self.trying_since is not None:
            failing = time.monotonic() - self.trying_since
            if failing > self.grace:
                raise ProtocolError(
                    "storage",
                    f"the move was not made: the database has taken no write for {failing:.0f} s "
                    f"({self.failure}); try again later",
                    503,
                )
        if game.unsaved >= MAX_UNSAVED:
            raise ProtocolError(
                "storage", f"the move was not made: {game.unsaved} moves of this game wait to be stored", 503
            )

    def add(self, change: Change) -> None:
        change.game.unsaved += 1
        self._queue.append(change)
        self._idle.clear()
        self._wake.set()

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
                    await self._write([change.row() for change in batch])
                except sqlite3.OperationalError as exc:  # locked, busy, I/O: try again
                    self._failing(exc)
                    await asyncio.sleep(pause)
                    pause = min(MAX_PAUSE, pause * 2)
                    continue
                except sqlite3.Error:  # refused for good: find which, write the rest
                    await self._one_by_one(batch)
                else:
                    self._done(batch)
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

    def _done(self, batch: list[Change]) -> None:
        last: dict[int, Change] = {}
        movers: dict[int, list[Any]] = {}
        for change in batch:
            self._queue.popleft()
            change.game.unsaved -= 1
            last[id(change.game)] = change
            by = movers.setdefault(id(change.game), [])
            if change.by is not None and change.by not in by:
                by.append(change.by)
        self.batches += 1
        self.written += len(batch)
        for key, change in last.items():
            self._saved(change.game, change.version, movers[key])

    async def _one_by_one(self, batch: list[Change]) -> None:
        for change in batch:
            try:
                await self._write([change.row()])
            except sqlite3.OperationalError as exc:
                self._failing(exc)
                return  # the rest stays queued, in order
            except sqlite3.Error as exc:
                self._queue.popleft()
                change.game.unsaved -= 1
                log.error("dorf: a change of game %s could not be stored: %s", change.game.id, exc)
                self._lost(change.game, exc)
                continue
            self._done([change])
