"""The play area: placed tiles with incremental territories, rivers, tracks and tasks.

One node per (tile, area letter) joins a union-find forest: a root holds its
group's size in tiles and its count of open edges (edges facing an empty
space), and the tasks on it.  Each placement is recorded in a journal so that
:meth:`PlayArea.pop` undoes it exactly; nothing is ever copied.  Nodes and
journal are flat arrays of machine integers, so a whole game's area stays
within a few tens of kilobytes.

Empty cells next to the area (the frontier) carry a constraint key: three bits
per direction saying what the facing edge demands (nothing, a river, a track,
a lake, a mountain, or anything but those).  An oriented tile fits a cell when
its own signature agrees with the key on every occupied side.  Each face has
two small tables, one per half of a key, giving the rotations that fit as a bit
set, so listing legal placements costs two look-ups per frontier cell; cells
that no river or track faces are kept apart, where every rotation of a tile
without such edges fits.

>>> area = PlayArea()
>>> area.play("RMMRMM", Placement(Hex(0, 0), 0))
>>> [str(p) for p in area.legal_placements("RMMMMM")][:3]
['0,-1/3', '1,-1/0', '1,-1/1']
"""

from __future__ import annotations

import os
from array import array
from collections.abc import Container, Iterable, Iterator
from dataclasses import dataclass
from functools import cache
from itertools import chain, product
from random import Random
from struct import unpack
from typing import NamedTuple

from dorf.rules.hexgrid import CELL_DELTAS, ORIGIN, Hex, cell_of, hex_of, on_grid
from dorf.rules.tasks import COMPLETED, CONNECTION, FAILED, OPEN, Task, TaskSpec, TaskStatus, judge
from dorf.rules.terrain import (
    AREA_INDEX,
    AREA_LETTERS,
    LETTERS,
    MATCH_CODE,
    MUST_MEET,
    TASK_LETTER,
    TERRAIN_NAMES,
    TERRITORY_LETTERS,
    edges_may_meet,
)
from dorf.rules.tiles import areas, check_face, distinct_rotations, rotate

OPPOSITE = (3, 4, 5, 0, 1, 2)
_SLOT = 3  # bits per direction in a constraint key
_NODE = 8  # node = tile number * _NODE + area index
RIVER = AREA_INDEX["R"]
TRACK = AREA_INDEX["T"]
FLAG_EDGE = AREA_INDEX["X"]
LAKE = AREA_INDEX["L"]
MOUNTAIN = AREA_INDEX["P"]


class IllegalPlacement(ValueError):
    """A placement that breaks a placement or task rule; the message says which."""


class Placement(NamedTuple):
    """Where and how a tile goes: ``Placement(Hex(1, -1), 2)``; text ``1,-1/2``."""

    at: Hex
    rot: int

    def __str__(self) -> str:
        return f"{self.at.q},{self.at.r}/{self.rot}"

    @classmethod
    def from_text(cls, text: str) -> Placement:
        """Read ``q,r/rot`` or ``q r rot``.

        >>> Placement.from_text("1,-1/2") == Placement.from_text("1 -1 2")
        True
        """
        parts = text.replace(",", " ").replace("/", " ").split()
        try:
            q, r, k = (int(p) for p in parts)
        except ValueError:
            raise ValueError(f"cannot read placement {text!r}: expected q,r/rot") from None
        if not 0 <= k < 6:
            raise ValueError(f"rotation {k} is not 0 to 5")
        return cls(Hex(q, r), k)


class PlacedTile(NamedTuple):
    """A tile in the area: face as printed, where, rotation, flag, task."""

    face: str
    at: Hex
    rot: int
    flag: str | None
    task: Task | None

    @property
    def edges(self) -> str:
        """The edge letters by direction, after rotation."""
        return rotate(self.face, self.rot)


@dataclass(frozen=True)
class Group:
    """A territory, river or track (or lake, mountain) as it stands."""

    letter: str
    size: int
    open_edges: int
    cells: tuple[Hex, ...]
    tasks: tuple[Task, ...]

    @property
    def closed(self) -> bool:
        return self.open_edges == 0

    @property
    def name(self) -> str:
        return TERRAIN_NAMES[self.letter]


class _Oriented(NamedTuple):
    edges: str
    signature: int
    areas: tuple[tuple[int, str, tuple[int, ...]], ...]
    #: Per direction: (cell delta, facing edge index, own letter, own area index
    #: or -1, what the edge adds to the key of an empty neighbour there, whether
    #: the own edge must meet its kind, whether it is a lake or mountain half).
    sides: tuple[tuple[int, int, str, int, int, bool, bool], ...]


_ORIENTED: dict[str, _Oriented] = {}
#: Edges whose meetings are counted: each L-L or P-P pair is a lake or mountain (rule 20).
_PAIRED = "LP"


def _oriented(edges: str) -> _Oriented:
    info = _ORIENTED.get(edges)
    if info is None:
        sig = sum(MATCH_CODE[e] << (_SLOT * d) for d, e in enumerate(edges))
        found = tuple((AREA_INDEX[letter], letter, dirs) for letter, dirs in areas(edges))
        contributions = tuple(MATCH_CODE[e] << (_SLOT * OPPOSITE[d]) for d, e in enumerate(edges))
        sides = tuple(
            (
                CELL_DELTAS[d],
                OPPOSITE[d],
                e,
                AREA_INDEX.get(e, -1),
                contributions[d],
                e in MUST_MEET,
                e in _PAIRED,
            )
            for d, e in enumerate(edges)
        )
        info = _ORIENTED[edges] = _Oriented(edges, sig, found, sides)
    return info


#: Integers a tile takes in :meth:`PlayArea.tile_figures`: its open directions, then a size and an
#: open-edge count for each area letter.
FIGURES_PER_TILE = 1 + 2 * len(AREA_LETTERS)

#: A tile's eight node slots before its areas are set: no node.
_NO_NODES = array("i", [-1] * _NODE)

_HALF = 3 * _SLOT  # a key splits into two halves of three directions
_HALF_MASK = (1 << _HALF) - 1


@cache
def _fit_tables(face: str) -> tuple[tuple[int, ...], tuple[int, ...]]:
    """Per half of a constraint key, the bit set of distinct rotations that fit it.

    A rotation fits a key when, on every side, the key demands nothing or
    exactly the rotation's own code there; sides are independent, so the
    rotations fitting a whole key are ``low[key & 511] & high[key >> 9]``.
    """
    distinct = distinct_rotations(face)
    signatures = [_oriented(rotate(face, k)).signature for k in range(6)]
    per_side = [
        [
            sum(1 << k for k in distinct if code == 0 or (signatures[k] >> (_SLOT * d)) & 7 == code)
            for code in range(8)
        ]
        for d in range(6)
    ]
    halves = []
    for first in (0, 3):
        a, b, c = per_side[first : first + 3]
        halves.append(tuple(a[v & 7] & b[(v >> 3) & 7] & c[v >> 6] for v in range(1 << _HALF)))
    return halves[0], halves[1]


def _fitting_rotations(face: str, key: int) -> int:
    """Bit set of the distinct rotations of ``face`` whose edges match a frontier key."""
    low, high = _fit_tables(face)
    return low[key & _HALF_MASK] & high[key >> _HALF]


#: (cell << 6 | rotation bit set) -> the moves (cell, k) it stands for.
_MOVES: dict[int, tuple[tuple[int, int], ...]] = {}


def _moves_at(cell: int, rots: int) -> tuple[tuple[int, int], ...]:
    moves = _MOVES.get(cell << 6 | rots)
    if moves is None:
        moves = _MOVES[cell << 6 | rots] = tuple((cell, k) for k in range(6) if rots >> k & 1)
    return moves


@cache
def _letter_masks(face: str, letter: str) -> tuple[int, ...]:
    """Per rotation, the bit set of directions where ``face`` shows ``letter``."""
    return tuple(sum(1 << d for d, e in enumerate(rotate(face, k)) if e == letter) for k in range(6))


@cache
def _is_plain(face: str) -> bool:
    """A face with no edge that must meet its own kind."""
    return not any(letter in MUST_MEET for letter in face)


#: Per direction: the cell delta to the neighbour and the index of its edge facing back.
_FACING = tuple((CELL_DELTAS[d], OPPOSITE[d]) for d in range(6))

_CONTACTS: dict[tuple[str, str], tuple[int, int]] = {}


def contact_counts(edges: str, around: str) -> tuple[int, int]:
    """Edges of an oriented tile that join what they face, and edges that face another terrain,
    given the letters around it (``.`` for no tile): see :meth:`PlayArea.contacts`."""
    found = _CONTACTS.get((edges, around))
    if found is None:
        same = other = 0
        for mine, theirs in zip(edges, around, strict=True):
            if theirs == ".":
                continue
            if (
                theirs == mine
                or (mine == "X" and theirs in TERRITORY_LETTERS)
                or (theirs == "X" and mine in TERRITORY_LETTERS)
            ):
                same += mine != "M"
            else:
                other += 1
        found = _CONTACTS[(edges, around)] = (same, other)
    return found


_PLACEMENTS: dict[int, tuple[Placement, ...]] = {}


def _placements_at(cell: int) -> tuple[Placement, ...]:
    row = _PLACEMENTS.get(cell)
    if row is None:
        at = hex_of(cell)
        row = _PLACEMENTS[cell] = tuple(Placement(at, k) for k in range(6))
    return row


def placement_at(cell: int, rot: int) -> Placement:
    """The :class:`Placement` of a move ``(cell, rot)`` (one shared value per move)."""
    row = _PLACEMENTS.get(cell)
    return (row if row is not None else _placements_at(cell))[rot]


def placements_of(moves: list[tuple[int, int]]) -> list[Placement]:
    """Moves as sorted :class:`Placement` values: by cell (row ``r``, then ``q``), then rotation."""
    return [_placements_at(c)[k] for c, k in sorted(moves)]


class PlayArea:
    """One player's (or the team's) landscape.

    Change it only with :meth:`play` (checked) or :meth:`push` (unchecked, for
    callers that took the placement from :meth:`legal_moves`) and :meth:`pop`.

    This class is the reference and the readable specification.  Where the
    compiled core (:mod:`dorf.rules._accel`, see docs/engine.md) is built,
    ``PlayArea()`` makes an area whose hot path (:meth:`push`, :meth:`pop`,
    :meth:`legal_moves`, ...) and few primitives (``_edges``, ``_root``, ...)
    are C, with the same results in the same order; everything above the
    primitives is this Python code in both.
    """

    def __new__(cls) -> PlayArea:
        if cls is PlayArea and _ACTIVE is not None:
            return _ACTIVE.__new__(_ACTIVE)
        return super().__new__(cls)

    def __init__(self) -> None:
        #: The oriented edges of the tile on each occupied cell, and the tile's number (the order placed).
        self._board: dict[int, str] = {}
        self._tile_of: dict[int, int] = {}
        self._frontier: dict[int, int] = {}
        #: Frontier cells no river or track (lake, mountain) edge faces: any
        #: rotation of a tile without such edges fits there, and only there.
        self._plain: dict[int, None] = {}
        # Union-find nodes: node = tile number * 8 + area index, -1 for an area the tile lacks;
        # flat arrays of machine integers, eight slots a tile.
        self._parent = array("i")
        self._size = array("i")
        self._open = array("i")
        self._tasks_at: dict[int, tuple[Task, ...]] = {}
        self._longest = [0] * len(AREA_LETTERS)
        #: Per area index, how many pairs of its edges meet (lakes, mountains).
        self._pairs = [0] * len(AREA_LETTERS)
        #: Connection tasks (the Duel) by cell: they watch neighbours, not a group.
        self._connections: dict[int, Task] = {}
        # Journal entries, four integers each, undone in reverse by pop():
        #   0, cell, old key or -1, was plain   a frontier cell changed
        #   1, root, old size, old open edges   a group's figures changed
        #   2, node, 0, 0                       a root was joined under another
        #   3, area index, old longest, 0       a longest network grew
        #   4, area index, old pairs, 0         two lake or mountain halves met
        # (a flat array of machine integers: a few bytes an entry, not a tuple of objects)
        self._journal = array("i")
        self._task_journal: list[tuple[Task, TaskStatus]] = []
        self._tasks_journal: list[tuple[int, tuple[Task, ...] | None]] = []
        #: Per placement, three integers: the lengths of the three journals before it.
        self._marks = array("i")
        self.placed: list[PlacedTile] = []
        self.tasks: list[Task] = []
        self._active = 0
        self._cells: list[int] = []

    # --- primitives: the few reads the compiled core provides too ------------

    def _edges(self, cell: int) -> str | None:
        """The oriented edge letters of the tile on ``cell``, or None."""
        return self._board.get(cell)

    def _in_frontier(self, cell: int) -> bool:
        return cell in self._frontier

    def _frontier_cells(self) -> list[int]:
        """The frontier's cells in the enumerator's order."""
        return list(self._frontier)

    def _root(self, cell: int, index: int) -> int:
        """The root node of the group through area ``index`` of the tile on ``cell``; -1 if none."""
        tile = self._tile_of.get(cell)
        if tile is None or self._parent[tile * _NODE + index] < 0:
            return -1
        return self._find(tile * _NODE + index)

    def _root_figures(self, root: int) -> tuple[int, int, tuple[Task, ...]]:
        """Size, open edges and tasks of the group whose root is ``root``."""
        return self._size[root], self._open[root], self._tasks_at.get(root, ())

    def _neighbour_count(self, cell: int) -> int:
        board = self._board
        return sum(1 for delta in CELL_DELTAS if cell + delta in board)

    # --- reading the area ------------------------------------------------------

    def __len__(self) -> int:
        return len(self.placed)

    def __iter__(self) -> Iterator[PlacedTile]:
        return iter(self.placed)

    def tile_at(self, at: Hex) -> PlacedTile | None:
        if self._edges(cell_of(*at)) is None:
            return None
        return next(tile for tile in self.placed if tile.at == at)

    def edges_at(self, at: Hex) -> str | None:
        """The oriented edge letters of the tile at ``at``, or None."""
        return self._edges(cell_of(*at))

    def frontier(self) -> list[Hex]:
        """Empty cells touching the area: where the next tile may go."""
        if not self.placed:
            return [Hex(0, 0)]
        return [hex_of(c) for c in self._frontier_cells()]

    def frontier_cells(self) -> list[int]:
        """The frontier as integer cells (:meth:`frontier` without the :class:`Hex` values)."""
        if not self.placed:
            return [ORIGIN]
        return self._frontier_cells()

    @property
    def active_count(self) -> int:
        """How many tasks are open (active) now."""
        return self._active

    @property
    def longest_river(self) -> int:
        return self._longest[RIVER]

    @property
    def longest_track(self) -> int:
        return self._longest[TRACK]

    @property
    def mountains(self) -> int:
        """Completed mountains: pairs of mountain (P) edges that meet."""
        return self._pairs[MOUNTAIN]

    @property
    def lakes(self) -> int:
        """Completed lakes: pairs of lake (L) edges that meet."""
        return self._pairs[LAKE]

    def figures(self, cell: int, letter: str) -> tuple[int, int]:
        """Size and open edges of the group through the ``letter`` area at ``cell`` (fast; no Group)."""
        root = self._root(cell, AREA_INDEX[letter])
        if root < 0:
            raise KeyError(letter)
        return self._size[root], self._open[root]

    def flag_figures(self) -> list[tuple[int, int]]:
        """For each placed tile with a flag, in the order placed: the size and open edges of the
        group its flag stands in (what :meth:`flags` gives, without the cell lists)."""
        return [self.figures(cell_of(*tile.at), tile.flag) for tile in self.placed if tile.flag is not None]

    def tile_figures(self) -> array[int]:
        """Per placed tile, in the order placed, :data:`FIGURES_PER_TILE` integers: the bit set of
        the directions where no tile is yet (its open edges), then for each area letter (F, G, V,
        R, T, L, P, X) the size and open edges of the tile's group of that letter, or -1 and -1
        where the tile shows no such letter.  One flat array, for readers of every tile at once
        (the observation planes of :mod:`dorf.rl`)."""
        out = array("i")
        board = self._board
        for tile in self.placed:
            cell = cell_of(*tile.at)
            out.append(sum(1 << d for d, delta in enumerate(CELL_DELTAS) if cell + delta not in board))
            for index in range(len(AREA_LETTERS)):
                root = self._root(cell, index)
                out.extend((self._size[root], self._open[root]) if root >= 0 else (-1, -1))
        return out

    def move_array(self, moves: list[tuple[int, int]]) -> array[int]:
        """``moves`` (``(cell, rotation)`` pairs, as :meth:`legal_moves` gives them) as one flat
        array: cell, rotation, cell, rotation, ...  For readers of every move at once (the
        action masks of :mod:`dorf.rl`)."""
        return array("i", chain.from_iterable(moves))

    def contacts(self, face: str, cell: int, k: int) -> tuple[int, int]:
        """For ``face`` turned ``k`` at empty ``cell``: how many of its edges would meet an edge that
        joins them (same terrain, or a flag edge and a territory) and how many would meet another
        terrain (a territory edge against meadow or a different territory)."""
        return contact_counts(rotate(face, k), self.surroundings(cell))

    def contact_values(
        self,
        face: str,
        moves: list[tuple[int, int]],
        joined: float,
        mismatched: float,
        noise: list[float] | bytes,
        best: int | None = None,
        near: Container[int] = (),
    ) -> list[tuple[float, tuple[int, int]]]:
        """Each move's ``joined * same - mismatched * other + noise * 0.01`` (its :meth:`contacts`,
        one noise value a move, in order), best first; equal values keep the order of ``moves``.
        With ``best``: only the best ``best`` of them, then up to ``best`` more of the rest, in
        order, whose cell is in ``near``.

        ``noise`` is a list of one float a move, or ``rng.getrandbits(64 * len(moves))`` as 8
        little-endian bytes a move (:func:`random_floats`): the same floats as ``rng.random()``
        once a move, made without a Python call each.

        The rollout policies of :mod:`dorf.players.search` and :mod:`dorf.players.planner` rank
        their moves with it."""
        if isinstance(noise, bytes):
            if len(noise) != 8 * len(moves):
                raise ValueError("noise must be a list of one float a move or 8 bytes a move")
            noise = random_floats(noise)
        turned = [rotate(face, k) for k in range(6)]
        out = []
        around_cell = -1
        around = ""
        for move, r in zip(moves, noise, strict=True):
            cell, k = move
            if cell != around_cell:
                around_cell, around = cell, self.surroundings(cell)
            same, other = contact_counts(turned[k], around)
            out.append((joined * same - mismatched * other + r * 0.01, move))
        out.sort(key=_minus_value)
        if best is None:
            return out
        if best < 0:
            raise ValueError("best must not be negative")
        return out[:best] + [entry for entry in out[best:] if entry[1][0] in near][:best]

    def surroundings(self, cell: int) -> str:
        """Per direction, the letter of the edge facing ``cell`` (``.`` where no tile is)."""
        board = self._board
        return "".join(
            "." if (near := board.get(cell + delta)) is None else near[facing] for delta, facing in _FACING
        )

    def open_cells(self, cell: int, letter: str) -> dict[int, int]:
        """The empty cells the open edges of the ``letter`` group through ``cell`` face, each with
        the direction from that cell back to the group: the first found, walking the group depth
        first from ``cell`` (the last tile reached is walked next), directions in order.

        A multicoloured flag (``X``) stands in the territory its edge meets, if any; a cell without
        a tile, or a group with no open edge, has none.
        """
        if not isinstance(letter, str) or len(letter) != 1:
            raise ValueError(f"letter {letter!r} is not one letter")
        out: dict[int, int] = {}
        if letter == "X":
            edges = self._edges(cell)
            if edges is None or "X" not in edges:
                return out
            d = edges.index("X")
            facing = self.surroundings(cell)[d]
            if facing == ".":
                out[cell + CELL_DELTAS[d]] = OPPOSITE[d]
                return out
            if facing not in TERRITORY_LETTERS:
                return out
            letter = facing
        joins = letter + "X" if letter in TERRITORY_LETTERS else letter
        seen = {cell}
        todo = [cell]
        while todo:
            here = todo.pop()
            edges = self._edges(here)
            if edges is None:
                continue
            around = self.surroundings(here)
            for d in range(6):
                if edges[d] in joins:
                    facing = around[d]
                    near = here + CELL_DELTAS[d]
                    if facing == ".":
                        if near not in out:
                            out[near] = OPPOSITE[d]
                    elif facing in joins and near not in seen and not (facing == "X" and edges[d] == "X"):
                        seen.add(near)
                        todo.append(near)
        return out

    def neighbours(self, at: Hex) -> int:
        """How many tiles touch the cell ``at``."""
        return self._neighbour_count(cell_of(*at))

    def active_tasks(self) -> list[Task]:
        return [t for t in self.tasks if t.status is OPEN]

    def last_changes(self) -> tuple[tuple[Task, TaskStatus], ...]:
        """The tasks the last placement completed or failed, with their new status."""
        if not self._marks:
            return ()
        return tuple((t, t.status) for t, _ in self._task_journal[self._marks[-2] :])

    def group(self, at: Hex, letter: str) -> Group | None:
        """The territory (river, track, ...) through the ``letter`` area of the tile at ``at``."""
        root = self._root(cell_of(*at), AREA_INDEX[letter])
        return None if root < 0 else self._describe(root)

    def groups_through(self, at: Hex, letters: Iterable[str]) -> list[Group | None]:
        """:meth:`group` for several areas of the tile at ``at`` (None where it has no such area),
        their tiles found in one pass over the placed tiles instead of one pass each."""
        cell = cell_of(*at)
        roots = [self._root(cell, AREA_INDEX[letter]) for letter in letters]
        members: dict[int, list[Hex]] = {root: [] for root in roots if root >= 0}
        if not members:
            return [None] * len(roots)
        indexes = sorted({root % _NODE for root in members} | {FLAG_EDGE})
        for tile in self.placed:  # a tile belongs through its own area or its flag edge
            here = cell_of(*tile.at)
            found = {index: self._root(here, index) for index in indexes}
            flag = found[FLAG_EDGE]
            for root, tiles in members.items():
                if found[root % _NODE] == root or flag == root:
                    tiles.append(tile.at)
        return [None if root < 0 else self._describe(root, members[root]) for root in roots]

    def groups(self, letters: str = AREA_LETTERS) -> list[Group]:
        """Every group of the given letters, in order of first tile placed."""
        members: dict[int, list[Hex]] = {}
        wanted: dict[int, None] = {}
        for tile in self.placed:
            cell = cell_of(*tile.at)
            for index, letter, _ in _oriented(tile.edges).areas:
                root = self._root(cell, index)
                members.setdefault(root, []).append(tile.at)
                if letter in letters:
                    wanted.setdefault(root)
        return [self._describe(root, members[root]) for root in wanted]

    def _describe(self, root: int, members: list[Hex] | None = None) -> Group:
        """The group of ``root``; ``members``, its tiles in the order placed, are found if not given
        (a tile belongs to a territory through its own area or its multicoloured flag edge)."""
        index = root % _NODE
        if members is None:
            nodes = (index,) if index == FLAG_EDGE else (index, FLAG_EDGE)
            members = []
            for tile in self.placed:
                cell = cell_of(*tile.at)
                if any(self._root(cell, i) == root for i in nodes):
                    members.append(tile.at)
        size, open_edges, tasks = self._root_figures(root)
        return Group(AREA_LETTERS[index], size, open_edges, tuple(members), tasks)

    def flags(self) -> list[tuple[PlacedTile, Group]]:
        """Each flag tile with the territory its flag stands in."""
        out = []
        for tile in self.placed:
            if tile.flag:
                group = self.group(tile.at, tile.flag)
                assert group is not None
                out.append((tile, group))
        return out

    # --- legality ----------------------------------------------------------------

    def legal_moves(self, face: str, task: TaskSpec | None = None) -> list[tuple[int, int]]:
        """Every legal (cell, rotation) for ``face``; the one enumerator all callers use.

        The order follows the frontier (deterministic for a given history); sort
        the result where a canonical order matters.
        """
        if not self._cells:
            rots = distinct_rotations(face)
            return [(ORIGIN, k) for k in rots if self._task_possible(ORIGIN, face, k, task)]
        moves: list[tuple[int, int]]
        if _is_plain(face):
            moves = list(product(self._plain, distinct_rotations(face)))
            return moves if task is None else self._keep_possible(moves, face, task)
        low, high = _fit_tables(face)
        half, half_mask = _HALF, _HALF_MASK
        moves = []
        extend = moves.extend
        moves_cache = _MOVES
        for cell, key in self._frontier.items():
            bits = low[key & half_mask] & high[key >> half]
            if bits:
                found = moves_cache.get(cell << 6 | bits)
                extend(found if found is not None else _moves_at(cell, bits))
        return moves if task is None else self._keep_possible(moves, face, task)

    def _keep_possible(
        self, moves: list[tuple[int, int]], face: str, task: TaskSpec
    ) -> list[tuple[int, int]]:
        """The moves (grouped by cell) after which the new task is still possible (rule 5).

        Where the task's edges meet no edge of their kind, its area is the tile
        alone, open if one of those edges faces an empty cell; only the other
        moves need the neighbouring groups.
        """
        if len(task.letters) != 1:
            return [(cell, k) for cell, k in moves if self._task_possible(cell, face, k, task)]
        letter = task.letter
        joining = letter + "X" if letter in TERRITORY_LETTERS else letter
        letter_masks = _letter_masks(face, letter)
        alone_ok = (judge(1, 1, task.value) is not FAILED, judge(1, 0, task.value) is not FAILED)
        board = self._board
        kept: list[tuple[int, int]] = []
        cell_seen = -1
        joins = empty = 0
        for cell, k in moves:
            if cell != cell_seen:
                cell_seen = cell
                joins = empty = 0
                for d in range(6):
                    other = board.get(cell + CELL_DELTAS[d])
                    if other is None:
                        empty |= 1 << d
                    elif other[OPPOSITE[d]] in joining:
                        joins |= 1 << d
            mask = letter_masks[k]
            if mask & joins:
                if self._task_possible(cell, face, k, task):
                    kept.append((cell, k))
            elif alone_ok[0 if mask & empty else 1]:
                kept.append((cell, k))
        return kept

    def legal_placements(self, face: str, task: TaskSpec | None = None) -> list[Placement]:
        """Every legal placement of ``face`` (with its task, if any), sorted."""
        return placements_of(self.legal_moves(face, task))

    def has_legal_placement(self, face: str, task: TaskSpec | None = None) -> bool:
        if task is not None:
            return bool(self.legal_moves(face, task))
        if not self._cells:
            return True
        return any(_fitting_rotations(face, key) for key in self._frontier.values())

    def why_illegal(self, face: str, placement: Placement, task: TaskSpec | None = None) -> str | None:
        """The rule a placement breaks, in a few words, or None if it is legal."""
        check_face(face)
        at, k = placement
        if not 0 <= k < 6:
            return f"rotation {k} is not 0 to 5"
        try:
            cell = cell_of(*at)
        except ValueError as exc:
            return str(exc)
        if not on_grid(cell):
            return f"[{at.q}, {at.r}] is too far from the origin"
        if task is not None:
            try:
                task.check()
            except ValueError as exc:
                return str(exc)
            missing = [TERRAIN_NAMES[letter] for letter in task.letters if letter not in face]
            if missing:
                return f"a {task.name} task needs {' and '.join(missing)} on its tile"
        if not self.placed:
            if at != Hex(0, 0):
                return "the first tile goes at [0, 0]"
        elif self._edges(cell) is not None:
            return f"[{at.q}, {at.r}] is already taken"
        elif not self._in_frontier(cell):
            return f"[{at.q}, {at.r}] does not touch the play area"
        else:
            edges = rotate(face, k)
            for d in range(6):
                other = self._edges(cell + CELL_DELTAS[d])
                if other is None:
                    continue
                mine, theirs = edges[d], other[OPPOSITE[d]]
                if not edges_may_meet(mine, theirs):
                    return (
                        f"its {TERRAIN_NAMES[mine]} edge would face a {TERRAIN_NAMES[theirs]} edge "
                        f"(rivers, tracks, lakes and mountains must meet their own kind)"
                    )
        if task is not None and not self._task_possible(cell, face, k, task):
            return self._why_impossible(cell, face, k, task)
        return None

    def _why_impossible(self, cell: int, face: str, k: int, task: TaskSpec) -> str:
        if task.type == CONNECTION:
            count = self._neighbour_count(cell)
            return f"{count} tiles would already touch its connection task, more than {task.value}"
        reasons = []
        for letter in task.letters:
            size, _ = self._area_after(cell, rotate(face, k), AREA_INDEX[letter])
            name = TERRAIN_NAMES[letter]
            if size > task.value:
                reasons.append(f"its {name} would already have {size} tiles, more than {task.value}")
            else:
                reasons.append(f"it would close its {name} at {size} tiles, fewer than {task.value}")
        return " and ".join(reasons)

    def _task_possible(self, cell: int, face: str, k: int, task: TaskSpec | None) -> bool:
        """Whether a new task would still be possible after this placement (rule 5)."""
        if task is None:
            return True
        if task.type == CONNECTION:
            return self._neighbour_count(cell) <= task.value
        edges = rotate(face, k)
        for letter in task.letters:
            size, open_edges = self._area_after(cell, edges, AREA_INDEX[letter])
            if judge(size, open_edges, task.value) is not FAILED:
                return True
        return False

    def grown_to(
        self, face: str, moves: list[tuple[int, int]], index: int, least: int, most: int
    ) -> list[tuple[int, int]]:
        """The moves, in order, after which the tile's area of letter ``AREA_LETTERS[index]``
        (with the groups it joins) would count from ``least`` to ``most`` tiles: where a task tile
        would bring its group to its marker's size, or near it.

        A rollout policy reads it to find those placements without valuing every move."""
        if not 0 <= index < len(AREA_LETTERS):
            raise ValueError("index is not an area letter's")
        out = []
        for cell, k in moves:
            size, _ = self._area_after(cell, rotate(face, k), index)
            if least <= size <= most:
                out.append((cell, k))
        return out

    def _area_after(self, cell: int, edges: str, index: int) -> tuple[int, int]:
        """Size and open edges the ``index`` area of a tile with oriented ``edges`` at ``cell``
        would have.

        A territory also joins the groups of multicoloured flag edges it meets.
        """
        letter = AREA_LETTERS[index]
        joining = letter + "X" if letter in TERRITORY_LETTERS else letter
        board = self._board
        size = 1
        open_edges = 0
        roots: list[int] = []
        sides = _oriented(edges).sides
        for delta, facing, _, own, _, _, _ in sides:
            other = board.get(cell + delta)
            if other is None:
                if own == index:
                    open_edges += 1
            elif own == index and other[facing] in joining:
                root = self._find(self._tile_of[cell + delta] * _NODE + AREA_INDEX[other[facing]])
                if root not in roots:
                    roots.append(root)
                    size += self._size[root]
                    open_edges += self._open[root]
        if roots:
            for delta, facing, _, _, _, _, _ in sides:
                other = board.get(cell + delta)
                if (
                    other is not None
                    and other[facing] in joining
                    and self._find(self._tile_of[cell + delta] * _NODE + AREA_INDEX[other[facing]]) in roots
                ):
                    open_edges -= 1
        return size, open_edges

    # --- changing the area -----------------------------------------------------

    def play(
        self, face: str, placement: Placement, *, flag: str | None = None, task: TaskSpec | None = None
    ) -> None:
        """Place a tile after checking every rule; raises :class:`IllegalPlacement`."""
        reason = self.why_illegal(face, placement, task)
        if reason is None and flag is not None and (flag not in TERRITORY_LETTERS + "X" or flag not in face):
            reason = f"its flag names {TERRAIN_NAMES.get(flag, flag)}, which is not a territory on the tile"
        if reason is not None:
            raise IllegalPlacement(reason)
        self.push(face, cell_of(*placement.at), placement.rot, flag=flag, task=task)

    def _find(self, node: int) -> int:
        parent = self._parent
        up = parent[node]
        while up != node:
            node = up
            up = parent[node]
        return node

    def push(
        self, face: str, cell: int, k: int, *, flag: str | None = None, task: TaskSpec | None = None
    ) -> None:
        """Place a tile without checking it: the hot path behind :meth:`play`."""
        edges = rotate(face, k)
        info = _oriented(edges)
        board = self._board
        parent = self._parent
        size = self._size
        opened = self._open
        journal = self._journal
        log = journal.extend
        frontier = self._frontier
        find = self._find
        self._marks.extend((len(journal), len(self._task_journal), len(self._tasks_journal)))

        plain = self._plain
        log((0, cell, frontier.pop(cell, -1), cell in plain))
        plain.pop(cell, None)
        board[cell] = edges
        tile_of = self._tile_of
        number = tile_of[cell] = len(self._cells)
        parent.extend(_NO_NODES)
        size.extend(_NO_NODES)
        opened.extend(_NO_NODES)
        base = number * _NODE
        for index, _, _dirs in info.areas:
            node = base + index
            parent[node] = node
            size[node] = 1
            opened[node] = 0
        touched: list[int] = []
        joins: list[tuple[int, int]] = []
        area_index = AREA_INDEX
        for delta, facing, mine, own, contribution, must, paired in info.sides:
            near = cell + delta
            other = board.get(near)
            if other is None:
                if own >= 0:
                    opened[base + own] += 1
                old = frontier.get(near, -1)
                log((0, near, old, near in plain))
                if old < 0:
                    frontier[near] = contribution
                    if not must:
                        plain[near] = None
                else:
                    frontier[near] = old + contribution
                    if must:
                        plain.pop(near, None)
                continue
            theirs = other[facing]
            if theirs not in area_index:
                continue
            index = area_index[theirs]
            root = find(tile_of[near] * _NODE + index)
            log((1, root, size[root], opened[root]))
            opened[root] -= 1
            touched.append(root)
            if mine == theirs:
                if paired:
                    log((4, index, self._pairs[index], 0))
                    self._pairs[index] += 1
                if mine != "X":
                    joins.append((base + index, root))
            elif mine == "X" or theirs == "X":
                # A multicoloured flag edge joins the territory it meets (rule 19).
                if theirs in TERRITORY_LETTERS:
                    joins.append((base + FLAG_EDGE, root))
                elif mine in TERRITORY_LETTERS:
                    joins.append((base + own, root))
        for a, b in joins:
            ra = find(a)
            rb = find(b)
            if ra == rb:
                continue
            if size[ra] < size[rb] or ra % _NODE == FLAG_EDGE:
                ra, rb = rb, ra
            log((1, ra, size[ra], opened[ra]))
            log((2, rb, 0, 0))
            parent[rb] = ra
            size[ra] += size[rb]
            opened[ra] += opened[rb]
            moved = self._tasks_at.get(rb)
            if moved:
                self._set_tasks(ra, self._tasks_at.get(ra, ()) + moved)
                self._set_tasks(rb, ())
        new_task: Task | None = None
        if task is not None:
            new_task = Task(cell, task)
            if task.type == CONNECTION:
                self._connections[cell] = new_task
            for letter in task.letters:
                root = find(base + AREA_INDEX[letter])
                self._set_tasks(root, (*self._tasks_at.get(root, ()), new_task))
            self.tasks.append(new_task)
            self._active += 1
        # Judge the tasks of every group this placement grew or covered.
        longest = self._longest
        tasks_at = self._tasks_at
        for index, _, _dirs in info.areas:
            root = find(base + index)
            touched.append(root)
            if size[root] > longest[index]:
                log((3, index, longest[index], 0))
                longest[index] = size[root]
        for root in touched:
            if root in tasks_at:
                for t in tasks_at[root]:
                    if t.status is OPEN:
                        if t.spec.types:
                            status = self._judge_double(t)
                        else:
                            status = judge(size[root], opened[root], t.spec.value)
                        if status is not OPEN:
                            self._task_journal.append((t, OPEN))
                            t.status = status
                            self._active -= 1
        if self._connections:
            self._judge_connections(cell)
        self._cells.append(cell)
        self.placed.append(PlacedTile(face, hex_of(cell), k, flag, new_task))

    def push_changes(
        self, face: str, cell: int, k: int, *, flag: str | None = None, task: TaskSpec | None = None
    ) -> tuple[tuple[Task, TaskStatus], ...]:
        """:meth:`push`, then :meth:`last_changes`: the tasks the tile completed or failed, in one call."""
        self.push(face, cell, k, flag=flag, task=task)
        return self.last_changes()

    def _judge_double(self, task: Task) -> TaskStatus:
        """Completed when either territory is exactly the value; failed when both are impossible."""
        failed = 0
        for letter in task.spec.letters:
            root = self._find(self._tile_of[task.cell] * _NODE + AREA_INDEX[letter])
            status = judge(self._size[root], self._open[root], task.spec.value)
            if status is COMPLETED:
                return COMPLETED
            failed += status is FAILED
        return FAILED if failed == 2 else OPEN

    def _judge_connections(self, cell: int) -> None:
        """Complete the open connection tasks at ``cell`` and around it that now have their count."""
        for near in (cell, *(cell + delta for delta in CELL_DELTAS)):
            t = self._connections.get(near)
            if t is not None and t.status is OPEN and self._neighbour_count(near) == t.spec.value:
                self._task_journal.append((t, OPEN))
                t.status = COMPLETED
                self._active -= 1

    def _set_tasks(self, root: int, tasks: tuple[Task, ...]) -> None:
        old = self._tasks_at.get(root)
        self._tasks_journal.append((root, old))
        if tasks:
            self._tasks_at[root] = tasks
        else:
            self._tasks_at.pop(root, None)

    def pop(self) -> PlacedTile:
        """Undo the last placement exactly and return it."""
        marks = self._marks
        if not marks:
            raise IndexError("pop from an empty play area")
        mark, task_mark, tasks_mark = marks[-3:]
        del marks[-3:]
        tile = self.placed.pop()
        self._cells.pop()
        if tile.task is not None:
            self.tasks.pop()
            if tile.task.spec.type == CONNECTION:
                del self._connections[cell_of(*tile.at)]
        for t, status in reversed(self._task_journal[task_mark:]):
            t.status = status
        self._active = sum(1 for t in self.tasks if t.status is OPEN)
        del self._task_journal[task_mark:]
        for root, old in reversed(self._tasks_journal[tasks_mark:]):
            if old is None:
                self._tasks_at.pop(root, None)
            else:
                self._tasks_at[root] = old
        del self._tasks_journal[tasks_mark:]
        journal = self._journal
        for at in range(len(journal) - 4, mark - 1, -4):
            op, a, b, c = journal[at : at + 4]
            if op == 0:
                if b < 0:
                    self._frontier.pop(a, None)
                else:
                    self._frontier[a] = b
                if c:
                    self._plain[a] = None
                else:
                    self._plain.pop(a, None)
            elif op == 1:
                self._size[a] = b
                self._open[a] = c
            elif op == 2:
                self._parent[a] = a
            elif op == 3:
                self._longest[a] = b
            else:
                self._pairs[a] = b
        del journal[mark:]
        cell = cell_of(*tile.at)
        del self._board[cell], self._tile_of[cell]
        del self._parent[-_NODE:], self._size[-_NODE:], self._open[-_NODE:]
        return tile

    def copy(self) -> PlayArea:
        """A new area equal to this one in every respect, its journal too (it pops back as far),
        that shares nothing that changes with it: its own :class:`Task` objects, and new placed
        tiles for those that carry one (the others are immutable and shared).  What a view hands
        a player: a snapshot, however the game goes on."""
        new = object.__new__(type(self))
        moved = {t: Task(t.cell, t.spec, t.status) for t in self.tasks}
        new._board = self._board.copy()
        new._tile_of = self._tile_of.copy()
        new._frontier = self._frontier.copy()
        new._plain = self._plain.copy()
        new._parent = self._parent[:]
        new._size = self._size[:]
        new._open = self._open[:]
        new._tasks_at = {root: tuple(moved[t] for t in tasks) for root, tasks in self._tasks_at.items()}
        new._longest = self._longest.copy()
        new._pairs = self._pairs.copy()
        new._connections = {cell: moved[t] for cell, t in self._connections.items()}
        new._journal = self._journal[:]
        new._task_journal = [(moved[t], status) for t, status in self._task_journal]
        new._tasks_journal = [
            (root, None if old is None else tuple(moved[t] for t in old)) for root, old in self._tasks_journal
        ]
        new._marks = self._marks[:]
        new.placed = [p if p.task is None else p._replace(task=moved[p.task]) for p in self.placed]
        new.tasks = list(moved.values())
        new._active = self._active
        new._cells = self._cells.copy()
        return new


def random_bits(rng: Random, n: int) -> bytes:
    """``n`` moves' noise for :meth:`PlayArea.contact_values` as bytes: the same floats (and the same
    state of ``rng`` after) as ``[rng.random() for _ in range(n)]``, in one call."""
    return rng.getrandbits(64 * n).to_bytes(8 * n, "little")


def random_floats(bits: bytes) -> list[float]:
    """The floats ``random.Random.random()`` makes, one from each 8 bytes of ``bits`` (two 32-bit
    words, little-endian, as ``rng.getrandbits(64 * n).to_bytes(8 * n, "little")`` gives them): the
    same n floats as calling ``rng.random()`` n times from the same state."""
    words = unpack(f"<{len(bits) // 4}I", bits)
    pairs = zip(words[::2], words[1::2], strict=True)
    return [((a >> 5) * 67108864.0 + (b >> 6)) * (1.0 / 9007199254740992.0) for a, b in pairs]


def _minus_value(item: tuple[float, tuple[int, int]]) -> float:
    return -item[0]


# --- the backends ------------------------------------------------------------------
#
# ``PlayArea()`` makes the class in ``_ACTIVE``: the compiled core's where the C
# extension dorf.rules._accel was built (``pip install`` builds it when a C compiler
# is there), this module's own class otherwise or when DORF_PURE=1 is set.

BACKENDS = ("compiled", "pure")


def _load_compiled() -> type[PlayArea] | None:
    """The play area with the compiled core, or None where it is not built (or DORF_PURE is set)."""
    if os.environ.get("DORF_PURE", "") not in ("", "0"):
        return None
    try:
        from dorf.rules import _accel
    except ImportError:
        return None
    _accel.setup(PlacedTile, Hex, Task, OPEN, COMPLETED, FAILED, TASK_LETTER, LETTERS, AREA_LETTERS)

    class CompiledPlayArea(_accel.Area, PlayArea):
        """A :class:`PlayArea` whose hot path and primitives are the compiled core's."""

    return CompiledPlayArea


COMPILED: type[PlayArea] | None = _load_compiled()
_ACTIVE: type[PlayArea] | None = COMPILED


def backend() -> str:
    """Which play area ``PlayArea()`` makes now: ``"compiled"`` or ``"pure"``."""
    return "pure" if _ACTIVE is None else "compiled"


def use_backend(name: str) -> str:
    """Make ``PlayArea()`` build areas of backend ``name`` from now on; returns the previous one.

    Areas already made keep their backend.  Raises ValueError for ``"compiled"`` where
    the extension is not built.
    """
    global _ACTIVE
    previous = backend()
    if name == "pure":
        _ACTIVE = None
    elif name == "compiled":
        if COMPILED is None:
            raise ValueError("the compiled backend is not built (or DORF_PURE is set)")
        _ACTIVE = COMPILED
    else:
        raise ValueError(f"unknown backend {name!r}: {' or '.join(BACKENDS)}")
    return previous
