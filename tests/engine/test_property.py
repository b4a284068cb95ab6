"""Property tests: the incremental play area against a from-scratch recomputation.

Random cooperative games (and random boards of random faces) are played move by
move; after every placement each figure the engine keeps incrementally (groups
with their sizes and open edges, task statuses, longest river and track, the
frontier, the legal placements, the score pad) must equal what
:mod:`reference` recomputes from the bare list of placed tiles.  Undo
(``PlayArea.pop``, ``CoopState.undo``) must restore every one of them exactly.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable
from typing import Any

import pytest
from hypothesis import event
from hypothesis import strategies as st

from budget import Games, play, tiers
from dorf.games.coop import CoopGame, CoopState
from dorf.rules.area import Placement, PlayArea
from dorf.rules.hexgrid import Hex, cell_of
from dorf.rules.scoring import score_coop, score_duel, score_head_to_head
from dorf.rules.tasks import DOUBLE_PAIRS, TaskSpec
from dorf.rules.tiles import LANDSCAPE, TASK, Tile, TileSet, areas
from reference import TASK_LETTERS, RefBoard, RefTask, RefTile, task_letters

SEEDS = st.integers(min_value=0, max_value=2**32 - 1)
PLAYERS = st.integers(min_value=1, max_value=6)


# --- reading the engine in the reference's terms ---------------------------------------


def engine_groups(area: PlayArea) -> list[tuple[Any, ...]]:
    """Each group as (letter, cells, size, open edges, cells of its task tiles), sorted."""
    where = {id(t.task): t.at for t in area.placed if t.task is not None}
    out = []
    for g in area.groups():
        cells = frozenset(g.cells)
        assert len(cells) == len(g.cells), f"group lists a cell twice: {g}"
        assert g.closed == (g.open_edges == 0)
        out.append((g.letter, cells, g.size, g.open_edges, frozenset(where[id(t)] for t in g.tasks)))
    return sorted(out, key=lambda g: (g[0], sorted(g[1])))


def reference_groups(ref: RefBoard) -> list[tuple[Any, ...]]:
    out = []
    for g in ref.groups():
        tasks = frozenset(
            t.at
            for t in ref.task_tiles
            if t.task and any((t.at, letter) in g.nodes for letter in task_letters(t.task))
        )
        out.append((g.letter, g.cells, g.size, g.open_edges, tasks))
    return sorted(out, key=lambda g: (g[0], sorted(g[1])))


def engine_tasks(area: PlayArea) -> list[tuple[Any, ...]]:
    return [(t.at, t.task.type, t.task.value, t.task.status.value) for t in area.placed if t.task is not None]


def reference_tasks(ref: RefBoard) -> list[tuple[Any, ...]]:
    return [(tuple(e["at"]), e["type"], e["value"], e["status"]) for e in ref.task_list()]


def engine_legal(area: PlayArea, face: str, task: TaskSpec | None) -> set[tuple[Any, int]]:
    placements = area.legal_placements(face, task)
    assert len(placements) == len(set(placements)), "a legal placement is listed twice"
    assert len(area.legal_moves(face, task)) == len(placements)
    assert area.has_legal_placement(face, task) == bool(placements)
    return {(p.at, p.rot) for p in placements}


def ref_task(task: TaskSpec | None) -> RefTask | None:
    if task is None:
        return None
    return (task.type, task.value, task.types) if task.types else (task.type, task.value)


def engine_figures(area: PlayArea) -> tuple[Any, ...]:
    """What the engine keeps incrementally, in the reference's terms."""
    frontier = area.frontier()
    assert len(frontier) == len(set(frontier)), "a frontier cell is listed twice"
    assert [t.status.value for t in area.tasks] == [t[3] for t in engine_tasks(area)]
    return (
        [(t.face, t.at, t.rot, t.flag) for t in area.placed],
        engine_groups(area),
        engine_tasks(area),
        area.longest_river,
        area.longest_track,
        (area.lakes, area.mountains),
        frozenset(frontier),
        score_coop(area).as_json(),
        score_duel(area).as_json(),
        score_head_to_head(area).as_json(),
    )


def reference_figures(ref: RefBoard) -> tuple[Any, ...]:
    """The same figures, recomputed from scratch."""
    return (
        [(t.face, t.at, t.rot, t.flag) for t in ref.tiles],
        reference_groups(ref),
        reference_tasks(ref),
        ref.longest("R"),
        ref.longest("T"),
        (ref.pairs("L"), ref.pairs("P")),
        frozenset(ref.frontier()),
        ref.score(),
        ref.score("duel"),
        ref.score("head-to-head"),
    )


def check_area(area: PlayArea, ref: RefBoard) -> tuple[Any, ...]:
    """Every incremental figure of ``area`` equals the reference's; returns the figures."""
    expected = reference_figures(ref)
    assert engine_figures(area) == expected
    for g in ref.groups():
        at, letter = min(g.nodes)
        one = area.group(at, letter)
        assert one is not None
        assert (one.size, one.open_edges, frozenset(one.cells)) == (g.size, g.open_edges, g.cells)
    if area.placed:  # several groups at once, in one pass: the same as one at a time
        last = area.placed[-1]
        letters = [letter for letter, _ in areas(last.edges)] + ["X"]
        assert area.groups_through(last.at, letters) == [area.group(last.at, x) for x in letters]
    return expected


def check_legal(area: PlayArea, ref: RefBoard, face: str, task: TaskSpec | None) -> set[tuple[Any, int]]:
    """The legal placements of a tile agree; ``why_illegal`` agrees on every rotation of every cell."""
    legal = engine_legal(area, face, task)
    assert legal == ref.legal_placements(face, ref_task(task))
    for at in ref.frontier():
        for k in range(6):
            expected = ref.is_legal(face, at, k, ref_task(task))
            reason = area.why_illegal(face, Placement(at, k), task)
            assert (reason is None) == expected, (at, k, reason)
    return legal


def coop_snapshot(state: CoopState) -> tuple[Any, ...]:
    """What undo must restore, read only through the engine's public API."""
    area = state.area
    revealed = state.revealed
    view = state.view()
    return (
        [(t.face, t.at, t.rot, t.flag) for t in area.placed],
        engine_groups(area),
        engine_tasks(area),
        [t.status for t in area.tasks],
        sorted(state.legal_placements()),
        sorted(state.legal_moves()),
        frozenset(area.frontier()),
        state.score().as_json(),
        area.longest_river,
        area.longest_track,
        None if revealed is None else (revealed.tile_id, revealed.task),
        state.turn,
        state.player,
        state.is_over,
        state.landscapes_left(),
        state.task_tiles_left(),
        state.decisions,
        [(t.number, t.revealed.tile_id, t.revealed.task, t.set_aside) for t in state.turns],
        view.unseen,
        view.markers_unseen,
    )


def check_reveals(state: CoopState, ref: RefBoard, first_new: int) -> None:
    """Rules 10, 12 to 15 for the turns revealed since turn index ``first_new``."""
    tileset = state.game.tileset
    task_total = len(tileset.task_tiles)
    landscape_total = max(0, len(tileset.landscapes) - 3)  # three removed unseen (rule 12)
    active = ref.statuses.count("open")
    markers = Counter((kind, v) for kind, values in tileset.markers.items() for v in values)
    for turn in state.turns[:first_new]:
        if turn.revealed.task is not None:
            markers[(turn.revealed.task.type, turn.revealed.task.value)] -= 1

    def stacks_before(index: int) -> tuple[int, int]:
        tasks = sum(1 for t in state.turns[:index] if t.revealed.tile.is_task)
        return task_total - tasks, landscape_total - (index - tasks)

    for index in range(first_new, len(state.turns)):
        turn = state.turns[index]
        tasks_left, _ = stacks_before(index)
        wants_task = tasks_left > 0 and (turn.number <= 3 or active < 3)
        assert turn.number == index + 1
        assert turn.player == index % state.game.players, f"turn {turn.number}: rule 15"
        assert turn.revealed.tile.is_task == wants_task, f"turn {turn.number}: wrong stack (rule 13)"
        if wants_task:
            task = turn.revealed.task
            assert task is not None and task.type == turn.revealed.tile.task
            assert markers[(task.type, task.value)] > 0, f"turn {turn.number}: marker {task} not in its pile"
            markers[(task.type, task.value)] -= 1
        fits = bool(ref.legal_placements(turn.revealed.tile.face, ref_task(turn.revealed.task)))
        assert turn.set_aside == (not fits), f"turn {turn.number}: rule 10"
        if not turn.set_aside:
            assert index == len(state.turns) - 1
    if state.is_over:
        tasks_left, landscapes_left = stacks_before(len(state.turns))
        assert landscapes_left == 0, "rule 14: the game ends only when a landscape tile is missing"
        assert not (tasks_left > 0 and active < 3), "rule 13: a task tile was still due"
    else:
        assert state.revealed == state.turns[-1].revealed


def ref_tile_of(state: CoopState) -> RefTile:
    """The reference's copy of the tile just placed in a coop game."""
    placed = state.area.placed[-1]
    task = None if placed.task is None else ref_task(placed.task.spec)
    return RefTile(placed.face, placed.at, placed.rot, placed.flag, task)


# --- cooperative games -------------------------------------------------------------------


def choose(state: CoopState, legal: list[Placement], data: st.DataObject) -> Placement:
    """A hypothesis-drawn legal placement, often next to an open task so that tasks get decided."""
    near = {t.at.neighbour(d) for t in state.area.placed if t.task and t.task.is_open for d in range(6)}
    targeted = [p for p in legal if p.at in near]
    if targeted and data.draw(st.integers(0, 4), label="seek a task") > 0:
        legal = targeted
    return legal[data.draw(st.integers(0, len(legal) - 1), label="move")]


def play_checked(state: CoopState, data: st.DataObject) -> RefBoard:
    """Play a whole game with drawn moves, checking the engine against the reference throughout.

    Now and then a move is played and taken back first, so that any trace an
    undo leaves behind shows up in the checks that follow.
    """
    ref = RefBoard()
    check_reveals(state, ref, 0)
    while not state.is_over:
        revealed = state.revealed
        assert revealed is not None
        face, task = revealed.tile.face, revealed.task
        legal = sorted(state.legal_placements())
        assert {(p.at, p.rot) for p in legal} == ref.legal_placements(face, ref_task(task))
        assert state.area.has_legal_placement(face, task)
        if data.draw(st.integers(0, 3), label="detour") == 0:
            before = coop_snapshot(state)
            state.play(legal[data.draw(st.integers(0, len(legal) - 1), label="detour move")])
            state.undo()
            assert coop_snapshot(state) == before, "undo did not restore the game"
        turns = len(state.turns)
        state.play(choose(state, legal, data))
        ref.place(ref_tile_of(state))
        assert state.area.placed[-1].flag == revealed.tile.flag
        check_area(state.area, ref)
        assert state.score().as_json() == ref.score()
        check_reveals(state, ref, turns)
    assert state.legal_placements() == []
    if any(t.set_aside for t in state.turns):
        event("a tile was set aside")
    for status in ("completed", "failed", "open"):
        if status in ref.statuses:
            event(f"a task ended {status}")
    if any(ref.score()["flags"].values()):
        event("a flag scored")
    return ref


@tiers(8)
def test_coop_game_matches_reference(games: Games) -> None:
    """A random cooperative game with the base tiles, checked figure by figure after every placement."""

    def game(seed: int, players: int, data: st.DataObject) -> None:
        play_checked(CoopGame(seed=seed, players=players).new_state(), data)

    play(games, game, seed=SEEDS, players=PLAYERS, data=st.data())


#: Letter pools for random boxes, crowded with rivers and tracks.
CROWDED_PALETTES = ("RRTTMF", "RTMGV", "RRRFFF", "TTTVVM", "RTFGVM", "RT", "RRRRRT", "RTTTTF")


@st.composite
def tilesets(draw: st.DrawFn) -> TileSet:
    """A small random box: rivers and tracks crowd it, so tiles often fit nowhere (rule 10)."""
    palette = draw(st.sampled_from(CROWDED_PALETTES))
    face = st.lists(st.sampled_from(palette), min_size=6, max_size=6).map("".join)
    landscapes = draw(st.lists(face, min_size=4, max_size=24))
    tiles = [Tile(LANDSCAPE, f) for f in landscapes]
    markers: dict[str, list[int]] = {}
    for f in draw(st.lists(face, max_size=10)):
        kinds = [kind for kind, letter in TASK_LETTERS.items() if letter in f]
        if kinds:
            kind = draw(st.sampled_from(kinds))
            tiles.append(Tile(TASK, f, task=kind))
            markers.setdefault(kind, []).append(draw(st.integers(1, 6)))
    return TileSet("random", tuple(tiles), {k: tuple(v) for k, v in markers.items()})


@tiers(30, quick=4)
def test_coop_game_with_random_boxes_matches_reference(games: Games) -> None:
    """Cooperative games on random boxes: set-aside tiles, early ends, task stacks running out."""

    def game(tileset: TileSet, seed: int, data: st.DataObject) -> None:
        play_checked(CoopGame(seed=seed, tileset=tileset).new_state(), data)

    play(games, game, tileset=tilesets(), seed=SEEDS, data=st.data())


@tiers(12)
def test_coop_undo_restores_everything(games: Games) -> None:
    """push_move then undo restores the state exactly, one move back or all the way."""
    play(games, undo_and_replay, seed=SEEDS, players=PLAYERS, data=st.data())


def undo_and_replay(seed: int, players: int, data: st.DataObject) -> None:
    state = CoopGame(seed=seed, players=players).new_state()
    history = []
    while not state.is_over:
        before = coop_snapshot(state)
        moves = state.legal_moves()
        if data.draw(st.booleans(), label="detour"):
            cell, rot = moves[data.draw(st.integers(0, len(moves) - 1), label="detour move")]
            state.push_move(cell, rot)
            state.undo()
            assert coop_snapshot(state) == before
        history.append(before)
        placement = choose(state, state.legal_placements(), data)
        state.push_move(cell_of(*placement.at), placement.rot)
    end = coop_snapshot(state)
    # Take everything back, then replay the same decisions: the same game again.
    decisions = state.decisions
    while history:
        state.undo()
        assert coop_snapshot(state) == history.pop()
    for placement in decisions:
        state.play(placement)
    assert coop_snapshot(state) == end


def test_undo_of_nothing_raises() -> None:
    with pytest.raises(IndexError):
        CoopGame(seed=5).new_state().undo()
    with pytest.raises(IndexError):
        PlayArea().pop()


# --- random faces --------------------------------------------------------------------------

#: Letter pools: some mostly one terrain so that territories grow and merge a lot.
PALETTES = ("FGVMRT", "FGV", "FFFFGM", "GGVVVM", "FFFFFR", "VVVVVT", "RRMMFF", "TTRRGV", "FGVMMM")


#: Head to Head letter pools: lakes, mountains and rivers that must meet their kind.
HEAD_TO_HEAD_PALETTES = ("FGVMLP", "LLPPMF", "FFGGLR", "PPMMVV", "LPRMFG", "LLLFFF")


@st.composite
def random_tiles(
    draw: st.DrawFn, palette: str, mode: str = "coop"
) -> tuple[str, str | None, TaskSpec | None]:
    """A face of six letters from ``palette``, maybe a flag, maybe a task with any small value.

    In ``head-to-head`` some tiles are multicoloured flag tiles (one X edge, no
    territory); in the ``duel`` tasks may be connection or double tasks.
    """
    if mode == "head-to-head" and draw(st.integers(0, 4)) == 0:
        rest = "".join(draw(st.lists(st.sampled_from("MMRLP"), min_size=5, max_size=5)))
        return "X" + rest, None, None
    face = "".join(draw(st.lists(st.sampled_from(palette), min_size=6, max_size=6)))
    territories = sorted(set(face) & set("FGV"))
    flag = draw(st.none() | st.sampled_from(territories)) if territories else None
    kinds = [kind for kind, letter in TASK_LETTERS.items() if letter in face]
    task = None
    if mode == "duel" and draw(st.integers(0, 3)) == 0:
        pairs = [p for p in DOUBLE_PAIRS if all(TASK_LETTERS[t] in face for t in p)]
        if pairs and draw(st.booleans()):
            return face, flag, TaskSpec("double", draw(st.integers(1, 8)), draw(st.sampled_from(pairs)))
        return face, flag, TaskSpec("connection", draw(st.integers(0, 6)))
    if kinds and draw(st.integers(0, 3)) == 0:
        task = TaskSpec(draw(st.sampled_from(kinds)), draw(st.integers(1, 8)))
    return face, flag, task


def area_snapshot(area: PlayArea, face: str, task: TaskSpec | None) -> tuple[Any, ...]:
    return (
        [(t.face, t.at, t.rot, t.flag) for t in area.placed],
        engine_groups(area),
        engine_tasks(area),
        [t.status for t in area.tasks],
        [t.status for t in area.active_tasks()],
        sorted(area.legal_placements(face, task)),
        sorted(area.legal_moves(face, task)),
        frozenset(area.frontier()),
        score_coop(area).as_json(),
        score_head_to_head(area).as_json(),
        area.longest_river,
        area.longest_track,
        (area.lakes, area.mountains),
        len(area),
    )


@tiers(8, quick=3)
def test_random_faces_match_reference(games: Games) -> None:
    """Random boards of random faces, flags and tasks: merging, closing, many tasks per group."""
    play(games, random_board(PALETTES, "coop"), data=st.data())


@tiers(10, quick=3)
def test_head_to_head_faces_match_reference(games: Games) -> None:
    """Random boards with lakes, mountains and multicoloured flag edges (rules 19 and 20)."""
    play(games, random_board(HEAD_TO_HEAD_PALETTES, "head-to-head"), data=st.data())


@tiers(6, quick=3)
def test_duel_faces_match_reference(games: Games) -> None:
    """Random boards with connection and double tasks (rules 25 and 26)."""
    play(games, random_board(PALETTES, "duel"), data=st.data())


def random_board(palettes: tuple[str, ...], mode: str) -> Callable[[st.DataObject], None]:
    """The property: a board of a palette drawn from ``palettes`` (see :func:`check_random_board`)."""

    def board(data: st.DataObject) -> None:
        check_random_board(data, data.draw(st.sampled_from(palettes), label="palette"), mode)

    return board


def check_random_board(data: st.DataObject, palette: str, mode: str) -> None:
    count = data.draw(st.integers(1, 45), label="tiles")
    area = PlayArea()
    ref = RefBoard()
    figures = [reference_figures(ref)]
    for _ in range(count):
        face, flag, task = data.draw(random_tiles(palette, mode), label="tile")
        legal = check_legal(area, ref, face, task)
        if not legal:
            continue
        moves = area.legal_moves(face, task)
        before = area_snapshot(area, face, task)
        if data.draw(st.booleans(), label="detour"):
            cell, rot = moves[data.draw(st.integers(0, len(moves) - 1), label="detour move")]
            area.push(face, cell, rot, flag=flag, task=task)
            area.pop()
            assert area_snapshot(area, face, task) == before
        placement = sorted(legal)[data.draw(st.integers(0, len(legal) - 1), label="move")]
        area.play(face, Placement(*placement), flag=flag, task=task)
        ref.place(RefTile(face, placement[0], placement[1], flag, ref_task(task)))
        figures.append(check_area(area, ref))
    for status in ("completed", "failed"):
        if status in ref.statuses:
            event(f"a task ended {status}")
    if any(g.closed and g.size > 2 for g in ref.groups()):
        event("a group of 3+ tiles closed")
    if any(ref.score()["flags"].values()):
        event("a flag scored")
    if ref.score("head-to-head")["flags"]:
        event("a multicoloured flag scored")
    if ref.pairs("L") + ref.pairs("P"):
        event("a lake or mountain formed")
    # Unwind completely: every intermediate state comes back, down to the empty area.
    figures.pop()
    while figures:
        area.pop()
        assert engine_figures(area) == figures.pop()
    assert len(area) == 0 and area.frontier() == [Hex(0, 0)]
