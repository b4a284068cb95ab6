"""The load benchmark: many games and clients at once on loopback.

``python -m dorf.server.loadtest`` starts ``dorf serve`` on a free port with a
fresh database (or uses ``--url``), creates ``--games`` games of all three
modes with two seats each, and connects one websocket client per seat
(``--clients``, two per game by default).  Every client plays random legal
moves as fast as the server lets it, asking for a placement preview before
most placements, until its game ends or ``--seconds`` pass (``--think S``:
wait about S seconds before each move, like a person; by default clients
move flat out, so the figures measure a saturated server).  It prints the
latency percentiles of moves (sent until answered) and previews, the
messages and errors counted, and one JSON line with the same figures.

Everything stays on this machine: the server listens on 127.0.0.1 only, and
the run is bounded in moves and in time.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import os
import random
import socket
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.request
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

MODES = ("duel", "head-to-head", "coop")


@dataclass
class Figures:
    """What the clients measured."""

    moves: list[float] = field(default_factory=list)
    previews: list[float] = field(default_factory=list)
    connects: list[float] = field(default_factory=list)
    messages: int = 0
    #: Websocket payload bytes received by all clients.
    bytes: int = 0
    states: int = 0
    deltas: int = 0
    resyncs: int = 0
    errors: list[str] = field(default_factory=list)
    finished: int = 0


def percentile(values: list[float], p: float) -> float:
    """The ``p``-th percentile (0 to 100) by nearest rank; 0 for no values.

    >>> percentile([1.0, 2.0, 3.0, 4.0], 50), percentile([5.0], 99)
    (2.0, 5.0)
    """
    if not values:
        return 0.0
    ordered = sorted(values)
    rank = max(1, min(len(ordered), round(p / 100 * len(ordered) + 0.5)))
    return ordered[rank - 1]


def _post(url: str, body: dict[str, Any]) -> dict[str, Any]:
    request = urllib.request.Request(
        url, data=json.dumps(body).encode(), headers={"Content-Type": "application/json"}, method="POST"
    )
    with urllib.request.urlopen(request, timeout=30) as response:
        data: dict[str, Any] = json.loads(response.read())
        return data


async def _client(
    ws_url: str, token: str, seat: int, rng: random.Random, deadline: float, figures: Figures, think: float
) -> None:
    from websockets.asyncio.client import connect

    from dorf.server.delta import patch

    started = time.perf_counter()
    async with connect(ws_url, max_size=1 << 22, open_timeout=30) as ws:
        figures.connects.append(time.perf_counter() - started)
        pending: dict[int, tuple[str, float]] = {}
        next_id = 1
        doc: dict[str, Any] | None = None  # {"you", "game"}: whole states replace it, deltas change it
        await ws.send(json.dumps({"type": "hello", "tokens": [token], "id": 0}))
        waiting_reply = True  # for the welcome
        while time.monotonic() < deadline:
            try:
                raw = await asyncio.wait_for(ws.recv(), timeout=max(0.1, deadline - time.monotonic()))
            except TimeoutError:
                break
            figures.messages += 1
            figures.bytes += len(raw) if isinstance(raw, bytes) else len(raw.encode())
            message = json.loads(raw)
            kind = message["type"]
            if kind == "state":
                doc = {"you": message["you"], "game": message["game"]}
                figures.states += 1
            elif kind == "delta":
                figures.deltas += 1
                if doc is not None and message["from"] == doc["game"]["version"]:
                    doc = patch(doc, message["ops"])
                else:  # lost track: ask for the whole state
                    figures.resyncs += 1
                    doc = None
                    await ws.send(json.dumps({"type": "sync"}))
            elif kind == "welcome":
                waiting_reply = bool(pending)
            elif kind in ("ok", "preview", "error") and message.get("id") in pending:
                what, sent = pending.pop(message["id"])
                elapsed = time.perf_counter() - sent
                if kind == "error":
                    figures.errors.append(f"{what}: {message['code']}: {message['message']}")
                elif what == "move":
                    figures.moves.append(elapsed)
                else:
                    figures.previews.append(elapsed)
                waiting_reply = bool(pending)
            elif kind == "error":
                figures.errors.append(f"{message['code']}: {message['message']}")
            if doc is None or waiting_reply:
                continue
            game = doc["game"]
            if game["over"]:
                if seat == 0:
                    figures.finished += 1
                return
            if seat not in game["waiting"]:
                continue
            if think:
                await asyncio.sleep(rng.uniform(0, 2 * think))  # a person looking at the board
            if game["phase"] == "draft":
                pool = game["pool"]
                move: dict[str, Any] = {
                    "type": "move",
                    "seat": seat,
                    "pick": pool[rng.randrange(len(pool))]["id"],
                }
            else:
                cells = doc["you"]["legal"].get(str(seat))
                if not cells:
                    continue
                q, r, rots = cells[rng.randrange(len(cells))]
                move = {"type": "move", "seat": seat, "at": [q, r], "rot": rots[rng.randrange(len(rots))]}
                if rng.random() < 0.7:
                    pending[next_id] = ("preview", time.perf_counter())
                    await ws.send(json.dumps({**move, "type": "preview", "id": next_id}))
                    next_id += 1
            pending[next_id] = ("move", time.perf_counter())
            await ws.send(json.dumps({**move, "id": next_id}))
            next_id += 1
            waiting_reply = True  # the new state reaches every client before the answer


async def run(
    base: str, games: int, clients: int, seconds: float, seed: int, think: float = 0.0
) -> tuple[Figures, float]:
    rng = random.Random(seed)
    seats: list[tuple[str, str, int]] = []
    for number in range(games):
        mode = MODES[number % len(MODES)]
        body = {"mode": mode, "seed": rng.randrange(1, 10**9), "seats": [{"kind": "here"}, {"kind": "here"}]}
        made = await asyncio.to_thread(_post, base + "/api/games", body)
        for seat_text, token in made["tokens"].items():
            seats.append((made["id"], token, int(seat_text)))
    seats = seats[:clients]
    figures = Figures()
    ws_base = base.replace("http://", "ws://", 1)
    deadline = time.monotonic() + seconds
    started = time.perf_counter()
    tasks = [
        asyncio.create_task(
            _client(f"{ws_base}/ws/{gid}", token, seat, random.Random(rng.random()), deadline, figures, think)
        )
        for gid, token, seat in seats
    ]
    for result in await asyncio.gather(*tasks, return_exceptions=True):
        if isinstance(result, BaseException):
            figures.errors.append(f"client failed: {type(result).__name__}: {result}")
    return figures, time.perf_counter() - started


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
        return port


def _wait_healthy(base: str, process: subprocess.Popen[bytes], limit: float = 30) -> None:
    deadline = time.monotonic() + limit
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise SystemExit("loadtest: the server stopped at start")
        with (
            contextlib.suppress(OSError),
            urllib.request.urlopen(base + "/api/health", timeout=2) as response,
        ):
            if response.status == 200:
                return
        time.sleep(0.1)
    raise SystemExit("loadtest: the server did not start")


def _ms(value: float) -> str:
    return f"{value * 1000:.1f}"


def cpu_seconds(pid: int) -> float | None:
    """The processor time (user and system) process ``pid`` has used so far; None where
    ``/proc`` cannot tell."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except OSError:
        return None
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def report(
    figures: Figures, elapsed: float, games: int, clients: int, server_cpu: float | None = None
) -> dict[str, Any]:
    moves = len(figures.moves)
    out: dict[str, Any] = {
        "games": games,
        "clients": clients,
        "seconds": round(elapsed, 2),
        "games_finished": figures.finished,
        "moves": moves,
        "moves_per_s": round(moves / elapsed, 1) if elapsed else 0,
        "previews": len(figures.previews),
        "messages_received": figures.messages,
        "bytes_received": figures.bytes,
        "bytes_per_move": round(figures.bytes / moves) if moves else 0,
        "states_received": figures.states,
        "deltas_received": figures.deltas,
        "resyncs": figures.resyncs,
        "server_cpu_s": None if server_cpu is None else round(server_cpu, 2),
        "server_cpu_ms_per_move": None
        if server_cpu is None or not moves
        else round(server_cpu / moves * 1000, 3),
        "errors": len(figures.errors),
    }
    for name, values in (
        ("move", figures.moves),
        ("preview", figures.previews),
        ("connect", figures.connects),
    ):
        for p in (50, 90, 99):
            out[f"{name}_p{p}_ms"] = float(_ms(percentile(values, p)))
        out[f"{name}_max_ms"] = float(_ms(max(values, default=0.0)))
    return out


def measure(args: argparse.Namespace, src: str | None) -> tuple[dict[str, Any], Figures, str]:
    """One run: start a server (from ``src`` if given; none with ``--url``), play, and report."""
    process: subprocess.Popen[bytes] | None = None
    folder = tempfile.TemporaryDirectory(prefix="dorf-load-")
    base = args.url
    if base is None:
        port = _free_port()
        base = f"http://127.0.0.1:{port}"
        db = Path(folder.name) / "load.sqlite3"
        command = [sys.executable, "-m", "dorf.cli", "serve", "--host", "127.0.0.1", "--port", str(port)]
        command += ["--db", str(db), "--ai-workers", "0", "--ai-delay", "0", "--log-level", "error"]
        command += ["--create-limit", "0"]
        env = {**os.environ, "PYTHONUNBUFFERED": "1"}
        if src is None:  # an older server has no such option (nor such a limit)
            command += ["--max-connections-per-address", "0"]
        else:
            env["PYTHONPATH"] = str(Path(src).resolve())
        process = subprocess.Popen(command, env=env)
        _wait_healthy(base, process)
    cpu_before = None if process is None else cpu_seconds(process.pid)
    server_cpu: float | None = None
    writes: dict[str, int] | None = None
    try:
        figures, elapsed = asyncio.run(
            run(base.rstrip("/"), args.games, args.clients, args.seconds, args.seed, args.think)
        )
        with contextlib.suppress(OSError, ValueError), urllib.request.urlopen(base + "/api/health") as answer:
            writes = json.loads(answer.read()).get("writes")
        if process is not None:
            cpu_after = cpu_seconds(process.pid)
            if cpu_before is not None and cpu_after is not None:
                server_cpu = cpu_after - cpu_before
    finally:
        if process is not None:
            process.terminate()
            with contextlib.suppress(subprocess.TimeoutExpired):
                process.wait(timeout=10)
        folder.cleanup()
    result = report(figures, elapsed, args.games, args.clients, server_cpu)
    result["server_writes"] = writes  # transactions and changes written (servers that say so)
    return result, figures, base


def show(args: argparse.Namespace, result: dict[str, Any], figures: Figures, base: str) -> None:
    pace = f"{args.think} s thinking a move" if args.think else "moving flat out"
    print(f"{args.games} games, {args.clients} clients {pace}, {result['seconds']} s on {base}")
    finished = result["games_finished"]
    print(f"  moves     {result['moves']:>6}  ({result['moves_per_s']}/s), {finished} games finished")
    for name in ("move", "preview", "connect"):
        print(
            f"  {name:<8} p50 {result[f'{name}_p50_ms']:>7} ms  p90 {result[f'{name}_p90_ms']:>7} ms"
            f"  p99 {result[f'{name}_p99_ms']:>7} ms  max {result[f'{name}_max_ms']:>7} ms"
        )
    print(
        f"  received  {result['bytes_received']} bytes in {result['messages_received']} messages"
        f" ({result['bytes_per_move']} bytes a move; {result['states_received']} whole states,"
        f" {result['deltas_received']} deltas)"
    )
    if result["server_cpu_s"] is not None:
        print(f"  server    {result['server_cpu_s']} s of CPU ({result['server_cpu_ms_per_move']} ms a move)")
    print(f"  errors    {len(figures.errors)}")
    for error in figures.errors[:10]:
        print(f"    {error}")
    print(json.dumps(result))


#: The figures compared by ``--against``, and whether less is better.
COMPARED = (("server_cpu_ms_per_move", True), ("bytes_per_move", True), ("moves_per_s", False))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m dorf.server.loadtest", description=__doc__.split("\n\n")[0]
    )
    parser.add_argument("--url", default=None, help="a running server (default: start one on a free port)")
    parser.add_argument("--games", type=int, default=50)
    parser.add_argument("--clients", type=int, default=100, help="websocket clients, at most 2 per game")
    parser.add_argument("--seconds", type=float, default=60.0, help="stop after this long (default 60)")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument(
        "--think",
        type=float,
        default=0.0,
        help="mean seconds a client waits before each move (default 0: flat out)",
    )
    parser.add_argument(
        "--src",
        default=None,
        metavar="DIR",
        help="start the server from this source folder (another commit's src/, built in place)",
    )
    parser.add_argument(
        "--against",
        default=None,
        metavar="DIR",
        help="also run the server of this source folder, in turns with this one, and print the ratios",
    )
    parser.add_argument(
        "--rounds", type=int, default=3, help="runs of each server with --against (default 3)"
    )
    args = parser.parse_args(argv)
    if not 1 <= args.games <= 500 or not 1 <= args.clients <= 2 * args.games or not 0 < args.seconds <= 600:
        parser.error("1 to 500 games, at most 2 clients a game, at most 600 seconds")
    for folder in (args.src, args.against):
        if folder is not None and not (Path(folder) / "dorf" / "server").is_dir():
            parser.error(f"{folder}: no dorf/server in that folder")
    if args.against is not None and (args.url is not None or not 1 <= args.rounds <= 10):
        parser.error("--against starts both servers itself (no --url), 1 to 10 rounds")
    if args.against is None:
        result, figures, base = measure(args, args.src)
        show(args, result, figures, base)
        return 1 if figures.errors else 0
    runs: dict[str, list[dict[str, Any]]] = {"against": [], "this": []}
    failed = False
    for number in range(args.rounds):
        for name, src in (("against", args.against), ("this", args.src)):
            print(f"round {number + 1}, {name} ({src or 'this version'}):")
            result, figures, base = measure(args, src)
            show(args, result, figures, base)
            runs[name].append(result)
            failed = failed or bool(figures.errors)
    summary: dict[str, Any] = {"rounds": args.rounds}
    for key, lower in COMPARED:
        old = statistics.median(r[key] for r in runs["against"])
        new = statistics.median(r[key] for r in runs["this"])
        ratio = (old / new if lower else new / old) if old and new else None
        summary[key] = {"against": old, "this": new, "better_by": None if ratio is None else round(ratio, 2)}
        print(
            f"{key:<24} against {old:>10}  this {new:>10}  better by {ratio and round(ratio, 2)}x (medians)"
        )
    print(json.dumps(summary))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
