"""``dorf bench``: games by uniformly random players, timed.

Each turn enumerates every legal placement and picks one uniformly, so the
figure measures the enumerator and the incremental play area together.  The
cooperative game is played solo; in the Duel and Head to Head both players
are random (the draft picks too), and both players' placements count.
"""

from __future__ import annotations

import json
import random
import time
from typing import Any

from dorf.games.coop import CoopGame
from dorf.games.duel import DuelGame, DuelState
from dorf.games.headtohead import HeadToHeadGame, HeadToHeadState
from dorf.rules.tiles import TileSet, load_tileset

BENCH_MODES = ("coop", "duel", "head-to-head")
_TILESETS = {"coop": "base", "duel": "duel", "head-to-head": "head-to-head"}


def _coop_game(seed: int, tiles: TileSet, rng: random.Random) -> tuple[int, float]:
    state = CoopGame(seed=seed, tileset=tiles).new_state()
    placements = 0
    while True:
        moves = state.legal_moves()
        if not moves:
            break
        cell, rot = moves[rng.randrange(len(moves))]
        state.push_move(cell, rot)
        placements += 1
    return placements, state.score().total


def _two_player_game(mode: str, seed: int, tiles: TileSet, rng: random.Random) -> tuple[int, float]:
    """One game of random players; returns placements (both players') and the mean of the two totals."""
    game: DuelState | HeadToHeadState
    if mode == "duel":
        game = DuelGame(seed=seed, tileset=tiles).new_state()
    else:
        game = HeadToHeadGame(seed=seed, tileset=tiles).new_state()
        while game.pool:
            game.pick(game.pool[rng.randrange(len(game.pool))])
    placements = 0
    while True:
        waiting = game.to_move()
        if not waiting:
            break
        player = waiting[0]
        moves = game.legal_moves(player)
        cell, rot = moves[rng.randrange(len(moves))]
        game.push_move(cell, rot, player)
        placements += 1
    return placements, sum(pad.total for pad in game.scores()) / 2


def run_bench(games: int, seed: int, tileset: TileSet | None = None, mode: str = "coop") -> dict[str, Any]:
    """Play ``games`` games from seeds ``seed, seed+1, ...``; return the figures."""
    tiles = tileset or load_tileset(_TILESETS[mode])
    placements = 0
    total_score = 0.0
    started = time.perf_counter()
    for g in range(games):
        rng = random.Random(seed + g)
        if mode == "coop":
            placed, score = _coop_game(seed + g, tiles, rng)
        else:
            placed, score = _two_player_game(mode, seed + g, tiles, rng)
        placements += placed
        total_score += score
    seconds = time.perf_counter() - started
    return {
        "mode": mode,
        "games": games,
        "placements": placements,
        "seconds": round(seconds, 3),
        "placements_per_s": round(placements / seconds, 1) if seconds else 0.0,
        "games_per_s": round(games / seconds, 2) if seconds else 0.0,
        "mean_score": round(total_score / games, 2) if games else 0.0,
    }


def bench_line(games: int, seed: int, mode: str = "coop") -> str:
    return json.dumps(run_bench(games, seed, mode=mode))
