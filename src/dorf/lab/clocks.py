"""What the clocks cost: CPU per live clocked game per second, with 10,000 live games.

``python -m dorf.lab.clocks`` makes a hub of the server in this process (on a
SQLite file in a temporary folder, its computer workers off), creates
``--games`` Duels with two seats at one screen each, and measures three
things with ``time.process_time()`` (CPU of this process, every thread):

- ``idle``: ``--idle`` seconds with every game's clock running (a long clock,
  so none runs out) and nobody deciding, and the same without clocks: what
  the clocks cost while they only tick.  Nothing of the clocks loops over the
  games (one task sleeps until the earliest deadline): both are the idle
  server's own (its event loop, and the sweep for idle games every 5 s).
- ``steady``: decisions made at a steady ``--rate`` a second in all (each game
  deciding every ``games / rate`` seconds), for ``--seconds`` seconds, once
  with clocks and once without (the same games and decisions): the CPU per
  live game per second of each, and the difference (the clocks' part, with
  the noise of the whole server's work in it).
- ``clock work``: the clock's own work for one decision (charge and increment,
  its stored JSON, its deadline, one push on the timers' heap, the page's
  clock JSON), timed over every game at once; times the decisions a game
  makes a second, the CPU per live game per second the clocks cost.

It prints one line per figure and a JSON line.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import tempfile
import time
from pathlib import Path
from typing import Any

from dorf.server.config import ServerConfig
from dorf.server.hub import Hub
from dorf.server.protocol.messages import Move
from dorf.server.round.game import Game
from dorf.server.storage import open_storage

SEATS = [{"kind": "here", "name": "A"}, {"kind": "here", "name": "B"}]


async def make_hub(db: Path, games: int) -> Hub:
    config = ServerConfig(
        db=db, ai_workers=0, ai_delay=0.0, games_in_memory=games + 100, idle_seconds=86_400.0, create_limit=0
    )
    storage, bus = open_storage(db, grace=config.storage_grace, lease=config.lease)
    hub = Hub(config, storage, bus)
    await hub.start()
    return hub


async def create(hub: Hub, count: int, clock: str | None) -> list[Game]:
    games = []
    for start in range(0, count, 500):
        made = await asyncio.gather(
            *(
                hub.seating.create({"mode": "duel", "seed": 1000 + i, "clock": clock, "seats": SEATS})
                for i in range(start, min(count, start + 500))
            )
        )
        games.extend([await hub.playable(m["id"]) for m in made])
    return games


async def decide(hub: Hub, game: Game) -> None:
    """One decision of a seat the game waits for (the first legal one)."""
    session = game.session
    waiting = session.waiting()
    if not waiting:
        return
    seat = waiting[0]
    decision = session.state.legal_decisions(session.player_of[seat])[0]
    await hub.mover.move(game, Move(seat, decision))


async def steady(hub: Hub, games: list[Game], rate: float, seconds: float) -> tuple[float, int]:
    """Decisions at ``rate`` a second over the games in turn for ``seconds``: (CPU s, decisions)."""
    made = 0
    cpu = time.process_time()
    start = time.monotonic()
    while (elapsed := time.monotonic() - start) < seconds:
        due = int(elapsed * rate) - made
        if due > 0:
            await asyncio.gather(*(decide(hub, games[(made + k) % len(games)]) for k in range(due)))
            made += due
        await asyncio.sleep(0.005)
    storage: Any = hub.storage
    await storage.writer.flush(30.0)
    return time.process_time() - cpu, made


def clock_work(hub: Hub, games: list[Game]) -> float:
    """The clocks' own CPU for one decision of every game, in seconds per decision."""
    now = hub.now()
    clocks = [g.session.clock for g in games]
    cpu = time.process_time()
    for game, clock in zip(games, clocks, strict=True):
        assert clock is not None
        copy = clock.copy()
        copy.decided(0, now + 1.0, (1,))
        copy.stored()
        deadline = copy.deadline()
        hub.timers.set(game.id, deadline, game.session.version)
        copy.json()
    return (time.process_time() - cpu) / len(games)


async def measure(args: argparse.Namespace) -> dict[str, Any]:
    out: dict[str, Any] = {"games": args.games, "rate": args.rate, "seconds": args.seconds}
    with tempfile.TemporaryDirectory() as folder:
        hub = await make_hub(Path(folder) / "clocks.sqlite3", args.games)
        try:
            clocked = await create(hub, args.games, "180+0")
            for game in clocked:  # every clock running: both seats have decided once
                await decide(hub, game)
                await decide(hub, game)
            storage: Any = hub.storage
            await storage.writer.flush(60.0)
            out["live_deadlines"] = len(hub.timers)
            cpu = time.process_time()
            await asyncio.sleep(args.idle)
            out["idle_cpu_per_game_s"] = (time.process_time() - cpu) / args.idle / args.games
            used, made = await steady(hub, clocked, args.rate, args.seconds)
            out["clocked_cpu_per_game_s"] = used / args.seconds / args.games
            out["clocked_decisions"] = made
            per_decision = clock_work(hub, clocked)
            out["clock_work_per_decision_us"] = per_decision * 1e6
            out["clock_cpu_per_game_s"] = per_decision * args.rate / args.games
        finally:
            await hub.close()
    with tempfile.TemporaryDirectory() as folder:
        hub = await make_hub(Path(folder) / "plain.sqlite3", args.games)
        try:
            plain = await create(hub, args.games, None)
            for game in plain:
                await decide(hub, game)
                await decide(hub, game)
            storage = hub.storage
            await storage.writer.flush(60.0)
            cpu = time.process_time()
            await asyncio.sleep(args.idle)
            out["plain_idle_cpu_per_game_s"] = (time.process_time() - cpu) / args.idle / args.games
            used, made = await steady(hub, plain, args.rate, args.seconds)
            out["plain_cpu_per_game_s"] = used / args.seconds / args.games
            out["plain_decisions"] = made
        finally:
            await hub.close()
    out["difference_cpu_per_game_s"] = out["clocked_cpu_per_game_s"] - out["plain_cpu_per_game_s"]
    return out


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="python -m dorf.lab.clocks", description=__doc__.split("\n")[0])
    parser.add_argument("--games", type=int, default=10_000, help="live clocked games (default 10000)")
    parser.add_argument("--rate", type=float, default=500.0, help="decisions a second in all (default 500)")
    parser.add_argument(
        "--seconds", type=float, default=10.0, help="how long decisions are made (default 10)"
    )
    parser.add_argument(
        "--idle", type=float, default=5.0, help="seconds of ticking without decisions (default 5)"
    )
    args = parser.parse_args(argv)
    out = asyncio.run(measure(args))
    us = 1e6
    per = "µs CPU per live game per second"
    print(f"games: {out['games']} live clocked Duels ({out['live_deadlines']} live deadlines)")
    print(f"idle: {out['idle_cpu_per_game_s'] * us:.3f} {per} (clocks ticking, nobody deciding)")
    print(f"  the same games without clocks: {out['plain_idle_cpu_per_game_s'] * us:.3f} {per}")
    each = out["games"] / out["rate"]
    print(f"steady: {out['rate']:g} decisions/s (each game every {each:g} s), {out['seconds']:g} s")
    print(f"  with clocks:    {out['clocked_cpu_per_game_s'] * us:.1f} {per} (whole server)")
    print(f"  without clocks: {out['plain_cpu_per_game_s'] * us:.1f} {per} (whole server)")
    print(f"  difference:     {out['difference_cpu_per_game_s'] * us:.1f} µs (the clocks' part, with noise)")
    work, cost = out["clock_work_per_decision_us"], out["clock_cpu_per_game_s"] * us
    print(f"clock work: {work:.1f} µs per decision = {cost:.2f} {per}")
    print(json.dumps(out))


if __name__ == "__main__":
    main()
