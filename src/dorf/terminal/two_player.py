"""What the two-player modes share at the terminal: turns, commands, the end, replays.

Two people share one terminal (hot-seat), or one person plays against the
computer, which decides at once.  Whoever may decide next (``to_move()``; the
player who starts first when both may) gets the screen and the prompt.  Both
play areas are shown, side by side when they fit.

The rules have both players place at the same time; at one terminal they take
turns, so a placement is kept from the other player until they have placed
too: their screen shows the other's area as it was before (the view of
:meth:`~dorf.games.duel.DuelState.view`), and the report of the placement
waits until both have placed.  Against the computer, the computer's placement
is kept from you the same way; yours is shown at once.

``undo`` is offered only in a practice game (``dorf play --practice``) against
the computer: it takes back your last decision and the computer's replies
after it.  Between two people at one terminal the other player has already
seen the move, so it is refused.

:mod:`dorf.terminal.duel` and :mod:`dorf.terminal.head_to_head` fill in what
differs: the screen, the prompt, what a typed number means and how a decision
is reported.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Callable, Sequence
from typing import Any, ClassVar, Generic, TypeVar

from dorf.formats.record import RecordError, apply_decision
from dorf.games.duel import DuelState
from dorf.games.headtohead import DRAFT, HeadToHeadState, Pick
from dorf.games.seat import IllegalDecision, Revealed
from dorf.players import Player
from dorf.rules.area import IllegalPlacement, Placement, PlayArea
from dorf.rules.scoring import DuelScorePad, HeadToHeadScorePad
from dorf.terminal.render import legend, side_by_side
from dorf.terminal.screen import (
    Console,
    flag_lines,
    hint_lines,
    maps_lines,
    moves_lines,
    offer_save,
    plural,
    read_placement,
    rotation_lines,
    save_game,
    task_lines,
)

S = TypeVar("S", bound=DuelState | HeadToHeadState)
Decision = Pick | Placement
Pad = DuelScorePad | HeadToHeadScorePad

COMMON_HELP = """\
  moves         list every legal placement of your tile, by cell
  rotations     draw your tile in each rotation, with the number of cells where it fits
  map           draw the screen again
  score         both score pads as they would stand if the game ended now
  hint          what the search player would do here, and what each choice is worth
  undo          practice games against the computer: take back your last decision and its replies
  save FILE     write the game record (dorf-record/1) to FILE
  help          this text
  quit          leave the game (saved with --save, if given)"""

PLACE_HELP = """\
Place your tile by typing its cell and rotation:  q,r/rot  or  q r rot  (e.g. 1,-2/3 or 1 -2 3).
  q,r alone places it when only one rotation fits there."""

#: Other words for the commands.
ALIASES = {"?": "help", "h": "help", "rot": "rotations", "exit": "quit", "q": "quit"}


def refusal(decision: Decision, reason: str) -> str:
    """The one line that says why a decision was refused."""
    if isinstance(decision, Pick):
        return f"cannot pick tile {decision.tile_id}: {reason}"
    return f"cannot place at {decision}: {reason}"


def decision_text(decision: Decision) -> str:
    """``pick of tile 17``, ``placement at 1,-1/2``."""
    if isinstance(decision, Pick):
        return f"pick of tile {decision.tile_id}"
    return f"placement at {decision}"


def pads_lines(names: Sequence[str], pads: Sequence[Pad]) -> list[str]:
    """Two score pads next to each other, each headed by its player's name."""
    return side_by_side([[name, *pad.lines()] for name, pad in zip(names, pads, strict=True)])


class TwoPlayerSession(ABC, Generic[S]):
    """A two-player game at the terminal; subclasses fill in the mode."""

    #: The mode's name in records and legends, its title on screen, its commands.
    mode: ClassVar[str]
    title: ClassVar[str]
    help_text: ClassVar[str]

    def __init__(
        self,
        state: S,
        names: list[str],
        console: Console,
        *,
        computer: Player | None = None,
        computer_player: int = 1,
        save_path: str | None = None,
        practice: bool = False,
    ) -> None:
        self.state: S = state
        self.names = names
        self.console = console
        self.computer = computer
        #: The player the computer plays (0 when it starts).
        self.computer_player = computer_player
        self.save_path = save_path
        self.practice = practice
        self.show_legend = True
        #: Whose screen is drawn (None: the end, everything shown).
        self.viewer: int | None = None
        #: Reports of placements the other player may not see yet.
        self.held: list[str] = []
        #: Said once the game is over: the seed, when the players did not choose it (said at the
        #: start, it would tell them every tile to come).
        self.seed_line: str | None = None

    # --- what the mode fills in --------------------------------------------------------

    @abstractmethod
    def screen(self, player: int) -> list[str]:
        """Everything ``player`` needs to decide, below the maps."""

    @abstractmethod
    def prompt(self, player: int) -> str: ...

    @abstractmethod
    def where(self) -> str:
        """Where the game stands, for messages: ``turn 7``, ``pick 5``."""

    @abstractmethod
    def enter(self, text: str, player: int) -> bool:
        """A line that starts with a number: a placement (or a pick); True if it was made."""

    @abstractmethod
    def mark(self, player: int) -> int:
        """A bookmark taken before ``player`` decides, for :meth:`report`."""

    @abstractmethod
    def report(self, mark: int, player: int) -> list[str]:
        """What ``player``'s decision since ``mark`` did, and what it revealed, in a few lines."""

    @abstractmethod
    def score_text(self, player: int) -> str:
        """``player``'s score if the game ended now, in one line."""

    @abstractmethod
    def result_lines(self) -> list[str]:
        """The end: who won, and how."""

    # --- what every game's state answers --------------------------------------------------

    def area(self, player: int) -> PlayArea:
        return self.state.areas[self.state.area_index(player)]

    def revealed(self, player: int) -> Revealed | None:
        """The tile ``player`` is to place now, if any."""
        return self.state.revealed_for(player) if player in self.state.to_move() else None

    def placements(self, player: int) -> list[Placement]:
        """The legal placements of ``player``'s tile now."""
        return self.state.legal_placements(player)

    def why_illegal(self, decision: Decision, player: int) -> str | None:
        return self.state.why_illegal(decision, player)

    def apply(self, decision: Decision, player: int) -> None:
        self.state.apply(decision, player)

    def pads(self) -> tuple[Pad, Pad]:
        if self.viewer is None or not self.state.pending():
            return self.state.scores()
        return (self.scorer(self.shown(0)), self.scorer(self.shown(1)))

    @abstractmethod
    def scorer(self, area: PlayArea) -> Pad:
        """The mode's score pad of an area."""

    def shown(self, player: int) -> PlayArea:
        """``player``'s area as the one at the keyboard may see it: as it was before a
        placement they may not see yet."""
        viewer = self.viewer
        if viewer is not None and player != viewer and player in self.state.pending():
            return self.state.view(viewer).areas[player]
        return self.area(player)

    def hidden_from_screen(self, player: int) -> bool:
        """Whether ``player``'s last decision must not be shown yet: the other still has to
        place, and the screen is shared (two people) or the decision is the computer's."""
        return player in self.state.pending() and (self.computer is None or player == self.computer_player)

    def unfinished_lines(self) -> list[str]:
        """How an unfinished game stands: both score pads as if it ended now."""
        return pads_lines(self.names, self.pads())

    def pauses_after(self) -> bool:
        """Whether a stepped replay waits after the decision just replayed."""
        return True

    # --- describing ----------------------------------------------------------------------

    def name(self, player: int) -> str:
        return self.names[player]

    def maps(self, player: int | None) -> list[str]:
        """Both areas in player order; ``player``'s labelled with where the tile fits."""
        maps: list[tuple[str, PlayArea, list[Placement] | None]] = []
        for p in (0, 1):
            area = self.shown(p)
            if p == player:
                title = f"{self.name(p)}'s area: where the tile fits"
                maps.append((title, area, self.placements(p)))
            else:
                maps.append((f"{self.name(p)}'s area ({plural(len(area), 'tile')})", area, None))
        return maps_lines(self.console, maps)

    def player_lines(self, player: int, note: str = "") -> list[str]:
        """A player's score so far, active tasks and flags."""
        land = self.shown(player)
        head = f"{self.name(player)}: {plural(len(land), 'tile')} placed{note}"
        return [head, f"  {self.score_text(player)}", *task_lines(land, "  "), *flag_lines(land, "  ")]

    def tile_lines(self, player: int) -> list[str]:
        return rotation_lines(self.revealed(player), self.placements(player), self.console)

    def show(self, player: int) -> None:
        self.viewer = player
        console = self.console
        console.say()
        drawn = self.maps(player)
        if drawn:
            console.lines([*drawn, ""])
        if self.show_legend:
            console.lines(legend(console.color, self.mode))
            self.show_legend = False
        console.lines(self.screen(player))

    # --- deciding ------------------------------------------------------------------------

    def decide(self, decision: Decision, player: int) -> bool:
        """Make ``decision`` for ``player`` and report it, or say in one line why not."""
        reason = self.why_illegal(decision, player)
        if reason is not None:
            self.console.say(refusal(decision, reason))
            return False
        mark = self.mark(player)
        try:
            self.apply(decision, player)
        except (IllegalPlacement, IllegalDecision) as exc:  # why_illegal said yes; keep the promise anyway
            self.console.say(refusal(decision, str(exc)))
            return False
        lines = self.report(mark, player)
        if self.hidden_from_screen(player):
            self.held += lines  # told once the other has placed too
            if self.computer is None:  # two people at one screen: what was typed goes
                self.console.clear()
            self.console.say(f"{self.name(player)} has placed; {self.name(1 - player)} places now.")
        elif player in self.state.pending():
            self.console.lines(lines)
        else:
            self.console.lines([*self.held, *lines])
            self.held = []
        return True

    def place(self, text: str, player: int) -> bool:
        """A typed placement for ``player``."""
        try:
            placement = read_placement(text, self.placements(player), self.area(player))
        except ValueError as exc:
            self.console.say(str(exc))
            return False
        return self.decide(placement, player)

    def handle(self, line: str, player: int) -> bool | None:
        """Carry out one line typed by ``player``; True to draw the screen again, None to quit."""
        words = line.split()
        if not words:
            return False
        command = words[0].lower()
        rest = line.strip()[len(words[0]) :].strip()
        if command[0].isdigit() or command[0] in "-+":
            return self.enter(line, player)
        command = ALIASES.get(command, command)
        if command == "quit":
            return None
        action: Callable[[str, int], bool] | None = getattr(self, f"cmd_{command}", None)
        if action is None or not command.isalpha():
            self.console.say(f"unknown command {words[0]!r}: type help for the commands")
            return False
        return action(rest, player)

    # --- commands ------------------------------------------------------------------------

    def cmd_help(self, rest: str, player: int) -> bool:
        self.console.say(self.help_text)
        self.console.lines(legend(self.console.color, self.mode))
        return False

    def cmd_moves(self, rest: str, player: int) -> bool:
        if self.revealed(player) is None:
            self.console.say("there is no tile to place now")
            return False
        self.console.lines(moves_lines(self.placements(player), min(self.console.width, 100) - 2))
        return False

    def cmd_rotations(self, rest: str, player: int) -> bool:
        if self.revealed(player) is None:
            self.console.say("there is no tile to place now")
            return False
        self.console.lines(self.tile_lines(player))
        return False

    def cmd_map(self, rest: str, player: int) -> bool:
        self.show_legend = True
        return True

    def cmd_score(self, rest: str, player: int) -> bool:
        self.console.say("If the game ended now:")
        self.console.lines(pads_lines(self.names, self.pads()))
        return False

    def cmd_hint(self, rest: str, player: int) -> bool:
        view = self.state.view(player)
        if view.phase != DRAFT and not view.legal_decisions():
            self.console.say("there is no tile to place now")
            return False
        self.console.lines(hint_lines(view, len(self.state.history)))
        return False

    def cmd_undo(self, rest: str, player: int) -> bool:
        if not self.practice:
            self.console.say("a laid tile stays: undo is only for practice games (dorf play --practice)")
            return False
        if self.computer is None:
            self.console.say("undo is not offered when two people play: the other player has seen the move")
            return False
        taken: list[tuple[int, Decision]] = []
        while not taken or taken[-1][0] != player:
            try:
                taken.append(self.state.undo())
            except IndexError:
                break
        if not taken:
            self.console.say("nothing to undo")
            return False
        self.held = []
        yours = [decision for p, decision in taken if p == player]
        replies = len(taken) - len(yours)
        what = f"your {decision_text(yours[0])}" if yours else "the computer's decisions"
        also = (
            ""
            if not yours or not replies
            else f" and the computer's {'reply' if replies == 1 else 'replies'}"
        )
        self.console.say(f"Took back {what}{also}.")
        return True

    def cmd_save(self, rest: str, player: int) -> bool:
        self.save(rest)
        return False

    def save(self, path: str) -> bool:
        """Write the record, without a placement the other player may not see yet (as if it were
        not made: it is made again when the game goes on from the file)."""
        withheld = sum(1 for p in self.state.pending() if self.hidden_from_screen(p))
        saved = save_game(
            self.console,
            self.state,
            path,
            self.names,
            self.where(),
            practice=self.practice,
            withheld=withheld,
        )
        if saved and withheld:
            self.console.say(f"{self.name(self.state.pending()[0])}'s placement of this round is left out.")
        if saved and not self.state.is_over:
            self.console.say(
                "The file holds the game's seed, so the tiles to come: keep it from the players."
            )
        return saved

    # --- the game ------------------------------------------------------------------------

    def run(self) -> int:
        """The play loop; returns the exit code (0 finished, 1 left unfinished)."""
        console = self.console
        redraw = True
        while not self.state.is_over:
            player = self.state.to_move()[0]
            if self.computer is not None and player == self.computer_player:
                self.decide(self.computer.choose(self.state.view(player)), player)
                redraw = True
                continue
            if redraw:
                self.show(player)
            line = console.ask(self.prompt(player))
            if line is None:
                console.warn(f"dorf play: input ended at {self.where()}, before the game was over")
                return self.leave_unfinished()
            outcome = self.handle(line, player)
            if outcome is None:
                console.say(f"Game left at {self.where()}.")
                return self.leave_unfinished()
            redraw = outcome
        return self.finish()

    def leave_unfinished(self) -> int:
        if self.save_path is not None and self.state.history:
            self.save(self.save_path)
        return 1

    def end_lines(self) -> list[str]:
        """Both final areas, both score pads and the result."""
        self.viewer = None
        return [
            "",
            *self.maps(None),
            "",
            self.console.title("Game over"),
            *pads_lines(self.names, self.pads()),
            "",
            *self.result_lines(),
            *([self.seed_line] if self.seed_line else []),
        ]

    def finish(self) -> int:
        self.console.lines(self.end_lines())
        if self.save_path is not None:
            return 0 if self.save(self.save_path) else 1
        return offer_save(self.console, self.save)


class TwoPlayerReplay:
    """A two-player record stepped through: each decision reported as it was made at the table."""

    def __init__(self, record: dict[str, Any], session: TwoPlayerSession[Any], step: bool) -> None:
        self.record = record
        self.session = session
        self.step = step

    def run(self) -> int:
        session = self.session
        console = session.console
        decisions = self.record["decisions"]
        if not isinstance(decisions, list):
            raise RecordError("decisions must be a list")
        console.say(
            f"{session.title}: {session.names[0]} against {session.names[1]}, "
            f"seed {session.state.game.seed}, {plural(len(decisions), 'decision')}"
        )
        for number, raw in enumerate(decisions, 1):
            player = raw.get("player") if isinstance(raw, dict) else None
            mark = session.mark(player) if player in (0, 1) and isinstance(player, int) else 0
            apply_decision(session.state, number, raw)
            assert isinstance(player, int)  # apply_decision checked it
            console.lines(session.report(mark, player))
            if self.step and session.pauses_after():
                self.pause()
        self.show_end()
        return 0

    def pause(self) -> None:
        """Draw both areas and wait for Enter; ``q`` or the end of input stops the stepping."""
        self.session.console.lines(self.session.maps(None))
        line = self.session.console.ask("Enter: next decision, q: to the end> ")
        if line is None or line.strip().lower() in ("q", "quit"):
            self.step = False

    def show_end(self) -> None:
        session = self.session
        console = session.console
        if session.state.is_over:
            console.lines(session.end_lines())
        else:
            drawn = session.maps(None)
            console.lines(["", *drawn] if drawn else [])
            console.say()
            console.say(f"The record stops at {session.where()}: the game was not finished.")
            console.lines(session.unfinished_lines())
        recorded = self.record.get("score")
        totals = [pad.total for pad in session.pads()]
        if isinstance(recorded, list) and len(recorded) == 2:
            said = [pad.get("total") if isinstance(pad, dict) else None for pad in recorded]
            if said != totals:
                console.say(f"Note: the record says the totals were {said}, the replay gives {totals}.")
