"""Hex geometry: axial coordinates on flat-topped hexes, directions clockwise from north."""

from __future__ import annotations

import math

import pytest

from dorf.rules.hexgrid import (
    CELL_DELTAS,
    DIRECTION_NAMES,
    DIRECTIONS,
    Hex,
    cell_of,
    hex_of,
    on_grid,
    opposite,
)

# The table of notation.md, written out: d, name, neighbour of (q, r) as (dq, dr).
NOTATION_TABLE = [
    (0, "N", (0, -1)),
    (1, "NE", (1, -1)),
    (2, "SE", (1, 0)),
    (3, "S", (0, 1)),
    (4, "SW", (-1, 1)),
    (5, "NW", (-1, 0)),
]

SAMPLE = [Hex(0, 0), Hex(3, -2), Hex(-5, 7), Hex(12, 12), Hex(-40, 1)]


@pytest.mark.parametrize(("d", "name", "delta"), NOTATION_TABLE)
def test_directions_follow_the_notation_table(d, name, delta):
    assert DIRECTION_NAMES[d] == name
    assert DIRECTIONS[d] == delta
    for h in SAMPLE:
        assert h.neighbour(d) == Hex(h.q + delta[0], h.r + delta[1])


def test_neighbours_in_direction_order():
    assert Hex(2, 3).neighbours() == (Hex(2, 2), Hex(3, 2), Hex(3, 3), Hex(2, 4), Hex(1, 4), Hex(1, 3))


@pytest.mark.parametrize("d", range(6))
def test_edge_d_meets_edge_d_plus_3_of_the_neighbour(d):
    assert opposite(d) == (d + 3) % 6
    assert opposite(opposite(d)) == d
    for h in SAMPLE:
        # Going back from the neighbour in the opposite direction returns here.
        assert h.neighbour(d).neighbour(opposite(d)) == h
        assert h.direction_to(h.neighbour(d)) == d
        assert h.neighbour(d).direction_to(h) == (d + 3) % 6


def _pixel(h: Hex) -> tuple[float, float]:
    """Centre of a flat-topped hex in screen coordinates (y grows downwards)."""
    return 1.5 * h.q, math.sqrt(3) * (h.r + h.q / 2)


def test_directions_run_clockwise_from_north_on_flat_topped_hexes():
    # On screen (y down), north is straight up; each next direction is 60 degrees clockwise.
    for d in range(6):
        x, y = _pixel(Hex(0, 0).neighbour(d))
        bearing = math.degrees(math.atan2(x, -y)) % 360  # 0 = up, 90 = right: clockwise
        assert bearing == pytest.approx(60 * d, abs=1e-9)
        # Flat-topped: every neighbour centre is at the same distance.
        assert math.hypot(x, y) == pytest.approx(math.sqrt(3))


def test_consecutive_directions_are_neighbours_of_each_other():
    # The six neighbours form a ring in direction order.
    for d in range(6):
        a = Hex(0, 0).neighbour(d)
        b = Hex(0, 0).neighbour((d + 1) % 6)
        assert a.distance(b) == 1


def test_distance():
    o = Hex(0, 0)
    assert o.distance(o) == 0
    assert all(o.distance(n) == 1 for n in o.neighbours())
    assert o.distance(Hex(2, -1)) == 2
    assert o.distance(Hex(0, 3)) == 3
    assert o.distance(Hex(3, -3)) == 3
    assert o.distance(Hex(-2, -1)) == 3
    assert Hex(1, 2).distance(Hex(-2, 4)) == Hex(-2, 4).distance(Hex(1, 2)) == 3


def test_direction_to_is_none_when_not_adjacent():
    o = Hex(0, 0)
    assert o.direction_to(o) is None
    assert o.direction_to(Hex(1, 1)) is None  # distance 2
    assert o.direction_to(Hex(2, 0)) is None


def test_integer_cells_round_trip_and_step_by_constant_deltas():
    for h in SAMPLE:
        cell = cell_of(*h)
        assert hex_of(cell) == h
        assert on_grid(cell)
        for d in range(6):
            assert cell_of(*h.neighbour(d)) == cell + CELL_DELTAS[d]
    assert len({cell_of(q, r) for q in range(-6, 7) for r in range(-6, 7)}) == 13 * 13


def test_cells_far_from_the_origin_are_refused():
    with pytest.raises(ValueError):
        cell_of(100000, 0)
    with pytest.raises(ValueError):
        cell_of(0, -100000)


def test_hex_repr_pastes_back():
    assert repr(Hex(1, -2)) == "Hex(1, -2)"
    assert eval(repr(Hex(1, -2))) == Hex(1, -2)
