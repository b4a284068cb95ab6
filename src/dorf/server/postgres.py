"""Games kept in PostgreSQL, shared by several servers (``dorf serve --db postgresql://...``).

The tables and their migrations are those of :mod:`dorf.server.storage` (the
same steps run on both databases; ``schema_version`` says how many a database
has, and an advisory lock keeps two servers starting at once from both
migrating).  What only several servers need:

- **Changes by compare-and-set on the game's version.**  A change of a game
  is written only if the game is still at the version its server made it
  from (``UPDATE server_game SET version = v + 1 ... WHERE id = g AND version
  = v``, with the decision inserted and the other servers told by ``NOTIFY``
  in the same statement).  A change made from an older version writes
  nothing, and its server reads the game again and checks the move once
  more.  No lock is held between two statements, the changes of many games
  go in one transaction (:meth:`PostgresStorage.commit_changes`), and the
  rare loser (two seats of one game moving at the same moment from two
  servers) pays one more round trip.
- **Notifications** on the channel ``dorf_change``: sent by PostgreSQL at
  commit, in commit order, so a server never hears of a change that is not
  stored (:mod:`dorf.server.shared` listens).
- **Thinking leases**: which server thinks for a game's computer seats, until
  when (``thinker``, ``think_until``).
- **Presence**: the servers alive (``server_instance``, a heartbeat) and their
  clients (``server_client``), for the caps on spectators and on clients per
  address; **hits** counted by the creation limits (``server_hit``).

Times are the database's (``now()``), so servers whose clocks differ agree.
Any error of the connection is raised as :class:`~dorf.server.storage.Unavailable`
(the server answers ``storage``, HTTP 503, and tries again later); the next
call connects again.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from typing import Any, NamedTuple, TypeVar

from dorf.db import DatabaseError, statements
from dorf.server.storage import (
    DECISIONS_QUERY,
    GAME_QUERY,
    SCHEMA,
    SEATS_QUERY,
    ChangeRow,
    GameOver,
    StoredGame,
    Unavailable,
    decision_text,
    game_rows,
    now,
    seat_rows,
    stored_game,
)

try:
    import psycopg
except ImportError:  # pragma: no cover - the web extra installs it
    psycopg = None  # type: ignore[assignment]

T = TypeVar("T")

#: The channel on which servers tell each other of the changes they stored.
CHANNEL = "dorf_change"
#: The advisory lock held while the tables are migrated.
MIGRATION_LOCK = 7_413_201
#: The database's time, in seconds since 1970.
EPOCH = "extract(epoch from clock_timestamp())"


def is_url(db: object) -> bool:
    """Whether ``--db`` names a PostgreSQL database rather than a SQLite file."""
    return isinstance(db, str) and db.startswith(("postgresql://", "postgres://"))


class Shared(NamedTuple):
    """A change to commit: what is written, the version it was made from, the server that will
    think for the game's computer seats (if one must decide), and what other servers are told."""

    row: ChangeRow
    base: int
    thinker: str | None
    payload: str


_CHANGE = f"""
    UPDATE server_game SET version = %(version)s, updated = %(stamp)s, finished = %(finished)s,
        thinker = %(thinker)s, think_until = CASE WHEN %(thinker)s::text IS NULL THEN NULL
            ELSE {EPOCH} + %(lease)s END
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


class PostgresStorage:
    """The server's tables in a PostgreSQL database; used from one thread (the hub's)."""

    def __init__(self, url: str, *, lease: float = 15.0) -> None:
        if psycopg is None:
            raise DatabaseError("PostgreSQL needs psycopg: pip install 'dorf[web]'")
        self.url = url
        #: How long a server may think for a game's computer seats before another may.
        self.lease = lease
        self._conn: Any = None
        try:
            with self.transaction() as conn:
                conn.execute("SELECT pg_advisory_xact_lock(%s)", (MIGRATION_LOCK,))
                migrate(conn, "server", SCHEMA)
        except Unavailable as exc:
            raise DatabaseError(f"cannot use database {redact(url)}: {exc}") from None

    # --- the connection -------------------------------------------------------------

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
        (lost connection, timeout) or ``sqlite3.IntegrityError`` (a broken constraint)."""
        conn = self.connection()
        try:
            with conn.transaction():
                yield conn
        except psycopg.errors.IntegrityError as exc:
            raise GameOver(one_line(exc)) from None
        except psycopg.Error as exc:
            raise Unavailable(one_line(exc)) from None

    def close(self) -> None:
        if self._conn is not None:
            self._conn.close()

    # --- what every server does -------------------------------------------------------

    def create_game(self, game: StoredGame, thinker: str | None = None) -> None:
        with self.transaction() as conn:
            conn.execute(
                "INSERT INTO server_game (id, mode, tileset, seed, undo, practice, first, created, updated,"
                " seed_chosen, thinker, think_until)"
                f" VALUES (%s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s, {EPOCH} + %s)",
                (*game_rows(game), thinker, self.lease),
            )
            with conn.cursor() as cursor:
                cursor.executemany(
                    "INSERT INTO server_seat (game_id, seat, kind, name, player, token_hash, invite_hash)"
                    " VALUES (%s, %s, %s, %s, %s, %s, %s)",
                    seat_rows(game),
                )

    def load_game(self, game_id: str) -> StoredGame | None:
        """One stored game (one snapshot of its rows); None if there is none."""
        with self.transaction() as conn:
            conn.execute("SET TRANSACTION ISOLATION LEVEL REPEATABLE READ")
            row = conn.execute(GAME_QUERY, (game_id,)).fetchone()
            if row is None:
                return None
            seats = conn.execute(SEATS_QUERY, (game_id,)).fetchall()
            decisions = conn.execute(DECISIONS_QUERY, (game_id,)).fetchall()
        return stored_game(row, seats, decisions)

    def write_changes(self, rows: Sequence[tuple[Any, ...]]) -> None:
        """Changes written without comparing versions (one server alone on the database)."""
        stamp = now()
        with self.transaction() as conn:
            for change in (ChangeRow(*row) for row in rows):
                if change.decision is None:
                    conn.execute(
                        "DELETE FROM server_decision WHERE game_id = %s AND number > %s",
                        (change.game_id, change.keep),
                    )
                else:
                    conn.execute(
                        "INSERT INTO server_decision (game_id, number, seat, decision, made, key)"
                        " VALUES (%s, %s, %s, %s, %s, %s)",
                        (
                            change.game_id,
                            change.number,
                            change.seat,
                            decision_text(change.decision),
                            stamp,
                            change.key,
                        ),
                    )
                changed = conn.execute(
                    "UPDATE server_game SET updated = %s, finished = %s, version = greatest(version, %s)"
                    " WHERE id = %s AND finished = 0",
                    (stamp, int(change.finished), change.version, change.game_id),
                ).rowcount
                if changed != 1:
                    raise GameOver(f"game {change.game_id} is over or gone: it cannot change")

    def commit_changes(self, changes: list[Shared]) -> list[bool]:
        """Write changes of games in one transaction, each only if its game is still at the
        version it was made from: whether each was written (and the other servers told)."""
        stamp = now()
        conn = self.connection()
        try:
            with conn.pipeline(), conn.transaction():  # one round trip for all
                cursors = [
                    conn.execute(
                        UNDO if change.row.decision is None else DECIDE,
                        {
                            "id": change.row.game_id,
                            "base": change.base,
                            "version": change.row.version,
                            "stamp": stamp,
                            "finished": int(change.row.finished),
                            "thinker": change.thinker,
                            "lease": self.lease,
                            "number": change.row.number,
                            "seat": change.row.seat,
                            "decision": None
                            if change.row.decision is None
                            else decision_text(change.row.decision),
                            "key": change.row.key,
                            "keep": change.row.keep,
                            "payload": change.payload,
                        },
                    )
                    for change in changes
                ]
            return [cursor.fetchone() is not None for cursor in cursors]
        except psycopg.errors.IntegrityError as exc:
            raise GameOver(one_line(exc)) from None
        except psycopg.Error as exc:
            raise Unavailable(one_line(exc)) from None

    def claim_seat(self, game_id: str, seat: int, name: str, token_hash: str, payload: str = "") -> None:
        """An invited player takes a seat; the other servers are told (``payload``)."""
        with self.transaction() as conn:
            conn.execute(
                "UPDATE server_game SET version = version WHERE id = %s", (game_id,)
            )  # the game's row lock: a seat is claimed once
            taken = conn.execute(
                "UPDATE server_seat SET name = %s, token_hash = %s, invite_hash = NULL"
                " WHERE game_id = %s AND seat = %s AND invite_hash IS NOT NULL",
                (name, token_hash, game_id, seat),
            ).rowcount
            if taken != 1:
                raise GameOver("this seat was taken meanwhile (ask for a new link)")
            if payload:
                conn.execute("SELECT pg_notify(%s, %s)", (CHANNEL, payload))

    # --- what only several servers need ---------------------------------------------------------

    def versions(self, game_ids: list[str]) -> dict[str, int]:
        """The stored version of each of these games."""
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

    def seat_client(
        self,
        instance: str,
        client: int,
        address: str,
        game_id: str,
        role: str,
        decide: Callable[[int, int, int], T],
    ) -> T:
        """Count a client of this server as ``role`` if ``decide(holders, watching, spectators)``
        (its address's seat-holding clients and spectators, and the game's spectators, on every
        live server, itself aside) answers None; whatever it answers is returned."""
        with self.transaction() as conn:
            for lock in sorted((f"address:{address}", f"game:{game_id}")):  # two servers: one at a time
                conn.execute("SELECT pg_advisory_xact_lock(hashtext(%s))", (lock,))
            holders, watching, spectators = conn.execute(
                "SELECT count(*) FILTER (WHERE address = %s AND role = 'playing'),"
                " count(*) FILTER (WHERE address = %s AND role = 'watching'),"
                " count(*) FILTER (WHERE game_id = %s AND role = 'watching')"
                " FROM server_client WHERE NOT (instance = %s AND id = %s)",
                (address, address, game_id, instance, client),
            ).fetchone()
            answer = decide(holders, watching, spectators)
            if answer is None:
                conn.execute(
                    "INSERT INTO server_client (instance, id, address, game_id, role)"
                    " VALUES (%s, %s, %s, %s, %s)"
                    " ON CONFLICT (instance, id) DO UPDATE SET role = excluded.role",
                    (instance, client, address, game_id, role),
                )
            return answer

    def unseat_client(self, instance: str, client: int) -> None:
        with self.transaction() as conn:
            conn.execute("DELETE FROM server_client WHERE instance = %s AND id = %s", (instance, client))

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


def migrate(conn: Any, component: str, steps: tuple[str, ...]) -> int:
    """Apply the steps of ``component`` that the database lacks, inside the caller's transaction
    (PostgreSQL changes tables in transactions: all steps or none)."""
    conn.execute(
        "CREATE TABLE IF NOT EXISTS schema_version"
        " (component TEXT PRIMARY KEY, version INTEGER NOT NULL CHECK (version >= 0))"
    )
    row = conn.execute("SELECT version FROM schema_version WHERE component = %s", (component,)).fetchone()
    version = 0 if row is None else int(row[0])
    if version > len(steps):
        raise DatabaseError(f"the database's {component} tables are from a newer dorf (version {version})")
    for step in steps[version:]:
        for statement in statements(step):
            conn.execute(statement)
    conn.execute(
        "INSERT INTO schema_version (component, version) VALUES (%s, %s)"
        " ON CONFLICT (component) DO UPDATE SET version = excluded.version",
        (component, len(steps)),
    )
    return len(steps)


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


def json_payload(**fields: Any) -> str:
    """A notification's payload: compact JSON (at most 8000 bytes)."""
    return json.dumps(fields, separators=(",", ":"))


__all__ = ["CHANNEL", "PostgresStorage", "Shared", "is_url", "redact"]
