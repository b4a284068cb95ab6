"""Observation planes: what one seat may know, as a ``(planes, side, side)`` float32 array.

The grid is the action window's square (``side = 2 * radius + 1``): row
``r + radius``, column ``q + radius``; the cells outside the hexagon stay 0
in the spatial planes.  Sizes, task values and open-edge counts are divided
by 10, counts of tiles by the size of the tile set, so every value lies in
``[0, high]`` (``Encoder.high``, 1 for all but the size planes).

Encoders read only a view (``CoopState.view()``, ``DuelState.view(p)``,
``HeadToHeadState.view(p)``), never a state: the order of a stack cannot leak.
``Encoder(...).names`` lists the planes in order; docs/rl.md describes them.

>>> from dorf.games.coop import CoopGame
>>> enc = Encoder("coop", Window(2), CoopGame().tileset)
>>> enc.shape
(178, 5, 5)
>>> enc.names[:4], enc.names[-2:]
(['window', 'tile', 'frontier', 'edge:0:F'], ['unseen:P', 'unseen:X'])
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from operator import attrgetter, itemgetter
from typing import Any

import numpy as np
import numpy.typing as npt

from dorf.games.coop import PlayerView
from dorf.games.duel import DuelView
from dorf.games.headtohead import DRAFT, LAYING, HeadToHeadView
from dorf.games.modes import MODES as GAMES
from dorf.games.seat import Revealed
from dorf.games.state import GameView
from dorf.rl.window import Window
from dorf.rules.area import FIGURES_PER_TILE, PlacedTile, PlayArea
from dorf.rules.hexgrid import CELL_DELTAS, ORIGIN, Hex, cell_of, hex_of
from dorf.rules.tasks import COMPLETED, CONNECTION, DOUBLE, OPEN, Task, TaskSpec
from dorf.rules.terrain import AREA_INDEX, LETTERS, TASK_LETTER
from dorf.rules.tiles import Tile, TileSet, rotate

Planes = npt.NDArray[np.float32]
Index = npt.NDArray[np.intp]

MODES = tuple(GAMES)
#: Task types, in plane order.
TASK_TYPES: tuple[str, ...] = (*TASK_LETTER, CONNECTION, DOUBLE)
#: Letters whose group sizes are shown: territories, rivers, tracks, multicoloured flag edges.
GROUP_LETTERS = "FGVRTX"
#: Flag letters: forest, grain, village, multicoloured.
FLAG_LETTERS = "FGVX"
TERRITORIES = "FGV"
#: Sizes, task values and open-edge counts are divided by this.
SCALE = 10.0
_LETTER = {letter: i for i, letter in enumerate(LETTERS)}
#: The planes of an area that each new tile marks: its tile, the frontier, and the first of its
#: edge, open-edge and flag planes.
_MARK_PLANES = ("tile", "frontier", f"edge:0:{LETTERS[0]}", "open:0", f"flag:{FLAG_LETTERS[0]}")


def _area_names(prefix: str, n: int) -> list[tuple[str, float]]:
    """The planes of one play area, with their upper bounds for a set of ``n`` tiles."""
    big = max(1.0, math.ceil(n / SCALE))
    edges = max(1.0, math.ceil(6 * n / SCALE))
    out = [(f"{prefix}tile", 1.0), (f"{prefix}frontier", 1.0)]
    out += [(f"{prefix}edge:{d}:{letter}", 1.0) for d in range(6) for letter in LETTERS]
    out += [(f"{prefix}open:{d}", 1.0) for d in range(6)]
    out += [(f"{prefix}task:{t}", 1.0) for t in TASK_TYPES]
    out += [(f"{prefix}task:size", big), (f"{prefix}task:completed", 1.0), (f"{prefix}task:failed", 1.0)]
    out += [(f"{prefix}flag:{letter}", 1.0) for letter in FLAG_LETTERS]
    out += [(f"{prefix}group:{letter}", big) for letter in GROUP_LETTERS]
    out += [(f"{prefix}group-open:{letter}", edges) for letter in GROUP_LETTERS]
    return out


def _tile_names(prefix: str) -> list[tuple[str, float]]:
    out = [(f"{prefix}edge:{i}:{letter}", 1.0) for i in range(6) for letter in LETTERS]
    out += [(f"{prefix}task:{t}", 1.0) for t in TASK_TYPES]
    out += [(f"{prefix}value", 1.0)]
    out += [(f"{prefix}double:{letter}", 1.0) for letter in TERRITORIES]
    out += [(f"{prefix}flag:{letter}", 1.0) for letter in FLAG_LETTERS]
    out += [(f"{prefix}present", 1.0)]
    return out


def _unseen_names(prefix: str) -> list[tuple[str, float]]:
    return [(f"{prefix}unseen:{letter}", 1.0) for letter in LETTERS]


def _table_names() -> list[tuple[str, float]]:
    """The tile to place and what is left of one table's stacks and marker piles."""
    return [
        *_tile_names("next:"),
        ("left:landscapes", 1.0),
        ("left:tasks", 1.0),
        ("turn", 1.0),
        *[(f"markers:{t}", 1.0) for t in TASK_TYPES],
        *_unseen_names(""),
    ]


def _both_areas(n: int) -> list[tuple[str, float]]:
    return [("window", 1.0), *_area_names("own:", n), *_area_names("opp:", n)]


def _coop_layout(n: int) -> list[tuple[str, float]]:
    """The cooperative game: the one area, the table's stacks and marker piles."""
    return [("window", 1.0), *_area_names("", n), *_table_names()]


def _duel_layout(n: int) -> list[tuple[str, float]]:
    """The Duel: both areas, the table's sequence and marker piles, whether the other is to place."""
    return [*_both_areas(n), *_table_names(), ("opp:to-move", 1.0)]


def _head_to_head_layout(n: int) -> list[tuple[str, float]]:
    """Head to Head: both areas, the phase, each player's stacks and unseen tiles, the draft's ids."""
    return [
        *_both_areas(n),
        *_tile_names("next:"),
        ("phase:draft", 1.0),
        ("phase:laying", 1.0),
        ("left:landscapes", 1.0),
        ("left:tasks", 1.0),
        ("opp:left:landscapes", 1.0),
        ("opp:left:tasks", 1.0),
        *_unseen_names(""),
        *_unseen_names("opp:"),
        ("opp:to-move", 1.0),
        ("ids:pool", 1.0),
        ("ids:own", 1.0),
        ("ids:opp", 1.0),
    ]


#: Per game, its planes (name and upper bound) for a set of ``n`` tiles: the observation planes
#: differ per game, as their views do.
LAYOUTS: dict[str, Callable[[int], list[tuple[str, float]]]] = {
    "coop": _coop_layout,
    "duel": _duel_layout,
    "head-to-head": _head_to_head_layout,
}


def _layout(mode: str, n: int) -> list[tuple[str, float]]:
    layout = LAYOUTS.get(mode)
    if layout is None:
        raise ValueError(f"unknown mode {mode!r}: expected one of {', '.join(MODES)}")
    return layout(n)


class Encoder:
    """Turns a seat's view into planes.  ``mode`` is ``coop``, ``duel`` or ``head-to-head``.

    An observation is written in a few large pieces: the window plane, each play area's block
    of planes (kept per area and brought up to date, see :meth:`_area`), then the planes that
    are constant over the grid (the tile to place, counts, unseen tiles) in one write from a
    list of values, and last Head to Head's id planes.  Each call returns a new array.
    """

    def __init__(self, mode: str, window: Window, tileset: TileSet) -> None:
        layout = _layout(mode, len(tileset.tiles))
        self.mode = mode
        #: This mode's own encoding, chosen once.
        self._encode = _ENCODINGS[mode]
        self.window = window
        self.tileset = tileset
        self.names: list[str] = [name for name, _ in layout]
        self.offset: dict[str, int] = {name: i for i, name in enumerate(self.names)}
        side = window.side
        self.shape: tuple[int, int, int] = (len(layout), side, side)
        self.high: Planes = np.broadcast_to(
            np.array([h for _, h in layout], dtype=np.float32)[:, None, None], self.shape
        ).copy()
        self._n = float(len(tileset.tiles))
        #: The marks of the areas seen lately, the latest first: shared by the area prefixes,
        #: whose blocks are laid out alike (a seat's own area is the other seat's opponent's).
        self._kept: list[_Marks] = []
        #: How many planes one area has (they follow each other, from its ``tile`` plane).
        self._area_planes = len(_area_names("", len(tileset.tiles)))
        #: The planes from here on hold one value each over the whole grid (all but the id planes).
        self._constant = 1 + self._area_planes * sum(f"{p}tile" in self.offset for p in _PREFIXES)
        #: Per constant plane, its place in the list of constant values (:meth:`_constants`).
        self._slot = {name: i - self._constant for i, name in enumerate(self.names) if i >= self._constant}
        #: Per tile of the set (by identity): the letters it shows, one count per letter packed
        #: into ``_bits`` bits each (a sum of them counts each letter over many tiles at once).
        self._bits = len(tileset.tiles).bit_length()
        self._letters_of = {
            id(tile): sum(1 << (self._bits * k) for k, letter in enumerate(LETTERS) if letter in tile.face)
            for tile in tileset.tiles
        }
        #: Per area prefix, within the area's block: each task type's plane, the completed,
        #: failed and size planes.
        self._task_planes = {
            prefix: (
                {
                    kind: self.offset[f"{prefix}task:{kind}"] - self.offset[f"{prefix}tile"]
                    for kind in TASK_TYPES
                },
                self.offset[f"{prefix}task:completed"] - self.offset[f"{prefix}tile"],
                self.offset[f"{prefix}task:failed"] - self.offset[f"{prefix}tile"],
                self.offset[f"{prefix}task:size"] - self.offset[f"{prefix}tile"],
            )
            for prefix in _PREFIXES
            if f"{prefix}tile" in self.offset
        }
        #: Per window index, its place in a flattened plane.
        self._spot: list[int] = (window.rows * side + window.cols).tolist()
        self._groups = {prefix: self._group_places(prefix) for prefix in self._task_planes}
        #: Per area prefix, where its planes begin, and within its block the tile, frontier,
        #: first edge, first open-edge and first flag planes.
        self._bases = {
            prefix: (
                self.offset[f"{prefix}tile"],
                *(self.offset[f"{prefix}{name}"] - self.offset[f"{prefix}tile"] for name in _MARK_PLANES),
            )
            for prefix in self._task_planes
        }
        if "ids:pool" in self.offset and side * side < len(tileset.tiles):
            raise ValueError(
                f"a window of radius {window.radius} is too small for the {len(tileset.tiles)} tile ids "
                "of the draft planes: use radius 4 or more"
            )

    # --- the three modes ---------------------------------------------------------------

    def encode(self, view: GameView, out: Planes | None = None) -> Planes:
        """The planes of a view of this encoder's mode (:meth:`coop`, :meth:`duel` or
        :meth:`head_to_head`, chosen by the mode), in a new array or written over every plane of
        ``out`` (of :attr:`shape`)."""
        if view.mode != self.mode:
            raise TypeError(f"a {type(view).__name__} is not a view of mode {self.mode}")
        return self._encode(self, view, out)

    def coop(self, view: PlayerView, out: Planes | None = None) -> Planes:
        out = self._blank(out)
        self._area(out, "", view.area)
        self._constants(out, self.coop_table(view))
        return out

    @property
    def area_planes(self) -> int:
        """How many planes one play area has (its block begins at its ``tile`` plane)."""
        return self._area_planes

    @property
    def table_start(self) -> int:
        """The first of the planes that hold one value each over the whole grid; the cooperative
        game's planes from here on are :meth:`coop_table`'s values."""
        return self._constant

    def tile_table(self, revealed: Revealed) -> list[float]:
        """The constant planes' values (as :meth:`coop_table` lists them) of ``revealed`` to be
        placed (``next:present`` 1), every other value 0."""
        fill = self._fill()
        self._tile(fill, revealed, present=True)
        return fill

    def coop_table(self, view: PlayerView) -> list[float]:
        """The values of the cooperative game's constant planes (the revealed tile, counts,
        markers and unseen tiles), in plane order from :attr:`table_start`."""
        fill = self._fill()
        self._tile(fill, view.revealed, present=view.revealed is not None)
        self._counts(fill, view.landscapes_left, view.task_tiles_left, view.turn)
        self._markers(fill, {k: len(v) for k, v in view.markers_unseen.items()})
        self._unseen(fill, "unseen:", view.unseen)
        return fill

    def duel(self, view: DuelView, out: Planes | None = None) -> Planes:
        out = self._blank(out)
        p = view.player
        self._area(out, "own:", view.areas[p])
        self._area(out, "opp:", view.areas[1 - p])
        fill = self._fill()
        self._tile(fill, view.revealed, present=p in view.to_move)
        self._counts(fill, view.landscapes_left, view.task_tiles_left, view.turn)
        counts = {k: len(v) for k, v in view.markers_unseen.items()}
        counts[DOUBLE] = len(view.doubles_unseen)
        self._markers(fill, counts)
        self._unseen(fill, "unseen:", view.unseen)
        fill[self._slot["opp:to-move"]] = float((1 - p) in view.to_move)
        self._constants(out, fill)
        return out

    def head_to_head(self, view: HeadToHeadView, out: Planes | None = None) -> Planes:
        out = self._blank(out)
        p, o = view.player, 1 - view.player
        slot = self._slot
        self._area(out, "own:", view.areas[p])
        self._area(out, "opp:", view.areas[o])
        fill = self._fill()
        self._tile(fill, view.revealed[p], present=p in view.to_move and view.phase == LAYING)
        fill[slot["phase:draft"]] = float(view.phase == DRAFT)
        fill[slot["phase:laying"]] = float(view.phase == LAYING)
        n = self._n
        (tasks, landscapes), (opp_tasks, opp_landscapes) = view.stacks_left[p], view.stacks_left[o]
        fill[slot["left:tasks"]] = tasks / n
        fill[slot["left:landscapes"]] = landscapes / n
        fill[slot["opp:left:tasks"]] = opp_tasks / n
        fill[slot["opp:left:landscapes"]] = opp_landscapes / n
        self._unseen(fill, "unseen:", view.unseen[p])
        self._unseen(fill, "opp:unseen:", view.unseen[o])
        fill[slot["opp:to-move"]] = float(o in view.to_move)
        self._constants(out, fill)  # the id planes among them are 0 so far
        at = self.offset
        side = self.window.side
        for name, ids in (("ids:pool", view.pool), ("ids:own", view.owned[p]), ("ids:opp", view.owned[o])):
            flat = out[at[name]].reshape(side * side)
            flat[list(ids)] = 1.0
        return out

    # --- pieces --------------------------------------------------------------------------

    def _blank(self, out: Planes | None = None) -> Planes:
        """A new array (or ``out``) with the window plane; the rest is written by the areas and
        :meth:`_constants`."""
        if out is None:
            out = np.empty(self.shape, dtype=np.float32)
        elif out.shape != self.shape or out.dtype != np.float32:
            raise ValueError(
                f"out must be a float32 array of shape {self.shape}, not {out.dtype} {out.shape}"
            )
        out[0] = self.window.inside
        return out

    def _fill(self) -> _Fill:
        """The values of the constant planes, all 0 to begin with."""
        return [0.0] * len(self._slot)

    def _constants(self, out: Planes, fill: _Fill) -> None:
        """Write every constant plane at once, each over the whole grid."""
        out[self._constant :] = np.array(fill, dtype=np.float32)[:, None, None]

    def _area(self, out: Planes, prefix: str, area: PlayArea) -> None:
        """Spatial planes of one play area (cells outside the window are left out).

        They are kept per area in a block of planes (:class:`_Marks`).  Most marks change only
        where a tile is placed: its tile, edge and flag marks, its open edges and those of its
        neighbours, the frontier around it; each new tile updates them.  The group figures of
        every tile are rewritten from one :meth:`PlayArea.tile_figures` call in one write (a
        tile keeps the places it shows them at), and the tasks still open are looked at again.
        The block is then copied into ``out``.
        """
        marks = self._marks_of(prefix, area)
        if marks.figured != marks.count:  # else no tile since: the same figures and tasks
            self._figures(prefix, area, marks)
        first = self._bases[prefix][0]
        out[first : first + self._area_planes] = marks.block

    def area_marks(self, block: Planes, prefix: str = "") -> _Marks:
        """New marks of an empty area kept in ``block`` (planes ``prefix``'s block, all 0: a view
        into a larger array may be given), for :meth:`update_area`: the batched environments
        (:mod:`dorf.rl.vector`) keep each game's area planes in their own output array."""
        marks = _Marks(self._area_planes, self.window, block)
        frontier = self._bases[prefix][2] * self.window.side**2
        if ORIGIN in self.window:  # an empty area's frontier is [0, 0]
            marks.flat[frontier + self._spot[self.window.index[ORIGIN]]] = 1.0
        return marks

    def update_area(self, marks: _Marks, area: PlayArea, prefix: str = "") -> None:
        """Bring ``marks`` (from :meth:`area_marks`) up to date with ``area``, which only ever
        grew since they were last brought up to date (no tile taken back)."""
        self._advance(prefix, area, marks)
        self._figures(prefix, area, marks)

    def _figures(self, prefix: str, area: PlayArea, marks: _Marks) -> None:
        """The group figures and tasks of the marks, written again (see :meth:`_area`)."""
        raw = area.tile_figures()
        sources, targets = marks.sources, marks.targets
        if marks.fresh:  # new tiles inside the window: the places of their group figures
            groups = self._groups[prefix]
            n = marks.size
            for number, spot in marks.fresh:
                base = number * FIGURES_PER_TILE
                for column, size_at, open_at in groups:
                    if raw[base + column] >= 0:
                        sources[n] = base + column
                        targets[n] = size_at + spot
                        sources[n + 1] = base + column + 1
                        targets[n + 1] = open_at + spot
                        n += 2
            marks.size = n
            marks.fresh.clear()
        if marks.size:
            figures = np.frombuffer(raw, dtype=np.int32)
            marks.flat[targets[: marks.size]] = figures[sources[: marks.size]] / SCALE
        self._tasks(prefix, area, marks)
        marks.figured = marks.count

    def _group_places(self, prefix: str) -> list[tuple[int, int, int]]:
        """Per group letter: its size column in :meth:`PlayArea.tile_figures` (open edges next),
        and where its size and open-edge planes begin in the area's flattened block."""
        at, first, cells = self.offset, self.offset[f"{prefix}tile"], self.window.side**2
        return [
            (
                column,
                (at[f"{prefix}group:{letter}"] - first) * cells,
                (at[f"{prefix}group-open:{letter}"] - first) * cells,
            )
            for letter, column in zip(GROUP_LETTERS, _GROUP_COLUMNS, strict=True)
        ]

    def _tasks(self, prefix: str, area: PlayArea, marks: _Marks) -> None:
        """Task marks: type and value where a task is placed, then completed, failed, or while
        open how far it has come (written again each time)."""
        type_plane, completed, failed, size_plane = self._task_planes[prefix]
        cells = self.window.side**2
        flat = marks.flat
        tasks = area.tasks
        if len(tasks) > marks.tasks:
            index, spot = self.window.index, self._spot
            for number, task in enumerate(tasks[marks.tasks :], marks.tasks):
                i = index.get(task.cell)
                if i is not None:
                    flat[type_plane[task.spec.type] * cells + spot[i]] = task.spec.value / SCALE
                    marks.open.append((number, spot[i]))
            marks.tasks = len(tasks)
            marks.task_keys.extend(map(_task_key, tasks[len(marks.task_keys) :]))
        still: list[tuple[int, int]] = []
        for number, at in marks.open:
            task = tasks[number]
            if task.status is OPEN:
                spec = task.spec
                flat[size_plane * cells + at] = _task_size(
                    area, task.cell, spec.type, spec.letters, spec.value
                )
                still.append((number, at))
            else:
                flat[size_plane * cells + at] = 0.0
                flat[(completed if task.status is COMPLETED else failed) * cells + at] = 1.0
        marks.open = still

    def _marks_of(self, prefix: str, area: PlayArea) -> _Marks:
        """The marks of ``area``, brought up to date with its tiles (for planes ``prefix``: the
        block is the same whichever prefix, so one seat's own area and the other's opponent's
        share their marks).

        Views hand out copies of the areas, a new one each time: the marks kept are those of
        the areas seen lately whose first tiles are this area's first tiles (compared by what
        they are, not by identity): the latest used if they fit, else those with the most."""
        kept = self._kept
        marks = kept[0] if kept and kept[0].fits(area) else None  # most often: the latest
        if marks is None:
            for candidate in kept[1:]:
                if (marks is None or candidate.count > marks.count) and candidate.fits(area):
                    marks = candidate
        if marks is None:
            del kept[_CACHED_AREAS - 1 :]
            marks = _Marks(self._area_planes, self.window)
            # An empty area's frontier is [0, 0].
            if not area.placed and ORIGIN in self.window:
                frontier = self._bases[prefix][2] * self.window.side**2
                marks.flat[frontier + self._spot[self.window.index[ORIGIN]]] = 1.0
            kept.insert(0, marks)
        else:
            if marks is not kept[0]:
                kept.remove(marks)
                kept.insert(0, marks)
            if marks.anchor >= 0:  # this area's own object there, for the identity check next time
                marks.anchor_tile = area.placed[marks.anchor]
        self._advance(prefix, area, marks)
        return marks

    def _advance(self, prefix: str, area: PlayArea, marks: _Marks) -> None:
        """The marks of the tiles placed since ``marks`` were made (see :meth:`_area`)."""
        _, tile_plane, frontier, edge0, open0, flag0 = self._bases[prefix]
        cells = self.window.side**2
        tile_plane *= cells
        frontier *= cells
        spot = self._spot
        placed = area.placed
        if len(placed) > marks.count:
            flat = marks.flat
            index = self.window.index
            stride = len(LETTERS)
            for number, tile in enumerate(placed[marks.count :], marks.count):
                cell = cell_of(*tile.at)
                # Marks read with the area as it is now: the same whatever the number of new tiles.
                around = area.surroundings(cell)
                for d, delta in enumerate(CELL_DELTAS):
                    j = index.get(cell + delta)
                    if j is None:
                        continue
                    if around[d] == ".":
                        flat[frontier + spot[j]] = 1.0
                    else:  # the neighbour's edge facing this tile is no longer open
                        flat[(open0 + (d + 3) % 6) * cells + spot[j]] = 0.0
                i = index.get(cell)
                if i is None:
                    continue
                here = spot[i]
                flat[frontier + here] = 0.0
                flat[tile_plane + here] = 1.0
                for d, letter in enumerate(rotate(tile.face, tile.rot)):
                    flat[(edge0 + stride * d + _LETTER[letter]) * cells + here] = 1.0
                    if around[d] == ".":
                        flat[(open0 + d) * cells + here] = 1.0
                if tile.flag is not None:
                    flat[(flag0 + FLAG_LETTERS.index(tile.flag)) * cells + here] = 1.0
                marks.fresh.append((number, here))
            for number in range(len(placed) - 1, marks.count - 1, -1):
                if placed[number].task is None:
                    marks.anchor, marks.anchor_tile = number, placed[number]
                    break
            marks.count = len(placed)
            marks.heads.extend(map(_head, placed[len(marks.heads) :]))

    def _tile(self, fill: _Fill, revealed: Revealed | None, present: bool) -> None:
        """Constant planes: the revealed tile as printed (rotation 0), its task and flag."""
        if revealed is None:
            return
        slot = self._slot
        edge0 = slot["next:edge:0:F"]
        for i, letter in enumerate(revealed.tile.face):
            fill[edge0 + len(LETTERS) * i + _LETTER[letter]] = 1.0
        task = revealed.task
        if task is not None:
            fill[slot[f"next:task:{task.type}"]] = 1.0
            fill[slot["next:value"]] = task.value / SCALE
            for name in task.types:
                fill[slot[f"next:double:{TASK_LETTER[name]}"]] = 1.0
        if revealed.tile.flag is not None:
            fill[slot[f"next:flag:{revealed.tile.flag}"]] = 1.0
        fill[slot["next:present"]] = float(present)

    def _counts(self, fill: _Fill, landscapes: int, tasks: int, turn: int) -> None:
        slot, n = self._slot, self._n
        fill[slot["left:landscapes"]] = landscapes / n
        fill[slot["left:tasks"]] = tasks / n
        fill[slot["turn"]] = min(turn, n) / n

    def _markers(self, fill: _Fill, counts: dict[str, int]) -> None:
        for kind, count in counts.items():
            fill[self._slot[f"markers:{kind}"]] = count / self._n

    def _unseen(self, fill: _Fill, prefix: str, tiles: Sequence[Tile]) -> None:
        """Per letter, the share of the set's tiles among ``tiles`` that show it."""
        try:
            packed = sum(map(self._letters_of.__getitem__, map(id, tiles)))
        except KeyError:  # not this tile set's own tiles: count them one by one
            counts = [sum(letter in tile.face for tile in tiles) for letter in LETTERS]
        else:
            bits = self._bits
            full = (1 << bits) - 1
            counts = [(packed >> (bits * k)) & full for k in range(len(LETTERS))]
        first = self._slot[f"{prefix}{LETTERS[0]}"]  # one plane a letter, in order
        n = self._n
        fill[first : first + len(LETTERS)] = [count / n for count in counts]


#: Per game, how the encoder turns its view into planes.
_ENCODINGS: dict[str, Callable[[Encoder, Any, Planes | None], Planes]] = {
    "coop": Encoder.coop,
    "duel": Encoder.duel,
    "head-to-head": Encoder.head_to_head,
}
#: The values of the constant planes, in order (written at once by :meth:`Encoder._constants`).
_Fill = list[float]
#: The area prefixes, in plane order: the cooperative area, or own then the opponent's.
_PREFIXES = ("", "own:", "opp:")
#: The columns of :meth:`PlayArea.tile_figures` holding each group letter's size (open edges next).
_GROUP_COLUMNS = tuple(1 + 2 * AREA_INDEX[letter] for letter in GROUP_LETTERS)
#: Areas whose marks an encoder keeps (the areas of a few games' seats).
_CACHED_AREAS = 6


class _Marks:
    """An area's block of planes as of its first ``count`` tiles (``heads``: what each is;
    ``anchor``: the number and the object of the last of them without a task, or -1), with
    the places of its tiles' group figures (``sources`` in :meth:`PlayArea.tile_figures`,
    ``targets`` in the flattened block, ``size`` of them in use), the tiles inside the window
    whose places are still to find (``fresh``: number in the order placed, place in a plane),
    how many of the area's tasks are marked (``task_keys``: what each is) and those inside the
    window still open (number in the order placed, place in a plane)."""

    def __init__(self, planes: int, window: Window, block: Planes | None = None) -> None:
        self.count = 0
        self.heads: list[tuple[str, Hex, int, str | None]] = []
        self.anchor = -1
        self.anchor_tile: PlacedTile | None = None
        self.block: Planes = (
            np.zeros((planes, window.side, window.side), dtype=np.float32) if block is None else block
        )
        self.flat: Planes = self.block.reshape(-1)
        capacity = 2 * len(GROUP_LETTERS) * window.size  # each tile inside, each letter
        self.sources: Index = np.empty(capacity, dtype=np.intp)
        self.targets: Index = np.empty(capacity, dtype=np.intp)
        self.size = 0
        self.fresh: list[tuple[int, int]] = []
        self.tasks = 0
        self.task_keys: list[tuple[int, TaskSpec]] = []
        self.open: list[tuple[int, int]] = []
        #: The count of tiles the group figures and tasks were last written for (-1: never).
        self.figured = -1

    def fits(self, area: PlayArea) -> bool:
        """Whether these are marks of ``area``'s first tiles: the same tiles, in the same places
        and order, with the same tasks (whichever area, or copy of one, they were made from).

        A placed tile without a task is an immutable object that an area and its copies share
        while it stays where it is: found at the same number in ``area``, the anchor vouches
        for every tile up to it, and only the task tiles after it are compared."""
        placed = area.placed
        count = self.count
        if len(placed) < count:
            return False
        if count == 0:
            return True
        anchor = self.anchor
        if anchor >= 0 and placed[anchor] is self.anchor_tile:
            if anchor == count - 1:
                return True
            start = anchor + 1
        else:
            start = 0
        heads = self.heads
        if _head(placed[count - 1]) != heads[-1]:
            return False
        if list(map(_head, placed[start:count])) != heads[start:]:
            return False
        later = self.tasks if start == 0 else count - start  # the tiles after the anchor carry tasks
        first = self.tasks - later
        return list(map(_task_key, area.tasks[first : self.tasks])) == self.task_keys[first:]


#: What a placed tile is, whatever area (or copy) holds it: face, place, rotation, flag.
_head: Callable[[PlacedTile], tuple[str, Hex, int, str | None]] = itemgetter(0, 1, 2, 3)
#: What a task is: its cell and its spec.
_task_key: Callable[[Task], tuple[int, TaskSpec]] = attrgetter("cell", "spec")


def _task_size(area: PlayArea, cell: int, kind: str, letters: str, value: int) -> float:
    """How far an open task has come, divided by 10: its group's size, the tiles around a
    connection task, or for a double task the larger of its two territories not above the value."""
    if kind == CONNECTION:
        return area.neighbours(hex_of(cell)) / SCALE
    sizes = [area.figures(cell, letter)[0] for letter in letters]
    below = [s for s in sizes if s <= value]
    return (max(below) if below else max(sizes)) / SCALE
