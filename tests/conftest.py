"""Fixtures every folder of tests may use: the play-area backend of a test (parametrised in
``engine/conftest.py``), a database of the test's own (parametrised in ``server/conftest.py``), a
throwaway PostgreSQL cluster per test process, and a quick coach.

The tests live in folders by what they test: ``engine/`` (rules, games, formats: named rule
tests, golden games, property tests), ``players/``, ``commands/`` (the ``dorf`` commands and the
terminal), ``campaign/``, ``server/`` (on SQLite and PostgreSQL), ``rl/``, ``docs/`` and ``e2e/``
(real Chromium).  Each folder's parametrisation is in its own ``conftest.py``.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING

import pytest

from dorf.rules.area import use_backend

if TYPE_CHECKING:
    from dorf.testing.pgcluster import Cluster


def pytest_xdist_auto_num_workers(config: pytest.Config) -> int:
    """``-n auto`` (the ``addopts``): a worker more than the cores this process may run on.  About
    an eighth of the whole run's processor time was idle with one worker per core (tests waiting
    on a browser, a socket, a subprocess or a clock); the third worker on the 2-core VM fills it
    (the run's wall time 281 s -> 258 s, measured one after the other)."""
    affinity = getattr(os, "sched_getaffinity", None)
    cores = len(affinity(0)) if affinity is not None else (os.cpu_count() or 1)
    return cores + 1


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """The quick tier (``-m "not slow"``) is the loop of one machine with nothing installed
    beside the project: every test on PostgreSQL (a server of its own per worker) and every test
    in a real browser (``e2e/``) runs in the whole run only, as do the tests marked ``slow`` by
    hand (whole games through the server, searches, subprocesses: each over about 0.3 s on the
    2-core VM, the engine's rule and property tests excepted, which stay in the loop)."""
    for item in items:
        fixtures = getattr(item, "fixturenames", ())
        callspec = getattr(item, "callspec", None)
        params = callspec.params if callspec is not None else {}
        on_postgres = "pg_url" in fixtures or params.get("db") == "postgresql"
        if on_postgres or _in_browser(item):
            item.add_marker(pytest.mark.slow)
    # The longest first (the browser's, then the other slow ones): the workers share out what is
    # left from the end of the queue, and a long test begun last would keep one core waiting.
    items.sort(key=lambda item: 0 if _in_browser(item) else 1 if item.get_closest_marker("slow") else 2)


def _in_browser(item: pytest.Item) -> bool:
    return item.path.parent.name == "e2e" and item.path.parent.parent.name == "tests"


@pytest.fixture(autouse=True)
def engine_backend(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> Iterator[str | None]:
    """The backend this test's play areas use (None: the default, for tests outside the engine);
    ``dorf`` commands the test runs as subprocesses get it through DORF_PURE."""
    name: str | None = getattr(request, "param", None)
    if name is None:
        yield None
        return
    if name == "pure":
        monkeypatch.setenv("DORF_PURE", "1")
    else:
        monkeypatch.delenv("DORF_PURE", raising=False)
    previous = use_backend(name)
    try:
        yield name
    finally:
        use_backend(previous)


@pytest.fixture
def db(request: pytest.FixtureRequest, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A database of the test's own (the server's and the campaigns' tests): a SQLite file, or for
    the server tests that run on both (``server/conftest.py``) also a PostgreSQL database's URL
    (typed as a Path for the tests that only hand it to the server); the campaigns of a server on
    PostgreSQL stay in the SQLite file of $DORF_DB, the test's own too."""
    if getattr(request, "param", "sqlite") == "postgresql":
        monkeypatch.setenv("DORF_DB", str(tmp_path / "campaigns.sqlite3"))
        url: Path = request.getfixturevalue("pg_url")
        return url
    return tmp_path / "dorf.sqlite3"


@pytest.fixture
def quick_coach(monkeypatch: pytest.MonkeyPatch) -> None:
    """The coach behind hints at a tiny budget, for tests of who gets a hint, not of the advice."""
    from dorf.server.computer import hints

    monkeypatch.setattr(hints, "HINT_PLAYER", "planner:1")


@pytest.fixture(scope="session")
def pg_cluster() -> Iterator[Cluster]:
    """A real PostgreSQL server of this test process's own (one per xdist worker), in a temporary
    folder on a free port; skipped where PostgreSQL is not installed, a failure there if
    DORF_REQUIRE_POSTGRES=1 (as ``./run.sh test`` sets it where it is or it installed it)."""
    try:
        from dorf.testing.pgcluster import Cluster, find_bin
    except ImportError as error:  # psycopg, of the web extra
        missing = f"the PostgreSQL tests need psycopg 3 (pip install -e '.[web]'): {error}"
    else:
        missing = ""
        if find_bin() is None:
            where = os.environ.get("DORF_PG_BIN")
            missing = (
                f"no initdb, pg_ctl and postgres in DORF_PG_BIN={where}"
                if where
                else "PostgreSQL is not installed (Debian: apt-get install postgresql)"
            )
    if missing:
        if os.environ.get("DORF_REQUIRE_POSTGRES") == "1":
            pytest.fail(f"DORF_REQUIRE_POSTGRES=1 but {missing}", pytrace=False)
        pytest.skip(missing)
    cluster = Cluster().start()
    try:
        yield cluster
    finally:
        cluster.stop()


@pytest.fixture
def pg_url(pg_cluster: Cluster) -> Iterator[str]:
    """The URL of a new, empty PostgreSQL database of the test's own (dropped after it)."""
    url = pg_cluster.fresh_database()
    yield url
    pg_cluster.drop_database(url)
