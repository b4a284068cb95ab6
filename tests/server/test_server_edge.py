"""The server's edges (issue 23): the Host it answers to (DNS rebinding), whose X-Forwarded-For it
believes, the campaign creation limit, and hints and replays computed in worker processes, one at a
time per address and a bounded number in all."""

from __future__ import annotations

import http.client
import json
import subprocess
import sys
import threading
import time
import urllib.request
from collections.abc import Iterator
from concurrent.futures import Future, ThreadPoolExecutor
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient
from starlette.websockets import WebSocketDisconnect
from test_server_helpers import Socket, create, legal_move, served, socket

from dorf.formats.record import record_of
from dorf.games.coop import CoopGame
from dorf.games.headtohead import HeadToHeadGame
from dorf.server.computer import hints, replay
from dorf.server.computer import pool as workers
from dorf.server.computer.replay import replay_steps
from dorf.server.edge.limits import allowed_origin

Json = dict[str, Any]


def from_address(client: TestClient, host: str) -> TestClient:
    """Another client of the same running app (the same event loop), seen as coming from ``host``."""
    other = TestClient(client.app, client=(host, 50000))
    other.portal = client.portal
    return other


def coop_record(moves: int, seed: int = 3) -> Json:
    state = CoopGame(seed=seed, players=2).new_state()
    for _ in range(moves):
        state.play(state.legal_placements()[0])
    return record_of(state)


def head_to_head_record() -> Json:
    """A whole game of Head to Head, each decision the first legal one."""
    state = HeadToHeadGame(seed=5).new_state()
    while not state.is_over:
        player = state.to_move()[0]
        decisions = state.legal_picks() if state.phase == "draft" else state.legal_placements(player)
        state.apply(decisions[0], player)
    return record_of(state)


# --- 1. the Host header: DNS rebinding -----------------------------------------------------------


def test_a_request_for_a_host_that_is_not_ours_is_refused(db: Path) -> None:
    with served(db) as client:
        made = create(client)
        for url in ("http://evil.example/api/health", "http://evil.example:8000/"):
            refused = client.get(url)
            assert refused.status_code == 400
            error = refused.json()["error"]
            assert error["code"] == "bad-host" and "\n" not in error["message"]
            assert "evil.example" in error["message"]
        # the rebinding attack: a page of evil.example, resolved to this server, is same-origin to itself
        rebound = {"origin": "http://evil.example:8000"}
        post = client.post("http://evil.example:8000/api/games", json={"mode": "coop"}, headers=rebound)
        assert post.status_code == 400 and post.json()["error"]["code"] == "bad-host"
        with (
            pytest.raises(WebSocketDisconnect),
            client.websocket_connect(f"ws://evil.example:8000/ws/{made['id']}") as ws,
        ):
            ws.receive_json()
        # the loopback names, with or without a port, and the test client's own
        for base in ("http://127.0.0.1:8000", "http://localhost", "http://[::1]:8000", "http://testserver"):
            assert client.get(base + "/api/health").status_code == 200, base
        with client.websocket_connect(f"ws://localhost:8000/ws/{made['id']}") as ws:
            assert Socket(ws).receive()["type"] == "state"


def test_the_allowed_hosts_are_configurable_and_the_origin_is_checked_against_them(db: Path) -> None:
    with served(db, allowed_hosts=("dorf.example",)) as client:
        assert client.get("http://dorf.example/api/health").status_code == 200
        assert client.get("http://DORF.example:443/api/health").status_code == 200  # any case, any port
        assert client.get("http://testserver/api/health").status_code == 400  # only the hosts named
        ours = {"origin": "http://dorf.example"}
        made = client.post("http://dorf.example/api/games", json={"mode": "coop"}, headers=ours)
        assert made.status_code == 201
    hosts = ("127.0.0.1", "localhost")
    assert allowed_origin("http://localhost:8000", "localhost:8000", hosts, ())
    rebound = ("http://evil.example:8000", "evil.example:8000")
    assert not allowed_origin(*rebound, hosts, ())  # its own origin, but not one of our hosts
    assert not allowed_origin("http://localhost:3000", "localhost:8000", hosts, ())  # another local server
    assert allowed_origin("http://192.0.2.7:8000", "localhost:8000", hosts, ("http://192.0.2.7:8000",))
    assert allowed_origin(None, "localhost:8000", hosts, ())  # a program, not a page


def test_dorf_serve_allows_loopback_and_the_host_it_listens_on() -> None:
    from dorf.server.cli import serve_hosts

    loopback = {"127.0.0.1", "localhost", "::1"}
    assert set(serve_hosts("127.0.0.1", ())) == loopback
    assert set(serve_hosts("0.0.0.0", ())) == loopback  # every address: name the public host yourself
    assert set(serve_hosts("::", ("dorf.example",))) == loopback | {"dorf.example"}
    assert set(serve_hosts("192.0.2.7", ("dorf.example", "[2001:db8::1]"))) == loopback | {
        "192.0.2.7",
        "dorf.example",
        "2001:db8::1",
    }


# --- 2. a real dorf serve: Host and X-Forwarded-For ------------------------------------------------


@contextmanager
def dorf_serve(db: Path, *options: str) -> Iterator[int]:
    """A ``dorf serve`` process on a free port; yields the port."""
    command = [sys.executable, "-m", "dorf.cli", "serve", "--db", str(db), "--log-level", "error"]
    command += ["--port", "0", "--ai-workers", "0", *options]
    process = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        assert process.stdout is not None
        line = process.stdout.readline()
        assert line.startswith("dorf: playing at http://127.0.0.1:"), process.stderr and process.stderr.read()
        yield int(line.split()[3].rstrip("/").rsplit(":", 1)[1])
    finally:
        process.terminate()
        process.wait(timeout=30)


def ask(port: int, method: str, path: str, body: Json | None = None, **headers: str) -> tuple[int, Json]:
    """One request to 127.0.0.1:port with these headers (``host`` among them, if given)."""
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
    try:
        data = json.dumps(body).encode() if body is not None else None
        sent = {"Content-Type": "application/json", **{k.replace("_", "-"): v for k, v in headers.items()}}
        if "host" in sent:
            connection.putrequest(method, path, skip_host=True)
            for name, value in sent.items():
                connection.putheader(name, value)
            connection.putheader("Content-Length", str(len(data or b"")))
            connection.endheaders(data)
        else:
            connection.request(method, path, body=data, headers=sent)
        response = connection.getresponse()
        return response.status, json.loads(response.read() or b"{}")
    finally:
        connection.close()


@pytest.mark.slow
def test_dorf_serve_refuses_other_hosts_and_believes_no_forwarded_for(db: Path) -> None:
    with dorf_serve(db, "--create-limit", "2") as port:
        status, answer = ask(port, "GET", "/api/health", host="evil.example")
        assert status == 400 and answer["error"]["code"] == "bad-host"
        assert ask(port, "GET", "/api/health", host=f"localhost:{port}")[0] == 200
        assert ask(port, "GET", "/api/health")[0] == 200  # 127.0.0.1:port
        statuses = [
            ask(port, "POST", "/api/games", {"mode": "coop"}, x_forwarded_for=f"203.0.113.{n}")[0]
            for n in range(3)
        ]
        assert statuses == [201, 201, 429]  # the header changes nothing: one address, 127.0.0.1


@pytest.mark.slow
def test_dorf_serve_believes_forwarded_for_and_proto_from_a_trusted_proxy_only(db: Path) -> None:
    options = ("--create-limit", "2", "--trusted-proxy", "127.0.0.1", "--allowed-host", "dorf.example")
    with dorf_serve(db, *options) as port:
        # the cookie is Secure behind a trusted proxy that says HTTPS (and only then)
        for proto, secure in (("https", True), ("http", False)):
            request = urllib.request.Request(
                f"http://127.0.0.1:{port}/api/me", data=b"{}", headers={"X-Forwarded-Proto": proto}
            )
            with urllib.request.urlopen(request, timeout=30) as response:
                cookie = response.headers["Set-Cookie"]
            assert ("Secure" in cookie) is secure and "HttpOnly" in cookie, cookie
        assert ask(port, "GET", "/api/health", host="dorf.example")[0] == 200
        assert ask(port, "GET", "/api/health", host="evil.example")[0] == 400
        statuses = [
            ask(port, "POST", "/api/games", {"mode": "coop"}, x_forwarded_for=f"203.0.113.{n}")[0]
            for n in range(3)
        ]
        assert statuses == [201, 201, 201]  # three clients behind the proxy
        again = [ask(port, "POST", "/api/games", {"mode": "coop"}, x_forwarded_for="203.0.113.1")[0]]
        again += [ask(port, "POST", "/api/games", {"mode": "coop"}, x_forwarded_for="203.0.113.1")[0]]
        assert again == [201, 429]  # 203.0.113.1 has made its two


# --- 3. creating campaigns is limited ---------------------------------------------------------------


@pytest.mark.sqlite_only  # restarted, a server on SQLite forgets the count (PostgreSQL keeps it)
@pytest.mark.slow
def test_creating_campaigns_is_limited_per_address(db: Path) -> None:
    with served(db, campaign_limit=2) as client:
        for name in ("One", "Two"):
            assert client.post("/api/campaigns", json={"name": name}).status_code == 201
        refused = client.post("/api/campaigns", json={"name": "Three"})
        assert refused.status_code == 429 and refused.json()["error"]["code"] == "rate-limited"
        assert 1 <= int(refused.headers["retry-after"]) <= 60
        assert "campaigns" in refused.json()["error"]["message"]
        other = from_address(client, "192.0.2.9")  # another address has its own count
        assert other.post("/api/campaigns", json={"name": "Three"}).status_code == 201
    with served(db) as client:  # the default: 10 a minute
        statuses = [client.post("/api/campaigns", json={"name": f"C{n}"}).status_code for n in range(11)]
        assert statuses == [201] * 10 + [429]
    with served(db, campaign_limit=0) as client:  # 0: no limit
        for n in range(12):
            assert client.post("/api/campaigns", json={"name": f"D{n}"}).status_code == 201


# --- 4. hints and replays: in worker processes, limited per address and in all --------------------


def _fail_here(*args: Any, **kwargs: Any) -> Any:
    raise AssertionError("computed in the server process")


@pytest.mark.slow
def test_hints_and_replays_are_computed_in_worker_processes(
    db: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    record = head_to_head_record()
    expected = replay_steps(record)
    monkeypatch.setattr(hints, "HINT_PLAYER", "planner:1")  # a quick coach: this checks where, not what
    with served(db, ai_workers=1) as client:
        made = create(client)
        gid, token = made["id"], made["tokens"]["0"]
        jobs = client.get("/api/health").json()["thinking"]["jobs"]
        # from here on, computing a hint or a replay in the server process fails
        monkeypatch.setattr(hints, "hint_for", _fail_here)
        monkeypatch.setattr(replay, "replay_steps", _fail_here)
        for module in ("dorf.server.hub", "dorf.server.edge.app", "dorf.server.computer.pool"):
            for name in ("hint_for", "replay_steps"):
                monkeypatch.setattr(f"{module}.{name}", _fail_here, raising=False)
        answer = client.post(f"/api/games/{gid}/hint", json={"token": token, "seat": 0})
        assert answer.status_code == 200, answer.text
        assert answer.json()["hint"]["at"] == [0, 0]
        steps = client.post("/api/replay", json=record)
        assert steps.status_code == 200, steps.text
        assert steps.json() == expected
        bad = client.post("/api/replay", json={**record, "decisions": [{"pick": 9999}]})
        assert bad.status_code == 400 and bad.json()["error"]["code"] == "bad-record"
        assert client.get("/api/health").json()["thinking"]["jobs"] == jobs + 3  # all three in the pool


@pytest.fixture
def held(monkeypatch: pytest.MonkeyPatch) -> Iterator[tuple[threading.Event, threading.Event]]:
    """Jobs of the pool's threads (``ai_workers=0``) wait for ``release`` (set ``started`` first)."""
    started, release = threading.Event(), threading.Event()
    original = getattr(workers, "run_job", None)

    def waiting(kind: str, args: Json) -> Json:
        started.set()
        release.wait(30)
        assert original is not None
        result: Json = original(kind, args)
        return result

    monkeypatch.setattr(workers, "run_job", waiting, raising=False)
    monkeypatch.setattr(hints, "HINT_PLAYER", "planner:1")
    yield started, release
    release.set()


def test_one_hint_and_one_replay_at_a_time_per_address_and_a_few_in_all(
    db: Path, held: tuple[threading.Event, threading.Event]
) -> None:
    started, release = held
    record = coop_record(4)
    with served(db, ai_workers=0) as client, ThreadPoolExecutor(6) as requests:
        clients = {name: from_address(client, f"192.0.2.{n}") for n, name in enumerate("abcde", 1)}
        games = {name: create(client) for name in clients}

        def hint(name: str) -> Any:
            made = games[name]
            body = {"token": made["tokens"]["0"], "seat": 0}
            return clients[name].post(f"/api/games/{made['id']}/hint", json=body)

        def queued(count: int) -> None:
            deadline = time.monotonic() + 10
            while True:
                thinking = client.get("/api/health").json()["thinking"]
                if thinking["running"] + thinking["waiting"] >= count:
                    return
                assert time.monotonic() < deadline, thinking
                time.sleep(0.02)

        asked: list[Future[Any]] = [requests.submit(hint, "a")]
        assert started.wait(10), "the hint never reached the pool"
        again = hint("a")  # the same address: one at a time
        assert again.status_code == 429 and again.json()["error"]["code"] == "busy"
        assert "one hint at a time" in again.json()["error"]["message"]
        asked += [requests.submit(hint, name) for name in "bcd"]  # other addresses are served
        queued(4)  # two threads, two hints each: the queue is full
        full = hint("e")
        assert full.status_code == 429 and full.json()["error"]["code"] == "busy"
        assert "computing 4 hints" in full.json()["error"]["message"]
        asked.append(requests.submit(clients["e"].post, "/api/replay", json=record))
        queued(5)
        twice = clients["e"].post("/api/replay", json=record)
        assert twice.status_code == 429 and twice.json()["error"]["code"] == "busy"
        assert "one replay at a time" in twice.json()["error"]["message"]
        release.set()
        assert [future.result().status_code for future in asked] == [200] * 5
        assert hint("a").status_code == 200  # answered: the address may ask again


@pytest.mark.slow
def test_moves_are_answered_quickly_while_hints_and_replays_are_computed(db: Path) -> None:
    record = head_to_head_record()
    with served(db, ai_workers=2) as client, ThreadPoolExecutor(6) as requests:
        # a hint for each of the two workers, and a replay waiting for one of them
        asking = [from_address(client, f"192.0.2.{n}") for n in range(1, 3)]
        games = [create(client) for _ in asking]
        bodies = [(f"/api/games/{g['id']}/hint", {"token": g["tokens"]["0"], "seat": 0}) for g in games]
        busy = [
            requests.submit(c.post, url, json=body) for c, (url, body) in zip(asking, bodies, strict=True)
        ]
        busy += [requests.submit(c.post, "/api/replay", json=record) for c in asking[:1]]
        made = create(client, seats=[{"kind": "here"}])
        times: list[float] = []
        meanwhile: list[int] = []
        with socket(client, made["id"], [made["tokens"]["0"]]) as sock:
            for _ in range(6):
                move = legal_move(sock.sync(), 0)
                began = time.perf_counter()
                assert sock.request(move)["type"] == "ok"
                times.append(time.perf_counter() - began)
                meanwhile.append(sum(not future.done() for future in busy))
        assert meanwhile[0] > 0, meanwhile  # the coach was at work during the moves
        assert max(times) < 1.0, times
        assert all(future.result().status_code in (200, 429) for future in busy)
