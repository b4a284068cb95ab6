"""``dorf bench``: the engine timed, on the play-area backend in use or on both side by side.

Three measures (``--measure``):

- ``play`` (the default): games by uniformly random players.  Each turn enumerates every
  legal placement and picks one uniformly, so the figure measures the enumerator and the
  incremental play area together with the game's own flow.  The cooperative game is
  played solo; in the Duel and Head to Head both players are random (the draft picks
  too), and both players' placements count.
- ``search``: the search player (:mod:`dorf.players.search`) analysing seeded positions
  of the mode with a budget of futures; the figure is sampled futures a second, and the
  output lists the placements it chose (the same on both backends).
- ``memory``: what the fullest play area a box makes costs in bytes, measured with
  :mod:`tracemalloc` (every tile of the set placed at its first legal move).

``dorf bench --measure vector [--mode M] [--envs 1,64,256,1024] [--steps S] [--workers W]`` times
the batched reinforcement-learning environments (of the Board Game, or with ``--mode`` the
two-seat self-play batch) beside the single one; it lives in :mod:`dorf.rl.bench`
(this module, one of :mod:`dorf.commands`, does not import ``dorf.rl``), and ``dorf.cli`` calls it.

``--compare`` runs the measure on the pure and the compiled backend in turn, in the same
process, and prints both figures and their ratio.  The line says which backend ran
(``"backend"``): ``compiled`` where the C core is built, ``pure`` where it is not or
DORF_PURE=1 is set.
"""

from __future__ import annotations

import gc
import json
import random
import time
import tracemalloc
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from typing import Any

from dorf.games.coop import CoopState
from dorf.games.duel import DuelState
from dorf.games.headtohead import HeadToHeadState
from dorf.games.modes import MODES
from dorf.players.planner import PlannerPlayer
from dorf.players.search import SearchPlayer
from dorf.rules.area import COMPILED, PlayArea, backend, placement_at, use_backend
from dorf.rules.tasks import DOUBLE, TaskSpec
from dorf.rules.tiles import TileSet, load_tileset

BENCH_MODES = tuple(MODES)
MEASURES = ("play", "search", "planner", "memory")
#: What one play area may cost, in bytes, in either backend.
AREA_BUDGET = 64 * 1024
#: Futures the search player samples a decision in ``--measure search``.
SEARCH_FUTURES = 12


class BenchError(ValueError):
    """A benchmark that cannot run here (the compiled backend is not built)."""


# --- play ----------------------------------------------------------------------------------


def _lay_table(state: CoopState, rng: random.Random) -> int:
    """Random placements to the end of a cooperative game; returns how many."""
    placements = 0
    while True:
        moves = state.legal_moves()
        if not moves:
            break
        cell, rot = moves[rng.randrange(len(moves))]
        state.push_move(cell, rot)
        placements += 1
    return placements


def _lay_seats(state: DuelState | HeadToHeadState, rng: random.Random) -> int:
    """Random placements to the end of a two-player game, whoever is to move; returns how many."""
    placements = 0
    while True:
        waiting = state.to_move()
        if not waiting:
            break
        player = waiting[0]
        moves = state.legal_moves(player)
        cell, rot = moves[rng.randrange(len(moves))]
        state.push_move(cell, rot, player)
        placements += 1
    return placements


#: Per game, random play to the end through the unchecked ``push_move`` (the hot path this times;
#: the state's interface has only the checked ``apply``): the cooperative state's places for
#: whoever is to move, the two-player states' take the player.
_LAYING: dict[str, Callable[[Any, random.Random], int]] = {
    "coop": _lay_table,
    "duel": _lay_seats,
    "head-to-head": _lay_seats,
}


def _random_draft(state: HeadToHeadState, rng: random.Random) -> None:
    """Random picks to the end of the draft."""
    while state.pool:
        state.pick(state.pool[rng.randrange(len(state.pool))])


#: The games with a draft (Head to Head), and its random picks: straight from the open pool, as
#: listing the legal decisions for every pick would make the draft several times slower.
_DRAFTS: dict[str, Callable[[Any, random.Random], None]] = {"head-to-head": _random_draft}


def _random_game(mode: str, seed: int, tiles: TileSet, rng: random.Random) -> tuple[int, float, float]:
    """One game of random players; returns placements (every player's), the mean of the areas'
    totals and the seconds the draft took (it places no tile: ``run_bench`` times it apart)."""
    started = time.perf_counter()
    state = MODES[mode].new(seed, tileset=tiles)
    draft = 0.0
    if mode in _DRAFTS:
        _DRAFTS[mode](state, rng)
        draft = time.perf_counter() - started
    placements = _LAYING[mode](state, rng)
    pads = state.scores()
    return placements, sum(pad.total for pad in pads) / len(pads), draft


def run_bench(games: int, seed: int, tileset: TileSet | None = None, mode: str = "coop") -> dict[str, Any]:
    """Play ``games`` games from seeds ``seed, seed+1, ...``; return the figures.

    ``seconds`` is the time of whole games (dealing, every placement, scoring), except in Head
    to Head the draft before the laying: it places no tile, and its own time is
    ``draft_seconds``; ``games_per_s`` counts both."""
    tiles = tileset or load_tileset(MODES[mode].tileset)
    placements = 0
    total_score = 0.0
    draft = 0.0
    started = time.perf_counter()
    for g in range(games):
        rng = random.Random(seed + g)
        placed, score, drafting = _random_game(mode, seed + g, tiles, rng)
        draft += drafting
        placements += placed
        total_score += score
    whole = time.perf_counter() - started
    seconds = whole - draft
    out = {
        "mode": mode,
        "backend": backend(),
        "games": games,
        "placements": placements,
        "seconds": round(seconds, 3),
        "placements_per_s": round(placements / seconds, 1) if seconds else 0.0,
        "games_per_s": round(games / whole, 2) if whole else 0.0,
        "mean_score": round(total_score / games, 2) if games else 0.0,
    }
    if mode in _DRAFTS:
        out["draft_seconds"] = round(draft, 3)
    return out


# --- search --------------------------------------------------------------------------------


def _positions(mode: str, games: int, seed: int) -> list[Any]:
    """Seeded positions to analyse: each game advanced by random placements to its 10th to 30th tile."""
    views: list[Any] = []
    for g in range(games):
        rng = random.Random(seed + g)
        steps = 10 + (seed + g) % 21
        state = MODES[mode].new(seed + g)
        if mode in _DRAFTS:
            _DRAFTS[mode](state, rng)
        for _ in range(steps * len(state.areas)):  # each area to its 10th to 30th tile
            waiting = state.to_move()
            if not waiting:
                break
            moves = state.legal_moves(waiting[0])
            state.apply(placement_at(*moves[rng.randrange(len(moves))]), waiting[0])
        if waiting := state.to_move():
            views.append(state.view(waiting[0]))
    return views


def run_search_bench(games: int, seed: int, mode: str = "coop", player: str = "search") -> dict[str, Any]:
    """The search player's (or the planner's) decisions at seeded positions: sampled futures a second."""
    views = _positions(mode, games, seed)
    chosen = []
    make = SearchPlayer if player == "search" else PlannerPlayer
    started = time.perf_counter()
    for i, view in enumerate(views):
        chosen.append(str(make(seed + i, iterations=SEARCH_FUTURES).choose(view)))
    seconds = time.perf_counter() - started
    futures = SEARCH_FUTURES * len(views)
    return {
        "mode": mode,
        "backend": backend(),
        "decisions": len(views),
        "futures": futures,
        "seconds": round(seconds, 3),
        "futures_per_s": round(futures / seconds, 1) if seconds else 0.0,
        "chosen": chosen,
    }


# --- memory --------------------------------------------------------------------------------


def _box(tileset: TileSet) -> list[tuple[str, str | None, TaskSpec | None]]:
    """Every tile of the set with its flag and a task (printed, or the next marker of its type)."""
    markers = {kind: list(values) for kind, values in tileset.markers.items()}
    doubles = list(tileset.doubles)
    out = []
    for tile in tileset.tiles:
        task = None
        if tile.task == DOUBLE:
            task = TaskSpec(DOUBLE, 6, doubles.pop()) if doubles else None
        elif tile.task is not None:
            pile = markers.get(tile.task, [])
            value = tile.value if tile.value is not None else (pile.pop() if pile else None)
            task = None if value is None else TaskSpec(tile.task, value)
        out.append((tile.face, tile.flag, task))
    return out


def _fill(box: list[tuple[str, str | None, TaskSpec | None]]) -> PlayArea:
    area = PlayArea()
    for face, flag, task in box:
        moves = area.legal_moves(face, task)
        if moves:
            area.push(face, *moves[0], flag=flag, task=task)
    return area


#: Frames tracemalloc keeps of each allocation: enough to find :func:`_fill` below the area's own.
_TRACE_FRAMES = 64


def area_bytes(mode: str = "coop") -> tuple[int, int]:
    """Tiles and bytes of the fullest area the mode's box makes: every tile of the set placed
    at its first legal move (more than any game of the mode places in one area).  Bytes are
    every allocation the area holds (its Python objects and, for the compiled core, its C
    arrays), by :mod:`tracemalloc`, after one area has been built to fill the caches shared
    by all areas (tile tables, cached moves).  Only what is allocated under :func:`_fill` counts:
    another thread of the process (a test's server, say) allocating meanwhile does not.

    The measurement runs in a thread of its own: tracemalloc walks each allocation's frames, and
    a caller's deep stack (a test runner's hundred frames) made the same figure five times dearer."""
    with ThreadPoolExecutor(1) as thread:
        return thread.submit(_area_bytes, mode).result()


def _area_bytes(mode: str) -> tuple[int, int]:
    # What the process held before is frozen out of the collector's sight: a collection then looks
    # at the measurement's own objects only (a test process's heap made each one take 0.2 s).
    gc.freeze()
    try:
        box = _box(load_tileset(MODES[mode].tileset))
        _fill(box)
        gc.collect()
        tracing = tracemalloc.is_tracing()
        if not tracing:
            tracemalloc.start(_TRACE_FRAMES)
        try:
            before = tracemalloc.take_snapshot()
            area = _fill(box)
            gc.collect()
            after = tracemalloc.take_snapshot()
        finally:
            if not tracing:
                tracemalloc.stop()
    finally:
        gc.unfreeze()
    under_fill = [tracemalloc.Filter(True, _fill.__code__.co_filename, all_frames=True)]
    grown = after.filter_traces(under_fill).compare_to(before.filter_traces(under_fill), "filename")
    return len(area), sum(stat.size_diff for stat in grown)


def run_memory_bench(mode: str = "coop") -> dict[str, Any]:
    tiles, used = area_bytes(mode)
    return {"mode": mode, "backend": backend(), "tiles": tiles, "bytes": used, "budget": AREA_BUDGET}


# --- the command -----------------------------------------------------------------------------

_FIGURE = {
    "play": "placements_per_s",
    "search": "futures_per_s",
    "planner": "futures_per_s",
    "memory": "bytes",
}


def _measure(measure: str, games: int, seed: int, mode: str) -> dict[str, Any]:
    if measure == "play":
        return run_bench(games, seed, mode=mode)
    if measure in ("search", "planner"):
        return run_search_bench(games, seed, mode=mode, player=measure)
    return run_memory_bench(mode)


def compare(measure: str, games: int, seed: int, mode: str, rounds: int = 3) -> dict[str, Any]:
    """The measure on the pure and the compiled backend, in turn, ``rounds`` times; the best
    figure of each (the smallest for memory) and their ratio (compiled over pure, or pure over
    compiled for memory), with the pure run's other figures."""
    if COMPILED is None:
        raise BenchError("the compiled backend is not built (or DORF_PURE is set): nothing to compare")
    best: dict[str, dict[str, Any]] = {}
    pick: Callable[[float, float], float] = min if measure == "memory" else max
    previous = backend()
    try:
        for _ in range(rounds if measure != "memory" else 1):
            for name in ("pure", "compiled"):
                use_backend(name)
                figures = _measure(measure, games, seed, mode)
                old = best.get(name)
                if (
                    old is None
                    or pick(figures[_FIGURE[measure]], old[_FIGURE[measure]]) != old[_FIGURE[measure]]
                ):
                    best[name] = figures
    finally:
        use_backend(previous)
    pure, compiled = best["pure"][_FIGURE[measure]], best["compiled"][_FIGURE[measure]]
    out = {k: v for k, v in best["pure"].items() if k not in ("backend", "seconds", _FIGURE[measure])}
    out.update({"measure": measure, "pure": pure, "compiled": compiled})
    out["ratio"] = (
        round(pure / compiled if measure == "memory" else compiled / pure, 2) if pure and compiled else 0.0
    )
    if measure in ("search", "planner"):
        out["same_choices"] = best["pure"]["chosen"] == best["compiled"]["chosen"]
        out.pop("chosen")
    if measure == "play":
        same = (best["pure"]["placements"], best["pure"]["mean_score"])
        out["same_games"] = same == (best["compiled"]["placements"], best["compiled"]["mean_score"])
    return out


def bench_line(
    games: int, seed: int, mode: str = "coop", measure: str = "play", compared: bool = False
) -> str:
    if compared:
        return json.dumps(compare(measure, games, seed, mode))
    return json.dumps(_measure(measure, games, seed, mode))
