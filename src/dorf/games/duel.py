"""The Duel: one shuffled sequence of tiles and markers for two play areas.

A :class:`DuelGame` is the description (tile set, seed); :meth:`DuelGame.new_state`
gives the mutable :class:`DuelState`.

- **Set-up** (rules notes 22 and 23): each player owns an identical set; one
  seeded sequence stands for the face-down player's stacks, so both areas
  receive the same tiles with the same markers in the same order.  Three
  landscape tiles are removed unseen.
- **Reveal** (rule 24): turns 1 to 3 a task tile; after that a task tile
  whenever either area has fewer than 3 active tasks, else a landscape tile.
  A task tile draws a marker of its type; a double task tile draws one of the
  remaining Double markers at random (rule 26).
- **Turns**: both players place the revealed tile, each in their own area, in
  either order.  A player in whose area the tile fits nowhere sets it aside
  (rule 10); the other still places it.  The rules have both place at the same
  time, so a placement stays unseen by the other player until they have placed
  the tile too (:meth:`DuelState.pending`): their view shows the area as it was
  before the turn.
- **End**: when a landscape tile must be revealed and none is left.  The
  higher total wins; equal totals share the win (rule 27).

>>> state = DuelGame(seed=2).new_state()
>>> state.revealed.tile.is_task, state.to_move()
(True, (0, 1))
>>> state.play(state.legal_placements(0)[0], 0)
>>> state.to_move()
(1,)
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from typing import ClassVar

from dorf.games.seat import (
    ACTIVE_TASKS,
    OPENING_TASK_TURNS,
    WAITING,
    Unseen,
    Withheld,
    check_markers,
    shuffle_stacks,
)
from dorf.games.state import (
    Decision,
    GameOver,
    Happened,
    OutOfTurn,
    Pick,
    Revealed,
    WrongKind,
    placed_or_set_aside,
    two_player_returns,
)
from dorf.rules.area import IllegalPlacement, Placement, PlayArea, placement_at, placements_of
from dorf.rules.hexgrid import cell_of
from dorf.rules.scoring import DuelScorePad, score_duel
from dorf.rules.tasks import DOUBLE, Task, TaskSpec, TaskStatus
from dorf.rules.tiles import Tile, TileSet, load_tileset

PLAYERS = 2


@dataclass
class DuelTurn:
    """One turn: the tile both players receive and what each did with it."""

    number: int
    revealed: Revealed
    placements: list[Placement | None] = field(default_factory=lambda: [None, None])
    set_aside: list[bool] = field(default_factory=lambda: [False, False])
    changes: list[tuple[tuple[Task, TaskStatus], ...]] = field(default_factory=lambda: [(), ()])

    def waits_for(self, player: int) -> bool:
        return self.placements[player] is None and not self.set_aside[player]


@dataclass(frozen=True)
class DuelView:
    """What ``player`` may know: both areas, the revealed tile, counts, unseen tiles and markers.

    Plain data, a snapshot of the moment it was made: :attr:`areas` are copies that share
    nothing that changes with the game, and nothing in a view leads back to the state, its
    seed or its stacks.  While the other player has placed the revealed tile and this one
    has not, :attr:`areas` shows the other's area as it was before the turn.
    """

    mode: ClassVar[str] = "duel"
    player: int
    to_move: tuple[int, ...]
    #: Both areas as this player may see them (copies: a player may push and pop on them).
    areas: tuple[PlayArea, PlayArea]
    revealed: Revealed | None
    turn: int
    landscapes_left: int
    task_tiles_left: int
    unseen: tuple[Tile, ...]
    markers_unseen: dict[str, tuple[int, ...]]
    doubles_unseen: tuple[tuple[str, str], ...]

    @property
    def area(self) -> PlayArea:
        """This player's own area (a copy)."""
        return self.areas[self.player]

    def legal_placements(self) -> list[Placement]:
        if self.revealed is None or self.player not in self.to_move:
            return []
        return self.area.legal_placements(self.revealed.tile.face, self.revealed.task)

    def legal_decisions(self) -> list[Placement]:
        return self.legal_placements()

    @property
    def to_place(self) -> Revealed | None:
        """The tile this player places now (None if they have placed it, or the game is over)."""
        return self.revealed if self.player in self.to_move else None

    @property
    def phase(self) -> str:
        return "over" if self.revealed is None else "playing"


@dataclass(frozen=True)
class DuelGame:
    """A Duel's description: ``DuelGame(seed=1)``."""

    seed: int = 0
    tileset: TileSet = field(default_factory=lambda: load_tileset("duel"))

    def __post_init__(self) -> None:
        check_markers(self.tileset)

    def new_state(self) -> DuelState:
        return DuelState(self)


class DuelState:
    """A Duel in progress."""

    mode: ClassVar[str] = "duel"
    players = PLAYERS
    #: Whether a decision was ever taken back (:meth:`undo`): its record is then a practice
    #: game's, which no campaign takes (rules note 29).
    taken_back = False

    def __init__(self, game: DuelGame) -> None:
        self.game = game
        self.areas = (PlayArea(), PlayArea())
        self.turns: list[DuelTurn] = []
        #: Every placement in the order made: (turn index, player).
        self.history: list[tuple[int, int]] = []
        self._hidden = shuffle_stacks(game.tileset, game.seed)
        self._moves: list[list[tuple[int, int]]] = [[], []]
        self._unseen = Unseen(game.tileset)
        self._withheld = Withheld()
        self._reveal()

    # --- what everyone sees -------------------------------------------------------

    @property
    def revealed(self) -> Revealed | None:
        """The tile the players are placing, or None once the game is over."""
        if self.turns and any(self.turns[-1].waits_for(p) for p in (0, 1)):
            return self.turns[-1].revealed
        return None

    def revealed_for(self, player: int) -> Revealed | None:
        """The tile both players place (the same for each, until both have placed it)."""
        return self.revealed

    @property
    def is_over(self) -> bool:
        return self.revealed is None

    @property
    def phase(self) -> str:
        return "over" if self.revealed is None else "playing"

    def area_index(self, player: int) -> int:
        return player

    @property
    def turn(self) -> int:
        return len(self.turns)

    def to_move(self) -> tuple[int, ...]:
        """The players still to place the revealed tile."""
        if not self.turns:
            return ()
        last = self.turns[-1]
        placements, aside = last.placements, last.set_aside
        return WAITING[placements[0] is None and not aside[0], placements[1] is None and not aside[1]]

    @property
    def player(self) -> int:
        """The player to decide next when decisions are taken one at a time (-1 when over)."""
        waiting = self.to_move()
        return waiting[0] if waiting else -1

    def pending(self) -> tuple[int, ...]:
        """The player (if any) who has placed the revealed tile while the other still has to:
        that placement stays unseen by the other until they have placed the tile too."""
        if not self.turns:
            return ()
        turn = self.turns[-1]
        return tuple(p for p in (0, 1) if turn.placements[p] is not None and turn.waits_for(1 - p))

    def area_before_turn(self, player: int) -> PlayArea:
        """A copy of ``player``'s area as it was before the current turn."""
        area = self.areas[player]
        if self.turns and self.turns[-1].placements[player] is not None:
            return self._withheld.area(player, area)
        return area.copy()

    def landscapes_left(self) -> int:
        return len(self._hidden.landscapes)

    def task_tiles_left(self) -> int:
        return len(self._hidden.tasks)

    def legal_placements(self, player: int | None = None) -> list[Placement]:
        """Every legal placement of the revealed tile in ``player``'s area, sorted."""
        p = self.player if player is None else player
        return placements_of(self._moves[p]) if p in self.to_move() else []

    def legal_moves(self, player: int | None = None) -> list[tuple[int, int]]:
        p = self.player if player is None else player
        return self._moves[p].copy() if p in self.to_move() else []

    def legal_decisions(self, player: int | None = None) -> list[Placement]:
        """:meth:`legal_placements`: the Duel's decisions are placements."""
        return self.legal_placements(player)

    def why_illegal(self, decision: Decision, player: int | None = None) -> str | None:
        """Why ``player`` (default: :attr:`player`) may not make ``decision`` now, or None."""
        error = self._refusal(decision, self.player if player is None else player)
        return None if error is None else str(error)

    def _refusal(self, decision: Decision, p: int) -> ValueError | None:
        revealed = self.revealed
        if revealed is None:
            return GameOver("the game is over")
        if p not in (0, 1):
            return OutOfTurn(f"there is no player {p + 1}")
        if p not in self.to_move():
            if self.turns[-1].set_aside[p]:
                return OutOfTurn(
                    f"player {p + 1}'s tile was set aside (it fits nowhere in their area); "
                    f"waiting for player {2 - p}"
                )
            return OutOfTurn(f"player {p + 1} has placed this tile; waiting for player {2 - p}")
        if isinstance(decision, Pick):
            return WrongKind("this game takes placements, not picks")
        reason = self.areas[p].why_illegal(revealed.tile.face, decision, revealed.task)
        return None if reason is None else IllegalPlacement(reason)

    def scores(self) -> tuple[DuelScorePad, DuelScorePad]:
        return score_duel(self.areas[0]), score_duel(self.areas[1])

    def winner(self) -> int | None:
        """The player with the higher total; None when the totals are equal (a shared win)."""
        a, b = (pad.total for pad in self.scores())
        if a == b:
            return None
        return 0 if a > b else 1

    def returns(self) -> tuple[float, float]:
        """1 for the winner and -1 for the loser once the game is over; else 0 for both."""
        return two_player_returns(self.winner() if self.is_over else None, self.is_over)

    def made(self) -> list[tuple[int, Decision]]:
        turns = self.turns
        out: list[tuple[int, Decision]] = []
        for index, player in self.history:
            placement = turns[index].placements[player]
            assert placement is not None
            out.append((player, placement))
        return out

    def happened(self, index: int) -> tuple[Happened, ...]:
        """Placement ``index`` with the tasks it completed or failed; before it, if it is the
        first placement of its turn, the tiles of the turn set aside in an area they fit nowhere."""
        turn_index, player = self.history[index]
        turn = self.turns[turn_index]
        out: list[Happened] = []
        if index == 0 or self.history[index - 1][0] != turn_index:
            for p in (0, 1):
                if turn.set_aside[p]:
                    out += placed_or_set_aside(turn.number, p, turn.revealed, None)
        out += placed_or_set_aside(
            turn.number, player, turn.revealed, turn.placements[player], turn.changes[player]
        )
        return tuple(out)

    def view(self, player: int | None = None) -> DuelView:
        """What ``player`` (default: :attr:`player`, else player 1) may know."""
        if player is None:
            player = max(self.player, 0)
        if player not in (0, 1):
            raise ValueError(f"there is no player {player + 1}")
        unseen, markers = self._unseen.read(self.turns)  # (a Double marker has no pile of its kind)
        doubles = Counter(self.game.tileset.doubles)
        for turn in self.turns:
            task = turn.revealed.task
            if task is not None and task.type == DOUBLE:
                doubles[task.types[0], task.types[1]] -= 1
        other = 1 - player
        mine = self.areas[player].copy()
        theirs = self.area_before_turn(other) if other in self.pending() else self.areas[other].copy()
        return DuelView(
            player,
            self.to_move(),
            (mine, theirs) if player == 0 else (theirs, mine),
            self.revealed,
            self.turn,
            self.landscapes_left(),
            self.task_tiles_left(),
            unseen,
            markers,
            tuple(sorted(doubles.elements())),
        )

    # --- changing the game ----------------------------------------------------------

    def apply(self, decision: Decision, player: int | None = None) -> None:
        """Place the revealed tile in ``player``'s area (default: :attr:`player`); raises
        IllegalPlacement or IllegalDecision (nothing changed)."""
        p = self.player if player is None else player
        error = self._refusal(decision, p)
        if error is not None:
            raise error
        assert isinstance(decision, Placement)
        self.push_move(cell_of(*decision.at), decision.rot, p)

    def play(self, placement: Placement, player: int | None = None) -> None:
        """Place the revealed tile in ``player``'s area: :meth:`apply`."""
        self.apply(placement, player)

    def push_move(self, cell: int, rot: int, player: int | None = None) -> None:
        """Place at a move from :meth:`legal_moves`, unchecked: the hot path for search."""
        p = self.player if player is None else player
        current = self.turns[-1]
        revealed = current.revealed
        tile = revealed.tile
        current.changes[p] = self.areas[p].push_changes(
            tile.face, cell, rot, flag=tile.flag, task=revealed.task
        )
        current.placements[p] = placement_at(cell, rot)
        self.history.append((len(self.turns) - 1, p))
        if not self.to_move():
            self._reveal()

    def undo(self) -> tuple[int, Decision]:
        """Take back the last placement (and the reveals after it); returns its player and placement."""
        if not self.history:
            raise IndexError("nothing to undo")
        self.taken_back = True
        index, player = self.history.pop()
        hidden = self._hidden
        while len(self.turns) > index + 1:
            revealed = self.turns.pop().revealed
            if revealed.tile.is_task:
                hidden.tasks.append(revealed.tile_id)
                task = revealed.task
                assert task is not None
                if task.type == DOUBLE:
                    hidden.doubles.append((task.types[0], task.types[1]))
                else:
                    hidden.markers[task.type].append(task.value)
            else:
                hidden.landscapes.append(revealed.tile_id)
        turn = self.turns[index]
        placement = turn.placements[player]
        assert placement is not None
        self.areas[player].pop()
        turn.placements[player] = None
        turn.changes[player] = ()
        face, task = turn.revealed.tile.face, turn.revealed.task
        self._moves = [self.areas[p].legal_moves(face, task) if turn.waits_for(p) else [] for p in (0, 1)]
        return player, placement

    def _reveal(self) -> None:
        """Reveal the next tile for both areas (rule 24); set aside where it fits nowhere (rule 10)."""
        hidden = self._hidden
        tiles = self.game.tileset.tiles
        first, second = self.areas
        while True:
            number = len(self.turns) + 1
            task: TaskSpec | None = None
            active = min(first.active_count, second.active_count)
            if hidden.tasks and (number <= OPENING_TASK_TURNS or active < ACTIVE_TASKS):
                index = hidden.tasks.pop()
                tile = tiles[index]
                assert tile.task is not None  # DuelGame checked there is a marker for each
                if tile.task == DOUBLE:
                    task = TaskSpec(DOUBLE, 6, hidden.doubles.pop())
                else:
                    task = TaskSpec(tile.task, hidden.markers[tile.task].pop())
            elif hidden.landscapes:
                index = hidden.landscapes.pop()
                tile = tiles[index]
            else:
                self._moves = [[], []]
                return
            moves = [first.legal_moves(tile.face, task), second.legal_moves(tile.face, task)]
            set_aside = [not moves[0], not moves[1]]
            self.turns.append(
                DuelTurn(number, Revealed(index, tile, task), [None, None], set_aside, [(), ()])
            )
            self._moves = moves
            if not all(set_aside):
                return
