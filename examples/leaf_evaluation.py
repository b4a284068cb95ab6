"""The planner's evaluation fitted at the look-ahead's leaves: a research trial (docs/players.md).

    .venv/bin/python examples/leaf_evaluation.py --games 300 --seed 3000000 --workers 2 \
        --data leaves.jsonl --out w-leaf.json
    .venv/bin/python examples/planner_rollouts.py --policy fast --futures 96 --weights w-leaf.json \
        --games 50 --seed 1 --workers 2

The shipped evaluation (``dorf tune``) is fitted on the positions of greedy self-play, and fitting
it on the planner's own games made the planner worse: those games show few of the positions a
mistake leads to. The look-ahead values positions off the strong player's path: the end of a
rollout, 16 tiles after a candidate, placed by the rollouts' fast policy. This trial fits the
evaluation on such positions.

Each game (dealt from ``--seed`` + i, solo Board Game) is played by ``planner:--trunk`` with the
shipped weights. At a share (``--share``) of its placements the game branches: one of the
planner's best 6 placements by its one-placement ranking, at random, then ``--depth`` tiles by
the rollouts' fast policy on the game's real tiles (a leaf as the look-ahead reaches one). There
the script records what the evaluation sees (as ``dorf tune`` records a position), plays the rest
of the game with ``planner:0`` (the evaluation's own one-placement choice) and labels the record
with how that game ended: each task completed or not, each flag territory's points, the final
score. ``dorf tune``'s fit then makes a ``dorf-weights/1`` file of them. Everything is seeded by
the game's seed: the same options write the same file on any number of workers.
"""

from __future__ import annotations

import argparse
import json
import multiprocessing
import random
import sys
import time
from typing import Any

from planner_rollouts import policy_move

from dorf.commands.simulate import player_seed
from dorf.commands.tune import _outcomes, _record, fit
from dorf.games.coop import CoopGame
from dorf.games.state import GameState, GameView
from dorf.players.evaluation import Evaluator, Weights, load_weights, weights_document
from dorf.players.planner import PlannerPlayer, position_of
from dorf.rules.area import Placement, placements_of

#: The candidates a branch picks from: as many as the planner weighs.
CANDIDATES = 6


class FastPolicy(PlannerPlayer):
    """A player placing each tile as the planner's rollouts do (their fast policy)."""

    def choose(self, view: GameView) -> Placement:
        position = position_of(view)
        self.evaluator = self.evaluator_for(position.mode)
        legal = position.area.legal_moves(position.face, position.task)
        return placements_of([policy_move(self, position, legal, self.rng)])[0]


def play_out(state: GameState, player: PlannerPlayer) -> None:
    """Play the game to its end with ``player``."""
    while not state.is_over:
        ending = player.choose(state.view())
        assert isinstance(ending, Placement)
        state.apply(ending)


def leaves_of(job: tuple[int, int, float, int]) -> dict[str, Any]:
    """One trunk game and the labelled leaves of its branches."""
    seed, trunk_futures, share, depth = job
    started = time.process_time()
    rng = random.Random(seed * 7 + 1)
    trunk = PlannerPlayer(player_seed(seed, 0), iterations=trunk_futures)
    fast = FastPolicy(seed + 11)
    finish = PlannerPlayer(seed + 13, iterations=0)
    evaluator = Evaluator(Weights())
    state = CoopGame(seed=seed).new_state()
    played: list[Placement] = []
    samples = []
    while not state.is_over:
        if rng.random() < share:
            branch = CoopGame(seed=seed).new_state()
            for placement in played:
                branch.play(placement)
            ranked = trunk.ranked(position_of(branch.view()))
            branch.play(placements_of([rng.choice(ranked[:CANDIDATES])[1]])[0])
            for _ in range(depth):
                if branch.is_over:
                    break
                branch.play(fast.choose(branch.view()))
            revealed = None if branch.is_over else branch.revealed_for(0)
            if revealed is not None:
                record = _record(evaluator, branch.view(), revealed)
                play_out(branch, finish)
                samples.append(_outcomes(branch.areas[0], branch.score().total, [record], seed))
        decision = trunk.choose(state.view())
        assert isinstance(decision, Placement)
        played.append(decision)
        state.play(decision)
    return {
        "seed": seed,
        "trunk": state.score().total,
        "samples": samples,
        "cpu": round(time.process_time() - started, 2),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=300)
    parser.add_argument("--seed", type=int, default=3_000_000)
    parser.add_argument("--trunk", type=int, default=16, help="futures of the trunk's planner")
    parser.add_argument("--share", type=float, default=0.7, help="share of placements that branch")
    parser.add_argument("--depth", type=int, default=16, help="tiles of the fast policy in a branch")
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--data", default=None, help="also write the labelled leaves (JSON lines)")
    parser.add_argument("--out", required=True, help="the dorf-weights/1 file to write")
    args = parser.parse_args()
    jobs = [(args.seed + i, args.trunk, args.share, args.depth) for i in range(args.games)]
    started = time.time()
    games = []
    with multiprocessing.Pool(args.workers) as pool:
        for game in pool.imap(leaves_of, jobs):
            games.append(game)
            print(
                f"game {len(games)}/{len(jobs)}: trunk {game['trunk']}, {len(game['samples'])} leaves",
                file=sys.stderr,
                flush=True,
            )
    if args.data:
        with open(args.data, "w", encoding="utf-8") as out:
            out.writelines(json.dumps(game) + "\n" for game in games)
    shipped = load_weights("coop")
    weights, report = fit([sample for game in games for sample in game["samples"]], shipped.rollout)
    about = {"command": " ".join(sys.argv), "seconds": round(time.time() - started), "report": report}
    with open(args.out, "w", encoding="utf-8") as out:
        json.dump(weights_document(weights, about), out, indent=1)
    print(json.dumps(report))


if __name__ == "__main__":
    main()
