"""Seconds a lessons request costs (``POST /api/games/ID/lessons``), and whether a hint waits
behind it, on a few seeded daily games.

    .venv/bin/python examples/lessons_time.py [--games 3] [--coach planner] [--pool]

Each game is a daily challenge's shuffle (the seed of a day, 2026-12-01 on, under a fixed
secret) played as a person might: the greedy player's placement four times in five, a random
legal one otherwise.  For each game it prints the wall and CPU seconds of the coach's lessons as
the server computes them (:func:`dorf.server.computer.lessons.lessons_for`: the quick look over
every placement, then the coach at its full budget on the few it kept) and what they say.

With ``--pool``, each game's lessons also go through the server's think pool (two worker
processes, as ``dorf serve`` starts by default) as a request does, and a hint is asked a second
after they start: it prints how long the lessons took there and how long the hint took, beside
the same hint alone.  A hint goes ahead of the lessons' steps and may take one worker while they
hold the other, so it takes about as long either way.
"""

from __future__ import annotations

import argparse
import asyncio
import random
import time
from typing import Any

from dorf.formats.record import record_of
from dorf.games.modes import MODES
from dorf.players import make_player
from dorf.server.computer.hints import HINT_PLAYER
from dorf.server.computer.lessons import lessons_for, lessons_in
from dorf.server.computer.pool import HINTS, LESSONS, ThinkPool

SECRET = b"dorf lessons benchmark"
#: The hint's time cap here: a busy machine's hint may take more than the server's 10 s, and is
#: still timed.
HINT_CAP = 120.0


def daily_game(number: int) -> dict[str, Any]:
    """The record of daily game ``number`` (from 0) played by a greedy player that errs one time
    in five."""
    from dorf.server.daily.calendar import day_seed

    seed = day_seed(SECRET, f"2026-12-{number + 1:02d}")
    state = MODES["coop"].new(seed)
    greedy, rng = make_player("greedy", number), random.Random(number)
    while state.to_move():
        decision = (
            greedy.choose(state.view(0)) if rng.random() < 0.8 else rng.choice(state.legal_decisions(0))
        )
        state.apply(decision, 0)
    return record_of(state, ["Ann"])


async def in_pool(record: dict[str, Any], coach: str) -> tuple[float, float, float]:
    """The lessons' seconds in a pool of two worker processes, a hint's asked a second after they
    start, and the same hint's alone."""
    pool = ThinkPool(2, 2.0)
    await pool.start()
    try:
        halfway = {**record, "decisions": record["decisions"][: len(record["decisions"]) // 2]}
        hint = {"record": halfway, "player": 0, "seed": 1, "spec": HINT_PLAYER}
        started = time.perf_counter()
        await pool.run(HINTS, "hint", hint, HINT_CAP)
        alone = time.perf_counter() - started

        async def lessons() -> float:
            began = time.perf_counter()
            await lessons_in(pool.run, f"{LESSONS} bench", record, [0], coach, 60.0)
            return time.perf_counter() - began

        running = asyncio.ensure_future(lessons())
        await asyncio.sleep(1.0)
        started = time.perf_counter()
        await pool.run(HINTS, "hint", hint, HINT_CAP)
        beside = time.perf_counter() - started
        return await running, beside, alone
    finally:
        await pool.close()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=3)
    parser.add_argument("--coach", default="planner", help="the coach (dorf serve --daily-coach)")
    parser.add_argument("--pool", action="store_true", help="also through the think pool, beside a hint")
    args = parser.parse_args()
    walls = []
    for number in range(args.games):
        record = daily_game(number)
        wall, cpu = time.perf_counter(), time.process_time()
        found = lessons_for(record, [0], args.coach)["lessons"]
        wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
        walls.append(wall)
        placements = len(record["decisions"])
        print(f"game {number + 1}: {placements} placements, lessons in {wall:.1f} s ({cpu:.1f} s CPU)")
        for lesson in found:
            print(
                f"  turn {lesson['turn']}, about {lesson['loss']:.1f} points: {'; '.join(lesson['reasons'])}"
            )
        if args.pool:
            took, beside, alone = asyncio.run(in_pool(record, args.coach))
            print(
                f"  in the pool: lessons {took:.1f} s; a hint beside them {beside:.2f} s, alone {alone:.2f} s"
            )
    print(f"mean {sum(walls) / len(walls):.1f} s a lessons request, slowest {max(walls):.1f} s")


if __name__ == "__main__":
    main()
