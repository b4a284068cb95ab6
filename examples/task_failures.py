"""Where the planner fails tasks in the solo Board Game, and whether it had to (docs/players.md).

    .venv/bin/python examples/task_failures.py --games 20 --seed 1 [--player planner] [--workers 2]

Plays solo games as ``dorf simulate --player planner`` plays them (each player seeded with
``player_seed(game seed, 0)``). At every placement after which a task has failed (its area grown
past its number, or closed short of it), it prints the turn, the tiles left, how many legal
placements there were and how many of them fail no task, and the look-ahead's values of the
candidates it weighed, the chosen first: a failure with placements that fail nothing is one the
planner chose over them.
"""

from __future__ import annotations

import argparse
import json
import multiprocessing
from typing import Any

from dorf.commands.simulate import player_seed
from dorf.games.coop import CoopGame
from dorf.players.planner import PlannerPlayer, position_of
from dorf.players.registry import make_player
from dorf.rules.area import PlayArea
from dorf.rules.tasks import FAILED, OPEN


def failures(job: tuple[int, str]) -> dict[str, Any]:
    """One game: its score and each placement that failed a task."""
    seed, spec = job
    player = make_player(spec, player_seed(seed, 0))
    assert isinstance(player, PlannerPlayer)
    state = CoopGame(seed=seed).new_state()
    found = []
    turn = 0
    while not state.is_over:
        view = state.view()
        position = position_of(view)
        area = position.area
        opened = [task.status is OPEN for task in area.tasks]
        legal = area.legal_moves(position.face, position.task)
        harmless = 0
        for cell, k in legal:
            area.push(position.face, cell, k, flag=position.flag, task=position.task)
            harmless += not failed_since(area, opened)
            area.pop()
        weighed = player.analyse(view)
        state.play(weighed[0][1])
        failed = failed_since(state.view().area, opened)
        if failed:
            found.append(
                {
                    "turn": turn,
                    "landscapes_left": position.landscapes_left,
                    "tasks_left": position.tasks_left,
                    "failed": failed,
                    "legal": len(legal),
                    "failing_none": harmless,
                    "values": [round(value, 1) for value, _ in weighed],
                }
            )
        turn += 1
    return {"seed": seed, "total": state.score().total, "failures": found}


def failed_since(area: PlayArea, opened: list[bool]) -> int:
    """Tasks failed in ``area`` that were open before (``opened``) or have come since."""
    return sum(
        1 for i, task in enumerate(area.tasks) if task.status is FAILED and (i >= len(opened) or opened[i])
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=20)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--player", default="planner")
    parser.add_argument("--workers", type=int, default=2)
    args = parser.parse_args()
    jobs = [(args.seed + i, args.player) for i in range(args.games)]
    games = []
    with multiprocessing.Pool(args.workers) as pool:
        for game in pool.imap(failures, jobs):
            games.append(game)
            print(json.dumps(game), flush=True)
    events = [event for game in games for event in game["failures"]]
    chosen = sum(1 for event in events if event["failing_none"])
    print(
        f"{len(games)} games: {len(events)} placements failed a task ({len(events) / len(games):.2f} a game),"
        f" {chosen} of them with a legal placement failing none"
    )


if __name__ == "__main__":
    main()
