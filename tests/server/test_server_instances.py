"""Several servers on one PostgreSQL database (issue 24): any server serves any game; a move is
made once, in version order, whichever server gets it; a computer seat is thought for once; an
instance killed mid-game loses no move it acknowledged."""

from __future__ import annotations

import contextlib
import json
import random
import signal
import subprocess
import sys
import threading
import urllib.request
from collections.abc import Iterator
from contextlib import ExitStack, contextmanager
from typing import Any

import psycopg
import pytest
from fastapi.testclient import TestClient
from test_server_helpers import Json, Socket, create, legal_move, served, socket, until

from dorf.server.storage.base import MOVE, Change


@contextmanager
def servers(url: str, count: int = 2, **config: Any) -> Iterator[list[TestClient]]:
    """``count`` servers (each its own app, hub and listener) on one database."""
    with ExitStack() as stack:
        yield [stack.enter_context(served(url, **config)) for _ in range(count)]


def stored(url: str, game_id: str) -> list[tuple[int, str, str | None]]:
    with psycopg.connect(url) as conn:
        rows = conn.execute(
            "SELECT number, decision, key FROM server_decision WHERE game_id = %s ORDER BY number", (game_id,)
        ).fetchall()
    return [(n, d, k) for n, d, k in rows]


def test_a_game_played_from_two_servers_is_one_game(pg_url: str) -> None:
    with servers(pg_url) as (a, b):
        made = create(a, "duel", seats=[{"kind": "here"}, {"kind": "here"}], seed=None)
        gid, tokens = made["id"], made["tokens"]
        rng = random.Random(3)
        with socket(a, gid, [tokens["0"]]) as left, socket(b, gid, [tokens["1"]]) as right:
            for _ in range(400):
                state = left.sync()
                if state["game"]["over"]:
                    break
                for sock, seat in ((left, 0), (right, 1)):
                    now = sock.sync()
                    if seat in now["game"]["waiting"]:
                        reply = sock.request(legal_move(now, seat, rng))
                        assert reply["type"] == "ok", reply
                until(lambda: right.sync()["game"]["version"] == left.sync()["game"]["version"])
            final_a, final_b = left.sync(), right.sync()
            assert final_a["game"]["over"] and final_b["game"]["over"]
            assert final_a["game"]["scores"] == final_b["game"]["scores"]
            assert final_a["game"]["version"] == final_b["game"]["version"]
        # what either server describes is what the database replays to
        with served(pg_url) as c:
            again = c.get(f"/api/games/{gid}").json()
        assert again["scores"] == final_a["game"]["scores"] and again["over"]


def test_moves_from_both_sides_at_once_are_each_made_once_in_version_order(pg_url: str) -> None:
    """The Duel's seats place at the same time, from two servers, many times over: every move
    is answered ok exactly once and stored once, versions have no gap and no repeat."""
    with servers(pg_url) as (a, b):
        made = create(a, "duel", seats=[{"kind": "here"}, {"kind": "here"}], seed=None)
        gid, tokens = made["id"], made["tokens"]
        answers: list[list[Json]] = [[], []]
        errors: list[str] = []

        def play(client: TestClient, seat: int) -> None:
            rng = random.Random(seat)
            try:
                with socket(client, gid, [tokens[str(seat)]]) as sock:
                    for n in range(200):
                        state = sock.wait(lambda s: s["game"]["over"] or seat in s["game"]["waiting"])
                        if state["game"]["over"]:
                            return
                        move = {**legal_move(state, seat, rng), "key": f"s{seat}-{n}"}
                        reply = sock.request(move)
                        if reply["type"] == "ok":
                            answers[seat].append(reply)
                        elif reply.get("code") != "illegal":  # a stale view: the next state says
                            errors.append(json.dumps(reply))
            except Exception as exc:
                errors.append(repr(exc))

        threads = [threading.Thread(target=play, args=(c, s)) for c, s in ((a, 0), (b, 1))]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join(120)
        assert not errors, errors[:3]
        rows = stored(pg_url, gid)
        assert [n for n, _, _ in rows] == list(range(1, len(rows) + 1))
        keys = [k for _, _, k in rows]
        assert len(keys) == len(set(keys)) and None not in keys
        assert len(rows) == len(answers[0]) + len(answers[1])
        versions = sorted(r["version"] for r in answers[0] + answers[1])
        assert len(versions) == len(set(versions))
        assert a.get(f"/api/games/{gid}").json()["over"]


def test_a_move_sent_again_with_its_key_is_not_made_twice(pg_url: str) -> None:
    with servers(pg_url) as (a, b):
        made = create(a, "coop", seats=[{"kind": "here"}], seed=None)
        gid, token = made["id"], made["tokens"]["0"]
        with socket(a, gid, [token]) as first:
            move = {**legal_move(first.sync(), 0), "key": "only-once"}
            reply = first.request(move)
            assert reply["type"] == "ok" and reply["version"] == 1 and "again" not in reply
        with socket(b, gid, [token]) as second:  # the connection was lost: sent again elsewhere
            reply = second.request(move)
            assert reply["type"] == "ok" and reply["again"] is True
            assert second.sync()["game"]["version"] == 1
        assert len(stored(pg_url, gid)) == 1


def test_a_seat_taken_on_one_server_is_known_on_the_other(pg_url: str) -> None:
    with servers(pg_url) as (a, b):
        made = create(a, "duel", seats=[{"kind": "here"}, {"kind": "online"}], seed=None)
        gid = made["id"]
        with socket(a, gid, [made["tokens"]["0"]]) as host:
            joined = b.post(f"/api/games/{gid}/join", json={"invite": made["invites"]["1"], "name": "Bea"})
            assert joined.status_code == 200, joined.text
            host.wait(lambda s: s["game"]["seats"][1]["name"] == "Bea")
            again = a.post(f"/api/games/{gid}/join", json={"invite": made["invites"]["1"], "name": "Eve"})
            assert again.status_code == 403
            with socket(a, gid, [joined.json()["token"]]) as guest:
                assert guest.seen[-1]["type"] == "welcome" and guest.seen[-1]["seats"] == [1]


def test_a_computer_seat_is_thought_for_once_with_two_servers(pg_url: str) -> None:
    """Both servers hold the game (a client on each); the computer's moves are thought on one
    server only, each once, and the game is played to its end."""
    with servers(pg_url) as (a, b):
        made = create(
            a, "duel", seats=[{"kind": "here"}, {"kind": "computer", "player": "greedy"}], seed=None
        )
        gid, token = made["id"], made["tokens"]["0"]
        with socket(a, gid, [token]) as player, socket(b, gid) as watcher:
            final = _play(player, 0, random.Random(5))
            watcher.wait(lambda s: s["game"]["over"])
            assert watcher.state is not None and watcher.state["game"]["scores"] == final["game"]["scores"]
        thought = [c.get("/api/health").json()["thought"] for c in (a, b)]
        computer_moves = sum(1 for row in stored(pg_url, gid) if json.loads(row[1]).get("player") == 1)
        assert sum(thought) == computer_moves > 0, (thought, computer_moves)


def test_limits_count_across_servers(pg_url: str) -> None:
    """Two new games a minute from one address, made on two servers: the third is refused on
    either; spectators of one game are counted on both."""
    with servers(pg_url, create_limit=2, max_spectators=1) as (a, b):
        create(a, seed=None)
        made = create(b, seed=None)
        refused = a.post("/api/games", json={"mode": "coop"})
        assert refused.status_code == 429 and refused.json()["error"]["code"] == "rate-limited"
        with socket(a, made["id"]) as watcher:
            assert watcher.state is not None
            with b.websocket_connect(f"/ws/{made['id']}") as ws:
                crowd = Socket(ws)
                crowd.receive()  # the state; then, with no hello, it is turned away
                ws.send_text(json.dumps({"type": "ping", "id": 1}))
                assert crowd.receive()["type"] == "pong"
                reply = crowd.receive()
                assert reply["type"] == "error" and reply["code"] == "busy", reply


def test_a_change_heard_is_described_as_made() -> None:
    made = Change("g1", 4, MOVE, 1, 3, {"player": 0, "at": [1, 0], "rot": 2}, key="k", origin="me")
    assert Change.parse(made.payload()) == made


# --- a real process killed ------------------------------------------------------------------------


def _play(sock: Socket, seat: int, rng: random.Random) -> Json:
    for _ in range(400):
        state = sock.wait(lambda s: s["game"]["over"] or seat in s["game"]["waiting"])
        if state["game"]["over"]:
            return state
        reply = sock.request(legal_move(state, seat, rng))
        assert reply["type"] == "ok", reply
    raise AssertionError("the game did not end")


def _serve(url: str) -> tuple[subprocess.Popen[str], str]:
    command = [sys.executable, "-m", "dorf.cli", "serve", "--db", url, "--port", "0", "--log-level", "error"]
    command += ["--ai-workers", "0"]  # no computer seat here: no worker processes to start
    process = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    assert process.stdout is not None
    line = process.stdout.readline()
    assert line.startswith("dorf: playing at http://127.0.0.1:"), line + (
        process.stderr.read() if process.stderr else ""
    )
    return process, line.split()[3].rstrip("/")


def _post(base: str, path: str, body: Json) -> Json:
    request = urllib.request.Request(
        base + path, json.dumps(body).encode(), {"Content-Type": "application/json"}, method="POST"
    )
    with urllib.request.urlopen(request, timeout=10) as response:
        answer: Json = json.loads(response.read())
        return answer


@contextmanager
def wire(base: str, game_id: str, token: str) -> Iterator[Socket]:
    """A websocket to a real server process, keeping the state as :class:`Socket` does."""
    from websockets.sync.client import connect

    with connect(base.replace("http://", "ws://") + f"/ws/{game_id}", open_timeout=10) as ws:
        sock = Socket(_Adapter(ws))
        sock.receive()
        sock.hello([token])
        yield sock


class _Adapter:
    """websockets' client with the two methods :class:`Socket` uses."""

    def __init__(self, ws: Any) -> None:
        self.ws = ws

    def receive_json(self) -> Any:
        return json.loads(self.ws.recv(timeout=20))

    def send_text(self, text: str) -> None:
        self.ws.send(text)


@pytest.mark.slow
@pytest.mark.skipif(sys.platform != "linux", reason="SIGKILL")
def test_an_instance_killed_mid_game_loses_no_acknowledged_move(pg_url: str) -> None:
    """Moves made on instance A (a ``dorf serve`` process), each acknowledged saved; A is killed
    with SIGKILL; the game goes on on instance B (in a thread of this process, on the same
    database) from where every acknowledged move left it."""
    from dorf.testing.servers import launch

    (a, base_a) = _serve(pg_url)
    b = launch(pg_url, ai_delay=0)
    base_b = b.url
    stack = ExitStack()
    try:
        made = _post(base_a, "/api/games", {"mode": "coop", "seats": [{"kind": "here"}]})
        gid, token = made["id"], made["tokens"]["0"]
        rng = random.Random(11)
        playing = stack.enter_context(wire(base_a, gid, token))
        saved = 0
        for n in range(12):
            state = playing.sync()
            reply = playing.request({**legal_move(state, 0, rng), "key": f"k{n}"})
            assert reply["type"] == "ok", reply
            playing.wait_saved(reply["version"])
            saved = reply["version"]
        watching = stack.enter_context(wire(base_b, gid, token))  # B holds the game too
        a.send_signal(signal.SIGKILL)
        a.wait(10)
        with urllib.request.urlopen(f"{base_b}/api/games/{gid}", timeout=10) as response:
            after = json.loads(response.read())
        assert after["version"] == saved
        assert [k for _, _, k in stored(pg_url, gid)] == [f"k{n}" for n in range(12)]
        state = watching.sync()
        reply = watching.request({**legal_move(state, 0, rng), "key": "k11"})  # sent again: made
        assert reply["type"] == "ok" and reply.get("again") is True
        reply = watching.request({**legal_move(state, 0, rng), "key": "k12"})
        assert reply["type"] == "ok" and reply["version"] == saved + 1
    finally:
        with contextlib.suppress(Exception):
            stack.close()  # A's socket is dead
        b.stop()
        if a.poll() is None:
            a.send_signal(signal.SIGTERM)
            try:
                a.wait(10)
            except subprocess.TimeoutExpired:
                a.kill()


def test_a_move_the_database_refuses_is_answered_storage_and_changes_nothing(
    pg_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The database's connection fails on commit (as when PostgreSQL goes away): the move is
    refused at once with ``storage``, the game as it was; once the database answers, it is made."""
    from dorf.server.storage.base import Unavailable
    from dorf.server.storage.postgres import PostgresTables

    with servers(pg_url, count=1) as (a,):
        made = create(a, "coop", seats=[{"kind": "here"}], seed=None)
        gid, token = made["id"], made["tokens"]["0"]
        with socket(a, gid, [token]) as sock:
            before = sock.sync()
            real = PostgresTables.commit_changes

            def gone(self: PostgresTables, changes: Any) -> list[bool]:
                raise Unavailable("server closed the connection unexpectedly")

            monkeypatch.setattr(PostgresTables, "commit_changes", gone)
            reply = sock.request(legal_move(before, 0))
            assert reply["type"] == "error" and reply["code"] == "storage", reply
            assert sock.sync()["game"] == before["game"]
            assert stored(pg_url, gid) == []
            monkeypatch.setattr(PostgresTables, "commit_changes", real)
            reply = sock.request(legal_move(sock.sync(), 0))
            assert reply["type"] == "ok" and reply["version"] == 1
        assert len(stored(pg_url, gid)) == 1
