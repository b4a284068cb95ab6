"""Hex geometry: axial coordinates on flat-topped hexes, no game knowledge.

Directions are numbered clockwise from north, as in the board notation::

    d  name  neighbour of (q, r)
    0  N     (q,   r-1)
    1  NE    (q+1, r-1)
    2  SE    (q+1, r)
    3  S     (q,   r+1)
    4  SW    (q-1, r+1)
    5  NW    (q-1, r)

Edge ``d`` of a tile meets edge ``(d + 3) % 6`` of its neighbour in direction ``d``.

>>> Hex(0, 0).neighbour(2)
Hex(1, 0)
>>> Hex(0, 0).distance(Hex(2, -1))
2

The play area stores cells as small integers (see :func:`cell_of`) so that a
neighbour is one addition away; :class:`Hex` is the readable form at the edges.
"""

from __future__ import annotations

from typing import NamedTuple

DIRECTION_NAMES: tuple[str, ...] = ("N", "NE", "SE", "S", "SW", "NW")
DIRECTIONS: tuple[tuple[int, int], ...] = ((0, -1), (1, -1), (1, 0), (0, 1), (-1, 1), (-1, 0))


def opposite(d: int) -> int:
    """The direction pointing back: edge ``d`` meets edge ``opposite(d)``."""
    return (d + 3) % 6


class Hex(NamedTuple):
    """An axial coordinate ``(q, r)``."""

    q: int
    r: int

    def __repr__(self) -> str:
        return f"Hex({self.q}, {self.r})"

    def neighbour(self, d: int) -> Hex:
        dq, dr = DIRECTIONS[d]
        return Hex(self.q + dq, self.r + dr)

    def neighbours(self) -> tuple[Hex, ...]:
        return tuple(self.neighbour(d) for d in range(6))

    def distance(self, other: Hex) -> int:
        dq = self.q - other.q
        dr = self.r - other.r
        return (abs(dq) + abs(dr) + abs(dq + dr)) // 2

    def direction_to(self, other: Hex) -> int | None:
        """The direction of an adjacent hex, or None if not adjacent."""
        delta = (other.q - self.q, other.r - self.r)
        return DIRECTIONS.index(delta) if delta in DIRECTIONS else None


# --- Integer cells for the hot path -------------------------------------------------
#
# A play area of at most a few hundred tiles fits in a square of side SPAN around
# the origin.  A cell index is (r + OFFSET) * SPAN + (q + OFFSET); a neighbour is a
# constant delta away.  Cells on the outer ring of the square are never offered as
# placements, so neighbour arithmetic never wraps.

SPAN = 256
OFFSET = SPAN // 2
CELL_COUNT = SPAN * SPAN
ORIGIN = OFFSET * SPAN + OFFSET
CELL_DELTAS: tuple[int, ...] = tuple(dr * SPAN + dq for dq, dr in DIRECTIONS)


def cell_of(q: int, r: int) -> int:
    """The integer cell of axial ``(q, r)``; raises ValueError off the grid."""
    if not (-OFFSET < q < OFFSET - 1 and -OFFSET < r < OFFSET - 1):
        raise ValueError(f"coordinate [{q}, {r}] is too far from the origin")
    return (r + OFFSET) * SPAN + (q + OFFSET)


def hex_of(cell: int) -> Hex:
    """The axial coordinate of an integer cell."""
    r, q = divmod(cell, SPAN)
    return Hex(q - OFFSET, r - OFFSET)


def on_grid(cell: int) -> bool:
    """False for cells on the outer ring, whose neighbours would wrap."""
    r, q = divmod(cell, SPAN)
    return 0 < q < SPAN - 1 and 0 < r < SPAN - 1
