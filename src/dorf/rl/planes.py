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
from dorf.rules.area import PlayArea
from dorf.rules.hexgrid import CELL_DELTAS, cell_of, hex_of
from dorf.rules.tasks import COMPLETED, CONNECTION, DOUBLE, FAILED, OPEN
from dorf.rules.terrain import LETTERS, TASK_LETTER
from dorf.rules.tiles import Tile, TileSet, rotate

Planes = npt.NDArray[np.float32]

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
        self._tile(out, view.revealed, present=view.revealed is not None)
        self._counts(out, view.landscapes_left, view.task_tiles_left, view.turn)
        self._markers(out, {k: len(v) for k, v in view.markers_unseen.items()})
        self._unseen(out, "unseen:", view.unseen)
        return out

    def duel(self, view: DuelView) -> Planes:
        out = self._blank()
        p = view.player
        self._area(out, "own:", view.areas[p])
        self._area(out, "opp:", view.areas[1 - p])
        self._tile(out, view.revealed, present=p in view.to_move)
        self._counts(out, view.landscapes_left, view.task_tiles_left, view.turn)
        counts = {k: len(v) for k, v in view.markers_unseen.items()}
        counts[DOUBLE] = len(view.doubles_unseen)
        self._markers(out, counts)
        self._unseen(out, "unseen:", view.unseen)
        out[self.offset["opp:to-move"]] = float((1 - p) in view.to_move)
        return out

    def head_to_head(self, view: HeadToHeadView) -> Planes:
        out = self._blank()
        p, o = view.player, 1 - view.player
        at = self.offset
        self._area(out, "own:", view.areas[p])
        self._area(out, "opp:", view.areas[o])
        self._tile(out, view.revealed[p], present=p in view.to_move and view.phase == LAYING)
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
        """Spatial planes of one play area (cells outside the window are left out)."""
        w = self.window
        index, rows, cols = w.index, w.rows, w.cols
        at = self.offset
        tile_plane = at[f"{prefix}tile"]
        edge0 = at[f"{prefix}edge:0:{LETTERS[0]}"]
        open0 = at[f"{prefix}open:0"]
        flag0 = at[f"{prefix}flag:{FLAG_LETTERS[0]}"]
        group0 = at[f"{prefix}group:{GROUP_LETTERS[0]}"]
        gopen0 = at[f"{prefix}group-open:{GROUP_LETTERS[0]}"]
        stride = len(LETTERS)
        # (plane, window index, value) triples, written at once at the end
        planes: list[int] = []
        cells: list[int] = []
        values: list[float] = []
        put_plane, put_cell, put_value = planes.append, cells.append, values.append
        occupied = {cell_of(*t.at) for t in area.placed}
        for tile in area.placed:
            cell = cell_of(*tile.at)
            i = index.get(cell)
            if i is None:
                continue
            edges = rotate(tile.face, tile.rot)
            marks = [tile_plane]
            for d, letter in enumerate(edges):
                marks.append(edge0 + stride * d + _LETTER[letter])
                if cell + CELL_DELTAS[d] not in occupied:
                    marks.append(open0 + d)
            if tile.flag is not None:
                marks.append(flag0 + FLAG_LETTERS.index(tile.flag))
            for plane in marks:
                put_plane(plane)
                put_cell(i)
                put_value(1.0)
            for g, letter in enumerate(GROUP_LETTERS):
                if letter in edges:
                    size, open_edges = area.figures(cell, letter)
                    planes += (group0 + g, gopen0 + g)
                    cells += (i, i)
                    values += (size / SCALE, open_edges / SCALE)
        frontier = at[f"{prefix}frontier"]
        for h in area.frontier():
            i = index.get(cell_of(*h))
            if i is not None:
                put_plane(frontier)
                put_cell(i)
                put_value(1.0)
        size_plane = at[f"{prefix}task:size"]
        for task in area.tasks:
            i = index.get(task.cell)
            if i is None:
                continue
            put_plane(at[f"{prefix}task:{task.type}"])
            put_cell(i)
            put_value(task.value / SCALE)
            put_cell(i)
            if task.status is COMPLETED:
                put_plane(at[f"{prefix}task:completed"])
                put_value(1.0)
            elif task.status is FAILED:
                put_plane(at[f"{prefix}task:failed"])
                put_value(1.0)
            else:
                assert task.status is OPEN
                put_plane(size_plane)
                put_value(_task_size(area, task.cell, task.spec.type, task.spec.letters, task.value))
        if planes:
            where = np.array(cells, dtype=np.intp)
            out[np.array(planes, dtype=np.intp), rows[where], cols[where]] = values

    def _tile(self, out: Planes, revealed: Revealed | None, present: bool) -> None:
        """Constant planes: the revealed tile as printed (rotation 0), its task and flag."""
        if revealed is None:
            return
        at = self.offset
        edge0 = at["next:edge:0:F"]
        for i, letter in enumerate(revealed.tile.face):
            out[edge0 + len(LETTERS) * i + _LETTER[letter]] = 1.0
        task = revealed.task
        if task is not None:
            out[at[f"next:task:{task.type}"]] = 1.0
            out[at["next:value"]] = task.value / SCALE
            for name in task.types:
                out[at[f"next:double:{TASK_LETTER[name]}"]] = 1.0
        if revealed.tile.flag is not None:
            out[at[f"next:flag:{revealed.tile.flag}"]] = 1.0
        out[at["next:present"]] = float(present)

    def _counts(self, out: Planes, landscapes: int, tasks: int, turn: int) -> None:
        at, n = self.offset, self._n
        out[at["left:landscapes"]] = landscapes / n
        out[at["left:tasks"]] = tasks / n
        out[at["turn"]] = min(turn, n) / n

    def _markers(self, out: Planes, counts: dict[str, int]) -> None:
        for kind, count in counts.items():
            out[self.offset[f"markers:{kind}"]] = count / self._n

    def _unseen(self, out: Planes, prefix: str, tiles: Sequence[Tile]) -> None:
        counts = dict.fromkeys(LETTERS, 0)
        for tile in tiles:
            for letter in set(tile.face):
                counts[letter] += 1
        for letter, count in counts.items():
            out[self.offset[f"{prefix}{letter}"]] = count / self._n


def _task_size(area: PlayArea, cell: int, kind: str, letters: str, value: int) -> float:
    """How far an open task has come, divided by 10: its group's size, the tiles around a
    connection task, or for a double task the larger of its two territories not above the value."""
    if kind == CONNECTION:
        return area.neighbours(hex_of(cell)) / SCALE
    sizes = [area.figures(cell, letter)[0] for letter in letters]
    below = [s for s in sizes if s <= value]
    return (max(below) if below else max(sizes)) / SCALE
