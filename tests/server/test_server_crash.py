"""A real ``dorf serve`` killed outright (SIGKILL) resumes every game from its database, with every
move it acknowledged as saved."""

from __future__ import annotations

import json
import random
import sys
import time
from pathlib import Path
from typing import Any

import pytest
import websockets.sync.client as websockets_sync

from dorf.server.protocol.delta import patch
from dorf.testing.net import free_port, get, post
from dorf.testing.servers import launch

pytestmark = pytest.mark.slow


def _until(ws: Any, ref: str, last: dict[str, Any], saved: list[int]) -> dict[str, Any]:
    """Read until the answer to message ``ref``, keeping the state in ``last`` (whole states and
    deltas) and the versions acknowledged as saved in ``saved``."""
    while True:
        message = json.loads(ws.recv(timeout=10))
        if message["type"] == "state":
            last.update(message)
        elif message["type"] == "delta":
            last.update(patch({"you": last["you"], "game": last["game"]}, message["ops"]))
        elif message["type"] == "saved":
            saved.append(message["version"])
        if message.get("id") == ref:
            return message


def _state(ws: Any, last: dict[str, Any], saved: list[int]) -> dict[str, Any]:
    ws.send(json.dumps({"type": "ping", "id": "sync"}))
    _until(ws, "sync", last, saved)
    return last


@pytest.mark.skipif(sys.platform == "win32", reason="SIGKILL")
def test_a_killed_server_loses_nothing_it_acknowledged_as_saved(tmp_path: Path) -> None:
    db = tmp_path / "dorf.sqlite3"
    port = free_port()
    rng = random.Random(2)
    with launch(db, process=True, port=port, ai_delay=0) as server:
        made = post(server.url + "/api/games", {"mode": "duel", "seed": 77})
        gid = made["id"]
        tokens = list(made["tokens"].values())
        with websockets_sync.connect(f"ws://127.0.0.1:{port}/ws/{gid}") as ws:
            ws.send(json.dumps({"type": "hello", "tokens": tokens}))
            last: dict[str, Any] = {}
            saved: list[int] = []
            for _ in range(9):
                state = _state(ws, last, saved)
                seat = state["game"]["waiting"][0]
                q, r, rots = rng.choice(state["you"]["legal"][str(seat)])
                ws.send(json.dumps({"type": "move", "seat": seat, "at": [q, r], "rot": rots[0], "id": "m"}))
                assert _until(ws, "m", last, saved)["type"] == "ok"
            deadline = time.monotonic() + 10
            while max(saved, default=0) < 9 and time.monotonic() < deadline:
                _state(ws, last, saved)
            assert max(saved) == 9  # the ninth move is acknowledged as saved
            answered = _state(ws, last, saved)["game"]
        server.kill()
    # started again (in a thread of this process: the same app, reading the same file)
    with launch(db, port=port, ai_delay=0) as server:
        again = get(f"{server.url}/api/games/{gid}")
        assert again["turn"] == answered["turn"] == 9
        assert again["areas"] == answered["areas"] and again["revealed"] == answered["revealed"]
