"""Processor time a placement of computer players, side by side in one run.

    .venv/bin/python examples/move_time.py --mode head-to-head planner planner-v2 [--games 2] [--seed 1]

For each player spec in turn, plays ``--games`` whole games of the mode from seeds ``--seed`` on
with that player in every seat (seeded as ``dorf simulate`` seeds its players), and times each of
its placements in this process's CPU time (``time.process_time``: other work on a busy machine
does not count). The Head to Head draft's picks are played but not timed. Prints, per spec, the
mean and the slowest placement, and the ratio of each mean to the first spec's.
"""

from __future__ import annotations

import argparse
import time

from dorf.commands.simulate import player_seed
from dorf.games.modes import MODES as GAMES
from dorf.players import make_player
from dorf.rules.area import Placement


def time_a_placement(mode: str, spec: str, seeds: range) -> tuple[float, float, int]:
    """The mean and the slowest CPU time of a placement of ``spec`` over whole games, and their
    number."""
    spent, slowest, placements = 0.0, 0.0, 0
    for seed in seeds:
        state = GAMES[mode].new(seed)  # the fewest players the mode takes: solo, or the two seats
        players = [make_player(spec, player_seed(seed, seat)) for seat in range(state.players)]
        while waiting := state.to_move():
            p = waiting[0]
            started = time.process_time()
            decision = players[p].choose(state.view(p))
            took = time.process_time() - started
            if isinstance(decision, Placement):
                spent += took
                slowest = max(slowest, took)
                placements += 1
            state.apply(decision, p)
    return spent / max(placements, 1), slowest, placements


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("specs", nargs="+", help="player specs, e.g. planner planner-v2")
    parser.add_argument("--mode", choices=sorted(GAMES), default="coop")
    parser.add_argument("--games", type=int, default=2)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    seeds = range(args.seed, args.seed + args.games)
    first = None
    for spec in args.specs:
        mean, slowest, placements = time_a_placement(args.mode, spec, seeds)
        first = first or mean
        print(
            f"{spec}: {mean:.3f} s of CPU a placement over {placements} placements"
            f" (slowest {slowest:.2f} s), {mean / first:.2f} times {args.specs[0]}'s",
            flush=True,
        )


if __name__ == "__main__":
    main()
