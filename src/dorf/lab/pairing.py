"""The pairing benchmark: many players seeking at once on a real server, over real websockets.

``python -m dorf.lab.pairing`` starts ``dorf serve`` as a process of its own (a temporary
SQLite file, or ``--db postgresql://...`` / ``--db temp`` for a throwaway PostgreSQL cluster,
with ``--instances 2`` for two servers, each player's lobby socket on one of them in turn),
makes ``--players`` players (``POST /api/me``, one cookie each), opens every player's
``/ws/lobby``, and once all are open sends every seek at the same moment.  A player's
**pairing latency** is from sending its seek to receiving ``paired`` (the new game's id and the
seat's token: the moment the page can go to the game).  It prints one JSON line: the players,
pairs made, latency p50, p90, p99 and max in milliseconds, and the wall time until the last
pairing.  The players are all new (1500, RD 500) and seek one pool (``--mode``, ``--clock``),
so every seek is paired; clients and servers share the machine.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import statistics
import sys
import tempfile
import time
import urllib.request
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

from dorf.testing.servers import Running, launch, stop_all


def cookie_of(base: str) -> str:
    """A new player's cookie (``POST /api/me`` makes the player)."""
    with urllib.request.urlopen(urllib.request.Request(f"{base}/api/me", data=b"{}"), timeout=60) as response:
        found = response.headers.get_all("Set-Cookie") or []
    return "; ".join(c.split(";", 1)[0] for c in found)


async def seeker(
    url: str, cookie: str, seek: dict[str, Any], ready: asyncio.Event, opened: list[int], go: asyncio.Event
) -> float:
    """One player: open the lobby, wait for everyone, seek, and answer the seconds until paired."""
    from websockets.asyncio.client import connect

    async with connect(url, additional_headers={"Cookie": cookie}, max_size=1 << 22, open_timeout=60) as ws:
        first = json.loads(await ws.recv())
        assert first["type"] == "lobby", first
        opened[0] -= 1
        if opened[0] == 0:
            ready.set()
        await go.wait()
        started = time.perf_counter()
        await ws.send(json.dumps({"type": "seek", "id": 1, **seek}))
        while True:
            message = json.loads(await ws.recv())
            if message["type"] == "paired":
                return time.perf_counter() - started
            if message["type"] == "error":
                raise RuntimeError(f"the seek was refused: {message}")


async def run(bases: list[str], players: int, seek: dict[str, Any]) -> dict[str, Any]:
    loop = asyncio.get_running_loop()
    with ThreadPoolExecutor(8) as threads:
        cookies = await asyncio.gather(
            *(loop.run_in_executor(threads, cookie_of, bases[i % len(bases)]) for i in range(players))
        )
    ready, go = asyncio.Event(), asyncio.Event()
    opened = [players]
    urls = [b.replace("http://", "ws://") + "/ws/lobby" for b in bases]
    tasks = [
        asyncio.create_task(seeker(urls[i % len(urls)], cookies[i], seek, ready, opened, go))
        for i in range(players)
    ]
    await asyncio.wait_for(ready.wait(), 120)
    started = time.perf_counter()
    go.set()
    waits = sorted(await asyncio.gather(*tasks))
    wall = time.perf_counter() - started

    def ms(q: float) -> float:
        return round(1000 * waits[min(len(waits) - 1, int(q * len(waits)))], 1)

    return {
        "players": players,
        "instances": len(bases),
        "paired": len(waits),
        "p50_ms": ms(0.50),
        "p90_ms": ms(0.90),
        "p99_ms": ms(0.99),
        "max_ms": round(1000 * waits[-1], 1),
        "mean_ms": round(1000 * statistics.fmean(waits), 1),
        "wall_s": round(wall, 3),
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m dorf.lab.pairing", description=__doc__.split("\n\n")[0])
    parser.add_argument("--players", type=int, default=1000)
    parser.add_argument(
        "--db", default=None, help="postgresql://... or temp (default: a temporary SQLite file)"
    )
    parser.add_argument(
        "--instances", type=int, default=1, help="servers on the database (PostgreSQL for 2+)"
    )
    parser.add_argument("--mode", default="duel")
    parser.add_argument("--clock", default="3+2")
    parser.add_argument("--rated", action="store_true")
    args = parser.parse_args(argv)
    if args.players < 2 or args.players % 2:
        parser.error("--players is an even number, 2 or more")
    if args.db == "temp":
        from dorf.testing.pgcluster import Cluster

        with Cluster() as cluster:
            return measure(cluster.fresh_database(), args)
    if args.instances > 1 and not str(args.db or "").startswith("postgres"):
        parser.error("several instances share a PostgreSQL database: --db postgresql://... or --db temp")
    if args.db is None:
        with tempfile.TemporaryDirectory() as folder:
            return measure(str(Path(folder) / "pairing.sqlite3"), args)
    return measure(args.db, args)


def measure(db: str, args: argparse.Namespace) -> int:
    servers: list[Running] = []
    try:
        for _ in range(args.instances):
            servers.append(launch(db, process=True, max_connections=args.players + 100, player_limit=0))
        seek = {"mode": args.mode, "clock": args.clock, "rated": args.rated}
        result = asyncio.run(run([s.url for s in servers], args.players, seek))
    finally:
        stop_all(servers)
    result["db"] = "postgresql" if db.startswith("postgres") else "sqlite"
    print(json.dumps(result), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
