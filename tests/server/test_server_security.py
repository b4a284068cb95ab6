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
            ]:
                reply = sock.request(message)
                assert reply["type"] == "error" and reply["code"] == "bad-message", (message, reply)
            assert sock.request({"type": "ping"})["type"] == "pong"  # the socket is still open
            assert sock.hello([token])["seats"] == [0]
            assert sock.request(legal_move(sock.sync(), 0))["type"] == "ok"
    _no_traceback(caplog)


@pytest.mark.storage
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
