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

from dorf.games.seat import (
    Revealed,
    Seat,
    Turn,
    Unseen,
    check_markers,
    shuffle_stacks,
)
from dorf.rules.area import Placement, PlayArea
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
    def revealed(self) -> Revealed | None:
        """The tile waiting to be placed, or None once the game is over."""
        return self._seat.revealed

    @property
    def is_over(self) -> bool:
        return self._seat.is_over

    @property
    def turn(self) -> int:
        """The number of the current turn, from 1 (set-aside tiles take a turn too)."""
        return len(self.turns)

    @property
    def player(self) -> int:
        """Index of the player who decides this turn."""
        return (len(self.turns) - 1) % self.game.players

    @property
    def decisions(self) -> list[Placement]:
        """Every placement made, in order: with the seed, the whole game."""
        return self._seat.decisions

    def landscapes_left(self) -> int:
        return self._seat.landscapes_left()

    def task_tiles_left(self) -> int:
        return self._seat.task_tiles_left()

    def view(self) -> PlayerView:
        """What the players may know: the area (a copy), the revealed tile, counts and unseen tiles."""
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

    def legal_moves(self) -> list[tuple[int, int]]:
        """Legal placements as (cell, rotation) pairs: the fast form of :meth:`legal_placements`.

        Computed once when the tile is revealed; each call returns a fresh list.
        """
        return self._seat.legal_moves()

    def why_illegal(self, placement: Placement) -> str | None:
        return self._seat.why_illegal(placement)

    def score(self) -> ScorePad:
        return score_coop(self.area)

    # --- changing the game ----------------------------------------------------------

    def play(self, placement: Placement) -> None:
        """Place the revealed tile; raises IllegalPlacement (state unchanged) if it breaks a rule."""
        self._seat.play(placement)

    def push_move(self, cell: int, rot: int) -> None:
        """Place the revealed tile at a move from :meth:`legal_moves`, unchecked."""
        self._seat.push_move(cell, rot)

    def undo(self) -> Turn:
        """Take back the last placement (and the reveals after it); returns its turn."""
        turn = self._seat.undo()
        self.taken_back = True
        return turn
