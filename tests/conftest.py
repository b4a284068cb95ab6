"""Every engine test runs on both play-area backends: the compiled core and the pure Python one.

The modules listed in ENGINE_TESTS get an extra parameter, ``[compiled]`` and ``[pure]``,
and run with ``PlayArea()`` making areas of that backend (``dorf.rules.area.use_backend``).
Where the compiled core is not built (no C compiler, or DORF_PURE=1) they run once, pure;
``tests/test_backends.py`` fails that run if DORF_REQUIRE_COMPILED=1 (as ``./run.sh test``
sets it where a C compiler is).
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING

import pytest

from dorf.rules.area import COMPILED, use_backend

if TYPE_CHECKING:
    from dorf.server.pgcluster import Cluster

#: The test modules of the engine (rules, games, formats, players).
ENGINE_TESTS = {
    "test_analyse",
    "test_coop",
    "test_cli_score",
    "test_golden",
    "test_golden_duel",
    "test_golden_head_to_head",
    "test_hint",
    "test_notation",
    "test_property",
    "test_property_duel",
    "test_property_head_to_head",
    "test_rules",
    "test_rules_duel",
    "test_rules_head_to_head",
    "test_simulate_players",
    "test_tiles",
    "test_tileset_duel",
    "test_tileset_head_to_head",
    "test_views_are_data",
}
AVAILABLE = ["compiled", "pure"] if COMPILED is not None else ["pure"]


#: The server's tests that run on both databases: ``db`` is a SQLite file, then a PostgreSQL
#: database of the test's own (``[sqlite]``, ``[postgresql]``).  A test there that reads the
#: SQLite file itself is marked ``sqlite_only``.
SERVER_TESTS = {"test_server", "test_server_deltas", "test_server_edge", "test_server_fairness"}


def pytest_generate_tests(metafunc: pytest.Metafunc) -> None:
    stem = Path(metafunc.definition.fspath).stem
    if stem in ENGINE_TESTS:
        metafunc.parametrize("engine_backend", AVAILABLE, indirect=True)
    if stem in SERVER_TESTS and "db" in metafunc.fixturenames:
        sqlite_only = metafunc.definition.get_closest_marker("sqlite_only") is not None
        metafunc.parametrize("db", ["sqlite"] if sqlite_only else ["sqlite", "postgresql"], indirect=True)


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
    """A database of the test's own (the server's and the campaigns' tests): a SQLite file, or
    for the server's tests in SERVER_TESTS also a PostgreSQL database's URL (typed as a Path for
    the tests that only hand it to the server); the campaigns of a server on PostgreSQL stay in
    the SQLite file of $DORF_DB, the test's own too."""
    if getattr(request, "param", "sqlite") == "postgresql":
        monkeypatch.setenv("DORF_DB", str(tmp_path / "campaigns.sqlite3"))
        url: Path = request.getfixturevalue("pg_url")
        return url
    return tmp_path / "dorf.sqlite3"


@pytest.fixture
def quick_coach(monkeypatch: pytest.MonkeyPatch) -> None:
    """The coach behind hints at a tiny budget, for tests of who gets a hint, not of the advice."""
    from dorf.server import hints

    monkeypatch.setattr(hints, "HINT_PLAYER", "planner:1")


@pytest.fixture(scope="session")
def pg_cluster() -> Iterator[Cluster]:
    """A real PostgreSQL server of this test process's own (one per xdist worker), in a temporary
    folder on a free port; skipped where PostgreSQL is not installed, a failure there if
    DORF_REQUIRE_POSTGRES=1 (as ``./run.sh test`` sets it where it is or it installed it)."""
    try:
        from dorf.server.pgcluster import Cluster, find_bin
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
