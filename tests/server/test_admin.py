"""``dorf admin`` (issue 64, item 6): each action on a real SQLite database the server made, run
in-process through the command's main function (one subprocess run for bad input); a running
server sees a ban at its next request; every action is a line of the administration log and of
the ``dorf.admin`` logger."""

from __future__ import annotations

import logging
import sqlite3
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient
from test_server_helpers import create, served

from dorf.cli import main
from dorf.server.players.accounts import COOKIE


def admin(capsys: pytest.CaptureFixture[str], db: Path, *words: str) -> tuple[int, str, str]:
    """``dorf admin --db DB WORDS``: its exit code, standard output and error."""
    code = main(["admin", "--db", str(db), *words])
    out, err = capsys.readouterr()
    return code, out, err


def player(client: TestClient, name: str) -> None:
    client.post("/api/me")
    assert client.post("/api/me/name", json={"name": name}).status_code == 200


def rows(db: Path, query: str, args: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    with sqlite3.connect(db) as conn:
        return conn.execute(query, args).fetchall()


def another(client: TestClient) -> TestClient:
    other = TestClient(client.app)
    other.portal = client.portal
    return other


@pytest.mark.slow
def test_each_action_of_dorf_admin(db: Path, capsys: pytest.CaptureFixture[str], caplog: Any) -> None:
    caplog.set_level(logging.INFO, logger="dorf.admin")
    with served(db) as alice:
        player(alice, "Alice")
        made = create(alice, "duel", seats=[{"kind": "here"}, {"kind": "online"}], seed=None)
        bob = another(alice)
        player(bob, "Bob")
        assert bob.post("/api/me/password", json={"password": "the old password"}).status_code == 200
        token = bob.post("/api/me/tokens", json={"label": "bot"}).json()["token"]
        bob_cookie = bob.cookies.get(COOKIE)

        # players: name, made, last seen, games, banned
        code, out, _ = admin(capsys, db, "players")
        assert code == 0
        lines = out.splitlines()
        assert lines[0].split() == ["name", "made", "last", "seen", "games", "banned"]
        alice_line = next(line for line in lines if line.startswith("Alice "))
        assert alice_line.split()[-2:] == ["1", "-"]
        assert any(line.startswith("Bob (bot)") for line in lines)
        code, out, _ = admin(capsys, db, "players", "--find", "ALI")
        assert [line.split()[0] for line in out.splitlines()[1:]] == ["Alice"]

        # games --live: id, mode, last move, seats
        code, out, _ = admin(capsys, db, "games", "--live")
        assert code == 0 and made["id"] in out and "duel" in out and "Alice" in out

        # ban: seen by the running server at its next request, whichever way Bob comes
        code, out, _ = admin(capsys, db, "ban", "bob", "--reason", "spam")
        assert code == 0 and out.startswith("banned Bob")
        refused = bob.post("/api/games", json={"mode": "coop", "seed": 1})
        assert refused.status_code == 403 and refused.json()["error"]["code"] == "banned"
        assert "spam" in refused.json()["error"]["message"]
        by_token = alice.post("/api/me", headers={"authorization": f"Bearer {token}"})
        assert by_token.status_code == 401 and by_token.json()["error"]["code"] == "bad-token"
        assert rows(db, "SELECT count(*) FROM server_token")[0][0] == 0
        code, out, _ = admin(capsys, db, "players", "--find", "bob")
        assert out.splitlines()[1].endswith("yes: spam")

        # unban: the kept sessions end too; Bob signs in again with a one-time link
        code, out, _ = admin(capsys, db, "unban", "Bob")
        assert code == 0
        assert bob.get("/api/me").json()["player"] is False
        code, out, err = admin(capsys, db, "unban", "Bob")
        assert code == 1 and err == "dorf admin: Bob is not banned\n"
        code, out, _ = admin(capsys, db, "reset-password", "Bob", "--base-url", "http://testserver/")
        link = out.strip()
        assert code == 0 and link.startswith("http://testserver/sign-in/") and "\n" not in link
        bob.cookies.clear()
        used = bob.post(link.removeprefix("http://testserver"), follow_redirects=False)
        assert used.status_code == 303 and used.headers["location"] == "/@/Bob"
        assert bob.get("/api/me").json()["name"] == "Bob"
        assert bob.cookies.get(COOKIE) != bob_cookie
        # the old password forgotten: a new one is set without it, and signs in
        assert bob.post("/api/me/password", json={"password": "a new one at last"}).status_code == 200
        signed = another(alice).post("/api/sign-in", json={"name": "Bob", "password": "a new one at last"})
        assert signed.status_code == 200, signed.text

        # sign-out-everywhere: every session ends
        code, out, _ = admin(capsys, db, "sign-out-everywhere", "Bob")
        assert code == 0 and "2 session(s)" in out
        assert bob.get("/api/me").json()["player"] is False

        # rename: the rules of names apply, and the name given up is not held
        code, out, err = admin(capsys, db, "rename", "Alice", "admin")
        assert code == 1 and err.startswith("dorf admin: cannot rename Alice") and err.count("\n") == 1
        code, out, err = admin(capsys, db, "rename", "Alice", "bob")
        assert code == 1 and "taken" in err
        code, out, _ = admin(capsys, db, "rename", "Alice", "Alicia")
        assert code == 0 and alice.get("/api/me").json()["name"] == "Alicia"
        assert rows(db, "SELECT count(*) FROM server_name_hold WHERE name_key = 'alice'") == [(0,)]

        # delete: the player and its data go, its game stays with the seat anonymised
        code, out, _ = admin(capsys, db, "delete", "Alicia")
        assert code == 0 and "1 seat(s)" in out
        assert rows(
            db, "SELECT name, player_id FROM server_seat WHERE game_id = ? AND seat = 0", (made["id"],)
        ) == [("Deleted player", None)]
        assert rows(db, "SELECT count(*) FROM server_player WHERE name = 'Alicia'") == [(0,)]
        assert alice.get("/api/me").json()["player"] is False

    # the log: every action, in order, in the table and on the logger
    code, out, _ = admin(capsys, db, "log")
    actions = [line.split()[1] for line in out.splitlines()]
    assert actions == ["ban", "unban", "reset-password", "sign-out-everywhere", "rename", "delete"]
    assert "spam" in out and link.rsplit("/", 1)[1] not in out  # never the link's secret
    logged = [r.getMessage() for r in caplog.records if r.getMessage().startswith("dorf admin ")]
    assert logged[0] == "dorf admin ban Bob (spam)" and len(logged) == 6


def test_a_link_is_used_once_and_runs_out(db: Path, capsys: pytest.CaptureFixture[str]) -> None:
    with served(db) as client:
        player(client, "Carol")
        _, out, _ = admin(capsys, db, "reset-password", "Carol", "--base-url", "https://x.example")
        path = out.strip().removeprefix("https://x.example")
        page = client.get(path)  # a link previewer's fetch uses nothing
        assert page.status_code == 200 and 'method="post"' in page.text
        assert client.post(path, follow_redirects=False).status_code == 303
        again = client.post(path, follow_redirects=False)
        assert again.status_code == 404 and "not valid" in again.text
        _, out, _ = admin(capsys, db, "reset-password", "Carol", "--base-url", "https://x.example")
        path = out.strip().removeprefix("https://x.example")
        with sqlite3.connect(db) as conn:
            conn.execute("UPDATE server_sign_in_link SET until = 1")
        assert client.post(path, follow_redirects=False).status_code == 404


def test_no_database_and_no_such_player_are_one_line(
    db: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, _, err = admin(capsys, tmp_path / "none.sqlite3", "players")
    assert code == 1 and err.startswith("dorf admin: there is no database at") and err.count("\n") == 1
    assert not (tmp_path / "none.sqlite3").exists()
    with served(db) as client:
        player(client, "Dave")
    code, _, err = admin(capsys, db, "ban", "Nobody")
    assert code == 1 and err == "dorf admin: there is no player 'Nobody'\n"
    code, _, err = admin(capsys, db, "reset-password", "Dave", "--base-url", "ftp://x")
    assert (
        code == 1 and "--base-url" in err and rows(db, "SELECT count(*) FROM server_sign_in_link") == [(0,)]
    )


@pytest.mark.slow
def test_bad_input_in_a_process_is_one_line_and_changes_nothing(db: Path) -> None:
    with served(db) as client:
        player(client, "Erin")
    before = rows(db, "SELECT id, name, banned FROM server_player")
    dorf = [sys.executable, "-m", "dorf.cli"]
    for words, says in (
        (["admin", "--db", str(db), "frobnicate"], "invalid choice: 'frobnicate'"),
        (["admin", "--db", str(db), "ban", "Nobody"], "there is no player 'Nobody'"),
    ):
        done = subprocess.run([*dorf, *words], capture_output=True, text=True, timeout=60)
        assert done.returncode != 0, done
        assert done.stderr.count("\n") == 1 and says in done.stderr, done.stderr
        assert "Traceback" not in done.stderr and done.stdout == ""
    assert rows(db, "SELECT id, name, banned FROM server_player") == before
    assert rows(db, "SELECT count(*) FROM server_admin_log") == [(0,)]
