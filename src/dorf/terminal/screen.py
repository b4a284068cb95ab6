"""What every terminal mode shares: the console, and play areas, tasks, flags
and tiles put into lines of text.

The cooperative game (:mod:`dorf.terminal.play`), the Duel (:mod:`dorf.terminal.duel`)
and Head to Head (:mod:`dorf.terminal.head_to_head`) build their screens from
these pieces; they work on a play area, a revealed tile and its legal
placements, never on a particular game's state.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import sys
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TextIO

from dorf.formats.record import GameState, save_record
from dorf.games.seat import Revealed
from dorf.players.coach import DEFAULT_PLAYER, hint
from dorf.players.registry import View
from dorf.rules.area import Placement, PlayArea
from dorf.rules.hexgrid import Hex, hex_of
from dorf.rules.tasks import COMPLETED, CONNECTION, Task, TaskStatus
from dorf.rules.terrain import TERRAIN_NAMES, TERRITORY_LETTERS
from dorf.rules.tiles import distinct_rotations
from dorf.terminal.render import paint, render_area, render_rotations, side_by_side, visible_width

SEPARATOR_WIDTH = 72
#: Spaces between two maps drawn side by side.
MAP_GAP = 4


# --- input and output ------------------------------------------------------------


def wants_color(no_color: bool, stream: TextIO) -> bool:
    """Colour only on a terminal, without --no-color, NO_COLOR or TERM=dumb."""
    if no_color or os.environ.get("NO_COLOR") or os.environ.get("TERM") == "dumb":
        return False
    isatty = getattr(stream, "isatty", None)
    return bool(isatty and isatty())


@dataclass
class Console:
    """Where lines come from and go to; echoes input that does not come from a terminal."""

    inp: TextIO
    out: TextIO
    err: TextIO
    color: bool = False
    width: int = 100
    #: The output is a terminal's screen (it can be cleared between two players' turns).
    screen: bool = False

    @classmethod
    def standard(cls, no_color: bool) -> Console:
        width = shutil.get_terminal_size((100, 24)).columns
        return cls(
            sys.stdin, sys.stdout, sys.stderr, wants_color(no_color, sys.stdout), width, sys.stdout.isatty()
        )

    def clear(self) -> None:
        """Wipe the screen and what it scrolled back (on a terminal), so that the next player does
        not see what the last one typed; elsewhere a line saying so."""
        if self.screen:
            self.out.write("\x1b[H\x1b[2J\x1b[3J")
            self.out.flush()
        else:
            self.say("(the screen is cleared here)")

    def say(self, text: str = "") -> None:
        print(text, file=self.out, flush=True)

    def lines(self, lines: Sequence[str]) -> None:
        for line in lines:
            self.say(line)

    def warn(self, text: str) -> None:
        print(text, file=self.err, flush=True)

    def ask(self, prompt: str) -> str | None:
        """One line of input without its newline, or None at the end of input."""
        if self.inp is sys.stdin and sys.stdin.isatty() and self.out is sys.stdout:
            _enable_line_editing()
            try:
                return input(paint(prompt, "title", self.color))
            except EOFError:
                self.say()
                return None
        self.out.write(paint(prompt, "title", self.color))
        line = self.inp.readline()
        if not line:
            self.say()
            return None
        line = line.rstrip("\r\n")
        self.say(line)
        return line

    def title(self, text: str) -> str:
        """A separator line headed by ``text``: ``== text =====``."""
        return paint(f"== {text} ".ljust(SEPARATOR_WIDTH, "="), "title", self.color)


def _enable_line_editing() -> None:
    with contextlib.suppress(ImportError):
        import readline  # noqa: F401  (importing it gives input() line editing)


def offer_save(console: Console, save: Callable[[str], bool]) -> int:
    """After a game: ``save FILE`` keeps the record; an empty line or the end of input leaves."""
    console.say("Type save FILE to keep the game record, or press Enter to leave.")
    while True:
        line = console.ask("> ")
        if line is None or not line.strip() or line.strip().lower() in ("quit", "exit", "q"):
            return 0
        words = line.split()
        if words[0].lower() == "save" and len(words) > 1:
            if save(line.strip()[4:].strip()):
                return 0
        else:
            console.say("the game is over: type save FILE, or press Enter to leave")


# --- words -------------------------------------------------------------------------


def plural(count: int, word: str) -> str:
    """``1 tile``, ``2 tiles``."""
    return f"{count} {word}" if count == 1 else f"{count} {word}s"


def place_text(at: Hex) -> str:
    return f"{at.q},{at.r}"


def task_text(task: Task) -> str:
    """``forest 5 at 1,-1``; a double task names both territories."""
    return f"{task.name} {task.value} at {place_text(hex_of(task.cell))}"


def flag_name(flag: str) -> str:
    """``forest flag``, ``multicoloured flag``."""
    return TERRAIN_NAMES[flag] if flag == "X" else f"{TERRAIN_NAMES[flag]} flag"


def tile_text(revealed: Revealed) -> str:
    """The revealed tile in words: its edges, task and flag."""
    tile = revealed.tile
    parts = [tile.face]
    if revealed.task is not None:
        article = "an" if revealed.task.name[0] in "aeiou" else "a"
        parts.append(f"with {article} {revealed.task.name} task of {revealed.task.value}")
    if tile.flag == "X":
        parts.append("with a multicoloured flag")
    elif tile.flag:
        parts.append(f"with a flag in its {TERRAIN_NAMES[tile.flag]}")
    return " ".join(parts)


def short_tile_text(revealed: Revealed) -> str:
    """The tile in a few characters: ``MFFFFF forest flag``, ``GGGMRM grain 4 task``."""
    tile = revealed.tile
    if revealed.task is not None:
        return f"{tile.face} {revealed.task.name} {revealed.task.value} task"
    if tile.flag:
        return f"{tile.face} {flag_name(tile.flag)}"
    return tile.face


def change_text(task: Task, status: TaskStatus) -> str:
    verb = "completed" if status is COMPLETED else "failed"
    return f"{verb} {task_text(task)}"


def changes_text(changes: Sequence[tuple[Task, TaskStatus]]) -> str:
    """`` Completed forest 5 at 0,1; failed river 3 at 1,0.`` or nothing."""
    text = "; ".join(change_text(task, status) for task, status in changes)
    return f" {text[0].upper()}{text[1:]}." if text else ""


# --- the play area -------------------------------------------------------------------


def legal_by_cell(placements: Sequence[Placement]) -> dict[Hex, list[int]]:
    """The legal rotations, cell by cell, in the order given."""
    cells: dict[Hex, list[int]] = {}
    for placement in placements:
        cells.setdefault(placement.at, []).append(placement.rot)
    return cells


def last_cell(area: PlayArea) -> Hex | None:
    return area.placed[-1].at if area.placed else None


def map_lines(
    area: PlayArea,
    console: Console,
    legal: Sequence[Placement] | None = None,
    max_width: int | None = None,
) -> list[str]:
    """The play area; with ``legal`` placements, the frontier is labelled with where the tile fits."""
    frontier = area.frontier() if legal is not None else []
    lines = render_area(
        area,
        legal=legal_by_cell(legal or ()),
        frontier=frontier,
        last=last_cell(area),
        color=console.color,
        max_width=console.width if max_width is None else max_width,
    )
    return lines or ["(no tiles yet)"]


def maps_lines(
    console: Console, maps: Sequence[tuple[str, PlayArea, Sequence[Placement] | None]]
) -> list[str]:
    """Several titled play areas: side by side when they fit the console, else one after another."""
    if not maps:
        return []
    room = (console.width - MAP_GAP * (len(maps) - 1)) // len(maps)
    blocks = [
        [paint(title, "title", console.color), *map_lines(area, console, legal, room)]
        for title, area, legal in maps
    ]
    if len(maps) > 1 and all(visible_width(line) <= room for block in blocks for line in block):
        return side_by_side(blocks, MAP_GAP)
    out: list[str] = []
    for title, area, legal in maps:
        if out:
            out.append("")
        out += [paint(title, "title", console.color), *map_lines(area, console, legal)]
    return out


def task_line(area: PlayArea, task: Task) -> str:
    """An active task as it stands: size and target, open edges; neighbours for a connection task."""
    at = hex_of(task.cell)
    if task.type == CONNECTION:
        return f"{task_text(task)}: {area.neighbours(at)} of {task.value} neighbouring tiles"
    figures = []
    for letter in task.spec.letters:
        group = area.group(at, letter)
        figures.append((TERRAIN_NAMES[letter], *((group.size, group.open_edges) if group else (0, 0))))
    if len(figures) == 1:
        _, size, open_edges = figures[0]
        return f"{task_text(task)}: {size} of {task.value} tiles, {plural(open_edges, 'open edge')}"
    each = ", ".join(
        f"{name} {size} ({plural(open_edges, 'open edge')})" for name, size, open_edges in figures
    )
    return f"{task_text(task)}: {each}; either must reach {task.value}"


def task_lines(area: PlayArea, indent: str = "") -> list[str]:
    """Each active task with its territory (river, track) as it stands."""
    tasks = area.active_tasks()
    if not tasks:
        return [f"{indent}Active tasks: none"]
    return [
        f"{indent}Active tasks ({len(tasks)}):",
        *(f"{indent}  {task_line(area, task)}" for task in tasks),
    ]


def flag_lines(area: PlayArea, indent: str = "") -> list[str]:
    """Each flag with its territory, which scores only when closed."""
    out = []
    for tile, group in area.flags():
        assert tile.flag is not None
        status = "closed" if group.closed else plural(group.open_edges, "open edge")
        where = f"{flag_name(tile.flag)} at {place_text(tile.at)}"
        if tile.flag == "X":
            if group.letter in TERRITORY_LETTERS:
                where += f", in a {group.name}"
            else:
                where += ", facing no territory" if group.closed else ", in no territory yet"
        out.append(f"{indent}  {where}: {plural(group.size, 'tile')}, {status}")
    return [f"{indent}Flags:", *out] if out else []


def rotation_lines(revealed: Revealed | None, placements: Sequence[Placement], console: Console) -> list[str]:
    """The tile drawn in each distinct rotation, with the number of cells where each fits."""
    if revealed is None:
        return []
    cells: dict[int, int] = {}
    for placement in placements:
        cells[placement.rot] = cells.get(placement.rot, 0) + 1
    tile = revealed.tile
    rotations = distinct_rotations(tile.face)
    return render_rotations(
        tile.face, rotations, task=revealed.task, flag=tile.flag, cells=cells, color=console.color
    )


def moves_lines(placements: Sequence[Placement], width: int) -> list[str]:
    """The legal placements, compactly: ``q,r: rotations`` for each cell, wrapped."""
    cells = legal_by_cell(placements)
    count = sum(len(rots) for rots in cells.values())
    head = f"{plural(count, 'legal placement')} in {plural(len(cells), 'cell')} (q,r: rotations):"
    out = [head]
    line = " "
    for at, rots in sorted(cells.items()):
        entry = f"  {place_text(at)}: {'0-5' if len(rots) == 6 else ' '.join(map(str, rots))}"
        if len(line) + len(entry) > width:
            out.append(line)
            line = " "
        line += entry
    if line.strip():
        out.append(line)
    return out


def read_placement(text: str, placements: Sequence[Placement], area: PlayArea) -> Placement:
    """``q,r/rot``, ``q r rot``, or ``q,r`` when one rotation fits there; ValueError (one line) if not."""
    parts = text.replace(",", " ").replace("/", " ").split()
    if len(parts) != 2:
        return Placement.from_text(text)
    try:
        at = Hex(int(parts[0]), int(parts[1]))
    except ValueError:
        raise ValueError(f"cannot read placement {text!r}: expected q,r/rot") from None
    rots = legal_by_cell(placements).get(at, [])
    if len(rots) == 1:
        return Placement(at, rots[0])
    if rots:
        raise ValueError(
            f"give a rotation too: at {place_text(at)} rotations {', '.join(map(str, rots))} fit"
        )
    raise ValueError(cell_problem(area, at))


def cell_problem(area: PlayArea, at: Hex) -> str:
    """Why no rotation of the tile goes at ``at``, in one line."""
    if area.tile_at(at) is not None:
        return f"{place_text(at)} is already taken"
    if at not in area.frontier():
        return f"{place_text(at)} does not touch the play area"
    return f"the tile fits at {place_text(at)} in no rotation"


def hint_lines(view: View, seed: int) -> list[str]:
    """The coach's advice for this decision (:func:`dorf.players.coach.hint`): what to do and why,
    then its choice and the four others it valued most, with their estimated worth. Where the
    coach halves its candidates, one it dropped early was weighed on fewer futures, and its
    estimate may be above the best's: it says so rather than a negative loss."""
    advice = hint(view, seed=seed)
    out = [f"Hint: {advice.text} (the coach, {DEFAULT_PLAYER})"]
    if not advice.ranked:
        return out
    best, chosen = advice.ranked[0]
    out.append(f"  {chosen!s:<10} expected {best:6.1f}  best")
    for value, placement in sorted(advice.ranked[1:], key=lambda entry: -entry[0])[:4]:
        loss = best - value
        note = f"about {loss:.1f} points worse" if loss > 0 else "as good, on fewer futures"
        out.append(f"  {placement!s:<10} expected {value:6.1f}  {note}")
    return out


def save_game(
    console: Console,
    state: GameState,
    path: str,
    names: list[str],
    where: str,
    *,
    practice: bool = False,
    withheld: int = 0,
) -> bool:
    """Write the game record to ``path``; one line either way. Returns whether it was written.
    ``withheld``: the last decisions left out (placements not to be seen yet)."""
    if not path:
        console.say("save needs a file name: save FILE")
        return False
    try:
        save_record(state, path, names, practice=practice, withheld=withheld)
    except OSError as exc:
        console.say(f"cannot save to {path}: {exc.strerror or exc}")
        return False
    done = "game" if state.is_over else f"game so far ({where})"
    console.say(f"Saved the {done} to {path}.")
    return True
