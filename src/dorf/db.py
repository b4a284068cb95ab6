"""The one SQLite database that dorf keeps: where it lives and how to open it.

Every part of dorf that stores something (the campaigns now, the server later)
shares one file.  Its path is :func:`default_path`: ``$DORF_DB`` if set (and not a PostgreSQL
URL), else ``$XDG_DATA_HOME/dorf/dorf.sqlite3``, else ``~/.local/share/dorf/dorf.sqlite3``.

:func:`connect` opens it with foreign keys on, WAL journaling and a busy
timeout, in autocommit mode: a change that must happen whole runs inside
:func:`transaction`.  Each part owns a list of schema steps and applies it with
:func:`migrate` under its own component name; the table ``schema_version``
remembers how many steps of each component a file has, so parts upgrade
independently.  ``PRAGMA user_version`` is the version of this layout itself.
Each step applied is logged (``dorf.db``, or the logger a part hands in): the
component, from which version to which, and what the step does (:func:`describe`),
at ``warning`` when it upgrades tables that were there, ``info`` when it makes new ones.

>>> conn = connect(":memory:")
>>> migrate(conn, "example", ["CREATE TABLE example_item (id INTEGER PRIMARY KEY)"])
1
>>> schema_versions(conn)
{'example': 1}
"""

from __future__ import annotations

import logging
import os
import re
import sqlite3
from collections.abc import Callable, Iterator, Sequence
from contextlib import AbstractContextManager, contextmanager
from pathlib import Path
from typing import Any

#: The file name under the data directory.
FILE_NAME = "dorf.sqlite3"
#: ``PRAGMA user_version`` of a file laid out by this module.
LAYOUT_VERSION = 1
#: How long a writer waits for another one (the server and a terminal command may overlap).
BUSY_TIMEOUT_MS = 5000
#: Where the migration steps are logged unless a part hands in its own logger.
LOG = logging.getLogger("dorf.db")


class DatabaseError(ValueError):
    """The database cannot be opened or is newer than this dorf; the message is one line."""


def default_path() -> Path:
    """Where the shared database lives unless a command is given ``--db``.

    A PostgreSQL URL in ``$DORF_DB`` (``dorf serve``'s games) is no file: then the file is the one
    of the data folder (where a server on PostgreSQL keeps its campaigns), never one named
    ``postgresql:``.
    """
    explicit = os.environ.get("DORF_DB")
    if explicit and not explicit.startswith(("postgresql://", "postgres://")):
        return Path(explicit).expanduser()
    data_home = os.environ.get("XDG_DATA_HOME")
    base = Path(data_home).expanduser() if data_home else Path.home() / ".local" / "share"
    return base / "dorf" / FILE_NAME


def connect(path: str | os.PathLike[str] | None = None) -> sqlite3.Connection:
    """Open (creating if needed) the database at ``path`` (default :func:`default_path`).

    The default path's folder is made if missing; a path given explicitly must be in a folder
    that exists (a typo should not make folders).
    """
    target = default_path() if path is None else path
    memory = str(target) == ":memory:"
    folder = Path(target).parent
    if not memory and path is not None and not folder.is_dir():
        raise DatabaseError(f"cannot open database {target}: there is no folder {str(folder)!r}")
    try:
        if not memory and path is None:
            folder.mkdir(parents=True, exist_ok=True)
        conn = sqlite3.connect(target, isolation_level=None, timeout=BUSY_TIMEOUT_MS / 1000)
    except (OSError, sqlite3.Error) as exc:
        raise DatabaseError(f"cannot open database {target}: {exc}") from None
    try:
        conn.execute("PRAGMA foreign_keys = ON")
        conn.execute(f"PRAGMA busy_timeout = {BUSY_TIMEOUT_MS}")
        if not memory:
            conn.execute("PRAGMA journal_mode = WAL")
        _lay_out(conn)
    except sqlite3.DatabaseError as exc:
        conn.close()
        raise DatabaseError(f"cannot use database {target}: {exc}") from None
    return conn


def _lay_out(conn: sqlite3.Connection) -> None:
    version = conn.execute("PRAGMA user_version").fetchone()[0]
    if version > LAYOUT_VERSION:
        raise DatabaseError(f"the database was laid out by a newer dorf (layout {version})")
    if version == LAYOUT_VERSION:
        return
    with transaction(conn):
        conn.execute(
            "CREATE TABLE IF NOT EXISTS schema_version ("
            " component TEXT PRIMARY KEY,"
            " version INTEGER NOT NULL CHECK (version >= 0))"
        )
        conn.execute(f"PRAGMA user_version = {LAYOUT_VERSION}")


@contextmanager
def transaction(conn: sqlite3.Connection) -> Iterator[sqlite3.Connection]:
    """``BEGIN IMMEDIATE`` ... ``COMMIT``, or ``ROLLBACK`` if the block raises: all or nothing."""
    conn.execute("BEGIN IMMEDIATE")
    try:
        yield conn
    except BaseException:
        conn.execute("ROLLBACK")
        raise
    conn.execute("COMMIT")


def schema_versions(conn: sqlite3.Connection) -> dict[str, int]:
    """How many schema steps each component has applied to this file."""
    return {name: version for name, version in conn.execute("SELECT component, version FROM schema_version")}


def migrate(
    conn: Any,
    component: str,
    steps: Sequence[str],
    *,
    mark: str = "?",
    step: Callable[[Any], AbstractContextManager[Any]] = transaction,
    logger: logging.Logger = LOG,
) -> int:
    """Apply the steps of ``component`` that the database lacks, each inside ``step(conn)``: its
    own transaction on a SQLite file (the default), or nothing on PostgreSQL, where the caller's
    transaction holds them all (PostgreSQL changes tables in transactions: all steps or none).
    ``mark``: the database's placeholder (``?``, ``%s``).  The one migration of every database.

    A step is SQL text (several statements allowed, ``;``-separated).  Steps are
    only ever appended: step ``i`` brings the component from version ``i`` to
    ``i + 1`` (a shipped step never changes: ``tests/server/test_migrations_pinned.py``).
    Returns the component's version.  Each step is logged on ``logger`` as it is applied.
    """
    conn.execute(
        "CREATE TABLE IF NOT EXISTS schema_version"
        " (component TEXT PRIMARY KEY, version INTEGER NOT NULL CHECK (version >= 0))"
    )
    row = conn.execute(
        f"SELECT version FROM schema_version WHERE component = {mark}", (component,)
    ).fetchone()
    version = 0 if row is None else int(row[0])
    if version > len(steps):
        raise DatabaseError(f"the database's {component} tables are from a newer dorf (version {version})")
    level = logging.WARNING if version else logging.INFO  # an upgrade, or new tables
    for number in range(version, len(steps)):
        logger.log(
            level,
            "database: %s the %s tables from version %d to %d: %s",
            "upgrading" if version else "creating",
            component,
            number,
            number + 1,
            describe(steps[number]),
            extra={"component": component, "from_version": number, "to_version": number + 1},
        )
        with step(conn):
            for statement in statements(steps[number]):
                conn.execute(statement)
            conn.execute(
                f"INSERT INTO schema_version (component, version) VALUES ({mark}, {mark})"
                " ON CONFLICT (component) DO UPDATE SET version = excluded.version",
                (component, number + 1),
            )
    return len(steps)


#: What a statement of a step does, by how it begins: (pattern, what it does, its object).
_DOES = (
    (re.compile(r"CREATE\s+TABLE\s+(?:IF\s+NOT\s+EXISTS\s+)?(\w+)", re.I), "new table", "{0}"),
    (re.compile(r"ALTER\s+TABLE\s+(\w+)\s+ADD\s+(?:COLUMN\s+)?(\w+)", re.I), "new column", "{0}.{1}"),
    (re.compile(r"ALTER\s+TABLE\s+(\w+)", re.I), "changed table", "{0}"),
    (re.compile(r"CREATE\s+(?:UNIQUE\s+)?INDEX\s+(?:IF\s+NOT\s+EXISTS\s+)?(\w+)", re.I), "new index", "{0}"),
    (re.compile(r"(?:INSERT\s+INTO|UPDATE|DELETE\s+FROM)\s+(\w+)", re.I), "rows written in", "{0}"),
    (re.compile(r"DROP\s+(?:TABLE|INDEX)\s+(?:IF\s+EXISTS\s+)?(\w+)", re.I), "dropped", "{0}"),
)


def describe(step: str) -> str:
    """What a schema step does, in one line: its new tables, columns and indexes, the tables
    whose rows it writes.

    >>> describe("CREATE TABLE a (x INT); ALTER TABLE a ADD COLUMN y INT; CREATE INDEX a_y ON a (y);"
    ...          " UPDATE a SET y = x; ALTER TABLE a ADD COLUMN z INT")
    'new table a; new columns a.y, a.z; new index a_y; rows written in a'
    """
    said: dict[str, list[str]] = {}
    for statement in statements(step):
        text = re.sub(r"--[^\n]*", "", statement).strip()
        for pattern, does, what in _DOES:
            found = pattern.match(text)
            if found:
                things = said.setdefault(does, [])
                thing = what.format(*found.groups())
                if thing not in things:
                    things.append(thing)
                break
        else:
            said.setdefault("other", []).append(" ".join(text.split()[:3]))
    plural = {"new table": "new tables", "new column": "new columns", "new index": "new indexes"}
    return "; ".join(
        f"{plural.get(does, does) if len(things) > 1 else does} {', '.join(things)}"
        for does, things in said.items()
    )


def statements(script: str) -> Iterator[str]:
    """Split a schema step into whole statements (``;`` inside triggers or strings is kept)."""
    pending = ""
    for part in script.split(";"):
        pending += part + ";"
        if sqlite3.complete_statement(pending):
            if pending.strip(" \n\t;"):
                yield pending.strip()
            pending = ""
    if pending.strip(" \n\t;"):
        yield pending.strip().rstrip(";")


__all__ = [
    "FILE_NAME",
    "DatabaseError",
    "connect",
    "default_path",
    "describe",
    "migrate",
    "schema_versions",
    "statements",
    "transaction",
]
