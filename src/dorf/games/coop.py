"""The cooperative board game: set-up, reveals, turns, undo and the end.

A :class:`CoopGame` is the immutable description (tile set, number of
players, seed); :meth:`CoopGame.new_state` deals a :class:`CoopState`, the
mutable game.  Everything random happens at set-up from the seed, so a game is
fully determined by its seed and its decisions.

The stacks, the three removed tiles and the marker piles live in a private
part of the state; :meth:`CoopState.view` gives what the players may know.

>>> state = CoopGame(seed=7).new_state()
>>> state.revealed.tile.is_task, state.turn
(True, 1)
>>> state.play(state.legal_placements()[0])
>>> state.turn
2
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import partial
from typing import ClassVar

from dorf.games.seat import (
    Seat,
    Unseen,
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
)
from dorf.rules.area import IllegalPlacement, Placement, PlayArea
from dorf.rules.hexgrid import cell_of
from dorf.rules.scoring import ScorePad, score_coop
from dorf.rules.tasks import TaskSpec
from dorf.rules.tiles import Tile, TileSet, load_tileset

MAX_PLAYERS = 6


@dataclass
class _Hidden:
    """What no player may see: stack order (in the seat), removed tiles, marker piles."""

    removed: list[int]
    markers: dict[str, list[int]]


@dataclass(frozen=True)
class PlayerView:
    """Everything a player may know; nothing about stack order or removed tiles.

    Plain data, a snapshot of the moment it was made: :attr:`area` is a copy that shares
    nothing that changes with the game (a player may push and pop on it), and nothing in a
    view leads back to the state, its seed or its stacks.
    """

    mode: ClassVar[str] = "coop"
    area: PlayArea
    revealed: Revealed | None
    turn: int
    player: int
    players: int
    landscapes_left: int
    task_tiles_left: int
    unseen: tuple[Tile, ...]
    markers_unseen: dict[str, tuple[int, ...]]

    def legal_placements(self) -> list[Placement]:
        if self.revealed is None:
            return []
        return self.area.legal_placements(self.revealed.tile.face, self.revealed.task)

    def legal_decisions(self) -> list[Placement]:
        return self.legal_placements()

    @property
    def to_move(self) -> tuple[int, ...]:
        """The player who decides this turn (none once the game is over)."""
        return () if self.revealed is None else (self.player,)

    @property
    def areas(self) -> tuple[PlayArea]:
        """The one area everyone plays on (a copy)."""
        return (self.area,)

    @property
    def to_place(self) -> Revealed | None:
        """The tile to place now: :attr:`revealed`."""
        return self.revealed

    @property
    def phase(self) -> str:
        return "over" if self.revealed is None else "playing"


@dataclass(frozen=True)
class CoopGame:
    """A cooperative game's description: ``CoopGame(seed=1, players=2)``."""

    seed: int = 0
    players: int = 1
    tileset: TileSet = field(default_factory=load_tileset)

    def __post_init__(self) -> None:
        if not 1 <= self.players <= MAX_PLAYERS:
            raise ValueError(f"the cooperative game is for 1 to {MAX_PLAYERS} players, not {self.players}")
        check_markers(self.tileset)

    def new_state(self) -> CoopState:
        return CoopState(self)


def _draw_marker(markers: dict[str, list[int]], tile: Tile) -> TaskSpec:
    assert tile.task is not None  # CoopGame checked there is a marker for each
    return TaskSpec(tile.task, markers[tile.task].pop())


def _return_marker(markers: dict[str, list[int]], task: TaskSpec) -> None:
    markers[task.type].append(task.value)


def _player_of(players: int, number: int) -> int:
    return (number - 1) % players


class CoopState:
    """A cooperative game in progress: one seat whose turns rotate among the players."""

    mode: ClassVar[str] = "coop"
    #: Whether a decision was ever taken back (:meth:`undo`): its record is then a practice
    #: game's, which no campaign takes (rules note 29).
    taken_back = False

    def __init__(self, game: CoopGame) -> None:
        self.game = game
        tiles = game.tileset.tiles
        stacks = shuffle_stacks(game.tileset, game.seed)
        self._hidden = _Hidden(stacks.removed, stacks.markers)
        self._seat = Seat(
            tiles,
            stacks.tasks,
            stacks.landscapes,
            # Plain functions of the marker piles, not bound methods: a seat that held its
            # state would make a reference cycle, and every finished game (with its board)
            # would wait for the cyclic garbage collector.
            task_of=partial(_draw_marker, stacks.markers),
            put_back=partial(_return_marker, stacks.markers),
            player_of=partial(_player_of, game.players),
        )
        self.area = self._seat.area
        self.turns = self._seat.turns
        self._unseen = Unseen(game.tileset)
        self._seat.reveal()

    # --- what everyone sees -------------------------------------------------------

    @property
    def players(self) -> int:
        return self.game.players

    @property
    def revealed(self) -> Revealed | None:
        """The tile waiting to be placed, or None once the game is over."""
        return self._seat.revealed

    def revealed_for(self, player: int) -> Revealed | None:
        """The tile on the table (the same for every player)."""
        return self._seat.revealed

    @property
    def is_over(self) -> bool:
        return self._seat.is_over

    @property
    def phase(self) -> str:
        return "over" if self._seat.is_over else "playing"

    @property
    def areas(self) -> tuple[PlayArea]:
        """The one area everyone plays on."""
        return (self.area,)

    def area_index(self, player: int) -> int:
        return 0

    @property
    def turn(self) -> int:
        """The number of the current turn, from 1 (set-aside tiles take a turn too)."""
        return len(self.turns)

    @property
    def player(self) -> int:
        """Index of the player who decides this turn."""
        return (len(self.turns) - 1) % self.game.players

    def to_move(self) -> tuple[int, ...]:
        """The player who decides this turn (none once the game is over)."""
        return () if self._seat.is_over else ((len(self.turns) - 1) % self.game.players,)

    def pending(self) -> tuple[int, ...]:
        """Nobody's placement is hidden: the table sees every placement at once."""
        return ()

    @property
    def decisions(self) -> list[Placement]:
        """Every placement made, in order: with the seed, the whole game."""
        return self._seat.decisions

    def made(self) -> list[tuple[int, Decision]]:
        return [(t.player, t.placement) for t in self.turns if t.placement is not None]

    def happened(self, index: int) -> tuple[Happened, ...]:
        """Placement ``index`` with the tasks it completed or failed, then the tiles revealed
        after it that fit nowhere (set aside)."""
        placed = [i for i, t in enumerate(self.turns) if t.placement is not None]
        start = placed[index]
        end = placed[index + 1] if index + 1 < len(placed) else len(self.turns)
        out: list[Happened] = []
        for turn in self.turns[start:end]:
            if turn.placement is None and not turn.set_aside:
                break  # the turn being played
            out += placed_or_set_aside(turn.number, turn.player, turn.revealed, turn.placement, turn.changes)
        return tuple(out)

    def landscapes_left(self) -> int:
        return self._seat.landscapes_left()

    def task_tiles_left(self) -> int:
        return self._seat.task_tiles_left()

    def view(self, player: int | None = None) -> PlayerView:
        """What the players may know (the same for everyone): the area (a copy), the revealed
        tile, counts and unseen tiles."""
        if player is not None and not 0 <= player < self.game.players:
            raise ValueError(f"there is no player {player + 1}")
        unseen, markers = self._unseen.read(self.turns)
        return PlayerView(
            self.area.copy(),
            self.revealed,
            self.turn,
            self.player,
            self.game.players,
            self.landscapes_left(),
            self.task_tiles_left(),
            unseen,
            markers,
        )

    def legal_placements(self) -> list[Placement]:
        """Every legal placement of the revealed tile, sorted; empty once the game is over."""
        return self._seat.legal_placements()

    def legal_decisions(self, player: int | None = None) -> list[Placement]:
        """The legal placements of ``player`` (default: whoever decides): none out of turn."""
        if player is not None and player != self.player:
            return []
        return self._seat.legal_placements()

    def legal_moves(self, player: int | None = None) -> list[tuple[int, int]]:
        """Legal placements as (cell, rotation) pairs: the fast form of :meth:`legal_placements`
        (of ``player``, default whoever decides: none out of turn).

        Computed once when the tile is revealed; each call returns a fresh list.
        """
        if player is not None and player != self.player:
            return []
        return self._seat.legal_moves()

    def why_illegal(self, decision: Decision, player: int | None = None) -> str | None:
        """Why ``player`` (default: whoever decides) may not make ``decision`` now, or None."""
        error = self._refusal(decision, player)
        return None if error is None else str(error)

    def _refusal(self, decision: Decision, player: int | None) -> ValueError | None:
        if self._seat.is_over:
            return GameOver("the game is over")
        if player is not None and player != self.player:
            if not 0 <= player < self.game.players:
                return OutOfTurn(f"there is no player {player + 1}")
            return OutOfTurn(f"it is player {self.player + 1}'s turn, not player {player + 1}'s")
        if isinstance(decision, Pick):
            return WrongKind("this game takes placements, not picks")
        reason = self._seat.why_illegal(decision)
        return None if reason is None else IllegalPlacement(reason)

    def scores(self) -> tuple[ScorePad]:
        return (score_coop(self.area),)

    def score(self) -> ScorePad:
        return score_coop(self.area)

    def returns(self) -> tuple[float, ...]:
        """The score so far, the same for every player (they play together)."""
        return (float(score_coop(self.area).total),) * self.game.players

    # --- changing the game ----------------------------------------------------------

    def apply(self, decision: Decision, player: int | None = None) -> None:
        """Place the revealed tile; raises IllegalDecision (not this player's turn, the game is
        over) or IllegalPlacement (it breaks a rule), the state unchanged."""
        error = self._refusal(decision, player)
        if error is not None:
            raise error
        assert isinstance(decision, Placement)
        self._seat.push_move(cell_of(*decision.at), decision.rot)

    def play(self, placement: Placement) -> None:
        """Place the revealed tile: :meth:`apply`."""
        self.apply(placement)

    def push_move(self, cell: int, rot: int, player: int | None = None) -> None:
        """Place the revealed tile at a move from :meth:`legal_moves`, unchecked (``player``, if
        given, is whoever decides: the cooperative game's turn is not a choice)."""
        self._seat.push_move(cell, rot)

    def undo(self) -> tuple[int, Placement]:
        """Take back the last placement (and the reveals after it); returns its player and placement."""
        turn, placement = self._seat.undo()
        self.taken_back = True
        return turn.player, placement
