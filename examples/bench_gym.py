"""Steps a second of the Gymnasium environment dorf/Coop-v0, observation included, on both backends.

    .venv/bin/python examples/bench_gym.py [--episodes 40] [--rounds 3]

Each episode is ``reset(seed=e)`` then random legal actions (from ``info["action_mask"]``,
with a numpy generator seeded 0) until the episode ends: every step builds the full
observation (the planes of :mod:`dorf.rl.planes`), the action mask and the info.

The environment is measured the way users make it, ``gymnasium.make("dorf/Coop-v0")`` with
Gymnasium's default wrappers (``wrapped``), and without them (``.unwrapped``).  The pure and
the compiled backend play the same episodes in turn, ``rounds`` times; the best of each is
printed, in steps per second of wall time and per second of this process's CPU time (other
work on a busy machine does not count there), with the ratio compiled / pure of the wrapped
figures, and whether both backends saw the very same observations, masks, rewards and infos
(a digest of the first ten episodes, taken in an untimed run).
The figures are quoted in docs/engine.md (and, by date, CHANGELOG.md).
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

KINDS = ("wrapped", "unwrapped")


def make(kind: str) -> Any:
    env = gymnasium.make("dorf/Coop-v0")
    return env if kind == "wrapped" else env.unwrapped


def run(env: Any, episodes: int, digest: Any = None) -> tuple[int, float, float]:
    """Steps, seconds and CPU seconds; with ``digest``, every observation, mask, reward and
    info goes into it (hashing costs more than a step: the timed runs do without)."""
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
                rest = sorted((k, v) for k, v in info.items() if k != "action_mask")
                digest.update(repr((reward, terminated, truncated, rest)).encode())
            steps += 1
            done = terminated or truncated
    return steps, time.perf_counter() - started, time.process_time() - cpu


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--episodes", type=int, default=40)
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args()
    backends = ["pure", "compiled"] if COMPILED is not None else ["pure"]
    best: dict[str, dict[str, float]] = {kind: {} for kind in KINDS}
    digests: dict[str, str] = {}
    steps = 0
    for name in backends:  # the same observations on both, checked apart from the timing
        use_backend(name)
        digest = hashlib.sha256()
        run(make("wrapped"), min(args.episodes, 10), digest)
        digests[name] = digest.hexdigest()
    for _ in range(args.rounds):
        for name in backends:
            use_backend(name)
            for kind in KINDS:
                steps, seconds, cpu = run(make(kind), args.episodes)
                rates = best[kind]
                rates[name] = max(rates.get(name, 0.0), steps / seconds)
                rates[f"{name}_cpu"] = max(rates.get(f"{name}_cpu", 0.0), steps / cpu)
    out: dict[str, object] = {"episodes": args.episodes, "steps": steps}
    for kind in KINDS:
        out[kind] = {key: round(rate, 1) for key, rate in best[kind].items()}
    if "compiled" in best["wrapped"]:
        out["ratio"] = round(best["wrapped"]["compiled"] / best["wrapped"]["pure"], 2)
        out["same_observations"] = digests["compiled"] == digests["pure"]
    print(json.dumps(out))


if __name__ == "__main__":
    main()
