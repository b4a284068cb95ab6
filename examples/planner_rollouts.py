"""The planner with a stronger rollout policy: a research trial (docs/players.md).

    .venv/bin/python examples/planner_rollouts.py --policy fast|full|hybrid [--futures 24]
        [--depth N] [--width N] [--halving] [--weights FILE.json] [--set GROUP.NAME=X ...]
        [--blend FILE.json [--share S]] [--prior S] [--temperature T]
        [--tempo RATE,OFFSET,SPREAD,POINTS] [--growth G] [--task-shortlist N] [--games 60] [--seed 1]
        [--workers 2]
        [--out FILE.jsonl] [--against BASE.jsonl]
    .venv/bin/python examples/planner_rollouts.py --alone --policy fast|full [--recheck N]
        [--frontier] [--shortlist N] [--games 200]

The planner's rollouts place each tile by a fast policy: the best few placements by their edge
contacts (and those that reach an open task or a flag territory near closing) valued with the
quick evaluation. ``full`` re-values the best ``--recheck`` of those (2) with the planner's full
evaluation, the look at which cells a tile can still enter included (without the scan of the
whole frontier unless ``--frontier``): a stronger policy at about twice the cost. ``hybrid`` does
so for the first ``--full-steps`` tiles of a rollout (4) only.

Without ``--alone`` it plays solo games of the planner with that policy at ``--futures`` futures a
placement and ``--depth`` tiles a rollout (default: the planner's 16; more than the game has left
plays every rollout to the end, valued by the exact score), each player seeded as ``dorf simulate``
seeds it (``player_seed(game seed, 0)``), so ``--policy fast`` plays ``dorf simulate --player
planner-v4:FUTURES``'s games (``--width``, 6, and ``--halving``, off, set the candidates a placement
and whether they are weighed by sequential halving, the planner's options: ``--width 20 --halving
--futures 192`` plays ``planner``'s); one JSON line a game (its total and the CPU time a move), and
with ``--against`` the mean difference game for game from another run's lines and its standard error
(each line holds the game's score pad too). With ``--alone`` the rollout policy itself plays whole
games (no look-ahead), which says how strong each policy is. ``--set value.tasks=1.5`` changes one
weight of the planner's (``--weights``' or the shipped ones) everywhere it evaluates; ``--blend``,
``--tempo`` and ``--growth`` change the evaluation where the planner values a position in full
(:class:`LeafEvaluation`); ``--prior S`` makes sequential halving rank the candidates a share S of
the way from their rollouts' means to their values one placement ahead (:class:`PriorMixed`);
``--temperature T`` makes the rollout policy sample its move among its shortlist by exp(value / T)
(:class:`SoftRollouts`); ``--task-shortlist N`` makes it value the best N placements of a tile
carrying a task by edge contacts, not 4 (:class:`TaskShortlist`; 100: every placement).
"""

from __future__ import annotations

import argparse
import json
import math
import multiprocessing
import os
import random
import statistics
import sys
import time
from collections.abc import Iterable
from types import SimpleNamespace
from typing import Any, TextIO

from dorf.commands.simulate import player_seed
from dorf.games.coop import CoopGame
from dorf.players.evaluation import (
    BOARD_FEATURES,
    Evaluator,
    Weights,
    WeightsError,
    load_weights,
    read_weights,
)
from dorf.players.outlook import Fits
from dorf.players.planner import Move, PlannerPlayer, Position, position_of
from dorf.rules.area import FIGURES_PER_TILE, Placement, PlayArea, placements_of
from dorf.rules.tasks import TaskSpec
from dorf.rules.terrain import AREA_LETTERS
from dorf.rules.tiles import Tile


def quick_values(
    player: PlannerPlayer,
    area: PlayArea,
    tile: Tile,
    task: TaskSpec | None,
    moves: list[Move],
    flags: list[tuple[int, str]],
    left: int,
    tasks_left: int,
    supply: dict[str, int],
    rng: random.Random,
) -> tuple[list[tuple[int, str]], list[tuple[float, float, int, int]]]:
    """The rollout policy's shortlist, each move's (quick value + edges' worth, edges' worth, cell,
    rotation), as the planner's policy values them; with the flags list the tile's flag then uses."""
    ev = player.evaluator
    face = tile.face
    shortlist = player.shortlisted(area, face, moves, flags, rng)
    flag = tile.flag
    if flag is not None:
        flags = [*flags, (-1, flag)]
    ledger = ev.task_ledger(area) if task is None else None
    scored = []
    for gain, (cell, k) in shortlist:
        area.push(face, cell, k, flag=flag, task=task)
        if flag is not None:
            flags[-1] = (cell, flag)
        value = ev.quick(area, flags, left, tasks_left, supply, None if area.last_changes() else ledger)
        area.pop()
        scored.append((value + gain, gain, cell, k))
    return flags, scored


class FullRollouts(PlannerPlayer):
    """The planner whose rollout policy re-values its best ``recheck`` placements (by the quick
    evaluation) with the full evaluation."""

    def __init__(self, seed: int = 0, *, recheck: int = 2, frontier: bool = False, **options: Any) -> None:
        super().__init__(seed, **options)
        self.recheck = recheck
        self.frontier = frontier

    def policy(
        self,
        area: PlayArea,
        tile: Tile,
        task: TaskSpec | None,
        moves: list[Move],
        flags: list[tuple[int, str]],
        left: int,
        tasks_left: int,
        supply: dict[str, int],
        fits: Fits,
        rng: random.Random,
    ) -> tuple[float, Move]:
        ev = self.evaluator
        face, flag = tile.face, tile.flag
        flags, scored = quick_values(self, area, tile, task, moves, flags, left, tasks_left, supply, rng)
        scored.sort(key=lambda item: -item[0])
        best = scored[0]
        if self.recheck > 1 and len(scored) > 1:
            rechecked = []
            for _, gain, cell, k in scored[: self.recheck]:
                area.push(face, cell, k, flag=flag, task=task)
                if flag is not None:
                    flags[-1] = (cell, flag)
                value = ev.value(area, flags, left, tasks_left, supply, fits, self.frontier)
                area.pop()
                rechecked.append((value + gain, gain, cell, k))
            best = max(rechecked, key=lambda item: item[0])
        return best[1], (best[2], best[3])


class EdgeWeighedRollouts(PlannerPlayer):
    """The planner whose rollouts' ends count the edges joined and mismatched on the way times
    ``edges`` (the planner counts them once; 0: the candidate's own edges only)."""

    def __init__(self, seed: int = 0, *, edges: float = 0.0, **options: Any) -> None:
        super().__init__(seed, **options)
        self.edges = edges

    def policy(self, *args: Any) -> tuple[float, Move]:
        gain, move = super().policy(*args)
        return self.edges * gain, move


class HybridRollouts(FullRollouts):
    """:class:`FullRollouts`' policy for the first ``full_steps`` tiles of a rollout, the fast one
    after."""

    def __init__(self, seed: int = 0, *, full_steps: int = 4, **options: Any) -> None:
        super().__init__(seed, **options)
        self.full_steps = full_steps
        self._step = 0

    def rollout(self, *args: Any, **kwargs: Any) -> float:
        self._step = 0
        return super().rollout(*args, **kwargs)

    def policy(self, *args: Any) -> tuple[float, Move]:
        self._step += 1
        if self._step <= self.full_steps:
            return FullRollouts.policy(self, *args)
        return PlannerPlayer.policy(self, *args)


class TaskShortlist(PlannerPlayer):
    """The planner whose rollout policy values ``task_shortlist`` placements by edge contacts (and
    those reaching a target cell) when the tile carries a task, instead of :attr:`shortlist`: where
    a task tile goes decides its task, and the few best by edge contacts may miss the cell where
    its group would have the marker's size."""

    def __init__(self, seed: int = 0, *, task_shortlist: int = 100, **options: Any) -> None:
        super().__init__(seed, **options)
        self.task_shortlist = task_shortlist

    def policy(self, *args: Any) -> tuple[float, Move]:
        if args[2] is None:  # the tile carries no task
            return super().policy(*args)
        usual = self.shortlist
        self.shortlist = self.task_shortlist
        try:
            return super().policy(*args)
        finally:
            self.shortlist = usual


class SoftRollouts(PlannerPlayer):
    """The planner whose rollout policy samples its move among the shortlist with chances
    proportional to exp(value / ``temperature``) instead of taking the best (simulation balancing:
    a rollout policy whose mistakes average out may value the candidates better than a stronger
    one whose mistakes repeat). The noise comes from the rollout's own random stream, which every
    candidate shares for a future."""

    def __init__(self, seed: int = 0, *, temperature: float = 1.0, **options: Any) -> None:
        super().__init__(seed, **options)
        self.temperature = temperature

    def policy(
        self,
        area: PlayArea,
        tile: Tile,
        task: TaskSpec | None,
        moves: list[Move],
        flags: list[tuple[int, str]],
        left: int,
        tasks_left: int,
        supply: dict[str, int],
        fits: Fits,
        rng: random.Random,
    ) -> tuple[float, Move]:
        _, valued = quick_values(self, area, tile, task, moves, flags, left, tasks_left, supply, rng)
        top = max(value for value, _, _, _ in valued)
        weights = [math.exp((value - top) / self.temperature) for value, _, _, _ in valued]
        _, gain, cell, k = rng.choices(valued, weights)[0]
        return gain, (cell, k)


class PriorMixed(PlannerPlayer):
    """The planner whose sequential halving ranks each candidate by its rollouts' mean a share
    ``prior`` of the way to its own value one placement ahead (the full evaluation just after it,
    with its edges), as AlphaGo mixed its value network with its rollouts' outcomes; not in the
    endgame, where every rollout ends the game and is exact."""

    def __init__(self, seed: int = 0, *, prior: float = 0.25, **options: Any) -> None:
        super().__init__(seed, **options)
        self.prior = prior
        self._position: Position | None = None
        self._ahead: dict[Move, float] = {}

    def ranked(self, position: Position) -> list[tuple[float, Move]]:
        self._position = position
        self._ahead = {}
        return super().ranked(position)

    def ahead(self, move: Move) -> float:
        """The move's full value one placement ahead (cached for the decision)."""
        found = self._ahead.get(move)
        if found is None:
            position = self._position
            assert position is not None
            area, ev, (cell, k) = position.area, self.evaluator, move
            same, other = area.contacts(position.face, cell, k)
            area.push(position.face, cell, k, flag=position.flag, task=position.task)
            flags = list(position.flags)
            if position.flag is not None:
                flags.append((cell, position.flag))
            found = ev.value(
                area, flags, position.landscapes_left, position.tasks_left, position.supply, position.fits
            )
            area.pop()
            found = self._ahead[move] = found + ev.joined_edge * same - ev.mismatched_edge * other
        return found

    def weighed(self, candidates: list[Move], totals: list[float], counts: list[int]) -> list[float]:
        means = super().weighed(candidates, totals, counts)
        position = self._position
        assert position is not None
        if position.landscapes_left + position.tasks_left <= self.depth_for(position.mode):
            return means
        share = self.prior
        return [
            mean + share * (self.ahead(move) - mean) if count else mean
            for mean, move, count in zip(means, candidates, counts, strict=True)
        ]


#: Where the free task slots stand among the terms' board features.
FREE_SLOTS = BOARD_FEATURES.index("free_slots")


class LeafEvaluation(Evaluator):
    """The planner's evaluation with two trial changes where it values a position in full (the
    rollouts' ends and the candidates' one-placement ranking; the rollouts' moves keep the quick
    evaluation as shipped):

    - ``blend``: the value a share ``share`` of the way to another set of weights' value of the
      same terms (an average of two evaluations);
    - ``tempo``: (rate, offset, spread, points): less ``points`` for each task tile expected never
      to be revealed, ``softplus(tasks left - free slots - rate x landscapes left - offset)`` on the
      scale ``spread`` (a game ends when the landscapes run out, and a task tile comes only when
      fewer than three tasks are open).
    - ``growth``: the longest river's and track's room to grow. The score counts the largest river
      network and the largest track network in tiles; the value counts them as they stand. With
      ``growth`` g, each network may still gain g tiles for each of its open ends (up to 2) and
      each landscape tile left showing its terrain, and the value adds what the best of them
      would then be worth beyond the longest now:
      ``max(size + g x min(open ends, 2) x tiles left) - longest`` for rivers and for tracks.
    """

    def __init__(
        self,
        weights: Weights,
        blend: Weights | None,
        share: float,
        tempo: tuple[float, ...] | None,
        growth: float = 0.0,
    ) -> None:
        super().__init__(weights)
        self.other = Evaluator(blend) if blend is not None else None
        self.share = share
        self.tempo = tempo
        self.growth = growth

    def value(
        self,
        area: PlayArea,
        flags: list[tuple[int, str]],
        landscapes_left: int,
        tasks_left: int,
        supply: dict[str, int],
        fits: Fits,
        frontier: bool = True,
    ) -> float:
        terms = self.terms(area, flags, landscapes_left, tasks_left, supply, fits, frontier)
        value = self.value_of(terms)
        if self.other is not None:
            value += self.share * (self.other.value_of(terms) - value)
        if self.tempo is not None and tasks_left:
            rate, offset, spread, points = self.tempo
            free = terms.board[FREE_SLOTS]
            z = (tasks_left - free - rate * landscapes_left - offset) / spread
            stranded = spread * (z + math.log1p(math.exp(-z)) if z > 0 else math.log1p(math.exp(z)))
            value -= points * min(stranded, tasks_left)
        if self.growth:
            value += self.room_to_grow(area, supply)
        return value

    def room_to_grow(self, area: PlayArea, supply: dict[str, int]) -> float:
        """What the longest river and track may still add (``growth``, above)."""
        figures = area.tile_figures()
        extra = 0.0
        for letter, longest in (("R", area.longest_river), ("T", area.longest_track)):
            left = supply.get(letter, 0)
            if not left or not longest:
                continue
            offset = 1 + 2 * AREA_LETTERS.index(letter)
            sizes = figures[offset::FIGURES_PER_TILE]
            opens = figures[offset + 1 :: FIGURES_PER_TILE]
            per_end = self.growth * left
            best = float(longest)
            for size, ends in zip(sizes, opens, strict=True):
                if ends > 0:
                    reach = size + per_end * min(ends, 2)
                    if reach > best:
                        best = reach
            extra += best - longest
        return extra


def make(policy: str, seed: int, options: dict[str, Any]) -> PlannerPlayer:
    player = _make(policy, seed, options)
    if options.get("blend") or options.get("tempo") or options.get("growth"):
        blend = None
        if options.get("blend"):
            with open(options["blend"], encoding="utf-8") as file:
                blend = read_weights(file.read())
        ev = LeafEvaluation(
            player.evaluator.weights,
            blend,
            options["share"],
            options.get("tempo"),
            options.get("growth") or 0.0,
        )
        # The player takes its evaluation from this cache at every decision (evaluator_for).
        player._evaluators["coop"] = player.evaluator = ev
    return player


def changed(weights: Weights, settings: list[tuple[str, str, float]]) -> Weights:
    """The weights with each (group, name, value) of ``settings`` set (raises WeightsError)."""
    groups = weights.as_dict()
    data = {group: dict(values) for group, values in groups.items()}
    for group, name, value in settings:
        if name not in data.get(group, {}):
            raise WeightsError(f"no weight {group}.{name}")
        data[group][name] = value
    return Weights.from_dict(data)


def _make(policy: str, seed: int, options: dict[str, Any]) -> PlannerPlayer:
    common: dict[str, Any] = dict(
        iterations=options["futures"],
        depth=options["depth"],
        shortlist=options["shortlist"],
        width=options.get("width"),
        halving=options.get("halving"),
    )
    if options.get("weights"):
        with open(options["weights"], encoding="utf-8") as file:
            common["weights"] = read_weights(file.read())
    if options.get("set"):
        common["weights"] = changed(common.get("weights") or load_weights("coop"), options["set"])
    if policy == "fast":
        if options.get("prior"):
            return PriorMixed(seed, prior=options["prior"], **common)
        if options.get("temperature"):
            return SoftRollouts(seed, temperature=options["temperature"], **common)
        if options.get("task_shortlist"):
            return TaskShortlist(seed, task_shortlist=options["task_shortlist"], **common)
        if options["edges"] != 1:
            return EdgeWeighedRollouts(seed, edges=options["edges"], **common)
        return PlannerPlayer(seed, **common)
    common.update(recheck=options["recheck"], frontier=options["frontier"])
    if policy == "full":
        return FullRollouts(seed, **common)
    return HybridRollouts(seed, full_steps=options["full_steps"], **common)


def play(job: tuple[int, str, dict[str, Any]]) -> dict[str, Any]:
    """One solo game of the planner with that rollout policy."""
    game_seed, policy, options = job
    player = make(policy, player_seed(game_seed, 0), options)
    state = CoopGame(seed=game_seed).new_state()
    times = []
    while not state.is_over:
        started = time.process_time()
        decision = player.choose(state.view())
        times.append(time.process_time() - started)
        assert isinstance(decision, Placement)
        state.play(decision)
    pad = state.score().as_json()
    return {
        "seed": game_seed,
        "total": pad["total"],
        "pad": {key: value for key, value in pad.items() if key not in ("total", "task_list")},
        "cpu_a_move": sum(times) / len(times),
        "slowest": max(times),
        "policy": policy,
        **options,
    }


def collected(lines: Iterable[dict[str, Any]], path: str | None, echo: TextIO) -> list[dict[str, Any]]:
    """The games' JSON lines as they come, each written to ``path`` (if any) and echoed on ``echo``."""
    kept = []
    with open(path or os.devnull, "w", encoding="utf-8") as out:
        for line in lines:
            text = json.dumps(line)
            print(text, file=out, flush=True)
            print(text, file=echo, flush=True)
            kept.append(line)
    return kept


def policy_move(player: PlannerPlayer, position: Position, legal: list[Move], rng: random.Random) -> Move:
    """The rollout policy's placement of the position's tile among ``legal``, on the real tiles."""
    tile: Any = SimpleNamespace(face=position.face, flag=position.flag)
    _, move = player.policy(
        position.area,
        tile,
        position.task,
        legal,
        position.flags,
        position.landscapes_left,
        position.tasks_left,
        position.supply,
        position.fits,
        rng,
    )
    return move


def alone(game_seed: int, policy: str, options: dict[str, Any]) -> tuple[int, float, int]:
    """One solo game played by the rollout policy itself, on the real tiles: its total, the CPU
    time of the policy's choices and their number."""
    player = make(policy, game_seed, options)
    rng = random.Random(game_seed)
    state = CoopGame(seed=game_seed).new_state()
    cpu, moves = 0.0, 0
    while not state.is_over:
        position = position_of(state.view())
        player.evaluator = player.evaluator_for(position.mode)
        legal = position.area.legal_moves(position.face, position.task)
        started = time.process_time()
        move = policy_move(player, position, legal, rng)
        cpu += time.process_time() - started
        moves += 1
        decision: Placement = placements_of([move])[0]
        state.play(decision)
    return state.score().total, cpu, moves


def against(lines: list[dict[str, Any]], path: str) -> str:
    """The difference game for game from another run's lines (the examples' or ``dorf simulate``'s),
    with its standard error."""
    with open(path) as other:
        theirs = {
            line["seed"]: line.get("total", line.get("score", {}).get("total"))
            for line in map(json.loads, other)
        }
    diffs = [line["total"] - theirs[line["seed"]] for line in lines if line["seed"] in theirs]
    if len(diffs) < 2:
        return "fewer than two games in common"
    error = statistics.stdev(diffs) / len(diffs) ** 0.5
    better, worse = sum(d > 0 for d in diffs), sum(d < 0 for d in diffs)
    return (
        f"against {path}: {statistics.mean(diffs):+.2f} (standard error {error:.2f}) over {len(diffs)} "
        f"games; {better} better, {len(diffs) - better - worse} the same, {worse} worse"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--policy", choices=("fast", "full", "hybrid"), default="full")
    parser.add_argument("--futures", type=int, default=24)
    parser.add_argument("--depth", type=int, default=None, help="tiles a rollout plays (default: 16)")
    parser.add_argument("--shortlist", type=int, default=4)
    parser.add_argument(
        "--task-shortlist",
        type=int,
        default=0,
        help="placements the rollout policy values by edge contacts for a task tile (default: --shortlist)",
    )
    parser.add_argument(
        "--edges", type=float, default=1.0, help="the weight of the rollout's edges at its end (fast policy)"
    )
    # planner-v4's width and weighing, the planner these trials measured against (docs/players.md).
    parser.add_argument("--width", type=int, default=6, help="candidates a decision (default: 6)")
    parser.add_argument(
        "--halving",
        action="store_true",
        default=False,
        help="weigh them by sequential halving (default: all against all futures)",
    )
    parser.add_argument("--recheck", type=int, default=2)
    parser.add_argument("--frontier", action="store_true")
    parser.add_argument("--full-steps", type=int, default=4)
    parser.add_argument(
        "--weights", default=None, help="a dorf-weights/1 file for the planner (default: the shipped one)"
    )
    parser.add_argument(
        "--blend", default=None, help="a dorf-weights/1 file whose value the full evaluation averages in"
    )
    parser.add_argument("--share", type=float, default=0.5, help="the blend's share (default 0.5)")
    parser.add_argument(
        "--tempo",
        default=None,
        help="RATE,OFFSET,SPREAD,POINTS: the full evaluation counts the task tiles left unrevealed",
    )
    parser.add_argument(
        "--growth",
        type=float,
        default=0.0,
        help="G: the full evaluation counts the longest river's and track's room to grow (LeafEvaluation)",
    )
    parser.add_argument(
        "--set",
        action="append",
        default=[],
        metavar="GROUP.NAME=X",
        help="set one weight of the planner's, as value.tasks=1.5 (repeatable)",
    )
    parser.add_argument(
        "--prior",
        type=float,
        default=0.0,
        help="halving ranks the candidates this share of the way to their one-placement values (fast policy)",
    )
    parser.add_argument(
        "--temperature",
        type=float,
        default=0.0,
        help="the rollout policy samples its move by exp(value / T) among its shortlist (fast policy)",
    )
    parser.add_argument("--games", type=int, default=60)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--alone", action="store_true")
    parser.add_argument("--out", default=None)
    parser.add_argument("--against", default=None)
    args = parser.parse_args()
    if args.edges != 1 and args.policy != "fast":
        parser.error("--edges weighs the fast policy's rollouts only (--policy fast)")
    options = {
        "futures": args.futures,
        "depth": args.depth,
        "shortlist": args.shortlist,
        "edges": args.edges,
        "recheck": args.recheck,
        "frontier": args.frontier,
        "full_steps": args.full_steps,
        "weights": args.weights,
        "width": args.width,
        "halving": args.halving,
        "blend": args.blend,
        "share": args.share,
        "tempo": None,
        "set": [],
    }
    if args.task_shortlist:
        if (
            args.policy != "fast"
            or args.edges != 1
            or args.prior
            or args.temperature
            or args.task_shortlist < 1
        ):
            parser.error("--task-shortlist takes a count of 1 or more with the fast policy and its edges")
        options["task_shortlist"] = args.task_shortlist
    if args.prior:
        if args.policy != "fast" or args.edges != 1 or not -1 <= args.prior <= 1:
            parser.error("--prior takes a share in [-1, 1] with the fast policy and its edges")
        options["prior"] = args.prior
    if args.temperature:
        if args.policy != "fast" or args.edges != 1 or args.prior or not args.temperature > 0:
            parser.error("--temperature takes a number above 0 with the fast policy and its edges")
        options["temperature"] = args.temperature
    for setting in args.set:
        key, _, number = setting.partition("=")
        group, _, name = key.partition(".")
        try:
            value = float(number)
            if not math.isfinite(value):
                raise ValueError(number)
            changed(load_weights("coop"), [(group, name, value)])
        except (ValueError, WeightsError) as exc:
            parser.error(f"--set {setting}: want GROUP.NAME=X, a weight's name and a number ({exc})")
        options["set"].append((group, name, value))
    if args.growth:
        if not 0 < args.growth <= 1:
            parser.error("--growth takes a number in (0, 1]: tiles gained an open end and a tile left")
        options["growth"] = args.growth
    if args.tempo:
        try:
            tempo = tuple(float(x) for x in args.tempo.split(","))
        except ValueError:
            tempo = ()
        if len(tempo) != 4 or tempo[2] <= 0:
            parser.error("--tempo takes four numbers, RATE,OFFSET,SPREAD,POINTS, the spread above 0")
        options["tempo"] = tempo
    for path in (args.blend, args.weights):
        if path:
            try:
                with open(path, encoding="utf-8") as file:
                    read_weights(file.read())
            except (OSError, WeightsError) as exc:
                parser.error(f"{path}: {exc}")
    seeds = range(args.seed, args.seed + args.games)
    if args.alone:
        games = [alone(s, args.policy, options) for s in seeds]
        totals = [total for total, _, _ in games]
        each = 1e6 * sum(cpu for _, cpu, _ in games) / sum(moves for _, _, moves in games)
        print(
            f"{args.policy} policy alone, seeds {seeds[0]}-{seeds[-1]}: mean {statistics.mean(totals):.1f}"
            f" (sd {statistics.stdev(totals):.1f}), {each:.0f} us of CPU a placement"
        )
        return
    with multiprocessing.Pool(args.workers) as pool:
        lines = collected(pool.imap(play, [(s, args.policy, options) for s in seeds]), args.out, sys.stdout)
    totals = [line["total"] for line in lines]
    print(
        f"mean {statistics.mean(totals):.1f}, CPU a move "
        f"{statistics.mean(line['cpu_a_move'] for line in lines):.3f} s"
    )
    if args.against:
        print(against(lines, args.against))


if __name__ == "__main__":
    main()
