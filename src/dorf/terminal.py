"""Terminal play and replay: ``dorf play`` and ``dorf replay``.

Plain lines in, plain lines out, so a game can be played at a terminal or
scripted through a pipe.  Each turn shows the map, the tasks, the score so far
and the revealed tile in each of its rotations; the player types a placement
(``q,r/rot`` or ``q r rot``) or a command (``help``).  Exit codes: 0 for a
finished game, 1 for a game left unfinished (``quit`` or end of input), 2 for
a usage error or an unreadable record.
"""

from __future__ import annotations

import argparse
import contextlib
import os
import random
import shutil
import sys
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TextIO

from dorf.area import IllegalPlacement, Placement
from dorf.coop import MAX_PLAYERS, CoopGame, CoopState, Revealed, Turn
from dorf.hexgrid import Hex, hex_of
from dorf.record import RecordError, apply_decision, load_record, save_record, start_of
from dorf.render import legend, paint, render_area, render_rotations
from dorf.tasks import COMPLETED, Task, TaskStatus
from dorf.terrain import TERRAIN_NAMES
from dorf.tiles import distinct_rotations

HELP = """\
Place the tile by typing its cell and rotation:  q,r/rot  or  q r rot  (e.g. 1,-2/3 or 1 -2 3).
  q,r alone places it when only one rotation fits there.
Commands:
  moves         list every legal placement, by cell
  rotations     draw the tile in each rotation, with the number of cells where it fits
  map           draw the map and the turn again
  undo          take back the last placement
  save FILE     write the game record (dorf-record/1) to FILE
  help          this text
  quit          leave the game (saved with --save, if given)"""

SEPARATOR_WIDTH = 72


class UsageError(ValueError):
    """Bad arguments to ``dorf play``; the message is one line."""


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

    @classmethod
    def standard(cls, no_color: bool) -> Console:
        width = shutil.get_terminal_size((100, 24)).columns
        return cls(sys.stdin, sys.stdout, sys.stderr, wants_color(no_color, sys.stdout), width)

    def say(self, text: str = "") -> None:
        print(text, file=self.out, flush=True)

    def lines(self, lines: list[str]) -> None:
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


def _enable_line_editing() -> None:
    with contextlib.suppress(ImportError):
        import readline  # noqa: F401  (importing it gives input() line editing)


# --- describing the game -----------------------------------------------------------


def plural(count: int, word: str) -> str:
    """``1 tile``, ``2 tiles``."""
    return f"{count} {word}" if count == 1 else f"{count} {word}s"


def place_text(at: Hex) -> str:
    return f"{at.q},{at.r}"


def task_text(task: Task) -> str:
    return f"{task.type} {task.value} at {place_text(hex_of(task.cell))}"


def tile_text(revealed: Revealed) -> str:
    """The revealed tile in words: its edges, task and flag."""
    tile = revealed.tile
    parts = [tile.face]
    if revealed.task is not None:
        parts.append(f"with a {revealed.task.type} task of {revealed.task.value}")
    if tile.flag:
        parts.append(f"with a flag in its {TERRAIN_NAMES[tile.flag]}")
    return " ".join(parts)


def short_tile_text(revealed: Revealed) -> str:
    """The tile in a few characters: ``MFFFFF forest flag``, ``GGGMRM grain 4 task``."""
    tile = revealed.tile
    if revealed.task is not None:
        return f"{tile.face} {revealed.task.type} {revealed.task.value} task"
    if tile.flag:
        return f"{tile.face} {TERRAIN_NAMES[tile.flag]} flag"
    return tile.face


def change_text(task: Task, status: TaskStatus) -> str:
    verb = "completed" if status is COMPLETED else "failed"
    return f"{verb} {task_text(task)}"


def legal_by_cell(state: CoopState) -> dict[Hex, list[int]]:
    """The revealed tile's legal rotations, cell by cell, in the area's order."""
    cells: dict[Hex, list[int]] = {}
    for placement in state.legal_placements():
        cells.setdefault(placement.at, []).append(placement.rot)
    return cells


def last_cell(state: CoopState) -> Hex | None:
    return state.area.placed[-1].at if state.area.placed else None


def map_lines(state: CoopState, console: Console, with_frontier: bool) -> list[str]:
    """The play area; with the frontier labelled when a tile waits to be placed."""
    legal = legal_by_cell(state) if with_frontier else {}
    frontier = state.area.frontier() if with_frontier else []
    lines = render_area(
        state.area,
        legal=legal,
        frontier=frontier,
        last=last_cell(state),
        color=console.color,
        max_width=console.width,
    )
    return lines or ["(no tiles yet)"]


def score_text(state: CoopState) -> str:
    pad = state.score()
    return (
        f"Score if the game ended now: {pad.total} (tasks {pad.s1}, flags {sum(pad.flags.values())}, "
        f"longest track {pad.longest_track}, longest river {pad.longest_river})"
    )


def task_lines(state: CoopState) -> list[str]:
    """Each active task with its territory (river, track) as it stands."""
    tasks = state.area.active_tasks()
    if not tasks:
        return ["Active tasks: none"]
    out = [f"Active tasks ({len(tasks)}):"]
    for task in tasks:
        group = state.area.group(hex_of(task.cell), task.spec.letter)
        size, open_edges = (group.size, group.open_edges) if group else (0, 0)
        out.append(f"  {task_text(task)}: {size} of {task.value} tiles, {plural(open_edges, 'open edge')}")
    return out


def flag_lines(state: CoopState) -> list[str]:
    """Each flag with its territory, which scores only when closed."""
    out = []
    for tile, group in state.area.flags():
        assert tile.flag is not None
        status = "closed" if group.closed else plural(group.open_edges, "open edge")
        where = f"{TERRAIN_NAMES[tile.flag]} flag at {place_text(tile.at)}"
        out.append(f"  {where}: {plural(group.size, 'tile')}, {status}")
    return ["Flags:", *out] if out else []


def rotation_lines(state: CoopState, console: Console) -> list[str]:
    revealed = state.revealed
    if revealed is None:
        return []
    cells: dict[int, int] = {}
    for placement in state.legal_placements():
        cells[placement.rot] = cells.get(placement.rot, 0) + 1
    tile = revealed.tile
    rotations = distinct_rotations(tile.face)
    return render_rotations(
        tile.face, rotations, task=revealed.task, flag=tile.flag, cells=cells, color=console.color
    )


def moves_lines(state: CoopState, width: int) -> list[str]:
    """The legal placements, compactly: ``q,r: rotations`` for each cell, wrapped."""
    cells = legal_by_cell(state)
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


# --- playing ---------------------------------------------------------------------


@dataclass
class Session:
    """A game at the terminal: the state, the players' names and where it goes."""

    state: CoopState
    names: list[str]
    console: Console
    save_path: str | None = None
    announced: int = 0
    show_legend: bool = True

    @property
    def name(self) -> str:
        return self.names[self.state.player]

    def header(self) -> list[str]:
        state = self.state
        view = state.view()
        players = f" ({state.player + 1} of {len(self.names)})" if len(self.names) > 1 else ""
        title = f"== Turn {state.turn}: {self.name} to play{players} "
        return [
            paint(title.ljust(SEPARATOR_WIDTH, "="), "title", self.console.color),
            f"Tiles left: {view.landscapes_left} landscape, {view.task_tiles_left} task",
            score_text(state),
        ]

    def show_turn(self) -> None:
        """The whole screen of a turn: map, legend, tasks, flags, tile."""
        state = self.state
        assert state.revealed is not None
        console = self.console
        console.say()
        console.lines(map_lines(state, console, with_frontier=True))
        console.say()
        if self.show_legend:
            console.lines(legend(console.color))
            self.show_legend = False
        console.lines(self.header())
        console.lines(task_lines(state) + flag_lines(state))
        console.say(f"Tile to place: {tile_text(state.revealed)}")
        console.lines(rotation_lines(state, console))

    def announce(self) -> None:
        """Say what happened in the turns since the last announcement."""
        turns = self.state.turns
        while self.announced < len(turns):
            turn = turns[self.announced]
            if turn.placement is None and not turn.set_aside:
                break
            self.console.say(self.turn_report(turn))
            self.announced += 1

    def turn_report(self, turn: Turn) -> str:
        name = self.names[turn.player]
        if turn.set_aside:
            return f"Turn {turn.number}: {tile_text(turn.revealed)} fits nowhere and is set aside."
        assert turn.placement is not None
        text = f"Turn {turn.number}: {name} placed {tile_text(turn.revealed)} at {turn.placement}."
        changes = "; ".join(change_text(task, status) for task, status in turn.changes)
        return f"{text} {changes[0].upper()}{changes[1:]}." if changes else text

    def prompt(self) -> str:
        return f"{self.name}, turn {self.state.turn}> "

    # --- commands ---

    def handle(self, line: str) -> bool | None:
        """Carry out one line; True when the turn changed, None to quit."""
        words = line.split()
        if not words:
            return False
        command = words[0].lower()
        rest = line.strip()[len(words[0]) :].strip()
        if command[0].isdigit() or command[0] in "-+":
            return self.place(line)
        if command in ("quit", "exit", "q"):
            return None
        action = COMMANDS.get(command)
        if action is None:
            self.console.say(f"unknown command {words[0]!r}: type help for the commands")
            return False
        return action(self, rest)

    def place(self, text: str) -> bool:
        """Play a typed placement, or say in one line why not."""
        try:
            placement = self.parse_placement(text)
        except ValueError as exc:
            self.console.say(str(exc))
            return False
        reason = self.state.why_illegal(placement)
        if reason is not None:
            self.console.say(f"cannot place at {placement}: {reason}")
            return False
        try:
            self.state.play(placement)
        except IllegalPlacement as exc:  # why_illegal said yes; keep the one-line promise anyway
            self.console.say(f"cannot place at {placement}: {exc}")
            return False
        self.announce()
        return True

    def parse_placement(self, text: str) -> Placement:
        """``q,r/rot``, ``q r rot``, or ``q,r`` when one rotation fits there."""
        parts = text.replace(",", " ").replace("/", " ").split()
        if len(parts) != 2:
            return Placement.from_text(text)
        try:
            at = Hex(int(parts[0]), int(parts[1]))
        except ValueError:
            raise ValueError(f"cannot read placement {text!r}: expected q,r/rot") from None
        rots = legal_by_cell(self.state).get(at, [])
        if len(rots) == 1:
            return Placement(at, rots[0])
        if rots:
            raise ValueError(
                f"give a rotation too: at {place_text(at)} rotations {', '.join(map(str, rots))} fit"
            )
        raise ValueError(self.cell_problem(at))

    def cell_problem(self, at: Hex) -> str:
        """Why no rotation of the tile goes at ``at``, in one line."""
        area = self.state.area
        if area.tile_at(at) is not None:
            return f"{place_text(at)} is already taken"
        if at not in area.frontier():
            return f"{place_text(at)} does not touch the play area"
        return f"the tile fits at {place_text(at)} in no rotation"

    def cmd_help(self, rest: str) -> bool:
        self.console.say(HELP)
        self.console.lines(legend(self.console.color))
        return False

    def cmd_moves(self, rest: str) -> bool:
        self.console.lines(moves_lines(self.state, min(self.console.width, 100) - 2))
        return False

    def cmd_rotations(self, rest: str) -> bool:
        self.console.say(f"Tile to place: {tile_text(self.state.revealed)}" if self.state.revealed else "")
        self.console.lines(rotation_lines(self.state, self.console))
        return False

    def cmd_map(self, rest: str) -> bool:
        self.show_legend = True
        return True

    def cmd_undo(self, rest: str) -> bool:
        try:
            turn = self.state.undo()
        except IndexError:
            self.console.say("nothing to undo")
            return False
        self.announced = min(self.announced, turn.number - 1)
        self.console.say(
            f"Took back turn {turn.number} ({self.names[turn.player]}'s {turn.revealed.tile.face})."
        )
        return True

    def cmd_save(self, rest: str) -> bool:
        if not rest:
            self.console.say("save needs a file name: save FILE")
            return False
        self.save(rest)
        return False

    def save(self, path: str) -> bool:
        try:
            save_record(self.state, path, self.names)
        except OSError as exc:
            self.console.say(f"cannot save to {path}: {exc.strerror or exc}")
            return False
        done = "game" if self.state.is_over else f"game so far (turn {self.state.turn})"
        self.console.say(f"Saved the {done} to {path}.")
        return True


COMMANDS: dict[str, Callable[[Session, str], bool]] = {
    "help": Session.cmd_help,
    "?": Session.cmd_help,
    "h": Session.cmd_help,
    "moves": Session.cmd_moves,
    "rotations": Session.cmd_rotations,
    "rot": Session.cmd_rotations,
    "map": Session.cmd_map,
    "undo": Session.cmd_undo,
    "save": Session.cmd_save,
}


def run_session(session: Session) -> int:
    """The play loop; returns the exit code."""
    console = session.console
    redraw = True
    while not session.state.is_over:
        if redraw:
            session.show_turn()
        line = console.ask(session.prompt())
        if line is None:
            console.warn(f"dorf play: input ended at turn {session.state.turn}, before the game was over")
            return leave_unfinished(session)
        outcome = session.handle(line)
        if outcome is None:
            console.say(f"Game left at turn {session.state.turn}.")
            return leave_unfinished(session)
        redraw = outcome
    return finish(session)


def leave_unfinished(session: Session) -> int:
    if session.save_path is not None and session.state.decisions:
        session.save(session.save_path)
    return 1


def finish(session: Session) -> int:
    """The end: final map, score pad, and the record saved or offered."""
    state = session.state
    console = session.console
    console.say()
    console.lines(map_lines(state, console, with_frontier=False))
    console.say()
    console.say(
        paint(f"== Game over after {state.turn} turns ".ljust(SEPARATOR_WIDTH, "="), "title", console.color)
    )
    console.lines(state.score().lines())
    if session.save_path is not None:
        return 0 if session.save(session.save_path) else 1
    return offer_save(session)


def offer_save(session: Session) -> int:
    """After the game: ``save FILE`` keeps the record; an empty line or the end of input leaves."""
    console = session.console
    console.say("Type save FILE to keep the game record, or press Enter to leave.")
    while True:
        line = console.ask("> ")
        if line is None or not line.strip() or line.strip().lower() in ("quit", "exit", "q"):
            return 0
        words = line.split()
        if words[0].lower() == "save" and len(words) > 1:
            if session.save(line.strip()[4:].strip()):
                return 0
        else:
            console.say("the game is over: type save FILE, or press Enter to leave")


def player_names(players: int | None, names: str | None) -> list[str]:
    """The players' names from --players and --names; UsageError if they disagree."""
    if names is not None:
        found = [name.strip() for name in names.split(",")]
        if any(not name for name in found):
            raise UsageError(f"--names {names!r} has an empty name")
        if players is not None and players != len(found):
            raise UsageError(f"--players {players} but --names gives {len(found)} names")
    else:
        found = [f"Player {i + 1}" for i in range(players or 1)]
    if not 1 <= len(found) <= MAX_PLAYERS:
        raise UsageError(f"the cooperative game is for 1 to {MAX_PLAYERS} players, not {len(found)}")
    return found


def check_save_path(path: str | None) -> None:
    if path is None:
        return
    target = Path(path)
    if target.is_dir():
        raise UsageError(f"--save {path}: that is a directory")
    if not target.parent.is_dir():
        raise UsageError(f"--save {path}: no directory {str(target.parent)!r}")


def play_main(args: argparse.Namespace, console: Console | None = None) -> int:
    """``dorf play``: set up from the arguments, greet, and run the game."""
    console = console or Console.standard(args.no_color)
    try:
        names = player_names(args.players, args.names)
        check_save_path(args.save)
    except UsageError as exc:
        console.warn(f"dorf play: {exc}")
        return 2
    seed: int = args.seed if args.seed is not None else random.SystemRandom().randrange(1_000_000)
    state = CoopGame(seed=seed, players=len(names)).new_state()
    who = "solo" if len(names) == 1 else f"{len(names)} players: {', '.join(names)}"
    console.say(f"Dorfromantik, the cooperative board game ({who}).")
    console.say(f"Seed {seed}: play this very game again with  dorf play --seed {seed}")
    console.say("Type help for the commands.")
    session = Session(state, names, console, args.save)
    session.announce()
    return run_session(session)


# --- replaying ---------------------------------------------------------------------


@dataclass
class Replay:
    """A record being stepped through, turn by turn."""

    record: dict[str, Any]
    state: CoopState
    names: list[str]
    console: Console
    step: bool
    shown: int = 0

    def report(self, turn: Turn) -> str:
        """One line a turn: number, player, tile, placement, tasks completed or failed."""
        head = f"Turn {turn.number:>3}  {self.names[turn.player]:<10} {short_tile_text(turn.revealed):<24}"
        if turn.set_aside:
            return f"{head} set aside: fits nowhere"
        changes = "".join(f"; {change_text(task, status)}" for task, status in turn.changes)
        return f"{head} at {turn.placement}{changes}"

    def show_new_turns(self) -> None:
        turns = self.state.turns
        while self.shown < len(turns) and (turns[self.shown].placement or turns[self.shown].set_aside):
            self.console.say(self.report(turns[self.shown]))
            self.shown += 1

    def pause(self) -> None:
        """Draw the map and wait for Enter; ``q`` or the end of input stops the stepping."""
        self.console.lines(map_lines(self.state, self.console, with_frontier=False))
        line = self.console.ask("Enter: next turn, q: to the end> ")
        if line is None or line.strip().lower() in ("q", "quit"):
            self.step = False

    def run(self) -> int:
        decisions = self.record["decisions"]
        if not isinstance(decisions, list):
            raise RecordError("decisions must be a list")
        players = ", ".join(self.names)
        self.console.say(
            f"Seed {self.state.game.seed}, {plural(len(self.names), 'player')} ({players}), "
            f"{plural(len(decisions), 'placement')}"
        )
        self.show_new_turns()
        for number, raw in enumerate(decisions, 1):
            apply_decision(self.state, number, raw)
            self.show_new_turns()
            if self.step:
                self.pause()
        self.show_end()
        return 0

    def show_end(self) -> None:
        state = self.state
        console = self.console
        console.say()
        console.lines(map_lines(state, console, with_frontier=False))
        console.say()
        if state.is_over:
            console.say(f"Game over after {state.turn} turns.")
        else:
            console.say(f"The record stops at turn {state.turn}: the game was not finished.")
        console.lines(state.score().lines())
        recorded = self.record.get("score")
        total = state.score().total
        if isinstance(recorded, dict) and recorded.get("total") not in (None, total):
            console.say(f"Note: the record says the total was {recorded['total']}, the replay gives {total}.")


def replay_main(args: argparse.Namespace, console: Console | None = None) -> int:
    """``dorf replay FILE [--step]``: print each turn, then the final map and score pad."""
    console = console or Console.standard(getattr(args, "no_color", False))
    try:
        record = load_record(args.file)
        state = start_of(record)
        names = [str(name) for name in record["players"]]
        return Replay(record, state, names, console, bool(args.step)).run()
    except RecordError as exc:
        console.warn(f"dorf replay: {exc}")
        return 2
