"""Issue 31: a ``dorf serve`` process killed mid-game (SIGKILL, as a crash) and started again
resumes both clocks where they were: what the page is told of the clock after the restart is
what it was told before, and the running clock's time left now is within a second of it."""

from __future__ import annotations

import json
import sys
import time
from pathlib import Path
from typing import Any

import pytest
import websockets.sync.client as websockets_sync

from dorf.server.protocol.delta import follow
from dorf.testing.net import free_port, get, post
from dorf.testing.servers import launch

SEATS = [{"kind": "here", "name": "Ann"}, {"kind": "here", "name": "Bob"}]


def play(url: str, gid: str, tokens: list[str], decisions: int) -> None:
    """Make ``decisions`` first-legal decisions over the websocket, each answered, then stored."""
    held: dict[str, Any] | None = None
    saved = 0
    with websockets_sync.connect(url.replace("http", "ws") + f"/ws/{gid}") as ws:

        def until(done: Any) -> dict[str, Any]:
            nonlocal held, saved
            while True:
                message = json.loads(ws.recv(timeout=10))
                assert message["type"] != "error", message
                if message["type"] in ("state", "delta"):
                    held = follow(held, message)
                if message["type"] == "saved":
                    saved = max(saved, message["version"])
                if done(message):
                    return message

        ws.send(json.dumps({"type": "hello", "tokens": tokens}))
        until(lambda m: m["type"] == "welcome")
        for number in range(1, decisions + 1):
            assert held is not None
            seat = held["game"]["waiting"][0]
            q, r, rots = held["you"]["legal"][str(seat)][0]
            ws.send(json.dumps({"type": "move", "seat": seat, "at": [q, r], "rot": rots[0], "id": number}))
            version = until(lambda m, n=number: m["type"] == "ok" and m["id"] == n)["version"]
        if saved < version:
            until(lambda m: m["type"] == "saved" and m["version"] >= version)


@pytest.mark.slow  # starts, kills and restarts a server process
@pytest.mark.skipif(sys.platform == "win32", reason="SIGKILL")
def test_a_killed_server_resumes_both_clocks_where_they_were(tmp_path: Path) -> None:
    db = tmp_path / "dorf.sqlite3"
    port = free_port()
    with launch(db, process=True, port=port, ai_delay=0) as server:
        made = post(server.url + "/api/games", {"mode": "duel", "clock": "10+5", "seats": SEATS})
        gid = made["id"]
        play(server.url, gid, [made["tokens"]["0"], made["tokens"]["1"]], 3)
        before = get(f"{server.url}/api/games/{gid}")["clock"]
        told = time.time()
        server.kill()
    assert before["running"] == [1] and before["started"]
    # started again (in a thread of this process: the same app, reading the same file)
    with launch(db, port=port, ai_delay=0) as server:
        after = get(f"{server.url}/api/games/{gid}")
        asked = time.time()
    assert after["clock"] == before  # what the clock was, exactly
    assert after["end"] is None and not after["over"]
    # Bob's time left now, counted from what the restarted server says: within a second of what
    # it was before the kill less the time since (the clock ran on: a deadline is a moment).
    left_before = before["remaining"][1] - (told * 1000 - before["at"])
    left_after = after["clock"]["remaining"][1] - (asked * 1000 - after["clock"]["at"])
    assert abs(left_after - (left_before - (asked - told) * 1000)) < 1000
    assert after["clock"]["remaining"][0] == before["remaining"][0]  # Ann's stood still


@pytest.mark.skipif(sys.platform == "win32", reason="SIGKILL")
def test_one_instance_killed_mid_game_the_other_ends_it_on_time_exactly_once(pg_url: str) -> None:
    """Two servers on one PostgreSQL database, clocks twenty times faster: the game is played on
    a ``dorf serve`` process, which is killed; the other (in a thread of this process) ends it on
    time, once."""
    import psycopg

    scale = {"clock_scale": 20.0}
    with launch(pg_url, ai_delay=0, **scale) as b:
        with launch(pg_url, process=True, ai_delay=0, **scale) as a:
            made = post(a.url + "/api/games", {"mode": "duel", "clock": "1+0", "seats": SEATS})
            gid = made["id"]
            play(a.url, gid, [made["tokens"]["0"], made["tokens"]["1"]], 3)  # Bob's clock runs
            a.kill()
        deadline = time.monotonic() + 30  # a minute of the clocks' time is 3 s
        while (state := get(f"{b.url}/api/games/{gid}"))["end"] is None:
            assert time.monotonic() < deadline, "the other server never ended the game"
            time.sleep(0.1)
        assert state["end"] == "time" and state["winner"] == 0 and state["over"]
        assert get(f"{b.url}/api/health")["ended"]["time"] == 1
    with psycopg.connect(pg_url) as conn:
        row = conn.execute(
            "SELECT version, finished, end_reason, end_winner, deadline FROM server_game WHERE id = %s",
            (gid,),
        ).fetchone()
        decisions = conn.execute("SELECT count(*) FROM server_decision WHERE game_id = %s", (gid,)).fetchone()
    assert row == (3 + 1, 1, "time", 0, None) and decisions == (3,)  # three moves, one end
