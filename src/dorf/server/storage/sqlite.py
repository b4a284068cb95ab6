"""One server's games in a SQLite file (the shared database of :mod:`dorf.db`, ``server_`` tables).

:class:`SqliteStorage` is the storage of a server alone on its file: a change is
made in memory and answered at once, and written behind (:mod:`writer`), the
changes of many games in one transaction.  The clients' counts and the
creation limits are this server's alone, so they are kept in memory, and the
server always thinks for its own computer seats.

:class:`SqliteTables` is the file itself, used from the storage's one thread:

>>> from dorf.server.storage.base import StoredSeat
>>> tables = SqliteTables(":memory:")
>>> tables.create_game(StoredGame("g1", "coop", "base", 7, False, "2026-01-01T00:00:00+00:00", False,
...     [StoredSeat(0, "here", "Ann", None, "h", None)], []))
>>> tables.write_changes([Change("g1", 1, MOVE, 0, 1, {"at": [0, 0], "rot": 0})])
>>> tables.load_game("g1").decisions
[{'at': [0, 0], 'rot': 0}]
"""

from __future__ import annotations

import asyncio
import logging
import secrets
import sqlite3
import time
from collections import deque
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from functools import partial
from pathlib import Path
from typing import Any, TypeVar

from dorf.db import connect, migrate, transaction
from dorf.server.storage.base import (
    END,
    MOVE,
    UNDO,
    Change,
    Client,
    DamagedGame,
    Decide,
    Refused,
    Storage,
    Stored,
    StoredGame,
    Unavailable,
    decision_text,
    now,
)
from dorf.server.storage.games import GamesTables
from dorf.server.storage.lobby import LobbyTables
from dorf.server.storage.schema import SCHEMA
from dorf.server.storage.sql import SQLITE, Sql
from dorf.server.storage.writer import Writer

T = TypeVar("T")
log = logging.getLogger("dorf.server")
#: The window of the creation limits, in seconds.
WINDOW = 60.0
#: Keys (addresses) a creation limit remembers at most; the oldest are forgotten first.
MAX_ADDRESSES = 10_000


def _errors(call: Callable[..., T]) -> Callable[..., T]:
    """``call`` with SQLite's errors raised as the storage's own: a locked or unreadable file as
    :class:`Unavailable`, a broken constraint as :class:`Refused`."""

    def run(*args: Any, **kwargs: Any) -> T:
        try:
            return call(*args, **kwargs)
        except sqlite3.IntegrityError as exc:
            raise Refused(str(exc)) from None
        except sqlite3.Error as exc:
            raise Unavailable(str(exc) or type(exc).__name__) from None

    return run


class CreationLimit:
    """At most ``per_minute`` requests under one key (an address) in any 60 seconds (0: no limit).

    >>> limit = CreationLimit(2)
    >>> limit.wait("1.2.3.4", 0.0), limit.wait("1.2.3.4", 1.0), limit.wait("1.2.3.4", 2.0)
    (None, None, 58.0)
    >>> limit.wait("5.6.7.8", 2.0), limit.wait("1.2.3.4", 60.5)
    (None, None)
    """

    def __init__(self, per_minute: int) -> None:
        self.per_minute = per_minute
        self._times: dict[str, deque[float]] = {}

    def wait(self, address: str, now: float) -> float | None:
        """None if ``address`` may create a game now (and counts it), else the seconds to wait."""
        if self.per_minute <= 0:
            return None
        times = self._times.pop(address, None) or deque()
        while times and times[0] <= now - WINDOW:
            times.popleft()
        self._times[address] = times  # the most recent address last
        if len(times) >= self.per_minute:
            return round(times[0] + WINDOW - now, 3)
        times.append(now)
        while len(self._times) > MAX_ADDRESSES:
            del self._times[next(iter(self._times))]
        return None


class SqliteTables:
    """The server's tables in one database file (``:memory:`` for tests); used from one thread."""

    def __init__(self, path: str | Path | None) -> None:
        self.conn = connect(path)
        # WAL with synchronous=NORMAL: a commit survives a crash of the server process
        # (the case that matters here) without an fsync per move.
        self.conn.execute("PRAGMA synchronous = NORMAL")
        migrate(self.conn, "server", SCHEMA, logger=log)

    def close(self) -> None:
        self.conn.close()

    def create_game(self, game: StoredGame) -> None:
        with transaction(self.conn):
            GamesTables.create(Sql(self.conn, SQLITE), game, None, 0.0)

    def write_changes(self, changes: Sequence[Change]) -> None:
        """Write changes of games in order, all in one transaction (all or nothing); a change to a
        finished game is refused (``sqlite3.IntegrityError``), the whole batch with it."""
        stamp = now()
        touched: dict[str, tuple[bool, int]] = {}
        with transaction(self.conn):
            for change in changes:
                game_id = change.game
                if touched.get(game_id, (False, 0))[0]:
                    raise sqlite3.IntegrityError(f"game {game_id} is over: a finished game never changes")
                if change.kind == MOVE:
                    assert change.decision is not None
                    self.conn.execute(
                        "INSERT INTO server_decision (game_id, number, seat, decision, made, key)"
                        " VALUES (?, ?, ?, ?, ?, ?)",
                        (
                            game_id,
                            change.number,
                            change.seat,
                            decision_text(change.decision),
                            stamp,
                            change.key,
                        ),
                    )
                elif change.kind == UNDO:
                    self.conn.execute(
                        "DELETE FROM server_decision WHERE game_id = ? AND number > ?", (game_id, change.keep)
                    )
                if change.clock is not None or change.kind == END:  # the clock, and an end by it
                    self.set_clock(game_id, change)
                touched[game_id] = (change.kind in (MOVE, END) and change.finished, change.version)
            for game_id, (done, version) in touched.items():  # and a finished game refuses them all
                changed = self.conn.execute(
                    "UPDATE server_game SET updated = ?, finished = ?, version = max(version, ?)"
                    " WHERE id = ? AND finished = 0",
                    (stamp, int(done), version, game_id),
                ).rowcount
                if changed != 1:
                    self._unfinished(game_id)  # raises why
                    raise sqlite3.IntegrityError(f"game {game_id} could not be changed")

    def claim_seat(self, change: Change, name: str, token_hash: str, player_id: str | None) -> None:
        """An invited player takes a seat: the invitation is used up, the token set (once)."""
        with transaction(self.conn):
            GamesTables.claim_seat(Sql(self.conn, SQLITE), change, name, token_hash, player_id)

    def set_clock(self, game_id: str, change: Change) -> None:
        """Store a game's clock and deadline as of ``change``, and an end other than by its last
        decision (time, resign, abort)."""
        self.conn.execute(
            "UPDATE server_game SET clock_state = coalesce(?, clock_state), deadline = ?,"
            " end_reason = coalesce(?, end_reason), end_winner = coalesce(?, end_winner)"
            " WHERE id = ? AND finished = 0",
            (change.clock, change.deadline, change.end, change.winner, game_id),
        )

    def deadlines(self) -> list[tuple[str, float, int]]:
        return GamesTables.deadlines(Sql(self.conn, SQLITE))

    def _unfinished(self, game_id: str) -> None:
        row = self.conn.execute("SELECT finished FROM server_game WHERE id = ?", (game_id,)).fetchone()
        if row is None:
            raise sqlite3.IntegrityError(f"there is no game {game_id}")
        if row[0]:
            raise sqlite3.IntegrityError(f"game {game_id} is over: a finished game never changes")

    def people(self, work: Callable[..., T], *args: Any) -> T:
        """``work(sql, *args)`` in one transaction (players and ratings: storage/people.py)."""
        with transaction(self.conn):
            return work(Sql(self.conn, SQLITE), *args)

    def load_game(self, game_id: str) -> StoredGame | None:
        """One stored game with its seats and decisions; None if there is none.  Raises
        :class:`DamagedGame` if its rows cannot be read, sqlite3.OperationalError if the file
        cannot be read now (locked, gone)."""
        try:
            # Only this server's database thread writes the server's tables: no snapshot needed.
            return GamesTables.load(Sql(self.conn, SQLITE), game_id)
        except sqlite3.OperationalError:
            raise
        except sqlite3.DatabaseError as exc:
            raise DamagedGame(f"its rows in the database file are damaged ({exc})") from None


class SqliteStorage(Storage):
    """A server alone on a SQLite file: changes written behind, clients and limits counted here."""

    #: Nobody else thinks for this server's games: its lease never runs out.
    lease = float("inf")
    dialect = SQLITE

    def __init__(self, path: str | Path | None, grace: float = 20.0) -> None:
        self.path = path
        self.instance = secrets.token_hex(6)
        self._thread = ThreadPoolExecutor(1, thread_name_prefix="dorf-db")
        self.tables: SqliteTables | None = None
        self.writer = Writer(self._write, grace)
        self._clients: dict[tuple[str, int], Client] = {}
        self._limits: dict[int, CreationLimit] = {}

    async def run(self, call: Callable[..., T], *args: Any) -> T:
        """``call(*args)`` in the database's thread (SQLite's errors as the storage's own)."""
        loop = asyncio.get_running_loop()
        return await loop.run_in_executor(self._thread, partial(_errors(call), *args))

    async def start(self) -> None:
        self.tables = await self.run(SqliteTables, self.path)
        await self.people(LobbyTables.alone, self.instance)
        self.writer.start()

    async def close(self) -> None:
        await self.writer.close(timeout=10.0)
        if self.tables is not None:
            await self.run(self.tables.close)
        self._thread.shutdown(wait=True)

    @property
    def _tables(self) -> SqliteTables:
        assert self.tables is not None, "the storage has not started"
        return self.tables

    async def _write(self, changes: list[Change]) -> None:
        await self.run(self._tables.write_changes, changes)

    def counts(self) -> dict[str, int]:
        writer = self.writer
        return {"transactions": writer.batches, "changes": writer.written, "waiting": writer.waiting}

    def time_writes(self, timed: Callable[[float], None]) -> None:
        self.writer.timed = timed

    async def people(self, work: Callable[..., T], *args: Any) -> T:
        return await self.run(self._tables.people, work, *args)

    async def create_game(self, game: StoredGame, thinker: str | None) -> bool:
        await self.run(self._tables.create_game, game)
        return True

    async def load_game(self, game_id: str) -> StoredGame | None:
        return await self.run(self._tables.load_game, game_id)

    def check(self, unsaved: int) -> None:
        self.writer.check(unsaved)

    async def commit(self, change: Change) -> Stored:
        return Stored(True, self.writer.add(change))

    async def claim_seat(
        self, change: Change, name: str, token_hash: str, player_id: str | None = None
    ) -> None:
        await self.run(self._tables.claim_seat, change, name, token_hash, player_id)

    async def claim_thinking(self, game_id: str, version: int) -> bool:
        return True

    async def deadlines(self) -> list[tuple[str, float, int]]:
        return await self.run(self._tables.deadlines)

    async def versions(self, game_ids: list[str]) -> dict[str, int]:
        return {}  # nobody else changes this server's games

    async def admit(self, client: Client, decide: Decide[T]) -> T:
        holders = watching = spectators = 0
        for other in self._clients.values():
            if (other.instance, other.number) == (client.instance, client.number):
                continue
            if other.address == client.address:
                holders += other.role == "playing"
                watching += other.role == "watching"
            spectators += other.game == client.game and other.role == "watching"
        answer = decide(holders, watching, spectators)
        if answer is None:
            self._clients[client.instance, client.number] = client
        return answer

    async def leave(self, client: Client) -> None:
        self._clients.pop((client.instance, client.number), None)

    async def hit(self, key: str, per_minute: int) -> float | None:
        limit = self._limits.get(per_minute)
        if limit is None:
            limit = self._limits[per_minute] = CreationLimit(per_minute)
        return limit.wait(key, time.monotonic())
