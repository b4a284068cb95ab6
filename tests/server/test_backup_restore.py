"""``dorf backup`` and ``dorf restore`` (issue 64): a consistent copy of a live database, on SQLite
and on PostgreSQL, taken while a server runs; restored into an empty database, a server on it
serves every game, player, day and campaign as before (a game made after the backup is not
there), and bad input is one line, exit 2, nothing changed."""

from __future__ import annotations

import hashlib
import sqlite3
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient
from test_server_helpers import create, legal_move, served, socket

from dorf.cli import main
from dorf.server.storage import is_url

DAY = "2026-12-05"


def digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def move(client: TestClient, game: dict[str, Any]) -> int:
    """Make one move in ``game`` (seat 0) and wait until it is stored; the game's version."""
    with socket(client, game["id"], [game["tokens"]["0"]]) as sock:
        state = sock.wait(lambda s: 0 in s["game"]["waiting"])
        assert sock.request(legal_move(state, 0))["type"] == "ok"
        version: int = sock.sync()["game"]["version"]
        sock.wait_saved(version)
        return version


@pytest.mark.storage
@pytest.mark.slow
def test_a_backup_of_a_running_server_restores_every_game_player_and_day(
    db: Path, tmp_path: Path, request: pytest.FixtureRequest, capsys: pytest.CaptureFixture[str]
) -> None:
    postgres = is_url(db)
    target = (
        request.getfixturevalue("pg_cluster").fresh_database() if postgres else tmp_path / "restored.sqlite3"
    )
    backup = tmp_path / "dorf.backup"
    today = tmp_path / "today"
    today.write_text(DAY)
    with served(db, today_file=today, daily_coach="planner:1") as client:
        me = client.post("/api/me")
        assert me.status_code in (200, 201), me.text
        assert client.post("/api/me/name", json={"name": "Backer"}).status_code == 200
        kept = [create(client, seed=seed) for seed in (3, 4)]
        versions = [move(client, game) for game in kept]
        daily = client.post("/api/daily", json={})
        assert daily.status_code == 201, daily.text
        day = client.get(f"/api/daily/{DAY}").json()
        assert client.post("/api/campaigns", json={"name": "Club"}).status_code == 201
        campaigns = client.get("/api/campaigns").json()
        # the server runs on: the backup is taken from its live database
        assert main(["backup", str(backup), "--db", str(db)]) == 0
        assert capsys.readouterr().out.startswith("dorf: backed up ")
        later = create(client, seed=5)
        move(client, later)
        cookies = dict(client.cookies)
    assert main(["restore", str(backup), "--db", str(target)]) == 0
    assert capsys.readouterr().out.startswith(f"dorf: restored {backup} into ")
    with served(target, today_file=today, daily_coach="planner:1") as client:
        client.cookies.update(cookies)
        assert client.get("/api/me").json()["name"] == "Backer"  # the player and their session
        assert client.get(f"/api/daily/{DAY}").json() == day  # the day, its attempts and seed
        assert client.get("/api/campaigns").json() == campaigns  # the player's campaign
        assert client.get(f"/api/games/{later['id']}").status_code == 404  # made after the backup
        for game, version in zip(kept, versions, strict=True):
            assert client.get(f"/api/games/{game['id']}").status_code == 200
            assert move(client, game) == version + 1  # playable, from where it was
        same = client.post("/api/daily", json={})  # the day's secret: the same shuffle as before
        assert same.status_code == 409 or same.json()["id"] == daily.json()["id"], same.text
    if postgres:
        request.getfixturevalue("pg_cluster").drop_database(str(target))


def test_backup_refuses_a_file_that_exists(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    db = tmp_path / "dorf.sqlite3"
    assert main(["migrate", "--db", str(db)]) == 0
    there = tmp_path / "there.backup"
    there.write_text("keep me")
    capsys.readouterr()
    assert main(["backup", str(there), "--db", str(db)]) == 2
    assert (
        capsys.readouterr().err
        == f"dorf backup: {there} exists: a backup never overwrites a file (name a new one)\n"
    )
    assert there.read_text() == "keep me"
    assert sorted(p.name for p in tmp_path.iterdir() if not p.name.startswith("dorf.sqlite3")) == [
        "there.backup"
    ]


def test_backup_of_what_is_not_a_dorf_database_makes_no_file(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    other = tmp_path / "other.sqlite3"
    sqlite3.connect(other).execute("CREATE TABLE t (x)").connection.close()
    for db, said in (
        (tmp_path / "missing.sqlite3", "there is no database"),
        (other, "has no dorf tables: there is nothing to back up"),
    ):
        assert main(["backup", str(tmp_path / "b.backup"), "--db", str(db)]) == 2
        err = capsys.readouterr().err
        assert err.count("\n") == 1 and said in err, err
        assert not (tmp_path / "b.backup").exists()
    assert sorted(p.name for p in tmp_path.iterdir()) == ["other.sqlite3"]


def test_restore_refuses_a_database_that_is_not_empty(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    db = tmp_path / "dorf.sqlite3"
    assert main(["migrate", "--db", str(db)]) == 0
    assert main(["backup", str(tmp_path / "b.backup"), "--db", str(db)]) == 0
    live = tmp_path / "live.sqlite3"
    sqlite3.connect(live).execute("CREATE TABLE mine (x)").connection.close()
    before = digest(live)
    capsys.readouterr()
    assert main(["restore", str(tmp_path / "b.backup"), "--db", str(live)]) == 2
    err = capsys.readouterr().err
    assert (
        err == f"dorf restore: {live} is not empty (1 tables):"
        " restore only into a new file or an empty database\n"
    )
    assert digest(live) == before


def test_restore_refuses_what_is_not_a_backup(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    text = tmp_path / "notes.txt"
    text.write_text("not a backup\n")
    other = tmp_path / "other.sqlite3"
    sqlite3.connect(other).execute("CREATE TABLE t (x)").connection.close()
    target = tmp_path / "new.sqlite3"
    for file, said in (
        (text, "is not a dorf backup (neither a SQLite file nor a pg_dump archive)"),
        (other, "is not a dorf backup (it has no dorf tables)"),
        (tmp_path / "missing.backup", "there is no file"),
    ):
        assert main(["restore", str(file), "--db", str(target)]) == 2
        err = capsys.readouterr().err
        assert err.count("\n") == 1 and said in err, err
        assert not target.exists()
    assert main(["restore", str(other), "--db", "postgresql://nobody@127.0.0.1:1/none"]) == 2
    assert "is a backup of a SQLite file: restore it into one" in capsys.readouterr().err


def test_restore_into_a_postgresql_database_that_is_not_empty_changes_nothing(
    pg_url: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["migrate", "--db", pg_url]) == 0
    backup = tmp_path / "pg.backup"
    assert main(["backup", str(backup), "--db", pg_url]) == 0
    assert backup.read_bytes().startswith(b"PGDMP")
    capsys.readouterr()
    assert main(["restore", str(backup), "--db", pg_url]) == 2
    err = capsys.readouterr().err
    assert err.startswith("dorf restore: the database postgresql://") and "is not empty" in err, err
    assert main(["backup", str(backup), "--db", pg_url]) == 2  # and the file that exists stays
    assert "exists: a backup never overwrites a file" in capsys.readouterr().err


@pytest.mark.slow
def test_the_commands_as_an_operator_runs_them(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """``dorf backup`` as a process, $DORF_DB naming the database: a backup, then one line and exit
    2 for a second one into the same file, no traceback."""
    live = tmp_path / "live.sqlite3"
    monkeypatch.setenv("DORF_DB", str(live))
    assert main(["migrate"]) == 0  # $DORF_DB, as dorf serve reads it
    assert capsys.readouterr().out == f"dorf: the database {live} is up to date ({versions_of(live)})\n"

    def backup() -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [sys.executable, "-m", "dorf.cli", "backup", str(tmp_path / "nightly.backup")],
            capture_output=True,
            text=True,
            timeout=60,
            check=False,
        )

    made = backup()
    assert made.returncode == 0 and made.stdout.startswith(f"dorf: backed up {live} into "), made
    again = backup()
    assert again.returncode == 2 and again.stderr.count("\n") == 1 and "Traceback" not in again.stderr
    assert main(["restore", str(tmp_path / "nightly.backup"), "--db", str(tmp_path / "new.sqlite3")]) == 0
    assert main(["migrate", "--check", "--db", str(tmp_path / "new.sqlite3")]) == 0


def versions_of(db: Path) -> str:
    from dorf.server.storage.upgrade import versions

    return ", ".join(f"{name} {version}" for name, version in sorted(versions(db).items()))
