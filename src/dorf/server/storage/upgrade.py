"""What an upgrade of a database would do, and doing it (``dorf migrate``, ``dorf serve --no-migrate``).

A database holds the tables of components (``server``; in a SQLite file that ``dorf campaign``
has used, also ``campaign``, the terminal's campaigns), each at the version ``schema_version``
says (:mod:`dorf.db`).  :func:`plan` reads those versions
without changing anything and lists the steps this dorf would apply, each with what it does;
:func:`upgrade` applies them the way ``dorf serve`` does when it starts (each step logged on
``dorf.server``; on PostgreSQL all of them in one transaction under an advisory lock, so that
of several servers starting at once one migrates and the others wait for it, then find nothing
to do).  A database from a newer dorf is refused by both (:class:`~dorf.db.DatabaseError`).

>>> steps = plan(":memory:")
>>> steps[0].line()
'server 0 -> 1: new tables server_game, server_seat, server_decision; new index server_game_by_finished'
"""

from __future__ import annotations

import logging
import sqlite3
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from dorf.campaign.store import SCHEMA as CAMPAIGN_SCHEMA
from dorf.db import DatabaseError, connect, describe, migrate
from dorf.server.storage.postgres import PostgresTables, is_url, one_line, redact
from dorf.server.storage.schema import SCHEMA
from dorf.server.storage.sqlite import SqliteTables

log = logging.getLogger("dorf.server")


@dataclass(frozen=True)
class Step:
    """One migration step a database lacks: ``component`` from version ``start`` to ``start + 1``."""

    component: str
    start: int
    does: str

    @property
    def end(self) -> int:
        return self.start + 1

    def line(self) -> str:
        return f"{self.component} {self.start} -> {self.end}: {self.does}"


#: Components whose tables the server never makes: upgraded where a database has them already.
KEPT_WHERE_FOUND = frozenset({"campaign"})


def components(db: str | Path) -> tuple[tuple[str, Sequence[str]], ...]:
    """The components whose tables may live in ``db``, with their steps: the server's everywhere,
    and in a SQLite file the terminal's campaigns (``dorf campaign``, on the same default file)."""
    if is_url(db):
        return (("server", SCHEMA),)
    return (("server", SCHEMA), ("campaign", CAMPAIGN_SCHEMA))


def shown(db: str | Path) -> str:
    """The database as a message names it (a URL without its password)."""
    return redact(str(db)) if is_url(db) else str(db)


def versions(db: str | Path) -> dict[str, int]:
    """Each component's version in ``db``, read without changing anything ({} for a SQLite file
    that does not exist yet, or a database without dorf's tables)."""
    if is_url(db):
        return _postgres_versions(str(db))
    path = str(db)
    if path == ":memory:" or not Path(path).exists():
        return {}
    try:
        conn = sqlite3.connect(f"{Path(path).resolve().as_uri()}?mode=ro", uri=True)
    except sqlite3.Error as exc:
        raise DatabaseError(f"cannot open database {path}: {exc}") from None
    try:
        if conn.execute("SELECT 1 FROM sqlite_master WHERE name = 'schema_version'").fetchone() is None:
            return {}
        return {
            name: int(version)
            for name, version in conn.execute("SELECT component, version FROM schema_version")
        }
    except sqlite3.Error as exc:
        raise DatabaseError(f"cannot use database {path}: {exc}") from None
    finally:
        conn.close()


def _postgres_versions(url: str) -> dict[str, int]:
    try:
        import psycopg
    except ImportError:  # pragma: no cover - the web extra installs it
        raise DatabaseError("PostgreSQL needs psycopg: pip install 'dorf-games[web]'") from None
    try:
        with psycopg.connect(url, autocommit=True, connect_timeout=5) as conn:
            if conn.execute("SELECT to_regclass('schema_version')").fetchone() == (None,):
                return {}
            rows: list[Any] = conn.execute("SELECT component, version FROM schema_version").fetchall()
    except psycopg.Error as exc:
        raise DatabaseError(f"cannot use database {redact(url)}: {one_line(exc)}") from None
    return {name: int(version) for name, version in rows}


def plan(db: str | Path) -> list[Step]:
    """The steps an upgrade of ``db`` would apply, in order; raises :class:`DatabaseError` if a
    component's tables are from a newer dorf (this one would refuse to use them)."""
    have = versions(db)
    steps = []
    for component, schema in components(db):
        version = have.get(component, 0)
        if component in KEPT_WHERE_FOUND and not version:
            continue
        if version > len(schema):
            raise DatabaseError(
                f"the database's {component} tables are from a newer dorf (version {version};"
                f" this dorf knows {len(schema)})"
            )
        steps += [Step(component, number, describe(schema[number])) for number in range(version, len(schema))]
    return steps


def upgrade(db: str | Path) -> None:
    """Apply every step ``db`` lacks, as ``dorf serve`` does when it starts (each logged)."""
    if is_url(db):
        PostgresTables(str(db), lease=0.0).close()
        return
    SqliteTables(db).close()
    if versions(db).get("campaign"):
        conn = connect(db)
        try:
            migrate(conn, "campaign", CAMPAIGN_SCHEMA, logger=log)
        finally:
            conn.close()


def ready(db: str | Path) -> None:
    """Nothing: ``db`` needs no upgrade; else :class:`DatabaseError`, one line that says so
    (``dorf serve --no-migrate``)."""
    steps = plan(db)
    if steps:
        spans = ", ".join(
            f"{component} {min(s.start for s in mine)} -> {max(s.end for s in mine)}"
            for component in dict.fromkeys(s.component for s in steps)
            for mine in [[s for s in steps if s.component == component]]
        )
        raise DatabaseError(
            f"the database {shown(db)} needs {len(steps)} upgrade step{'s' if len(steps) > 1 else ''}"
            f" ({spans}): run dorf migrate first, or start without --no-migrate"
        )


__all__ = ["Step", "components", "plan", "ready", "shown", "upgrade", "versions"]
