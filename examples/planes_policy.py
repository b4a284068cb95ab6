"""Held-out games of a planes policy (``dorf learn --method ppo``), played by ``PlanesPlayer``.

    .venv/bin/python examples/planes_policy.py [--games 200] [--seed 1] [--policy FILE]

Plays the solo Board Game on game seeds ``seed`` .. ``seed + games - 1`` (``CoopGame(seed=g)``,
the games ``dorf simulate --seed S`` plays) with the policy (by default the one shipped,
``src/dorf/data/planes-policy.npz``), one game after the other, and prints the mean score, its
standard deviation and the CPU time a move (``time.process_time`` around each ``choose``).
The figures are quoted in docs/rl.md.
"""

from __future__ import annotations

import argparse
import statistics
import time

from dorf.games.coop import CoopGame
from dorf.rl.policy_net import PlanesPlayer
from dorf.rules.scoring import score_coop


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=200)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--policy", default=None, help="a ppo-policy.npz (default: the one shipped)")
    args = parser.parse_args()
    player = PlanesPlayer(args.policy)
    scores: list[int] = []
    moves, cpu = 0, 0.0
    for game_seed in range(args.seed, args.seed + args.games):
        state = CoopGame(seed=game_seed).new_state()
        while not state.is_over:
            started = time.process_time()
            decision = player.choose(state.view())
            cpu += time.process_time() - started
            state.play(decision)
            moves += 1
        scores.append(score_coop(state.area, with_task_list=False).total)
    spread = statistics.stdev(scores) if len(scores) > 1 else 0.0
    print(
        f"seeds {args.seed}-{args.seed + args.games - 1}: mean {statistics.mean(scores):.1f} "
        f"(sd {spread:.1f}), {moves} moves, {cpu / max(moves, 1) * 1000:.2f} ms CPU a move"
    )


if __name__ == "__main__":
    main()
