"""The storage in one pattern (issue 62): rows in one module, the dialects' differences in one SQL
helper, each feature's store written once and run on both databases, one ``migrate``, no feature
imported by the storage and no import circle inside it, ``GET /api/daily`` in one storage call,
and a database made by the previous release still opened."""

from __future__ import annotations

import ast
import sqlite3
import time
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import pytest
from test_server_helpers import run_async

from dorf.db import connect, migrate
from dorf.server.storage import open_storage
from dorf.server.storage.base import Storage, StoredGame, StoredPlayer, StoredSeat
from dorf.server.storage.rows import OpenGame, Seek
from dorf.server.storage.schema import SCHEMA
from dorf.server.storage.sql import POSTGRESQL, SQLITE, Sql
from dorf.server.storage.sqlite import SqliteStorage

STORAGE = Path(__file__).parents[2] / "src" / "dorf" / "server" / "storage"
FEATURES = ("lobby", "daily", "players", "round", "computer", "edge", "protocol", "hub", "campaigns")
DAY = "2026-05-20"


def on(db: Path | str, work: Callable[[Storage], Awaitable[Any]]) -> Any:
    """``work(storage)`` on a started storage of ``db`` (closed after)."""

    async def run() -> Any:
        storage, _bus = open_storage(db)
        await storage.start()
        try:
            return await work(storage)
        finally:
            await storage.close()

    return run_async(run)


def imports_of(path: Path) -> list[str]:
    """Every module ``path`` imports, at any level (functions' and ``TYPE_CHECKING`` too)."""
    found: list[str] = []
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.ImportFrom) and node.module:
            found.append(node.module)
        elif isinstance(node, ast.Import):
            found.extend(alias.name for alias in node.names)
    return found


def test_the_storage_imports_no_feature_package() -> None:
    reached = {
        (path.name, module)
        for path in STORAGE.glob("*.py")
        for module in imports_of(path)
        if module.startswith("dorf.server.") and module.split(".")[2] in FEATURES
    }
    assert reached == set()


def test_the_storage_modules_import_each_other_in_no_circle() -> None:
    graph = {
        path.stem: {m.split(".")[3] for m in imports_of(path) if m.startswith("dorf.server.storage.")}
        for path in STORAGE.glob("*.py")
    }

    def reaches(start: str, goal: str, seen: set[str]) -> bool:
        ahead = graph.get(start, set()) - seen
        return any(nxt == goal or reaches(nxt, goal, seen | {nxt}) for nxt in ahead)

    assert [name for name in graph if reaches(name, name, set())] == []


def test_one_migrate_for_both_databases() -> None:
    defined = {path.name for path in STORAGE.glob("*.py") if "def migrate(" in path.read_text()}
    assert defined == set()  # the one is dorf.db.migrate
    assert "sqlite=" not in (STORAGE / "lobby.py").read_text()


def test_the_dialects_differ_in_one_place() -> None:
    conn = sqlite3.connect(":memory:")
    assert Sql(conn, SQLITE)("SELECT %s || %s", ("a", "b")).fetchone() == ("ab",)
    assert Sql(conn, SQLITE).text("x = %s") == "x = ?" and Sql(conn, POSTGRESQL).text("x = %s") == "x = %s"
    assert (SQLITE.lock, SQLITE.skip_locked) == ("", "")
    assert POSTGRESQL.skip_locked == " FOR UPDATE SKIP LOCKED"
    now = Sql(conn, SQLITE)(f"SELECT {SQLITE.epoch}").fetchone()[0]
    assert abs(now - time.time()) < 5


@pytest.mark.storage
def test_the_daily_page_reads_in_one_storage_call(db: Path) -> None:
    async def work(storage: Storage) -> Any:
        for n in range(4):
            await storage.new_player(StoredPlayer(f"p{n}", f"Player{n}"), None)
            await storage.daily_attempt(DAY, f"p{n}", f"g{n}", float(n))
            await storage.daily_score(f"g{n}", 10 * n, n != 2, DAY)
        calls: list[Any] = []
        real = storage.run  # type: ignore[attr-defined]

        async def counted(*args: Any) -> Any:
            calls.append(args[0])
            return await real(*args)

        storage.run = counted  # type: ignore[attr-defined]
        seen = await storage.daily_view(DAY, "p2", 100, 400, False)
        one = len(calls)
        storage.run = real  # type: ignore[attr-defined]
        return seen, one, await storage.daily_result(DAY, "p2"), await storage.daily_median(DAY, 4)

    seen, calls, mine, median = on(db, work)
    assert calls == 1
    assert seen.row.players == 4 and seen.days == [DAY]
    assert seen.mine == mine and mine.rank == 2 and not mine.finished
    assert [r.player_id for r in seen.top] == ["p3", "p2", "p1", "p0"]
    assert seen.median is None  # the day goes on and this attempt is not finished: not shown yet
    over = on(db, lambda storage: storage.daily_view(DAY, "p1", 100, 400, True))
    assert over.median == median == 15.0 and over.mine.rank == 3
    nobody = on(db, lambda storage: storage.daily_view(DAY, None, 2, 400, False))
    assert nobody.mine is None and nobody.days == [] and len(nobody.top) == 2


@pytest.mark.storage
def test_the_lobby_is_written_once_and_pairs_on_both_databases(db: Path) -> None:
    def seek(sid: str, player: str) -> Seek:
        return Seek(sid, player, player, 1500.0, 350.0, "duel", "3+2", False, 0.0)

    async def work(storage: Storage) -> Any:
        first = await storage.lobby_seek(seek("s1", "ann"), 3)
        await storage.lobby_seek(seek("s2", "bob"), 3)
        pools = await storage.lobby_pools(5)
        pairs = await storage.lobby_pair(("duel", "3+2", False), lambda seeks, now: [(seeks[0], seeks[1])])
        entry = OpenGame("g1", "ann", "ann", None, None, "coop", None, False, 1, 2, None, 0.0, "1.2.3.4")
        refused = [await storage.lobby_open(entry, 1, 5), await storage.lobby_open(entry, 1, 5)]
        return first, pools, pairs, refused, await storage.lobby_count("ann"), await storage.lobby_pools(5)

    first, pools, pairs, refused, count, after = on(db, work)
    assert first is not None and abs(first.since - time.time()) < 60  # the database's time
    assert pools == [("duel", "3+2", False, 2)]
    assert [(a.id, b.id) for a, b in pairs] == [("s1", "s2")] and after == []
    assert refused == [None, "player"] and count == 1


def test_a_server_alone_forgets_the_seeks_of_its_earlier_run(tmp_path: Path) -> None:
    db = tmp_path / "dorf.sqlite3"
    seek = Seek("s1", "ann", "ann", 1500.0, 350.0, "duel", None, False, 0.0)
    on(db, lambda storage: storage.lobby_seek(seek, 3))
    assert on(db, lambda storage: storage.lobby_pools(5)) == []


def test_a_database_of_the_previous_release_is_opened_and_upgraded(tmp_path: Path) -> None:
    """A file as 3d3af14 left it (its eight server steps) with a game and a player opens with
    the current code: the steps since are applied, the game and the player read back."""
    path = tmp_path / "old.sqlite3"
    conn = connect(path)
    assert migrate(conn, "server", SCHEMA[:8]) == 8
    conn.execute(
        "INSERT INTO server_game (id, mode, tileset, seed, created, updated, practice, first, version)"
        " VALUES ('g1', 'coop', 'base', 7, '2026-01-01', '2026-01-01', 0, 1, 0)"
    )
    conn.execute("INSERT INTO server_seat (game_id, seat, kind, name) VALUES ('g1', 0, 'here', 'Ann')")
    conn.execute(
        "INSERT INTO server_player (id, name, name_key, bot, created)"
        " VALUES ('p1', 'Ann', 'ann', 0, '2026-01-01')"
    )
    conn.close()

    async def work(storage: Storage) -> Any:
        return await storage.load_game("g1"), await storage.find_player(name="ann")

    game, player = on(path, work)
    assert isinstance(game, StoredGame) and game.seats[0] == StoredSeat(0, "here", "Ann", None, None, None)
    assert player is not None and player.id == "p1"
    versions = dict(sqlite3.connect(path).execute("SELECT component, version FROM schema_version"))
    assert versions["server"] == len(SCHEMA)


def test_the_sqlite_storage_is_the_sqlite_dialect() -> None:
    assert SqliteStorage.dialect is SQLITE
