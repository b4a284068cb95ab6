"""A seat: one play area fed from its own face-down stacks.

The cooperative game has one seat; in Head to Head each player has one.  A
seat reveals tiles by the reveal rule (rules notes 13 and 14: a task tile in
turns 1 to 3 and while fewer than 3 tasks are active, else a landscape tile;
over when a landscape tile is due and none is left), sets aside a tile that
fits nowhere (rule 10), places tiles and takes them back.

How a task tile gets its task is the game's business: the cooperative game
draws a marker, Head to Head reads the value printed on the tile.
"""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from itertools import compress
from typing import Protocol

from dorf.games.state import IllegalDecision as IllegalDecision  # re-exported: its first home
from dorf.games.state import Revealed as Revealed  # re-exported: its first home
from dorf.rules.area import (
    PlacedTile,
    Placement,
    PlayArea,
    placement_at,
    placements_of,
)
from dorf.rules.hexgrid import cell_of
from dorf.rules.tasks import Task, TaskSpec, TaskStatus
from dorf.rules.tiles import Tile, TileSet

#: Landscape tiles that go back to the box unseen at set-up (coop, Duel).
REMOVED_UNSEEN = 3
#: Tasks are revealed in the first turns whatever the area holds.
OPENING_TASK_TURNS = 3
#: A task tile is revealed while fewer tasks than this are active.
ACTIVE_TASKS = 3


#: The players waiting, by whether player 0 and player 1 are: ``to_move()`` in both two-player games.
WAITING: dict[tuple[bool, bool], tuple[int, ...]] = {
    (False, False): (),
    (True, False): (0,),
    (False, True): (1,),
    (True, True): (0, 1),
}


@dataclass
class Turn:
    """One turn of a seat: who, which tile, and what became of it.

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
class Stacks:
    """A shuffled set-up: the two face-down stacks (top = last), the removed tiles, the marker piles."""

    tasks: list[int]
    landscapes: list[int]
    removed: list[int]
    markers: dict[str, list[int]]
    doubles: list[tuple[str, str]]


def _kinds(tileset: TileSet) -> tuple[tuple[int, ...], tuple[int, ...]]:
    """The ids of the set's task tiles and of its landscape tiles, in order (kept per set)."""
    known = _KINDS.get(id(tileset))
    if known is None or known[0] is not tileset:
        if len(_KINDS) >= 16:
            _KINDS.clear()
        tiles = tileset.tiles
        tasks = tuple(i for i, t in enumerate(tiles) if t.is_task)
        landscapes = tuple(i for i, t in enumerate(tiles) if not t.is_task)
        known = _KINDS[id(tileset)] = (tileset, tasks, landscapes)
    return known[1], known[2]


_KINDS: dict[int, tuple[TileSet, tuple[int, ...], tuple[int, ...]]] = {}


def check_markers(tileset: TileSet) -> None:
    """Raise ValueError unless every task tile of the set has a marker to draw."""
    needed = Counter(t.task for t in tileset.tiles if t.task)
    for kind, count in sorted(needed.items()):
        have = len(tileset.doubles if kind == "double" else tileset.markers.get(kind, ()))
        if have < count:
            raise ValueError(
                f"tile set {tileset.name} has {count} {kind} task tiles but {have} {kind} markers"
            )


def shuffle_stacks(tileset: TileSet, seed: int) -> Stacks:
    """Shuffle task and landscape tiles apart, remove three landscapes unseen, shuffle the marker piles."""
    rng = random.Random(seed)
    task_ids, landscape_ids = _kinds(tileset)
    tasks = list(task_ids)
    landscapes = list(landscape_ids)
    rng.shuffle(tasks)
    rng.shuffle(landscapes)
    removed = [landscapes.pop() for _ in range(min(REMOVED_UNSEEN, len(landscapes)))]
    markers = {}
    for kind, values in sorted(tileset.markers.items()):
        pile = list(values)
        rng.shuffle(pile)
        markers[kind] = pile
    doubles = list(tileset.doubles)
    if doubles:
        rng.shuffle(doubles)
    return Stacks(tasks, landscapes, removed, markers, doubles)


def _tile_key(tile: Tile) -> tuple[str, str, str, str]:
    return (tile.kind, tile.face, tile.flag or "", tile.task or "")


#: Per tile set (by identity): the set and the order of its tiles' ids in :func:`unseen_tiles`.
_CANONICAL: dict[int, tuple[TileSet, tuple[int, ...]]] = {}


def _canonical(tileset: TileSet) -> tuple[int, ...]:
    """The ids of the set's tiles in the canonical order of :func:`unseen_tiles` (kept per set)."""
    known = _CANONICAL.get(id(tileset))
    if known is None or known[0] is not tileset:
        if len(_CANONICAL) >= 16:
            _CANONICAL.clear()
        tiles = tileset.tiles
        order = tuple(sorted(range(len(tiles)), key=lambda i: _tile_key(tiles[i])))
        known = _CANONICAL[id(tileset)] = (tileset, order)
    return known[1]


def unseen_tiles(tileset: TileSet, seen: Iterable[int]) -> tuple[Tile, ...]:
    """The tiles of the set not yet revealed, in a canonical order (never the stacks')."""
    gone = set(seen)
    tiles = tileset.tiles
    return tuple(tiles[i] for i in _canonical(tileset) if i not in gone)


def place_again(area: PlayArea, placed: Iterable[PlacedTile]) -> PlayArea:
    """Place these tiles (of another area) on ``area``, in order; returns ``area``."""
    for tile in placed:
        task = None if tile.task is None else tile.task.spec
        area.push(tile.face, cell_of(*tile.at), tile.rot, flag=tile.flag, task=task)
    return area


class Withheld:
    """Per player, their area as it was before its latest placement: what a view shows of an
    area whose latest placement the viewer may not see yet (rules note 30).

    It is the tiles placed before laid again, not a copy with the latest popped: undoing a
    placement puts the cell it took back at the end of the frontier, and the order of the
    legal moves would tell where the other player placed.  The area is kept, and grows by
    the tiles placed since while those before stay (the last of them is the same object in
    the live area: a placed tile is made anew by each placement); each view gets a copy.
    """

    def __init__(self) -> None:
        self._kept: dict[int, tuple[int, PlacedTile | None, PlayArea]] = {}

    def area(self, player: int, live: PlayArea) -> PlayArea:
        """A copy of ``live``, ``player``'s area, without its latest placement."""
        placed = live.placed
        count = len(placed) - 1
        kept = self._kept.get(player)
        if kept is not None and kept[0] <= count and (kept[0] == 0 or placed[kept[0] - 1] is kept[1]):
            area = place_again(kept[2], placed[kept[0] : count])
        else:
            area = place_again(PlayArea(), placed[:count])
        self._kept[player] = (count, placed[count - 1] if count > 0 else None, area)
        return area.copy()


def markers_unseen(tileset: TileSet, drawn: Iterable[TaskSpec]) -> dict[str, tuple[int, ...]]:
    """Per task type, the values of the markers not yet drawn."""
    taken: dict[str, list[int]] = {}
    for task in drawn:
        taken.setdefault(task.type, []).append(task.value)
    out = {}
    for kind, values in sorted(tileset.markers.items()):
        left = sorted(values)
        for value in taken.get(kind, ()):
            if value in left:
                left.remove(value)
        out[kind] = tuple(left)
    return out


class Revealing(Protocol):
    """A turn of any game: what it revealed (a seat's :class:`Turn`, a Duel's turn)."""

    @property
    def revealed(self) -> Revealed: ...


class Unseen:
    """What the turns of a seat have not revealed yet, for its views: :func:`unseen_tiles` of
    the tiles revealed and :func:`markers_unseen` of the tasks drawn, the same values, kept from
    one call to the next.  A call reads only the turns added since the last one (all of them
    again if any of those was taken back)."""

    def __init__(self, tileset: TileSet) -> None:
        self.tileset = tileset
        order = _canonical(tileset)
        self._in_order = tuple(tileset.tiles[i] for i in order)
        self._position = {tile_id: position for position, tile_id in enumerate(order)}
        self._start()

    def _start(self) -> None:
        self._present = bytearray(b"\x01") * len(self._in_order)
        self._left = {kind: sorted(values) for kind, values in sorted(self.tileset.markers.items())}
        self._count = 0
        self._last: Revealing | None = None
        self._tiles: tuple[Tile, ...] | None = None

    def read(self, turns: Sequence[Revealing]) -> tuple[tuple[Tile, ...], dict[str, tuple[int, ...]]]:
        """The tiles not revealed in ``turns`` (canonical order) and, per task type, the values
        of the markers not drawn in them (a new dict each call)."""
        count = self._count
        if count > len(turns) or (count and turns[count - 1] is not self._last):
            self._start()  # turns were taken back
            count = 0
        if count < len(turns):
            present, position, left = self._present, self._position, self._left
            for turn in turns[count:]:
                revealed = turn.revealed
                present[position[revealed.tile_id]] = 0
                task = revealed.task
                if task is not None and task.value in left.get(task.type, ()):
                    left[task.type].remove(task.value)
            self._count = len(turns)
            self._last = turns[-1]
            self._tiles = None
        if self._tiles is None:
            self._tiles = tuple(compress(self._in_order, self._present))
        return self._tiles, {kind: tuple(values) for kind, values in self._left.items()}


class Seat:
    """One play area, its two face-down stacks (top = last) and its turns."""

    def __init__(
        self,
        tiles: tuple[Tile, ...],
        tasks: list[int],
        landscapes: list[int],
        *,
        task_of: Callable[[Tile], TaskSpec],
        put_back: Callable[[TaskSpec], None],
        player_of: Callable[[int], int],
        area: PlayArea | None = None,
    ) -> None:
        self.tiles = tiles
        #: The play area (an empty one of its own unless given).
        self.area = PlayArea() if area is None else area
        self.turns: list[Turn] = []
        #: Tiles this seat has placed (its :attr:`decisions`, counted as they are made).
        self.placed = 0
        self._tasks = tasks
        self._landscapes = landscapes
        self._task_of = task_of
        self._put_back = put_back
        self._player_of = player_of
        self._moves: list[tuple[int, int]] = []

    @property
    def revealed(self) -> Revealed | None:
        """The tile waiting to be placed, or None once the seat's game is over."""
        turns = self.turns
        if turns and turns[-1].placement is None and not turns[-1].set_aside:
            return turns[-1].revealed
        return None

    @property
    def is_over(self) -> bool:
        """No tile waits: :attr:`revealed` is None."""
        turns = self.turns
        return not turns or turns[-1].placement is not None or turns[-1].set_aside

    @property
    def decisions(self) -> list[Placement]:
        return [t.placement for t in self.turns if t.placement is not None]

    def landscapes_left(self) -> int:
        return len(self._landscapes)

    def task_tiles_left(self) -> int:
        return len(self._tasks)

    def legal_placements(self) -> list[Placement]:
        return placements_of(self._moves)

    def legal_moves(self) -> list[tuple[int, int]]:
        return self._moves.copy()

    def why_illegal(self, placement: Placement) -> str | None:
        revealed = self.revealed
        if revealed is None:
            return "the game is over"
        return self.area.why_illegal(revealed.tile.face, placement, revealed.task)

    def push_move(self, cell: int, rot: int) -> None:
        """Place the revealed tile at a move from :meth:`legal_moves`, unchecked; reveal the next."""
        current = self.turns[-1]
        revealed = current.revealed
        tile = revealed.tile
        current.changes = self.area.push_changes(tile.face, cell, rot, flag=tile.flag, task=revealed.task)
        current.placement = placement_at(cell, rot)
        self.placed += 1
        self.reveal()

    def undo(self) -> tuple[Turn, Placement]:
        """Take back the last placement (and the reveals after it); returns its turn (waiting
        again) and the placement taken back."""
        turns = self.turns
        if not any(t.placement is not None for t in turns):
            raise IndexError("nothing to undo")
        while True:
            turn = turns[-1]
            placement = turn.placement
            if placement is not None:
                self.area.pop()
                turn.placement = None
                self.placed -= 1
                turn.changes = ()
                self._moves = self.area.legal_moves(turn.revealed.tile.face, turn.revealed.task)
                return turn, placement
            turns.pop()
            revealed = turn.revealed
            if revealed.tile.is_task:
                self._tasks.append(revealed.tile_id)
                if revealed.task is not None:
                    self._put_back(revealed.task)
            else:
                self._landscapes.append(revealed.tile_id)

    def reveal(self) -> None:
        """Reveal the next tile by the rules (13, 14); set aside tiles that fit nowhere (10)."""
        tiles = self.tiles
        area = self.area
        turns = self.turns
        tasks = self._tasks
        landscapes = self._landscapes
        while True:
            number = len(turns) + 1
            task: TaskSpec | None = None
            if tasks and (number <= OPENING_TASK_TURNS or area.active_count < ACTIVE_TASKS):
                index = tasks.pop()
                tile = tiles[index]
                task = self._task_of(tile)
            elif landscapes:
                index = landscapes.pop()
                tile = tiles[index]
            else:
                self._moves = []
                return
            # Revealed(index, tile, task) without the NamedTuple's __new__ in Python: the same tuple.
            turn = Turn(number, self._player_of(number), tuple.__new__(Revealed, (index, tile, task)))
            turns.append(turn)
            moves = self._moves = area.legal_moves(tile.face, task)
            if moves:
                return
            turn.set_aside = True
