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
from collections.abc import Sequence

import numpy as np
import numpy.typing as npt

from dorf.games.coop import PlayerView
from dorf.games.duel import DuelView
from dorf.games.headtohead import DRAFT, LAYING, HeadToHeadView
from dorf.games.seat import Revealed
from dorf.rl.window import Window
from dorf.rules.area import FIGURES_PER_TILE, PlacedTile, PlayArea
from dorf.rules.hexgrid import CELL_DELTAS, ORIGIN, cell_of, hex_of
from dorf.rules.tasks import COMPLETED, CONNECTION, DOUBLE, FAILED, OPEN
from dorf.rules.terrain import AREA_INDEX, LETTERS, TASK_LETTER
from dorf.rules.tiles import Tile, TileSet, rotate

Planes = npt.NDArray[np.float32]
Index = npt.NDArray[np.intp]

MODES = ("coop", "duel", "head-to-head")
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
_DIRECTIONS = np.arange(6)


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


def _layout(mode: str, n: int) -> list[tuple[str, float]]:
    unseen = [(f"unseen:{letter}", 1.0) for letter in LETTERS]
    if mode == "coop":
        return [
            ("window", 1.0),
            *_area_names("", n),
            *_tile_names("next:"),
            ("left:landscapes", 1.0),
            ("left:tasks", 1.0),
            ("turn", 1.0),
            *[(f"markers:{t}", 1.0) for t in TASK_TYPES],
            *unseen,
        ]
    if mode == "duel":
        return [
            ("window", 1.0),
            *_area_names("own:", n),
            *_area_names("opp:", n),
            *_tile_names("next:"),
            ("left:landscapes", 1.0),
            ("left:tasks", 1.0),
            ("turn", 1.0),
            *[(f"markers:{t}", 1.0) for t in TASK_TYPES],
            *unseen,
            ("opp:to-move", 1.0),
        ]
    if mode == "head-to-head":
        return [
            ("window", 1.0),
            *_area_names("own:", n),
            *_area_names("opp:", n),
            *_tile_names("next:"),
            ("phase:draft", 1.0),
            ("phase:laying", 1.0),
            ("left:landscapes", 1.0),
            ("left:tasks", 1.0),
            ("opp:left:landscapes", 1.0),
            ("opp:left:tasks", 1.0),
            *unseen,
            *[(f"opp:unseen:{letter}", 1.0) for letter in LETTERS],
            ("opp:to-move", 1.0),
            ("ids:pool", 1.0),
            ("ids:own", 1.0),
            ("ids:opp", 1.0),
        ]
    raise ValueError(f"unknown mode {mode!r}: expected one of {', '.join(MODES)}")


class Encoder:
    """Turns a seat's view into planes.  ``mode`` is ``coop``, ``duel`` or ``head-to-head``."""

    def __init__(self, mode: str, window: Window, tileset: TileSet) -> None:
        layout = _layout(mode, len(tileset.tiles))
        self.mode = mode
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
        self._cache: dict[tuple[str, int], _Marks] = {}
        #: Per tile of the set (by identity), its row of ``_letter_rows``: 1 for each letter it shows.
        self._row_of = {id(tile): i for i, tile in enumerate(tileset.tiles)}
        self._letter_rows = np.array(
            [[int(letter in tile.face) for letter in LETTERS] for tile in tileset.tiles], dtype=np.int64
        ).reshape(-1, len(LETTERS))
        #: Per area prefix: each task type's plane, the completed, failed and size planes.
        self._task_planes = {
            prefix: (
                {kind: self.offset[f"{prefix}task:{kind}"] for kind in TASK_TYPES},
                self.offset[f"{prefix}task:completed"],
                self.offset[f"{prefix}task:failed"],
                self.offset[f"{prefix}task:size"],
            )
            for prefix in ("", "own:", "opp:")
            if f"{prefix}tile" in self.offset
        }
        #: How many planes one area has (they follow each other, from its ``tile`` plane).
        self._area_planes = len(_area_names("", len(tileset.tiles)))
        if mode == "head-to-head" and side * side < len(tileset.tiles):
            raise ValueError(
                f"a window of radius {window.radius} is too small for the {len(tileset.tiles)} tile ids "
                "of the draft planes: use radius 4 or more"
            )

    # --- the three modes ---------------------------------------------------------------

    def encode(self, view: PlayerView | DuelView | HeadToHeadView) -> Planes:
        """The planes of a view of this encoder's mode."""
        if isinstance(view, PlayerView) and self.mode == "coop":
            return self.coop(view)
        if isinstance(view, DuelView) and self.mode == "duel":
            return self.duel(view)
        if isinstance(view, HeadToHeadView) and self.mode == "head-to-head":
            return self.head_to_head(view)
        raise TypeError(f"a {type(view).__name__} is not a view of mode {self.mode}")

    def coop(self, view: PlayerView) -> Planes:
        out = self._blank()
        self._area(out, "", view.area)
        fill: _Fill = {}
        self._tile(fill, view.revealed, present=view.revealed is not None)
        self._counts(fill, view.landscapes_left, view.task_tiles_left, view.turn)
        self._markers(fill, {k: len(v) for k, v in view.markers_unseen.items()})
        _put(out, fill)
        self._unseen(out, "unseen:", view.unseen)
        return out

    def duel(self, view: DuelView) -> Planes:
        out = self._blank()
        p = view.player
        self._area(out, "own:", view.areas[p])
        self._area(out, "opp:", view.areas[1 - p])
        fill: _Fill = {}
        self._tile(fill, view.revealed, present=p in view.to_move)
        self._counts(fill, view.landscapes_left, view.task_tiles_left, view.turn)
        counts = {k: len(v) for k, v in view.markers_unseen.items()}
        counts[DOUBLE] = len(view.doubles_unseen)
        self._markers(fill, counts)
        _put(out, fill)
        self._unseen(out, "unseen:", view.unseen)
        out[self.offset["opp:to-move"]] = float((1 - p) in view.to_move)
        return out

    def head_to_head(self, view: HeadToHeadView) -> Planes:
        out = self._blank()
        p, o = view.player, 1 - view.player
        at = self.offset
        self._area(out, "own:", view.areas[p])
        self._area(out, "opp:", view.areas[o])
        fill: _Fill = {}
        self._tile(fill, view.revealed[p], present=p in view.to_move and view.phase == LAYING)
        _put(out, fill)
        out[at["phase:draft"]] = float(view.phase == DRAFT)
        out[at["phase:laying"]] = float(view.phase == LAYING)
        n = self._n
        (tasks, landscapes), (opp_tasks, opp_landscapes) = view.stacks_left[p], view.stacks_left[o]
        out[at["left:tasks"]] = tasks / n
        out[at["left:landscapes"]] = landscapes / n
        out[at["opp:left:tasks"]] = opp_tasks / n
        out[at["opp:left:landscapes"]] = opp_landscapes / n
        self._unseen(out, "unseen:", view.unseen[p])
        self._unseen(out, "opp:unseen:", view.unseen[o])
        out[at["opp:to-move"]] = float(o in view.to_move)
        side = self.window.side
        for name, ids in (("ids:pool", view.pool), ("ids:own", view.owned[p]), ("ids:opp", view.owned[o])):
            flat = out[at[name]].reshape(side * side)
            flat[list(ids)] = 1.0
        return out

    # --- pieces --------------------------------------------------------------------------

    def _blank(self) -> Planes:
        out = np.zeros(self.shape, dtype=np.float32)
        out[self.offset["window"]] = self.window.inside
        return out

    def _area(self, out: Planes, prefix: str, area: PlayArea) -> None:
        """Spatial planes of one play area (cells outside the window are left out).

        Most marks change only where a tile is placed: its tile, edge and flag marks, its open
        edges and those of its neighbours, the frontier around it.  They are kept per area in a
        block of planes (:class:`_Marks`) that each new tile updates; a call copies the block and
        adds the group figures (one :meth:`PlayArea.tile_figures` call) and the tasks.
        """
        w = self.window
        rows, cols = w.rows, w.cols
        at = self.offset
        marks = self._marks_of(prefix, area)
        first = at[f"{prefix}tile"]
        out[first : first + len(marks.block)] = marks.block
        tiles, where = marks.arrays()
        if tiles.size:
            figures = np.frombuffer(area.tile_figures(), dtype=np.int32).reshape(-1, FIGURES_PER_TILE)
            inside = figures[tiles]
            # Group sizes and open edges, for the group letters a tile shows.
            sizes = inside[:, _GROUP_COLUMNS]
            shown, g = np.nonzero(sizes >= 0)
            r, c = rows[where[shown]], cols[where[shown]]
            out[at[f"{prefix}group:{GROUP_LETTERS[0]}"] + g, r, c] = sizes[shown, g] / SCALE
            out[at[f"{prefix}group-open:{GROUP_LETTERS[0]}"] + g, r, c] = (
                inside[:, _GROUP_COLUMNS + 1][shown, g] / SCALE
            )
        index = w.index
        type_plane, completed, failed, size_plane = self._task_planes[prefix]
        # (plane, window index, value) triples of the tasks, written at once
        planes: list[int] = []
        cells: list[int] = []
        values: list[float] = []
        for task in area.tasks:
            i = index.get(task.cell)
            if i is None:
                continue
            spec = task.spec
            planes.append(type_plane[spec.type])
            values.append(spec.value / SCALE)
            if task.status is COMPLETED:
                planes.append(completed)
                values.append(1.0)
            elif task.status is FAILED:
                planes.append(failed)
                values.append(1.0)
            else:
                assert task.status is OPEN
                planes.append(size_plane)
                values.append(_task_size(area, task.cell, spec.type, spec.letters, spec.value))
            cells += (i, i)
        if planes:
            where = np.array(cells, dtype=np.intp)
            out[np.array(planes, dtype=np.intp), rows[where], cols[where]] = values

    def _marks_of(self, prefix: str, area: PlayArea) -> _Marks:
        """The marks of ``area`` kept for planes ``prefix``, brought up to date with its tiles."""
        key = (prefix, id(area))
        marks = self._cache.get(key)
        at = self.offset
        first = at[f"{prefix}tile"]
        if marks is None or not marks.fits(area):
            if len(self._cache) >= _CACHED_AREAS:
                self._cache.clear()
            side = self.window.side
            marks = self._cache[key] = _Marks(area, self._area_planes, side)
            # An empty area's frontier is [0, 0].
            if not area.placed and ORIGIN in self.window:
                origin = self.window.index[ORIGIN]
                window = self.window
                marks.block[at[f"{prefix}frontier"] - first, window.rows[origin], window.cols[origin]] = 1.0
        placed = area.placed
        if len(placed) > marks.count:
            block = marks.block
            w = self.window
            index, rows, cols = w.index, w.rows, w.cols
            tile_plane = at[f"{prefix}tile"] - first
            frontier = at[f"{prefix}frontier"] - first
            edge0 = at[f"{prefix}edge:0:{LETTERS[0]}"] - first
            open0 = at[f"{prefix}open:0"] - first
            flag0 = at[f"{prefix}flag:{FLAG_LETTERS[0]}"] - first
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
                        block[frontier, rows[j], cols[j]] = 1.0
                    else:  # the neighbour's edge facing this tile is no longer open
                        block[open0 + (d + 3) % 6, rows[j], cols[j]] = 0.0
                i = index.get(cell)
                if i is None:
                    continue
                r, c = rows[i], cols[i]
                block[frontier, r, c] = 0.0
                block[tile_plane, r, c] = 1.0
                for d, letter in enumerate(rotate(tile.face, tile.rot)):
                    block[edge0 + stride * d + _LETTER[letter], r, c] = 1.0
                    if around[d] == ".":
                        block[open0 + d, r, c] = 1.0
                if tile.flag is not None:
                    block[flag0 + FLAG_LETTERS.index(tile.flag), r, c] = 1.0
                marks.tiles.append(number)
                marks.where.append(i)
            marks.count = len(placed)
            marks.last = placed[-1]
            marks.cached = None
        return marks

    def _tile(self, fill: _Fill, revealed: Revealed | None, present: bool) -> None:
        """Constant planes: the revealed tile as printed (rotation 0), its task and flag."""
        if revealed is None:
            return
        at = self.offset
        edge0 = at["next:edge:0:F"]
        for i, letter in enumerate(revealed.tile.face):
            fill[edge0 + len(LETTERS) * i + _LETTER[letter]] = 1.0
        task = revealed.task
        if task is not None:
            fill[at[f"next:task:{task.type}"]] = 1.0
            fill[at["next:value"]] = task.value / SCALE
            for name in task.types:
                fill[at[f"next:double:{TASK_LETTER[name]}"]] = 1.0
        if revealed.tile.flag is not None:
            fill[at[f"next:flag:{revealed.tile.flag}"]] = 1.0
        fill[at["next:present"]] = float(present)

    def _counts(self, fill: _Fill, landscapes: int, tasks: int, turn: int) -> None:
        at, n = self.offset, self._n
        fill[at["left:landscapes"]] = landscapes / n
        fill[at["left:tasks"]] = tasks / n
        fill[at["turn"]] = min(turn, n) / n

    def _markers(self, fill: _Fill, counts: dict[str, int]) -> None:
        for kind, count in counts.items():
            fill[self.offset[f"markers:{kind}"]] = count / self._n

    def _unseen(self, out: Planes, prefix: str, tiles: Sequence[Tile]) -> None:
        row_of = self._row_of
        rows = [row_of.get(id(tile), -1) for tile in tiles]
        if -1 in rows:  # not this tile set's own tiles: count them one by one
            counts = np.array([sum(letter in tile.face for tile in tiles) for letter in LETTERS])
        else:
            counts = self._letter_rows[rows].sum(axis=0)
        first = self.offset[f"{prefix}{LETTERS[0]}"]  # one plane a letter, in order
        out[first : first + len(LETTERS)] = (counts / self._n)[:, None, None]


#: Constant planes to fill: plane -> value (written at once by :func:`_put`).
_Fill = dict[int, float]


def _put(out: Planes, fill: _Fill) -> None:
    for plane, value in fill.items():
        out[plane] = value


#: The columns of :meth:`PlayArea.tile_figures` holding each group letter's size (open edges next).
_GROUP_COLUMNS = np.array([1 + 2 * AREA_INDEX[letter] for letter in GROUP_LETTERS], dtype=np.intp)
#: Areas whose fixed marks an encoder keeps (two a view; a few views' worth).
_CACHED_AREAS = 8


class _Marks:
    """What an area's first ``count`` tiles mark: a block of its planes (tile, frontier, edges,
    open edges, flags; the task and group planes stay 0 here), and the tiles inside the window
    (their number in the order placed, their window index)."""

    def __init__(self, area: PlayArea, planes: int, side: int) -> None:
        self.area = area
        self.count = 0
        self.last: PlacedTile | None = None
        self.block: Planes = np.zeros((planes, side, side), dtype=np.float32)
        self.tiles: list[int] = []
        self.where: list[int] = []
        self.cached: tuple[Index, Index] | None = None

    def fits(self, area: PlayArea) -> bool:
        """Whether these are still the marks of ``area``'s first tiles (none taken back since)."""
        placed = area.placed
        return (
            self.area is area
            and len(placed) >= self.count
            and (self.count == 0 or placed[self.count - 1] is self.last)
        )

    def arrays(self) -> tuple[Index, Index]:
        """tiles and where as numpy index arrays."""
        if self.cached is None:
            self.cached = (np.array(self.tiles, dtype=np.intp), np.array(self.where, dtype=np.intp))
        return self.cached


def _task_size(area: PlayArea, cell: int, kind: str, letters: str, value: int) -> float:
    """How far an open task has come, divided by 10: its group's size, the tiles around a
    connection task, or for a double task the larger of its two territories not above the value."""
    if kind == CONNECTION:
        return area.neighbours(hex_of(cell)) / SCALE
    sizes = [area.figures(cell, letter)[0] for letter in letters]
    below = [s for s in sizes if s <= value]
    return (max(below) if below else max(sizes)) / SCALE
