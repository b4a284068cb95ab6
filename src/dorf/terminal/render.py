r"""Drawing a play area as a hex map in text, with or without ANSI colours.

Tiles are flat-topped hexes.  Column ``q`` sits seven characters (five in the
narrow layout) right of column ``q - 1`` and half a hex lower, so row ``r`` runs straight down each
column.  Every placed tile shows its six edge letters inside its border, edge
by edge (N at the top, NE and SE on the right, S on the bottom border, SW and
NW on the left), so terrain never depends on colour alone.  The centre shows a
task (``F5``: forest, 5 tiles; ``+`` completed, ``x`` failed; the Duel's
``C4`` connection and ``FG6`` double tasks), a flag (``^G``, ``^X`` for a
multicoloured flag) and ``*`` on the tile placed last.  An empty cell where the next tile may go
shows its coordinates ``q,r`` and, below them, the rotations that fit there.

>>> from dorf.rules.area import PlayArea, Placement
>>> area = PlayArea()
>>> area.play("RMMRMM", Placement(Hex(0, 0), 0), flag=None)
>>> print("\n".join(render_area(area)))
  _____
 /  R  \
/M     M\
\M     M/
 \__R__/
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass

from dorf.rules.area import PlacedTile, PlayArea
from dorf.rules.hexgrid import Hex
from dorf.rules.tasks import COMPLETED, CONNECTION, FAILED, TaskSpec, TaskStatus
from dorf.rules.terrain import TERRAIN_NAMES
from dorf.rules.tiles import rotate


@dataclass(frozen=True)
class Layout:
    """The shape of a hex: ``top`` underscores wide; a column is ``top + 2`` characters."""

    top: int

    @property
    def step(self) -> int:
        """Characters from one hex column to the next."""
        return self.top + 2

    @property
    def width(self) -> int:
        return self.top + 4

    @property
    def centre(self) -> int:
        return (self.top + 3) // 2

    def border(self) -> list[tuple[int, int, str]]:
        """The outline's characters as (x, y, char) from the top-left corner."""
        right = self.top + 2
        out = [(x, 0, "_") for x in range(2, right)]
        out += [(1, 1, "/"), (right, 1, "\\"), (0, 2, "/"), (right + 1, 2, "\\")]
        out += [(0, 3, "\\"), (right + 1, 3, "/"), (1, 4, "\\"), (right, 4, "/")]
        return out + [(x, 4, "_") for x in range(2, right)]

    def edge_spots(self) -> tuple[tuple[int, int], ...]:
        """Where each edge letter goes, by direction N, NE, SE, S, SW, NW."""
        c, right = self.centre, self.top + 2
        return ((c, 1), (right, 2), (right, 3), (c, 4), (1, 3), (1, 2))


#: Roomy hexes (a column is 7 characters), and narrow ones for wide areas (5).
WIDE = Layout(5)
NARROW = Layout(3)
HEX_HEIGHT = 5
HALF = 2  # lines per half row

#: SGR codes: each terrain a coloured block with a readable letter on it.
PALETTE: dict[str, str] = {
    "F": "1;97;48;5;28",
    "G": "1;30;48;5;220",
    "V": "1;97;48;5;160",
    "M": "30;48;5;151",
    "R": "1;97;48;5;33",
    "T": "1;97;48;5;241",
    "L": "1;97;48;5;30",
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


def task_mark(spec: TaskSpec, status: TaskStatus | None = None, room: int = 4) -> tuple[str, str]:
    """A task's centre text and style: ``F5`` open, ``F5+`` completed, ``F5x`` failed.

    A connection task reads ``C4``; a double task names both territories,
    ``FG6``, or reads ``D6`` when that is longer than ``room`` characters.

    >>> task_mark(TaskSpec("double", 6, ("forest", "grain")), room=2)
    ('D6', 'task')
    """
    letters = "C" if spec.type == CONNECTION else spec.letters
    mark = "" if status is None else _STATUS_MARK.get(status, "")
    if len(letters) + len(str(spec.value)) + len(mark) > room:
        letters = "D"
    style = "task" if status is None else _STATUS_STYLE.get(status, "task")
    return f"{letters}{spec.value}{mark}", style


def flag_mark(flag: str | None, last: bool = False) -> tuple[str, str]:
    """The lower centre mark: ``^F`` for a flag in the forest, ``*`` for the last tile."""
    text = (f"^{flag}" if flag else "") + ("*" if last else "")
    return text, "flag" if flag else "last"


def face_of(tile: PlacedTile, last: bool = False, room: int = 4) -> HexFace:
    """The hex drawing of a placed tile (``room``: characters inside the hex for the task)."""
    task = task_mark(tile.task.spec, tile.task.status, room) if tile.task is not None else ("", "")
    return HexFace(tile.edges, task, flag_mark(tile.flag, last), "last" if last else "border")


def draw_border(canvas: Canvas, x: int, y: int, layout: Layout, style: str = "border") -> None:
    for dx, dy, char in layout.border():
        canvas.put(x + dx, y + dy, char, style)


def put_centred(canvas: Canvas, x: int, y: int, text: str, style: str) -> None:
    """Write ``text`` centred on column ``x`` (a little left when it has even length)."""
    canvas.put(x - len(text) // 2, y, text, style)


def draw_inside(canvas: Canvas, x: int, y: int, face: HexFace, layout: Layout) -> None:
    """Edge letters and centre marks of a hex whose top-left corner is ``(x, y)``."""
    for d, (dx, dy) in enumerate(layout.edge_spots()):
        letter = face.edges[d]
        canvas.put(x + dx, y + dy, letter, letter)
    for line, (text, style) in ((2, face.task), (3, face.mark)):
        put_centred(canvas, x + layout.centre, y + line, text, style)


def coord_text(at: Hex) -> str:
    return f"{at.q},{at.r}"


def rotations_text(rotations: Sequence[int], room: int) -> str:
    """Rotation digits for a cell label: ``03``; ``0-5`` when all six fit and there is no room."""
    text = "".join(str(k) for k in rotations)
    return "0-5" if len(text) > room else text


def _origin(at: Hex, layout: Layout) -> tuple[int, int]:
    """Top-left corner of a hex before cropping: x by column, y by half rows."""
    return at.q * layout.step, (2 * at.r + at.q) * HALF


def map_width(cells: Sequence[Hex], layout: Layout) -> int:
    """Characters a map of these cells takes in this layout."""
    if not cells:
        return 0
    columns = max(at.q for at in cells) - min(at.q for at in cells)
    return columns * layout.step + layout.width


def choose_layout(cells: Sequence[Hex], max_width: int | None) -> Layout:
    """Roomy hexes when they fit in ``max_width`` characters, else narrow ones."""
    if max_width is None or map_width(cells, WIDE) <= max_width:
        return WIDE
    return NARROW


def render_area(
    area: PlayArea,
    *,
    legal: Mapping[Hex, Sequence[int]] | None = None,
    frontier: Sequence[Hex] = (),
    last: Hex | None = None,
    color: bool = False,
    max_width: int | None = None,
) -> list[str]:
    """The play area as lines of text, cropped to its tiles and labelled cells.

    ``legal`` maps each cell where the revealed tile fits to its rotations;
    ``frontier`` lists further empty cells to label (dimmed, no rotations).
    The hexes are narrower when the roomy ones would not fit in ``max_width``.
    """
    legal = legal or {}
    empty = list(legal) + [at for at in frontier if at not in legal]
    cells = [t.at for t in area.placed] + empty
    if not cells:
        return []
    layout = choose_layout(cells, max_width)
    spots = [_origin(at, layout) for at in cells]
    left = min(x for x, _ in spots)
    top = min(y for _, y in spots)
    width = max(x for x, _ in spots) - left + layout.width
    canvas = Canvas(width, max(y for _, y in spots) - top + HEX_HEIGHT)
    faces = [(_origin(t.at, layout), face_of(t, t.at == last, layout.top - 1)) for t in area.placed]
    for (x, y), face in sorted(faces, key=lambda item: item[1].border == "last"):
        draw_border(canvas, x - left, y - top, layout, face.border)
    for (x, y), face in faces:
        draw_inside(canvas, x - left, y - top, face, layout)
    for at in empty:
        x, y = _origin(at, layout)
        _draw_label(canvas, x - left, y - top, at, legal.get(at, ()), layout)
    return _trim(canvas.lines(color))


def _trim(lines: list[str]) -> list[str]:
    """Without blank lines at the top and the bottom."""
    while lines and not lines[0]:
        lines.pop(0)
    while lines and not lines[-1]:
        lines.pop()
    return lines


def _draw_label(canvas: Canvas, x: int, y: int, at: Hex, rotations: Sequence[int], layout: Layout) -> None:
    """An empty cell's coordinates and, below them, the rotations that fit there."""
    style = "legal" if rotations else "blocked"
    put_centred(canvas, x + layout.centre, y + 2, coord_text(at), style)
    put_centred(canvas, x + layout.centre, y + 3, rotations_text(rotations, 5), style)


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
    layout = WIDE
    slot = layout.width + 3
    canvas = Canvas(slot * len(rotations), HEX_HEIGHT + 2)
    for i, k in enumerate(rotations):
        x = i * slot + 1
        put_centred(canvas, x + layout.centre, 0, f"rot {k}", "title")
        hex_face = HexFace(rotate(face, k), task_mark(task) if task else ("", ""), flag_mark(flag))
        draw_border(canvas, x, 1, layout)
        draw_inside(canvas, x, 1, hex_face, layout)
        if cells is not None:
            count = cells.get(k, 0)
            note = "no fit" if count == 0 else f"{count} cell" + ("s" if count > 1 else "")
            put_centred(canvas, x + layout.centre, HEX_HEIGHT + 1, note, "legal" if count else "blocked")
    return canvas.lines(color)


#: The edge letters each mode's tiles use.
MODE_LETTERS: dict[str, str] = {"coop": "FGVMRT", "duel": "FGVMRT", "head-to-head": "FGVMRLPX"}


def _connection_and_double(color: bool) -> str:
    return (
        f"        {paint('C4', 'task', color)} connection task (4 tiles around it)  "
        f"{paint('FG6', 'task', color)} double task (forest or grain, 6; "
        f"{paint('D6', 'task', color)} in narrow maps)"
    )


#: The legend's line on the tasks only some modes' tiles carry: the Duel's connection and double tasks.
MODE_TASKS: dict[str, Callable[[bool], str]] = {"duel": _connection_and_double}


def legend(color: bool = False, mode: str = "coop") -> list[str]:
    """What the letters and marks of the map mean, for the tiles of ``mode``."""
    letters = MODE_LETTERS.get(mode, "FGVMRTLPX")
    terrains = "  ".join(f"{paint(letter, letter, color)} {TERRAIN_NAMES[letter]}" for letter in letters)
    flag = ("^X", "multicoloured flag") if "X" in letters else ("^F", "flag in the forest")
    lines = [
        f"Edges: {terrains}",
        f"Centre: {paint('F5', 'task', color)} task (forest, exactly 5 tiles; "
        f"{paint('F5+', 'done', color)} done, {paint('F5x', 'failed', color)} failed)"
        f"  {paint(flag[0], 'flag', color)} {flag[1]}  {paint('*', 'last', color)} last tile",
    ]
    tasks = MODE_TASKS.get(mode)
    if tasks is not None:
        lines.append(tasks(color))
    if "X" in letters:
        lines.append("        an X edge joins the forest, grain or village it meets")
    if "L" in letters:
        lines.append("        two L edges that meet make a lake, two P edges a mountain: 3 points each")
    lines.append(
        f"Empty cells: {paint('q,r', 'legal', color)} with the rotations that fit below it "
        "(q counts columns left to right, r counts down a column)"
    )
    return lines


def face_text(face: str, color: bool = False) -> str:
    """A face's six letters, each painted in its terrain's colour when ``color`` is on."""
    return "".join(paint(letter, letter, color) for letter in face)


_ESCAPE = re.compile(r"\033\[[0-9;]*m")


def visible_width(line: str) -> int:
    """The characters of ``line`` a terminal shows (colour codes take no room)."""
    return len(_ESCAPE.sub("", line))


def side_by_side(blocks: Sequence[Sequence[str]], gap: int = 4) -> list[str]:
    """Blocks of lines next to each other, each padded to its widest line, tops aligned."""
    widths = [max((visible_width(line) for line in block), default=0) for block in blocks]
    height = max((len(block) for block in blocks), default=0)
    out = []
    for y in range(height):
        parts = []
        for block, width in zip(blocks, widths, strict=True):
            line = block[y] if y < len(block) else ""
            parts.append(line + " " * (width - visible_width(line)))
        out.append((" " * gap).join(parts).rstrip())
    return out
