"""The server's HTTP API and websocket: games of every mode, seats, tokens, bad input, storage."""

from __future__ import annotations

import json
import random
import sqlite3
import time
from pathlib import Path

import pytest
from test_server_helpers import create, legal_move, play_out, served, socket, until

from dorf.formats.record import replay_record
from dorf.server.protocol.messages import MAX_BODY, MAX_MESSAGE

# --- pages and creating games ---------------------------------------------------------


def test_pages_and_static_assets_are_served(db: Path) -> None:
    with served(db) as client:
        for path in (
            "/",
            "/game/abc",
            "/join/abc/code",
            "/replay",
            "/replay/abc",
            "/campaigns",
            "/campaigns/x",
        ):
            response = client.get(path)
            assert response.status_code == 200 and '<main id="app">' in response.text, path
        for asset in ("main.js", "game.js", "board.js", "hex.js", "style.css", "favicon.svg"):
            assert client.get(f"/static/{asset}").status_code == 200, asset
        assert client.get("/api/health").json()["ok"] is True


@pytest.mark.parametrize(
    ("body", "code"),
    [
        ({"mode": "chess"}, "bad-message"),
        ({"mode": "duel", "seats": [{"kind": "here"}]}, "bad-message"),
        ({"mode": "coop", "seats": [{"kind": "here"}] * 7}, "bad-message"),
        ({"mode": "coop", "seats": [{"kind": "robot"}]}, "bad-message"),
        ({"mode": "coop", "seats": [{"kind": "computer", "player": "genius"}]}, "bad-message"),
        ({"mode": "coop", "seats": [{"kind": "computer", "player": "search:60s"}]}, "bad-message"),
        ({"mode": "coop", "seed": "x"}, "bad-message"),
        ({"mode": "coop", "seed": True}, "bad-message"),
        ({"mode": "coop", "seats": [{"name": "x" * 41}]}, "bad-message"),
        ([1, 2], "bad-message"),
    ],
)
def test_a_bad_new_game_is_refused_with_a_reason(db: Path, body: object, code: str) -> None:
    with served(db) as client:
        response = client.post("/api/games", json=body)
        assert response.status_code == 400
        assert response.json()["error"]["code"] == code
        assert response.json()["error"]["message"]


def test_bad_json_and_oversized_bodies_are_refused(db: Path) -> None:
    with served(db) as client:
        response = client.post("/api/games", content=b"{nope", headers={"Content-Type": "application/json"})
        assert response.status_code == 400 and response.json()["error"]["code"] == "bad-json"
        response = client.post("/api/replay", content=b"[" * (MAX_BODY + 10))
        assert response.status_code == 413 and response.json()["error"]["code"] == "too-large"
        assert client.get("/api/games/nothing").status_code == 404


# --- the cooperative game ----------------------------------------------------------------


@pytest.mark.storage
def test_a_solo_game_over_the_websocket_to_the_end(db: Path) -> None:
    with served(db) as client:
        made = create(client)
        with socket(client, made["id"], list(made["tokens"].values())) as sock:
            state = sock.sync()
            assert state["you"]["seats"] == [0]
            assert state["game"]["waiting"] == [0] and state["you"]["legal"]["0"]
            assert client.get(f"/api/games/{made['id']}/record").status_code == 409
            final = play_out(sock, [0], random.Random(1))
        game = final["game"]
        assert game["over"] and game["seed"] == 7
        record = client.get(f"/api/games/{made['id']}/record")
        assert record.status_code == 200 and "attachment" in record.headers["content-disposition"]
        state = replay_record(record.json())
        assert state.is_over and state.score().total == game["scores"][0]["total"]
        steps = client.get(f"/api/games/{made['id']}/replay").json()["steps"]
        assert len(steps) == len(record.json()["decisions"]) == game["turn"]
        assert steps[-1]["scores"] == [game["scores"][0]["total"]]


@pytest.mark.slow
def test_the_preview_is_exact_and_changes_nothing(db: Path) -> None:
    with served(db) as client:
        made = create(client, seed=11)
        rng = random.Random(4)
        completions = 0
        with socket(client, made["id"], list(made["tokens"].values())) as sock:
            for _ in range(60):
                state = sock.sync()
                if state["game"]["over"]:
                    break
                # a move that completes or fails a task, if one of the cells has one; else any
                cells = state["you"]["legal"]["0"]
                tried = []
                for q, r, rots in rng.sample(cells, len(cells)):
                    move = {"type": "move", "seat": 0, "at": [q, r], "rot": rng.choice(rots)}
                    preview = sock.request({**move, "type": "preview"})
                    assert preview["type"] == "preview"
                    tried.append((move, preview))
                    if preview["completes"] or preview["fails"]:
                        break
                move, preview = tried[-1]
                assert sock.sync()["game"]["version"] == state["game"]["version"]
                assert sock.request(move)["type"] == "ok"
                after = sock.sync()["game"]
                assert after["scores"][0]["total"] == preview["score"][1]
                new = after["log"][len(state["game"]["log"]) :]
                assert new[0]["kind"] == "place"
                done = sorted(e["text"] for e in new if e["kind"] in ("completed", "failed"))
                expected = [f"Player 1 completed {t['name']} {t['value']}" for t in preview["completes"]]
                expected += [f"Player 1 failed {t['name']} {t['value']}" for t in preview["fails"]]
                assert done == sorted(expected)
                completions += len(expected)
                placed = after["areas"][0]["tiles"][-1]
                for group in preview["groups"]:
                    if placed["at"] in group["cells"]:
                        assert len(group["cells"]) == group["size"] or group["letter"] in "RT"
        assert completions  # the log's task lines were checked at least once


@pytest.mark.storage
def test_undo_in_a_practice_game_takes_back_the_placement(db: Path) -> None:
    with served(db) as client:
        seats = [{"kind": "here"}, {"kind": "computer", "player": "random"}]
        made = create(client, seats=seats, practice=True)
        with socket(client, made["id"], list(made["tokens"].values())) as sock:
            state = sock.sync()
            first = state["game"]["revealed"][0]
            assert sock.request(legal_move(state, 0))["type"] == "ok"
            sock.wait(lambda s: s["game"]["waiting"] == [0] and s["game"]["turn"] == 2)
            reply = sock.request({"type": "undo", "seat": 0})
            assert reply["type"] == "ok" and reply["undone"] == 2  # the computer's placement too
            back = sock.sync()["game"]
            assert back["turn"] == 0 and back["revealed"][0] == first and back["areas"][0]["tiles"] == []
            again = sock.request({"type": "undo", "seat": 0})
            assert again["type"] == "error" and again["code"] == "no-undo"


def test_hot_seat_players_take_turns_at_one_screen(db: Path) -> None:
    with served(db) as client:
        made = create(client, seats=[{"kind": "here", "name": "Ann"}, {"kind": "here", "name": "Bob"}])
        tokens = list(made["tokens"].values())
        with socket(client, made["id"], tokens) as sock:
            state = sock.sync()
            assert state["you"]["seats"] == [0, 1]
            wrong = sock.request({**legal_move(state, 0), "seat": 1})
            assert wrong["code"] == "out-of-turn" and "Ann's turn" in wrong["message"]
            assert sock.request(legal_move(state, 0))["type"] == "ok"
            state = sock.sync()
            assert state["game"]["waiting"] == [1] and "Ann placed" in state["game"]["log"][-1]["text"]


# --- bad input: nothing changes ----------------------------------------------------------------


@pytest.mark.slow
def test_bad_messages_get_clear_errors_and_change_nothing(db: Path) -> None:
    with served(db) as client:
        made = create(client, mode="duel", seed=None, seats=[{"kind": "here"}, {"kind": "online"}])
        with socket(client, made["id"], list(made["tokens"].values())) as sock:
            before = sock.sync()["game"]
            version = before["version"]
            cases = [
                ({"type": "move", "seat": 0, "at": [5, 5], "rot": 0}, "illegal"),
                ({"type": "move", "seat": 0, "at": [0, 0], "rot": 9}, "bad-message"),
                ({"type": "move", "seat": 0, "at": "here", "rot": 0}, "bad-message"),
                ({"type": "move", "seat": 0, "at": [10**9, 0], "rot": 0}, "illegal"),
                ({"type": "move", "seat": 0, "pick": 3}, "illegal"),
                ({"type": "move", "seat": 1, "at": [0, 0], "rot": 0}, "not-your-seat"),
                ({"type": "move", "seat": 5, "at": [0, 0], "rot": 0}, "bad-message"),
                ({"type": "move", "seat": "0", "at": [0, 0], "rot": 0}, "bad-message"),
                ({"type": "undo", "seat": 0}, "no-undo"),
                ({"type": "jump"}, "unknown-type"),
                ({"type": "hello", "tokens": "abc"}, "bad-message"),
            ]
            for message, code in cases:
                reply = sock.request(message)
                assert reply["type"] == "error" and reply["code"] == code, (message, reply)
                assert reply["message"]
            sock.ws.send_text("{not json")
            assert sock.receive()["code"] == "bad-json"
            sock.ws.send_text(json.dumps({"type": "ping", "pad": "x" * MAX_MESSAGE}))
            assert sock.receive()["code"] == "too-large"
            sock.ws.send_bytes(b"\x00\x01")
            assert sock.receive()["code"] == "bad-message"
            sock.ws.send_text("[1, 2]")
            assert sock.receive()["code"] == "bad-message"
            after = sock.sync()["game"]
            assert after["version"] == version and after == before


def test_a_move_out_of_turn_is_refused(db: Path) -> None:
    with served(db) as client:
        made = create(client, mode="duel")
        with socket(client, made["id"], list(made["tokens"].values())) as sock:
            state = sock.sync()
            assert sock.request(legal_move(state, 0))["type"] == "ok"
            state = sock.sync()
            assert state["game"]["waiting"] == [1]
            again = sock.request({"type": "move", "seat": 0, "at": [1, 0], "rot": 0})
            assert again["code"] == "out-of-turn" and "waiting for Player 2" in again["message"]
            assert sock.sync()["game"]["version"] == state["game"]["version"]


@pytest.mark.storage
def test_seat_tokens_over_http(db: Path) -> None:
    with served(db) as client:
        made = create(client, mode="coop")
        gid = made["id"]
        move = {"seat": 0, "at": [0, 0], "rot": 0}
        missing = client.post(f"/api/games/{gid}/move", json=move)
        assert missing.status_code == 401 and missing.json()["error"]["code"] == "missing-token"
        wrong = client.post(f"/api/games/{gid}/move", json={**move, "token": "guess"})
        assert wrong.status_code == 403 and wrong.json()["error"]["code"] == "bad-token"
        other = create(client, mode="coop")
        foreign = client.post(f"/api/games/{gid}/move", json={**move, "token": other["tokens"]["0"]})
        assert foreign.status_code == 403
        assert client.get(f"/api/games/{gid}").json()["version"] == 0
        token = made["tokens"]["0"]
        preview = client.post(f"/api/games/{gid}/preview", json={**move, "token": token})
        assert preview.status_code == 200 and preview.json()["at"] == [0, 0]
        good = client.post(f"/api/games/{gid}/move", json={**move, "token": token})
        assert good.status_code == 200 and good.json()["version"] == 1
        illegal = client.post(f"/api/games/{gid}/move", json={**move, "token": token})
        assert illegal.status_code == 400 and illegal.json()["error"]["code"] == "illegal"
        assert "already taken" in illegal.json()["error"]["message"]


def test_a_wrong_token_in_hello_leaves_a_spectator(db: Path) -> None:
    with served(db) as client:
        made = create(client)
        with socket(client, made["id"]) as sock:
            ref = sock.next_id
            sock.ws.send_text(json.dumps({"type": "hello", "tokens": ["nope"], "id": ref}))
            messages = [sock.receive() for _ in range(3)]
            assert [m["type"] for m in messages] == ["state", "welcome", "error"]
            assert messages[2]["code"] == "bad-token" and messages[1]["seats"] == []
            reply = sock.request(legal_move(messages[0] | {"you": {"legal": {"0": [[0, 0, [0]]]}}}, 0))
            assert reply["code"] == "not-your-seat"


def test_hidden_information_never_leaves_the_server(db: Path) -> None:
    with served(db) as client:
        made = create(client, mode="duel", seed=123456789)
        with socket(client, made["id"], list(made["tokens"].values())) as sock:
            rng = random.Random(3)
            for _ in range(6):
                state = sock.sync()
                seat = state["game"]["waiting"][0]
                sock.request(legal_move(state, seat, rng))
            texts = [json.dumps(m) for m in sock.seen]
            texts.append(client.get(f"/api/games/{made['id']}").text)
            for text in texts:
                assert "123456789" not in text and '"seed"' not in text
                for secret in ("removed", "stack", "markers", 'landscapes"', "order"):
                    assert secret not in text


@pytest.mark.storage
def test_an_unknown_game_over_the_websocket(db: Path) -> None:
    with served(db) as client, client.websocket_connect("/ws/nothing") as ws:
        message = ws.receive_json()
        assert message["type"] == "error" and message["code"] == "no-game"


# --- two players online ---------------------------------------------------------------------------


@pytest.mark.storage
def test_online_duel_join_link_reconnect_and_spectator(db: Path) -> None:
    with served(db) as client:
        seats = [{"kind": "here", "name": "Ann"}, {"kind": "online"}]
        made = create(client, mode="duel", seed=None, seats=seats)  # the server draws its seed
        gid, invite = made["id"], made["invites"]["1"]
        assert client.post(f"/api/games/{gid}/join", json={}).status_code == 401
        assert client.post(f"/api/games/{gid}/join", json={"invite": "wrong"}).status_code == 403
        joined = client.post(f"/api/games/{gid}/join", json={"invite": invite, "name": "Bob"})
        assert joined.status_code == 200 and joined.json()["seat"] == 1
        again = client.post(f"/api/games/{gid}/join", json={"invite": invite, "name": "Eve"})
        assert again.status_code == 403 and again.json()["error"]["code"] == "bad-token"
        ann, bob = made["tokens"]["0"], joined.json()["token"]
        seats = client.get(f"/api/games/{gid}").json()["seats"]
        assert seats[1]["name"] == "Bob" and seats[1]["claimed"]
        with (
            socket(client, gid, [ann]) as a,
            socket(client, gid, [bob]) as b,
            socket(client, gid) as spectator,
        ):
            state = a.sync()
            assert state["you"]["seats"] == [0] and b.sync()["you"]["seats"] == [1]
            assert spectator.sync()["you"] == {"seats": [], "legal": {}}
            assert spectator.request(legal_move(state, 0))["code"] == "not-your-seat"
            assert a.request(legal_move(state, 0))["type"] == "ok"
            assert b.request(legal_move(b.sync(), 1))["type"] == "ok"
            turn = spectator.wait(lambda s: s["game"]["turn"] == 2)["game"]["turn"]
        with socket(client, gid, [bob]) as back:  # a reconnect restores the seat
            state = back.sync()
            assert state["you"]["seats"] == [1] and state["game"]["turn"] == turn


@pytest.mark.storage
@pytest.mark.slow
def test_a_whole_duel_against_the_computer(db: Path) -> None:
    with served(db) as client:
        made = create(client, mode="duel", seats=[{"kind": "here"}, {"kind": "computer", "player": "greedy"}])
        with socket(client, made["id"], list(made["tokens"].values())) as sock:
            final = play_out(sock, [0], random.Random(2))
        game = final["game"]
        assert game["over"] and "winner" in game and len(game["scores"]) == 2
        record = client.get(f"/api/games/{made['id']}/record").json()
        assert record["mode"] == "duel" and record["finished"]
        state = replay_record(record)
        assert [pad.total for pad in state.scores()] == [pad["total"] for pad in game["scores"]]


@pytest.mark.storage
@pytest.mark.slow
def test_head_to_head_draft_and_laying_between_two_sockets(db: Path) -> None:
    with served(db) as client:
        made = create(client, mode="head-to-head", seed=5)
        tokens = made["tokens"]
        with socket(client, made["id"], [tokens["0"]]) as a, socket(client, made["id"], [tokens["1"]]) as b:
            state = a.sync()
            assert state["game"]["phase"] == "draft" and len(state["game"]["pool"]) == 59
            assert (
                b.request({"type": "move", "seat": 1, "pick": state["game"]["pool"][0]["id"]})["code"]
                == "out-of-turn"
            )
            assert a.request({"type": "move", "seat": 0, "pick": 10_000 - 1})["code"] == "illegal"
            rng = random.Random(9)
            for _ in range(500):
                sa, sb = a.sync(), b.sync()
                if sa["game"]["over"]:
                    break
                if 0 in sa["game"]["waiting"]:
                    assert a.request(legal_move(sa, 0, rng))["type"] == "ok"
                elif 1 in sb["game"]["waiting"]:
                    assert b.request(legal_move(sb, 1, rng))["type"] == "ok"
            final = a.sync()["game"]
        assert final["over"] and final["phase"] == "over"
        assert any(e["kind"] == "pick" for e in final["log"]) and any(
            e["kind"] == "place" for e in final["log"]
        )
        steps = client.get(f"/api/games/{made['id']}/replay").json()
        assert steps["mode"] == "head-to-head" and steps["steps"][0]["pick"]


# --- nothing lost ---------------------------------------------------------------------------------------


@pytest.mark.storage
def test_a_restart_resumes_every_game_where_it_stood(db: Path) -> None:
    rng = random.Random(5)
    with served(db) as client:
        coop = create(client, seats=[{"kind": "here"}, {"kind": "computer", "player": "random"}])
        duel = create(client, mode="duel", seed=None, seats=[{"kind": "here"}, {"kind": "online"}])
        with socket(client, coop["id"], list(coop["tokens"].values())) as sock:
            for _ in range(5):
                state = sock.wait(lambda s: s["game"]["waiting"] == [0])
                assert sock.request(legal_move(state, 0, rng))["type"] == "ok"
            sock.wait(lambda s: s["game"]["waiting"] == [0])
        with socket(client, duel["id"], list(duel["tokens"].values())) as sock:
            assert sock.request(legal_move(sock.sync(), 0, rng))["type"] == "ok"
        before = {gid: client.get(f"/api/games/{gid}").json() for gid in (coop["id"], duel["id"])}
    with served(db) as client:
        for gid, old in before.items():
            now = client.get(f"/api/games/{gid}").json()
            assert now == old
        invite = duel["invites"]["1"]
        assert client.post(f"/api/games/{duel['id']}/join", json={"invite": invite}).status_code == 200
        with socket(client, coop["id"], list(coop["tokens"].values())) as sock:
            state = sock.sync()
            assert state["you"]["seats"] == [0]
            assert sock.request(legal_move(state, 0, rng))["type"] == "ok"
            sock.wait(lambda s: s["game"]["turn"] == before[coop["id"]]["turn"] + 2)


@pytest.mark.sqlite_only  # the SQLite file itself (the writer behind; the file read)
@pytest.mark.slow
def test_a_write_the_database_refuses_is_tried_again_and_saved_once_it_can(
    db: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    with served(db) as client:
        made = create(client)
        with socket(client, made["id"], list(made["tokens"].values())) as sock:
            assert sock.request(legal_move(sock.sync(), 0))["type"] == "ok"
            sock.wait_saved(1)
            hub = client.app.state.hub  # type: ignore[attr-defined]
            real = hub.storage.tables.write_changes
            tries: list[int] = []

            def broken(*args: object, **kwargs: object) -> None:
                tries.append(1)
                raise sqlite3.OperationalError("disk I/O error")

            monkeypatch.setattr(hub.storage.tables, "write_changes", broken)
            reply = sock.request(legal_move(sock.sync(), 0))
            assert reply == {"type": "ok", "id": reply["id"], "version": 2}  # made and told at once
            assert sock.sync()["game"]["turn"] == 2
            until(lambda: len(tries) >= 2)  # tried again, not yet saved
            assert not any(m["type"] == "saved" and m["version"] >= 2 for m in sock.seen)
            monkeypatch.setattr(hub.storage.tables, "write_changes", real)
            sock.wait_saved(2)
    with served(db) as client:
        assert client.get(f"/api/games/{made['id']}").json()["turn"] == 2


@pytest.mark.sqlite_only  # the SQLite file itself (the writer behind; the file read)
@pytest.mark.slow
def test_moves_are_refused_once_the_database_has_refused_writes_for_longer_than_the_grace(
    db: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    with served(db, storage_grace=0.3) as client:
        made = create(client)
        with socket(client, made["id"], list(made["tokens"].values())) as sock:
            hub = client.app.state.hub  # type: ignore[attr-defined]
            real = hub.storage.tables.write_changes

            def broken(*args: object, **kwargs: object) -> None:
                raise sqlite3.OperationalError("disk I/O error")

            monkeypatch.setattr(hub.storage.tables, "write_changes", broken)
            assert sock.request(legal_move(sock.sync(), 0))["type"] == "ok"
            before = sock.sync()["game"]
            time.sleep(0.5)
            reply = sock.request(legal_move(sock.sync(), 0))
            assert reply["type"] == "error" and reply["code"] == "storage", reply
            assert "the move was not made" in reply["message"] and "disk I/O error" in reply["message"]
            after = sock.sync()["game"]
            assert after["turn"] == 1 and after["areas"] == before["areas"]  # nothing changed
            assert after["revealed"] == before["revealed"]
            monkeypatch.setattr(hub.storage.tables, "write_changes", real)
            sock.wait_saved(1)
            assert sock.request(legal_move(sock.sync(), 0))["type"] == "ok"
            sock.wait_saved(2)
    with served(db) as client:
        assert client.get(f"/api/games/{made['id']}").json()["turn"] == 2


@pytest.mark.storage
@pytest.mark.slow
def test_a_computer_only_game_plays_itself_and_survives_a_restart(db: Path) -> None:
    seats = [{"kind": "computer", "player": "random"}, {"kind": "computer", "player": "greedy"}]
    with served(db) as client:
        made = create(client, mode="duel", seats=seats)
        with socket(client, made["id"]) as sock:
            sock.wait(lambda s: s["game"]["turn"] >= 4)
    with served(db) as client, socket(client, made["id"]) as sock:
        final = sock.wait(lambda s: s["game"]["over"], limit=5000)
        assert final["game"]["over"]


# --- replay viewer and campaigns -----------------------------------------------------------------------


def test_the_replay_viewer_reads_any_record(db: Path) -> None:
    from dorf.formats.record import record_of
    from dorf.games.coop import CoopGame

    state = CoopGame(seed=3).new_state()
    for _ in range(5):
        state.play(state.legal_placements()[0])
    with served(db) as client:
        steps = client.post("/api/replay", json=record_of(state)).json()
        assert len(steps["steps"]) == 5 and not steps["finished"]
        bad = client.post("/api/replay", json={"format": "dorf-record/1"})
        assert bad.status_code == 400 and bad.json()["error"]["code"] == "bad-record"
        broken = record_of(state)
        broken["decisions"][1]["at"] = [9, 9]
        reply = client.post("/api/replay", json=broken)
        assert reply.status_code == 400 and "decision 2" in reply.json()["error"]["message"]


@pytest.mark.storage
@pytest.mark.slow
def test_a_finished_server_game_goes_into_a_campaign(db: Path) -> None:
    with served(db) as client:
        # A seed drawn by the server: a game of a chosen seed never goes into a campaign.
        made = create(client, seed=None, seats=[{"kind": "here", "name": "Ann"}])
        with socket(client, made["id"], list(made["tokens"].values())) as sock:
            final = play_out(sock, [0], random.Random(8))
        total = final["game"]["scores"][0]["total"]
        assert client.post("/api/campaigns", json={"name": "Family"}).status_code == 201
        assert client.post("/api/campaigns", json={"name": "family"}).status_code == 400
        change = client.post("/api/campaigns/Family/record", json={"game": made["id"]})
        assert change.status_code == 200, change.text
        assert change.json()["game"]["number"] == 1 and change.json()["game"]["pad"]["total"] == total
        twice = client.post("/api/campaigns/Family/record", json={"game": made["id"]})
        assert twice.status_code == 400 and "already recorded" in twice.json()["error"]["message"]
        view = client.get("/api/campaigns/Family").json()
        assert view["totals"]["games"] == 1 and view["games"][0]["players"] == ["Ann"]
        assert client.get("/api/campaigns").json()["campaigns"][0]["name"] == "Family"
        for picture in ("score.svg", "track.svg"):
            svg = client.get(f"/api/campaigns/Family/{picture}")
            assert (
                svg.status_code == 200 and "<svg" in svg.text[:200] and svg.text.rstrip().endswith("</svg>")
            )
        assert client.get("/api/campaigns/Nobody").status_code == 404
        duel = create(client, mode="duel")
        refused = client.post("/api/campaigns/Family/record", json={"game": duel["id"]})
        assert refused.status_code == 400 and "cooperative" in refused.json()["error"]["message"]


def test_computer_seats_think_in_another_process(db: Path) -> None:
    seats = [{"kind": "computer", "player": "greedy"}, {"kind": "computer", "player": "search:3"}]
    with served(db, ai_workers=1) as client:
        made = create(client, mode="duel", seats=seats)
        with socket(client, made["id"]) as sock:
            state = sock.wait(lambda s: s["game"]["turn"] >= 2)
            assert {e["seat"] for e in state["game"]["log"]} == {0, 1}


def test_a_computer_plays_a_cooperative_game_alone(db: Path) -> None:
    with served(db) as client:
        made = create(client, seats=[{"kind": "computer", "player": "random"}])
        with socket(client, made["id"]) as sock:
            final = sock.wait(lambda s: s["game"]["over"], limit=5000)
        assert final["game"]["turn"] > 40


@pytest.mark.slow
def test_the_test_client_is_used_as_starlette_recommends() -> None:
    """Starlette's test client warns when it runs on httpx; the test extra installs httpx2."""
    import subprocess
    import sys

    result = subprocess.run(
        [sys.executable, "-W", "error", "-c", "import fastapi.testclient"], capture_output=True, text=True
    )
    assert result.returncode == 0, result.stderr.strip().splitlines()[-1:]


@pytest.mark.storage
def test_a_key_taken_back_by_an_undo_is_free_again(db: Path) -> None:
    """A move sent again with its key is not made twice; once an undo took it back, the key
    names a new move."""
    with served(db) as client:
        made = create(client, seats=[{"kind": "here"}], practice=True)
        with socket(client, made["id"], [made["tokens"]["0"]]) as sock:
            move = {**legal_move(sock.sync(), 0), "key": "k-1"}
            assert sock.request(move)["version"] == 1
            again = sock.request(move)
            assert again["type"] == "ok" and again["again"] is True and sock.sync()["game"]["version"] == 1
            assert sock.request({"type": "undo", "seat": 0})["type"] == "ok"
            fresh = sock.request({**legal_move(sock.sync(), 0), "key": "k-1"})
            assert fresh["type"] == "ok" and "again" not in fresh and fresh["version"] == 3
