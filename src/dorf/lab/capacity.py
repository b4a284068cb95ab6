"""What the server holds up to: memory per game, start-up time, thinking under load.

``python -m dorf.lab.capacity SCENARIO`` starts ``dorf serve`` on a free
loopback port with a fresh database in a temporary folder, measures, stops it
and prints one line per figure and a JSON line:

- ``memory``: the server's resident memory (``VmRSS``) before and after
  ``--games`` games are created over HTTP (a third of each mode, one move
  each), and again after ``--settle`` seconds without use; the growth divided
  by the number of games is the memory each game costs the server.
- ``live``: the memory of games held in memory: ``--games`` games (default
  90, a third of each mode, two seats each) played to the end by the load
  benchmark's clients (``dorf.lab.loadtest``), then the growth of the
  server's resident memory divided by the number of games.
- ``startup``: a database with ``--games`` unfinished games (three games of
  ten-odd moves, one of each mode, played through the server and copied row
  by row), then the time from starting ``dorf serve`` until it answers
  ``/api/health``, its memory then, and the time of the first request for one
  of the stored games.
- ``thinking``: ``--busy`` cooperative games of six ``search:10s`` computers
  think while a person plays another game against a ``greedy`` computer; the
  figure is how long the greedy computer takes to answer each of ``--moves``
  moves (from the answer to the person's move to the state with the
  computer's), with ``--ai-delay 0``.

``--src DIR`` runs the server from another source tree (``PYTHONPATH=DIR``),
so one command measures two versions side by side: for the version of a
commit, ``git archive COMMIT src | tar -x -C /tmp/old`` and ``--src /tmp/old/src``.
Options the older server does not know (``--create-limit``) are left out.
Everything runs on 127.0.0.1; runs are bounded in games and in time.
Linux only (memory is read from ``/proc``).
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import os
import sqlite3
import statistics
import sys
import tempfile
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from dorf.server.protocol.delta import follow
from dorf.testing.net import get, post
from dorf.testing.servers import Running, launch

MODES = ("coop", "duel", "head-to-head")


def rss_kib(pid: int) -> int:
    """A process's resident memory in KiB (``VmRSS`` of ``/proc/PID/status``)."""
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1])
    raise RuntimeError(f"no VmRSS for process {pid}")


def descendants(pid: int) -> list[int]:
    """The processes started by ``pid`` and by them, read from ``/proc``."""
    parents: dict[int, int] = {}
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            with contextlib.suppress(OSError, IndexError, ValueError):
                stat = (entry / "stat").read_text()
                parents[int(entry.name)] = int(stat[stat.rindex(")") + 2 :].split()[1])
    found: list[int] = []
    wanted = {pid}
    while True:
        new = [child for child, parent in parents.items() if parent in wanted and child not in found]
        if not new:
            return found
        found += new
        wanted = set(new)


@dataclass
class Server:
    """A ``dorf serve`` measured: how long it took to answer, and its worker processes still
    alive 5 s after it stopped."""

    running: Running
    started_in: float
    outlived: int = 0

    @property
    def base(self) -> str:
        return self.running.url

    @property
    def pid(self) -> int:
        return self.running.pid


@contextlib.contextmanager
def server(db: Path, src: str | None, **settings: Any) -> Iterator[Server]:
    """``dorf serve`` (of the source tree ``src`` if given) on a free port, started and answering
    (no limit of games created or connections per address, where that version has one; computer
    seats thinking in threads, without delay, unless ``settings`` say otherwise); stopped after,
    its worker processes that outlive it by 5 s counted and killed."""
    started = time.perf_counter()
    running = launch(db, process=True, src=src, limit=600, **({"ai_delay": 0} | settings))
    measured = Server(running, time.perf_counter() - started)
    try:
        yield measured
    finally:
        children = descendants(running.pid)
        running.stop(timeout=30)
        time.sleep(5 if children else 0)
        for child in children:
            with contextlib.suppress(OSError):
                os.kill(child, 9)
                measured.outlived += 1


def _seats(mode: str) -> list[dict[str, Any]]:
    return [{"kind": "here"}] if mode == "coop" else [{"kind": "here"}, {"kind": "here"}]


def _first_move(base: str, game_id: str, mode: str, token: str) -> None:
    body: dict[str, Any] = {"token": token, "seat": 0}
    if mode == "head-to-head":
        body["pick"] = get(f"{base}/api/games/{game_id}")["pool"][0]["id"]
    else:
        body.update({"at": [0, 0], "rot": 0})
    post(f"{base}/api/games/{game_id}/move", body)


# --- memory ------------------------------------------------------------------------------------


def _warm_up(base: str) -> None:
    """A game of every mode with a move each: the code and tile sets are loaded before measuring."""
    for mode in MODES:
        made = post(base + "/api/games", {"mode": mode, "seats": _seats(mode)})
        _first_move(base, made["id"], mode, made["tokens"]["0"])
    time.sleep(1)


def memory(args: argparse.Namespace, folder: Path) -> dict[str, Any]:
    with server(folder / "memory.sqlite3", args.src) as running:
        base = running.base
        _warm_up(base)
        before = rss_kib(running.pid)
        started = time.perf_counter()
        for number in range(args.games):
            mode = MODES[number % len(MODES)]
            made = post(base + "/api/games", {"mode": mode, "seats": _seats(mode)})
            _first_move(base, made["id"], mode, made["tokens"]["0"])
        created = time.perf_counter() - started
        after = rss_kib(running.pid)
        time.sleep(args.settle)
        settled = rss_kib(running.pid)
    return {
        "scenario": "memory",
        "games": args.games,
        "create_and_move_s": round(created, 2),
        "rss_before_mib": round(before / 1024, 1),
        "rss_after_mib": round(after / 1024, 1),
        "rss_settled_mib": round(settled / 1024, 1),
        "settle_s": args.settle,
        "kib_per_game": round((after - before) / args.games, 1),
        "kib_per_game_settled": round((settled - before) / args.games, 1),
    }


def live(args: argparse.Namespace, folder: Path) -> dict[str, Any]:
    """Memory per game in memory: ``--games`` games (a third of each mode, two seats each) played
    to the end by the load benchmark's clients, all held in memory afterwards."""
    from dorf.lab.loadtest import run

    with server(folder / "live.sqlite3", args.src, games_in_memory=args.games + 10) as running:
        base = running.base
        _warm_up(base)
        before = rss_kib(running.pid)
        figures, elapsed = asyncio.run(run(base, args.games, 2 * args.games, 300.0, 1))
        time.sleep(1)
        after = rss_kib(running.pid)
        held = get(base + "/api/health")["games"]
    return {
        "scenario": "live",
        "games": args.games,
        "games_finished": figures.finished,
        "moves": len(figures.moves),
        "games_in_memory": held,
        "play_s": round(elapsed, 1),
        "rss_before_mib": round(before / 1024, 1),
        "rss_after_mib": round(after / 1024, 1),
        "kib_per_live_game": round((after - before) / args.games, 1),
    }


# --- start-up --------------------------------------------------------------------------------------


def _play_template(base: str, mode: str, moves: int) -> str:
    """A game of ``mode`` with ``moves`` moves made over the websocket; returns its id."""
    from websockets.sync.client import connect

    made = post(base + "/api/games", {"mode": mode, "seed": 1000 + MODES.index(mode), "seats": _seats(mode)})
    game_id: str = made["id"]
    with connect(f"{base.replace('http', 'ws', 1)}/ws/{game_id}", max_size=1 << 22) as ws:
        ws.send(json.dumps({"type": "hello", "tokens": list(made["tokens"].values()), "id": "hello"}))
        state: dict[str, Any] = {}
        made_moves = 0
        while made_moves < moves:
            message = json.loads(ws.recv(timeout=30))
            state = follow(state or None, message) or {}
            if message.get("id") not in ("hello", made_moves) or not state:
                continue
            game = state["game"]
            seat = game["waiting"][0]
            move: dict[str, Any] = {"type": "move", "seat": seat, "id": made_moves + 1}
            if game["phase"] == "draft":
                move["pick"] = game["pool"][0]["id"]
            else:
                q, r, rots = state["you"]["legal"][str(seat)][0]
                move.update({"at": [q, r], "rot": rots[0]})
            ws.send(json.dumps(move))
            made_moves += 1
        while json.loads(ws.recv(timeout=30)).get("id") != moves:
            pass
    return game_id


def _copy_games(db: Path, templates: list[str], count: int) -> None:
    """Copy the template games' rows until the database holds ``count`` unfinished games."""
    conn = sqlite3.connect(db)
    try:
        conn.execute("BEGIN")
        for number in range(count - len(templates)):
            source = templates[number % len(templates)]
            new_id = f"copy{number:06d}"
            for table, key in (
                ("server_game", "id"),
                ("server_seat", "game_id"),
                ("server_decision", "game_id"),
            ):
                cursor = conn.execute(f"SELECT * FROM {table} WHERE {key} = ?", (source,))
                columns = [c[0] for c in cursor.description]
                rows = [
                    [new_id if c == key else v for c, v in zip(columns, row, strict=True)] for row in cursor
                ]
                marks = ", ".join("?" * len(columns))
                conn.executemany(f"INSERT INTO {table} ({', '.join(columns)}) VALUES ({marks})", rows)
        conn.execute("COMMIT")
        unfinished = conn.execute("SELECT count(*) FROM server_game WHERE finished = 0").fetchone()[0]
    finally:
        conn.close()
    if unfinished != count:
        raise SystemExit(f"capacity: the database holds {unfinished} unfinished games, not {count}")


def startup(args: argparse.Namespace, folder: Path) -> dict[str, Any]:
    db = folder / "startup.sqlite3"
    with server(db, args.src) as running:
        templates = [_play_template(running.base, mode, args.moves) for mode in MODES]
    _copy_games(db, templates, args.games)
    with server(db, args.src) as running:
        seconds = running.started_in
        rss = rss_kib(running.pid)
        started = time.perf_counter()
        state = get(f"{running.base}/api/games/copy000000")
        first = time.perf_counter() - started
        assert state["turn"] == args.moves, state["turn"]
    return {
        "scenario": "startup",
        "unfinished_games": args.games,
        "moves_each": args.moves,
        "start_s": round(seconds, 2),
        "rss_after_start_mib": round(rss / 1024, 1),
        "first_request_ms": round(first * 1000, 1),
    }


# --- thinking ---------------------------------------------------------------------------------------


async def _watch(ws_url: str, stop: asyncio.Event) -> None:
    """A spectator of a busy game, so that the server keeps it going."""
    from websockets.asyncio.client import connect

    async with connect(ws_url, max_size=1 << 22) as ws:
        while not stop.is_set():
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(ws.recv(), timeout=0.5)


async def _probe(base: str, moves: int, limit: float) -> list[float]:
    """Play against a greedy computer; how long each of its answers took."""
    from websockets.asyncio.client import connect

    seats = [{"kind": "here"}, {"kind": "computer", "player": "greedy"}]
    made = await asyncio.to_thread(post, base + "/api/games", {"mode": "coop", "seed": 5, "seats": seats})
    latencies: list[float] = []
    async with connect(f"{base.replace('http', 'ws', 1)}/ws/{made['id']}", max_size=1 << 22) as ws:
        await ws.send(json.dumps({"type": "hello", "tokens": [made["tokens"]["0"]], "id": "hello"}))
        sent_at: float | None = None
        welcome = False
        state: dict[str, Any] = {}
        awaiting = False
        wanted = 0
        deadline = time.monotonic() + limit
        while len(latencies) < moves and time.monotonic() < deadline:
            left = max(0.1, deadline - time.monotonic())
            message = json.loads(await asyncio.wait_for(ws.recv(), timeout=left))
            welcome = welcome or message["type"] == "welcome"
            if message["type"] == "ok" and awaiting and sent_at is None:
                sent_at = time.perf_counter()  # the person's move is answered: the computer's turn
            state = follow(state or None, message) or {}
            if message["type"] not in ("state", "delta", "welcome") or not welcome or not state:
                continue
            game = state["game"]
            if awaiting and sent_at is not None and game["turn"] >= wanted:
                latencies.append(time.perf_counter() - sent_at)
                awaiting, sent_at = False, None
            if not awaiting and game["waiting"] == [0] and not game["over"]:
                q, r, rots = state["you"]["legal"]["0"][0]
                wanted = game["turn"] + 2
                await ws.send(
                    json.dumps({"type": "move", "seat": 0, "at": [q, r], "rot": rots[0], "id": wanted})
                )
                awaiting = True
    return latencies


async def _thinking(base: str, busy: int, moves: int, limit: float) -> list[float]:
    seats = [{"kind": "computer", "player": "search:10s"}] * 6
    stop = asyncio.Event()
    watchers = []
    for number in range(busy):
        made = await asyncio.to_thread(
            post, base + "/api/games", {"mode": "coop", "seed": 100 + number, "seats": seats}
        )
        watchers.append(asyncio.create_task(_watch(f"{base.replace('http', 'ws', 1)}/ws/{made['id']}", stop)))
    await asyncio.sleep(1)  # every busy game is thinking
    try:
        return await _probe(base, moves, limit)
    finally:
        stop.set()
        await asyncio.gather(*watchers, return_exceptions=True)


def thinking(args: argparse.Namespace, folder: Path) -> dict[str, Any]:
    with server(folder / "thinking.sqlite3", args.src, ai_workers=2) as running:
        latencies = asyncio.run(_thinking(running.base, args.busy, args.moves, args.limit))
        pool = get(running.base + "/api/health").get("thinking")
    return {
        "pool": pool,
        "workers_outlived_server": running.outlived,
        "scenario": "thinking",
        "busy_games": args.busy,
        "computers_each": 6,
        "answers": len(latencies),
        "greedy_answer_s": [round(x, 2) for x in latencies],
        "median_s": round(statistics.median(latencies), 2) if latencies else None,
        "max_s": round(max(latencies), 2) if latencies else None,
    }


SCENARIOS = {"memory": memory, "live": live, "startup": startup, "thinking": thinking}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m dorf.lab.capacity", description=__doc__.split("\n\n")[0])
    parser.add_argument("scenario", choices=sorted(SCENARIOS))
    parser.add_argument("--src", default=None, metavar="DIR", help="run the server from this source tree")
    parser.add_argument(
        "--games", type=int, default=None, help="memory: 1000 games; live: 90; startup: 3000 games"
    )
    parser.add_argument("--settle", type=float, default=70.0, help="memory: seconds without use (default 70)")
    parser.add_argument("--moves", type=int, default=None, help="startup: moves per game (12); thinking: 3")
    parser.add_argument("--busy", type=int, default=10, help="thinking: busy games (default 10)")
    parser.add_argument("--limit", type=float, default=400.0, help="thinking: seconds at most (default 400)")
    args = parser.parse_args(argv)
    if args.games is None:
        args.games = {"startup": 3000, "live": 90}.get(args.scenario, 1000)
    if args.moves is None:
        args.moves = 12 if args.scenario == "startup" else 3
    if not 3 <= args.games <= 10_000 or not 1 <= args.moves <= 40 or not 0 <= args.busy <= 20:
        parser.error("3 to 10000 games, 1 to 40 moves, at most 20 busy games")
    with tempfile.TemporaryDirectory(prefix="dorf-capacity-") as folder:
        result = SCENARIOS[args.scenario](args, Path(folder))
    result["server_src"] = args.src or "this checkout"
    for key, value in result.items():
        print(f"  {key:<22} {value}")
    print(json.dumps(result))
    return 0


if __name__ == "__main__":
    sys.exit(main())
