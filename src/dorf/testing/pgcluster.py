"""A throwaway PostgreSQL cluster, for the tests and the load benchmark (``--db temp``): a real
server, in a temporary folder, on a free port.

``Cluster().start()`` runs ``initdb`` into a temporary folder and starts ``postgres`` on 127.0.0.1
(durability off: it is for tests only); ``fresh_database()`` gives the URL of a new empty database
in it; ``stop()`` stops the server and removes the folder. The binaries are Debian's
(``/usr/lib/postgresql/VERSION/bin``, the newest) or those in $DORF_PG_BIN.

PostgreSQL refuses to run as root: where the tests do (as in CI), the server runs as the
``postgres`` system user (or ``dorftest``, created when there is no ``postgres``). On Linux the
server also gets SIGQUIT (an immediate shutdown) when the process that started it dies, so it
never outlives the test run, even one killed outright.
"""

from __future__ import annotations

import atexit
import contextlib
import itertools
import os
import pwd
import re
import shutil
import signal
import stat
import subprocess
import tempfile
import time
from pathlib import Path

import psycopg
from psycopg import sql

from dorf.testing.net import free_port

#: Where Debian's postgresql package puts each version's binaries.
DEBIAN_BIN = Path("/usr/lib/postgresql")
#: The user the server runs as where the tests run as root and there is no ``postgres`` user.
FALLBACK_USER = "dorftest"
#: The empty database every fresh database is a copy of.
TEMPLATE = "dorf_template"
#: Settings for speed; a test cluster has nothing to keep.
SETTINGS = {
    "listen_addresses": "127.0.0.1",
    "fsync": "off",
    "synchronous_commit": "off",
    "full_page_writes": "off",
    "max_connections": "200",
}
#: How the names of the clusters' folders begin (then the test process's id).
PREFIX = "dorf-pg-"
#: The folder in memory the cluster is made in if it has SHM_ROOM bytes free (a cluster takes
#: some 40 MB, and 8 MB more for each database it has at once).
SHM = "/dev/shm"
SHM_ROOM = 1 << 30
#: How long the server may take to accept connections.
START_TIMEOUT = 60.0


def find_bin() -> Path | None:
    """The folder with ``initdb``, ``pg_ctl`` and ``postgres``: $DORF_PG_BIN if set, else the newest
    Debian version's; None if PostgreSQL is not installed."""
    override = os.environ.get("DORF_PG_BIN")
    candidates = [Path(override)] if override else _debian_bins()
    for folder in candidates:
        if all(os.access(folder / name, os.X_OK) for name in ("initdb", "pg_ctl", "postgres")):
            return folder
    return None


def _debian_bins() -> list[Path]:
    """Debian's version folders' ``bin``, newest first."""

    def version(folder: Path) -> tuple[int, ...]:
        return tuple(int(part) for part in re.findall(r"\d+", folder.parent.name))

    return sorted(DEBIAN_BIN.glob("*/bin"), key=version, reverse=True)


def _server_user() -> pwd.struct_passwd:
    """The user to run the server as: this one, or (as root) ``postgres`` or ``dorftest``."""
    if os.geteuid() != 0:
        return pwd.getpwuid(os.geteuid())
    for name in ("postgres", FALLBACK_USER):
        with contextlib.suppress(KeyError):
            return pwd.getpwnam(name)
    # Several test workers may get here at once: useradd fails for all but one (the user exists,
    # or /etc/passwd is locked), so look again after each try.
    for _ in range(20):
        subprocess.run(
            [
                "useradd",
                "--system",
                "--user-group",
                "--no-create-home",
                "--shell",
                "/usr/sbin/nologin",
                FALLBACK_USER,
            ],
            capture_output=True,
            check=False,
        )
        with contextlib.suppress(KeyError):
            return pwd.getpwnam(FALLBACK_USER)
        time.sleep(0.1)
    raise RuntimeError(f"cannot create the user {FALLBACK_USER!r} to run PostgreSQL as (useradd)")


def _reachable_by_all(folder: Path) -> bool:
    """Whether ``folder`` and every folder above it let other users through."""
    folder = folder.resolve()
    return all(part.stat().st_mode & stat.S_IXOTH for part in (folder, *folder.parents))


def _temp_parent(as_other: bool) -> Path:
    """Where to make the cluster's folder: in memory (/dev/shm) where that has room, as making
    files can be much slower on disk (a fresh database is some 300 files); else the usual
    temporary folder, or /tmp where the server's user could not reach that."""
    shm = Path(SHM)
    with contextlib.suppress(OSError):
        if shm.is_dir() and os.access(shm, os.W_OK) and _reachable_by_all(shm):
            room = os.statvfs(shm)
            if room.f_bavail * room.f_frsize >= SHM_ROOM:
                return shm
    temp = Path(tempfile.gettempdir())
    return Path("/tmp") if as_other and not _reachable_by_all(temp) else temp


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        pass
    return True


def _sweep(parent: Path) -> None:
    """Remove the folders of clusters whose test process died without removing them (killed
    outright: its server got SIGQUIT then) that in memory would take room until a reboot."""
    for folder in parent.glob(f"{PREFIX}*-*"):
        owner = folder.name.removeprefix(PREFIX).split("-", 1)[0]
        if not owner.isdigit() or _alive(int(owner)):
            continue
        with contextlib.suppress(OSError, ValueError):
            server = int((folder / "data" / "postmaster.pid").read_text().split()[0])
            if _alive(server):
                continue
        shutil.rmtree(folder, ignore_errors=True)


class Cluster:
    """A PostgreSQL server of the tests' own; ``start()`` it, ``stop()`` it (also at exit)."""

    def __init__(self, bin_dir: Path | None = None) -> None:
        found = bin_dir or find_bin()
        if found is None:
            raise RuntimeError("PostgreSQL is not installed (no /usr/lib/postgresql/*/bin/initdb)")
        self.bin = found
        self.user = _server_user()
        self.port = 0
        self.folder: Path | None = None
        self._server: subprocess.Popen[bytes] | None = None
        self._admin: psycopg.Connection[tuple[object, ...]] | None = None
        self._names = itertools.count(1)
        self._file_copy = False

    @property
    def data(self) -> Path:
        assert self.folder is not None, "the cluster is not started"
        return self.folder / "data"

    @property
    def log(self) -> Path:
        assert self.folder is not None, "the cluster is not started"
        return self.folder / "postgres.log"

    def url(self, dbname: str) -> str:
        """A database's URL (trust authentication: no password)."""
        return f"postgresql://{self.user.pw_name}@127.0.0.1:{self.port}/{dbname}"

    def start(self) -> Cluster:
        """Make the cluster in a temporary folder and start its server; returns once it accepts
        connections."""
        if self.folder is not None:
            return self
        atexit.register(self.stop)
        as_other = self.user.pw_uid != os.geteuid()
        parent = _temp_parent(as_other)
        _sweep(parent)
        self.folder = Path(tempfile.mkdtemp(prefix=f"{PREFIX}{os.getpid()}-", dir=parent))
        try:
            if as_other:
                os.chown(self.folder, self.user.pw_uid, self.user.pw_gid)
            self._run(
                [
                    str(self.bin / "initdb"),
                    "-D",
                    str(self.data),
                    "-U",
                    self.user.pw_name,
                    "-A",
                    "trust",
                    "-E",
                    "UTF8",
                    "--no-locale",
                    "--no-sync",
                ]
            )
            for attempt in range(5):
                self.port = free_port()
                if self._launch():
                    break
                if attempt == 4 or "already in use" not in self.log.read_text(errors="replace"):
                    raise RuntimeError(f"PostgreSQL did not start:\n{self._log_tail()}")
            self._prepare()
        except BaseException:
            self.stop()
            raise
        return self

    def _as_user(self, argv: list[str], *, pdeathsig: bool = False) -> list[str]:
        """``argv`` as the server's user, with SIGQUIT when this process dies if ``pdeathsig``."""
        options = []
        if self.user.pw_uid != os.geteuid():
            options += [f"--reuid={self.user.pw_uid}", f"--regid={self.user.pw_gid}", "--init-groups"]
        if pdeathsig:
            options.append("--pdeathsig=SIGQUIT")
        if not options:
            return argv
        if shutil.which("setpriv"):
            return ["setpriv", *options, "--", *argv]
        if self.user.pw_uid != os.geteuid():
            return ["runuser", "-u", self.user.pw_name, "--", *argv]
        return argv

    def _run(self, argv: list[str]) -> None:
        done = subprocess.run(
            self._as_user(argv), cwd=self.folder, capture_output=True, text=True, check=False
        )
        if done.returncode != 0:
            raise RuntimeError(f"{' '.join(argv)} failed ({done.returncode}):\n{done.stdout}{done.stderr}")

    def _launch(self) -> bool:
        """Start the server on ``self.port``; whether it accepts connections."""
        assert self.folder is not None
        settings = {**SETTINGS, "unix_socket_directories": str(self.folder)}
        argv = [str(self.bin / "postgres"), "-D", str(self.data), "-p", str(self.port)]
        for name, value in settings.items():
            argv += ["-c", f"{name}={value}"]
        with self.log.open("ab") as log:
            self._server = subprocess.Popen(
                self._as_user(argv, pdeathsig=True),
                cwd=self.folder,
                stdin=subprocess.DEVNULL,
                stdout=log,
                stderr=subprocess.STDOUT,
                start_new_session=True,
            )
        deadline = time.monotonic() + START_TIMEOUT
        while time.monotonic() < deadline:
            if self._server.poll() is not None:
                self._server = None
                return False
            try:
                admin = psycopg.connect(self.url("postgres"), autocommit=True, connect_timeout=5)
            except psycopg.OperationalError:
                time.sleep(0.02)
                continue
            # Not another test process's server, started on the same port a moment before.
            if admin.execute("SHOW data_directory").fetchone() == (str(self.data),):
                self._admin = admin
                return True
            admin.close()
            time.sleep(0.02)
        raise RuntimeError(
            f"PostgreSQL did not accept connections in {START_TIMEOUT:.0f} s:\n{self._log_tail()}"
        )

    def _prepare(self) -> None:
        """Make the empty template the fresh databases are copies of."""
        admin = self._connection()
        admin.execute(sql.SQL("CREATE DATABASE {} TEMPLATE template0").format(sql.Identifier(TEMPLATE)))
        admin.execute(
            sql.SQL("ALTER DATABASE {} WITH is_template true allow_connections false").format(
                sql.Identifier(TEMPLATE)
            )
        )
        # FILE_COPY (PostgreSQL 15+; before, the only way) copies the template's files: quicker
        # for a small template (9 ms, not 17) than WAL_LOG, the default, which logs every block.
        self._file_copy = admin.info.server_version >= 150000

    def _connection(self) -> psycopg.Connection[tuple[object, ...]]:
        assert self._admin is not None, "the cluster is not started"
        return self._admin

    def fresh_database(self) -> str:
        """A new, empty database's URL."""
        name = f"test_{os.getpid()}_{next(self._names)}"
        create = sql.SQL("CREATE DATABASE {} TEMPLATE {}").format(
            sql.Identifier(name), sql.Identifier(TEMPLATE)
        )
        if self._file_copy:
            create += sql.SQL(" STRATEGY FILE_COPY")
        self._connection().execute(create)
        return self.url(name)

    def drop_database(self, url: str) -> None:
        """Drop a database ``fresh_database`` gave, whoever is still connected to it."""
        if self._admin is None or self._admin.closed:
            return
        name = url.rsplit("/", 1)[1]
        self._admin.execute(sql.SQL("DROP DATABASE IF EXISTS {} WITH (FORCE)").format(sql.Identifier(name)))

    def stop(self) -> None:
        """Stop the server (an immediate shutdown) and remove the folder; harmless twice."""
        atexit.unregister(self.stop)
        if self._admin is not None:
            with contextlib.suppress(Exception):
                self._admin.close()
            self._admin = None
        server, self._server = self._server, None
        if server is not None:
            if server.poll() is None:
                with contextlib.suppress(subprocess.TimeoutExpired):
                    subprocess.run(
                        self._as_user(
                            [str(self.bin / "pg_ctl"), "stop", "-D", str(self.data), "-m", "immediate", "-W"]
                        ),
                        cwd=self.folder,
                        capture_output=True,
                        check=False,
                        timeout=30,
                    )
            try:
                server.wait(timeout=10)
            except subprocess.TimeoutExpired:
                # Its whole session: the postmaster and any child it left.
                with contextlib.suppress(ProcessLookupError):
                    os.killpg(server.pid, signal.SIGKILL)
                server.wait()
        if self.folder is not None:
            shutil.rmtree(self.folder, ignore_errors=True)
            self.folder = None

    def _log_tail(self, lines: int = 20) -> str:
        try:
            return "\n".join(self.log.read_text(errors="replace").splitlines()[-lines:])
        except OSError:
            return "(no log)"

    def __enter__(self) -> Cluster:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()
