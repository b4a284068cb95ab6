"""What the cooperative table costs the server (issue 63): ``python -m dorf.lab.table_cost``.

In one process, on the server's own roles (a :class:`~dorf.server.hub.Hub` on a SQLite file of
a temporary folder, no HTTP): cooperative games of three seats, each with three seat-holding
clients and one watcher (their messages counted as queued, never sent).  Each turn the active
seat chooses twice, the two other seats propose two placements each, one seat says a message
of 60 characters, and the active seat places.  Printed: the bytes every client of a game is
sent and the server's processor time (its storage thread included) per choice, per proposal,
per message of talk, and per move; and the same moves of the same games played with no table
at all (the fan-out handed none) and with a table on which nothing happens: the move's bytes
and processor time beside the table's.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import tempfile
import time
from collections.abc import Awaitable
from pathlib import Path
from typing import Any

from dorf.rules.area import Placement
from dorf.rules.hexgrid import Hex
from dorf.server.config import ServerConfig
from dorf.server.hub import Hub
from dorf.server.protocol.messages import Move
from dorf.server.round.connection import Connection
from dorf.server.round.game import Game

SEATS = [{"kind": "here", "name": name} for name in ("Lea", "Max", "Nia")]
TALK = "Here? It closes the forest and the village waits one more turn"[:60]


class Clock:
    """A clock that moves a minute each time it is read (no limit of the table's is reached)."""

    def __init__(self) -> None:
        self.at = 0.0

    def __call__(self) -> float:
        self.at += 60.0
        return self.at


class Meter:
    """Processor time and bytes sent, per kind of message."""

    def __init__(self) -> None:
        self.cpu: dict[str, float] = {}
        self.bytes: dict[str, int] = {}
        self.count: dict[str, int] = {}

    async def run(self, kind: str, clients: list[Connection], work: Awaitable[Any]) -> None:
        start = time.process_time()
        await work
        self.cpu[kind] = self.cpu.get(kind, 0.0) + time.process_time() - start
        self.count[kind] = self.count.get(kind, 0) + 1
        self.bytes[kind] = self.bytes.get(kind, 0) + drain(clients)

    def figures(self, kind: str, clients: int) -> dict[str, float]:
        count = max(1, self.count.get(kind, 0))
        return {
            "messages": self.count.get(kind, 0),
            "bytes_per_client": round(self.bytes.get(kind, 0) / count / clients, 1),
            "cpu_us": round(self.cpu.get(kind, 0.0) / count * 1e6, 1),
        }


def drain(clients: list[Connection]) -> int:
    """The bytes queued for ``clients`` since last asked (and forget them)."""
    sent = 0
    for conn in clients:
        while not conn.queue.empty():
            text = conn.queue.get_nowait()
            if text is not None:
                sent += len(text.encode())
    return sent


async def _quiet(text: str) -> None:
    return None


async def _closed(code: int) -> None:
    return None


def clients_of(game: Game) -> list[Connection]:
    """Three seat holders and a watcher, counted among the game's clients."""
    made = []
    for seats in ({0}, {1}, {2}, set()):
        conn = Connection(_quiet, _closed, "bench")
        conn.seats = set(seats)
        conn.doc = game.session.document(conn.seats)
        game.connections.add(conn)
        made.append(conn)
    return made


def spots(game: Game, seat: int) -> list[Placement]:
    return [Placement(Hex(q, r), rot) for q, r, rots in game.session.legal(seat) for rot in rots]


async def play(hub: Hub, seed: int, turns: int, meter: Meter, table: bool) -> None:
    """One game of ``turns`` turns; with ``table``, the choices, proposals and talk of each turn."""
    made = await hub.seating.create({"mode": "coop", "seed": seed, "seats": SEATS})
    game = await hub.playable(made["id"])
    clients = clients_of(game)
    await hub.talk.load(game)
    for _ in range(turns):
        session = game.session
        if session.is_over:
            break
        active = session.waiting()[0]
        others = [seat for seat in range(3) if seat != active]
        legal = spots(game, active)
        if table and len(legal) >= 5:
            chooser = clients[active]
            for spot in legal[:2]:
                await meter.run("choice", clients, hub.table.choose(game, chooser, active, spot))
            for n, seat in enumerate(others):
                for spot in legal[1 + 2 * n : 3 + 2 * n]:
                    await meter.run(
                        "proposal", clients, hub.table.propose(game, clients[seat], seat, spot, False)
                    )
            await meter.run("talk", clients, hub.talk.say(game, chooser, active, TALK))
        move = Move(active, legal[-1])
        await meter.run("move", clients, hub.mover.move(game, move, clients[active]))
        drain(clients)
    game.connections.clear()


async def measure(games: int, turns: int, folder: Path) -> dict[str, Any]:
    """The figures of ``games`` games of ``turns`` turns, three ways (see the module)."""
    config = ServerConfig(db=folder / "bench.sqlite3", ai_workers=0, ai_delay=0.0)
    hub = Hub.open(config)
    await hub.start()
    hub.talk.monotonic = Clock()
    hub.table.monotonic = Clock()
    try:
        table, bare, idle = Meter(), Meter(), Meter()
        await play(hub, games + 1, turns, Meter(), True)  # warm up, not counted
        fanout_table = hub.fanout.table
        for seed in range(1, games + 1):  # the same games, the three ways in turn
            hub.fanout.table = None  # as before issue 63: the fan-out has no table
            await play(hub, seed, turns, bare, False)
            hub.fanout.table = fanout_table
            await play(hub, seed, turns, idle, False)
            await play(hub, seed, turns, table, True)
    finally:
        await hub.close()
    return {
        "games": games,
        "turns": turns,
        "clients_per_game": 4,
        "choice": table.figures("choice", 4),
        "proposal": table.figures("proposal", 4),
        "talk": table.figures("talk", 3),  # to the three seat holders
        "move_with_proposals": table.figures("move", 4),
        "move_no_table": bare.figures("move", 4),
        "move_idle_table": idle.figures("move", 4),
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m dorf.lab.table_cost", description=__doc__.split("\n")[0])
    parser.add_argument("--games", type=int, default=6, help="games of each kind (6)")
    parser.add_argument("--turns", type=int, default=30, help="turns of each game (30)")
    parser.add_argument("--json", action="store_true", help="print the figures as JSON")
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory() as folder:
        result = asyncio.run(measure(args.games, args.turns, Path(folder)))
    if args.json:
        print(json.dumps(result, indent=1))
        return 0
    print(f"{args.games} cooperative games of {args.turns} turns, 3 seats and a watcher each (in-process)")
    print(f"{'':<22}{'messages':>9}{'bytes/client':>14}{'CPU us':>10}")
    for kind in ("choice", "proposal", "talk", "move_with_proposals", "move_idle_table", "move_no_table"):
        row = result[kind]
        print(f"{kind:<22}{row['messages']:>9}{row['bytes_per_client']:>14}{row['cpu_us']:>10}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
