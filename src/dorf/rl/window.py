"""The fixed action window: cells within ``radius`` of [0, 0], times six rotations.

Every adapter (Gymnasium, PettingZoo, OpenSpiel) numbers a placement the same
way.  The window's cells are listed row by row (``r`` from ``-radius`` to
``radius``, then ``q`` ascending), and an action is ``6 * index + rotation``:

>>> w = Window(1)
>>> w.size, w.actions
(7, 42)
>>> [tuple(h) for h in w.hexes]
[(0, -1), (1, -1), (-1, 0), (0, 0), (1, 0), (-1, 1), (0, 1)]
>>> w.action_of(0, 0, 2), w.hex_of_action(20)
(20, (Hex(0, 0), 2))

The mask marks every rotation that gives a legal oriented tile.  The engine's
enumerator (:meth:`dorf.rules.area.PlayArea.legal_moves`) lists the distinct
rotations of a symmetric tile only; the other rotations that give the same
oriented tile are legal too and are marked, and :meth:`Window.move` maps any of
them back to the engine's (smallest) rotation:

>>> from dorf.rules.area import PlayArea
>>> area = PlayArea()
>>> face = "MFMFMF"                       # rotations 0, 2, 4 look the same
>>> moves = area.legal_moves(face)
>>> moves
[(32896, 0), (32896, 1)]
>>> mask = w.mask(face, moves)
>>> [int(a) % 6 for a in mask.nonzero()[0]]
[0, 1, 2, 3, 4, 5]
>>> w.move(face, w.action_of(0, 0, 4))
(32896, 0)

A legal placement outside the window has no action and is left out of the
mask.  With the default radius (10, 331 cells, 1,986 actions) that never left a
turn without an action in the measurements of docs/rl.md.
"""

from __future__ import annotations

from array import array
from collections.abc import Iterable
from functools import cache
from itertools import chain
from typing import TypeAlias

import numpy as np
import numpy.typing as npt

from dorf.rules.hexgrid import CELL_COUNT, DIRECTIONS, Hex, cell_of, hex_of
from dorf.rules.tiles import rotate

#: The default window radius: 331 cells, 1,986 actions.
DEFAULT_RADIUS = 10
ROTATIONS = 6

Mask = npt.NDArray[np.int8]
#: Legal moves: ``(cell, rotation)`` pairs, or one flat array of them (cell, rotation, ...).
Moves: TypeAlias = "Iterable[tuple[int, int]] | array[int]"


@cache
def rotation_classes(face: str) -> tuple[int, ...]:
    """For each rotation 0 to 5, the smallest rotation giving the same oriented tile.

    >>> rotation_classes("MFMFMF"), rotation_classes("RMMRMM")
    ((0, 1, 0, 1, 0, 1), (0, 1, 2, 0, 1, 2))
    """
    first: dict[str, int] = {}
    out = []
    for k in range(ROTATIONS):
        out.append(first.setdefault(rotate(face, k), k))
    return tuple(out)


@cache
def _equivalents(face: str) -> dict[int, tuple[int, ...]]:
    """For each distinct (smallest) rotation, every rotation giving the same oriented tile."""
    classes = rotation_classes(face)
    out: dict[int, list[int]] = {}
    for k, canonical in enumerate(classes):
        out.setdefault(canonical, []).append(k)
    return {k: tuple(v) for k, v in out.items()}


class Window:
    """The hexagon of cells within ``radius`` of [0, 0], and its numbering of actions.

    ``rows``/``cols`` give each cell's position in the ``(2 * radius + 1)``
    square grid of the observation planes: row ``r + radius``, column
    ``q + radius``.
    """

    def __init__(self, radius: int = DEFAULT_RADIUS) -> None:
        if radius < 0:
            raise ValueError(f"the window radius must be 0 or more, not {radius}")
        self.radius = radius
        self.side = 2 * radius + 1
        hexes = [
            Hex(q, r)
            for r in range(-radius, radius + 1)
            for q in range(-radius, radius + 1)
            if Hex(q, r).distance(Hex(0, 0)) <= radius
        ]
        self.hexes: tuple[Hex, ...] = tuple(hexes)
        self.cells: tuple[int, ...] = tuple(cell_of(*h) for h in hexes)
        self.index: dict[int, int] = {cell: i for i, cell in enumerate(self.cells)}
        self.size = len(self.cells)
        self.actions = self.size * ROTATIONS
        self.rows = np.array([h.r + radius for h in hexes], dtype=np.intp)
        self.cols = np.array([h.q + radius for h in hexes], dtype=np.intp)
        #: Per engine cell, its index in the window, or -1 outside.
        self.lookup = np.full(CELL_COUNT, -1, dtype=np.intp)
        self.lookup[list(self.cells)] = np.arange(self.size)
        #: 1 on the grid positions inside the hexagon.
        self.inside = np.zeros((self.side, self.side), dtype=np.float32)
        self.inside[self.rows, self.cols] = 1.0
        #: Per cell and direction, the window index of the neighbour, or -1 outside the window.
        self.neighbours = np.array(
            [[self.index.get(cell_of(h.q + dq, h.r + dr), -1) for dq, dr in DIRECTIONS] for h in hexes],
            dtype=np.intp,
        ).reshape(self.size, ROTATIONS)

    def __repr__(self) -> str:
        return f"Window({self.radius})"

    def __contains__(self, cell: object) -> bool:
        return cell in self.index

    def action_of(self, q: int, r: int, rot: int) -> int:
        """The action placing a tile at ``[q, r]`` turned ``rot``; ValueError outside the window."""
        if not 0 <= rot < ROTATIONS:
            raise ValueError(f"rotation {rot} is not 0 to 5")
        index = self.index.get(cell_of(q, r))
        if index is None:
            raise ValueError(f"[{q}, {r}] is outside the window of radius {self.radius}")
        return index * ROTATIONS + rot

    def decode(self, action: int) -> tuple[int, int]:
        """The engine cell and the rotation (0 to 5, as given) of an action."""
        if not 0 <= action < self.actions:
            raise ValueError(f"action {action} is not 0 to {self.actions - 1}")
        index, rot = divmod(int(action), ROTATIONS)
        return self.cells[index], rot

    def hex_of_action(self, action: int) -> tuple[Hex, int]:
        """The coordinate and rotation of an action."""
        cell, rot = self.decode(action)
        return hex_of(cell), rot

    def move(self, face: str, action: int) -> tuple[int, int]:
        """The engine move ``(cell, rotation)`` of an action for ``face``, with the rotation
        mapped to the smallest one giving the same oriented tile (as the enumerator lists it)."""
        cell, rot = self.decode(action)
        return cell, rotation_classes(face)[rot]

    def mask(self, face: str | None, moves: Moves, out: Mask | None = None) -> Mask:
        """1 for every action that places ``face`` legally: each move from the enumerator
        inside the window, with every rotation equivalent to it.

        ``moves`` are ``(cell, rotation)`` pairs, or the same as one flat array
        (:meth:`dorf.rules.area.PlayArea.move_array`, the fast form)."""
        return self.mask_and_outside(face, moves, out)[0]

    def mask_and_outside(self, face: str | None, moves: Moves, out: Mask | None = None) -> tuple[Mask, int]:
        """:meth:`mask`, and how many of ``moves`` lie outside the window (:meth:`outside`)."""
        mask = np.zeros(self.actions, dtype=np.int8) if out is None else out
        if not isinstance(moves, array):
            moves = array("i", chain.from_iterable(moves))
        flat = np.frombuffer(moves, dtype=np.int32)
        where = self.lookup[flat[0::2]]
        inside = where >= 0
        outside = len(where) - int(np.count_nonzero(inside))
        if face is None:
            return mask, outside
        rots = flat[1::2]
        if len(rotation_classes_distinct(face)) == ROTATIONS:  # every rotation its own: one action a move
            mask[(where * ROTATIONS + rots)[inside]] = 1
            return mask, outside
        # Each move inside: its cell's six actions, kept where the rotation is equivalent to the move's.
        actions = (where[inside] * ROTATIONS)[:, None] + _ROTATIONS
        mask[actions[_equivalence(face)[rots[inside]]]] = 1
        return mask, outside

    def outside(self, moves: Iterable[tuple[int, int]]) -> int:
        """How many of ``moves`` lie outside the window."""
        index = self.index
        return sum(1 for cell, _ in moves if cell not in index)


_ROTATIONS = np.arange(ROTATIONS)


@cache
def rotation_classes_distinct(face: str) -> frozenset[int]:
    """The distinct rotations of ``face`` (as the enumerator lists them)."""
    return frozenset(rotation_classes(face))


@cache
def _equivalence(face: str) -> npt.NDArray[np.bool_]:
    """``[k, j]``: rotation ``j`` gives the same oriented tile as the distinct rotation ``k``."""
    classes = rotation_classes(face)
    return np.array([[classes[j] == k for j in range(ROTATIONS)] for k in range(ROTATIONS)])
