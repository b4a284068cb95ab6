r"""Drawing a play area as a hex map in text, with or without ANSI colours.

Tiles are flat-topped hexes.  Column ``q`` sits five characters right of
column ``q - 1`` and half a hex lower, so row ``r`` runs straight down each
column.  Every placed tile shows its six edge letters inside its border, edge
by edge (N at the top, NE and SE on the right, S on the bottom border, SW and
NW on the left), so terrain never depends on colour alone.  The centre shows a
task (``F5``: forest, 5 tiles; ``+`` completed, ``x`` failed), a flag (``^G``)
and ``*`` on the tile placed last.  An empty cell where the next tile may go
shows its coordinates ``q,r`` and, below them, the rotations that fit there.

>>> from dorf.area import PlayArea, Placement
>>> area = PlayArea()
>>> area.play("RMMRMM", Placement(Hex(0, 0), 0), flag=None)
>>> print("\n".join(render_area(area)))
   ___
  / R \
 /M   M\
 \M   M/
  \_R_/
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from dorf.area import PlacedTile, PlayArea
from dorf.hexgrid import Hex
from dorf.tasks import COMPLETED, FAILED, TaskSpec, TaskStatus
from dorf.terrain import TASK_LETTER, TERRAIN_NAMES
from dorf.tiles import rotate

#: Characters between two neighbouring hex columns, and lines per half row.
STEP = 5
HALF = 2
HEX_WIDTH = 7
HEX_HEIGHT = 5

_BORDER: tuple[tuple[int, int, str], ...] = (
    (2, 0, "_"),
    (3, 0, "_"),
    (4, 0, "_"),
    (1, 1, "/"),
    (5, 1, "\\"),
    (0, 2, "/"),
    (6, 2, "\\"),
    (0, 3, "\\"),
    (6, 3, "/"),
    (1, 4, "\\"),
    (2, 4, "_"),
    (3, 4, "_"),
    (4, 4, "_"),
    (5, 4, "/"),
)
#: Where each edge letter goes, by direction N, NE, SE, S, SW, NW.
EDGE_SPOTS: tuple[tuple[int, int], ...] = ((3, 1), (5, 2), (5, 3), (3, 4), (1, 3), (1, 2))

#: SGR codes: each terrain a coloured block with a readable letter on it.
PALETTE: dict[str, str] = {
    "F": "1;97;48;5;28",
    "G": "1;30;48;5;220",
    "V": "1;97;48;5;160",
    "M": "30;48;5;151",
    "R": "1;97;48;5;33",
    "T": "1;97;48;5;241",
    "L": "1;97;48;5;25",
    "P": "1;30;48;5;250",
    "X": "1;30;48;5;213",
    "border": "38;5;244",
    "last": "1;93",
    "legal": "1;36",
    "blocked": "38;5;240",
    "task": "1;95",
    "done": "1;92",
    "failed": "1;91",
    "flag": "1;93",
    "title": "1",
}

_STATUS_MARK = {COMPLETED: "+", FAILED: "x"}
_STATUS_STYLE = {COMPLETED: "done", FAILED: "failed"}


def paint(text: str, style: str, color: bool) -> str:
    """``text`` in the palette's ``style`` when ``color`` is on, else unchanged."""
    if not color or not text or style not in PALETTE:
        return text
    return f"\033[{PALETTE[style]}m{text}\033[0m"


class Canvas:
    """A grid of characters, each with a style name from :data:`PALETTE`."""

    def __init__(self, width: int, height: int) -> None:
        self.width = width
        self.height = height
        self._chars = [[" "] * width for _ in range(height)]
        self._styles = [[""] * width for _ in range(height)]

    def put(self, x: int, y: int, text: str, style: str = "") -> None:
        """Write ``text`` from ``(x, y)`` rightwards; what falls outside is dropped."""
        if not 0 <= y < self.height:
            return
        for i, char in enumerate(text):
            if 0 <= x + i < self.width:
                self._chars[y][x + i] = char
                self._styles[y][x + i] = style

    def lines(self, color: bool = False) -> list[str]:
        """The rows as text, trailing blanks removed, styled runs coloured."""
        return [self._line(y, color) for y in range(self.height)]

    def _line(self, y: int, color: bool) -> str:
        chars = self._chars[y]
        styles = self._styles[y]
        end = len("".join(chars).rstrip())
        out: list[str] = []
        start = 0
        for x in range(1, end + 1):
            if x == end or styles[x] != styles[start]:
                out.append(paint("".join(chars[start:x]), styles[start], color))
                start = x
        return "".join(out)


@dataclass(frozen=True)
class HexFace:
    """What one hex shows: edge letters by direction and two centre marks."""

    edges: str
    task: tuple[str, str] = ("", "")
    mark: tuple[str, str] = ("", "")
    border: str = "border"


def task_mark(spec: TaskSpec, status: TaskStatus | None = None) -> tuple[str, str]:
    """A task's centre text and style: ``F5`` open, ``F5+`` completed, ``F5x`` failed."""
    text = f"{TASK_LETTER[spec.type]}{spec.value}"
    if status in _STATUS_MARK:
        return text + _STATUS_MARK[status], _STATUS_STYLE[status]
    return text, "task"


def flag_mark(flag: str | None, last: bool = False) -> tuple[str, str]:
    """The lower centre mark: ``^F`` for a flag in the forest, ``*`` for the last tile."""
    text = (f"^{flag}" if flag else "") + ("*" if last else "")
    return text, "flag" if flag else "last"


def face_of(tile: PlacedTile, last: bool = False) -> HexFace:
    """The hex drawing of a placed tile."""
    task = task_mark(tile.task.spec, tile.task.status) if tile.task is not None else ("", "")
    return HexFace(tile.edges, task, flag_mark(tile.flag, last), "last" if last else "border")


def draw_border(canvas: Canvas, x: int, y: int, style: str = "border") -> None:
    for dx, dy, char in _BORDER:
        canvas.put(x + dx, y + dy, char, style)


def draw_inside(canvas: Canvas, x: int, y: int, face: HexFace) -> None:
    """Edge letters and centre marks of a hex whose top-left corner is ``(x, y)``."""
    for d, (dx, dy) in enumerate(EDGE_SPOTS):
        letter = face.edges[d]
        canvas.put(x + dx, y + dy, letter, letter)
    for line, (text, style) in ((2, face.task), (3, face.mark)):
        if text:
            canvas.put(x + 3 - (len(text) - 1) // 2, y + line, text, style)


def draw_label(canvas: Canvas, x: int, y: int, top: str, bottom: str, style: str) -> None:
    """Two centred lines of text in an empty hex (coordinates and rotations)."""
    canvas.put(x + 3 - (len(top) - 1) // 2, y + 2, top, style)
    if bottom:
        canvas.put(x + 3 - (len(bottom) - 1) // 2, y + 3, bottom, style)


def coord_text(at: Hex) -> str:
    return f"{at.q},{at.r}"


def rotations_text(rotations: Sequence[int]) -> str:
    """Rotation digits for a cell label: ``03``, or ``0-5`` when all six fit."""
    if list(rotations) == list(range(6)):
        return "0-5"
    return "".join(str(k) for k in rotations)


def _origin(at: Hex) -> tuple[int, int]:
    """Top-left corner of a hex before cropping: x by column, y by half rows."""
    return at.q * STEP, (2 * at.r + at.q) * HALF


def render_area(
    area: PlayArea,
    *,
    legal: Mapping[Hex, Sequence[int]] | None = None,
    frontier: Sequence[Hex] = (),
    last: Hex | None = None,
    color: bool = False,
) -> list[str]:
    """The play area as lines of text, cropped to its tiles and labelled cells.

    ``legal`` maps each cell where the revealed tile fits to its rotations;
    ``frontier`` lists further empty cells to label (dimmed, no rotations).
    """
    legal = legal or {}
    empty = list(legal) + [at for at in frontier if at not in legal]
    tiles = list(area.placed)
    spots = [_origin(t.at) for t in tiles] + [_origin(at) for at in empty]
    if not spots:
        return []
    left = min(x for x, _ in spots)
    top = min(y for _, y in spots)
    width = max(x for x, _ in spots) - left + HEX_WIDTH
    height = max(y for _, y in spots) - top + HEX_HEIGHT
    canvas = Canvas(width, height)
    faces = [(_origin(t.at), face_of(t, t.at == last)) for t in tiles]
    for (x, y), face in faces:
        draw_border(canvas, x - left, y - top)
    for (x, y), face in faces:
        if face.border == "last":
            draw_border(canvas, x - left, y - top, "last")
    for (x, y), face in faces:
        draw_inside(canvas, x - left, y - top, face)
    for at in empty:
        x, y = _origin(at)
        rots = legal.get(at)
        style = "legal" if rots else "blocked"
        draw_label(canvas, x - left, y - top, coord_text(at), rotations_text(rots or ()), style)
    return canvas.lines(color)


def render_rotations(
    face: str,
    rotations: Sequence[int],
    *,
    task: TaskSpec | None = None,
    flag: str | None = None,
    cells: Mapping[int, int] | None = None,
    color: bool = False,
) -> list[str]:
    """Each rotation of a tile drawn small, side by side, labelled ``rot K``.

    ``cells`` gives, per rotation, the number of cells where it fits; it is
    written under each drawing when given.
    """
    slot = HEX_WIDTH + 4
    canvas = Canvas(slot * len(rotations), HEX_HEIGHT + 2)
    for i, k in enumerate(rotations):
        x = i * slot + 1
        canvas.put(x + 1, 0, f"rot {k}", "title")
        hex_face = HexFace(rotate(face, k), task_mark(task) if task else ("", ""), flag_mark(flag))
        draw_border(canvas, x, 1)
        draw_inside(canvas, x, 1, hex_face)
        if cells is not None:
            count = cells.get(k, 0)
            note = "no fit" if count == 0 else f"{count} cell" + ("s" if count > 1 else "")
            canvas.put(x + 3 - (len(note) - 1) // 2, HEX_HEIGHT + 1, note, "legal" if count else "blocked")
    return canvas.lines(color)


def legend(color: bool = False) -> list[str]:
    """What the letters and marks of the map mean."""
    terrains = "  ".join(f"{paint(letter, letter, color)} {TERRAIN_NAMES[letter]}" for letter in "FGVMRT")
    return [
        f"Edges: {terrains}",
        f"Centre: {paint('F5', 'task', color)} task (forest, exactly 5 tiles; "
        f"{paint('F5+', 'done', color)} done, {paint('F5x', 'failed', color)} failed)"
        f"  {paint('^F', 'flag', color)} flag in the forest  {paint('*', 'last', color)} last tile",
        f"Empty cells: {paint('q,r', 'legal', color)} with the rotations that fit below it "
        "(q counts columns left to right, r counts down a column)",
    ]
