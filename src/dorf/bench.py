"""``dorf bench``: solo games by a uniformly random player, timed.

Each turn enumerates every legal placement and picks one uniformly, so the
figure measures the enumerator and the incremental play area together.
"""

from __future__ import annotations

import json
import random
import time
from typing import Any

from dorf.coop import CoopGame
from dorf.tiles import TileSet, load_tileset


def run_bench(games: int, seed: int, tileset: TileSet | None = None) -> dict[str, Any]:
    """Play ``games`` solo games from seeds ``seed, seed+1, ...``; return the figures."""
    tiles = tileset or load_tileset()
    placements = 0
    total_score = 0
    started = time.perf_counter()
    for g in range(games):
        state = CoopGame(seed=seed + g, tileset=tiles).new_state()
        rng = random.Random(seed + g)
        while True:
            moves = state.legal_moves()
            if not moves:
                break
            cell, rot = moves[rng.randrange(len(moves))]
            state.push_move(cell, rot)
            placements += 1
        total_score += state.score().total
    seconds = time.perf_counter() - started
    return {
        "games": games,
        "placements": placements,
        "seconds": round(seconds, 3),
        "placements_per_s": round(placements / seconds, 1) if seconds else 0.0,
        "games_per_s": round(games / seconds, 2) if seconds else 0.0,
        "mean_score": round(total_score / games, 2) if games else 0.0,
    }


def bench_line(games: int, seed: int) -> str:
    return json.dumps(run_bench(games, seed))
