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
import random
import sys
import time
from collections.abc import Callable
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass, replace
from importlib import resources
from pathlib import Path
from typing import Any

from dorf.arguments import integer, positive
from dorf.commands.simulate import MODES, SimulateError, check_writable, import_ray, player_seed
from dorf.games.modes import MODES as GAMES
from dorf.games.state import GameState, Revealed
from dorf.players.evaluation import (
    FLAG_FEATURES,
    TASK_FEATURES,
    VALUE_FEATURES,
    Evaluator,
    Weights,
    WeightsError,
    read_weights,
    weights_document,
    weights_file,
)
from dorf.players.planner import PlannerPlayer, flags_of, position_of
from dorf.players.registry import Player, View, make_player
from dorf.rules.area import Placement, PlayArea
from dorf.rules.tasks import COMPLETED

#: Seeds of tuning games start here (plus 100,000 per --seed), away from the documented figures' seeds.
SEED_BASE = 1_000_000
#: Every fifth game is held out of the fit to measure how well the models predict.
HOLD_OUT = 5

#: One game's records: per turn the landscape and task tiles left, the score now, each open task
#: [completed, value, features], each open flag [final points, size, open edges, features] and the
#: board features; and the final score.
GameData = dict[str, Any]


class TuneError(ValueError):
    """A user error in a tuning run's set-up; one line."""


@dataclass(frozen=True)
class TuneConfig:
    """A tuning run's description."""

    seed: int = 1
    mode: str = "coop"
    games: int = 200
    rounds: int = 2
    start: str = "greedy"
    futures: int = 4
    cem_generations: int = 0
    cem_population: int = 12
    cem_elite: int = 3
    cem_games: int = 30

    def seeds(self, round_number: int) -> list[int]:
        base = SEED_BASE + 100_000 * self.seed + round_number * self.games
        return [base + i for i in range(self.games)]

    def cem_seeds(self, generation: int) -> list[int]:
        base = SEED_BASE + 100_000 * self.seed + 50_000 + generation * self.cem_games
        return [base + i for i in range(self.cem_games)]


def _chooser(player: str | dict[str, Any], seed: int, futures: int) -> Player:
    if isinstance(player, str):
        return make_player(player, seed)
    weights = Weights.from_dict(player)
    return PlannerPlayer(seed, iterations=max(futures, 1), width=1 if futures == 0 else 6, weights=weights)


def _record(evaluator: Evaluator, view: View, revealed: Revealed) -> dict[str, Any]:
    """What the evaluation sees in the seat's area, as the look-ahead's leaves see it: the tile
    just revealed (``revealed``, the seat's next) counts as still to come."""
    position = position_of(view, revealed)
    tile = revealed.tile
    left, tasks_left, supply = position.landscapes_left, position.tasks_left, dict(position.supply)
    if tile.is_task:
        tasks_left += 1
    else:
        left += 1
        for letter in set(tile.face):
            if letter in supply:
                supply[letter] += 1
    area = position.area
    terms = evaluator.terms(area, position.flags, left, tasks_left, supply, position.fits)
    return {
        "left": left,
        "tasks_left": tasks_left,
        "now": terms.now,
        "tasks": [[index, value, list(features)] for index, value, features in terms.tasks],
        "flags": [[cell, size, edges, list(features)] for cell, size, edges, features in terms.flags],
        "board": list(terms.board),
    }


def _outcomes(area: PlayArea, final: int, turns: list[dict[str, Any]], seed: int) -> GameData:
    """Label one area's records with how its game ended."""
    completed = [task.status is COMPLETED for task in area.tasks]
    points = {}
    for cell, letter in flags_of(area):
        size, open_edges = area.figures(cell, letter)
        points[cell] = size if open_edges == 0 else 0
    for turn in turns:
        for entry in turn["tasks"]:
            entry[0] = completed[entry[0]]
        for entry in turn["flags"]:
            entry[0] = points[entry[0]]
    return {"seed": seed, "final": final, "turns": turns}


def _next_tile(state: GameState, player: int) -> bool:
    """Whether ``player``'s seat has its next tile revealed."""
    return state.revealed_for(player) is not None


def _to_place(state: GameState, player: int) -> bool:
    """Whether ``player`` is to place a new tile."""
    return player in state.to_move()


#: Per game, whether a seat's placement is followed by a record: once the seat's next tile is
#: revealed (the cooperative game's table, Head to Head's own stacks at once); in the Duel the next
#: tile comes only when both have placed the one before, so only the second to place it records.
_RECORDS_AFTER: dict[str, Callable[[GameState, int], bool]] = {
    "coop": _next_tile,
    "duel": _to_place,
    "head-to-head": _next_tile,
}


def play_for_data(
    player: str | dict[str, Any], seed: int, futures: int, record: bool = True, mode: str = "coop"
) -> list[GameData]:
    """One game of ``mode`` with ``player`` (a spec, or planner weights) in every seat: per area,
    what the evaluation saw after each of its placements (unless ``record`` is false) and how the
    game ended for it."""
    evaluator = Evaluator(Weights())
    state = GAMES[mode].new(seed)
    # A solo game's player is seeded with the game's seed, each seat of the others with its own.
    seeds = [seed] if state.players == 1 else [player_seed(seed, p) for p in range(state.players)]
    choosers = [_chooser(player, s, futures) for s in seeds]
    records_after = _RECORDS_AFTER[mode]
    area_turns: list[list[dict[str, Any]]] = [[] for _ in state.areas]
    while waiting := state.to_move():
        p = waiting[0]
        choice = choosers[p].choose(state.view(p))
        state.apply(choice, p)
        if record and isinstance(choice, Placement) and records_after(state, p):
            revealed = state.revealed_for(p)
            assert revealed is not None
            area_turns[state.area_index(p)].append(_record(evaluator, state.view(p), revealed))
    return [
        _outcomes(area, pad.total, turns, seed)
        for area, pad, turns in zip(state.areas, state.scores(), area_turns, strict=True)
    ]


#: A game to play: the player (a spec, or planner weights), the seed, the planner's futures,
#: whether to record what the evaluation saw, and the mode.
Job = tuple[str | dict[str, Any], int, int, bool, str]


def _play_many(jobs: list[Job]) -> list[list[GameData]]:
    return [play_for_data(*job) for job in jobs]


Runner = Callable[[list[Job]], list[list[GameData]]]


def local_runner(workers: int) -> tuple[Runner, Callable[[], None]]:
    """Plays jobs on a process pool (in this process with one worker); results in job order."""
    if workers == 1:
        return _play_many, lambda: None
    pool = ProcessPoolExecutor(workers, mp_context=multiprocessing.get_context("spawn"))

    def run(jobs: list[Job]) -> list[list[GameData]]:
        chunks = [jobs[i::workers] for i in range(workers)]
        answers = list(pool.map(_play_many, chunks))
        out: list[list[GameData]] = [[]] * len(jobs)
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

    def run(jobs: list[Job]) -> list[list[GameData]]:
        return list(ray.get([remote.remote(*job) for job in jobs]))

    return run, ray.shutdown


# --- fitting ------------------------------------------------------------------------------


def import_numpy() -> Any:
    try:
        return importlib.import_module("numpy")
    except ImportError:
        raise TuneError(
            "dorf tune fits with numpy, which is not installed: pip install 'dorf-games[tune]'"
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
    held = [i % HOLD_OUT == HOLD_OUT - 1 for i in range(len(games))]
    report: dict[str, Any] = {}

    def rows(kind: str) -> tuple[Any, Any, Any]:
        x, y, test = [], [], []
        for game, out in zip(games, held, strict=True):
            for turn in game["turns"]:
                for entry in turn[kind]:
                    x.append(entry[-1])
                    y.append(float(entry[0] > 0))
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

    def chance(weights: Any, features: list[float]) -> float:
        return float(1 / (1 + np.exp(-np.clip(np.dot(weights, features), -30, 30))))

    # What a flag territory scores once closed: its size and open edges now (it grows before it closes).
    closed_x, closed_y = [], []
    for game, out in zip(games, held, strict=True):
        for turn in game["turns"]:
            for points, size, edges, _ in turn["flags"]:
                if points and not out:
                    closed_x.append([size, edges, 1.0])
                    closed_y.append(points)
    if not closed_y:
        raise TuneError("no closed flag territory to learn from: play more games")
    flag_points, *_ = np.linalg.lstsq(np.array(closed_x, float), np.array(closed_y, float), rcond=None)
    a, b, c = (float(v) for v in flag_points)
    x_rows, y_rows, test_rows = [], [], []
    for game, out in zip(games, held, strict=True):
        for turn in game["turns"]:
            tasks = sum(entry[1] * chance(task_w, entry[2]) for entry in turn["tasks"])
            flags = sum(
                (a * size + b * edges + c) * chance(flag_w, features)
                for _, size, edges, features in turn["flags"]
            )
            x_rows.append([1.0, *turn["board"], tasks])
            # The flags' expected points stand as they are: what is left is the rest of the game.
            y_rows.append(game["final"] - turn["now"] - flags)
            test_rows.append(out)
    x, y, test = np.array(x_rows, float), np.array(y_rows, float), np.array(test_rows, bool)
    coef, *_ = np.linalg.lstsq(x[~test], y[~test], rcond=None)
    residual = y[test] - x[test] @ coef if test.any() else y[:0]
    report["value"] = {
        "records": len(y),
        "residual_sd": round(float(residual.std()), 3) if test.any() else None,
        "target_sd": round(float(y[test].std()), 3) if test.any() else None,
    }
    value = dict(zip(VALUE_FEATURES[:-1], (round(float(v), 5) for v in coef[1:]), strict=True))
    value["flags"] = 1.0
    points = {"size": round(a, 5), "open_edges": round(b, 5), "bias": round(c, 5)}
    return Weights(models["tasks"], models["flags"], value, dict(rollout), points), report


# --- the cross-entropy stage --------------------------------------------------------------------

#: The value weights the cross-entropy stage tunes by play (the fit sets the rest).
CEM_WEIGHTS = (
    "free_slots",
    "stuck_tasks",
    "tight_cells",
    "frontier",
    "river_ends",
    "track_ends",
    "tasks",
    "flags",
)


def _with_values(weights: Weights, values: dict[str, float]) -> Weights:
    return replace(weights, value={**weights.value, **values})


def cross_entropy(
    config: TuneConfig, start: Weights, run: Runner, report: Callable[[dict[str, Any]], None]
) -> tuple[Weights, list[dict[str, Any]]]:
    """Tune :data:`CEM_WEIGHTS` by the mean score of the planner one placement ahead: each
    generation draws weight sets around the mean (the mean itself among them), plays each on the
    same seeded games, and moves the mean and spread to the best ``cem_elite`` sets."""
    rng = random.Random(f"dorf-tune-cem/{config.seed}")
    mean = {name: start.value[name] for name in CEM_WEIGHTS}
    spread = {name: max(0.5, 0.3 * abs(value)) for name, value in mean.items()}
    history = []
    for g in range(config.cem_generations):
        population = [dict(mean)] + [
            {name: round(rng.gauss(mean[name], spread[name]), 4) for name in CEM_WEIGHTS}
            for _ in range(config.cem_population - 1)
        ]
        seeds = config.cem_seeds(g)
        jobs: list[Job] = [
            (_with_values(start, member).as_dict(), seed, 0, False, config.mode)
            for member in population
            for seed in seeds
        ]
        finals = [sum(area["final"] for area in game) / len(game) for game in run(jobs)]
        means = [
            sum(finals[i * len(seeds) : (i + 1) * len(seeds)]) / len(seeds) for i in range(len(population))
        ]
        order = sorted(range(len(population)), key=lambda i: -means[i])
        elite = [population[i] for i in order[: config.cem_elite]]
        for name in CEM_WEIGHTS:
            values = [member[name] for member in elite]
            centre = sum(values) / len(values)
            mean[name] = round(centre, 4)
            spread[name] = max(0.05, (sum((v - centre) ** 2 for v in values) / len(values)) ** 0.5)
        entry = {
            "generation": g + 1,
            "mean_of_start": round(means[0], 2),
            "best": round(means[order[0]], 2),
            "elite": round(sum(means[i] for i in order[: config.cem_elite]) / config.cem_elite, 2),
        }
        history.append(entry)
        report(entry)
    return _with_values(start, mean), history


# --- the command --------------------------------------------------------------------------------


def shipped_path(mode: str) -> Path:
    """Where the planner's weights file for ``mode`` lives in this installation."""
    return Path(str(resources.files("dorf.data").joinpath(weights_file(mode))))


def add_tune_parser(sub: argparse._SubParsersAction[Any]) -> None:
    parser = sub.add_parser(
        "tune",
        help="learn the planner's evaluation from self-play; writes its weights file",
        description="Play seeded solo cooperative games, learn the planner's evaluation from their "
        "outcomes (numpy), and write a dorf-weights/1 file.",
    )
    parser.add_argument("--seed", type=integer, default=TuneConfig.seed, help="seed of the run (default 1)")
    parser.add_argument(
        "--mode",
        choices=MODES,
        default="coop",
        help="the game whose weights to learn (default coop); each mode has its own weights file",
    )
    parser.add_argument(
        "--games", type=positive, default=TuneConfig.games, help=f"games a round (default {TuneConfig.games})"
    )
    parser.add_argument(
        "--rounds",
        type=integer,
        default=TuneConfig.rounds,
        help=f"rounds of play and fit (default {TuneConfig.rounds}; 0 with --start FILE.json: no fit)",
    )
    parser.add_argument(
        "--start",
        default=TuneConfig.start,
        metavar="SPEC",
        help="the first round's player: a spec, or a weights file for the planner (default greedy)",
    )
    parser.add_argument(
        "--futures",
        type=integer,
        default=TuneConfig.futures,
        help="later rounds: the planner's sampled futures a move, 0 for one placement ahead "
        f"(default {TuneConfig.futures})",
    )
    parser.add_argument(
        "--cem-generations",
        type=integer,
        default=TuneConfig.cem_generations,
        help="then tune the value weights by play, cross-entropy method (default 0: no)",
    )
    parser.add_argument("--cem-population", type=positive, default=TuneConfig.cem_population)
    parser.add_argument("--cem-elite", type=positive, default=TuneConfig.cem_elite)
    parser.add_argument("--cem-games", type=positive, default=TuneConfig.cem_games, help="games a weight set")
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
    config = TuneConfig(
        args.seed,
        args.mode,
        args.games,
        args.rounds,
        args.start,
        args.futures,
        args.cem_generations,
        args.cem_population,
        args.cem_elite,
        args.cem_games,
    )
    if config.futures < 0:
        raise TuneError("--futures must be 0 (one placement ahead) or more")
    if config.rounds < 0 or (config.rounds == 0 and not config.start.endswith(".json")):
        raise TuneError("--rounds must be at least 1 (0 only when --start is a weights file)")
    if config.cem_generations < 0 or config.cem_elite > config.cem_population:
        raise TuneError("--cem-generations must be 0 or more and --cem-elite at most --cem-population")
    weights: Weights | None = None
    if config.start.endswith(".json"):
        try:
            weights = read_weights(Path(config.start).read_text(encoding="utf-8"))
        except OSError as exc:
            raise TuneError(f"--start: cannot read {config.start}: {exc.strerror}") from None
    else:
        try:
            make_player(config.start)
        except ValueError as exc:
            raise TuneError(f"--start: {exc}") from None
    import_numpy()
    out = Path(args.out) if args.out else shipped_path(config.mode)
    try:
        check_writable(str(out))
    except SimulateError as exc:
        raise TuneError(str(exc)) from None
    workers = args.workers or os.cpu_count() or 1
    started = time.perf_counter()
    if args.backend == "ray" or args.address:
        run, stop = ray_runner(workers, args.address)
    else:
        run, stop = local_runner(workers)
    rollout = {"joined_edge": 1.0, "mismatched_edge": 0.5}
    history = []
    try:
        for r in range(config.rounds):
            player: str | dict[str, Any] = config.start if weights is None else weights.as_dict()
            played = run([(player, seed, config.futures, True, config.mode) for seed in config.seeds(r)])
            games = [area for game in played for area in game]
            mean = sum(g["final"] for g in games) / len(games)
            weights, report = fit(games, rollout)
            planner = "planner, one ply" if config.futures == 0 else f"planner:{config.futures}"
            who = planner if isinstance(player, dict) else config.start
            history.append({"round": r + 1, "player": who, "mean_score": round(mean, 2), **report})
            tasks, flags, value = report["tasks"], report["flags"], report["value"]
            print(
                f"round {r + 1}/{config.rounds}: {len(games)} games of {who}, mean {mean:.1f}; "
                f"held-out log loss: tasks {tasks['log_loss']} (constant {tasks['log_loss_constant']}), "
                f"flags {flags['log_loss']} (constant {flags['log_loss_constant']}); value residual sd "
                f"{value['residual_sd']} (of {value['target_sd']}) ({time.perf_counter() - started:.0f} s)",
                flush=True,
            )
        assert weights is not None
        cem: list[dict[str, Any]] = []
        if config.cem_generations:

            def said(entry: dict[str, Any]) -> None:
                print(
                    f"cross-entropy generation {entry['generation']}/{config.cem_generations}: "
                    f"mean weights {entry['mean_of_start']}, best {entry['best']}, elite {entry['elite']} "
                    f"({time.perf_counter() - started:.0f} s)",
                    flush=True,
                )

            weights, cem = cross_entropy(config, weights, run, said)
    finally:
        stop()
    seconds = time.perf_counter() - started
    command = (
        f"dorf tune --mode {config.mode} --seed {config.seed} --games {config.games} "
        f"--rounds {config.rounds} --start {config.start} --futures {config.futures}"
    )
    if config.cem_generations:
        command += (
            f" --cem-generations {config.cem_generations} --cem-population {config.cem_population} "
            f"--cem-elite {config.cem_elite} --cem-games {config.cem_games}"
        )
    about = {"command": command, "seconds": round(seconds), "rounds": history, "cross_entropy": cem}
    text = json.dumps(weights_document(weights, about), indent=1) + "\n"
    try:
        out.write_text(text, encoding="utf-8")
    except OSError as exc:
        raise TuneError(f"cannot write {out}: {exc.strerror}") from None
    print(f"wrote {out} after {seconds:.0f} s")
    return 0


__all__ = ["TuneConfig", "TuneError", "add_tune_parser", "fit", "play_for_data", "tune_main"]
