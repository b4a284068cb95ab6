"""What an attacker tried against the service (issue 30), each with a test that failed before:

- a lone UTF-16 surrogate (``"\\ud800"``, valid JSON, no UTF-8) as a token, an invitation, a
  name or a key, on every endpoint and websocket message: a ``bad-message`` answer, never a 500,
  a traceback in the log or a dropped socket;
- move keys belong to their seat: another seat's move with the same key is made, and the first
  seat's retry is still answered ``ok, again``;
- every error is in the project's format, the framework's own too (a 405, a 404 for a path
  such as ``/game/..%2F..``): ``{"error": {"code", "message"}}``.

The bot programs that outlive their game (a child that calls ``setsid()``) are in
``tests/players/test_bots.py``.
"""

from __future__ import annotations

import json
import logging
from pathlib import Path
from typing import Any

import pytest
from test_server_helpers import create, legal_move, served, socket

#: A lone surrogate as JSON text spells it (``json`` writes the Python string ``"\ud800"`` so).
LONE = "\ud800"


def _no_traceback(caplog: pytest.LogCaptureFixture) -> None:
    errors = [r for r in caplog.records if r.levelno >= logging.ERROR or r.exc_info]
    assert not errors, [r.getMessage() for r in errors]


def _post(client: Any, path: str, body: Any) -> Any:
    """POST ``body`` as JSON text (``json.dumps`` writes a lone surrogate as its escape)."""
    return client.post(path, content=json.dumps(body), headers={"content-type": "application/json"})


def _bad_message(response: Any) -> None:
    assert response.status_code == 400, response.text
    body = response.json()
    assert body["error"]["code"] == "bad-message", body
    assert set(body) == {"error"} and set(body["error"]) == {"code", "message"}


def test_a_lone_surrogate_is_a_bad_message_on_every_endpoint(
    db: Path, caplog: pytest.LogCaptureFixture
) -> None:
    with served(db) as client:
        solo = create(client)
        online = create(client, "duel", [{"kind": "here"}, {"kind": "online"}], seed=None)
        token = solo["tokens"]["0"]
        game = solo["id"]
        move = {"seat": 0, "at": [0, 0], "rot": 0}
        for path, body in [
            (f"/api/games/{game}/move", {**move, "token": LONE}),
            (f"/api/games/{game}/move", {**move, "token": token, "key": LONE}),
            (f"/api/games/{game}/preview", {**move, "token": LONE}),
            (f"/api/games/{game}/undo", {"seat": 0, "token": LONE}),
            (f"/api/games/{game}/hint", {"seat": 0, "token": LONE}),
            (f"/api/games/{online['id']}/resign", {"seat": 0, "token": LONE}),
            (f"/api/games/{online['id']}/resign", {"seat": LONE, "token": online["tokens"]["0"]}),
            ("/api/games", {"mode": "duel", "clock": LONE}),
            ("/api/games", {"mode": "duel", "clock": "5+3" + LONE}),
            (f"/api/games/{online['id']}/join", {"invite": LONE}),
            (f"/api/games/{online['id']}/join", {"invite": online["invites"]["1"], "name": LONE}),
            ("/api/games", {"mode": "coop", "seats": [{"kind": "here", "name": LONE}]}),
            ("/api/games", {"mode": LONE}),
            ("/api/campaigns", {"name": LONE}),
            ("/api/campaigns/Family/choose", {"branch": LONE}),
            (
                "/api/replay",
                {
                    "format": "dorf-record/1",
                    "mode": "coop",
                    "tileset": "base",
                    "seed": 1,
                    "players": [LONE],
                    "decisions": [],
                },
            ),
        ]:
            _bad_message(_post(client, path, body))
        # The game is as it was, and its seat still plays.
        assert client.get(f"/api/games/{game}").json()["turn"] == 0
        assert client.get(f"/api/games/{online['id']}").json()["over"] is False  # nobody resigned
        made = client.post(f"/api/games/{game}/move", json={**move, "token": token})
        assert made.status_code == 200 and made.json()["ok"] is True
    _no_traceback(caplog)


def test_a_lone_surrogate_in_a_websocket_message_is_answered_and_the_socket_stays(
    db: Path, caplog: pytest.LogCaptureFixture
) -> None:
    with served(db) as client:
        made = create(client)
        token = made["tokens"]["0"]
        with socket(client, made["id"]) as sock:
            for message in [
                {"type": "hello", "tokens": [LONE]},
                {"type": LONE},
                {"type": "move", "seat": 0, "at": [0, 0], "rot": 0, "key": LONE},
                {"type": "resign", "seat": LONE},
            ]:
                reply = sock.request(message)
                assert reply["type"] == "error" and reply["code"] == "bad-message", (message, reply)
            assert sock.request({"type": "ping"})["type"] == "pong"  # the socket is still open
            assert sock.hello([token])["seats"] == [0]
            assert sock.request(legal_move(sock.sync(), 0))["type"] == "ok"
    _no_traceback(caplog)


@pytest.mark.storage
@pytest.mark.slow
def test_move_keys_belong_to_their_seat(db: Path) -> None:
    with served(db) as client:
        made = create(client, "duel")
        tokens = list(made["tokens"].values())
        with socket(client, made["id"], tokens) as sock:
            first = {**legal_move(sock.sync(), 0), "key": "mine"}
            assert sock.request(first) == {"type": "ok", "id": sock.next_id - 1, "version": 1}
            other = {**legal_move(sock.sync(), 1), "key": "mine"}  # the other seat, the same key
            reply = sock.request(other)
            assert reply["type"] == "ok" and "again" not in reply and reply["version"] == 2, reply
            again = sock.request(first)  # seat 0's honest retry
            assert again["type"] == "ok" and again["again"] is True, again
            assert sock.sync()["game"]["turn"] == 2
        with socket(client, made["id"], tokens) as sock:  # and so once the game is read again
            assert sock.request(first)["again"] is True
            assert sock.request(other)["again"] is True


@pytest.mark.parametrize(
    ("method", "path", "status", "code"),
    [
        ("GET", "/game/..%2F..", 404, "not-found"),
        ("GET", "/nothing/here", 404, "not-found"),
        ("GET", "/api/games", 405, "method-not-allowed"),
        ("DELETE", "/api/games/abc", 405, "method-not-allowed"),
        ("PUT", "/api/health", 405, "method-not-allowed"),
    ],
)
def test_the_frameworks_own_errors_are_in_the_projects_format(
    db: Path, method: str, path: str, status: int, code: str
) -> None:
    with served(db) as client:
        response = client.request(method, path)
        assert response.status_code == status
        assert response.json() == {"error": {"code": code, "message": response.json()["error"]["message"]}}
        assert response.json()["error"]["message"]


def test_a_lone_surrogate_in_the_lobby_is_a_bad_message(db: Path, caplog: pytest.LogCaptureFixture) -> None:
    """The lobby's endpoints and its socket (issue 31): an open game, a take, a seek."""
    with served(db) as client:
        open_seats = [{"kind": "here"}, {"kind": "online"}]
        made = client.post("/api/games", json={"mode": "duel", "open": True, "seats": open_seats})
        assert made.status_code == 201, made.text
        for path, body in [
            ("/api/games", {"mode": "duel", "open": True, "seats": open_seats, "clock": LONE}),
            (
                "/api/games",
                {"mode": "duel", "open": True, "seats": [{"kind": "here", "name": LONE}, open_seats[1]]},
            ),
            (f"/api/lobby/{made.json()['id']}/take", {"name": LONE}),
            (f"/api/games/{made.json()['id']}/rematch", {"x": LONE}),
        ]:
            _bad_message(_post(client, path, body))
        assert [g["free"] for g in client.get("/api/lobby").json()["games"]] == [1]  # nothing changed
        with client.websocket_connect("/ws/lobby") as ws:
            assert ws.receive_json()["type"] == "lobby"
            assert ws.receive_json()["type"] == "seekers"  # how many look in each pool: none
            for message in [
                {"type": "seek", "mode": LONE, "clock": "3+2"},
                {"type": "seek", "mode": "duel", "clock": LONE},
                {"type": "take", "game": LONE},
                {"type": LONE},
            ]:
                ws.send_text(json.dumps({**message, "id": 5}))
                reply = ws.receive_json()
                assert reply["type"] == "error" and reply["code"] == "bad-message", (message, reply)
            ws.send_text('{"type": "ping", "id": 6}')
            assert ws.receive_json() == {"type": "pong", "id": 6}
    _no_traceback(caplog)


@pytest.mark.slow
def test_a_lone_surrogate_is_a_bad_message_on_the_players_endpoints(
    db: Path, caplog: pytest.LogCaptureFixture
) -> None:
    """Issue 31's endpoints: a name, a password, a sign-in, the rated flag; nothing changes."""
    with served(db) as client:
        name = client.post("/api/me").json()["name"]
        assert _post(client, "/api/me/password", {"password": "a good password"}).status_code == 200
        for path, body in [
            ("/api/me/name", {"name": LONE}),
            ("/api/me/name", {"name": "Ann" + LONE}),
            ("/api/me/password", {"password": LONE * 10}),
            ("/api/me/password", {"password": "another password", "current": LONE}),
            ("/api/sign-in", {"name": LONE, "password": "a good password"}),
            ("/api/sign-in", {"name": name, "password": LONE}),
            ("/api/games", {"mode": "duel", "rated": LONE}),
        ]:
            _bad_message(_post(client, path, body))
        after = client.post("/api/me").json()
        assert after["name"] == name and after["signed_in"] is True
        assert _post(client, "/api/sign-in", {"name": name, "password": "a good password"}).status_code == 200
        assert client.get("/api/players/%ED%A0%80").status_code == 404
    _no_traceback(caplog)
