"""Terminal play and replay: ``dorf play`` and ``dorf replay``.

Plain lines in, plain lines out, so a game can be played at a terminal or
scripted through a pipe.  Each turn shows the map, the tasks, the score so far
and the revealed tile in each of its rotations; the player types a placement
(``q,r/rot`` or ``q r rot``) or a command (``help``).  Exit codes: 0 for a
finished game, 1 for a game left unfinished (``quit`` or end of input), 2 for
a usage error or an unreadable record.

This module holds the cooperative game and the entry points of every mode;
the two-player modes live in :mod:`dorf.terminal.duel` and
:mod:`dorf.terminal.head_to_head`, what all modes share in
:mod:`dorf.terminal.screen`.
"""

from __future__ import annotations

import argparse
import random
import secrets
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from dorf.formats.notation import FORMAT as BOARD_FORMAT
from dorf.formats.record import RecordError, apply_decision, load_record, start_of
from dorf.games.coop import MAX_PLAYERS, CoopGame, CoopState
from dorf.games.headtohead import DRAFT
from dorf.games.modes import MODES as GAMES
from dorf.games.seat import Turn
from dorf.players import Player, make_player
from dorf.rules.area import IllegalPlacement, Placement
from dorf.rules.hexgrid import Hex
from dorf.terminal.duel import DuelSession
from dorf.terminal.head_to_head import HeadToHeadSession
from dorf.terminal.render import legend
from dorf.terminal.screen import (
    Console,
    change_text,
    changes_text,
    flag_lines,
    hint_lines,
    moves_lines,
    offer_save,
    plural,
    read_placement,
    save_game,
    short_tile_text,
    task_lines,
    tile_text,
    wants_color,
)
from dorf.terminal.screen import legal_by_cell as legal_cells
from dorf.terminal.screen import map_lines as area_map_lines
from dorf.terminal.screen import rotation_lines as tile_rotation_lines
from dorf.terminal.two_player import TwoPlayerReplay, TwoPlayerSession

__all__ = ["Console", "Replay", "Session", "UsageError", "play_main", "replay_main", "wants_color"]

HELP = """\
Place the tile by typing its cell and rotation:  q,r/rot  or  q r rot  (e.g. 1,-2/3 or 1 -2 3).
  q,r alone places it when only one rotation fits there.
Commands:
  moves         list every legal placement, by cell
  rotations     draw the tile in each rotation, with the number of cells where it fits
  map           draw the map and the turn again
  hint          what the coach (the planner) would play here, and why
  undo          practice games (dorf play --practice): take back the last placement
  save FILE     write the game record (dorf-record/1) to FILE
  help          this text
  quit          leave the game (saved with --save, if given)"""

MODES = tuple(GAMES)
#: Who can sit opposite: a person, or a computer player (any spec of :func:`make_player`).
OPPONENTS = ("human", "random", "greedy", "search", "search:2s")
#: The two-player modes' names on screen.
TITLES = {"duel": "Dorfromantik: The Duel", "head-to-head": "Dorfromantik: Head to Head"}
#: The two-player games' sessions at the terminal (what each mode fills in); the cooperative game
#: has a session of its own (:class:`Session`: hot-seat around one area).
SESSIONS: dict[str, type[TwoPlayerSession[Any]]] = {"duel": DuelSession, "head-to-head": HeadToHeadSession}
COMPUTER = "Computer"


class UsageError(ValueError):
    """Bad arguments to ``dorf play``; the message is one line."""


#: Bits of a two-player game's seed drawn from :mod:`secrets` (not guessable from the first tiles).
SEED_BITS = 63


# --- describing the cooperative game ------------------------------------------------


def legal_by_cell(state: CoopState) -> dict[Hex, list[int]]:
    """The revealed tile's legal rotations, cell by cell, in the area's order."""
    return legal_cells(state.legal_placements())


def map_lines(state: CoopState, console: Console, with_frontier: bool) -> list[str]:
    """The play area; with the frontier labelled when a tile waits to be placed."""
    return area_map_lines(state.area, console, state.legal_placements() if with_frontier else None)


def score_text(state: CoopState) -> str:
    pad = state.score()
    return (
        f"Score if the game ended now: {pad.total} (tasks {pad.s1}, flags {sum(pad.flags.values())}, "
        f"longest track {pad.longest_track}, longest river {pad.longest_river})"
    )


def rotation_lines(state: CoopState, console: Console) -> list[str]:
    return tile_rotation_lines(state.revealed, state.legal_placements(), console)


# --- playing the cooperative game ---------------------------------------------------


@dataclass
class Session:
    """A cooperative game at the terminal: the state, the players' names and where it goes."""

    state: CoopState
    names: list[str]
    console: Console
    save_path: str | None = None
    announced: int = 0
    show_legend: bool = True
    #: A practice game: undo allowed (a laid tile stays otherwise).
    practice: bool = False

    @property
    def name(self) -> str:
        return self.names[self.state.player]

    def header(self) -> list[str]:
        state = self.state
        view = state.view()
        players = f" ({state.player + 1} of {len(self.names)})" if len(self.names) > 1 else ""
        return [
            self.console.title(f"Turn {state.turn}: {self.name} to play{players}"),
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
        console.lines(task_lines(state.area) + flag_lines(state.area))
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
        return text + changes_text(turn.changes)

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
        return read_placement(text, self.state.legal_placements(), self.state.area)

    def cmd_help(self, rest: str) -> bool:
        self.console.say(HELP)
        self.console.lines(legend(self.console.color))
        return False

    def cmd_moves(self, rest: str) -> bool:
        self.console.lines(moves_lines(self.state.legal_placements(), min(self.console.width, 100) - 2))
        return False

    def cmd_rotations(self, rest: str) -> bool:
        self.console.say(f"Tile to place: {tile_text(self.state.revealed)}" if self.state.revealed else "")
        self.console.lines(rotation_lines(self.state, self.console))
        return False

    def cmd_map(self, rest: str) -> bool:
        self.show_legend = True
        return True

    def cmd_hint(self, rest: str) -> bool:
        if self.state.is_over:
            self.console.say("the game is over")
            return False
        self.console.lines(hint_lines(self.state.view(), self.state.turn))
        return False

    def cmd_undo(self, rest: str) -> bool:
        if not self.practice:
            self.console.say(
                "a laid tile stays (the next tile has been seen): undo is only for practice games, "
                "dorf play --practice"
            )
            return False
        try:
            player, _ = self.state.undo()
        except IndexError:
            self.console.say("nothing to undo")
            return False
        turn = self.state.turns[-1]  # the turn of the placement taken back: waiting again
        self.announced = min(self.announced, turn.number - 1)
        self.console.say(f"Took back turn {turn.number} ({self.names[player]}'s {turn.revealed.tile.face}).")
        return True

    def cmd_save(self, rest: str) -> bool:
        self.save(rest)
        return False

    def save(self, path: str) -> bool:
        where = f"turn {self.state.turn}"
        return save_game(self.console, self.state, path, self.names, where, practice=self.practice)


COMMANDS: dict[str, Callable[[Session, str], bool]] = {
    "help": Session.cmd_help,
    "?": Session.cmd_help,
    "h": Session.cmd_help,
    "moves": Session.cmd_moves,
    "rotations": Session.cmd_rotations,
    "rot": Session.cmd_rotations,
    "map": Session.cmd_map,
    "undo": Session.cmd_undo,
    "hint": Session.cmd_hint,
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
    console.say(console.title(f"Game over after {state.turn} turns"))
    console.lines(state.score().lines())
    if session.save_path is not None:
        return 0 if session.save(session.save_path) else 1
    return offer_save(console, session.save)


# --- setting up from the arguments ---------------------------------------------------


def player_names(players: int | None, names: str | None) -> list[str]:
    """The cooperative players' names from --players and --names; UsageError if they disagree."""
    if names is not None:
        found = split_names(names)
        if players is not None and players != len(found):
            raise UsageError(f"--players {players} but --names gives {len(found)} names")
    else:
        found = [f"Player {i + 1}" for i in range(players or 1)]
    if not 1 <= len(found) <= MAX_PLAYERS:
        raise UsageError(f"the cooperative game is for 1 to {MAX_PLAYERS} players, not {len(found)}")
    return found


def split_names(names: str) -> list[str]:
    found = [name.strip() for name in names.split(",")]
    if any(not name for name in found):
        raise UsageError(f"--names {names!r} has an empty name")
    return found


def two_player_names(mode: str, opponent: str, players: int | None, names: str | None) -> list[str]:
    """Two names: from --names (one is enough against the computer), else Player 1 and 2 (or Computer)."""
    game = {"duel": "the Duel", "head-to-head": "Head to Head"}[mode]
    if players is not None and players != 2:
        raise UsageError(f"{game[0].upper()}{game[1:]} is for 2 players, not {players}")
    computer = opponent != "human"
    if names is None:
        return ["Player 1", COMPUTER if computer else "Player 2"]
    found = split_names(names)
    if computer and len(found) == 1:
        return [found[0], COMPUTER if found[0] != COMPUTER else "Random"]
    if len(found) != 2:
        wanted = "1 or 2 names (yours first)" if computer else "2 names"
        raise UsageError(f"--names gives {len(found)} names; {game} wants {wanted}")
    if found[0] == found[1]:
        raise UsageError(f"--names {names!r}: the two players need different names")
    return found


def check_save_path(path: str | None) -> None:
    if path is None:
        return
    target = Path(path)
    if target.is_dir():
        raise UsageError(f"--save {path}: that is a directory")
    if not target.parent.is_dir():
        raise UsageError(f"--save {path}: no directory {str(target.parent)!r}")


def play_main(
    args: argparse.Namespace,
    console: Console | None = None,
    *,
    players: Callable[[str, int], Player] = make_player,
) -> int:
    """``dorf play``: set up from the arguments, greet, and run the game.  ``players`` makes the
    computer opponent from its spec and a seed (:func:`dorf.cli.main` gives one that also runs
    programs, ``cmd:COMMAND``)."""
    console = console or Console.standard(args.no_color)
    mode: str = getattr(args, "mode", None) or "coop"
    opponent: str | None = getattr(args, "opponent", None)
    try:
        if mode not in MODES:
            raise UsageError(f"--mode {mode!r}: choose from {', '.join(MODES)}")
        if mode not in SESSIONS:  # the cooperative game
            if opponent is not None:
                raise UsageError("--opponent is for the two-player modes (--mode duel or head-to-head)")
            names = player_names(args.players, args.names)
        else:
            opponent = opponent or "human"
            if opponent != "human":
                try:
                    players(opponent, 0)
                except ValueError as exc:
                    raise UsageError(f"--opponent: {exc}") from None
            names = two_player_names(mode, opponent, args.players, args.names)
        check_save_path(args.save)
        first: int = getattr(args, "first", 1)
        if first > len(names):
            raise UsageError(f"--first {first}: there are {len(names)} players")
    except UsageError as exc:
        console.warn(f"dorf play: {exc}")
        return 2
    practice = bool(getattr(args, "practice", False))
    seed: int = args.seed if args.seed is not None else random.SystemRandom().randrange(1_000_000)
    chosen = args.seed is not None
    starting = names[first - 1 :] + names[: first - 1]  # the engine counts players from who starts
    if mode in SESSIONS:
        assert opponent is not None
        if not chosen:  # a two-player game's seed is drawn from secrets and said only at the end
            seed = secrets.randbits(SEED_BITS)
        return play_two_player(
            mode,
            seed,
            names,
            opponent,
            console,
            args.save,
            first=first,
            practice=practice,
            chosen=chosen,
            players=players,
        )
    state = CoopGame(seed=seed, players=len(names)).new_state()
    who = "solo" if len(names) == 1 else f"{len(names)} players: {', '.join(starting)}, {starting[0]} first"
    console.say(f"Dorfromantik, the cooperative board game ({who}).")
    again = f"dorf play --seed {seed}" + (" --practice" if practice else "")
    console.say(f"Seed {seed}: play this very game again with  {again}")
    if practice:
        console.say(
            "A practice game: undo takes back a placement; the record says so, and no campaign takes it."
        )
    console.say("Type help for the commands.")
    session = Session(state, starting, console, args.save, practice=practice)
    session.announce()
    return run_session(session)


def computer_style(spec: str) -> str:
    """How a computer opponent plays, in words: ``plays at random``."""
    name, _, budget = spec.partition(":")
    if name == "cmd":
        return f"is the program {budget.strip()}"
    if name == "random":
        return "plays at random"
    if name == "greedy":
        return "plays greedily, one placement ahead"
    return f"looks ahead over sampled futures ({budget or 'the default budget'})"


def play_two_player(
    mode: str,
    seed: int,
    names: list[str],
    opponent: str,
    console: Console,
    save_path: str | None,
    *,
    first: int = 1,
    practice: bool = False,
    chosen: bool = True,
    players: Callable[[str, int], Player] = make_player,
) -> int:
    """Greet, set up and run a Duel or a Head to Head game (``names``: you, then the other).
    The seed is said at the start if the players chose it, else only once the game is over."""
    computer = players(opponent, seed) if opponent != "human" else None
    starting = names if first == 1 else [names[1], names[0]]  # the engine's player 1 starts
    options: dict[str, Any] = {
        "computer": computer,
        "computer_player": 1 if first == 1 else 0,
        "save_path": save_path,
        "practice": practice,
    }
    session = SESSIONS[mode](GAMES[mode].new(seed), starting, console, **options)
    if computer is None:
        how = f"{names[0]} against {names[1]} at one terminal"
    elif names[1] == COMPUTER:
        how = f"{names[0]} against the computer, which {computer_style(opponent)}"
    else:
        how = f"{names[0]} against {names[1]}, played by the computer, which {computer_style(opponent)}"
    console.say(f"{TITLES[mode]} ({how}).")
    again = f"dorf play --mode {mode} --seed {seed}" + (f" --opponent {opponent}" if computer else "")
    again += (f" --first {first}" if first != 1 else "") + (" --practice" if practice else "")
    if chosen:
        console.say(f"Seed {seed}: play this very game again with  {again}")
    else:
        console.say("A new game: its seed is told once it is over.")
        session.seed_line = f"Seed {seed}: play this very game again with  {again}"
    if session.state.phase == DRAFT:
        console.say(
            f"First the draft: take turns to pick tiles from the open pool, {starting[0]} first; "
            f"{starting[1]} also gets the last one."
        )
    elif first != 1:
        console.say(f"{starting[0]} places each tile first.")
    if not practice:
        undo = "a laid tile stays: undo only in practice games, dorf play --practice"
    elif computer:
        undo = "a practice game: undo takes back your last move"
    else:
        undo = "there is no undo between two players"
    console.say(f"Type help for the commands ({undo}).")
    attach = getattr(computer, "attach", None)  # a program (cmd:) follows the game it plays
    if attach is None:
        return session.run()
    attach(session.state, options["computer_player"], starting)
    try:
        return session.run()
    finally:
        getattr(computer, "close", lambda: None)()


# --- replaying ---------------------------------------------------------------------


@dataclass
class Replay:
    """A cooperative record being stepped through, turn by turn."""

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
    """``dorf replay FILE [--step]``: print each turn, then the final map and score pad(s)."""
    console = console or Console.standard(getattr(args, "no_color", False))
    try:
        record = load_record(args.file)
        if record.get("format") == BOARD_FORMAT:
            raise RecordError(f"{args.file} is a {BOARD_FORMAT} file (a board); use dorf score {args.file}")
        state = start_of(record)
        names = [str(name) for name in record["players"]]
        step = bool(args.step)
        if state.mode in SESSIONS:
            return TwoPlayerReplay(record, SESSIONS[state.mode](state, names, console), step).run()
        # The cooperative game, replayed turn by turn by its own replay (which reads its turns).
        assert isinstance(state, CoopState)
        return Replay(record, state, names, console, step).run()
    except RecordError as exc:
        console.warn(f"dorf replay: {exc}")
        return 2
