"""Steps a second of the Gymnasium environment dorf/Coop-v0, observation included, on both backends.

    .venv/bin/python examples/bench_gym.py [--episodes 40] [--rounds 3]

Each episode is ``reset(seed=e)`` then random legal actions (from ``info["action_mask"]``,
with a numpy generator seeded 0) until the episode ends: every step builds the full
observation (the planes of :mod:`dorf.rl.planes`), the action mask and the info.  The
pure and the compiled backend play the same episodes in turn, ``rounds`` times; the
best of each is printed with the ratio, and whether both saw the very same observations
(a digest of every observation, mask and reward of the first ten episodes, taken in an
untimed run).
The figures are quoted in README.md and docs/engine.md.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import time
from typing import Any

import gymnasium
import numpy as np

import dorf.rl  # noqa: F401  (registers dorf/Coop-v0)
from dorf.rules.area import COMPILED, use_backend


def run(episodes: int, digest: Any = None) -> tuple[int, float, float]:
    """Steps, seconds and CPU seconds (this process's: other work on a busy machine does not
    count); with ``digest``, every observation, mask and reward goes into it (hashing costs
    more than a step: the timed runs do without)."""
    env = gymnasium.make("dorf/Coop-v0").unwrapped
    rng = np.random.default_rng(0)
    steps = 0
    started, cpu = time.perf_counter(), time.process_time()
    for episode in range(episodes):
        obs, info = env.reset(seed=episode)
        done = False
        while not done:
            legal = np.flatnonzero(info["action_mask"])
            action = int(legal[rng.integers(len(legal))])
            obs, reward, terminated, truncated, info = env.step(action)
            if digest is not None:
                digest.update(obs.tobytes())
                digest.update(info["action_mask"].tobytes())
                digest.update(repr(reward).encode())
            steps += 1
            done = terminated or truncated
    return steps, time.perf_counter() - started, time.process_time() - cpu


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--episodes", type=int, default=40)
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args()
    backends = ["pure", "compiled"] if COMPILED is not None else ["pure"]
    best: dict[str, float] = {}
    best_cpu: dict[str, float] = {}
    digests: dict[str, str] = {}
    steps = 0
    for name in backends:  # the same observations on both, checked apart from the timing
        use_backend(name)
        digest = hashlib.sha256()
        run(min(args.episodes, 10), digest)
        digests[name] = digest.hexdigest()
    for _ in range(args.rounds):
        for name in backends:
            use_backend(name)
            steps, seconds, cpu = run(args.episodes)
            best[name] = max(best.get(name, 0.0), steps / seconds)
            best_cpu[name] = max(best_cpu.get(name, 0.0), steps / cpu)
    out: dict[str, object] = {"episodes": args.episodes, "steps": steps}
    out.update({name: round(rate, 1) for name, rate in best.items()})
    out.update({f"{name}_cpu": round(rate, 1) for name, rate in best_cpu.items()})
    if "compiled" in best:
        out["ratio"] = round(best["compiled"] / best["pure"], 2)
        out["same_observations"] = digests["compiled"] == digests["pure"]
    print(json.dumps(out))


if __name__ == "__main__":
    main()
