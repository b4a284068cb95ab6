"""A consistent copy of a live database, and putting one back (``dorf backup``, ``dorf restore``).

Everything the database holds is copied: the games, players, sessions and ratings, the daily
challenge's days and its secret, the lobby, the campaigns.

- **SQLite**: SQLite's online backup (:meth:`sqlite3.Connection.backup`) copies the file page by
  page in one read transaction, so a server writing meanwhile changes nothing of the copy.  The
  backup is itself a SQLite file (one file, rollback journal), readable by ``sqlite3``.
- **PostgreSQL**: ``pg_dump --format=custom`` (one snapshot of the whole database) and
  ``pg_restore --single-transaction`` (all or nothing).  The binaries are Debian's newest
  (``/usr/lib/postgresql/VERSION/bin``), or those of ``$DORF_PG_BIN``, or the ones on ``PATH``;
  a password in the URL is handed to them in ``PGPASSWORD``, not on their command line.

A backup is written beside its final name and linked there at the end: a file that exists is
never overwritten, and a failed backup leaves nothing behind.  It is readable by its owner
only (it holds the daily challenge's secret and the players' password hashes).  A restore goes
only into an empty database (a SQLite file that does not exist or has no tables; a PostgreSQL
database without tables) and checks the backup first (:func:`kind_of`: a SQLite file or a
``pg_dump`` archive, with dorf's tables, from this dorf or an older one).  Whatever is refused raises
:class:`BackupError` (one line) and changes nothing.
"""

from __future__ import annotations

import contextlib
import os
import re
import shutil
import sqlite3
import subprocess
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from dorf.server.storage.postgres import is_url, one_line, redact
from dorf.server.storage.upgrade import components

#: How a SQLite file and a ``pg_dump --format=custom`` archive begin.
SQLITE_MAGIC = b"SQLite format 3\x00"
PG_MAGIC = b"PGDMP"
#: Where Debian's postgresql packages put each version's binaries.
DEBIAN_BIN = Path("/usr/lib/postgresql")
#: The longest a dump or a restore may take, in seconds.
TOOL_TIMEOUT = 3600


class BackupError(ValueError):
    """A backup or restore that cannot be made; the message is one line and nothing was changed."""


def kind_of(file: str | Path) -> str:
    """``"sqlite"`` or ``"postgresql"``: which database ``file`` is a backup of, by how it begins."""
    try:
        with open(file, "rb") as handle:
            head = handle.read(len(SQLITE_MAGIC))
    except FileNotFoundError:
        raise BackupError(f"there is no file {file}") from None
    except OSError as exc:
        raise BackupError(f"cannot read {file}: {exc.strerror or exc}") from None
    if head.startswith(SQLITE_MAGIC):
        return "sqlite"
    if head.startswith(PG_MAGIC):
        return "postgresql"
    raise BackupError(f"{file} is not a dorf backup (neither a SQLite file nor a pg_dump archive)")


def backup(db: str | Path, file: str | Path) -> int:
    """Copy the database ``db`` (a SQLite file or a PostgreSQL URL) into the new file ``file``,
    consistently while servers use it; returns the backup's size in bytes."""
    target = Path(file)
    _check_new(target)
    with _written(target) as partial:
        if is_url(db):
            _dump(str(db), partial)
        else:
            _copy_sqlite(Path(db), partial)
    return target.stat().st_size


def restore(file: str | Path, db: str | Path) -> None:
    """Put the backup ``file`` into the empty database ``db``."""
    kind = kind_of(file)
    if is_url(db):
        if kind != "postgresql":
            raise BackupError(f"{file} is a backup of a SQLite file: restore it into one (--db FILE)")
        _restore_postgres(Path(file), str(db))
        return
    if kind != "sqlite":
        raise BackupError(
            f"{file} is a backup of a PostgreSQL database: restore it into one (--db postgresql://...)"
        )
    _restore_sqlite(Path(file), Path(db))


# --- the files -------------------------------------------------------------------------------


def _check_new(target: Path) -> None:
    if target.exists() or target.is_symlink():
        raise BackupError(f"{target} exists: a backup never overwrites a file (name a new one)")
    if not target.parent.is_dir():
        raise BackupError(f"cannot write {target}: there is no folder {str(target.parent)!r}")


@contextlib.contextmanager
def _written(target: Path) -> Iterator[Path]:
    """A new file beside ``target`` to write; linked to ``target`` (never over a file) if the
    block succeeds, removed in any case."""
    try:
        handle, name = tempfile.mkstemp(prefix=f".{target.name}.", suffix=".partial", dir=target.parent)
    except OSError as exc:
        raise BackupError(f"cannot write {target}: {exc.strerror or exc}") from None
    os.close(handle)
    partial = Path(name)
    try:
        yield partial
        try:
            os.link(partial, target)
        except FileExistsError:
            raise BackupError(f"{target} exists: a backup never overwrites a file (name a new one)") from None
        except OSError as exc:
            raise BackupError(f"cannot write {target}: {exc.strerror or exc}") from None
    finally:
        partial.unlink(missing_ok=True)


# --- SQLite ----------------------------------------------------------------------------------


def _open_sqlite(path: Path, *, read_only: bool = False) -> sqlite3.Connection:
    try:
        if read_only:
            return sqlite3.connect(f"{path.resolve().as_uri()}?mode=ro", uri=True)
        return sqlite3.connect(path, timeout=5.0)
    except sqlite3.Error as exc:
        raise BackupError(f"cannot open {path}: {exc}") from None


def _tables(conn: sqlite3.Connection) -> set[str]:
    return {row[0] for row in conn.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}


def _copy_sqlite(source: Path, partial: Path) -> None:
    if not source.is_file():
        raise BackupError(f"there is no database {source}")
    conn = _open_sqlite(source)
    try:
        if "schema_version" not in _tables(conn):
            raise BackupError(f"{source} has no dorf tables: there is nothing to back up")
        copy = sqlite3.connect(partial)
        try:
            conn.backup(copy)  # every page, in one read transaction
            copy.execute("PRAGMA journal_mode = DELETE")  # one file of its own
        finally:
            copy.close()
    except sqlite3.Error as exc:
        raise BackupError(f"cannot back up {source}: {exc}") from None
    finally:
        conn.close()


def _check_versions(file: Path, have: dict[str, int], db: str | Path) -> None:
    """Refuse a backup whose tables are from a newer dorf (this one could not use them)."""
    for component, schema in components(db):
        if have.get(component, 0) > len(schema):
            raise BackupError(
                f"{file} is from a newer dorf (its {component} tables are at version"
                f" {have[component]}; this dorf knows {len(schema)})"
            )


def _restore_sqlite(file: Path, target: Path) -> None:
    source = _open_sqlite(file, read_only=True)
    try:
        try:
            if source.execute("PRAGMA quick_check").fetchone() != ("ok",):
                raise BackupError(f"{file} is damaged (PRAGMA quick_check)")
            if "schema_version" not in _tables(source):
                raise BackupError(f"{file} is not a dorf backup (it has no dorf tables)")
            have = {
                name: int(v) for name, v in source.execute("SELECT component, version FROM schema_version")
            }
        except sqlite3.Error as exc:
            raise BackupError(f"{file} is not a dorf backup ({exc})") from None
        _check_versions(file, have, target)
        for leftover in (Path(f"{target}-wal"), Path(f"{target}-journal")):
            if leftover.exists() and not target.exists():  # SQLite would apply it to the restored file
                raise BackupError(f"cannot restore into {target}: {leftover} is left from another database")
        if target.exists():
            _restore_into(source, target)
            return
        if not target.parent.is_dir():
            raise BackupError(f"cannot restore into {target}: there is no folder {str(target.parent)!r}")
        with _written(target) as partial:
            partial.chmod(0o666 & ~_umask())  # as SQLite makes a new file (a backup stays the owner's)
            copy = sqlite3.connect(partial)
            try:
                source.backup(copy)
            finally:
                copy.close()
    finally:
        source.close()


def _umask() -> int:
    """This process's umask, read without changing it (Linux); 022 where it cannot be read."""
    with contextlib.suppress(OSError, ValueError):
        for line in Path("/proc/self/status").read_text().splitlines():
            if line.startswith("Umask:"):
                return int(line.split()[1], 8)
    return 0o022


def _restore_into(source: sqlite3.Connection, target: Path) -> None:
    """Into a SQLite file that exists: only if it has no tables (an empty file, say)."""
    conn = _open_sqlite(target)
    try:
        try:
            tables = _tables(conn)
        except sqlite3.DatabaseError as exc:
            raise BackupError(f"cannot restore into {target}: {exc}") from None
        if tables:
            raise BackupError(
                f"{target} is not empty ({len(tables)} tables):"
                " restore only into a new file or an empty database"
            )
        try:
            source.backup(conn)
        except sqlite3.Error as exc:
            raise BackupError(f"cannot restore into {target}: {exc}") from None
    finally:
        conn.close()


# --- PostgreSQL ------------------------------------------------------------------------------


def pg_tool(name: str) -> str:
    """The path of PostgreSQL's ``name`` (``pg_dump``, ``pg_restore``): in ``$DORF_PG_BIN``, else
    Debian's newest version's, else on ``PATH``."""
    override = os.environ.get("DORF_PG_BIN")

    def version(folder: Path) -> tuple[int, ...]:
        return tuple(int(part) for part in re.findall(r"\d+", folder.parent.name))

    folders = [Path(override)] if override else sorted(DEBIAN_BIN.glob("*/bin"), key=version, reverse=True)
    for folder in folders:
        if os.access(folder / name, os.X_OK):
            return str(folder / name)
    found = shutil.which(name)
    if found is None:
        raise BackupError(f"{name} is not installed (Debian: apt-get install postgresql-client)")
    return found


def _conninfo(url: str) -> tuple[str, dict[str, str]]:
    """The connection string without its password, and the environment that carries it."""
    from psycopg.conninfo import conninfo_to_dict, make_conninfo

    try:
        params: dict[str, Any] = conninfo_to_dict(url)
    except Exception as exc:  # psycopg.ProgrammingError: a URL it cannot read
        raise BackupError(f"not a database URL: {redact(url)} ({one_line(exc)})") from None
    env = dict(os.environ)
    password = params.pop("password", None)
    if password is not None:
        env["PGPASSWORD"] = str(password)
    return make_conninfo(**{key: str(value) for key, value in params.items()}), env


def _run(argv: list[str], env: dict[str, str], what: str) -> str:
    try:
        done = subprocess.run(
            argv, env=env, capture_output=True, text=True, check=False, timeout=TOOL_TIMEOUT
        )
    except OSError as exc:
        raise BackupError(f"cannot run {argv[0]}: {exc.strerror or exc}") from None
    except subprocess.TimeoutExpired:
        raise BackupError(f"{what}: {Path(argv[0]).name} took longer than {TOOL_TIMEOUT} s") from None
    if done.returncode != 0:
        lines = [line for line in done.stderr.splitlines() if line.strip()]
        raise BackupError(f"{what}: {one_line(Exception(lines[-1] if lines else done.returncode))}")
    return done.stdout


def _postgres_tables(url: str) -> set[str]:
    """The tables of a PostgreSQL database, outside PostgreSQL's own schemas."""
    import psycopg

    try:
        with psycopg.connect(url, autocommit=True, connect_timeout=5) as conn:
            rows = conn.execute(
                "SELECT n.nspname || '.' || c.relname FROM pg_class c"
                " JOIN pg_namespace n ON n.oid = c.relnamespace"
                " WHERE c.relkind IN ('r', 'p', 'v', 'm', 'f', 'S')"
                " AND n.nspname NOT IN ('pg_catalog', 'information_schema')"
                " AND n.nspname NOT LIKE 'pg\\_toast%%' AND n.nspname NOT LIKE 'pg\\_temp%%'"
            ).fetchall()
    except psycopg.Error as exc:
        raise BackupError(f"cannot use database {redact(url)}: {one_line(exc)}") from None
    return {row[0] for row in rows}


def _dump(url: str, partial: Path) -> None:
    if not any(name.endswith(".schema_version") for name in _postgres_tables(url)):
        raise BackupError(f"{redact(url)} has no dorf tables: there is nothing to back up")
    conninfo, env = _conninfo(url)
    _run(
        [pg_tool("pg_dump"), "--format=custom", f"--file={partial}", f"--dbname={conninfo}"],
        env,
        f"cannot back up {redact(url)}",
    )


def _restore_postgres(file: Path, url: str) -> None:
    listing = _run(
        [pg_tool("pg_restore"), "--list", str(file)], dict(os.environ), f"{file} is not a dorf backup"
    )
    if not re.search(r"^\d+;.* TABLE DATA \S+ schema_version ", listing, re.M):
        raise BackupError(f"{file} is not a dorf backup (it has no dorf tables)")
    tables = _postgres_tables(url)
    if tables:
        raise BackupError(
            f"the database {redact(url)} is not empty ({len(tables)} tables):"
            " restore only into an empty database"
        )
    conninfo, env = _conninfo(url)
    _run(
        [
            pg_tool("pg_restore"),
            "--no-owner",
            "--no-privileges",
            "--single-transaction",
            "--exit-on-error",
            f"--dbname={conninfo}",
            str(file),
        ],
        env,
        f"cannot restore into {redact(url)}",
    )


__all__ = ["BackupError", "backup", "kind_of", "pg_tool", "restore"]
