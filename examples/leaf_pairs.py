"""The planner's leaves side by side: how well the evaluation ranks a decision's candidates.

    .venv/bin/python examples/leaf_pairs.py collect --games 200 --seed 5000000 --workers 2 --out pairs.jsonl
    .venv/bin/python examples/leaf_pairs.py fit --data pairs.jsonl

The look-ahead compares a decision's candidates by the evaluation at their rollouts' ends, on the
same futures; only the differences between candidates matter there, never the level. The refits
of docs/players.md fitted the level (the final score) of positions from many games, and made the
planner no stronger. This trial measures and fits the differences.

``collect``: each game (dealt from ``--seed`` + i, solo Board Game) is played by
``planner:--trunk``. At a share (``--share``) of its mid-game placements (more than ``--depth`` +
4 tiles still to reveal) the game branches into each of the planner's best ``--candidates``
placements by its one-placement ranking: the candidate, then ``--depth`` tiles placed by the
rollouts' fast policy on the game's real tiles, all candidates with the same random draws (so, as
in the look-ahead, they meet the same future). At that leaf the script records what the
evaluation sees (as ``dorf tune`` records a position) and the edges the branch joined and
mismatched, then plays the game out with ``planner:0`` and records the final score. Each root's
leaves are one JSON line's group.

``fit``: over the roots, the evaluation's terms at the leaves (score now, the open tasks' and
flag territories' expected points by the shipped chances, the board terms, the edges) regressed
on the final score with a constant for each root (only the differences between one root's leaves
count), fitted on 80% of the roots and tested on the rest: how much of the spread between a
root's leaves the shipped value explains, and the fitted one, and how often each puts the better
leaf of a pair first; and, over five folds by game, how much better the leaf the fitted value puts
first ends than the one the shipped value puts first. ``--out`` writes the fitted value weights
as a ``dorf-weights/1`` file (the edges' weight in its notes) for ``planner_rollouts.py``:

    .venv/bin/python examples/leaf_pairs.py fit --data pairs.jsonl --out w-pairs.json
    .venv/bin/python examples/planner_rollouts.py --policy fast --futures 192 --width 20 --halving \
        --blend w-pairs.json --share 1 --edges 0.14 --games 50 --seed 701 --workers 1
"""

from __future__ import annotations

import argparse
import json
import math
import multiprocessing
import random
import sys
import time
from typing import Any

from leaf_evaluation import play_out
from planner_rollouts import policy_move

from dorf.commands.simulate import player_seed
from dorf.commands.tune import _record
from dorf.games.coop import CoopGame
from dorf.players.evaluation import BOARD_FEATURES, Evaluator, Terms, Weights, load_weights, weights_document
from dorf.players.planner import PlannerPlayer, position_of
from dorf.rules.area import Placement, placements_of


def _fast_move(player: PlannerPlayer, state: Any, rng: random.Random) -> tuple[Placement, int, int]:
    """The rollout policy's placement of the revealed tile, with the edges it joins and mismatches."""
    position = position_of(state.view())
    legal = position.area.legal_moves(position.face, position.task)
    cell, k = policy_move(player, position, legal, rng)
    same, other = position.area.contacts(position.face, cell, k)
    return placements_of([(cell, k)])[0], same, other


def roots_of(job: tuple[int, int, float, int, int]) -> list[dict[str, Any]]:
    """One trunk game's roots, each with its candidates' labelled leaves."""
    seed, trunk_futures, share, depth, width = job
    rng = random.Random(seed * 7 + 3)
    trunk = PlannerPlayer(player_seed(seed, 0), iterations=trunk_futures)
    fast = PlannerPlayer(seed + 11)
    finish = PlannerPlayer(seed + 13, iterations=0)
    recorder = Evaluator(load_weights("coop"))
    state = CoopGame(seed=seed).new_state()
    roots = []
    while not state.is_over:
        position = position_of(state.view())
        to_come = position.landscapes_left + position.tasks_left
        if to_come > depth + 4 and rng.random() < share:
            started = time.process_time()
            ranked = trunk.ranked(position)
            candidates = [move for _, move in ranked[:width]]
            draws = rng.getrandbits(64)
            leaves = []
            base = len(state.made())
            for rank, (cell, k) in enumerate(candidates):
                face = position.face
                same, other = position.area.contacts(face, cell, k)
                state.apply(placements_of([(cell, k)])[0])
                joined, mismatched = same, other
                policy_rng = random.Random(draws)
                for _ in range(depth):
                    if state.is_over:
                        break
                    placement, same, other = _fast_move(fast, state, policy_rng)
                    state.apply(placement)
                    joined += same
                    mismatched += other
                revealed = None if state.is_over else state.revealed_for(0)
                record = None if revealed is None else _record(recorder, state.view(), revealed)
                play_out(state, finish)
                leaves.append(
                    {
                        "rank": rank,
                        "move": [cell, k],
                        "joined": joined,
                        "mismatched": mismatched,
                        "record": record,
                        "final": state.scores()[0].total,
                    }
                )
                while len(state.made()) > base:
                    state.undo()
            roots.append(
                {
                    "seed": seed,
                    "turn": base,
                    "to_come": to_come,
                    "leaves": leaves,
                    "cpu": round(time.process_time() - started, 3),
                }
            )
        decision = trunk.choose(state.view())
        assert isinstance(decision, Placement)
        state.apply(decision)
    return roots


def collect(args: argparse.Namespace) -> None:
    jobs = [(args.seed + i, args.trunk, args.share, args.depth, args.candidates) for i in range(args.games)]
    started = time.time()
    count = 0
    with open(args.out, "w", encoding="utf-8") as out, multiprocessing.Pool(args.workers) as pool:
        for i, roots in enumerate(pool.imap_unordered(roots_of, jobs)):
            out.writelines(json.dumps(root) + "\n" for root in roots)
            out.flush()
            count += len(roots)
            print(f"game {i + 1}/{len(jobs)}: {count} roots, {time.time() - started:.0f} s", file=sys.stderr)


#: The parts of a leaf's value the fit weighs, in order.
PARTS = ("now", "tasks", "flags", *BOARD_FEATURES, "edges")
#: With ``--extra``, more parts the shipped value does not weigh: the open tasks' expected points
#: split by their chance (below 0.35, above 0.75: with ``tasks``, a recalibration of the chances),
#: how many tasks are open and the points of those the model gives less than 0.1.
EXTRA = ("tasks_unlikely", "tasks_likely", "open_tasks", "doomed_points")


def parts_of(evaluator: Evaluator, leaf: dict[str, Any], extra: bool = False) -> list[float] | None:
    """A leaf's value parts (unweighted, the chances the shipped ones; the edges as the rollouts
    count them), None at a game's end."""
    record = leaf["record"]
    if record is None:
        return None
    terms = Terms(
        record["now"],
        [(i, v, tuple(f)) for i, v, f in record["tasks"]],
        [(c, s, e, tuple(f)) for c, s, e, f in record["flags"]],
        tuple(record["board"]),
    )
    chances = [(value, evaluator.task_chance(features)) for _, value, features in terms.tasks]
    tasks = sum(value * p for value, p in chances)
    flags = sum(
        evaluator.flag_points(size, edges) * evaluator.flag_chance(features)
        for _, size, edges, features in terms.flags
    )
    edges = evaluator.joined_edge * leaf["joined"] - evaluator.mismatched_edge * leaf["mismatched"]
    parts = [terms.now, tasks, flags, *terms.board, edges]
    if extra:
        parts += [
            sum(v * p for v, p in chances if p < 0.35),
            sum(v * p for v, p in chances if p > 0.75),
            len(chances),
            sum(v for v, p in chances if p < 0.1),
        ]
    return parts


def fit(args: argparse.Namespace) -> None:
    import numpy as np

    shipped = load_weights("coop")
    evaluator = Evaluator(shipped)
    w0 = np.array(
        [1.0, shipped.value["tasks"], shipped.value["flags"]]
        + [shipped.value[name] for name in BOARD_FEATURES]
        + [1.0]
        + [0.0] * (len(EXTRA) if args.extra else 0)
    )
    names = PARTS + (EXTRA if args.extra else ())
    xs, ys, groups = [], [], []
    with open(args.data, encoding="utf-8") as data:
        for number, line in enumerate(data):
            root = json.loads(line)
            rows = [(parts_of(evaluator, leaf, args.extra), leaf["final"]) for leaf in root["leaves"]]
            rows = [(x, y) for x, y in rows if x is not None]
            if len(rows) < 2:
                continue
            x = np.array([r[0] for r in rows])
            y = np.array([r[1] for r in rows], dtype=float)
            xs.append(x - x.mean(axis=0))
            ys.append(y - y.mean())
            groups.append((root["seed"], number))
    seeds = sorted({seed for seed, _ in groups})

    def solve(indices: list[int]) -> Any:
        """The weights fitted on these roots, shrunk towards the shipped ones by ``--ridge``."""
        X = np.vstack([xs[i] for i in indices])
        Y = np.concatenate([ys[i] for i in indices])
        scale = X.std(axis=0) + 1e-9
        ridge = max(args.ridge, 1e-6) * len(Y) * np.eye(len(names))
        Z = X / scale
        return np.linalg.solve(Z.T @ Z + ridge, Z.T @ Y + ridge @ (w0 * scale)) / scale

    held = set(seeds[int(len(seeds) * 0.8) :])
    train = [i for i, (seed, _) in enumerate(groups) if seed not in held]
    test = [i for i, (seed, _) in enumerate(groups) if seed in held]
    w = solve(train)

    def report(weights: Any, indices: list[int]) -> dict[str, float]:
        residual = total = 0.0
        agree = pairs = 0
        for i in indices:
            pred = xs[i] @ weights
            y = ys[i]
            residual += float(((y - pred * (pred @ y) / max(pred @ pred, 1e-9)) ** 2).sum())
            total += float((y**2).sum())
            for a in range(len(y)):
                for b in range(a + 1, len(y)):
                    if y[a] != y[b]:
                        pairs += 1
                        agree += (pred[a] - pred[b]) * (y[a] - y[b]) > 0
        return {"explained": round(1 - residual / total, 4), "pairs_right": round(agree / max(pairs, 1), 4)}

    # Five folds by game: how much better the leaf the fitted value puts first ends than the one
    # the shipped value puts first (a root's single future, as one rollout of the look-ahead).
    gains = []
    for fold in range(5):
        out_of_fold = set(seeds[fold::5])
        fitted = solve([i for i, (seed, _) in enumerate(groups) if seed not in out_of_fold])
        for i, (seed, _) in enumerate(groups):
            if seed in out_of_fold:
                gains.append(ys[i][int(np.argmax(xs[i] @ fitted))] - ys[i][int(np.argmax(xs[i] @ w0))])
    chosen = {
        "fitted_minus_shipped": round(float(np.mean(gains)), 3),
        "standard_error": round(float(np.std(gains) / math.sqrt(len(gains))), 3),
        "best_leaf_above_the_mean": round(float(np.mean([ys[i].max() for i in range(len(ys))])), 3),
    }
    out = {
        "roots": len(groups),
        "train": len(train),
        "test": len(test),
        "leaves_spread": round(math.sqrt(float(np.concatenate(ys).var())), 2),
        "shipped_test": report(w0, test),
        "fitted_test": report(w, test),
        "fitted_train": report(w, train),
        "chosen_leaf_cross_validated": chosen,
        "weights": {name: round(float(v / w[0]), 4) for name, v in zip(names, w, strict=True)},
        "shipped": {name: round(float(v), 4) for name, v in zip(names, w0, strict=True)},
    }
    print(json.dumps(out, indent=1))
    if args.out:
        data = shipped.as_dict()
        for name, v in out["weights"].items():
            if name in data["value"]:
                data["value"][name] = v
        about = {"command": " ".join(sys.argv), "edges": out["weights"]["edges"], "fit": out}
        with open(args.out, "w", encoding="utf-8") as file:
            json.dump(weights_document(Weights.from_dict(data), about), file, indent=1)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    commands = parser.add_subparsers(dest="command", required=True)
    c = commands.add_parser("collect")
    c.add_argument("--games", type=int, default=200)
    c.add_argument("--seed", type=int, default=5_000_000)
    c.add_argument("--trunk", type=int, default=16, help="futures of the trunk's planner")
    c.add_argument("--share", type=float, default=0.4, help="share of mid-game placements that branch")
    c.add_argument("--depth", type=int, default=16, help="tiles of the fast policy after a candidate")
    c.add_argument("--candidates", type=int, default=8)
    c.add_argument("--workers", type=int, default=2)
    c.add_argument("--out", required=True)
    f = commands.add_parser("fit")
    f.add_argument("--data", required=True)
    f.add_argument("--out", help="a dorf-weights/1 file with the fitted value weights (edges in its notes)")
    f.add_argument("--extra", action="store_true", help="weigh the EXTRA parts too")
    f.add_argument("--ridge", type=float, default=0.0, help="shrinkage towards the shipped weights")
    args = parser.parse_args()
    if args.command == "collect":
        collect(args)
    else:
        fit(args)


if __name__ == "__main__":
    main()
