"""The one SQL helper of the storage: every difference between SQLite and PostgreSQL in one
place (:class:`Dialect`), and :class:`Sql`, a connection in a transaction that speaks it.

Each feature's store (:mod:`.games`, :mod:`.people`, :mod:`.daily`, :mod:`.lobby`) writes its
SQL once, with ``%s`` placeholders, against :class:`Sql`; a storage (:mod:`.sqlite`,
:mod:`.postgres`) only opens the transaction and hands it over.  What differs:

============================  ==================================  =====================================
                              SQLite                              PostgreSQL
============================  ==================================  =====================================
placeholders                  ``?``                               ``%s``
rows read to be changed       (``BEGIN IMMEDIATE`` holds the      ``FOR UPDATE``
                              file)
rows no other server pairs    (one server)                        ``FOR UPDATE SKIP LOCKED``
a lock on a name (a player,   (the file's)                        ``pg_advisory_xact_lock(hashtext(..))``
an address)
the database's time (s)       ``julianday('now')``                ``clock_timestamp()``
telling the other servers     nobody to tell                      ``pg_notify`` (at commit)
============================  ==================================  =====================================

Upserts (``INSERT ... ON CONFLICT``), ``RETURNING``, and booleans as ``0``/``1`` integers are
written the same on both (SQLite 3.35 or later).

>>> import sqlite3
>>> sql = Sql(sqlite3.connect(":memory:"), SQLITE)
>>> sql("SELECT %s + %s", (1, 2)).fetchone()
(3,)
>>> sql.marks(3), POSTGRESQL.lock
('%s, %s, %s', ' FOR UPDATE')
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class Dialect:
    """How one database says what differs."""

    name: str
    #: The placeholder of a query's arguments.
    mark: str
    #: After a ``SELECT`` of rows the transaction will change: keep others from changing them.
    lock: str
    #: After a ``SELECT`` of rows to take: skip those another transaction holds.
    skip_locked: str
    #: The database's time, in seconds since 1970.
    epoch: str
    #: Whether several servers share the database (advisory locks, notifications).
    shared: bool


SQLITE = Dialect("sqlite", "?", "", "", "((julianday('now') - 2440587.5) * 86400.0)", shared=False)
POSTGRESQL = Dialect(
    "postgresql",
    "%s",
    " FOR UPDATE",
    " FOR UPDATE SKIP LOCKED",
    "extract(epoch from clock_timestamp())",
    shared=True,
)


@dataclass
class Sql:
    """A connection in a transaction: queries written with ``%s`` run in its :class:`Dialect`."""

    conn: Any
    dialect: Dialect = POSTGRESQL

    @property
    def lock(self) -> str:
        return self.dialect.lock

    @property
    def epoch(self) -> str:
        return self.dialect.epoch

    def text(self, query: str) -> str:
        """``query`` in this database's placeholders."""
        mark = self.dialect.mark
        return query if mark == "%s" else query.replace("%s", mark)

    def __call__(self, query: str, args: Sequence[Any] = ()) -> Any:
        return self.conn.execute(self.text(query), tuple(args))

    def many(self, query: str, rows: Sequence[Sequence[Any]]) -> None:
        """``query`` once for each of ``rows``."""
        cursor = self.conn.cursor()
        try:
            cursor.executemany(self.text(query), [tuple(row) for row in rows])
        finally:
            cursor.close()

    @staticmethod
    def marks(count: int) -> str:
        """``count`` placeholders, for ``IN (...)``."""
        return ", ".join(["%s"] * count)

    def hold(self, name: str) -> None:
        """Hold a lock on ``name`` until the transaction ends (PostgreSQL; on SQLite the
        transaction holds the file)."""
        if self.dialect.shared:
            self("SELECT pg_advisory_xact_lock(hashtext(%s))", (name,))

    def notify(self, channel: str, payload: str) -> None:
        """Tell the other servers on ``channel`` when the transaction commits (nobody, alone)."""
        if self.dialect.shared:
            self("SELECT pg_notify(%s, %s)", (channel, payload))


__all__ = ["POSTGRESQL", "SQLITE", "Dialect", "Sql"]
