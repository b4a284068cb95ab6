"""The lobby's doors (issue 60): lobby sockets capped per address, open games that expire (an
injected clock), a bounded list at connect (the newest, and the player's own), open games
bounded per address, and no invitation code in uvicorn's access log."""

from __future__ import annotations

import logging
import time
from collections.abc import Iterator
from contextlib import ExitStack, contextmanager
from typing import Any

import pytest
from fastapi.testclient import TestClient
from starlette.websockets import WebSocketDisconnect
from test_lobby import Lobby
from test_server_helpers import ADDRESS, addressed

from dorf.server.config import ServerConfig
from dorf.server.hub import create_app

Json = dict[str, Any]
#: How long an open game waits (:mod:`dorf.server.lobby.listing`): a real-time clock, and else.
EXPIRE_REAL_TIME = 30 * 60.0
EXPIRE_SLOW = 24 * 3600.0
PER_ADDRESS = 8  # dorf serve --open-games-per-address, by default
#: The header that tells :func:`served_from` which address a request comes from.


@contextmanager
def served_from(db: Any, **config: Any) -> Iterator[tuple[TestClient, Any]]:
    """A test client and the app's hub; a request with ``x-test-address: A`` comes from A."""
    # many new players from one address here
    settings = {"ai_workers": 0, "ai_delay": 0.0, "daily_expert": "greedy", "player_limit": 0, **config}
    app = create_app(ServerConfig(db=db, **settings))
    with TestClient(addressed(app)) as client:
        yield client, app.state.hub


def open_game(client: TestClient, address: str = "1.1.1.1", cookie: str | None = None, **more: Any) -> Json:
    """A new open game (a Duel by default) from ``address``; ``cookie``: as that player, else a
    new one.  The answer, with ``cookie`` the player's cookie header."""
    client.cookies.clear()
    headers = {ADDRESS: address, **({"cookie": cookie} if cookie else {})}
    body = {"mode": "duel", "open": True, "seats": [{"kind": "here"}, {"kind": "online"}], **more}
    answer = client.post("/api/games", json=body, headers=headers)
    assert answer.status_code == 201, answer.text
    made: Json = answer.json()
    jar = dict(client.cookies)
    client.cookies.clear()
    made["cookie"] = cookie or "; ".join(f"{k}={v}" for k, v in jar.items())
    return made


@contextmanager
def lobby_socket(client: TestClient, address: str = "1.1.1.1", cookie: str | None = None) -> Iterator[Lobby]:
    headers = {ADDRESS: address, **({"cookie": cookie} if cookie else {})}
    with client.websocket_connect("/ws/lobby", headers=headers) as ws:
        sock = Lobby(ws)
        assert sock.receive()["type"] == "lobby"
        yield sock


def turned_away(client: TestClient, address: str) -> Json:
    """Connect a lobby socket from ``address`` and expect ``busy``, then the close 1013."""
    with client.websocket_connect("/ws/lobby", headers={ADDRESS: address}) as ws:
        message: Json = ws.receive_json()
        assert message["type"] == "error" and message["code"] == "busy", message
        with pytest.raises(WebSocketDisconnect) as closed:
            while True:
                ws.receive_json()
        assert closed.value.code == 1013
    return message


def test_one_address_holds_at_most_its_share_of_the_lobby_sockets(db: Any) -> None:
    with served_from(db, max_connections_per_address=2, max_connections=10) as (client, hub):
        with ExitStack() as stack:
            for _ in range(2):
                stack.enter_context(lobby_socket(client, "6.6.6.6"))
            refusal = turned_away(client, "6.6.6.6")
            assert "your address" in refusal["message"]
            with lobby_socket(client, "7.7.7.7") as other:  # another address still gets in
                assert other.request({"type": "ping"})["type"] == "pong"
            assert hub.lobby.health()["clients"] == 2
        with lobby_socket(client, "6.6.6.6") as again:  # one closed: room again
            assert again.request({"type": "ping"})["type"] == "pong"
        assert hub.lobby.addresses.counts == {}  # every socket that left is uncounted


def test_the_lobby_is_still_full_at_max_connections(db: Any) -> None:
    with (
        served_from(db, max_connections_per_address=0, max_connections=2) as (client, _hub),
        lobby_socket(client, "1.1.1.1"),
        lobby_socket(client, "2.2.2.2"),
    ):
        assert "full" in turned_away(client, "3.3.3.3")["message"]


@pytest.mark.storage
def test_an_open_game_nobody_takes_expires_and_says_when(db: Any) -> None:
    with served_from(db) as (client, hub):
        before = time.time()
        quick = open_game(client, clock="3+2")
        slow = open_game(client, clock="1d")
        untimed = open_game(client, mode="coop", seats=[{"kind": "here"}, {"kind": "online"}])
        assert before + EXPIRE_REAL_TIME - 2 <= quick["expires"] <= time.time() + EXPIRE_REAL_TIME + 2
        assert before + EXPIRE_SLOW - 2 <= slow["expires"] <= time.time() + EXPIRE_SLOW + 2
        listed = {g["id"]: g for g in client.get("/api/lobby").json()["games"]}
        assert listed[quick["id"]]["expires"] == quick["expires"]
        assert listed[untimed["id"]]["expires"] - listed[untimed["id"]]["since"] == pytest.approx(
            EXPIRE_SLOW, abs=1
        )
        lobby = hub.lobby
        with lobby_socket(client, "2.2.2.2") as watching:
            assert watching.games()[quick["id"]]["expires"] == quick["expires"]
            lobby.now = lambda: time.time() + EXPIRE_REAL_TIME + 5  # half an hour later
            late = client.post(f"/api/lobby/{quick['id']}/take", headers={ADDRESS: "2.2.2.2"})
            assert late.status_code == 404 and late.json()["error"]["code"] == "not-open", late.text
            assert "in time" in late.json()["error"]["message"]
            assert client.portal.call(lobby.expire) == 1  # the real-time one; not the others yet
            games = watching.wait_games(lambda g: quick["id"] not in g)  # a delta takes it away
            assert set(games) == {slow["id"], untimed["id"]}
            lobby.now = lambda: time.time() + EXPIRE_SLOW + 5  # a day later
            assert client.portal.call(lobby.expire) == 2
            watching.wait_games(lambda g: g == {})
        assert client.get("/api/lobby").json() == {"games": []}
        assert client.get(f"/api/games/{quick['id']}").status_code == 200  # the game itself stays
        # the creator's room is back: the expired ones no longer count against their bounds
        assert open_game(client, cookie=quick["cookie"], clock="3+2")["expires"] > quick["expires"] - 1


def test_a_lobby_client_gets_the_newest_open_games_and_its_own(db: Any, monkeypatch: Any) -> None:
    monkeypatch.setattr("dorf.server.lobby.listing.SHOWN", 3, raising=False)
    with served_from(db) as (client, _hub):
        ann = open_game(client, "1.0.0.1")  # the oldest
        time.sleep(0.01)  # distinct times (the newest are by the time listed)
        newer = []
        for n in range(3):
            newer.append(open_game(client, f"1.0.0.{n + 2}")["id"])
            time.sleep(0.01)
        with lobby_socket(client, "9.9.9.9") as anyone, lobby_socket(client, "1.0.0.1", ann["cookie"]) as own:
            assert set(anyone.games()) == set(newer)  # the 3 newest, not all 4
            assert set(own.games()) == {*newer, ann["id"]}  # and Ann's own beyond them
            assert {g["id"] for g in client.get("/api/lobby").json()["games"]} == set(newer)
            latest = open_game(client, "1.0.0.9")["id"]
            anyone.wait_games(lambda g: set(g) == {*newer[1:], latest})
            own.wait_games(lambda g: set(g) == {*newer[1:], latest, ann["id"]})
            # Ann withdraws hers from beyond the newest: it leaves her list (her own delta)
            assert own.request({"type": "withdraw", "game": ann["id"]})["type"] == "withdrawn"
            own.wait_games(lambda g: set(g) == {*newer[1:], latest})
            anyone.ws.send_text('{"type": "sync"}')  # the whole list again: still the 3 newest
            assert anyone.wait(lambda m: m["type"] == "lobby" and len(anyone.seen) > 1) is not None
            assert set(anyone.games()) == {*newer[1:], latest}


@pytest.mark.storage
def test_an_address_lists_a_bounded_number_of_open_games(db: Any) -> None:
    with served_from(db) as (client, hub):
        made = [open_game(client, "5.5.5.5") for _ in range(PER_ADDRESS)]  # a new player each time
        answer = client.post(
            "/api/games",
            json={"mode": "duel", "open": True, "seats": [{"kind": "here"}, {"kind": "online"}]},
            headers={ADDRESS: "5.5.5.5"},
        )
        assert answer.status_code == 429 and answer.json()["error"]["code"] == "address-full", answer.text
        listed = client.get("/api/lobby").json()["games"]
        assert len(listed) == PER_ADDRESS  # nothing more listed
        assert open_game(client, "5.5.5.6")["id"]  # another address lists its own
        # the storage counts too (another server's list, read a moment ago, may be behind)
        hub.lobby.games = {}
        again = client.post(
            "/api/games",
            json={"mode": "duel", "open": True, "seats": [{"kind": "here"}, {"kind": "online"}]},
            headers={ADDRESS: "5.5.5.5"},
        )
        assert again.status_code == 429 and again.json()["error"]["code"] == "address-full", again.text
        # once one is taken, the address may list another
        client.cookies.clear()
        taken = client.post(f"/api/lobby/{made[0]['id']}/take", headers={ADDRESS: "8.8.8.8"})
        assert taken.status_code == 200, taken.text
        client.cookies.clear()
        deadline = time.monotonic() + 10
        while len(client.get("/api/lobby").json()["games"]) != PER_ADDRESS:  # the seat's hook runs
            assert time.monotonic() < deadline
            time.sleep(0.02)
        assert open_game(client, "5.5.5.5")["id"]


def test_a_player_holds_at_most_three_open_games(db: Any) -> None:
    with served_from(db) as (client, _hub):
        first = open_game(client, "4.4.4.4")
        for _ in range(2):
            open_game(client, "4.4.4.4", cookie=first["cookie"])
        client.cookies.clear()
        fourth = client.post(
            "/api/games",
            json={"mode": "duel", "open": True, "seats": [{"kind": "here"}, {"kind": "online"}]},
            headers={ADDRESS: "4.4.4.4", "cookie": first["cookie"]},
        )
        assert fourth.status_code == 429 and fourth.json()["error"]["code"] == "too-many", fourth.text


def access_line(path: str) -> str:
    """What uvicorn's access log writes for a GET of ``path`` (``--log-level info``), through the
    filter ``dorf serve`` puts on it: uvicorn's own logger, call and formatter."""
    from uvicorn.logging import AccessFormatter
    from uvicorn.protocols.utils import get_path_with_query_string

    from dorf.server.edge.logs import redact_access_log

    lines: list[str] = []

    class Keep(logging.Handler):
        def emit(self, record: logging.LogRecord) -> None:
            lines.append(self.format(record))

    logger = logging.getLogger("uvicorn.access")
    handler = Keep()
    handler.setFormatter(
        AccessFormatter('%(client_addr)s - "%(request_line)s" %(status_code)s', use_colors=False)
    )
    level = logger.level
    added = redact_access_log()
    logger.addHandler(handler)
    logger.setLevel(logging.INFO)
    try:
        raw, _, query = path.partition("?")
        scope: Any = {
            "type": "http",
            "path": raw,
            "raw_path": raw.encode(),
            "root_path": "",
            "query_string": query.encode(),
        }
        # as uvicorn's h11 and httptools protocols log a response
        logger.info(
            '%s - "%s %s HTTP/%s" %d', "127.0.0.1:50000", "GET", get_path_with_query_string(scope), "1.1", 200
        )
    finally:
        logger.removeHandler(handler)
        logger.removeFilter(added)
        logger.setLevel(level)
    (line,) = lines
    return line


def test_the_access_log_never_shows_an_invitation_code() -> None:
    line = access_line("/join/g4m3id/S3cretC0de_-x")
    assert "S3cretC0de" not in line
    assert line == '127.0.0.1:50000 - "GET /join/g4m3id/… HTTP/1.1" 200 OK'
    assert "S3cret" not in access_line("/join/g4m3id/S3cret?lang=de")
    assert access_line("/join/g4m3id/S3cret?lang=de").endswith('"GET /join/g4m3id/…?lang=de HTTP/1.1" 200 OK')
    assert access_line("/game/g4m3id") == '127.0.0.1:50000 - "GET /game/g4m3id HTTP/1.1" 200 OK'
