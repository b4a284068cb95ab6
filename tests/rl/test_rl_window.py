"""The action window and its mask: the engine's enumerator, every equivalent rotation, nothing else."""

from __future__ import annotations

import random
import subprocess
import sys
from collections.abc import Iterator

import numpy as np
import pytest

from dorf.games.coop import CoopGame
from dorf.games.duel import DuelGame
from dorf.games.headtohead import HeadToHeadGame
from dorf.rl.window import DEFAULT_RADIUS, Window, rotation_classes
from dorf.rules.area import Placement, PlayArea
from dorf.rules.hexgrid import ORIGIN, Hex, cell_of, hex_of
from dorf.rules.tasks import TaskSpec
from dorf.rules.tiles import distinct_rotations, rotate


def check_mask(
    window: Window, area: PlayArea, face: str, task: TaskSpec | None, moves: list[tuple[int, int]], full: bool
) -> None:
    """The mask is the engine's legal moves inside the window, with every equivalent rotation;
    each marked action is legal by the rules; with ``full``, each unmarked one is not."""
    mask = window.mask(face, moves)
    marked = np.flatnonzero(mask)
    inside = {(cell, k) for cell, k in moves if cell in window}
    assert {window.move(face, int(a)) for a in marked} == inside
    expected = sum(rotation_classes(face).count(k) for _, k in inside)
    assert len(marked) == expected
    for a in marked:
        at, rot = window.hex_of_action(int(a))
        assert area.why_illegal(face, Placement(at, rot), task) is None
    if full:
        for a in np.flatnonzero(mask == 0):
            at, rot = window.hex_of_action(int(a))
            assert area.why_illegal(face, Placement(at, rot), task) is not None


def test_window_numbering() -> None:
    w = Window(3)
    assert w.size == 37 and w.actions == 222 and w.side == 7
    assert len(set(w.cells)) == w.size
    assert all(h.distance(Hex(0, 0)) <= 3 for h in w.hexes)
    for a in (0, 5, 100, 221):
        at, rot = w.hex_of_action(a)
        assert w.action_of(at.q, at.r, rot) == a
        assert w.decode(a) == (cell_of(*at), rot)
    assert w.index[ORIGIN] == w.size // 2
    assert w.inside.sum() == w.size
    assert w.inside[w.rows, w.cols].all()
    # neighbours follow the hex directions, -1 off the window
    i = w.index[ORIGIN]
    assert [hex_of(w.cells[j]) for j in w.neighbours[i]] == list(Hex(0, 0).neighbours())
    corner = w.index[cell_of(3, -3)]
    assert (w.neighbours[corner] == -1).sum() == 3
    with pytest.raises(ValueError, match="outside the window"):
        w.action_of(4, 0, 0)
    with pytest.raises(ValueError):
        w.decode(222)
    assert Window(DEFAULT_RADIUS).actions == 1986


def test_rotation_classes_match_distinct_rotations() -> None:
    for face in ("MFMFMF", "RMMRMM", "FFFFFF", "GGMTTM", "RVMRFM"):
        classes = rotation_classes(face)
        assert sorted(set(classes)) == list(distinct_rotations(face))
        assert all(rotate(face, k) == rotate(face, classes[k]) for k in range(6))


def test_first_tile_of_a_symmetric_face() -> None:
    w = Window(2)
    area = PlayArea()
    moves = area.legal_moves("FFFFFF")
    assert moves == [(ORIGIN, 0)]
    mask = w.mask("FFFFFF", moves)
    assert [w.hex_of_action(int(a)) for a in np.flatnonzero(mask)] == [(Hex(0, 0), k) for k in range(6)]
    assert all(w.move("FFFFFF", int(a)) == (ORIGIN, 0) for a in np.flatnonzero(mask))


State = tuple[PlayArea, str, TaskSpec | None, list[tuple[int, int]]]


def _random_states(mode: str, games: int, seed: int) -> Iterator[State]:
    """Yield (area, face, task, moves) for every decision of random games of ``mode``."""
    rng = random.Random(seed)
    for g in range(games):
        if mode == "coop":
            coop = CoopGame(seed=g).new_state()
            while not coop.is_over:
                revealed = coop.revealed
                assert revealed is not None
                moves = coop.legal_moves()
                yield coop.area, revealed.tile.face, revealed.task, moves
                coop.push_move(*rng.choice(moves))
        elif mode == "duel":
            duel = DuelGame(seed=g).new_state()
            while not duel.is_over:
                p = duel.player
                revealed = duel.revealed
                assert revealed is not None
                moves = duel.legal_moves(p)
                yield duel.areas[p], revealed.tile.face, revealed.task, moves
                duel.push_move(*rng.choice(moves), p)
        else:
            h2h = HeadToHeadGame(seed=g).new_state()
            while h2h.pool:
                h2h.pick(rng.choice(h2h.pool))
            while not h2h.is_over:
                p = h2h.player
                mine = h2h.revealed(p)
                assert mine is not None
                moves = h2h.legal_moves(p)
                yield h2h.area(p), mine.tile.face, mine.task, moves
                h2h.push_move(*rng.choice(moves), p)


@pytest.mark.parametrize("mode", ["coop", "duel", "head-to-head"])
def test_mask_is_the_engine_enumerator_inside_the_window(mode: str) -> None:
    small, default = Window(3), Window()
    for n, (area, face, task, moves) in enumerate(_random_states(mode, 2, seed=7)):
        check_mask(default, area, face, task, moves, full=n in (0, 5, 30))
        check_mask(small, area, face, task, moves, full=n % 10 == 3)


def test_mask_of_the_flat_moves_is_the_mask_of_the_pairs() -> None:
    """``PlayArea.move_array`` (the fast form the Gymnasium environment passes) against the pairs."""
    small = Window(3)
    for area, face, _, moves in _random_states("coop", 2, seed=8):
        for window in (small, Window()):
            flat_mask, flat_outside = window.mask_and_outside(face, area.move_array(moves))
            mask, outside = window.mask_and_outside(face, iter(moves))
            assert np.array_equal(flat_mask, mask) and flat_outside == outside
    assert Window(1).mask_and_outside(None, PlayArea().move_array([(cell_of(5, 5), 0)]))[1] == 1


def test_default_window_always_has_an_action() -> None:
    """The measurement of docs/rl.md, in small: random games never run out of window actions."""
    w = Window()
    for mode in ("coop", "duel", "head-to-head"):
        for _, face, _, moves in _random_states(mode, 3, seed=11):
            assert w.mask(face, moves).any()


def test_rules_core_stays_standard_library_only() -> None:
    """numpy belongs to the adapters: importing the rules core does not load it."""
    code = (
        "import sys\n"
        "import dorf, dorf.rules.area, dorf.games.coop, dorf.games.duel, dorf.games.headtohead\n"
        "import dorf.players, dorf.rules.scoring, dorf.games.seat\n"
        "assert 'numpy' not in sys.modules, 'the rules core imported numpy'\n"
    )
    subprocess.run([sys.executable, "-c", code], check=True)
