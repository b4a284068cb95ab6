"""How often the action window of dorf.rl leaves out legal placements, measured.

    .venv/bin/python examples/rl_window_coverage.py [--games 300] [--radii 6,8,10]

For each game and window radius, two players that only choose inside the
window play games of every mode: "random" picks uniformly among the legal
placements inside the window, "far" always picks one farthest from [0, 0]
(the worst case for the window).  Per decision it counts whether some legal
placement lay outside the window, and whether none lay inside (the case in
which an environment truncates the episode).  Head to Head drafts at random.
The figures are quoted in docs/rl.md.
"""

from __future__ import annotations

import argparse
import random
from collections.abc import Callable, Iterator

from dorf.games.coop import CoopGame
from dorf.games.duel import DuelGame
from dorf.games.headtohead import HeadToHeadGame
from dorf.rules.hexgrid import Hex, hex_of

Move = tuple[int, int]
Decision = tuple[list[Move], Callable[[Move], None]]
ORIGIN = Hex(0, 0)


def distance(cell: int) -> int:
    return hex_of(cell).distance(ORIGIN)


def decisions(mode: str, seed: int, rng: random.Random) -> Iterator[Decision]:
    """Every decision of one game: the legal moves and how to make one."""
    if mode == "coop":
        coop = CoopGame(seed=seed).new_state()
        while not coop.is_over:
            yield coop.legal_moves(), lambda m: coop.push_move(*m)
    elif mode == "duel":
        duel = DuelGame(seed=seed).new_state()
        while not duel.is_over:
            p = duel.player
            yield duel.legal_moves(p), lambda m, p=p: duel.push_move(*m, p)
    else:
        h2h = HeadToHeadGame(seed=seed).new_state()
        while h2h.pool:
            h2h.pick(rng.choice(h2h.pool))
        while not h2h.is_over:
            p = h2h.player
            yield h2h.legal_moves(p), lambda m, p=p: h2h.push_move(*m, p)


def measure(mode: str, policy: str, radius: int, games: int) -> str:
    turns = some_outside = none_inside = 0
    for seed in range(games):
        rng = random.Random(seed)
        for moves, make in decisions(mode, seed, rng):
            turns += 1
            inside = [m for m in moves if distance(m[0]) <= radius]
            some_outside += len(inside) < len(moves)
            if not inside:
                none_inside += 1
                break  # the environment would truncate here
            if policy == "random":
                make(rng.choice(inside))
            else:
                far = max(distance(c) for c, _ in inside)
                make(rng.choice([m for m in inside if distance(m[0]) == far]))
    return (
        f"{mode:<13}{policy:<8}{radius:>6}{games:>7}{turns:>10}"
        f"{100 * some_outside / turns:>14.1f}%{none_inside:>13}"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--games", type=int, default=300)
    parser.add_argument("--radii", default="6,8,10")
    args = parser.parse_args()
    header = f"{'mode':<13}{'player':<8}{'radius':>6}{'games':>7}{'decisions':>10}"
    print(f"{header}{'some outside':>15}{'none inside':>13}")
    for radius in (int(r) for r in args.radii.split(",")):
        for mode in ("coop", "duel", "head-to-head"):
            for policy in ("random", "far"):
                print(measure(mode, policy, radius, args.games), flush=True)


if __name__ == "__main__":
    main()
