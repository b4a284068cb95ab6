"""Fair play on the server (issue 23): nobody shuts seat holders out, a creator cannot choose the
seed of a game against a person nor bring a game of a chosen seed into a campaign, and hints are
the same for both sides of a game."""

from __future__ import annotations

import json
import random
import sqlite3
from collections.abc import Iterator
from contextlib import ExitStack, contextmanager
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient
from starlette.websockets import WebSocketDisconnect
from test_server_helpers import ADDRESS, Json, Socket, addressed, create, legal_move, play_out, served, socket

from dorf import db as database
from dorf.campaign import CampaignError
from dorf.campaign.store import read_finished_record
from dorf.formats.record import record_of
from dorf.games.coop import CoopGame
from dorf.server.config import ServerConfig
from dorf.server.hub import create_app

#: The header that tells :func:`served_from` which address a request comes from.

pytestmark = pytest.mark.usefixtures("quick_coach")  # checks who gets a hint, not the advice


@contextmanager
def served_from(db: Path, **config: Any) -> Iterator[TestClient]:
    """As ``served``, but a request with the header ``x-test-address: A`` comes from address A
    (the test client's requests all come from one address, ``testclient``)."""
    app = create_app(ServerConfig(db=db, **{"ai_workers": 0, "ai_delay": 0.0, **config}))
    with TestClient(addressed(app)) as client:
        yield client


def connect(
    stack: ExitStack,
    client: TestClient,
    game_id: str,
    address: str = "testclient",
    tokens: list[str] | None = None,
) -> Socket:
    """A client from ``address`` that was let in: a spectator, or with ``tokens`` a seat holder."""
    ws = stack.enter_context(client.websocket_connect(f"/ws/{game_id}", headers={ADDRESS: address}))
    sock = Socket(ws)
    assert sock.receive()["type"] == "state"
    if tokens is not None:
        assert sock.hello(tokens)["type"] == "welcome"
    assert sock.sync()["type"] == "state"  # still connected: it was let in
    return sock


def refused(
    client: TestClient, game_id: str, address: str = "testclient", tokens: list[str] | None = None
) -> Json:
    """Connect from ``address`` (saying hello with ``tokens``, if the first state comes) and
    expect to be turned away: an ``error`` ``busy``, then the close 1013."""
    with client.websocket_connect(f"/ws/{game_id}", headers={ADDRESS: address}) as ws:
        message: Json = ws.receive_json()
        if message["type"] == "state":
            ws.send_text(json.dumps({"type": "hello", "tokens": tokens or [], "id": 1}))
            ws.send_text(json.dumps({"type": "ping", "id": 2}))
            while message["type"] != "error":
                message = ws.receive_json()
                assert message["type"] != "pong", "it was let in"
        assert message["code"] == "busy", message
        with pytest.raises(WebSocketDisconnect) as closed:
            while True:
                ws.receive_json()
        assert closed.value.code == 1013
    return message


def play_one(sock: Socket, seat: int) -> None:
    state = sock.wait(lambda s: seat in s["game"]["waiting"])
    reply = sock.request(legal_move(state, seat))
    assert reply["type"] == "ok", reply


def duel_with_guest(client: TestClient) -> tuple[str, str, str]:
    """A Duel of a host here and a guest online who has joined: the id and both tokens."""
    made = create(client, mode="duel", seed=None, seats=[{"kind": "here", "name": "Ann"}, {"kind": "online"}])
    joined = client.post(
        f"/api/games/{made['id']}/join", json={"invite": made["invites"]["1"], "name": "Bob"}
    )
    assert joined.status_code == 200, joined.text
    return made["id"], made["tokens"]["0"], joined.json()["token"]


def health(client: TestClient) -> dict[str, Any]:
    result: dict[str, Any] = client.get("/api/health").json()
    return result


# --- 1. nobody can shut seat holders out ------------------------------------------------------------


@pytest.mark.storage
@pytest.mark.slow
def test_32_spectators_cannot_shut_the_seat_holders_out(db: Path) -> None:
    with served_from(db) as client, ExitStack() as stack:
        gid, host, guest = duel_with_guest(client)
        crowd = [connect(stack, client, gid, f"10.0.1.{i}") for i in range(32)]
        assert refused(client, gid, "10.0.2.1")["message"]  # the 33rd spectator is turned away
        with socket(client, gid, [host]) as ann, socket(client, gid, [guest]) as bob:
            assert ann.sync()["you"]["seats"] == [0] and bob.sync()["you"]["seats"] == [1]
            refused(client, gid, "10.0.2.2")  # the players took no spectator's place
            play_one(ann, 0)
            play_one(bob, 1)
            turn = ann.wait(lambda s: s["game"]["turn"] == 2)["game"]["turn"]
            assert crowd[-1].wait(lambda s: s["game"]["turn"] == turn)  # the spectators see it
        refused(client, gid, "10.0.2.2")  # still 32 spectators: the players took no place of theirs


@pytest.mark.storage
def test_a_spectator_that_proves_a_seat_makes_room_for_another(db: Path) -> None:
    with served_from(db, max_spectators=2) as client, ExitStack() as stack:
        made = create(client, seats=[{"kind": "here"}, {"kind": "here"}])
        gid = made["id"]
        first = connect(stack, client, gid, "10.0.0.1")
        connect(stack, client, gid, "10.0.0.2")
        refused(client, gid, "10.0.0.3")
        assert first.hello([made["tokens"]["0"]])["seats"] == [0]  # now it holds a seat
        third = connect(stack, client, gid, "10.0.0.3")
        refused(client, gid, "10.0.0.4")
        play_one(first, 0)
        assert third.wait(lambda s: s["game"]["turn"] == 1)


@pytest.mark.storage
@pytest.mark.slow
def test_a_held_back_client_that_says_nothing_is_turned_away(db: Path) -> None:
    with served_from(db, max_spectators=1, hello_seconds=0.2) as client, ExitStack() as stack:
        gid = create(client)["id"]
        connect(stack, client, gid, "10.0.0.1")
        with client.websocket_connect(f"/ws/{gid}", headers={ADDRESS: "10.0.0.2"}) as ws:
            assert ws.receive_json()["type"] == "state"  # what anyone may see; then nothing
            assert ws.receive_json()["code"] == "busy"  # no hello within hello_seconds
            with pytest.raises(WebSocketDisconnect) as closed:
                ws.receive_json()
            assert closed.value.code == 1013
        assert health(client)["connections"] == 1


@pytest.mark.storage
@pytest.mark.slow
def test_one_address_cannot_open_more_than_16_connections(db: Path) -> None:
    with served_from(db) as client, ExitStack() as stack:
        made = create(client, seats=[{"kind": "here"}, {"kind": "here"}])
        other = create(client)["id"]
        for i in range(16):  # across two games: the cap is of the address, not of a game
            connect(stack, client, made["id"] if i % 2 else other, "10.0.0.1")
        refused(client, made["id"], "10.0.0.1")
        refused(client, other, "10.0.0.1")
        connect(stack, client, made["id"], "10.0.0.2")  # another address is let in
        for _ in range(16):  # loopback is no exception
            connect(stack, client, other, "127.0.0.1")
        refused(client, other, "127.0.0.1")
        assert health(client)["connections"] == 33
        # The address's spectators do not shut its own seat holder out.
        with ExitStack() as seated:
            player = connect(seated, client, made["id"], "10.0.0.1", [made["tokens"]["0"]])
            assert player.sync()["you"]["seats"] == [0]
            play_one(player, 0)
            assert health(client)["connections"] == 34


@pytest.mark.storage
@pytest.mark.slow
def test_seat_holding_connections_of_one_address_are_capped_too(db: Path) -> None:
    with served_from(db, max_connections_per_address=2) as client, ExitStack() as stack:
        made = create(client, seats=[{"kind": "here"}, {"kind": "here"}])
        gid, token = made["id"], made["tokens"]["0"]
        for _ in range(2):
            connect(stack, client, gid, "10.0.0.1", [token])
        refused(client, gid, "10.0.0.1", [token])
        connect(stack, client, gid, "10.0.0.1")  # its spectators are counted apart
        connect(stack, client, gid, "10.0.0.1")
        refused(client, gid, "10.0.0.1")
        connect(stack, client, gid, "10.0.0.2", [token])
    with served_from(db, max_connections_per_address=0, max_spectators=50) as client, ExitStack() as stack:
        for _ in range(40):
            connect(stack, client, gid, "127.0.0.1")  # 0: no cap


@pytest.mark.storage
def test_the_total_cap_cannot_lock_out_seat_holders(db: Path) -> None:
    with served_from(db, max_connections=3) as client, ExitStack() as stack:
        crowd = create(client)["id"]
        made = create(client, seats=[{"kind": "here"}, {"kind": "computer", "player": "random"}])
        for i in range(3):
            connect(stack, client, crowd, f"10.0.0.{i}")
        refused(client, made["id"], "10.0.0.9")  # a fourth spectator: the server is full
        with socket(client, made["id"], [made["tokens"]["0"]]) as player:
            assert player.sync()["you"]["seats"] == [0]
            play_one(player, 0)
            play_one(player, 0)  # the computer has moved in between
            assert health(client)["connections"] == 4
        refused(client, crowd, "10.0.0.9")


# --- 2. seeds: chosen only where nobody plays against it ---------------------------------------------


@pytest.mark.sqlite_only  # the SQLite file itself (the writer behind; the file read)
def test_a_game_with_an_online_seat_gets_its_seed_from_the_server_only(db: Path) -> None:
    with served(db) as client:
        for mode in ("coop", "duel"):
            body = {"mode": mode, "seed": 777, "seats": [{"kind": "here"}, {"kind": "online"}]}
            answer = client.post("/api/games", json=body)
            assert answer.status_code == 400, answer.text
            error = answer.json()["error"]
            assert error["code"] == "bad-message" and "seed" in error["message"], error
        made = create(client, mode="duel", seed=None, seats=[{"kind": "here"}, {"kind": "online"}])
    with sqlite3.connect(db) as conn:
        rows = conn.execute("SELECT id, seed FROM server_game").fetchall()
    assert [gid for gid, _ in rows] == [made["id"]]  # nothing made of the refused requests
    assert rows[0][1] != 777 and rows[0][1].bit_length() > 32


@pytest.mark.sqlite_only  # the SQLite file itself
@pytest.mark.slow
def test_a_game_of_a_chosen_seed_says_so_and_no_campaign_takes_it(db: Path) -> None:
    rng = random.Random(6)
    with served(db) as client:
        chosen = create(client, seed=777, seats=[{"kind": "here", "name": "Ann"}])
        drawn = create(client, seed=None, seats=[{"kind": "here", "name": "Ann"}])
        for made in (chosen, drawn):
            with socket(client, made["id"], [made["tokens"]["0"]]) as sock:
                play_out(sock, [0], rng)
        record = client.get(f"/api/games/{chosen['id']}/record").json()
        assert record["seed"] == 777 and record["seed_chosen"] is True
        assert "seed_chosen" not in client.get(f"/api/games/{drawn['id']}/record").json()
        assert client.post("/api/campaigns", json={"name": "Family"}).status_code == 201
        answer = client.post("/api/campaigns/Family/record", json={"game": chosen["id"]})
        assert answer.status_code == 400, answer.text
        error = answer.json()["error"]
        assert error["code"] == "chosen-seed" and "seed" in error["message"], error
        assert client.get("/api/campaigns/Family").json()["totals"]["games"] == 0  # nothing recorded
        taken = client.post("/api/campaigns/Family/record", json={"game": drawn["id"]})
        assert taken.status_code == 200, taken.text
    with sqlite3.connect(db) as conn:
        stored = dict(conn.execute("SELECT id, seed_chosen FROM server_game").fetchall())
    assert stored == {chosen["id"]: 1, drawn["id"]: 0}
    with served(db) as client:  # read back after a restart: still marked
        assert client.get(f"/api/games/{chosen['id']}/record").json()["seed_chosen"] is True
        client.post("/api/campaigns", json={"name": "Later"})
        again = client.post("/api/campaigns/Later/record", json={"game": chosen["id"]})
        assert again.json()["error"]["code"] == "chosen-seed"


def test_games_stored_before_the_mark_are_marked_by_their_seed(tmp_path: Path) -> None:
    from dorf.server.storage.schema import SCHEMA
    from dorf.server.storage.sqlite import SqliteTables

    path = tmp_path / "old.sqlite3"
    conn = database.connect(path)
    database.migrate(conn, "server", SCHEMA[:2])  # the tables as they were before the mark
    seeds = {"typed": 777, "negative": -5, "old-server": 2**31 - 1, "drawn": 2**62 + 12345}
    with conn:
        for gid, seed in seeds.items():
            conn.execute(
                "INSERT INTO server_game (id, mode, tileset, seed, created, updated)"
                " VALUES (?, 'coop', 'base', ?, '2026-01-01', '2026-01-01')",
                (gid, seed),
            )
            conn.execute(
                "INSERT INTO server_seat (game_id, seat, kind, name) VALUES (?, 0, 'here', 'Ann')", (gid,)
            )
    conn.close()
    storage = SqliteTables(path)
    try:
        marked = {gid: storage.load_game(gid).seed_chosen for gid in seeds}  # type: ignore[union-attr]
    finally:
        storage.close()
    assert marked == {"typed": True, "negative": True, "old-server": True, "drawn": False}


def finished_record(seed: int = 4) -> Json:
    state = CoopGame(seed=seed).new_state()
    while not state.is_over:
        state.play(state.legal_placements()[0])
    return record_of(state, ["Ann"])


def test_the_campaign_command_refuses_a_record_of_a_chosen_seed(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from dorf.cli import main

    path = tmp_path / "chosen.json"
    path.write_text(json.dumps(finished_record() | {"seed_chosen": True, "game_id": "abc"}))
    with pytest.raises(CampaignError, match="seed was chosen"):
        read_finished_record(path)
    db = tmp_path / "campaign.sqlite3"
    assert main(["campaign", "new", "Family", "--db", str(db)]) == 0
    capsys.readouterr()
    assert main(["campaign", "record", "Family", "--from-record", str(path), "--db", str(db)]) == 2
    out, err = capsys.readouterr()
    assert out == "" and err.count("\n") == 1 and "seed was chosen" in err, err
    with sqlite3.connect(db) as conn:
        assert conn.execute("SELECT count(*) FROM campaign_game").fetchone() == (0,)
    drawn = tmp_path / "drawn.json"
    drawn.write_text(json.dumps(finished_record() | {"seed_chosen": False}))
    assert main(["campaign", "record", "Family", "--from-record", str(drawn), "--db", str(db)]) == 0


# --- 3. hints are the same for both sides -------------------------------------------------------------


def hint(client: TestClient, game_id: str, token: str, seat: int) -> Any:
    return client.post(f"/api/games/{game_id}/hint", json={"token": token, "seat": seat})


def test_host_and_guest_of_a_game_against_a_person_both_get_no_hint(db: Path) -> None:
    with served(db) as client:
        gid, host, guest = duel_with_guest(client)
        assert client.get(f"/api/games/{gid}").json()["waiting"] == [0, 1]  # both have a tile to place
        for token, seat in ((host, 0), (guest, 1)):
            answer = hint(client, gid, token, seat)
            assert answer.status_code == 403, (seat, answer.text)
            assert answer.json()["error"]["code"] == "no-hint"
        # The cooperative game with a person online: the same for both.
        coop = create(client, seed=None, seats=[{"kind": "online"}, {"kind": "here"}])
        joined = client.post(f"/api/games/{coop['id']}/join", json={"invite": coop["invites"]["0"]}).json()
        for token, seat in ((joined["token"], 0), (coop["tokens"]["1"], 1)):
            answer = hint(client, coop["id"], token, seat)
            assert answer.status_code == 403 and answer.json()["error"]["code"] == "no-hint", answer.text


def test_hints_against_the_computer_and_at_one_screen_are_given(db: Path) -> None:
    with served(db) as client:
        computer = create(
            client, mode="duel", seats=[{"kind": "here"}, {"kind": "computer", "player": "random"}]
        )
        answer = hint(client, computer["id"], computer["tokens"]["0"], 0)
        assert answer.status_code == 200 and "hint" in answer.json(), answer.text
        hot_seat = create(client, mode="duel", seats=[{"kind": "here"}, {"kind": "here"}])
        for seat in (0, 1):
            answer = hint(client, hot_seat["id"], hot_seat["tokens"][str(seat)], seat)
            assert answer.status_code == 200, (seat, answer.text)
