"""Where the server's tests run: a test that asks for ``db`` gets a SQLite file, and a test marked
``storage`` (it exercises what the storage does: storing and reading back moves, undos, seats,
keys, leases, restarts, the clients and requests it counts) runs on a PostgreSQL database of its
own too (``[sqlite]``, ``[postgresql]``).  Everything else the server does (the protocol, the
views, deltas, previews, hosts and origins, hints) is the same code on either database, and runs
once.  A test that reads the SQLite file itself is marked ``sqlite_only``."""

from __future__ import annotations

import pytest


def pytest_generate_tests(metafunc: pytest.Metafunc) -> None:
    if "db" not in metafunc.fixturenames:
        return
    definition = metafunc.definition
    both = definition.get_closest_marker("storage") is not None
    if definition.get_closest_marker("sqlite_only") is not None:
        both = False
    metafunc.parametrize("db", ["sqlite", "postgresql"] if both else ["sqlite"], indirect=True)
