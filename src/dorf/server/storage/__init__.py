"""Where the server keeps its games: one interface (:mod:`.base`), one pattern for both databases.

- :mod:`.base`: the :class:`~.base.Storage` interface;
- :mod:`.rows`: every record stored or read back (the one record of a change,
  :class:`~.rows.Change`, the stored game, players, results, seeks...); :mod:`.errors`: the
  storage's own errors;
- :mod:`.sql`: the one SQL helper, the two databases' differences in one :class:`~.sql.Dialect`;
- the stores, each written once against it: :mod:`.games`, :mod:`.people` (players and
  ratings), :mod:`.daily` (the challenge, leaderboards, lessons), :mod:`.lobby`,
  :mod:`.campaigns` (the groups' campaigns);
- :mod:`.schema`: the tables' migration steps, the same on both databases (one
  :func:`dorf.db.migrate`);
- :mod:`.sqlite` (with :mod:`.writer`): a server alone on a SQLite file, changes written behind;
- :mod:`.postgres`: servers sharing a PostgreSQL database, changes stored by compare-and-set;
- :mod:`.bus`: what a server hears of the others' changes (nothing, alone; LISTEN/NOTIFY);
- :mod:`.upgrade`: what an upgrade of a database would do, and doing it (``dorf migrate``);
  :mod:`.backup`: a copy of a live database, and putting one back (``dorf backup``, ``restore``).

The storage imports no feature package (``dorf.server.lobby``, ``daily``, ``players``,
``round``...): they import it.

:func:`open_storage` is the one place that chooses.
"""

from __future__ import annotations

import os
from pathlib import Path

from dorf.db import default_path
from dorf.server.storage.base import Storage
from dorf.server.storage.bus import Alone, Bus, PostgresBus
from dorf.server.storage.postgres import PostgresStorage, PostgresTables, is_url, redact
from dorf.server.storage.sqlite import SqliteStorage, SqliteTables


def chosen_database(db: str | None) -> str | Path:
    """The database a command works on: ``--db``, else a PostgreSQL URL in ``$DORF_DB``, else the
    SQLite file of :func:`dorf.db.default_path` (``$DORF_DB``'s file, or the data folder's)."""
    if db:
        return db
    explicit = os.environ.get("DORF_DB", "")
    return explicit if is_url(explicit) else default_path()


def open_tables(db: str | Path | None) -> SqliteTables | PostgresTables:
    """The tables of ``--db`` without a server's writer (for ``dorf admin`` and
    :func:`check_database`), migrated as ``dorf serve`` would; ``DatabaseError`` (one line) if the
    database cannot be used."""
    return PostgresTables(str(db), lease=0.0) if is_url(db) else SqliteTables(db)


def check_database(db: str | Path | None) -> None:
    """Open and close the database of ``--db`` once, migrating its tables: ``DatabaseError`` (one
    line) if it cannot be used (so ``dorf serve`` says so before it listens)."""
    open_tables(db).close()


def open_storage(db: str | Path | None, *, grace: float = 20.0, lease: float = 15.0) -> tuple[Storage, Bus]:
    """The storage of ``--db`` (a SQLite file, or a PostgreSQL URL) and the bus of its servers."""
    if is_url(db):
        shared = PostgresStorage(str(db), lease=lease)
        return shared, PostgresBus(str(db), shared.instance)
    return SqliteStorage(db, grace), Alone()


__all__ = [
    "Bus",
    "Storage",
    "check_database",
    "chosen_database",
    "is_url",
    "open_storage",
    "open_tables",
    "redact",
]
