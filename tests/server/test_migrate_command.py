"""Upgrades that say what they do (issue 64): ``dorf migrate --check`` lists the steps an upgrade
would apply and changes nothing, the server logs each step it applies (component, from, to),
``dorf migrate`` applies them, ``dorf serve --no-migrate`` refuses an old database, a newer one
is refused as before, and several servers upgrading one PostgreSQL database at once apply each
step once.

The old database is ``fixtures/db_3d3af14.sql``: made by the server of commit 3d3af14 (a player
``Fixture``, a game with one move, the daily challenge of 2026-12-05, a campaign ``Club``; how:
``fixtures/make_db_3d3af14.py``), kept as ``sqlite3 .dump`` text and loaded into a new file here.
"""

from __future__ import annotations

import hashlib
import logging
import sqlite3
import threading
from pathlib import Path

import pytest
from test_server_helpers import legal_move, served, socket

from dorf.cli import main
from dorf.db import migrate
from dorf.server.storage.schema import SCHEMA
from dorf.server.storage.upgrade import plan, ready, upgrade, versions

FIXTURE = Path(__file__).parent / "fixtures" / "db_3d3af14.sql"
#: What the fixture holds (printed by fixtures/make_db_3d3af14.py when it was made).
GAME, TOKEN = "nZCygHe76HE", "_2oH-AGRdTR7MfNgYUb4Q4KIYahXsR9e"
COOKIE = {"dorf_player": "l_3_gWZveH6iiVGWdGm2cgSiIm7WNb8OyKqjhhZOy7Q"}
DAY = "2026-12-05"
#: The server's tables at 3d3af14.
OLD = 8


def old_database(folder: Path) -> Path:
    """A new SQLite file holding the database 3d3af14 made."""
    path = folder / "old.sqlite3"
    conn = sqlite3.connect(path)
    conn.executescript(FIXTURE.read_text(encoding="utf-8"))
    conn.close()
    return path


def digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def test_the_fixture_is_3d3af14s_database(tmp_path: Path) -> None:
    assert versions(old_database(tmp_path)) == {"server": OLD, "campaign": 2}


def test_check_lists_the_steps_and_changes_nothing(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    db = old_database(tmp_path)
    before = digest(db)
    assert main(["migrate", "--check", "--db", str(db)]) == 1
    out = capsys.readouterr().out.splitlines()
    assert out[0] == f"dorf: an upgrade of {db} would apply {len(SCHEMA) - OLD} steps:"
    listed = [line.split(":")[0].strip() for line in out[1:]]
    assert listed == [f"server {n} -> {n + 1}" for n in range(OLD, len(SCHEMA))]
    assert "new column lobby_game.address" in out[1]  # what step 9 does
    assert digest(db) == before
    assert not Path(f"{db}-wal").exists()


def test_the_server_logs_each_step_it_applies_and_the_old_games_play_on(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    db = old_database(tmp_path)
    caplog.set_level(logging.INFO, logger="dorf.server")
    with served(db) as client:
        logged = [
            (r.levelno, r.getMessage()) for r in caplog.records if r.getMessage().startswith("database: ")
        ]
        assert [message.split(":")[1] for _, message in logged] == [
            f" upgrading the server tables from version {n} to {n + 1}" for n in range(OLD, len(SCHEMA))
        ]
        assert {level for level, _ in logged} == {logging.WARNING}  # an upgrade is seen by default
        steps = [r for r in caplog.records if r.getMessage().startswith("database: ")]
        fields = [
            (r.name, *(vars(r)[key] for key in ("component", "from_version", "to_version"))) for r in steps
        ]
        assert fields == [("dorf.server", "server", n, n + 1) for n in range(OLD, len(SCHEMA))]
        assert versions(db)["server"] == len(SCHEMA)
        client.cookies.update(COOKIE)
        assert client.get("/api/me").json()["name"] == "Fixture"  # the player, still signed in
        assert client.get(f"/api/daily/{DAY}").status_code == 200  # the day
        with socket(client, GAME, [TOKEN]) as sock:
            state = sock.wait(lambda s: 0 in s["game"]["waiting"])
            assert state["game"]["version"] == 1  # the move made by 3d3af14
            assert sock.request(legal_move(state, 0))["type"] == "ok"
    assert plan(db) == []


def test_migrate_applies_the_steps_then_check_finds_none(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    db = old_database(tmp_path)
    assert main(["migrate", "--db", str(db)]) == 0
    assert (
        capsys.readouterr().out
        == f"dorf: the database {db} is up to date (campaign 2, server {len(SCHEMA)})\n"
    )
    assert main(["migrate", "--check", "--db", str(db)]) == 0
    assert "is up to date" in capsys.readouterr().out
    ready(db)  # dorf serve --no-migrate would start


def test_a_new_database_is_listed_made_and_then_up_to_date(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    new = tmp_path / "new.sqlite3"
    assert main(["migrate", "--check", "--db", str(new)]) == 1  # every step, and no file made
    assert len(capsys.readouterr().out.splitlines()) == 1 + len(SCHEMA)
    assert not new.exists()
    assert main(["migrate", "--db", str(new)]) == 0
    ready(new)
    served_made = tmp_path / "served.sqlite3"
    with served(served_made):
        pass
    ready(served_made)  # what the server makes needs nothing more (dorf serve --no-migrate starts)


def test_serve_no_migrate_refuses_an_old_database(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    db = old_database(tmp_path)
    before = digest(db)
    assert main(["serve", "--no-migrate", "--db", str(db), "--port", "0"]) == 2
    err = capsys.readouterr().err
    assert err == (
        f"dorf serve: the database {db} needs {len(SCHEMA) - OLD} upgrade steps"
        f" (server {OLD} -> {len(SCHEMA)}): run dorf migrate first, or start without --no-migrate\n"
    )
    assert digest(db) == before


def test_a_database_of_a_newer_dorf_is_refused_and_left_alone(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    db = old_database(tmp_path)
    with sqlite3.connect(db) as conn:
        conn.execute("UPDATE schema_version SET version = ? WHERE component = 'server'", (len(SCHEMA) + 1,))
    conn.close()
    before = digest(db)
    for command in (["migrate", "--check"], ["migrate"]):
        assert main([*command, "--db", str(db)]) == 2
        err = capsys.readouterr().err
        assert err.count("\n") == 1 and "tables are from a newer dorf" in err, err
    assert digest(db) == before


def test_several_servers_upgrade_one_postgresql_database_once(
    pg_url: str, caplog: pytest.LogCaptureFixture, capsys: pytest.CaptureFixture[str]
) -> None:
    """A database of 3d3af14's tables on PostgreSQL; four servers start at once: one applies the
    steps (under the advisory lock), the others wait for it and find nothing to do."""
    import psycopg

    with psycopg.connect(pg_url, autocommit=True) as conn, conn.transaction():
        migrate(conn, "server", SCHEMA[:OLD], mark="%s", step=lambda c: conn.transaction())
    assert main(["migrate", "--check", "--db", pg_url]) == 1
    assert len(capsys.readouterr().out.splitlines()) == 1 + len(SCHEMA) - OLD
    caplog.set_level(logging.INFO, logger="dorf.server")
    failures: list[BaseException] = []
    start = threading.Barrier(4)

    def server() -> None:
        try:
            start.wait()
            upgrade(pg_url)
        except BaseException as exc:
            failures.append(exc)

    threads = [threading.Thread(target=server) for _ in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert failures == []
    steps = [r.getMessage().split(":")[1] for r in caplog.records if r.getMessage().startswith("database: ")]
    assert steps == [
        f" upgrading the server tables from version {n} to {n + 1}" for n in range(OLD, len(SCHEMA))
    ]
    assert versions(pg_url) == {"server": len(SCHEMA)}
    assert main(["migrate", "--check", "--db", pg_url]) == 0
