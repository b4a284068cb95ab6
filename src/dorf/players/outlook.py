"""What a group can still become: which empty cells next to it a tile of the box can fill.

A task completes only if its group can still grow through its open edges,
and a flag scores only if every open edge of its territory gets closed.  An
open edge faces an empty cell; whether any tile of the box fits that cell
(rivers, tracks, lakes and mountains around it must be met by their own
kind), and whether one fits showing the group's terrain toward it, is read
from the letters around the cell (:meth:`PlayArea.surroundings`) against
every face of the box in every rotation.  The answers are cached per pattern
of surroundings, so each is computed once per tile set.

>>> fits = Fits(["RMMRMM", "FFFFFF"])
>>> fits.takers("R....."), fits.takers("RR....")
(1, 0)
"""

from __future__ import annotations

from collections.abc import Iterable

from dorf.rules.terrain import MATCH_CODE, TERRITORY_LETTERS
from dorf.rules.tiles import distinct_rotations, rotate

OPPOSITE = (3, 4, 5, 0, 1, 2)


class Fits:
    """The faces of a box, and which of them fit a cell given the edges around it."""

    def __init__(self, faces: Iterable[str]) -> None:
        self.faces = tuple(sorted(set(faces)))
        #: Every face in every distinct rotation: bit j of a mask stands for the j-th.
        self._oriented = [(face, rotate(face, k)) for face in self.faces for k in distinct_rotations(face)]
        self._all = (1 << len(self._oriented)) - 1
        #: Per direction and match code: the oriented faces with an edge of that code there.
        self._by_code: list[dict[int, int]] = [{} for _ in range(6)]
        for j, (_, edges) in enumerate(self._oriented):
            for d, e in enumerate(edges):
                table = self._by_code[d]
                table[MATCH_CODE[e]] = table.get(MATCH_CODE[e], 0) | 1 << j
        #: Per face: its rotations' bits.
        self._face_bits = [
            sum(1 << j for j, (face, _) in enumerate(self._oriented) if face == f) for f in self.faces
        ]
        self._masks: dict[str, int] = {}
        self._takers: dict[str, int] = {}
        self._showing: dict[tuple[str, int, str], int] = {}
        #: Per direction and letters: the oriented faces showing one of the letters there.
        self._shows: dict[tuple[int, str], int] = {}

    def _fitting(self, around: str) -> int:
        """The oriented faces (a bit mask) that fit a cell with these edges around it."""
        mask = self._masks.get(around)
        if mask is None:
            mask = self._all
            for d, e in enumerate(around):
                if e != ".":
                    mask &= self._by_code[d].get(MATCH_CODE[e], 0)
            self._masks[around] = mask
        return mask

    def takers(self, around: str) -> int:
        """How many faces (in some rotation) fit a cell with these edges around it (``.`` for none)."""
        found = self._takers.get(around)
        if found is None:
            mask = self._fitting(around)
            found = self._takers[around] = sum(1 for bits in self._face_bits if mask & bits)
        return found

    def showing(self, around: str, d: int, letter: str) -> int:
        """How many oriented faces fit the cell and show ``letter`` (or a multicoloured flag edge, for a
        territory) in direction ``d``."""
        key = (around, d, letter)
        found = self._showing.get(key)
        if found is None:
            joins = letter + "X" if letter in TERRITORY_LETTERS else letter
            shows = self._shows.get((d, joins))
            if shows is None:
                bits = (1 << j for j, (_, edges) in enumerate(self._oriented) if edges[d] in joins)
                shows = self._shows[(d, joins)] = sum(bits)
            found = self._showing[key] = (self._fitting(around) & shows).bit_count()
        return found


__all__ = ["Fits"]
