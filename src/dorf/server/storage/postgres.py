"""Games kept in PostgreSQL, shared by several servers (``dorf serve --db postgresql://...``).

The tables and their migrations are those of :mod:`dorf.server.storage.schema`
(the same steps run on both databases; ``schema_version`` says how many a
database has, and an advisory lock keeps two servers starting at once from
both migrating).  What several servers need:

- **Changes by compare-and-set on the game's version.**  A change of a game
  is written only if the game is still at the version its server made it
  from (``UPDATE server_game SET version = v + 1 ... WHERE id = g AND version
  = v``, with the decision inserted and the other servers told by ``NOTIFY``
  in the same statement).  A change made from an older version writes
  nothing (:class:`~dorf.server.storage.base.Conflict`), and its server reads
  the game again and checks the move once more.  No lock is held between two
  statements, the changes of many games go in one transaction and one round
  trip (:class:`Committer`), and the rare loser (two seats of one game moving
  at the same moment from two servers) pays one more round trip.
- **Notifications** on the channel ``dorf_change``: sent by PostgreSQL at
  commit, in commit order, so a server never hears of a change that is not
  stored (:mod:`dorf.server.storage.bus` listens).
- **Thinking leases**: which server thinks for a game's computer seats, until
  when (``thinker``, ``think_until``).
- **Presence**: the servers alive (``server_instance``, a heartbeat every
  :data:`HEARTBEAT` seconds) and their clients (``server_client``), for the
  caps on spectators and on clients per address; **hits** counted by the
  creation limits (``server_hit``).

Times are the database's (``now()``), so servers whose clocks differ agree.
Any error of the connection is raised as :class:`~dorf.server.storage.base.Unavailable`
(the server answers ``storage``, HTTP 503, and tries again later; the next
call connects again), a broken constraint as :class:`~dorf.server.storage.base.Refused`.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import secrets
import time
from collections.abc import Awaitable, Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager
from functools import partial
from typing import Any, TypeVar

from dorf.db import DatabaseError, migrate
from dorf.server.storage.base import (
    END,
    MOVE,
    Change,
    Client,
    Conflict,
    Decide,
    Refused,
    Storage,
    Stored,
    StoredGame,
    Unavailable,
    decision_text,
    now,
)
from dorf.server.storage.games import CHANNEL, GamesTables
from dorf.server.storage.schema import SCHEMA
from dorf.server.storage.sql import POSTGRESQL, Sql

try:
    import psycopg
except ImportError:  # pragma: no cover - the web extra installs it
    psycopg = None  # type: ignore[assignment]

log = logging.getLogger("dorf.server")
T = TypeVar("T")

#: The advisory lock held while the tables are migrated.
MIGRATION_LOCK = 7_413_201
#: The database's time, in seconds since 1970.
EPOCH = "extract(epoch from clock_timestamp())"
#: How often a server says it is alive, and after how long without a word its clients are no
#: longer counted, in seconds.
HEARTBEAT, DEAD_AFTER = 5.0, 20.0


def is_url(db: object) -> bool:
    """Whether ``--db`` names a PostgreSQL database rather than a SQLite file."""
    return isinstance(db, str) and db.startswith(("postgresql://", "postgres://"))


_CHANGE = f"""
    UPDATE server_game SET version = %(version)s, updated = %(stamp)s, finished = %(finished)s,
        thinker = %(thinker)s, think_until = CASE WHEN %(thinker)s::text IS NULL THEN NULL
            ELSE {EPOCH} + %(lease)s END,
        clock_state = coalesce(%(clock)s, clock_state),
        deadline = CASE WHEN %(clock)s::text IS NULL THEN deadline ELSE %(deadline)s::double precision END,
        end_reason = coalesce(%(end)s, end_reason), end_winner = coalesce(%(winner)s::integer, end_winner)
    WHERE id = %(id)s AND version = %(base)s AND finished = 0 RETURNING id
"""
DECIDE = f"""
    WITH g AS ({_CHANGE}),
    d AS (INSERT INTO server_decision (game_id, number, seat, decision, made, key)
          SELECT id, %(number)s, %(seat)s, %(decision)s, %(stamp)s, %(key)s FROM g)
    SELECT pg_notify('{CHANNEL}', %(payload)s) FROM g
"""
UNDO = f"""
    WITH g AS ({_CHANGE}),
    d AS (DELETE FROM server_decision WHERE game_id IN (SELECT id FROM g) AND number > %(keep)s)
    SELECT pg_notify('{CHANNEL}', %(payload)s) FROM g
"""
#: A game ended by time, resign or abort (round/finisher.py), by compare-and-set: of several servers
#: whose timers see a clock run out, exactly one stores the end.
STATEMENTS = {MOVE: DECIDE, END: f"WITH g AS ({_CHANGE}) SELECT pg_notify('{CHANNEL}', %(payload)s) FROM g"}


class PostgresTables:
    """The server's tables in a PostgreSQL database; used from one thread (the storage's)."""

    def __init__(self, url: str, lease: float) -> None:
        if psycopg is None:
            raise DatabaseError("PostgreSQL needs psycopg: pip install 'dorf-games[web]'")
        self.url = url
        self.lease = lease
        self._conn: Any = None
        try:
            with self.transaction() as conn:
                conn.execute("SELECT pg_advisory_xact_lock(%s)", (MIGRATION_LOCK,))
                migrate(conn, "server", SCHEMA, mark="%s", step=contextlib.nullcontext, logger=log)
        except Unavailable as exc:
            raise DatabaseError(f"cannot use database {redact(url)}: {exc}") from None

    def connection(self) -> Any:
        """The connection, opened again if it was lost."""
        if self._conn is None or self._conn.closed or self._conn.broken:
            try:
                self._conn = psycopg.connect(self.url, autocommit=True, connect_timeout=5)
            except psycopg.Error as exc:
                raise Unavailable(one_line(exc)) from None
        return self._conn

    @contextmanager
    def transaction(self) -> Iterator[Any]:
        """A transaction on the connection; a database error raised as :class:`Unavailable`
        (lost connection, timeout) or :class:`Refused` (a broken constraint)."""
        conn = self.connection()
        try:
            with conn.transaction():
                yield conn
        except psycopg.errors.IntegrityError as exc:
            raise Refused(one_line(exc)) from None
        except psycopg.Error as exc:
            raise Unavailable(one_line(exc)) from None

    def close(self) -> None:
        if self._conn is not None:
            self._conn.close()

    def create_game(self, game: StoredGame, thinker: str | None) -> None:
        with self.transaction() as conn:
            GamesTables.create(Sql(conn, POSTGRESQL), game, thinker, self.lease)

    def load_game(self, game_id: str) -> StoredGame | None:
        """One stored game (one snapshot of its rows); None if there is none."""
        with self.transaction() as conn:
            conn.execute("SET TRANSACTION ISOLATION LEVEL REPEATABLE READ")
            return GamesTables.load(Sql(conn, POSTGRESQL), game_id)

    def commit_changes(self, changes: list[Change]) -> list[bool]:
        """Write changes of games in one transaction, each only if its game is still at the
        version it was made from: whether each was written (and the other servers told)."""
        stamp = now()
        conn = self.connection()
        try:
            with conn.pipeline(), conn.transaction():  # one round trip for all
                cursors = [
                    conn.execute(
                        STATEMENTS.get(change.kind, UNDO),
                        {
                            "id": change.game,
                            "base": change.version - 1,
                            "version": change.version,
                            "stamp": stamp,
                            "finished": int(change.finished),
                            "thinker": change.thinker,
                            "lease": self.lease,
                            "number": change.number,
                            "seat": change.seat,
                            "decision": None if change.decision is None else decision_text(change.decision),
                            "key": change.key,
                            "keep": change.keep,
                            "payload": change.payload(),
                            "clock": change.clock,
                            "deadline": change.deadline,
                            "end": change.end,
                            "winner": change.winner,
                        },
                    )
                    for change in changes
                ]
            return [cursor.fetchone() is not None for cursor in cursors]
        except psycopg.errors.IntegrityError as exc:
            raise Refused(one_line(exc)) from None
        except psycopg.Error as exc:
            raise Unavailable(one_line(exc)) from None

    def claim_seat(self, change: Change, name: str, token_hash: str, player_id: str | None) -> None:
        """An invited player takes a seat, once; the game's version counts it and the other
        servers are told."""
        with self.transaction() as conn:
            conn.execute(  # the game's row lock: a seat is claimed once
                "UPDATE server_game SET version = version + 1 WHERE id = %s", (change.game,)
            )
            GamesTables.claim_seat(Sql(conn, POSTGRESQL), change, name, token_hash, player_id)

    def people(self, work: Callable[..., T], *args: Any) -> T:
        """``work(sql, *args)`` in one transaction (players and ratings: storage/people.py)."""
        with self.transaction() as conn:
            return work(Sql(conn, POSTGRESQL), *args)

    def deadlines(self) -> list[tuple[str, float, int]]:
        with self.transaction() as conn:
            return GamesTables.deadlines(Sql(conn, POSTGRESQL))

    def versions(self, game_ids: list[str]) -> dict[str, int]:
        with self.transaction() as conn:
            rows = conn.execute(
                "SELECT id, version FROM server_game WHERE id = ANY(%s)", (game_ids,)
            ).fetchall()
        return {gid: version for gid, version in rows}

    def claim_thinking(self, game_id: str, version: int, instance: str) -> bool:
        """Take the lease to think for a game's computer seats at ``version``: only if nobody
        holds it, or its holder let it run out (it stopped, or died)."""
        with self.transaction() as conn:
            return bool(
                conn.execute(
                    f"UPDATE server_game SET thinker = %s, think_until = {EPOCH} + %s"
                    " WHERE id = %s AND version = %s AND finished = 0"
                    f" AND (thinker IS NULL OR thinker = %s OR think_until < {EPOCH})",
                    (instance, self.lease, game_id, version, instance),
                ).rowcount
            )

    def heartbeat(self, instance: str, dead_after: float) -> None:
        """This server is alive; forget the clients of servers silent for ``dead_after`` seconds,
        and the creation limits' hits older than a minute."""
        with self.transaction() as conn:
            conn.execute(
                f"INSERT INTO server_instance (id, seen) VALUES (%s, {EPOCH})"
                " ON CONFLICT (id) DO UPDATE SET seen = excluded.seen",
                (instance,),
            )
            conn.execute(
                "DELETE FROM server_client WHERE instance IN"
                f" (SELECT id FROM server_instance WHERE seen < {EPOCH} - %s)",
                (dead_after,),
            )
            conn.execute(f"DELETE FROM server_instance WHERE seen < {EPOCH} - %s", (dead_after,))
            conn.execute(f"DELETE FROM server_hit WHERE at < {EPOCH} - 60")

    def leave(self, instance: str) -> None:
        """This server stops: its clients are gone, and the games it thought for may be thought
        for by another at once (not once its leases run out)."""
        with self.transaction() as conn:
            conn.execute("DELETE FROM server_client WHERE instance = %s", (instance,))
            conn.execute("DELETE FROM server_instance WHERE id = %s", (instance,))
            conn.execute(
                "UPDATE server_game SET thinker = NULL, think_until = NULL WHERE thinker = %s", (instance,)
            )

    def admit(self, client: Client, decide: Decide[T]) -> T:
        """Count ``client`` if ``decide(holders, watching, spectators)`` (its address's seat-holding
        clients and spectators, and the game's spectators, on every live server, itself aside)
        answers None; whatever it answers is returned."""
        with self.transaction() as conn:
            for lock in sorted((f"address:{client.address}", f"game:{client.game}")):  # one at a time
                conn.execute("SELECT pg_advisory_xact_lock(hashtext(%s))", (lock,))
            holders, watching, spectators = conn.execute(
                "SELECT count(*) FILTER (WHERE address = %s AND role = 'playing'),"
                " count(*) FILTER (WHERE address = %s AND role = 'watching'),"
                " count(*) FILTER (WHERE game_id = %s AND role = 'watching')"
                " FROM server_client WHERE NOT (instance = %s AND id = %s)",
                (client.address, client.address, client.game, client.instance, client.number),
            ).fetchone()
            answer = decide(holders, watching, spectators)
            if answer is None:
                conn.execute(
                    "INSERT INTO server_client (instance, id, address, game_id, role)"
                    " VALUES (%s, %s, %s, %s, %s)"
                    " ON CONFLICT (instance, id) DO UPDATE SET role = excluded.role",
                    (client.instance, client.number, client.address, client.game, client.role),
                )
            return answer

    def leave_client(self, client: Client) -> None:
        with self.transaction() as conn:
            conn.execute(
                "DELETE FROM server_client WHERE instance = %s AND id = %s", (client.instance, client.number)
            )

    def hit(self, key: str, per_minute: int) -> float | None:
        """Count a request under ``key`` unless ``per_minute`` were counted in the last minute:
        None if counted, else the seconds to wait."""
        with self.transaction() as conn:
            conn.execute("SELECT pg_advisory_xact_lock(hashtext(%s))", (key,))
            count, wait = conn.execute(
                f"SELECT count(*), min(at) + 60 - {EPOCH} FROM server_hit"
                f" WHERE key = %s AND at > {EPOCH} - 60",
                (key,),
            ).fetchone()
            if count >= per_minute:
                return round(max(0.0, float(wait)), 3)
            conn.execute(f"INSERT INTO server_hit (key, at) VALUES (%s, {EPOCH})", (key,))
            return None


class Committer:
    """Changes of many games stored together: each :meth:`commit` waits for the transaction
    that stores its change with every other change that came while the one before was being
    written (one round trip for all, however many moves come at once)."""

    def __init__(self, write: Callable[[list[Change]], Awaitable[list[bool]]]) -> None:
        self._write = write
        self._queue: list[tuple[Change, asyncio.Future[bool]]] = []
        self._wake = asyncio.Event()
        self._task: asyncio.Task[None] | None = None
        self.batches = 0
        self.written = 0
        #: Told the seconds of each transaction's try (``/metrics``), if set.
        self.timed: Callable[[float], None] | None = None

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

    async def commit(self, change: Change) -> bool:
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
                start = time.perf_counter()
                try:
                    results = await self._write([change for change, _ in batch])
                except Exception as exc:  # every change of the batch is told
                    self._timed(start)
                    for _, done in batch:
                        if not done.done():
                            done.set_exception(exc)
                    continue
                self._timed(start)
                self.batches += 1
                self.written += sum(results)
                for (_, done), written in zip(batch, results, strict=True):
                    if not done.done():
                        done.set_result(written)

    def _timed(self, start: float) -> None:
        if self.timed is not None:
            self.timed(time.perf_counter() - start)


class PostgresStorage(Storage):
    """Servers sharing one PostgreSQL database: changes stored first, by compare-and-set."""

    dialect = POSTGRESQL

    def __init__(self, url: str, *, lease: float = 15.0) -> None:
        self.url = url
        self.instance = secrets.token_hex(6)
        #: How long a server may think for a game's computer seats before another may.
        self.lease = lease
        self._thread = ThreadPoolExecutor(1, thread_name_prefix="dorf-db")
        self.tables: PostgresTables | None = None
        self.committer = Committer(self._commit_changes)
        self._beat: asyncio.Task[None] | None = None

    async def run(self, call: Callable[..., T], *args: Any) -> T:
        """``call(*args)`` in the database's thread."""
        return await asyncio.get_running_loop().run_in_executor(self._thread, partial(call, *args))

    @property
    def _tables(self) -> PostgresTables:
        assert self.tables is not None, "the storage has not started"
        return self.tables

    async def start(self) -> None:
        self.tables = await self.run(PostgresTables, self.url, self.lease)
        await self.run(self._tables.heartbeat, self.instance, DEAD_AFTER)
        self._beat = asyncio.get_running_loop().create_task(self._heartbeat())
        self.committer.start()

    async def close(self) -> None:
        if self._beat is not None:
            self._beat.cancel()
        await self.committer.close()
        if self.tables is not None:
            with contextlib.suppress(Unavailable):
                await self.run(self.tables.leave, self.instance)
            await self.run(self.tables.close)
        self._thread.shutdown(wait=True)

    async def _heartbeat(self) -> None:
        """Say now and then that this server is alive; forget the clients of servers that died."""
        while True:
            await asyncio.sleep(HEARTBEAT)
            try:
                await self.run(self._tables.heartbeat, self.instance, DEAD_AFTER)
            except Unavailable as exc:
                log.warning("dorf: the heartbeat was not stored: %s", exc)

    async def _commit_changes(self, changes: list[Change]) -> list[bool]:
        return await self.run(self._tables.commit_changes, changes)

    def counts(self) -> dict[str, int]:
        return {"transactions": self.committer.batches, "changes": self.committer.written, "waiting": 0}

    def time_writes(self, timed: Callable[[float], None]) -> None:
        self.committer.timed = timed

    async def people(self, work: Callable[..., T], *args: Any) -> T:
        return await self.run(self._tables.people, work, *args)

    async def create_game(self, game: StoredGame, thinker: str | None) -> bool:
        await self.run(self._tables.create_game, game, thinker)
        return thinker is not None

    async def load_game(self, game_id: str) -> StoredGame | None:
        return await self.run(self._tables.load_game, game_id)

    def check(self, unsaved: int) -> None:
        """Nothing waits to be written here: a change is stored before it is answered."""

    async def commit(self, change: Change) -> Stored:
        change.origin = self.instance
        if not await self.committer.commit(change):
            raise Conflict(f"game {change.game} changed meanwhile")
        saved: asyncio.Future[int] = asyncio.get_running_loop().create_future()
        saved.set_result(change.version)
        return Stored(change.thinker is not None, saved)

    async def claim_seat(
        self, change: Change, name: str, token_hash: str, player_id: str | None = None
    ) -> None:
        change.origin = self.instance
        await self.run(self._tables.claim_seat, change, name, token_hash, player_id)

    async def claim_thinking(self, game_id: str, version: int) -> bool:
        return await self.run(self._tables.claim_thinking, game_id, version, self.instance)

    async def deadlines(self) -> list[tuple[str, float, int]]:
        return await self.run(self._tables.deadlines)

    async def versions(self, game_ids: list[str]) -> dict[str, int]:
        return await self.run(self._tables.versions, game_ids)

    async def admit(self, client: Client, decide: Decide[T]) -> T:
        return await self.run(self._tables.admit, client, decide)

    async def leave(self, client: Client) -> None:
        await self.run(self._tables.leave_client, client)

    async def hit(self, key: str, per_minute: int) -> float | None:
        return await self.run(self._tables.hit, key, per_minute)


def one_line(exc: BaseException) -> str:
    """A database error in one line, without the connection's password."""
    text = " ".join(str(exc).split()) or type(exc).__name__
    return text


def redact(url: str) -> str:
    """A database URL without its password.

    >>> redact("postgresql://dorf:secret@db.example:5432/dorf")
    'postgresql://dorf:***@db.example:5432/dorf'
    """
    head, sep, tail = url.partition("://")
    if "@" not in tail:
        return url
    who, _, where = tail.rpartition("@")
    user, colon, _ = who.partition(":")
    return f"{head}{sep}{user}{':***' if colon else ''}@{where}"
