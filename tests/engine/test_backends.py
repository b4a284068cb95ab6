"""The two play-area backends side by side: the compiled core against the pure Python reference.

Random games of the three modes are played twice in step, one state whose areas are
compiled and one whose areas are pure, with the same decisions.  After every placement
both must agree on everything the engine keeps and every reading of it, in the same
order: the legal moves of the next tile (and of other faces and tasks), the placed
tiles, tasks and their statuses, the last changes, groups with their cells and tasks,
the frontier, longest networks, lakes and mountains, score pads, the figures of every
tile, edge contacts, and why a placement is illegal.  Now and then the last placement
is undone on both, and both must come back the same.

Also here: the compiled backend is really built where it must be (DORF_REQUIRE_COMPILED),
a play area's memory stays within 64 KB in both backends, a build without a C compiler
falls back to the pure backend, and every method that reads the pure area's internals is
provided by the compiled core too.
"""

from __future__ import annotations

import ast
import importlib.util
import inspect
import os
import random
import shutil
import subprocess
import sys
import textwrap
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any, TypeVar

import pytest

from budget import examples
from dorf.commands.bench import AREA_BUDGET, area_bytes
from dorf.games.coop import CoopGame, CoopState
from dorf.games.duel import DuelGame, DuelState
from dorf.games.headtohead import HeadToHeadGame, HeadToHeadState
from dorf.players import evaluation
from dorf.rules import area as area_module
from dorf.rules.area import COMPILED, Placement, PlayArea, backend, random_bits, random_floats, use_backend
from dorf.rules.hexgrid import CELL_DELTAS, cell_of, hex_of
from dorf.rules.scoring import SCORERS
from dorf.rules.tasks import TaskSpec
from dorf.rules.tiles import TileSet
from repo import ROOT

needs_compiled = pytest.mark.skipif(COMPILED is None, reason="the compiled backend is not built")
AVAILABLE = ["compiled", "pure"] if COMPILED is not None else ["pure"]
T = TypeVar("T")


@contextmanager
def using(name: str) -> Iterator[None]:
    previous = use_backend(name)
    try:
        yield
    finally:
        use_backend(previous)


def on(name: str, action: Callable[..., T], *args: Any) -> T:
    """``action(*args)`` with ``PlayArea()`` making areas of backend ``name``."""
    with using(name):
        return action(*args)


def push(state: Any, cell: int, k: int, player: int | None) -> None:
    if player is None:
        state.push_move(cell, k)
    else:
        state.push_move(cell, k, player)


# --- reading an area and a game in backend-neutral terms --------------------------------


def task_view(task: Any) -> tuple[Any, ...]:
    return (task.cell, task.spec, task.status)


def readings(
    area: PlayArea, mode: str, rng: random.Random, faces: list[tuple[str, TaskSpec | None]], probes: int
) -> Any:
    """Everything a caller can read from ``area``, with ``probes`` probes of each kind chosen by ``rng``."""
    placed = [
        (t.face, t.at, t.rot, t.flag, None if t.task is None else task_view(t.task)) for t in area.placed
    ]
    out: dict[str, Any] = {
        "placed": placed,
        "len": len(area),
        "tasks": [task_view(t) for t in area.tasks],
        "active": area.active_count,
        "active_tasks": [task_view(t) for t in area.active_tasks()],
        "changes": [(task_view(t), s) for t, s in area.last_changes()],
        "networks": (area.longest_river, area.longest_track, area.lakes, area.mountains),
        "frontier": area.frontier(),
        "frontier_cells": area.frontier_cells(),
        "groups": [
            (g.letter, g.size, g.open_edges, g.closed, g.cells, [task_view(t) for t in g.tasks])
            for g in area.groups()
        ],
        "flags": [(t.at, g.letter, g.size, g.open_edges) for t, g in area.flags()],
        "tile_figures": list(area.tile_figures()),
        "score": SCORERS[mode](area).as_json(),
    }
    for tile in rng.sample(area.placed, min(probes, len(area.placed))):
        cell = cell_of(*tile.at)
        for letter in sorted(set(tile.edges) - {"M"}):
            out[f"figures {cell} {letter}"] = area.figures(cell, letter)
            group = area.group(tile.at, letter)
            out[f"group {cell} {letter}"] = None if group is None else (group.size, group.cells)
        for letter in sorted(set(tile.edges) | {"X"}):
            # the same cells in the same order, each with the same direction back
            out[f"open_cells {cell} {letter}"] = list(area.open_cells(cell, letter).items())
        out[f"tile_at {cell}"] = area.tile_at(tile.at) == tile
        out[f"edges_at {cell}"] = area.edges_at(tile.at)
    cells = area.frontier_cells()
    for face, task in rng.sample(faces, min(probes, len(faces))):
        moves = area.legal_moves(face, task)
        out[f"moves {face} {task}"] = moves
        out[f"move_array {face} {task}"] = list(area.move_array(moves))
        out[f"has {face} {task}"] = area.has_legal_placement(face, task)
        out[f"placements {face} {task}"] = area.legal_placements(face, task)
        noise = [rng.random() for _ in moves]
        out[f"contacts {face}"] = area.contact_values(face, sorted(moves), 1.0, 0.5, noise)
        near = set(rng.sample(cells, min(3, len(cells))))
        out[f"contacts {face} best 2"] = area.contact_values(face, sorted(moves), 1.0, 0.5, noise, 2, near)
        for cell in rng.sample(cells, min(probes, len(cells))):
            out[f"around {face} {cell}"] = (
                area.surroundings(cell),
                area.contacts(face, cell, rng.randrange(6)),
            )
            at = hex_of(cell + rng.choice((0, *CELL_DELTAS)))
            k = rng.randrange(6)
            out[f"why {face} {task} {at} {k}"] = area.why_illegal(face, Placement(at, k), task)
            out[f"neighbours {at}"] = area.neighbours(at)
    return out


def turns_of(turns: list[Any]) -> list[Any]:
    out = []
    for turn in turns:
        changes = turn.changes if isinstance(turn.changes, list) else [turn.changes]
        out.append(
            (
                turn.number,
                turn.revealed.tile_id,
                turn.revealed.task,
                getattr(turn, "placement", None) or getattr(turn, "placements", None),
                turn.set_aside,
                [[(task_view(t), s) for t, s in part] for part in changes],
            )
        )
    return out


def probe_faces(tileset: TileSet) -> list[tuple[str, TaskSpec | None]]:
    """Every face of the set, alone and with a task of its tile's type (and a few values)."""
    faces: list[tuple[str, TaskSpec | None]] = []
    for tile in tileset.tiles:
        faces.append((tile.face, None))
        if tile.task == "double":
            for pair in tileset.doubles[:1]:
                faces.append((tile.face, TaskSpec("double", 6, pair)))
        elif tile.task is not None:
            for value in (1, 3, tile.value or 5):
                faces.append((tile.face, TaskSpec(tile.task, value)))
    return sorted(set(faces), key=str)


# --- games in step -----------------------------------------------------------------------


def coop_states(seed: int) -> dict[str, CoopState]:
    return {
        name: on(name, lambda: CoopGame(seed=seed, players=2).new_state()) for name in ("compiled", "pure")
    }


def duel_states(seed: int) -> dict[str, DuelState]:
    return {name: on(name, lambda: DuelGame(seed=seed).new_state()) for name in ("compiled", "pure")}


def head_to_head_states(seed: int) -> dict[str, HeadToHeadState]:
    states = {name: on(name, lambda: HeadToHeadGame(seed=seed).new_state()) for name in ("compiled", "pure")}
    rng = random.Random(seed)
    while states["pure"].pool:
        tile_id = rng.choice(states["pure"].pool)
        for name, state in states.items():
            on(name, state.pick, tile_id)
    return states


def areas_of(state: Any) -> list[PlayArea]:
    if isinstance(state, CoopState):
        return [state.area]
    if isinstance(state, DuelState):
        return list(state.areas)
    return [state.area(0), state.area(1)]


def snapshot(
    state: Any, mode: str, seed: int, faces: list[tuple[str, TaskSpec | None]], probes: int = 3
) -> Any:
    rng = random.Random(seed)
    if isinstance(state, CoopState):
        moves: Any = state.legal_moves()
        turns = turns_of(state.turns)
        extra: Any = (
            state.turn,
            state.player,
            state.is_over,
            state.score().as_json(),
            state.legal_placements(),
        )
    elif isinstance(state, DuelState):
        moves = [state.legal_moves(p) for p in (0, 1)]
        turns = turns_of(state.turns)
        extra = (state.to_move(), state.history, [p.as_json() for p in state.scores()], state.winner())
    else:
        moves = [state.legal_moves(p) for p in (0, 1)]
        turns = [turns_of(seat.turns) for seat in state.seats]
        extra = (state.to_move(), state.history, [p.as_json() for p in state.scores()], state.winner())
    return moves, turns, extra, [readings(area, mode, rng, faces, probes) for area in areas_of(state)]


def play_in_step(mode: str, seed: int, states: dict[str, Any], probes: int = 3) -> int:
    """Play ``states`` (one per backend) to the end with the same random decisions; returns the
    placements made.  After each, both must read the same; now and then one is undone and redone."""
    faces = probe_faces(states["pure"].game.tileset)
    rng = random.Random(seed)
    placements = 0

    def both(action: Callable[..., Any], *args: Any) -> list[Any]:
        return [on(name, action, state, *args) for name, state in states.items()]

    def same(step: int) -> None:
        compiled, pure = both(snapshot, mode, seed * 1000 + step, faces, probes)
        assert compiled == pure, f"{mode} seed {seed}: the backends differ after placement {step}"

    same(0)
    while True:
        if mode == "coop":
            moves = states["pure"].legal_moves()
            player = None
        else:
            waiting = states["pure"].to_move()
            if not waiting:
                break
            player = waiting[rng.randrange(len(waiting))]
            moves = states["pure"].legal_moves(player)
        if not moves:
            break
        cell, k = moves[rng.randrange(len(moves))]
        both(push, cell, k, player)
        placements += 1
        same(placements)
        if rng.random() < 0.15:
            both(type(states["pure"]).undo)
            same(placements - 1)
            both(push, cell, k, player)
            same(placements)
    return placements


GAMES = {"coop": coop_states, "duel": duel_states, "head-to-head": head_to_head_states}


@needs_compiled
@pytest.mark.parametrize("mode", list(GAMES))
def test_one_game_of_each_mode_reads_the_same_on_both_backends(mode: str) -> None:
    assert play_in_step(mode, 7, GAMES[mode](7), probes=1) > 20


@needs_compiled
@pytest.mark.slow
@pytest.mark.parametrize("mode", list(GAMES))
def test_random_games_read_the_same_on_both_backends(mode: str) -> None:
    for seed in range(100, 100 + examples(4)):
        play_in_step(mode, seed, GAMES[mode](seed))


@needs_compiled
def test_undo_to_the_empty_area_and_replay_in_a_new_order() -> None:
    """The frontier's order after push and pop is a dict's: popped cells come back last."""
    states = coop_states(3)
    rng = random.Random(3)
    faces = probe_faces(states["pure"].game.tileset)
    for _ in range(25):
        moves = states["pure"].legal_moves()
        cell, k = moves[rng.randrange(len(moves))]
        for name, state in states.items():
            on(name, push, state, cell, k, None)
    while states["pure"].decisions:
        for name, state in states.items():
            on(name, state.undo)
        views = [on(name, snapshot, state, "coop", 5, faces) for name, state in states.items()]
        assert views[0] == views[1]


@needs_compiled
def test_pop_returns_the_same_tile_and_an_empty_area_refuses() -> None:
    areas = [on(name, PlayArea) for name in ("compiled", "pure")]
    assert type(areas[0]) is COMPILED and type(areas[1]) is PlayArea
    for area in areas:
        area.play("RMMRMM", Placement(hex_of(cell_of(0, 0)), 0), task=None)
        area.play("RFFFFF", Placement(hex_of(cell_of(0, -1)), 3), flag="F", task=TaskSpec("forest", 2))
    tiles = [area.pop() for area in areas]
    assert tiles[0][:4] == tiles[1][:4] and tiles[0].task is not None and tiles[1].task is not None
    assert task_view(tiles[0].task) == task_view(tiles[1].task)
    for area in areas:
        area.pop()
        with pytest.raises(IndexError, match="pop from an empty play area"):
            area.pop()
        assert area.frontier() == [hex_of(cell_of(0, 0))] and area.tasks == [] and area.active_count == 0


@needs_compiled
def test_bad_faces_and_cells_are_refused_by_the_compiled_core_without_harm() -> None:
    area = on("compiled", PlayArea)
    with pytest.raises(ValueError, match="six edge letters"):
        area.legal_moves("RMM")
    with pytest.raises(ValueError, match="six edge letters"):
        area.push("QQQQQQ", cell_of(0, 0), 0)
    with pytest.raises(ValueError, match="off the grid"):
        area.push("MMMMMM", 0, 0)
    assert len(area) == 0 and area.legal_moves("MMMMMM") == on("pure", PlayArea).legal_moves("MMMMMM")
    for bad in ((1, 2), [(1, 2, 3)], [[1, 2]], [("a", 0)]):
        with pytest.raises(TypeError):
            area.move_array(bad)  # type: ignore[arg-type]
    with pytest.raises(OverflowError):
        area.move_array([(2**40, 0)])
    assert list(area.move_array([])) == [] and len(area) == 0


def test_move_array_flattens_the_moves_on_both_backends() -> None:
    moves = [(cell_of(0, 0), 0), (cell_of(2, -1), 5), (cell_of(-3, 4), 2)]
    for name in AVAILABLE:
        area = on(name, PlayArea)
        flat = area.move_array(moves)
        assert flat.typecode == "i" and list(flat) == [v for move in moves for v in move]


def test_open_cells_walk_the_group_on_a_hand_built_board_on_both_backends() -> None:
    """Two forest tiles joined by one edge: the empty cells their other forest edges face, each with
    the direction back, in the order of the depth-first walk; a multicoloured flag edge (``X``)
    follows the territory it meets, or faces its own empty cell."""
    origin, east = cell_of(0, 0), cell_of(1, 0)  # east is direction 2 of origin
    for name in AVAILABLE:
        area = on(name, PlayArea)
        area.push("FMFMMM", origin, 0)  # forest toward directions 0 and 2
        area.push("MMMFMF", east, 0)  # forest toward 3 and 5 (back to origin)
        assert area.open_cells(origin, "F") == {origin + CELL_DELTAS[0]: 3, east + CELL_DELTAS[3]: 0}
        assert list(area.open_cells(east, "F")) == [east + CELL_DELTAS[3], origin + CELL_DELTAS[0]]
        assert area.open_cells(origin, "R") == {} and area.open_cells(cell_of(5, 5), "F") == {}
        flag = origin + CELL_DELTAS[0]
        area.push("MMMXMM", flag, 0)  # its X edge meets origin's forest edge
        assert area.open_cells(flag, "X") == area.open_cells(origin, "F") == {east + CELL_DELTAS[3]: 0}
        alone = cell_of(-4, 4)
        area.push("XMMMMM", alone, 0)
        assert area.open_cells(alone, "X") == {alone + CELL_DELTAS[0]: 3}
        with pytest.raises(ValueError):
            area.open_cells(origin, "FG")


def test_contact_values_keep_the_best_then_the_best_near_cells_on_both_backends() -> None:
    """``best=1``: the move with most joined edges, then the best of the rest whose cell is near."""
    origin = cell_of(0, 0)
    outcomes = []
    for name in AVAILABLE:
        area = on(name, PlayArea)
        area.push("FFFFFF", origin, 0)
        moves = sorted(area.legal_moves("FFFMMM"))
        noise = [0.0] * len(moves)
        ranked = area.contact_values("FFFMMM", moves, 1.0, 0.5, noise)
        far = ranked[-1][1][0]
        kept = area.contact_values("FFFMMM", moves, 1.0, 0.5, noise, 1, {far})
        assert kept == [ranked[0], next(entry for entry in ranked[1:] if entry[1][0] == far)], name
        assert area.contact_values("FFFMMM", moves, 1.0, 0.5, noise, 2, ()) == ranked[:2]
        assert area.contact_values("FFFMMM", moves, 1.0, 0.5, noise, None, ()) == ranked
        with pytest.raises(ValueError):
            area.contact_values("FFFMMM", moves, 1.0, 0.5, noise, -1, ())
        outcomes.append(kept)
    assert all(kept == outcomes[0] for kept in outcomes)


def test_contact_values_read_noise_as_random_bits_the_same_as_the_floats_on_both_backends() -> None:
    """``random_bits(rng, n)`` is the noise of ``n`` calls of ``rng.random()`` in one call: the same
    floats, the same state after; ``contact_values`` ranks the same with it as with the floats,
    ties included, and refuses bytes of the wrong length."""
    for seed in range(5):
        by_call, by_bits = random.Random(seed), random.Random(seed)
        n = 1 + seed * 50
        assert random_floats(random_bits(by_bits, n)) == [by_call.random() for _ in range(n)]
        assert by_call.random() == by_bits.random()
    assert random_bits(random.Random(1), 0) == b""
    origin = cell_of(0, 0)
    outcomes = []
    for name in AVAILABLE:
        area = on(name, PlayArea)
        area.push("FFFFFF", origin, 0)
        area.push("GGGRRG", origin + CELL_DELTAS[0], 2)
        moves = sorted(area.legal_moves("FFGGRR"))
        near = {cell for cell, _ in moves[::7]}
        found = []
        for seed in range(3):
            rng = random.Random(seed)
            floats = [rng.random() for _ in moves]
            bits = random_bits(random.Random(seed), len(moves))
            for best, close in ((None, ()), (0, near), (1, near), (3, near), (3, ()), (len(moves), near)):
                ranked = area.contact_values("FFGGRR", moves, 1.0, 0.5, floats, best, close)
                assert area.contact_values("FFGGRR", moves, 1.0, 0.5, bits, best, close) == ranked
                found.append(ranked)
        ties = [0.0] * len(moves)
        for best in (1, 2, 5):
            ranked = area.contact_values("FFGGRR", moves, 1.0, 0.5, ties)
            top = ranked[:best]
            rest = [entry for entry in ranked[best:] if entry[1][0] in near][:best]
            assert area.contact_values("FFGGRR", moves, 1.0, 0.5, ties, best, near) == top + rest
            found.append(top + rest)
        for wrong in (bits[:-1], bits + b"x", b""):
            with pytest.raises(ValueError, match="noise"):
                area.contact_values("FFGGRR", moves, 1.0, 0.5, wrong)
        outcomes.append(found)
    assert all(found == outcomes[0] for found in outcomes)


# --- the build and the backends ------------------------------------------------------------


def test_the_compiled_backend_is_built_where_it_is_required() -> None:
    """``./run.sh test`` sets DORF_REQUIRE_COMPILED=1 where a C compiler is (CI has one): the
    compiled backend must then be there and be the default, not silently the pure one."""
    if os.environ.get("DORF_REQUIRE_COMPILED", "") in ("", "0"):
        pytest.skip("DORF_REQUIRE_COMPILED is not set")
    assert importlib.util.find_spec("dorf.rules._accel") is not None, "dorf.rules._accel was not built"
    assert importlib.util.find_spec("dorf.players._quick") is not None, "dorf.players._quick was not built"
    if os.environ.get("DORF_PURE", "") in ("", "0"):  # DORF_PURE=1 keeps it unimported, by design
        assert COMPILED is not None, "the compiled core dorf.rules._accel did not import"
        assert backend() == "compiled"
        assert evaluation._compiled is not None, "the planner's dorf.players._quick did not import"


def test_use_backend_switches_what_play_area_makes() -> None:
    with using("pure"):
        assert backend() == "pure" and type(PlayArea()) is PlayArea
    if COMPILED is not None:
        with using("compiled"):
            assert backend() == "compiled" and type(PlayArea()) is COMPILED
            assert isinstance(PlayArea(), PlayArea)
    with pytest.raises(ValueError, match="unknown backend"):
        use_backend("fast")


def test_dorf_pure_forces_the_pure_backend_and_bench_says_which_ran() -> None:
    env = {**os.environ, "DORF_PURE": "1"}
    code = "from dorf.rules.area import backend, COMPILED; print(backend(), COMPILED)"
    code += "; from dorf.players.evaluation import _compiled; print(_compiled)"
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, check=True)
    assert done.stdout.split() == ["pure", "None", "None"]
    bench = subprocess.run(
        [sys.executable, "-m", "dorf.cli", "bench", "--games", "2"],
        capture_output=True,
        text=True,
        env=env,
        check=True,
    )
    assert '"backend": "pure"' in bench.stdout


@pytest.mark.slow
def test_a_build_without_a_c_compiler_falls_back_to_pure_python(tmp_path: Path) -> None:
    """``CC=false``: the extension fails to compile, the build still succeeds, dorf runs pure."""
    shutil.copy(ROOT / "setup.py", tmp_path / "setup.py")
    shutil.copy(ROOT / "pyproject.toml", tmp_path / "pyproject.toml")
    shutil.copy(ROOT / "README.md", tmp_path / "README.md")
    shutil.copytree(
        ROOT / "src", tmp_path / "src", ignore=shutil.ignore_patterns("*.so", "*.pyd", "__pycache__")
    )
    env = {**os.environ, "CC": "false"}
    env.pop("DORF_PURE", None)
    built = subprocess.run(
        [sys.executable, "setup.py", "build_ext", "--inplace"],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        env=env,
        check=False,
    )
    assert built.returncode == 0, built.stderr
    assert "failed" in built.stderr + built.stdout  # setuptools says the optional extension failed
    assert not list((tmp_path / "src").rglob("_accel*.so"))
    assert not list((tmp_path / "src").rglob("_quick*.so"))
    run = subprocess.run(
        [sys.executable, "-m", "dorf.cli", "bench", "--games", "2"],
        capture_output=True,
        text=True,
        env={**env, "PYTHONPATH": str(tmp_path / "src")},
        check=True,
    )
    assert '"backend": "pure"' in run.stdout


@pytest.mark.parametrize("name", ["compiled", "pure"])
@pytest.mark.parametrize("mode", ["coop", "duel", "head-to-head"])
def test_a_full_area_costs_at_most_64_kb(name: str, mode: str) -> None:
    """Measured with tracemalloc (every allocation the area makes, C ones included, as the
    compiled core allocates with PyMem): the fullest area a box makes, see dorf.commands.bench.area_bytes."""
    if name == "compiled" and COMPILED is None:
        pytest.skip("the compiled backend is not built")
    with using(name):
        tiles, used = area_bytes(mode)
    assert tiles >= 40
    assert used <= AREA_BUDGET, f"{name} {mode}: {used} bytes for {tiles} tiles"


def test_the_area_figure_leaves_out_what_another_thread_allocates_meanwhile() -> None:
    """A test process may run another test's server thread: its allocations are not the area's.
    (The figure moves by a few dozen bytes from one measurement to the next in one process, as
    shared caches settle; a thread's kilobytes would show.)"""
    import threading

    quiet = area_bytes("duel")[1]
    done = threading.Event()
    hoard: list[bytearray] = []

    def allocate() -> None:
        while not done.is_set():
            hoard.append(bytearray(4096))
            time.sleep(0)

    thread = threading.Thread(target=allocate)
    thread.start()
    try:
        for _ in range(10):  # until the thread has allocated during a measurement
            held = len(hoard)
            busy = area_bytes("duel")[1]
            if len(hoard) - held >= 2:
                break
    finally:
        done.set()
        thread.join()
    assert len(hoard) - held >= 2, "the other thread never ran during a measurement"
    assert abs(busy - quiet) < 1024, (quiet, busy)


def test_every_method_reading_the_pure_internals_is_the_compiled_cores_too() -> None:
    """A PlayArea method that reads the pure area's own state (``self._board``, ...) would break on
    a compiled area unless the C type provides it; the rest of the class must go through them."""
    if COMPILED is None:
        pytest.skip("the compiled backend is not built")
    internals = {
        "_board", "_tile_of", "_frontier", "_plain", "_parent", "_size", "_open", "_tasks_at",
        "_longest", "_pairs", "_connections", "_journal", "_task_journal", "_tasks_journal",
        "_marks", "_cells",
    }  # fmt: skip
    core = COMPILED.__mro__[1]
    source = textwrap.dedent(inspect.getsource(area_module.PlayArea))
    tree = ast.parse(source)
    cls = tree.body[0]
    assert isinstance(cls, ast.ClassDef)
    private = {"_find", "_judge_double", "_judge_connections", "_set_tasks", "_keep_possible", "__init__"}
    for node in cls.body:
        if not isinstance(node, ast.FunctionDef) or node.name in private:
            continue
        reads = {
            sub.attr
            for sub in ast.walk(node)
            if isinstance(sub, ast.Attribute) and isinstance(sub.value, ast.Name) and sub.value.id == "self"
        }
        if reads & internals:
            assert node.name in vars(core), (
                f"PlayArea.{node.name} reads the pure internals {reads & internals}"
            )


def test_the_extension_source_uses_only_python_and_the_c_library() -> None:
    """The compiled core is part of the engine: standard library only, at build and run time."""
    source = (ROOT / "src" / "dorf" / "rules" / "_accel.c").read_text(encoding="utf-8")
    includes = {line.split()[1] for line in source.splitlines() if line.startswith("#include")}
    assert includes <= {"<Python.h>", "<structmember.h>", "<stdint.h>", "<string.h>"}
