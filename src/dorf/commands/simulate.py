"""``dorf simulate``: many seeded games between computer players, in parallel, with statistics.

Game ``i`` of a run with ``--seed S`` is dealt from seed ``S + i``; each seat's
player gets its own seed derived from the game's seed and the seat
(:func:`player_seed`), so a game's result depends only on the mode, the
players and its seed: never on the backend, the number of workers or the
order in which the games finish.  Results are put back in game order.

Backends: ``local`` (a process pool, one process per worker; one worker plays
in this process) and ``ray`` (the same function as Ray tasks, on a local Ray
instance with ``workers`` CPUs or on a cluster joined with ``address``; Ray
is an optional dependency).

Each game gives one JSON object (:func:`play_game`): its index, seed, mode,
the player of each seat, the placements each made, the score pad (as in game
records: one pad for the cooperative game, a list of two in the two-player
modes, without the task list), the winner (0, 1, or None for a shared
victory) in the two-player modes, and the seconds it took (the one field that
differs between two runs).

>>> line = play_game(GameJob(index=0, seed=3, mode="coop", seats=("greedy",)))
>>> sorted(line)
['game', 'mode', 'moves', 'players', 'score', 'seconds', 'seed']
>>> line["score"]["total"] == play_game(GameJob(0, 3, "coop", ("greedy",)))["score"]["total"]
True
"""

from __future__ import annotations

import argparse
import importlib
import json
import math
import multiprocessing
import os
import random
import signal
import socket
import sys
import time
from collections.abc import Callable, Sequence
from concurrent.futures import FIRST_COMPLETED, Future, ProcessPoolExecutor, wait
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Any, TextIO

from dorf.arguments import integer, positive
from dorf.bots.player import BotPlayer, check_spec, make_any_player
from dorf.bots.process import exit_now
from dorf.bots.protocol import DEFAULT_SECONDS, bot_seconds
from dorf.games.coop import MAX_PLAYERS, CoopState
from dorf.games.duel import DuelState
from dorf.games.headtohead import HeadToHeadState
from dorf.games.modes import MODES as GAMES
from dorf.players import Player
from dorf.rules.area import Placement

MODES = tuple(GAMES)
BACKENDS = ("local", "ray")
#: z for a two-sided 95% interval.
Z95 = 1.959963984540054
#: The percentiles the summary shows.
PERCENTILES = (10, 50, 90)
#: Ray tasks in flight per CPU of the cluster (enough to keep every CPU busy).
RAY_TASKS_PER_CPU = 4

GameResult = dict[str, Any]


class SimulateError(ValueError):
    """A user error in a simulation's set-up; the message is one line."""


def two_seats(mode: str) -> bool:
    """Whether ``mode`` is played by two seats against each other (the Duel, Head to Head), the
    second for ``--opponent``; the cooperative game's seats are one team, ``--players`` of them."""
    return GAMES[mode].players == (2, 2)


def per_seat(result: GameResult) -> bool:
    """Whether a game's result has a score pad per seat (a two-player game), not the team's one."""
    return isinstance(result["score"], list)


@dataclass(frozen=True)
class GameJob:
    """One game to play: its index in the run, its seed, its mode and one player spec per seat."""

    index: int
    seed: int
    mode: str
    seats: tuple[str, ...]
    #: In a run with alternating seats: whether ``--opponent`` sits in seat 1 in this game.
    swapped: bool | None = None
    #: The clock of each decision of a program (a ``cmd:`` player), in seconds.
    bot_seconds: float = DEFAULT_SECONDS


@dataclass(frozen=True)
class Simulation:
    """A run's description: ``games`` games of ``mode`` from seeds ``seed, seed + 1, ...``.

    ``player`` sits in seat 1 (every seat of a cooperative game); ``opponent``
    in seat 2 of the two-player modes (default: the same as ``player``);
    ``players`` is the number of hot-seat players of a cooperative game;
    ``alternate`` swaps the two seats in every other game (the odd-numbered
    ones), so that each player moves first in half of the games.
    """

    mode: str
    player: str
    opponent: str | None = None
    games: int = 100
    seed: int = 1
    players: int = 1
    alternate: bool = False
    bot_seconds: float = DEFAULT_SECONDS

    def check(self) -> None:
        """Raise :class:`SimulateError` for a description that cannot run."""
        if self.mode not in MODES:
            raise SimulateError(f"unknown mode {self.mode!r}: choose from {', '.join(MODES)}")
        for spec in (self.player, self.opponent):
            if spec is not None:
                try:
                    check_spec(spec)
                except ValueError as exc:
                    raise SimulateError(str(exc)) from None
        if self.games < 1:
            raise SimulateError(f"--games must be at least 1, not {self.games}")
        if not two_seats(self.mode):
            if self.opponent is not None:
                raise SimulateError("the cooperative game has no opponent: use --players K for hot-seat")
            if not 1 <= self.players <= MAX_PLAYERS:
                raise SimulateError(f"the cooperative game is for 1 to {MAX_PLAYERS} players")
        elif self.players != 1:
            raise SimulateError(f"--players is for the cooperative game; {self.mode} has two seats")
        if self.alternate and not two_seats(self.mode):
            raise SimulateError("--alternate is for the two-player modes")

    @property
    def seats(self) -> tuple[str, ...]:
        """The player spec of each seat."""
        if two_seats(self.mode):
            return (self.player, self.opponent or self.player)
        return (self.player,) * self.players

    def jobs(self) -> list[GameJob]:
        clock = self.bot_seconds
        if not self.alternate:
            return [
                GameJob(i, self.seed + i, self.mode, self.seats, bot_seconds=clock) for i in range(self.games)
            ]
        first, second = self.seats
        return [
            GameJob(
                i,
                self.seed + i,
                self.mode,
                (second, first) if i % 2 else (first, second),
                i % 2 == 1,
                bot_seconds=clock,
            )
            for i in range(self.games)
        ]


def player_seed(game_seed: int, seat: int) -> int:
    """The seed of seat ``seat``'s player in the game dealt from ``game_seed`` (same everywhere:
    a string seed is hashed with SHA-512, not Python's salted hash).

    >>> player_seed(1, 0) == player_seed(1, 0) != player_seed(1, 1)
    True
    """
    return random.Random(f"dorf-simulate/{game_seed}/{seat}").getrandbits(32)


def _pad(pad_json: dict[str, Any]) -> dict[str, Any]:
    return {key: value for key, value in pad_json.items() if key != "task_list"}


def play_game(job: GameJob) -> GameResult:
    """Play one game to its end and return its JSON line as a dict (see the module's documentation)."""
    started = time.perf_counter()
    players = [
        make_any_player(spec, player_seed(job.seed, seat), job.bot_seconds)
        for seat, spec in enumerate(job.seats)
    ]
    bots = [(seat, player) for seat, player in enumerate(players) if isinstance(player, BotPlayer)]
    try:
        result = _play(job, players, bots)
    finally:
        for _, bot in bots:
            bot.close()
    if bots:
        result["lost"] = [bot.lost if isinstance(bot, BotPlayer) else 0 for bot in players]
    result["seconds"] = round(time.perf_counter() - started, 3)
    return result


def _play(job: GameJob, players: list[Player], bots: list[tuple[int, BotPlayer]]) -> GameResult:
    result: GameResult = {
        "game": job.index,
        "seed": job.seed,
        "mode": job.mode,
        "players": list(job.seats),
    }
    if job.swapped is not None:
        result["swapped"] = job.swapped
    state = GAMES[job.mode].new(job.seed, len(players))
    # The programs' mirror of the game rebuilds it from its seed, which the state's interface
    # does not give: it takes the games' own states.
    assert isinstance(state, CoopState | DuelState | HeadToHeadState)
    for seat, bot in bots:
        bot.attach(state, seat)
    moves = [0] * state.players
    while waiting := state.to_move():
        p = waiting[0]
        choice = players[p].choose(state.view(p))
        state.apply(choice, p)
        if isinstance(choice, Placement):
            moves[p] += 1
    pads = state.scores()
    if len(pads) == 1:  # one area for everyone: the team's placements and score pad
        result["moves"] = sum(moves)
        result["score"] = _pad(pads[0].as_json())
    else:
        result["moves"] = moves
        result["score"] = [_pad(pad.as_json()) for pad in pads]
        first, second = state.returns()
        result["winner"] = None if first == second else 0 if first > second else 1
    return result


# --- running many games ---------------------------------------------------------------


def _ignore_sigint() -> None:
    """Workers leave Ctrl-C to the parent, which cancels what has not started; terminated by it,
    they kill the programs (``cmd:`` players) they run and exit at once."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.signal(signal.SIGTERM, _terminated)


def _terminated(signum: int, frame: object) -> None:
    exit_now(128 + signum)


def _run_local(jobs: list[GameJob], workers: int, done: Callable[[GameResult], None]) -> None:
    if workers == 1 or len(jobs) == 1:
        for job in jobs:
            done(play_game(job))
        return
    context = multiprocessing.get_context("spawn")  # the same everywhere; never forks a threaded parent
    pool = ProcessPoolExecutor(min(workers, len(jobs)), mp_context=context, initializer=_ignore_sigint)
    try:
        pending: set[Future[GameResult]] = {pool.submit(play_game, job) for job in jobs}
        while pending:
            finished, pending = wait(pending, return_when=FIRST_COMPLETED)
            for future in finished:
                done(future.result())
    except KeyboardInterrupt:
        processes: dict[int, Any] = getattr(pool, "_processes", None) or {}
        for process in list(processes.values()):
            process.terminate()  # the games under way would otherwise run to their end
        raise
    finally:
        pool.shutdown(wait=True, cancel_futures=True)


def import_ray() -> Any:
    """The ``ray`` module, or :class:`SimulateError` with how to install it."""
    try:
        return importlib.import_module("ray")
    except ImportError:
        raise SimulateError(
            "the ray backend needs Ray, which is not installed: pip install 'dorf-games[ray]'"
        ) from None


def _check_reachable(address: str, timeout: float = 5.0) -> None:
    """Fail fast when ``host:port`` does not answer: Ray itself retries for minutes."""
    host, _, port = address.removeprefix("ray://").rpartition(":")
    if not host or not port.isdigit():
        return  # "auto" or a form Ray resolves itself
    try:
        socket.create_connection((host.strip("[]"), int(port)), timeout=timeout).close()
    except OSError as exc:
        raise SimulateError(f"the Ray cluster at {address} does not answer ({exc.strerror or exc})") from None


def _run_ray(
    jobs: list[GameJob], workers: int, address: str | None, done: Callable[[GameResult], None]
) -> None:
    ray = import_ray()
    started_here = not ray.is_initialized()
    if started_here:
        options: dict[str, Any] = {
            "include_dashboard": False,
            "log_to_driver": False,
            "logging_level": "ERROR",
        }
        if address:
            _check_reachable(address)
        try:
            if address:
                ray.init(address=address, **options)
            else:
                ray.init(address="local", num_cpus=workers, **options)  # never a running cluster
        except (ConnectionError, RuntimeError, ValueError) as exc:
            first = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
            if address:
                raise SimulateError(
                    f"cannot join the Ray cluster at {address}: {first} (a cluster with token "
                    "authentication needs RAY_AUTH_MODE=token and its token)"
                ) from None
            raise SimulateError(f"cannot start a local Ray instance: {first}") from None
    try:
        remote = ray.remote(num_cpus=1)(play_game)
        window = max(2, int(ray.cluster_resources().get("CPU", workers)) * RAY_TASKS_PER_CPU)
        queue = list(reversed(jobs))
        pending: list[Any] = []
        while queue or pending:
            while queue and len(pending) < window:
                pending.append(remote.remote(queue.pop()))
            finished, pending = ray.wait(pending, num_returns=1)
            for ref in finished:
                done(ray.get(ref))
    finally:
        if started_here:
            ray.shutdown()


def run_games(
    jobs: list[GameJob],
    *,
    workers: int = 1,
    backend: str = "local",
    address: str | None = None,
    on_result: Callable[[GameResult], None] | None = None,
) -> list[GameResult]:
    """Play ``jobs`` on a backend; return the results in game order.  ``on_result`` sees each
    result as it arrives (in the order games finish)."""
    if workers < 1:
        raise SimulateError(f"--workers must be at least 1, not {workers}")
    if backend not in BACKENDS:
        raise SimulateError(f"unknown backend {backend!r}: choose from {', '.join(BACKENDS)}")
    results: list[GameResult] = []

    def done(result: GameResult) -> None:
        results.append(result)
        if on_result is not None:
            on_result(result)

    if backend == "ray":
        _run_ray(jobs, workers, address, done)
    else:
        if address:
            raise SimulateError("--address is for the ray backend")
        _run_local(jobs, workers, done)
    results.sort(key=lambda r: int(r["game"]))
    return results


class InOrderWriter:
    """Writes results as JSON lines in game order while they arrive in any order."""

    def __init__(self, stream: IO[str], first: int = 0) -> None:
        self.stream = stream
        self.next = first
        self.waiting: dict[int, GameResult] = {}

    def __call__(self, result: GameResult) -> None:
        self.waiting[int(result["game"])] = result
        while self.next in self.waiting:
            self.stream.write(json.dumps(self.waiting.pop(self.next)) + "\n")
            self.next += 1
        self.stream.flush()


class Progress:
    """A one-line progress bar on a terminal (``\\r`` updates); silent when not enabled."""

    WIDTH = 30

    def __init__(self, total: int, stream: TextIO, enabled: bool) -> None:
        self.total = total
        self.stream = stream
        self.enabled = enabled
        self.count = 0
        self.started = time.perf_counter()
        self.shown = 0.0

    def step(self, _result: object = None) -> None:
        self.count += 1
        now = time.perf_counter()
        if self.enabled and (now - self.shown >= 0.1 or self.count == self.total):
            self.shown = now
            elapsed = now - self.started
            filled = self.WIDTH * self.count // self.total
            bar = "#" * filled + "." * (self.WIDTH - filled)
            eta = elapsed / self.count * (self.total - self.count)
            self.stream.write(f"\r[{bar}] {self.count}/{self.total} games  {elapsed:.1f} s  eta {eta:.0f} s ")
            self.stream.flush()

    def close(self) -> None:
        if self.enabled:
            self.stream.write("\r" + " " * (self.WIDTH + 50) + "\r")
            self.stream.flush()


# --- statistics -----------------------------------------------------------------------


def percentile(values: Sequence[float], q: float) -> float:
    """The ``q``-th percentile (0 to 100) by linear interpolation between order statistics.

    >>> percentile([1, 2, 3, 4], 50), percentile([7], 90), percentile([0, 10], 10)
    (2.5, 7.0, 1.0)
    """
    ordered = sorted(values)
    if not ordered:
        raise ValueError("no values")
    position = (len(ordered) - 1) * q / 100
    low = math.floor(position)
    high = min(low + 1, len(ordered) - 1)
    return float(ordered[low] + (ordered[high] - ordered[low]) * (position - low))


def wilson(successes: int, trials: int, z: float = Z95) -> tuple[float, float]:
    """The Wilson score interval of a proportion (95% by default).

    >>> [round(x, 3) for x in wilson(5, 10)]
    [0.237, 0.763]
    >>> wilson(0, 20)[0], round(wilson(0, 20)[1], 3)
    (0.0, 0.161)
    """
    if trials < 1:
        return 0.0, 1.0
    p = successes / trials
    scale = 1 + z * z / trials
    centre = (p + z * z / (2 * trials)) / scale
    half = z * math.sqrt(p * (1 - p) / trials + z * z / (4 * trials * trials)) / scale
    return max(0.0, centre - half), min(1.0, centre + half)


def categories(pad: dict[str, Any]) -> dict[str, float]:
    """A pad's figures flattened to ``name: value`` (``tasks.forest``, ``total``...), total first.

    >>> categories({"tasks": {"forest": 4}, "longest_river": 2, "total": 6})
    {'total': 6, 'tasks.forest': 4, 'longest_river': 2}
    """
    out: dict[str, float] = {"total": pad["total"]}
    for key, value in pad.items():
        if isinstance(value, dict):
            for name, number in value.items():
                out[f"{key}.{name}"] = number
        elif key != "total" and isinstance(value, int | float):
            out[key] = value
    return out


@dataclass(frozen=True)
class Stats:
    """Mean, sample standard deviation, percentiles, minimum and maximum of one category."""

    mean: float
    sd: float
    percentiles: tuple[float, ...]
    low: float
    high: float

    @classmethod
    def of(cls, values: Sequence[float]) -> Stats:
        n = len(values)
        mean = sum(values) / n
        sd = math.sqrt(sum((v - mean) ** 2 for v in values) / (n - 1)) if n > 1 else 0.0
        return cls(mean, sd, tuple(percentile(values, q) for q in PERCENTILES), min(values), max(values))

    def as_json(self) -> dict[str, float]:
        out = {"mean": round(self.mean, 3), "sd": round(self.sd, 3)}
        out.update({f"p{q}": round(v, 3) for q, v in zip(PERCENTILES, self.percentiles, strict=True)})
        out.update({"min": self.low, "max": self.high})
        return out


def seat_values(results: Sequence[GameResult], seat: int | None = None) -> dict[str, list[float]]:
    """Every category's values over the games: of the shared pad (``seat`` None) or a seat's pad."""
    values: dict[str, list[float]] = {}
    for result in results:
        pad = result["score"] if seat is None else result["score"][seat]
        for name, value in categories(pad).items():
            values.setdefault(name, []).append(value)
    return values


def summarise(results: Sequence[GameResult]) -> dict[str, Any]:
    """The figures of the summary table, as JSON: per seat (or for the team) the statistics
    of each category; in the two-player modes also the margin (seat 1's total minus seat 2's)
    and the outcomes, each with its Wilson 95% interval."""
    if not results:
        raise ValueError("no results to summarise")
    games = len(results)
    mode = results[0]["mode"]
    out: dict[str, Any] = {"mode": mode, "games": games, "players": results[0]["players"]}
    if not per_seat(results[0]):
        out["team"] = {name: Stats.of(v).as_json() for name, v in seat_values(results).items()}
        moves = sum(result["moves"] for result in results)
        out["seconds_a_move"] = round(sum(result["seconds"] for result in results) / max(moves, 1), 5)
        return out
    out["seats"] = [
        {name: Stats.of(v).as_json() for name, v in seat_values(results, seat).items()} for seat in (0, 1)
    ]
    margins = [r["score"][0]["total"] - r["score"][1]["total"] for r in results]
    out["margin"] = Stats.of(margins).as_json()
    out["outcomes"] = _outcomes([r["winner"] for r in results])
    if any("swapped" in r for r in results):
        # Seats alternate: the same figures by who played, whichever seat they had.
        first = next(r for r in results if not r.get("swapped"))["players"]
        out["roles"] = list(first)
        flipped = [r.get("swapped", False) for r in results]
        out["by_role"] = [
            {name: Stats.of(v).as_json() for name, v in _role_values(results, role, flipped).items()}
            for role in (0, 1)
        ]
        role_margins = [-m if f else m for m, f in zip(margins, flipped, strict=True)]
        out["role_margin"] = Stats.of(role_margins).as_json()
        out["role_outcomes"] = _outcomes(
            [None if r["winner"] is None else r["winner"] ^ f for r, f in zip(results, flipped, strict=True)]
        )
    return out


def _outcomes(winners: Sequence[int | None]) -> dict[str, Any]:
    """Wins of player 1, of player 2 and shared victories, each with its Wilson 95% interval."""
    games = len(winners)
    outcomes = {}
    for key, winner in (("player 1", 0), ("player 2", 1), ("shared", None)):
        count = sum(1 for w in winners if w == winner)
        low, high = wilson(count, games)
        outcomes[key] = {
            "count": count,
            "rate": round(count / games, 4),
            "ci95": [round(low, 4), round(high, 4)],
        }
    return outcomes


def _role_values(results: Sequence[GameResult], role: int, flipped: list[bool]) -> dict[str, list[float]]:
    """Every category's values over the games for the player of ``role`` (0: --player), whatever
    seat they had."""
    values: dict[str, list[float]] = {}
    for result, swapped in zip(results, flipped, strict=True):
        pad = result["score"][role ^ swapped]
        for name, value in categories(pad).items():
            values.setdefault(name, []).append(value)
    return values


def _table(stats: dict[str, dict[str, float]], indent: str = "  ") -> list[str]:
    columns = ["mean", "sd", *(f"p{q}" for q in PERCENTILES), "min", "max"]
    width = max(18, *(len(name) + 2 for name in stats))
    lines = [indent + "category".ljust(width) + "".join(f"{c:>8}" for c in columns)]
    for name, figures in stats.items():
        cells = "".join(
            f"{figures[c]:>8.0f}" if c in ("min", "max") else f"{figures[c]:>8.1f}" for c in columns
        )
        lines.append(indent + name.ljust(width) + cells)
    return lines


def summary_lines(summary: dict[str, Any], header: str | None = None) -> list[str]:
    """The summary table as text lines."""
    lines = [header] if header else []
    players = summary["players"]
    if "team" in summary:
        who = players[0] if len(players) == 1 else f"{len(players)} x {players[0]} (hot-seat)"
        lines.append(f"team: {who}")
        lines.extend(_table(summary["team"]))
        if "seconds_a_move" in summary:
            lines.append(
                f"time a move: {summary['seconds_a_move'] * 1000:.1f} ms (the games' seconds / their moves)"
            )
        return lines
    games = summary["games"]
    if "roles" in summary:
        roles = summary["roles"]
        for role, stats in enumerate(summary["by_role"]):
            lines.append(f"{roles[role]} ({'--player' if role == 0 else '--opponent'}, seats alternating)")
            lines.extend(_table(stats))
        lines.append(f"margin ({roles[0]} total - {roles[1]} total)")
        lines.extend(_table({"margin": summary["role_margin"]}))
        lines.append("outcomes (Wilson 95% interval; seats alternate, each moves first in half the games)")
        names = {"player 1": f"{roles[0]} wins", "player 2": f"{roles[1]} wins"}
        lines.extend(_outcome_lines(summary["role_outcomes"], names, games))
        lines.append("outcomes by seat")
        lines.extend(
            _outcome_lines(summary["outcomes"], {"player 1": "seat 1 wins", "player 2": "seat 2 wins"}, games)
        )
        return lines
    for seat, stats in enumerate(summary["seats"]):
        lines.append(f"player {seat + 1}: {players[seat]}")
        lines.extend(_table(stats))
    lines.append("margin (player 1 total - player 2 total)")
    lines.extend(_table({"margin": summary["margin"]}))
    lines.append("outcomes (Wilson 95% interval)")
    names = {"player 1": f"player 1 wins ({players[0]})", "player 2": f"player 2 wins ({players[1]})"}
    lines.extend(_outcome_lines(summary["outcomes"], names, games))
    return lines


def _outcome_lines(outcomes: dict[str, Any], names: dict[str, str], games: int) -> list[str]:
    lines = []
    for key, figures in outcomes.items():
        low, high = figures["ci95"]
        label = names.get(key, "shared victory")
        lines.append(
            f"  {label:<30}{figures['count']:>6}/{games:<6}{100 * figures['rate']:>6.1f}%"
            f"   [{100 * low:.1f}%, {100 * high:.1f}%]"
        )
    return lines


# --- the plot -------------------------------------------------------------------------


def import_pyplot() -> Any:
    """``matplotlib.pyplot`` on the Agg backend, or :class:`SimulateError` with how to install it."""
    try:
        matplotlib = importlib.import_module("matplotlib")
    except ImportError:
        raise SimulateError(
            "--plot needs matplotlib, which is not installed: pip install 'dorf-games[plot]'"
        ) from None
    matplotlib.use("Agg")
    return importlib.import_module("matplotlib.pyplot")


def write_plot(path: str | Path, results: Sequence[GameResult]) -> None:
    """A PNG of the score distributions: the totals' histogram, every category's box plot,
    and in the two-player modes the outcomes with their 95% intervals."""
    plt = import_pyplot()
    mode = results[0]["mode"]
    players = results[0]["players"]
    two = per_seat(results[0])
    seats: list[tuple[str, dict[str, list[float]]]]
    if two:
        seats = [(f"player {s + 1} ({players[s]})", seat_values(results, s)) for s in (0, 1)]
    else:
        seats = [(f"team ({players[0]})", seat_values(results))]
    panels = 3 if two else 2
    fig, axes = plt.subplots(1, panels, figsize=(6 * panels, 4.8), squeeze=False)
    axes = axes[0]
    totals = [values["total"] for _, values in seats]
    low, high = min(min(t) for t in totals), max(max(t) for t in totals)
    bins = [low + i for i in range(int(high - low) + 2)] if high - low <= 60 else 30
    axes[0].hist(totals, bins=bins, label=[name for name, _ in seats], histtype="stepfilled", alpha=0.55)
    axes[0].set_title(f"{mode}: total score over {len(results)} games")
    axes[0].set_xlabel("total")
    axes[0].set_ylabel("games")
    axes[0].yaxis.set_major_locator(importlib.import_module("matplotlib.ticker").MaxNLocator(integer=True))
    axes[0].legend()
    names = [n for n in seats[0][1] if n != "total"]
    width = 0.8 / len(seats)
    for s, (label, values) in enumerate(seats):
        positions = [i + (s - (len(seats) - 1) / 2) * width for i in range(len(names))]
        box = axes[1].boxplot(
            [values[n] for n in names], positions=positions, widths=width * 0.9, patch_artist=True
        )
        colour = f"C{s}"
        for patch in box["boxes"]:
            patch.set_facecolor(colour)
            patch.set_alpha(0.6)
        axes[1].plot([], [], color=colour, linewidth=6, alpha=0.6, label=label)
    axes[1].set_xticks(range(len(names)))
    axes[1].set_xticklabels(names, rotation=60, ha="right", fontsize=8)
    axes[1].set_title("points by category")
    axes[1].legend(fontsize=8)
    if two:
        summary = summarise(results)["outcomes"]
        keys = list(summary)
        rates = [100 * summary[k]["rate"] for k in keys]
        errors = [
            [rate - 100 * summary[k]["ci95"][0] for k, rate in zip(keys, rates, strict=True)],
            [100 * summary[k]["ci95"][1] - rate for k, rate in zip(keys, rates, strict=True)],
        ]
        axes[2].bar(keys, rates, yerr=errors, capsize=6, color=["C0", "C1", "C2"])
        axes[2].set_ylim(0, 100)
        axes[2].set_ylabel("% of games")
        axes[2].set_title("outcomes (Wilson 95% interval)")
    fig.tight_layout()
    try:
        fig.savefig(str(path), format="png", dpi=100)
    except OSError as exc:
        raise SimulateError(f"cannot write {path}: {exc.strerror or exc}") from None
    finally:
        plt.close(fig)


# --- the command ----------------------------------------------------------------------


def _player_spec(text: str) -> str:
    try:
        check_spec(text)
    except ValueError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None
    return text


def add_simulate_parser(sub: argparse._SubParsersAction[Any]) -> None:
    """Register ``dorf simulate`` with its arguments."""
    parser = sub.add_parser(
        "simulate",
        help="play many seeded games between computer players; statistics and JSON lines",
        description="Play seeded games between computer players in parallel; print a summary table.",
    )
    parser.add_argument("--mode", choices=MODES, default="coop", help="which game (default coop)")
    parser.add_argument(
        "--player",
        metavar="P",
        type=_player_spec,
        default="greedy",
        help="random, greedy, search, search:40 (futures a decision), search:2s, a level (easy ... expert), "
        "or a program: cmd:COMMAND (docs/bots.md); seat 1 (default greedy)",
    )
    parser.add_argument(
        "--opponent",
        metavar="Q",
        type=_player_spec,
        default=None,
        help="seat 2 of duel and head-to-head (default: --player); a player as --player names them",
    )
    parser.add_argument(
        "--bot-seconds",
        metavar="S",
        type=bot_seconds,
        default=DEFAULT_SECONDS,
        help=f"a program's clock for each decision (cmd: players; default {DEFAULT_SECONDS:g}): "
        "a late answer loses the decision, the first legal move is played",
    )
    parser.add_argument(
        "--players", metavar="K", type=positive, default=1, help="coop: hot-seat players, 1 to 6 (default 1)"
    )
    parser.add_argument(
        "--alternate",
        action="store_true",
        help="duel and head-to-head: swap the seats in every other game; figures by player",
    )
    parser.add_argument(
        "--games", metavar="N", type=positive, default=100, help="number of games (default 100)"
    )
    parser.add_argument(
        "--seed", metavar="S", type=integer, default=1, help="game i is dealt from seed S+i (default 1)"
    )
    parser.add_argument(
        "--workers",
        metavar="W",
        type=positive,
        default=None,
        help="processes (or Ray CPUs) in parallel (default: CPU count)",
    )
    parser.add_argument("--backend", choices=BACKENDS, default=None, help="local (default) or ray")
    parser.add_argument(
        "--address",
        metavar="ADDR",
        default=None,
        help="ray: join this cluster (e.g. auto, or host:6379) instead of starting one",
    )
    parser.add_argument(
        "--out", default=None, metavar="FILE", help="write one JSON line per game here ('-': stdout)"
    )
    parser.add_argument("--plot", default=None, metavar="FILE", help="write a PNG of the score distributions")
    parser.add_argument(
        "--summarise",
        nargs="+",
        default=None,
        metavar="FILE",
        help="play nothing: the summary table of games saved by --out (several runs together, e.g. "
        "seeds 1-100 and 101-200)",
    )


def check_writable(path: str) -> None:
    target = Path(path)
    if target.is_dir():
        raise SimulateError(f"cannot write {path}: it is a directory")
    parent = target.parent if str(target.parent) else Path(".")
    if not parent.is_dir():
        raise SimulateError(f"cannot write {path}: no directory {parent}")
    if not os.access(target if target.exists() else parent, os.W_OK):
        raise SimulateError(f"cannot write {path}: permission denied")


def simulate_main(args: argparse.Namespace) -> int:
    """``dorf simulate``: one line on stderr and exit 2 for a bad set-up."""
    try:
        return _simulate(args)
    except SimulateError as exc:
        print(f"dorf simulate: {exc}", file=sys.stderr)
        return 2


def read_results(paths: Sequence[str]) -> list[GameResult]:
    """The games saved by ``--out`` in these files: one mode, the same players, each seed once
    (raises :class:`SimulateError` naming the file and line)."""
    results: list[GameResult] = []
    seen: dict[int, str] = {}
    for path in paths:
        try:
            lines = Path(path).read_text(encoding="utf-8").splitlines()
        except (OSError, UnicodeDecodeError) as exc:
            raise SimulateError(f"cannot read {path}: {getattr(exc, 'strerror', None) or exc}") from None
        for number, line in enumerate(lines, 1):
            if not line.strip():
                continue
            where = f"{path} line {number}"
            try:
                result = json.loads(line)
                seed, mode, players = result["seed"], result["mode"], result["players"]
                pads = result["score"]
                totals = [pad["total"] for pad in (pads if isinstance(pads, list) else [pads])]
                if (
                    not isinstance(seed, int)
                    or mode not in MODES
                    or not all(isinstance(t, (int, float)) for t in totals)
                ):
                    raise ValueError
            except (ValueError, KeyError, TypeError):
                raise SimulateError(f"{where}: not a game written by dorf simulate --out") from None
            if results:
                first = results[0]
                if mode != first["mode"]:
                    raise SimulateError(f"{where}: a {mode} game among {first['mode']} games")
                if sorted(players) != sorted(first["players"]) or ("swapped" in result) != (
                    "swapped" in first
                ):
                    raise SimulateError(
                        f"{where}: other players ({', '.join(players)}) than the first game's"
                    )
            if seed in seen:
                raise SimulateError(f"{where}: seed {seed} again (first in {seen[seed]})")
            seen[seed] = where
            results.append(result)
    if not results:
        raise SimulateError("no games in " + ", ".join(paths))
    results.sort(key=lambda r: r["seed"])
    return results


def _summarise_files(paths: Sequence[str]) -> int:
    results = read_results(paths)
    runs: list[list[int]] = []
    for seed in (r["seed"] for r in results):
        if runs and seed == runs[-1][1] + 1:
            runs[-1][1] = seed
        else:
            runs.append([seed, seed])
    span = ", ".join(f"{a}-{b}" if a != b else str(a) for a, b in runs)
    header = f"{results[0]['mode']}: {len(results)} games, seeds {span}, read from {', '.join(paths)}"
    print("\n".join(summary_lines(summarise(results), header)))
    return 0


def _simulate(args: argparse.Namespace) -> int:
    if args.summarise:
        return _summarise_files(args.summarise)
    simulation = Simulation(
        args.mode,
        args.player,
        args.opponent,
        args.games,
        args.seed,
        args.players,
        args.alternate,
        getattr(args, "bot_seconds", DEFAULT_SECONDS),
    )
    simulation.check()
    backend = args.backend or ("ray" if args.address else "local")
    if backend == "local" and args.address:
        raise SimulateError("--address is for the ray backend (--backend ray)")
    workers = args.workers or os.cpu_count() or 1
    if backend == "ray":
        import_ray()
    if args.plot:
        import_pyplot()
        check_writable(args.plot)
    to_stdout = args.out == "-"
    summary_stream = sys.stderr if to_stdout else sys.stdout
    out: IO[str] | None = None
    if args.out and not to_stdout:
        try:
            out = open(args.out, "w", encoding="utf-8")  # noqa: SIM115 (closed below)
        except OSError as exc:
            raise SimulateError(f"cannot write {args.out}: {exc.strerror}") from None
    stream: IO[str] | None = sys.stdout if to_stdout else out
    writer = InOrderWriter(stream) if stream is not None else None
    progress = Progress(simulation.games, sys.stderr, enabled=sys.stderr.isatty())

    def arrived(result: GameResult) -> None:
        if writer is not None:
            writer(result)
        progress.step()

    started = time.perf_counter()
    try:
        results = run_games(
            simulation.jobs(), workers=workers, backend=backend, address=args.address, on_result=arrived
        )
    finally:
        progress.close()
        if out is not None:
            out.close()
    seconds = time.perf_counter() - started
    last = simulation.seed + simulation.games - 1
    where = f"ray {args.address}" if args.address else f"{backend}, {workers} worker{'s' * (workers != 1)}"
    header = (
        f"{simulation.mode}: {simulation.games} games, seeds {simulation.seed}-{last}, {where}, "
        f"{seconds:.1f} s ({simulation.games / seconds:.2f} games/s)"
    )
    print("\n".join(summary_lines(summarise(results), header)), file=summary_stream)
    if args.plot:
        write_plot(args.plot, results)
    return 0


__all__ = [
    "BACKENDS",
    "MODES",
    "GameJob",
    "InOrderWriter",
    "Progress",
    "SimulateError",
    "Simulation",
    "Stats",
    "add_simulate_parser",
    "categories",
    "check_writable",
    "percentile",
    "play_game",
    "player_seed",
    "run_games",
    "simulate_main",
    "summarise",
    "summary_lines",
    "wilson",
    "write_plot",
]
