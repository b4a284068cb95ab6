"""``dorf bench --measure vector``: steps a second of the batched environments and of the single one.

For each number of games ``N`` (``--envs``, default ``1,64,256,1024``) and each observation
layout (``compact`` and ``full``, :mod:`dorf.rl.vector`), a :class:`CoopVectorEnv` is reset
with seed ``seed`` and stepped with uniformly random legal actions (one uniform number a game,
:meth:`CoopVectorEnv.sample_actions`) until it has made about ``steps`` environment steps
(``N`` a call; the steps that start a new game count, as Gymnasium counts them).  Observations
are written at every step.  Then today's single environment, ``gymnasium.make("dorf/Coop-v0")``
with Gymnasium's default wrappers, makes ``single_steps`` steps (the command: as many as
``--steps``, at most 5,000; it is about ten times slower) with random legal actions read
from ``info["action_mask"]`` (a reset after each episode, not counted), in the same run.

Each row gives steps per second of wall time and per second of CPU time, counting the CPU of
every process used: with ``workers`` > 1 the ``N`` games are split among that many processes
(``N / workers`` each, at least one, started together; a row shows the games in all), and the
CPU is the workers' own (their timed loops) plus this process's while it waits; the wall time
is the longest of the workers' loops.  A short warm-up (a few calls) comes before each timing.

``--mode duel`` or ``--mode head-to-head`` times the two-seat batch instead,
:class:`~dorf.rl.vector.SelfPlayVectorEnv` (one layout, the full planes; random legal actions for
the seat to act; the compiled loop where it is built), then
one PettingZoo environment of that game (:mod:`dorf.rl.aec`) stepped alone the same way.
"""

from __future__ import annotations

import json
import multiprocessing
import os
import time
from typing import Any

import gymnasium
import numpy as np

from dorf.rl import COOP_ENV_ID
from dorf.rl.aec import DuelEnv, HeadToHeadEnv
from dorf.rl.vector import CoopVectorEnv, SelfPlayVectorEnv
from dorf.rules.area import backend

DEFAULT_ENVS = (1, 64, 256, 1024)
#: The single environment's steps at most (it is about ten times slower than a batch).
SINGLE_STEPS = 5_000
VECTOR_LAYOUTS = ("compact", "full")
#: Calls made before a timing starts.
WARM_UP = 3
#: Seconds waited before the first timing (see :func:`run_vector_bench`).
SETTLE = 0.5


#: The two-seat games and their PettingZoo environments.
TWO_SEATS = {"duel": DuelEnv, "head-to-head": HeadToHeadEnv}


def _time_vector(
    envs: int, layout: str, steps: int, seed: int, loop: str | None, mode: str = "coop"
) -> tuple[int, float, float]:
    """Steps, wall seconds and CPU seconds of ``envs`` batched games making about ``steps`` steps."""
    env: CoopVectorEnv | SelfPlayVectorEnv
    if mode == "coop":
        env = CoopVectorEnv(envs, layout=layout, loop=loop)
    else:
        env = SelfPlayVectorEnv(mode, envs, loop=loop)
    rng = np.random.default_rng(seed)
    env.reset(seed=seed)
    for _ in range(WARM_UP):
        env.step(env.sample_actions(rng))
    calls = max(1, steps // envs)
    started, cpu = time.perf_counter(), time.process_time()
    for _ in range(calls):
        env.step(env.sample_actions(rng))
    wall, used = time.perf_counter() - started, time.process_time() - cpu
    env.close()
    return calls * envs, wall, used


def _worker(args: tuple[int, str, int, int, str | None, str, Any]) -> tuple[int, float, float]:
    envs, layout, steps, seed, loop, mode, barrier = args
    barrier.wait()
    return _time_vector(envs, layout, steps, seed, loop, mode)


def _time_workers(
    envs: int, layout: str, steps: int, seed: int, loop: str | None, workers: int, mode: str = "coop"
) -> tuple[int, float, float]:
    """The same split among ``workers`` processes started together: steps, wall, CPU seconds."""
    context = multiprocessing.get_context("spawn")
    manager = context.Manager()
    barrier = manager.Barrier(workers)
    share = max(1, envs // workers)
    with context.Pool(workers) as pool:
        cpu = time.process_time()
        results = pool.map(
            _worker,
            [
                (share, layout, steps // workers, seed + k * share, loop, mode, barrier)
                for k in range(workers)
            ],
        )
        parent = time.process_time() - cpu
    manager.shutdown()
    total = sum(r[0] for r in results)
    # Each worker's loop is timed by itself; the whole wait here includes starting them.
    return total, max(r[1] for r in results), sum(r[2] for r in results) + parent


def _time_single(steps: int, seed: int) -> tuple[int, float, float]:
    """Steps, wall and CPU seconds of ``gymnasium.make("dorf/Coop-v0")`` (default wrappers)."""
    env = gymnasium.make(COOP_ENV_ID)
    rng = np.random.default_rng(seed)
    _, info = env.reset(seed=seed)
    for _ in range(WARM_UP):
        env.step(int(rng.choice(np.flatnonzero(info["action_mask"]))))
        _, info = env.reset()
    made = 0
    started, cpu = time.perf_counter(), time.process_time()
    while made < steps:
        legal = np.flatnonzero(info["action_mask"])
        _, _, terminated, truncated, info = env.step(int(legal[rng.integers(len(legal))]))
        made += 1
        if terminated or truncated:
            _, info = env.reset()
    wall, used = time.perf_counter() - started, time.process_time() - cpu
    env.close()
    return made, wall, used


def _time_single_seat(mode: str, steps: int, seed: int) -> tuple[int, float, float]:
    """Steps, wall and CPU seconds of one PettingZoo environment of ``mode``, random legal actions."""
    env = TWO_SEATS[mode]()
    rng = np.random.default_rng(seed)
    env.reset(seed=seed)
    made = -WARM_UP
    started, cpu = time.perf_counter(), time.process_time()
    while made < steps:
        if made == 0:
            started, cpu = time.perf_counter(), time.process_time()
        agent = env.agent_selection
        if env.terminations[agent] or env.truncations[agent]:
            env.reset()
            continue
        legal = np.flatnonzero(env.observe(agent)["action_mask"])
        env.step(int(legal[rng.integers(len(legal))]))
        made += 1
    wall, used = time.perf_counter() - started, time.process_time() - cpu
    env.close()
    return made, wall, used


def _row(
    kind: str, envs: int, workers: int, layout: str, figures: tuple[int, float, float]
) -> dict[str, Any]:
    steps, wall, cpu = figures
    return {
        "env": kind,
        "envs": envs,
        "workers": workers,
        "layout": layout,
        "steps": steps,
        "steps_per_s": round(steps / wall) if wall else 0,
        "steps_per_cpu_s": round(steps / cpu) if cpu else 0,
    }


def run_vector_bench(
    envs: tuple[int, ...] = DEFAULT_ENVS,
    steps: int = 50_000,
    single_steps: int = SINGLE_STEPS,
    seed: int = 1,
    workers: int = 1,
    layouts: tuple[str, ...] = VECTOR_LAYOUTS,
    loop: str | None = None,
    mode: str = "coop",
) -> dict[str, Any]:
    """The rows of the benchmark (see the module's notes), batched first, then the single environment."""
    if mode != "coop" and mode not in TWO_SEATS:
        raise ValueError(f"mode must be coop or one of {tuple(TWO_SEATS)}, not {mode!r}")
    if mode != "coop":
        layouts = ("full",)
    # numpy's OpenBLAS threads spin for a moment after numpy is imported (CPU time of this
    # process that is none of the environments' work): let them settle before the first timing.
    time.sleep(SETTLE)
    rows = []
    for n in envs:
        for layout in layouts:
            if workers > 1:  # N / workers games each (at least one: N = 1 runs one in each)
                figures = _time_workers(n, layout, steps, seed, loop, workers, mode)
                games = max(1, n // workers) * workers
            else:
                figures = _time_vector(n, layout, steps, seed, loop, mode)
                games = n
            rows.append(_row("vector" if mode == "coop" else "self-play", games, workers, layout, figures))
    if single_steps:
        single = (
            _time_single(single_steps, seed)
            if mode == "coop"
            else _time_single_seat(mode, single_steps, seed)
        )
        rows.append(_row("single", 1, 1, "full", single))
    return {
        "measure": "vector",
        "mode": mode,
        "backend": backend(),
        # the loop the batch chose
        "loop": CoopVectorEnv(1, radius=2, loop=loop).loop
        if mode == "coop"
        else SelfPlayVectorEnv(mode, 1, radius=4, loop=loop).loop,
        "cpus": os.cpu_count(),
        "seed": seed,
        "rows": rows,
    }


def vector_line(envs: tuple[int, ...], steps: int, seed: int, workers: int, mode: str = "coop") -> str:
    """``dorf bench --measure vector``'s JSON line, then one line a row as a table."""
    result = run_vector_bench(
        envs=envs, steps=steps, single_steps=min(SINGLE_STEPS, steps), seed=seed, workers=workers, mode=mode
    )
    lines = [json.dumps(result)]
    for row in result["rows"]:
        lines.append(
            f"# {row['env']:>9} N={row['envs']:<5} workers={row['workers']} {row['layout']:<7} "
            f"{row['steps_per_s']:>9,} steps/s {row['steps_per_cpu_s']:>9,} steps/CPU s"
        )
    return "\n".join(lines)
