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

import random
from collections import Counter
from dataclasses import dataclass, field
from typing import NamedTuple

from dorf.area import IllegalPlacement, Placement, PlayArea, placements_of
from dorf.hexgrid import cell_of
from dorf.scoring import ScorePad, score_coop
from dorf.tasks import Task, TaskSpec, TaskStatus
from dorf.tiles import Tile, TileSet, load_tileset

REMOVED_UNSEEN = 3
MAX_PLAYERS = 6


class Revealed(NamedTuple):
    """The tile on the table this turn: which tile of the set, and its task."""

    tile_id: int
    tile: Tile
    task: TaskSpec | None


@dataclass
class Turn:
    """One turn of the game: who, which tile, and what became of it.

    ``placement`` is None while the tile waits, and for a tile set aside
    (``set_aside``) because it fit nowhere.
    """

    number: int
    player: int
    revealed: Revealed
    placement: Placement | None = None
    set_aside: bool = False
    changes: tuple[tuple[Task, TaskStatus], ...] = ()


@dataclass
class _Hidden:
    """What no player may see: stack order, removed tiles, marker piles."""

    landscapes: list[int]
    tasks: list[int]
    removed: list[int]
    markers: dict[str, list[int]]


@dataclass(frozen=True)
class PlayerView:
    """Everything a player may know; nothing about stack order or removed tiles."""

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


@dataclass(frozen=True)
class CoopGame:
    """A cooperative game's description: ``CoopGame(seed=1, players=2)``."""

    seed: int = 0
    players: int = 1
    tileset: TileSet = field(default_factory=load_tileset)

    def __post_init__(self) -> None:
        if not 1 <= self.players <= MAX_PLAYERS:
            raise ValueError(f"the cooperative game is for 1 to {MAX_PLAYERS} players, not {self.players}")
        needed = Counter(t.task for t in self.tileset.tiles if t.task)
        for kind, count in sorted(needed.items()):
            have = len(self.tileset.markers.get(kind, ()))
            if have < count:
                raise ValueError(
                    f"tile set {self.tileset.name} has {count} {kind} task tiles but {have} {kind} markers"
                )

    def new_state(self) -> CoopState:
        return CoopState(self)


class CoopState:
    """A cooperative game in progress."""

    def __init__(self, game: CoopGame) -> None:
        self.game = game
        self.area = PlayArea()
        self.turns: list[Turn] = []
        tiles = game.tileset.tiles
        rng = random.Random(game.seed)
        tasks = [i for i, t in enumerate(tiles) if t.is_task]
        landscapes = [i for i, t in enumerate(tiles) if not t.is_task]
        rng.shuffle(tasks)
        rng.shuffle(landscapes)
        removed = [landscapes.pop() for _ in range(min(REMOVED_UNSEEN, len(landscapes)))]
        markers = {}
        for kind, values in sorted(game.tileset.markers.items()):
            pile = list(values)
            rng.shuffle(pile)
            markers[kind] = pile
        self._hidden = _Hidden(landscapes, tasks, removed, markers)
        self._moves: list[tuple[int, int]] = []
        self._reveal()

    # --- what everyone sees -------------------------------------------------------

    @property
    def revealed(self) -> Revealed | None:
        """The tile waiting to be placed, or None once the game is over."""
        if self.turns and self.turns[-1].placement is None and not self.turns[-1].set_aside:
            return self.turns[-1].revealed
        return None

    @property
    def is_over(self) -> bool:
        return self.revealed is None

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
        return [t.placement for t in self.turns if t.placement is not None]

    def landscapes_left(self) -> int:
        return len(self._hidden.landscapes)

    def task_tiles_left(self) -> int:
        return len(self._hidden.tasks)

    def view(self) -> PlayerView:
        """What the players may know: the area, the revealed tile, counts and unseen tiles."""
        seen = {t.revealed.tile_id for t in self.turns}
        tiles = self.game.tileset.tiles
        unseen = tuple(
            sorted(
                (tile for i, tile in enumerate(tiles) if i not in seen),
                key=lambda t: (t.kind, t.face, t.flag or "", t.task or ""),
            )
        )
        drawn = [t.revealed.task for t in self.turns if t.revealed.task is not None]
        markers = {}
        for kind, values in sorted(self.game.tileset.markers.items()):
            left = Counter(values)
            left.subtract(task.value for task in drawn if task.type == kind)
            markers[kind] = tuple(sorted(left.elements()))
        return PlayerView(
            self.area,
            self.revealed,
            self.turn,
            self.player,
            self.game.players,
            len(self._hidden.landscapes),
            len(self._hidden.tasks),
            unseen,
            markers,
        )

    def legal_placements(self) -> list[Placement]:
        """Every legal placement of the revealed tile, sorted; empty once the game is over."""
        return placements_of(self._moves)

    def legal_moves(self) -> list[tuple[int, int]]:
        """Legal placements as (cell, rotation) pairs: the fast form of :meth:`legal_placements`.

        Computed once when the tile is revealed; each call returns a fresh list.
        """
        return self._moves.copy()

    def why_illegal(self, placement: Placement) -> str | None:
        revealed = self.revealed
        if revealed is None:
            return "the game is over"
        return self.area.why_illegal(revealed.tile.face, placement, revealed.task)

    def score(self) -> ScorePad:
        return score_coop(self.area)

    # --- changing the game ----------------------------------------------------------

    def play(self, placement: Placement) -> None:
        """Place the revealed tile; raises IllegalPlacement (state unchanged) if it breaks a rule."""
        reason = self.why_illegal(placement)
        if reason is not None:
            raise IllegalPlacement(reason)
        self.push_move(cell_of(*placement.at), placement.rot)

    def push_move(self, cell: int, rot: int) -> None:
        """Place the revealed tile at a move from :meth:`legal_moves`, unchecked."""
        current = self.turns[-1]
        revealed = current.revealed
        area = self.area
        area.push(revealed.tile.face, cell, rot, flag=revealed.tile.flag, task=revealed.task)
        current.placement = Placement(area.placed[-1].at, rot)
        current.changes = area.last_changes()
        self._reveal()

    def undo(self) -> Turn:
        """Take back the last placement (and the reveals after it); returns its turn."""
        turns = self.turns
        if not any(t.placement is not None for t in turns):
            raise IndexError("nothing to undo")
        hidden = self._hidden
        while True:
            turn = turns[-1]
            if turn.placement is not None:
                self.area.pop()
                turn.placement = None
                turn.changes = ()
                face, task = turn.revealed.tile.face, turn.revealed.task
                self._moves = self.area.legal_moves(face, task)
                return turn
            turns.pop()
            revealed = turn.revealed
            if revealed.tile.is_task:
                hidden.tasks.append(revealed.tile_id)
                if revealed.task is not None:
                    hidden.markers[revealed.task.type].append(revealed.task.value)
            else:
                hidden.landscapes.append(revealed.tile_id)

    def _reveal(self) -> None:
        """Reveal the next tile by the rules (13, 14); set aside tiles that fit nowhere (10)."""
        hidden = self._hidden
        tiles = self.game.tileset.tiles
        area = self.area
        while True:
            number = len(self.turns) + 1
            if hidden.tasks and (number <= 3 or area.active_count < 3):
                index = hidden.tasks.pop()
                tile = tiles[index]
                assert tile.task is not None  # CoopGame checked there is a marker for each
                task: TaskSpec | None = TaskSpec(tile.task, hidden.markers[tile.task].pop())
            elif hidden.landscapes:
                index = hidden.landscapes.pop()
                tile = tiles[index]
                task = None
            else:
                self._moves = []
                return
            turn = Turn(number, (number - 1) % self.game.players, Revealed(index, tile, task))
            self.turns.append(turn)
            self._moves = area.legal_moves(tile.face, task)
            if self._moves:
                return
            turn.set_aside = True
