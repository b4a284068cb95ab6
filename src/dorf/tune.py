"""``dorf tune``: learn the planner's evaluation from self-play and write its weights file.

A run plays ``--games`` seeded solo cooperative games with a player, and after
every placement records what the evaluation looks at
(:meth:`dorf.players.evaluation.Evaluator.terms`): each open task's features,
each open flag territory's, the free task slots, stuck tasks, dead cells of
the frontier, ...  When a game ends, each record learns its outcome: whether
the task was completed, whether the flag's territory was closed, the final
score.  Then it fits, with numpy:

- the chance that an open task is completed: a logistic regression;
- the chance that an open flag territory is closed: a logistic regression;
- the rest of the game: least squares of (final score - score now) on the
  landscape tiles left, the free slots, the stuck tasks, the dead and tight
  frontier cells, and the open tasks' and flags' expected points.

A run has ``--rounds`` rounds: the first plays ``--start`` (greedy by default:
quick), each later one the planner with the weights of the round before
(``--futures`` sampled futures a move), so that the chances are learned from
the play they will guide.  Game ``i`` of round ``r`` is dealt from seed
``base + r * games + i``, ``base`` derived from ``--seed`` and far from the
seeds the documented figures use (1 to 200 and 1001 to 1200); the games'
results depend only on their seeds and weights, so a run writes the same file
on any number of workers or on Ray.  The fitted weights are written as a
``dorf-weights/1`` file (by default the one the planner ships with), with how
they were made and how well they predict held-out games.
"""

from __future__ import annotations

import argparse
import importlib
import json
import multiprocessing
import os
import sys
import time
from collections.abc import Callable
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass
from importlib import resources
from pathlib import Path
from typing import Any

from dorf.arguments import integer, positive
from dorf.games.coop import CoopGame
from dorf.players.evaluation import (
    FLAG_FEATURES,
    TASK_FEATURES,
    VALUE_FEATURES,
    WEIGHTS_FILE,
    Evaluator,
    Weights,
    WeightsError,
    weights_document,
)
from dorf.players.planner import PlannerPlayer, fits_of, flags_of, supply_of
from dorf.players.registry import make_player
from dorf.rules.tasks import COMPLETED
from dorf.simulate import import_ray

#: Seeds of tuning games start here (plus 100,000 per --seed), away from the documented figures' seeds.
SEED_BASE = 1_000_000
#: Every fifth game is held out of the fit to measure how well the models predict.
HOLD_OUT = 5

#: One game's records: per turn (L, T, now, tasks [(features, completed)], flags [(size, features,
#: closed)], stuck, active, dead, tight, frontier), and the final score.
GameData = dict[str, Any]


class TuneError(ValueError):
    """A user error in a tuning run's set-up; one line."""


@dataclass(frozen=True)
class TuneConfig:
    """A tuning run's description."""

    seed: int = 1
    games: int = 200
    rounds: int = 2
    start: str = "greedy"
    futures: int = 4

    def seeds(self, round_number: int) -> list[int]:
        base = SEED_BASE + 100_000 * self.seed + round_number * self.games
        return [base + i for i in range(self.games)]


def play_for_data(player: str | dict[str, Any], seed: int, futures: int) -> GameData:
    """One solo cooperative game of ``player`` (a spec, or planner weights); what the evaluation saw
    after each placement and how the game ended."""
    if isinstance(player, str):
        chooser = make_player(player, seed)
    else:
        chooser = PlannerPlayer(seed, iterations=futures, weights=Weights.from_dict(player))
    evaluator = Evaluator(Weights())
    fits = fits_of("base")
    state = CoopGame(seed=seed).new_state()
    turns = []
    while not state.is_over:
        decision = chooser.choose(state.view())
        state.play(decision)  # type: ignore[arg-type]
        view = state.view()
        if view.revealed is None:
            break
        landscapes = [t for t in view.unseen if not t.is_task]
        if not view.revealed.tile.is_task:
            landscapes.append(view.revealed.tile)
        left = view.landscapes_left + (not view.revealed.tile.is_task)
        tasks_left = view.task_tiles_left + view.revealed.tile.is_task
        terms = evaluator.terms(view.area, flags_of(view.area), left, supply_of(landscapes), fits)
        turns.append(
            {
                "left": left,
                "tasks_left": tasks_left,
                "now": terms.now,
                "tasks": [[index, value, list(features)] for index, value, features in terms.tasks],
                "flags": [[cell, size, list(features)] for cell, size, features in terms.flags],
                "stuck": terms.stuck,
                "active": terms.active,
                "dead": terms.dead_cells,
                "tight": terms.tight_cells,
                "frontier": terms.frontier,
            }
        )
    area = state.area
    completed = [task.status is COMPLETED for task in area.tasks]
    closed = {cell: area.figures(cell, letter)[1] == 0 for cell, letter in flags_of(area)}
    for turn in turns:
        for entry in turn["tasks"]:
            entry[0] = completed[entry[0]]
        for entry in turn["flags"]:
            entry[0] = closed[entry[0]]
    return {"seed": seed, "final": state.score().total, "turns": turns}


def _play_many(jobs: list[tuple[str | dict[str, Any], int, int]]) -> list[GameData]:
    return [play_for_data(*job) for job in jobs]


Runner = Callable[[list[tuple[str | dict[str, Any], int, int]]], list[GameData]]


def local_runner(workers: int) -> tuple[Runner, Callable[[], None]]:
    """Plays jobs on a process pool (in this process with one worker); results in job order."""
    if workers == 1:
        return _play_many, lambda: None
    pool = ProcessPoolExecutor(workers, mp_context=multiprocessing.get_context("spawn"))

    def run(jobs: list[tuple[str | dict[str, Any], int, int]]) -> list[GameData]:
        chunks = [jobs[i::workers] for i in range(workers)]
        answers = list(pool.map(_play_many, chunks))
        out: list[GameData] = [{}] * len(jobs)
        for w, answer in enumerate(answers):
            for j, data in enumerate(answer):
                out[w + j * workers] = data
        return out

    return run, lambda: pool.shutdown(cancel_futures=True)


def ray_runner(workers: int, address: str | None) -> tuple[Runner, Callable[[], None]]:
    """Plays jobs as Ray tasks (a local instance with ``workers`` CPUs, or the cluster at ``address``)."""
    ray = import_ray()
    options: dict[str, Any] = {"include_dashboard": False, "log_to_driver": False, "logging_level": "ERROR"}
    if address:
        ray.init(address=address, **options)
    else:
        ray.init(address="local", num_cpus=workers, **options)
    remote = ray.remote(num_cpus=1)(play_for_data)

    def run(jobs: list[tuple[str | dict[str, Any], int, int]]) -> list[GameData]:
        return list(ray.get([remote.remote(*job) for job in jobs]))

    return run, ray.shutdown


# --- fitting ------------------------------------------------------------------------------


def import_numpy() -> Any:
    try:
        return importlib.import_module("numpy")
    except ImportError:
        raise TuneError(
            "dorf tune fits with numpy, which is not installed: pip install 'dorf[tune]'"
        ) from None


def _logistic_fit(np: Any, x: Any, y: Any, ridge: float = 1e-2, steps: int = 50) -> Any:
    """Newton's method for an L2-regularised logistic regression."""
    w = np.zeros(x.shape[1])
    for _ in range(steps):
        p = 1.0 / (1.0 + np.exp(-np.clip(x @ w, -30, 30)))
        hessian = x.T @ (x * (p * (1 - p))[:, None]) + ridge * np.eye(len(w))
        step = np.linalg.solve(hessian, x.T @ (p - y) + ridge * w)
        w -= step
        if np.max(np.abs(step)) < 1e-8:
            break
    return w


def _log_loss(np: Any, w: Any, x: Any, y: Any) -> float:
    p = np.clip(1.0 / (1.0 + np.exp(-np.clip(x @ w, -30, 30))), 1e-9, 1 - 1e-9)
    return float(-np.mean(y * np.log(p) + (1 - y) * np.log(1 - p)))


def fit(games: list[GameData], rollout: dict[str, float]) -> tuple[Weights, dict[str, Any]]:
    """Fit the evaluation to the games' outcomes; returns the weights and how well they predict the
    held-out games (every fifth)."""
    np = import_numpy()
    held = [i % HOLD_OUT == 0 for i in range(len(games))]
    report: dict[str, Any] = {}

    def rows(kind: str) -> tuple[Any, Any, Any]:
        x, y, test = [], [], []
        for game, out in zip(games, held, strict=True):
            for turn in game["turns"]:
                for entry in turn[kind]:
                    x.append(entry[2])
                    y.append(float(entry[0]))
                    test.append(out)
        return np.array(x, float), np.array(y, float), np.array(test, bool)

    models = {}
    for kind, names in (("tasks", TASK_FEATURES), ("flags", FLAG_FEATURES)):
        x, y, test = rows(kind)
        if len(y) == 0 or (~test).sum() == 0:
            raise TuneError(f"no {kind} to learn from: play more games")
        w = _logistic_fit(np, x[~test], y[~test])
        base = np.clip(y[~test].mean(), 1e-9, 1 - 1e-9)
        report[kind] = {
            "records": len(y),
            "rate": round(float(y.mean()), 4),
            "log_loss": round(_log_loss(np, w, x[test], y[test]), 4) if test.any() else None,
            "log_loss_constant": round(
                float(-np.mean(y[test] * np.log(base) + (1 - y[test]) * np.log(1 - base))), 4
            )
            if test.any()
            else None,
        }
        models[kind] = dict(zip(names, (round(float(v), 5) for v in w), strict=True))

    task_w = np.array([models["tasks"][n] for n in TASK_FEATURES])
    flag_w = np.array([models["flags"][n] for n in FLAG_FEATURES])
    x_rows, y_rows, test_rows = [], [], []
    for game, out in zip(games, held, strict=True):
        for turn in game["turns"]:
            tasks = sum(
                entry[1] / (1 + np.exp(-np.clip(np.dot(task_w, entry[2]), -30, 30)))
                for entry in turn["tasks"]
            )
            flags = sum(
                entry[1] / (1 + np.exp(-np.clip(np.dot(flag_w, entry[2]), -30, 30)))
                for entry in turn["flags"]
            )
            free = 3 - turn["active"] if turn["tasks_left"] > 0 else 0
            x_rows.append(
                [
                    1.0,
                    turn["left"],
                    free,
                    turn["stuck"],
                    turn["dead"],
                    turn["tight"],
                    turn["frontier"],
                    tasks,
                    flags,
                ]
            )
            y_rows.append(game["final"] - turn["now"])
            test_rows.append(out)
    x, y, test = np.array(x_rows, float), np.array(y_rows, float), np.array(test_rows, bool)
    coef, *_ = np.linalg.lstsq(x[~test], y[~test], rcond=None)
    residual = y[test] - x[test] @ coef if test.any() else y[:0]
    report["value"] = {
        "records": len(y),
        "residual_sd": round(float(residual.std()), 3) if test.any() else None,
        "target_sd": round(float(y[test].std()), 3) if test.any() else None,
    }
    value = dict(zip(VALUE_FEATURES, (round(float(v), 5) for v in coef[1:]), strict=True))
    return Weights(models["tasks"], models["flags"], value, dict(rollout)), report


# --- the command --------------------------------------------------------------------------------


def shipped_path() -> Path:
    """Where the planner's weights file lives in this installation."""
    return Path(str(resources.files("dorf.data").joinpath(WEIGHTS_FILE)))


def add_tune_parser(sub: argparse._SubParsersAction[Any]) -> None:
    parser = sub.add_parser(
        "tune",
        help="learn the planner's evaluation from self-play; writes its weights file",
        description="Play seeded solo cooperative games, learn the planner's evaluation from their "
        "outcomes (numpy), and write a dorf-weights/1 file.",
    )
    parser.add_argument("--seed", type=integer, default=TuneConfig.seed, help="seed of the run (default 1)")
    parser.add_argument(
        "--games", type=positive, default=TuneConfig.games, help=f"games a round (default {TuneConfig.games})"
    )
    parser.add_argument(
        "--rounds", type=positive, default=TuneConfig.rounds, help=f"rounds (default {TuneConfig.rounds})"
    )
    parser.add_argument(
        "--start", default=TuneConfig.start, metavar="SPEC", help="the first round's player (default greedy)"
    )
    parser.add_argument(
        "--futures",
        type=positive,
        default=TuneConfig.futures,
        help=f"later rounds: the planner's sampled futures a move (default {TuneConfig.futures})",
    )
    parser.add_argument("--out", default=None, metavar="FILE", help="write here (default: the shipped file)")
    parser.add_argument("--workers", type=positive, default=None, help="processes (default: CPU count)")
    parser.add_argument("--backend", choices=("local", "ray"), default="local")
    parser.add_argument("--address", default=None, metavar="ADDR", help="ray: join this cluster")


def tune_main(args: argparse.Namespace) -> int:
    try:
        return _tune(args)
    except (TuneError, WeightsError) as exc:
        print(f"dorf tune: {exc}", file=sys.stderr)
        return 2


def _tune(args: argparse.Namespace) -> int:
    config = TuneConfig(args.seed, args.games, args.rounds, args.start, args.futures)
    try:
        make_player(config.start)
    except ValueError as exc:
        raise TuneError(f"--start: {exc}") from None
    import_numpy()
    out = Path(args.out) if args.out else shipped_path()
    workers = args.workers or os.cpu_count() or 1
    started = time.perf_counter()
    if args.backend == "ray" or args.address:
        run, stop = ray_runner(workers, args.address)
    else:
        run, stop = local_runner(workers)
    rollout = {"joined_edge": 1.0, "mismatched_edge": 0.5}
    history = []
    weights: Weights | None = None
    try:
        for r in range(config.rounds):
            player: str | dict[str, Any] = config.start if weights is None else weights.as_dict()
            games = run([(player, seed, config.futures) for seed in config.seeds(r)])
            mean = sum(g["final"] for g in games) / len(games)
            weights, report = fit(games, rollout)
            who = config.start if r == 0 else f"planner:{config.futures}"
            history.append({"round": r + 1, "player": who, "mean_score": round(mean, 2), **report})
            tasks, flags, value = report["tasks"], report["flags"], report["value"]
            print(
                f"round {r + 1}/{config.rounds}: {len(games)} games of {who}, mean {mean:.1f}; "
                f"held-out log loss: tasks {tasks['log_loss']} (constant {tasks['log_loss_constant']}), "
                f"flags {flags['log_loss']} (constant {flags['log_loss_constant']}); value residual sd "
                f"{value['residual_sd']} (of {value['target_sd']}) ({time.perf_counter() - started:.0f} s)",
                flush=True,
            )
    finally:
        stop()
    assert weights is not None
    seconds = time.perf_counter() - started
    about = {
        "command": (
            f"dorf tune --seed {config.seed} --games {config.games} --rounds {config.rounds} "
            f"--start {config.start} --futures {config.futures}"
        ),
        "seconds": round(seconds),
        "rounds": history,
    }
    text = json.dumps(weights_document(weights, about), indent=1) + "\n"
    try:
        out.write_text(text, encoding="utf-8")
    except OSError as exc:
        raise TuneError(f"cannot write {out}: {exc.strerror}") from None
    print(f"wrote {out} after {seconds:.0f} s")
    return 0


__all__ = ["TuneConfig", "TuneError", "add_tune_parser", "fit", "play_for_data", "tune_main"]
