"""The daily challenge's page, ``GET /api/daily``: CPU time per request, in the server's process.

``python -m dorf.lab.daily_view`` makes a SQLite file in a temporary folder with ``--players``
players whose attempts of today and of the ``--days`` days before are stored (scores drawn at
random, the days before closed, the expert's score of each stored so that the server plays no
game meanwhile), starts the app in this process (a FastAPI ``TestClient``, today
read from a file), signs in as one of those players (a cookie) and asks for ``GET /api/daily``
``--requests`` times after ``--warmup`` more: the CPU time of the whole process
(``time.process_time``: the app, the storage's thread and the test client together) per request,
in milliseconds, and that of the server's threads alone (the app's event loop and the storage's
thread, ``pthread_getcpuclockid``); how many storage calls one request made, and the server's
CPU of the day's reads alone (the storage calls the page makes for the day, ``--requests`` times).
"""

from __future__ import annotations

import argparse
import asyncio
import random
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

from fastapi.testclient import TestClient

from dorf.server.config import ServerConfig
from dorf.server.daily.calendar import day_before
from dorf.server.hub import create_app
from dorf.server.players.accounts import COOKIE
from dorf.server.storage.base import StoredPlayer, secret_hash
from dorf.server.storage.sqlite import SqliteStorage

TODAY = "2026-05-20"
SECRET = "benchmark-session-secret-0123456789abcdef"


def days_back(back: int) -> str:
    day = TODAY
    for _ in range(back):
        day = day_before(day)
    return day


async def fill(db: Path, players: int, days: int, seed: int) -> None:
    """Players with attempts of today and of ``days`` days before (those closed)."""
    rng = random.Random(seed)
    storage = SqliteStorage(db)
    await storage.start()
    try:
        for n in range(players):
            player = StoredPlayer(f"p{n:05d}", f"Player{n:05d}")
            await storage.new_player(player, secret_hash(SECRET) if n == 0 else None)
            for back in range(days + 1):
                day = days_back(back)
                game = f"{day}-{n:05d}"
                await storage.daily_attempt(day, player.id, game, time.time())
                await storage.daily_score(game, max(0, int(rng.gauss(120, 30))), back > 0, day)
        for back in range(days + 1):  # the expert has played every day (the server plays nothing)
            day = days_back(back)
            await storage.daily_expert_played(day, 150)
            if back:
                await storage.daily_close(day)
    finally:
        await storage.close()


def server_cpu(threads: list[int]) -> float:
    """The CPU time of these threads so far, in seconds."""
    return sum(time.clock_gettime(time.pthread_getcpuclockid(ident)) for ident in threads)


async def storage_reads(storage: Any, threads: list[int], requests: int) -> float:
    """The server's CPU, in ms, of what the page reads from the storage (one ``daily_view``; the
    five calls it replaced where it has none), ``requests`` times."""
    player = "p00000"
    start = server_cpu(threads)
    for _ in range(requests):
        if hasattr(storage, "daily_view"):
            await storage.daily_view(TODAY, player, 100, 400, False)
        else:  # as the page read before (3d3af14)
            await storage.daily_day(TODAY)
            await storage.daily_result(TODAY, player)
            await storage.daily_top(TODAY, 100)
            await storage.daily_days(player, 400)
    return 1000 * (server_cpu(threads) - start) / requests


def measure(db: Path, today_file: Path, requests: int, warmup: int, path: str) -> dict[str, Any]:
    config = ServerConfig(db=db, today_file=today_file, ai_workers=0, daily_expert="greedy")
    with TestClient(create_app(config)) as client:
        client.cookies.set(COOKIE, SECRET)
        storage: Any = client.app.state.hub.storage  # type: ignore[attr-defined]
        calls = 0
        original = storage.run

        async def counted(*args: Any) -> Any:
            nonlocal calls
            calls += 1
            return await original(*args)

        for _ in range(warmup):
            assert client.get(path).status_code == 200
        storage.run = counted
        assert client.get("/api/daily").json()["attempt"] is not None, "the player is signed in"
        per_request = calls
        assert client.portal is not None
        # The server's threads: the event loop's (the app) and the storage's.
        threads = [client.portal.call(threading.get_ident), *(t.ident for t in storage._thread._threads)]
        start, server = time.process_time(), server_cpu(threads)
        for _ in range(requests):
            client.get(path)
        spent, server = time.process_time() - start, server_cpu(threads) - server
        reads = client.portal.call(storage_reads, storage, threads, requests)
    return {
        "reads_ms": reads,
        "cpu_ms": 1000 * spent / requests,
        "server_ms": 1000 * server / requests,
        "storage_calls": per_request,
    }


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="python -m dorf.lab.daily_view", description=__doc__)
    parser.add_argument("--players", type=int, default=200)
    parser.add_argument("--days", type=int, default=30)
    parser.add_argument("--requests", type=int, default=500)
    parser.add_argument("--warmup", type=int, default=50)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--path", default="/api/daily", help="the page asked for (a floor: /api/health)")
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory() as folder:
        db, today_file = Path(folder) / "daily.sqlite3", Path(folder) / "today"
        today_file.write_text(TODAY)
        asyncio.run(fill(db, args.players, args.days, args.seed))
        found = measure(db, today_file, args.requests, args.warmup, args.path)
    print(
        f"GET {args.path}: {found['cpu_ms']:.2f} ms of CPU a request in the whole process,"
        f" {found['server_ms']:.2f} ms in the server's threads (the app's event loop and the storage's)"
        f" ({args.requests} requests, {args.players} players, {args.days + 1} days);"
        f" GET /api/daily makes {found['storage_calls']} storage calls; its reads of the day"
        f" {found['reads_ms']:.2f} ms"
    )


if __name__ == "__main__":
    main()
