"""Helpers for the server tests: an app on a temporary database and a websocket client."""

from __future__ import annotations

import asyncio
import json
import random
import time
from collections.abc import Callable, Coroutine, Iterator
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager
from pathlib import Path
from typing import Any, TypeVar

from fastapi.testclient import TestClient

from dorf.server.config import ServerConfig
from dorf.server.hub import create_app
from dorf.server.protocol.delta import patch

Json = dict[str, Any]
T = TypeVar("T")


def run_async(make: Callable[[], Coroutine[Any, Any, T]]) -> T:
    """``asyncio.run(make())`` in a thread of its own: a browser test earlier in the same worker
    leaves Playwright's event loop running in the main thread, where ``asyncio.run`` refuses."""
    with ThreadPoolExecutor(1) as thread:
        return thread.submit(lambda: asyncio.run(make())).result()


def cheap_hasher() -> Any:
    """argon2id at its lowest cost (8 KiB, one pass, one lane), for tests that set and try
    passwords by the dozen: the same hashes and checks, a small fraction of the work.  The server's
    own (``accounts._hasher``: argon2's defaults, 64 MiB, 3 passes, 4 lanes) is what production
    uses: test_players checks a stored hash's parameters."""
    from argon2 import PasswordHasher

    return PasswordHasher(time_cost=1, memory_cost=8, parallelism=1)


def cheap_passwords(monkeypatch: Any) -> None:
    """Let the server hash passwords with :func:`cheap_hasher` (until ``monkeypatch`` undoes it)."""
    from dorf.server.players import accounts

    monkeypatch.setattr(accounts, "_hasher", cheap_hasher)


@contextmanager
def served(db: Path | str, **config: Any) -> Iterator[TestClient]:
    """A test client of an app on ``db``; computer seats think in threads, without delay."""
    settings = {"ai_workers": 0, "ai_delay": 0.0, "daily_expert": "greedy", **config}
    with TestClient(create_app(ServerConfig(db=db, **settings))) as client:
        yield client


#: A request with this header comes from the address it names (the test client's requests all
#: come from one address, ``testclient``).
ADDRESS = "x-test-address"


def addressed(app: Any) -> Any:
    """``app`` behind a shim that takes each request's address from its :data:`ADDRESS` header."""

    async def shim(scope: Any, receive: Any, send: Any) -> None:
        if scope["type"] in ("http", "websocket"):
            for key, value in scope["headers"]:
                if key == ADDRESS.encode():
                    scope = {**scope, "client": (value.decode(), 50000)}
        await app(scope, receive, send)

    return shim


def create(
    client: TestClient, mode: str = "coop", seats: list[Json] | None = None, seed: int | None = 7, **more: Any
) -> Json:
    body: Json = {"mode": mode, "seed": seed, **more}
    if seats is not None:
        body["seats"] = seats
    response = client.post("/api/games", json=body)
    assert response.status_code == 201, response.text
    result: Json = response.json()
    return result


def until(check: Callable[[], bool], limit: float = 20.0) -> None:
    """Wait (bounded) until ``check()`` holds."""
    deadline = time.monotonic() + limit
    while not check():
        if time.monotonic() > deadline:
            raise AssertionError("it never happened")
        time.sleep(0.02)


class Socket:
    """A game's websocket: keeps the state as the server describes it (each ``state`` replaces it,
    each ``delta`` changes it, as the page does); ``request`` waits for the answer to a message."""

    def __init__(self, ws: Any) -> None:
        self.ws = ws
        self.state: Json | None = None
        self.next_id = 1
        self.seen: list[Json] = []

    def receive(self) -> Json:
        message: Json = self.ws.receive_json()
        self.seen.append(message)
        if message["type"] == "state":
            self.state = message
        elif message["type"] == "delta":
            assert self.state is not None, "a delta before any state"
            assert message["from"] == self.state["game"]["version"], (message["from"], self.state)
            doc = patch({"you": self.state["you"], "game": self.state["game"]}, message["ops"])
            self.state = {"type": "state", **doc}
            assert self.state["game"]["version"] == message["version"]
        return message

    def request(self, message: Json) -> Json:
        ref = self.next_id
        self.next_id += 1
        self.ws.send_text(json.dumps({**message, "id": ref}))
        for _ in range(1000):
            reply = self.receive()
            if reply.get("id") == ref and reply["type"] not in ("state", "delta"):
                return reply
        raise AssertionError(f"no answer to {message}")

    def wait(self, predicate: Callable[[Json], bool], limit: int = 2000) -> Json:
        """Read until a state satisfies ``predicate``."""
        if self.state is not None and predicate(self.state):
            return self.state
        for _ in range(limit):
            message = self.receive()
            if message["type"] in ("state", "delta") and self.state is not None and predicate(self.state):
                return self.state
        raise AssertionError("the awaited state never came")

    def sync(self) -> Json:
        """Read everything the server has sent so far (a ping's answer comes after it)."""
        self.request({"type": "ping"})
        assert self.state is not None
        return self.state

    def wait_saved(self, version: int, limit: int = 2000) -> None:
        """Read until the server says the game is stored up to ``version``."""
        if any(m["type"] == "saved" and m["version"] >= version for m in self.seen):
            return
        for _ in range(limit):
            message = self.receive()
            if message["type"] == "saved" and message["version"] >= version:
                return
        raise AssertionError(f"version {version} was never saved")

    def hello(self, tokens: list[str]) -> Json:
        reply = self.request({"type": "hello", "tokens": tokens})
        return reply


@contextmanager
def socket(client: TestClient, game_id: str, tokens: list[str] | None = None) -> Iterator[Socket]:
    with client.websocket_connect(f"/ws/{game_id}") as ws:
        sock = Socket(ws)
        sock.receive()  # the first state, as a spectator
        if tokens is not None:
            sock.hello(tokens)
        yield sock


def legal_move(state: Json, seat: int, rng: random.Random | None = None) -> Json:
    """A legal move for ``seat`` from a state message: a placement, or a pick in the draft."""
    game = state["game"]
    if game["phase"] == "draft":
        pool = game["pool"]
        tile = pool[rng.randrange(len(pool))] if rng else pool[0]
        return {"type": "move", "seat": seat, "pick": tile["id"]}
    cells = state["you"]["legal"][str(seat)]
    q, r, rots = cells[rng.randrange(len(cells))] if rng else cells[0]
    rot = rots[rng.randrange(len(rots))] if rng else rots[0]
    return {"type": "move", "seat": seat, "at": [q, r], "rot": rot}


def play_out(sock: Socket, seats: list[int], rng: random.Random, limit: int = 400) -> Json:
    """Play ``seats`` with random legal moves until the game is over (others move by themselves)."""
    for _ in range(limit):
        state = sock.wait(lambda s: s["game"]["over"] or any(x in s["game"]["waiting"] for x in seats))
        if state["game"]["over"]:
            return state
        seat = next(x for x in state["game"]["waiting"] if x in seats)
        reply = sock.request(legal_move(state, seat, rng))
        assert reply["type"] == "ok", reply
    raise AssertionError("the game did not end")
