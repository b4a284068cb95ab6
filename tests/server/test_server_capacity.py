"""The server under abuse: memory, creation limits, connection caps, the think pool, a locked or
damaged database, Origin checks and the page policy (issue 13, items 6-10)."""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import os
import sqlite3
import time
from pathlib import Path
from typing import Any, TypeVar

import pytest
from starlette.websockets import WebSocketDisconnect
from test_server_helpers import Socket, create, legal_move, play_out, run_async, served, socket, until

from dorf.formats.record import record_of
from dorf.games.coop import CoopGame

T = TypeVar("T")


def health(client: Any) -> dict[str, Any]:
    result: dict[str, Any] = client.get("/api/health").json()
    return result


# --- 6. memory, creation limits, connection caps ------------------------------------------------


@pytest.mark.slow
def test_creating_games_is_limited_per_address(db: Path) -> None:
    with served(db, create_limit=3) as client:
        for _ in range(3):
            create(client)
        refused = client.post("/api/games", json={"mode": "coop"})
        assert refused.status_code == 429 and refused.json()["error"]["code"] == "rate-limited"
        assert 1 <= int(refused.headers["retry-after"]) <= 60
    with served(db, create_limit=0) as client:  # 0: no limit
        for _ in range(40):
            create(client)


@pytest.mark.slow
def test_games_are_read_when_asked_for_and_leave_memory_when_idle(db: Path) -> None:
    with served(db) as client:
        ids = [create(client, mode=mode)["id"] for mode in ("coop", "duel", "head-to-head")]
        with socket(client, ids[0], []) as sock:
            state = sock.sync()
        before = {gid: client.get(f"/api/games/{gid}").json() for gid in ids}
        assert state["game"] == before[ids[0]]
    with served(db, idle_seconds=0.2) as client:
        assert health(client)["games"] == 0  # nothing is read at start
        assert client.get(f"/api/games/{ids[1]}").json() == before[ids[1]]
        assert health(client)["games"] == 1
        until(lambda: health(client)["games"] == 0)  # idle: it left memory
        assert client.get(f"/api/games/{ids[1]}").json() == before[ids[1]]  # and comes back as it was
        with socket(client, ids[2], []) as sock:  # a game with a client stays
            time.sleep(0.6)
            assert health(client)["games"] == 1
            assert sock.sync()["game"] == before[ids[2]]
    with served(db, games_in_memory=2) as client:
        for gid in ids:
            client.get(f"/api/games/{gid}")
        more = [create(client)["id"] for _ in range(4)]
        assert health(client)["games"] == 2  # the least recently used left
        assert client.get(f"/api/games/{more[0]}").json()["turn"] == 0


@pytest.mark.slow
def test_a_game_of_computers_nobody_watches_stops_and_goes_on_when_opened(db: Path) -> None:
    seats = [{"kind": "computer", "player": "random"}] * 2
    with served(db, idle_seconds=0.3, ai_delay=0.05) as client:
        gid = create(client, mode="duel", seats=seats)["id"]
        until(lambda: health(client)["games"] == 0)
        with sqlite3.connect(db) as conn:
            stopped = conn.execute(
                "SELECT count(*) FROM server_decision WHERE game_id = ?", (gid,)
            ).fetchone()
        assert health(client)["thinking"]["waiting"] == 0
        time.sleep(0.5)
        with sqlite3.connect(db) as conn:
            again = conn.execute("SELECT count(*) FROM server_decision WHERE game_id = ?", (gid,)).fetchone()
        assert again == stopped  # nobody watching: no more moves
        with socket(client, gid) as sock:
            sock.wait(lambda s: s["game"]["turn"] > stopped[0], limit=500)


def test_connections_are_capped_per_game_and_in_total(db: Path) -> None:
    # Spectators only: seat holders always get in (tests/test_server_fairness.py).
    with served(db, max_spectators=2, max_connections=3) as client:
        one, two = create(client)["id"], create(client)["id"]
        with socket(client, one), socket(client, one):
            with client.websocket_connect(f"/ws/{one}") as ws:
                assert ws.receive_json()["type"] == "state"  # what anyone may see; then its hello
                ws.send_json({"type": "hello", "tokens": []})
                message = ws.receive_json()
                assert message["type"] == "error" and message["code"] == "busy"
                with pytest.raises(WebSocketDisconnect) as closed:
                    ws.receive_json()
                assert closed.value.code == 1013
            with socket(client, two), client.websocket_connect(f"/ws/{two}") as ws:
                assert ws.receive_json()["type"] == "state"
                ws.send_json({"type": "hello", "tokens": []})
                assert ws.receive_json()["code"] == "busy"  # three in all
        assert health(client)["connections"] == 0


# --- 7. computer players: a bounded, fair pool with a time cap --------------------------------------


def coop_record(moves: int, seed: int = 3) -> dict[str, Any]:
    state = CoopGame(seed=seed, players=2).new_state()
    for _ in range(moves):
        state.play(state.legal_placements()[0])
    return record_of(state)


@pytest.mark.slow
def test_the_pool_serves_a_quick_game_before_a_busy_one() -> None:
    from dorf.server.computer.pool import ThinkError, ThinkPool

    async def run() -> list[str]:
        pool = ThinkPool(0, max_seconds=0.4)  # two threads
        await pool.start()
        done: list[str] = []
        record = coop_record(10)

        async def ask(game: str, spec: str) -> None:
            with contextlib.suppress(ThinkError):  # a busy machine may make a search run over
                await pool.think(game, record, 0, spec, 1)
            done.append(game)

        busy = [asyncio.create_task(ask("busy", "search:10s")) for _ in range(5)]
        await asyncio.sleep(0.05)  # both threads are taken by the busy game
        quick = asyncio.create_task(ask("quick", "greedy"))
        await asyncio.gather(quick, *busy)
        await pool.close()
        return done

    done = run_async(run)
    assert done.index("quick") <= 2  # after the two busy jobs running when it came, not all five


@pytest.mark.slow  # worker processes
def test_a_worker_running_over_the_time_cap_is_stopped_and_replaced() -> None:
    from dorf.server.computer.pool import Overrun, ThinkPool

    async def run() -> None:
        pool = ThinkPool(1, max_seconds=0.01)  # no replay and search fits in 10 ms
        await pool.start()
        (first,) = pool.pids()
        with pytest.raises(Overrun):
            await pool.think("g", coop_record(30), 0, "search:10s", 1)
        assert pool.counts["overruns"] == 1
        await asyncio.sleep(0)
        pool.max_seconds = 30.0
        answer = await pool.think("g", coop_record(3), 0, "greedy", 1)  # a new worker answers
        assert set(answer) == {"at", "rot"}
        assert pool.pids() != [first]
        until(lambda: not _alive(first), limit=10)
        await pool.close()

    run_async(run)


@pytest.mark.slow  # worker processes
def test_cancelling_a_game_stops_its_running_and_waiting_jobs() -> None:
    from dorf.server.computer.pool import ThinkPool

    async def run() -> None:
        pool = ThinkPool(1, max_seconds=20.0)  # search:10s thinks 10 s
        await pool.start()
        (first,) = pool.pids()
        jobs = [asyncio.create_task(pool.think("g", coop_record(5), 0, "search:10s", i)) for i in range(3)]
        await asyncio.sleep(0.3)
        assert pool.running() == 1 and pool.waiting("g") == 2
        pool.cancel("g")
        for job in jobs:
            with pytest.raises(asyncio.CancelledError):
                await job
        assert pool.counts["cancelled"] == 3 and pool.waiting() == 0
        until(lambda: not _alive(first), limit=10)  # the running search was stopped
        await pool.close()
        assert not pool.pids()

    run_async(run)


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    status = Path(f"/proc/{pid}/status")
    return not (status.exists() and "zombie" in status.read_text())


@pytest.mark.slow  # worker processes
def test_a_computer_plays_through_a_time_capped_pool_of_processes(db: Path) -> None:
    seats = [{"kind": "here"}, {"kind": "computer", "player": "search:10s"}]
    with served(db, ai_workers=1, ai_max_seconds=0.4) as client:
        made = create(client, seats=seats)
        with socket(client, made["id"], [made["tokens"]["0"]]) as sock:
            state = sock.sync()
            assert sock.request(legal_move(state, 0))["type"] == "ok"
            sock.wait(lambda s: s["game"]["turn"] == 2)
        counts = health(client)["thinking"]
        assert counts["jobs"] == 1 and counts["failures"] == 0


# --- 8. the database off the event loop -------------------------------------------------------------------


def test_moves_of_games_in_memory_are_answered_while_another_program_locks_the_database(db: Path) -> None:
    with served(db) as client:
        games = [create(client), create(client, mode="duel")]
        with contextlib.ExitStack() as stack:
            socks = [stack.enter_context(socket(client, g["id"], list(g["tokens"].values()))) for g in games]
            lock = sqlite3.connect(db, isolation_level=None)
            lock.execute("BEGIN IMMEDIATE")  # another program holds the write lock for a while
            locked_at = time.monotonic()
            try:
                for sock in socks:
                    state = sock.sync()
                    reply = sock.request(legal_move(state, state["game"]["waiting"][0]))
                    assert reply["type"] == "ok", reply  # answered at once, not after the lock
                answered = time.monotonic() - locked_at
                for game in games:  # and everyone sees the moves
                    assert client.get(f"/api/games/{game['id']}").json()["turn"] == 1
                assert not any(m["type"] == "saved" and m["version"] >= 1 for s in socks for m in s.seen)
            finally:
                lock.execute("COMMIT")
                lock.close()
            assert answered < 2.0, answered  # the database's busy timeout is 5 s
            for sock in socks:
                sock.wait_saved(1)  # stored once the file is free
    with served(db) as client:
        for game in games:
            assert client.get(f"/api/games/{game['id']}").json()["turn"] == 1


@pytest.mark.slow
def test_a_computer_move_that_could_not_be_stored_is_tried_again(
    db: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    with served(db) as client:
        made = create(client, seats=[{"kind": "here"}, {"kind": "computer", "player": "greedy"}])
        hub = client.app.state.hub  # type: ignore[attr-defined]
        real = hub.storage.tables.write_changes
        failures: list[int] = []

        def flaky(rows: list[Any]) -> None:
            # The computer's move fails twice.
            if any(change.number == 2 for change in rows) and len(failures) < 2:
                failures.append(2)
                raise sqlite3.OperationalError("disk I/O error")
            real(rows)

        monkeypatch.setattr(hub.storage.tables, "write_changes", flaky)
        with socket(client, made["id"], [made["tokens"]["0"]]) as sock:
            assert sock.request(legal_move(sock.sync(), 0))["type"] == "ok"
            until(lambda: sock.sync()["game"]["turn"] == 2)
            until(lambda: hub.games[made["id"]].saved_version == 2)
        assert failures == [2, 2]
    with served(db) as client:
        assert client.get(f"/api/games/{made['id']}").json()["turn"] == 2


# --- 9. damaged rows -----------------------------------------------------------------------------------


def _damage_page(db: Path, table: str) -> None:
    """Overwrite the first leaf page of ``table`` with garbage."""
    conn = sqlite3.connect(db)
    conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    size = conn.execute("PRAGMA page_size").fetchone()[0]
    (page,) = conn.execute(  # the leaf of the lowest keys: the first rows written
        "SELECT pageno FROM dbstat WHERE name = ? AND pagetype = 'leaf' ORDER BY path LIMIT 1", (table,)
    ).fetchone()
    conn.close()
    with open(db, "r+b") as handle:
        handle.seek((page - 1) * size)
        handle.write(b"\xa5" * size)


@pytest.mark.slow
def test_damaged_rows_mark_their_games_broken_and_the_server_starts(
    db: Path, caplog: pytest.LogCaptureFixture
) -> None:
    with served(db) as client:
        damaged = create(client)  # its rows come first: they fill the first page
        with socket(client, damaged["id"], list(damaged["tokens"].values())) as sock:
            play_out(sock, [0], __import__("random").Random(1))
        not_json, good = create(client), create(client)
        for made in (not_json, good):
            with socket(client, made["id"], list(made["tokens"].values())) as sock:
                for _ in range(2):
                    assert sock.request(legal_move(sock.sync(), 0))["type"] == "ok"
    with sqlite3.connect(db) as conn:
        conn.execute(
            "UPDATE server_decision SET decision = '{not json' WHERE game_id = ? AND number = 2",
            (not_json["id"],),
        )
        rows = conn.execute(
            "SELECT number, decision FROM server_decision WHERE game_id = ?", (damaged["id"],)
        )
        for number, text in rows.fetchall():  # long rows (still replaying): pages of their own
            long = json.dumps({**json.loads(text), "padding": "x" * 3000})
            conn.execute(
                "UPDATE server_decision SET decision = ? WHERE game_id = ? AND number = ?",
                (long, damaged["id"], number),
            )
        conn.execute("PRAGMA foreign_keys = OFF")
        conn.execute(
            "INSERT INTO server_decision (game_id, number, seat, decision, made)"
            " VALUES ('gone', 1, 0, '{}', 'x')"
        )
    _damage_page(db, "server_decision")
    caplog.set_level(logging.ERROR, logger="dorf.server")
    with served(db) as client:
        assert health(client)["ok"]
        for _ in range(2):
            game = client.get(f"/api/games/{not_json['id']}").json()
            assert game["broken"] == "decision 2 is not JSON" and game["waiting"] == []
            assert "damaged" in client.get(f"/api/games/{damaged['id']}").json()["broken"]
        assert client.get(f"/api/games/{good['id']}").json()["broken"] is None
        assert client.get(f"/api/games/{good['id']}").json()["turn"] == 2
        assert client.get("/api/games/gone").status_code == 404
        with socket(client, not_json["id"], list(not_json["tokens"].values())) as sock:
            assert sock.sync()["game"]["broken"]
            refused = sock.request({"type": "move", "seat": 0, "at": [0, 0], "rot": 0})
            assert refused["code"] == "broken"
        token = not_json["tokens"]["0"]
        move = client.post(
            f"/api/games/{not_json['id']}/move", json={"token": token, "seat": 0, "at": [1, 0]}
        )
        assert move.status_code == 410 and move.json()["error"]["code"] == "broken"
    lines = [r.getMessage() for r in caplog.records if "is broken" in r.getMessage()]
    assert len(lines) == 2 and all("\n" not in line for line in lines)  # one line per broken game


# --- 10. hardening ---------------------------------------------------------------------------------------


def test_pages_carry_a_content_security_policy(db: Path) -> None:
    with served(db, page_policy=True) as client:
        for path in ("/", "/game/abc", "/campaigns"):
            policy = client.get(path).headers["content-security-policy"]
            parts = dict(part.strip().split(" ", 1) for part in policy.split(";"))
            assert parts["script-src"] == "'self'" and "unsafe" not in parts["default-src"]
            assert "'unsafe-inline'" in parts["style-src"]
            assert "data:" in parts["img-src"] and "blob:" in parts["img-src"]
            assert "ws://testserver" in parts["connect-src"]


def test_requests_from_a_page_of_another_site_are_refused(db: Path) -> None:
    with served(db, origins=("http://127.0.0.1:8765",)) as client:
        evil = {"origin": "https://evil.example"}
        refused = client.post("/api/games", json={"mode": "coop"}, headers=evil)
        assert refused.status_code == 403 and refused.json()["error"]["code"] == "bad-origin"
        made = create(client)
        for path, body in (("move", {"seat": 0, "at": [0, 0], "rot": 0}), ("join", {"invite": "x"})):
            response = client.post(f"/api/games/{made['id']}/{path}", json=body, headers=evil)
            assert response.status_code == 403
        assert client.post("/api/campaigns", json={"name": "X"}, headers=evil).status_code == 403
        with (
            pytest.raises(WebSocketDisconnect),
            client.websocket_connect(f"/ws/{made['id']}", headers=evil) as ws,
        ):
            ws.receive_json()
        same = {"origin": "http://testserver"}
        assert client.post("/api/games", json={"mode": "coop"}, headers=same).status_code == 201
        started = {"origin": "http://127.0.0.1:8765"}
        assert client.post("/api/games", json={"mode": "coop"}, headers=started).status_code == 201
        with client.websocket_connect(f"/ws/{made['id']}", headers=same) as ws:
            assert Socket(ws).receive()["type"] == "state"


@pytest.mark.slow
def test_a_long_lock_gives_clear_errors_and_loses_nothing_acknowledged(db: Path) -> None:
    with served(db, storage_grace=0.5) as client:
        made = create(client)
        with socket(client, made["id"], list(made["tokens"].values())) as sock:
            lock = sqlite3.connect(db, isolation_level=None)
            lock.execute("BEGIN IMMEDIATE")  # held far longer than the grace (a minute, scaled down)
            try:
                assert sock.request(legal_move(sock.sync(), 0))["type"] == "ok"  # made, not yet saved
                time.sleep(0.8)
                before = sock.sync()["game"]
                reply = sock.request(legal_move(sock.sync(), 0))
                assert reply["type"] == "error" and reply["code"] == "storage", reply
                assert reply["message"].startswith("the move was not made: the database has taken no write")
                assert sock.sync()["game"]["turn"] == before["turn"] == 1  # nothing changed
            finally:
                lock.execute("COMMIT")
                lock.close()
            sock.wait_saved(1)  # what was made is written once the file is free
            assert sock.request(legal_move(sock.sync(), 0))["type"] == "ok"
            sock.wait_saved(2)
    with served(db) as client:
        assert client.get(f"/api/games/{made['id']}").json()["turn"] == 2
