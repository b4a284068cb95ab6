"""A clairvoyant bound: the planner that sees the real stack order (a research tool, never a seat).

``python -m dorf.lab.clairvoyant --games 50 --seed 1`` plays solo games of the
Board Game (game ``i`` dealt from seed ``S + i``, as ``dorf simulate`` deals
them) with a planner that is told what no seat may know: the order of the
face-down stacks and of the marker piles, read from the game's seed
(:func:`dorf.games.seat.shuffle_stacks`) minus the tiles and markers already
revealed. With one future known, its rollouts play the real tiles to the end
of the game, so each is a legal way to finish this very game and its end is
the exact score; a candidate is worth the **best** of its rollouts (not their
mean: nothing is uncertain, only the rollout policy is noisy), and the
placement with the best is played.

It prints each game's score and, per game, the best complete continuation any
rollout found (a lower bound on what perfect play scores, as the game played
is), then the means over the games: ``docs/players.md`` ("How far from
perfect") compares them with ``expert`` on the same seeds. It is a developer's
tool: nothing in the product imports it, and no seat is ever given it.
"""

from __future__ import annotations

import argparse
import json
import random
import sys
import time
from collections.abc import Sequence
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass
from typing import Any

from dorf.games.coop import CoopGame, CoopState
from dorf.games.seat import shuffle_stacks
from dorf.players.planner import Future, Move, PlannerPlayer, position_of
from dorf.rules.area import Placement, PlayArea, placements_of
from dorf.rules.hexgrid import cell_of
from dorf.rules.tiles import load_tileset

#: A rollout plays this many tiles at most: more than any game has left, so it ends the game.
TO_THE_END = 1000


def true_future(state: CoopState) -> Future:
    """What is really still to come in ``state``: its stacks (top = last) and marker piles, read
    from its seed without the tiles and markers revealed so far."""
    tileset = state.game.tileset
    stacks = shuffle_stacks(tileset, state.game.seed)
    seen = {turn.revealed.tile_id for turn in state.turns}
    tiles = tileset.tiles
    tasks = [tiles[i] for i in stacks.tasks if i not in seen]
    landscapes = [tiles[i] for i in stacks.landscapes if i not in seen]
    markers: dict[str, list[int]] = {}
    for kind, pile in stacks.markers.items():
        tasks_drawn = (t.revealed.task for t in state.turns)
        drawn = [task.value for task in tasks_drawn if task is not None and task.type == kind]
        left = pile[: len(pile) - len(drawn)]
        # The piles are drawn from the top: what was drawn is the pile's end, top first.
        assert pile[len(left) :][::-1] == drawn, (kind, pile, drawn)
        markers[kind] = left
    return Future(tasks, landscapes, markers, list(stacks.doubles))


class Clairvoyant(PlannerPlayer):
    """The planner handed the real future: ``width`` candidates, ``tries`` rollouts each, to the
    end of the game; a candidate's value is its best rollout's exact score.

    It keeps the best rollout found so far (the *incumbent*: its score and its placements) and,
    while the game follows it, weighs its next placement too, at that score: so the game played
    ends with the best score any rollout found (a rollout plays the real tiles by the rules'
    reveal order, so its end is this game's end)."""

    def __init__(self, seed: int = 0, *, width: int = 8, tries: int = 8) -> None:
        super().__init__(seed, width=width, depth=TO_THE_END)
        self.name = "clairvoyant"
        self.tries = tries
        #: The best exact score any rollout reached in this game (a complete legal continuation).
        self.best_found = -1.0
        #: The incumbent's placements still to play (the next first).
        self._line: list[Move] = []

    def decide(self, state: CoopState) -> Placement:
        """The placement to play in ``state`` (seat 0's turn), knowing its future."""
        view = state.view(0)
        position = position_of(view)
        self.evaluator = self.evaluator_for("coop")
        ranked = self.ranked(position)
        if not ranked:
            raise ValueError("there is no legal placement")
        future = true_future(state)
        assert len(future.tasks) == position.tasks_left and len(future.landscapes) == position.landscapes_left
        placed = len(position.area)
        line: list[Move] = []

        def record(area: PlayArea, flags: object) -> None:
            line[:] = [(cell_of(t.at.q, t.at.r), t.rot) for t in list(area)[placed:]]

        best_line = self._line
        if not best_line or best_line[0] not in {move for _, move in ranked}:
            best_line, self.best_found = [], -1.0  # (never so while the game follows the incumbent)
        for _, move in ranked[: self.width]:
            for _ in range(self.tries):
                value = self.rollout(position, move, future, random.Random(self.rng.random()), record)
                if value > self.best_found:
                    self.best_found, best_line = value, list(line)
        self._line = best_line[1:]
        return placements_of([best_line[0]])[0]


@dataclass(frozen=True)
class Job:
    seed: int
    width: int
    tries: int


def play(job: Job) -> dict[str, Any]:
    """One solo game played clairvoyantly: its seed, score and score pad (as ``dorf score --json``
    gives it), the best rollout found, seconds."""
    started = time.process_time()
    state = CoopState(CoopGame(seed=job.seed, players=1, tileset=load_tileset()))
    player = Clairvoyant(job.seed, width=job.width, tries=job.tries)
    moves = 0
    while state.to_move():
        state.apply(player.decide(state), 0)
        moves += 1
    pad = state.score()
    score = pad.total
    return {
        "seed": job.seed,
        "score": score,
        "pad": pad.as_json(),
        "best_rollout": max(float(score), player.best_found),
        "moves": moves,
        "cpu_seconds": round(time.process_time() - started, 2),
    }


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m dorf.lab.clairvoyant", description=(__doc__ or "").split("\n")[0]
    )
    parser.add_argument("--games", type=int, default=50)
    parser.add_argument("--seed", type=int, default=1, help="game i is dealt from seed SEED + i")
    parser.add_argument("--width", type=int, default=8, help="candidates weighed a decision")
    parser.add_argument("--tries", type=int, default=8, help="rollouts to the end per candidate")
    parser.add_argument("--workers", type=int, default=1)
    parser.add_argument("--jsonl", action="store_true", help="print each game as a JSON line")
    args = parser.parse_args(argv)
    if args.games < 1 or args.width < 1 or args.tries < 1 or args.workers < 1:
        parser.error("--games, --width, --tries and --workers must be at least 1")
    jobs = [Job(args.seed + i, args.width, args.tries) for i in range(args.games)]
    started = time.monotonic()
    if args.workers == 1:
        results = [play(job) for job in jobs]
    else:
        with ProcessPoolExecutor(args.workers) as pool:
            results = list(pool.map(play, jobs))
    for result in results:
        print(json.dumps(result) if args.jsonl else f"seed {result['seed']}: {result['score']}")
    scores = [r["score"] for r in results]
    best = [r["best_rollout"] for r in results]
    cpu = sum(r["cpu_seconds"] for r in results)
    moves = sum(r["moves"] for r in results)
    summary = {
        "games": len(results),
        "seeds": f"{args.seed}-{args.seed + args.games - 1}",
        "width": args.width,
        "tries": args.tries,
        "mean_score": round(sum(scores) / len(scores), 2),
        "mean_best_rollout": round(sum(best) / len(best), 2),
        "cpu_s_per_move": round(cpu / max(moves, 1), 3),
        "wall_s": round(time.monotonic() - started, 1),
    }
    print(json.dumps(summary))
    return 0


if __name__ == "__main__":
    sys.exit(main())
