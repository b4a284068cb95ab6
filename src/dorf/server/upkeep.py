"""``dorf backup``, ``dorf restore`` and ``dorf migrate``: the upkeep of a server's database.

:mod:`dorf.cli` registers them with :func:`add_upkeep_parsers` and runs :func:`upkeep_main`; the
work is the storage's (:mod:`dorf.server.storage.backup`, :mod:`dorf.server.storage.upgrade`),
imported only when a command runs.  The database is the one ``dorf serve`` would use: ``--db``,
else ``$DORF_DB``, else the SQLite file in the user data folder; a ``postgresql://`` URL means
PostgreSQL.  Bad input is one line on stderr and exit 2, with nothing changed; ``dorf migrate
--check`` exits 1 when steps are pending, 0 when the database is up to date.
"""

from __future__ import annotations

import argparse
import logging
import sys
from pathlib import Path
from typing import Any

#: The commands of this module.
COMMANDS = ("backup", "restore", "migrate")
_DB_HELP = (
    "the database: a SQLite file or a PostgreSQL URL (postgresql://user@host:port/name);"
    " default, as dorf serve: $DORF_DB, else the user data folder's file"
)


def add_upkeep_parsers(sub: Any) -> None:
    """Add ``backup``, ``restore`` and ``migrate`` to the ``dorf`` command's subparsers."""
    backup = sub.add_parser(
        "backup",
        help="copy the server's database (live: while servers run) into a new file",
        description="A consistent copy of the whole database while servers use it: SQLite's online"
        " backup of a file, pg_dump --format=custom of a PostgreSQL database. FILE must not exist.",
    )
    backup.add_argument("file", metavar="FILE", help="the backup to write (a new file)")
    backup.add_argument("--db", default=None, metavar="PATH|URL", help=_DB_HELP)
    restore = sub.add_parser(
        "restore",
        help="put a backup into an empty database (a new SQLite file, or an empty PostgreSQL one)",
        description="Restore a backup made by dorf backup into a database that has no tables: a"
        " SQLite file that does not exist yet, or an empty PostgreSQL database.",
    )
    restore.add_argument("file", metavar="FILE", help="a backup made by dorf backup")
    restore.add_argument("--db", default=None, metavar="PATH|URL", help=_DB_HELP)
    migrate = sub.add_parser(
        "migrate",
        help="upgrade the database's tables to this dorf (--check: only list what it would do)",
        description="Apply the migration steps the database lacks (dorf serve does too when it"
        " starts, unless --no-migrate), each logged; --check lists them and changes nothing.",
    )
    migrate.add_argument(
        "--check",
        action="store_true",
        help="list the steps an upgrade would apply, change nothing; exit 1 if there are any, 0 if none",
    )
    migrate.add_argument("--db", default=None, metavar="PATH|URL", help=_DB_HELP)


def upkeep_main(args: argparse.Namespace) -> int:
    """Run ``dorf backup``, ``dorf restore`` or ``dorf migrate``."""
    from dorf.db import DatabaseError

    try:
        from dorf.server.storage.backup import BackupError
    except ImportError as exc:  # pragma: no cover - psycopg's absence is handled where it is used
        print(f"dorf {args.command}: {exc}", file=sys.stderr)
        return 2
    from dorf.server.storage import chosen_database

    db = chosen_database(args.db)
    try:
        if args.command == "backup":
            return _backup(db, args.file)
        if args.command == "restore":
            return _restore(args.file, db)
        return _migrate(db, args.check)
    except (BackupError, DatabaseError) as exc:
        print(f"dorf {args.command}: {exc}", file=sys.stderr)
        return 2
    except ImportError as exc:  # psycopg, of the web extra
        print(f"dorf {args.command}: PostgreSQL needs psycopg 3 (the web extra): {exc}", file=sys.stderr)
        return 2


def _backup(db: str | Path, file: str) -> int:
    from dorf.server.storage.backup import backup
    from dorf.server.storage.upgrade import shown

    size = backup(db, file)
    print(f"dorf: backed up {shown(db)} into {file} ({size} bytes)")
    return 0


def _restore(file: str, db: str | Path) -> int:
    from dorf.server.storage.backup import restore
    from dorf.server.storage.upgrade import plan, shown

    restore(file, db)
    pending = len(plan(db))
    later = f"; dorf serve (or dorf migrate) will apply {pending} upgrade steps" if pending else ""
    print(f"dorf: restored {file} into {shown(db)}{later}")
    return 0


def _migrate(db: str | Path, check: bool) -> int:
    from dorf.server.storage.upgrade import plan, shown, upgrade, versions

    steps = plan(db)
    if check:
        if not steps:
            print(f"dorf: the database {shown(db)} is up to date ({_versions(versions(db))})")
            return 0
        print(f"dorf: an upgrade of {shown(db)} would apply {len(steps)} steps:")
        for step in steps:
            print(f"  {step.line()}")
        return 1
    if steps:
        _log_steps()
        upgrade(db)
    print(f"dorf: the database {shown(db)} is up to date ({_versions(versions(db))})")
    return 0


def _versions(have: dict[str, int]) -> str:
    return ", ".join(f"{component} {version}" for component, version in sorted(have.items()))


def _log_steps() -> None:
    """Show the steps ``dorf migrate`` applies (logged on ``dorf.server``) on stderr, new tables
    too, unless logging was set up already."""
    logger = logging.getLogger("dorf.server")
    if not logging.getLogger().handlers and not logger.handlers:
        handler = logging.StreamHandler(sys.stderr)
        handler.setFormatter(logging.Formatter("dorf: %(message)s"))
        logger.addHandler(handler)
        logger.setLevel(logging.INFO)
