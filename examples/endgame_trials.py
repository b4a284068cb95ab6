"""The planner's endgame varied from saved positions, game for game (docs/players.md).

    .venv/bin/python examples/endgame_trials.py save --games 100 --seed 1001 --out positions.pkl
    .venv/bin/python examples/endgame_trials.py play --positions positions.pkl --out base.jsonl
    .venv/bin/python examples/endgame_trials.py play --positions positions.pkl --spread 8 \
        --against base.jsonl --out spread8.jsonl

``save`` plays solo games as ``dorf simulate --player planner-v4`` plays them (the expert when
these trials ran, 6 candidates against 96 futures until the endgame; the player seeded with
``player_seed(game seed, 0)``) until no more than ``--threshold`` tiles are left to reveal
(landscape and task tiles), and keeps each game's placements so far and the player's random
state there. ``play`` rebuilds each game, restores the player's random state, gives the player
the options asked for and plays the game out: with no options that is exactly the game ``dorf
simulate`` plays, and with an option that changes the endgame only, exactly the game the player
so changed would play. Every variant meets the same positions, so the difference game for game
is the endgame's alone, without the noise of the first forty-odd placements.

The options: ``--spread`` (:data:`dorf.players.planner.ENDGAME_SPREAD`, how many times the
futures an endgame decision may have), ``--endgame-width`` (:data:`ENDGAME_WIDTH`, its
candidates), ``--futures``, ``--depth`` and ``--shortlist`` (the planner's own; ``--futures 64
--depth 24 --spread 6`` starts the endgame at 24 tiles left with rollouts that reach the end, at
the same cost a decision as today's endgame from 16 tiles left on; ``--shortlist`` is how many
placements the rollout policy values), and ``--clairvoyant N``, which plays the endgames out with
the clairvoyant bound of ``python -m dorf.lab.clairvoyant`` instead (told the real order of the
stacks: what the endgame could reach if the tiles to come were known). Both module constants are
set in each worker process, for this research run only.
"""

from __future__ import annotations

import argparse
import multiprocessing
import pickle
import statistics
import sys
import time
from typing import Any

from planner_rollouts import against, collected

from dorf.commands.simulate import player_seed
from dorf.games.coop import CoopGame
from dorf.lab.clairvoyant import Clairvoyant
from dorf.players import planner
from dorf.players.planner import PlannerPlayer, position_of
from dorf.rules.area import Placement
from dorf.rules.tasks import COMPLETED, FAILED

Saved = dict[int, tuple[list[Placement], Any]]


def save(job: tuple[int, int]) -> tuple[int, list[Placement], Any]:
    """Play one game until ``threshold`` tiles are left to reveal: its placements, the player's state."""
    seed, threshold = job
    player = PlannerPlayer(player_seed(seed, 0), version="planner-v4")
    state = CoopGame(seed=seed).new_state()
    played: list[Placement] = []
    while not state.is_over:
        view = state.view()
        position = position_of(view)
        if position.landscapes_left + position.tasks_left <= threshold:
            break
        placement = player.choose(view)
        assert isinstance(placement, Placement)
        state.play(placement)
        played.append(placement)
    return seed, played, player.rng.getstate()


_SAVED: Saved = {}
_OPTIONS: dict[str, Any] = {}


def start_worker(saved: Saved, options: dict[str, Any], spread: int | None, width: int | None) -> None:
    global _SAVED, _OPTIONS
    _SAVED, _OPTIONS = saved, options
    if spread is not None:
        planner.ENDGAME_SPREAD = spread
    if width is not None:
        planner.ENDGAME_WIDTH = width


def play(seed: int) -> dict[str, Any]:
    """Rebuild a saved game and play it out with the options: its score and its endgame's time."""
    played, random_state = _SAVED[seed]
    state = CoopGame(seed=seed).new_state()
    for placement in played:
        state.play(placement)
    options = dict(_OPTIONS)
    seer = options.pop("clairvoyant", None)
    player = PlannerPlayer(player_seed(seed, 0), version="planner-v4", **options)
    player.rng.setstate(random_state)
    # The research bound, never a seat: told the real order of the stacks (dorf.lab.clairvoyant).
    clairvoyant = None if seer is None else Clairvoyant(seed, width=seer, tries=seer)
    moves, spent, slowest = 0, 0.0, 0.0
    while not state.is_over:
        started = time.process_time()
        choice = player.choose(state.view()) if clairvoyant is None else clairvoyant.decide(state)
        assert isinstance(choice, Placement)
        took = time.process_time() - started
        spent, slowest = spent + took, max(slowest, took)
        state.play(choice)
        moves += 1
    area = state.view().area
    return {
        "seed": seed,
        "total": state.score().total,
        "completed": sum(task.status is COMPLETED for task in area.tasks),
        "failed": sum(task.status is FAILED for task in area.tasks),
        "moves": moves,
        "seconds": round(spent, 3),
        "slowest": round(slowest, 3),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("command", choices=("save", "play"))
    parser.add_argument("--games", type=int, default=100)
    parser.add_argument("--seed", type=int, default=1001)
    parser.add_argument("--threshold", type=int, default=24, help="tiles left to reveal (save)")
    parser.add_argument("--positions", default="positions.pkl", help="the saved positions (play)")
    parser.add_argument("--spread", type=int, help="endgame futures at most this many times the budget")
    parser.add_argument("--endgame-width", type=int, help="endgame candidates")
    parser.add_argument("--futures", type=int, help="the planner's futures a decision")
    parser.add_argument("--depth", type=int, help="the planner's tiles a rollout")
    parser.add_argument("--shortlist", type=int, help="placements the rollout policy values (planner: 4)")
    parser.add_argument(
        "--clairvoyant",
        type=int,
        metavar="N",
        help="play out with the clairvoyant bound: N candidates x N rollouts",
    )
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--against", help="another play run's lines, to compare game for game")
    parser.add_argument("--out", required=True)
    args = parser.parse_args()
    if args.command == "save":
        jobs = [(args.seed + i, args.threshold) for i in range(args.games)]
        saved: Saved = {}
        with multiprocessing.Pool(args.workers) as pool:
            for seed, played, random_state in pool.imap_unordered(save, jobs):
                saved[seed] = (played, random_state)
        with open(args.out, "wb") as out:
            pickle.dump(saved, out)
        print(f"{len(saved)} positions saved to {args.out}")
        return
    with open(args.positions, "rb") as found:
        saved = pickle.load(found)
    options = {
        "iterations": args.futures,
        "depth": args.depth,
        "shortlist": args.shortlist,
        "clairvoyant": args.clairvoyant,
    }
    options = {key: value for key, value in options.items() if value is not None}
    init = (saved, options, args.spread, args.endgame_width)
    with multiprocessing.Pool(args.workers, start_worker, init) as pool:
        lines = collected(pool.imap(play, sorted(saved)), args.out, sys.stderr)
    totals = [line["total"] for line in lines]
    moves = sum(line["moves"] for line in lines)
    spent = sum(line["seconds"] for line in lines)
    print(
        f"{len(lines)} games: mean {statistics.mean(totals):.2f}; the endgame {spent / max(moves, 1):.3f} s "
        f"a placement (processor time), the slowest {max(line['slowest'] for line in lines):.3f} s"
    )
    if args.against:
        print(against(lines, args.against))


if __name__ == "__main__":
    main()
