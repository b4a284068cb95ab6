"""Privacy (issue 64, item 7): a player's export, its deletion of its own account (its games kept,
its seats anonymised), a banned player refused wherever it would play, the privacy page (the
default, or the operator's file escaped or as HTML)."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient
from test_server_helpers import create, served, socket

from dorf.cli import main
from dorf.server.edge.privacy import notice_html


def player(client: TestClient, name: str) -> None:
    client.post("/api/me")
    assert client.post("/api/me/name", json={"name": name}).status_code == 200


def another(client: TestClient) -> TestClient:
    other = TestClient(client.app)
    other.portal = client.portal
    return other


def refused(answer: Any, status: int, code: str) -> None:
    assert answer.status_code == status, answer.text
    assert answer.json()["error"]["code"] == code, answer.text


def sql(db: Path, query: str, args: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    with sqlite3.connect(db) as conn:
        return conn.execute(query, args).fetchall()


def test_the_export_holds_the_players_data_and_no_secret(db: Path) -> None:
    with served(db) as client:
        player(client, "Freya")
        made = create(client, "duel", seats=[{"kind": "here"}, {"kind": "online"}], seed=None)
        token = client.post("/api/me/tokens", json={"label": "my bot"}).json()["token"]
        (pid,) = sql(db, "SELECT id FROM server_player WHERE name = 'Freya'")[0]
        with sqlite3.connect(db) as conn:  # a rating, its history and a daily result, as stored
            conn.execute(
                "INSERT INTO server_rating VALUES (?, 'duel', 1550.0, 120.0, 0.06, 1, 1700000000.0)", (pid,)
            )
            conn.execute(
                "INSERT INTO server_rating_game (game_id, player_id, mode, opponent_id, score, rating_before,"
                " rating_after, rd_after, ended) VALUES (?, ?, 'duel', 'gone', 1.0, 1500, 1550, 120, 1.7e9)",
                (made["id"], pid),
            )
            conn.execute(
                "INSERT INTO server_daily_result (day, player_id, game_id, score, finished, started, place)"
                " VALUES ('2026-12-01', ?, 'g-daily', 140, 1, 1.7e9, 3)",
                (pid,),
            )
        answer = client.get("/api/me/export")
        assert answer.status_code == 200
        assert answer.headers["content-disposition"] == 'attachment; filename="dorf-Freya.json"'
        data = answer.json()
        assert data["format"] == "dorf-player-export/1"
        assert data["player"]["name"] == "Freya" and data["player"]["bot"] is True
        assert len(data["player"]["sessions"]) == 1
        assert [t["label"] for t in data["tokens"]] == ["my bot"]
        [game] = data["games"]
        assert (
            game["id"] == made["id"]
            and game["mode"] == "duel"
            and game["seats"] == [{"seat": 0, "name": "Freya"}]
        )
        assert data["ratings"][0]["mode"] == "duel" and data["ratings"][0]["rating"] == 1550.0
        assert data["rating_history"][0]["opponent"] == "Deleted player"
        assert data["rating_history"][0]["rating_after"] == 1550
        assert data["daily"] == [
            {
                "day": "2026-12-01",
                "game": "g-daily",
                "score": 140,
                "finished": True,
                "place": 3,
                "started": 1.7e9,
            }
        ]
        text = answer.text
        assert token not in text and token[5:] not in text
        for (secret,) in sql(
            db, "SELECT secret_hash FROM server_session UNION ALL SELECT token_hash FROM server_token"
        ):
            assert secret not in text
        refused(another(client).get("/api/me/export"), 401, "no-player")


def test_deleting_ones_account_keeps_its_games_with_the_seat_anonymised(db: Path) -> None:
    with served(db) as client:
        player(client, "Gunnar")
        made = create(client, "duel", seats=[{"kind": "here"}, {"kind": "online"}], seed=None)
        token = client.post("/api/me/tokens", json={}).json()["token"]
        refused(client.post("/api/me/delete", json={"name": "Gunnarr"}), 400, "confirm-name")
        refused(
            client.post(
                "/api/me/delete", json={"name": "gunnar"}, headers={"authorization": f"Bearer {token}"}
            ),
            403,
            "need-cookie",
        )
        assert sql(db, "SELECT count(*) FROM server_player WHERE name = 'Gunnar'") == [(1,)]
        answer = client.post("/api/me/delete", json={"name": "gunnar"})
        assert answer.status_code == 200 and answer.json() == {"deleted": True}
        assert 'dorf_player=""' in answer.headers["set-cookie"]
        assert sql(db, "SELECT count(*) FROM server_player WHERE name = 'Gunnar'") == [(0,)]
        for table in ("server_session", "server_token", "server_password", "server_rating"):
            assert sql(db, f"SELECT count(*) FROM {table}") == [(0,)], table
        assert sql(
            db, "SELECT name, player_id FROM server_seat WHERE game_id = ? ORDER BY seat", (made["id"],)
        )[0] == (
            "Deleted player",
            None,
        )
        assert client.get(f"/api/games/{made['id']}").status_code == 200  # the game is still there
        assert sql(db, "SELECT action, target FROM server_admin_log") == [
            ("delete", "(a player's own request)")
        ]
        assert client.get("/api/me").json()["player"] is False


@pytest.mark.slow
def test_a_banned_player_cannot_create_take_a_seat_or_seek(
    db: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    with served(db) as client:
        player(client, "Hilde")
        host = another(client)
        player(host, "Host")
        made = create(host, "duel", seats=[{"kind": "here"}, {"kind": "online"}], seed=None)
        with client.websocket_connect("/ws/lobby") as early:  # a socket open before the ban
            assert json.loads(early.receive_text())["type"] == "lobby"
            assert main(["admin", "--db", str(db), "ban", "Hilde", "--reason", "rude"]) == 0
            early.send_text(json.dumps({"type": "seek", "mode": "duel", "clock": "3+2", "rated": False}))
            reply = json.loads(early.receive_text())
            while reply.get("type") != "error":
                reply = json.loads(early.receive_text())
            assert reply["code"] == "banned"
        capsys.readouterr()
        refused(client.post("/api/games", json={"mode": "coop", "seed": 3}), 403, "banned")
        refused(
            client.post(
                "/api/games",
                json={"mode": "duel", "open": True, "seats": [{"kind": "here"}, {"kind": "online"}]},
            ),
            403,
            "banned",
        )
        joined = client.post(f"/api/games/{made['id']}/join", json={"invite": made["invites"]["1"]})
        refused(joined, 403, "banned")
        with client.websocket_connect("/ws/lobby") as late:  # a socket opened after it
            assert json.loads(late.receive_text())["type"] == "lobby"
            late.send_text(json.dumps({"type": "seek", "mode": "duel", "clock": "3+2", "rated": False}))
            reply = json.loads(late.receive_text())
            while reply.get("type") != "error":
                reply = json.loads(late.receive_text())
            assert reply["code"] == "banned"
        refused(client.post("/api/daily", json={}), 403, "banned")
        me = client.get("/api/me").json()  # the pages still show, and say why
        assert me["player"] is False and "rude" in me["banned"]
        refused(
            client.post("/api/sign-in", json={"name": "Hilde", "password": "whatever it is"}),
            401,
            "wrong-password",
        )
        # the seat is still free for someone else
        assert (
            host.post(f"/api/games/{made['id']}/join", json={"invite": made["invites"]["1"]}).status_code
            == 200
        )


def test_the_privacy_page_default_and_the_operators_own(db: Path, tmp_path: Path) -> None:
    with served(db) as client:
        page = client.get("/privacy")
        assert page.status_code == 200 and page.headers["content-type"].startswith("text/html")
        for said in ("Network addresses", "argon2id", "Deleted player", "30 days", "7 days"):
            assert said in page.text
    text = tmp_path / "privacy.md"
    text.write_text("# Our club\n\nWe keep <script>alert(1)</script> **little**.\n\n- one\n- two\n")
    shown = notice_html(text)
    assert "<h1>Our club</h1>" in shown and "&lt;script&gt;" in shown and "<b>little</b>" in shown
    assert "<li>one</li>" in shown
    markup = tmp_path / "privacy.html"
    markup.write_text("<p>Ours, <em>as HTML</em></p>")
    with served(db, privacy_file=markup) as client:
        assert "<p>Ours, <em>as HTML</em></p>" in client.get("/privacy").text


@pytest.mark.storage
def test_the_admin_and_privacy_sql_on_either_database(db: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """Export, ban, a link, the lists, deletion: the same SQL on SQLite and PostgreSQL."""
    with served(db) as client:
        player(client, "Ingrid")
        made = create(client, "duel", seats=[{"kind": "here"}, {"kind": "online"}], seed=None)
        assert client.get("/api/me/export").json()["games"][0]["id"] == made["id"]
        for words in (["players", "--find", "ingrid"], ["games", "--live"], ["ban", "Ingrid"]):
            assert main(["admin", "--db", str(db), *words]) == 0
        refused(client.post("/api/games", json={"mode": "coop", "seed": 3}), 403, "banned")
        assert main(["admin", "--db", str(db), "unban", "Ingrid"]) == 0
        capsys.readouterr()
        assert main(["admin", "--db", str(db), "reset-password", "Ingrid", "--base-url", "http://t"]) == 0
        path = capsys.readouterr().out.strip().removeprefix("http://t")
        assert client.post(path, follow_redirects=False).status_code == 303
        assert client.post(path, follow_redirects=False).status_code == 404
        assert client.post("/api/me/delete", json={"name": "Ingrid"}).status_code == 200
        seats = client.get(f"/api/games/{made['id']}/players").json()["players"]
        assert seats[0] is None  # linked to nobody now
        assert main(["admin", "--db", str(db), "log"]) == 0
        logged = capsys.readouterr().out
        assert [line.split()[1] for line in logged.splitlines()] == [
            "ban",
            "unban",
            "reset-password",
            "delete",
        ]


def test_a_banned_player_says_nothing_at_the_table(db: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """A seat held before the ban: the game's socket stays, its talk is refused at once; and a
    deleted player's lines stay with the game under the seat's new name."""
    with served(db) as client:
        host = another(client)
        player(host, "Jarl")
        made = create(host, "duel", seats=[{"kind": "here"}, {"kind": "online"}], seed=None)
        player(client, "Kari")
        joined = client.post(f"/api/games/{made['id']}/join", json={"invite": made["invites"]["1"]})
        assert joined.status_code == 200, joined.text
        with socket(client, made["id"], [joined.json()["token"]]) as kari:
            assert kari.request({"type": "say", "seat": 1, "text": "hello"})["type"] == "ok"
            [line] = client.get("/api/me/export").json()["talk"]
            assert line["text"] == "hello" and line["game"] == made["id"] and line["seat"] == 1
            assert main(["admin", "--db", str(db), "ban", "Kari"]) == 0
            refused = kari.request({"type": "say", "seat": 1, "text": "and again"})
            assert refused["type"] == "error" and refused["code"] == "banned"
        assert main(["admin", "--db", str(db), "delete", "Kari"]) == 0
        capsys.readouterr()
        assert sql(db, "SELECT name, text FROM server_talk") == [("Deleted player", "hello")]
        assert host.get("/api/me/export").json()["talk"] == []


def test_exports_are_limited_per_address(db: Path) -> None:
    """A player's whole history is read for an export: a few a minute from one address."""
    from dorf.server.edge.privacy import EXPORTS_PER_MINUTE

    with served(db) as client:
        player(client, "Ann")
        for _ in range(EXPORTS_PER_MINUTE):
            assert client.get("/api/me/export").status_code == 200
        answer = client.get("/api/me/export")
        assert answer.status_code == 429 and answer.headers["Retry-After"]
