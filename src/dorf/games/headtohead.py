"""Head to Head: the draft, then two play areas laid at the same time.

A :class:`HeadToHeadGame` is the description (tile set, seed);
:meth:`HeadToHeadGame.new_state` gives the mutable :class:`HeadToHeadState`.

- **The draft** (rules note 17): every tile but the Multicoloured Flag tiles
  lies open; player 1 and player 2 take one in turn until one remains, which
  goes to player 2 (29 and 30 tiles with the full box).  Each player also has
  a flag tile with a mountain half and one with a lake half.
- **Laying** (rules note 18): each player's task and landscape tiles (flags
  included) are shuffled, from the seed, into two face-down stacks; each
  player then reveals and places on their own area by the reveal rule of the
  cooperative game, applied to that area alone.  Players lay at the same
  time: each places one tile a round, in either order; a player whose game
  has ended (a landscape tile due and none left) waits while the other plays
  on.  A placement stays unseen by the other player until they have placed
  their tile of the round too (:meth:`HeadToHeadState.pending`).
- **The end**: when both players' games are over.  The winner has the higher
  total; ties go to more mountains and lakes, then the longer river, more
  flag points, more task points, else the victory is shared (rule 21).

Players are numbered 0 and 1 in the code, "player 1" and "player 2" on screen.

>>> state = HeadToHeadGame(seed=1).new_state()
>>> state.phase, state.player, len(state.pool)
('draft', 0, 59)
>>> state.pick(state.pool[0])
>>> state.player
1
"""

from __future__ import annotations

import random
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import ClassVar

from dorf.games.seat import WAITING, Seat, Withheld
from dorf.games.state import (
    PICKED,
    Decision,
    GameOver,
    Happened,
    OutOfTurn,
    Revealed,
    WrongKind,
    placed_or_set_aside,
    two_player_returns,
)
from dorf.games.state import IllegalDecision as IllegalDecision  # re-exported: its first home
from dorf.games.state import Pick as Pick  # re-exported: its first home
from dorf.rules.area import IllegalPlacement, Placement, PlayArea, placement_at
from dorf.rules.hexgrid import cell_of
from dorf.rules.scoring import HeadToHeadScorePad, score_head_to_head
from dorf.rules.tasks import TaskSpec
from dorf.rules.tiles import Tile, TileSet, load_tileset

DRAFT = "draft"
LAYING = "laying"
OVER = "over"
PLAYERS = 2


def _printed_task(tile: Tile) -> TaskSpec:
    assert tile.task is not None and tile.value is not None  # HeadToHeadGame checked
    return TaskSpec(tile.task, tile.value)


def _always(player: int) -> Callable[[int], int]:
    """Every turn of a seat belongs to its one player."""
    return lambda _number: player


def _no_marker(task: TaskSpec) -> None:
    """Head to Head tasks are printed: nothing goes back to a pile on undo."""


@dataclass(frozen=True)
class HeadToHeadGame:
    """A Head to Head game's description: ``HeadToHeadGame(seed=1)``."""

    seed: int = 0
    tileset: TileSet = field(default_factory=lambda: load_tileset("head-to-head"))

    def __post_init__(self) -> None:
        name = self.tileset.name
        for tile in self.tileset.task_tiles:
            if tile.value is None:
                raise ValueError(f"tile set {name}: task tile {tile.face} has no printed value")
        flags = self.flag_tiles()
        if any(len(pair) != PLAYERS for pair in flags):
            raise ValueError(
                f"tile set {name} needs two Multicoloured Flag tiles with a mountain half "
                "and two with a lake half"
            )

    def flag_tiles(self) -> tuple[tuple[int, ...], tuple[int, ...]]:
        """Ids of the Multicoloured Flag tiles: those with a mountain half, those with a lake half."""
        tiles = self.tileset.tiles
        flags = [i for i, t in enumerate(tiles) if t.flag == "X" and not t.is_task]
        mountain = tuple(i for i in flags if "P" in tiles[i].face)
        lake = tuple(i for i in flags if "P" not in tiles[i].face and "L" in tiles[i].face)
        return mountain, lake

    def new_state(self) -> HeadToHeadState:
        return HeadToHeadState(self)


@dataclass(frozen=True)
class HeadToHeadView:
    """What ``player`` may know: everything on the table, nothing of the stacks' order.

    Plain data, a snapshot of the moment it was made: :attr:`areas` are copies that share
    nothing that changes with the game, and nothing in a view leads back to the state, its
    seed or its stacks.  While the other player has placed their tile of the round and this
    one has not, the other's tile, stacks, unseen tiles and area are as they were before
    that placement.
    """

    mode: ClassVar[str] = "head-to-head"
    player: int
    phase: str
    to_move: tuple[int, ...]
    pool: tuple[int, ...]
    owned: tuple[tuple[int, ...], tuple[int, ...]]
    #: Both areas as this player may see them (copies: a player may push and pop on them).
    areas: tuple[PlayArea, PlayArea]
    revealed: tuple[Revealed | None, Revealed | None]
    stacks_left: tuple[tuple[int, int], tuple[int, int]]
    unseen: tuple[tuple[Tile, ...], tuple[Tile, ...]]
    tiles: tuple[Tile, ...]

    @property
    def area(self) -> PlayArea:
        """This player's own area (a copy)."""
        return self.areas[self.player]

    def legal_placements(self) -> list[Placement]:
        revealed = self.revealed[self.player]
        if self.phase != LAYING or revealed is None or self.player not in self.to_move:
            return []
        return self.area.legal_placements(revealed.tile.face, revealed.task)

    def legal_picks(self) -> list[Pick]:
        if self.phase != DRAFT or self.player not in self.to_move:
            return []
        return [Pick(i) for i in self.pool]

    def legal_decisions(self) -> list[Pick | Placement]:
        """What this player may do now: a pick in the draft, a placement in laying."""
        if self.phase == DRAFT:
            return list(self.legal_picks())
        return list(self.legal_placements())

    @property
    def to_place(self) -> Revealed | None:
        """The tile this player places now (None in the draft, once placed this round, or over)."""
        if self.phase != LAYING or self.player not in self.to_move:
            return None
        return self.revealed[self.player]


def _tile_order(tile: Tile) -> tuple[str, str, str, int]:
    return tile.kind, tile.face, tile.task or "", tile.value or 0


class HeadToHeadState:
    """A Head to Head game in progress."""

    mode: ClassVar[str] = "head-to-head"
    players = PLAYERS
    #: Whether a decision was ever taken back (:meth:`undo`): its record is then a practice
    #: game's, which no campaign takes (rules note 29).
    taken_back = False

    def __init__(self, game: HeadToHeadGame) -> None:
        self.game = game
        tiles = game.tileset.tiles
        mountain, lake = game.flag_tiles()
        self.flags: tuple[tuple[int, ...], tuple[int, ...]] = (
            (mountain[0], lake[0]),
            (mountain[1], lake[1]),
        )
        flagged = {*mountain, *lake}
        #: The open tiles of the draft, by id.
        self.pool: list[int] = [i for i in range(len(tiles)) if i not in flagged]
        #: The tiles each player took in the draft, in order.
        self.owned: tuple[list[int], list[int]] = ([], [])
        #: Every decision so far: (player, Pick or Placement), in order.
        self.history: list[tuple[int, Pick | Placement]] = []
        self.seats: tuple[Seat, Seat] | None = None
        #: The players' areas: empty in the draft, each its seat's once dealt.
        self._areas = (PlayArea(), PlayArea())
        self._withheld = Withheld()
        if len(self.pool) <= 1:  # nothing to choose: the draft is over at once
            self.owned[1].extend(self.pool)
            self.pool.clear()
            self._deal()

    # --- what everyone sees -------------------------------------------------------

    @property
    def phase(self) -> str:
        if self.seats is None:
            return DRAFT
        return OVER if all(seat.is_over for seat in self.seats) else LAYING

    @property
    def is_over(self) -> bool:
        return self.phase == OVER

    def to_move(self) -> tuple[int, ...]:
        """The players who may decide now: the picker in the draft; in laying, each
        player whose game goes on and who has not yet placed this round."""
        if self.seats is None:
            return (len(self.history) % PLAYERS,)
        first, second = self.seats
        over0, over1 = first.is_over, second.is_over
        count0, count1 = len(first.area.placed), len(second.area.placed)  # decisions so far
        return WAITING[not over0 and (over1 or count0 <= count1), not over1 and (over0 or count1 <= count0)]

    def _laying(self, player: int) -> Seat | None:
        """``player``'s seat when they may place now (``player in to_move()`` in laying), else
        None: the check of the hot path, without building :meth:`to_move`'s answer."""
        seats = self.seats
        if seats is None or player not in (0, 1):
            return None
        seat, other = seats[player], seats[1 - player]
        if seat.is_over or (not other.is_over and len(seat.area.placed) > len(other.area.placed)):
            return None
        return seat

    @property
    def player(self) -> int:
        """The player to decide next when decisions are taken one at a time (-1 when over)."""
        waiting = self.to_move()
        return waiting[0] if waiting else -1

    def pending(self) -> tuple[int, ...]:
        """The player (if any) who has placed their tile of the round while the other still has
        to place theirs: that placement stays unseen by the other until then."""
        if self.seats is None:
            return ()
        counts = [seat.placed for seat in self.seats]
        return tuple(p for p in (0, 1) if counts[p] > counts[1 - p] and not self.seats[1 - p].is_over)

    def _last_placed(self, player: int) -> int:
        """The index in ``player``'s turns of their latest placement."""
        assert self.seats is not None
        turns = self.seats[player].turns
        return max(i for i, turn in enumerate(turns) if turn.placement is not None)

    def area_before_round(self, player: int) -> PlayArea:
        """A copy of ``player``'s area as it was before their latest placement."""
        assert self.seats is not None
        return self._withheld.area(player, self.seats[player].area)

    def area(self, player: int) -> PlayArea:
        """A player's play area (empty during the draft)."""
        return self._areas[player]

    @property
    def areas(self) -> tuple[PlayArea, PlayArea]:
        """Both players' areas (empty during the draft)."""
        return self._areas

    def area_index(self, player: int) -> int:
        return player

    def revealed(self, player: int) -> Revealed | None:
        return self.seats[player].revealed if self.seats is not None else None

    def revealed_for(self, player: int) -> Revealed | None:
        """:meth:`revealed`: the tile ``player`` lays next."""
        return self.seats[player].revealed if self.seats is not None else None

    def legal_picks(self) -> list[Pick]:
        return [Pick(i) for i in self.pool] if self.seats is None else []

    def legal_placements(self, player: int | None = None) -> list[Placement]:
        """Every legal placement of ``player``'s revealed tile (default: :attr:`player`), sorted."""
        seat = self._laying(self.player if player is None else player)
        return [] if seat is None else seat.legal_placements()

    def legal_decisions(self, player: int | None = None) -> list[Decision]:
        """``player``'s picks in the draft, placements in laying (default: :attr:`player`)."""
        p = self.player if player is None else player
        if self.seats is None:
            return list(self.legal_picks()) if p in self.to_move() else []
        return list(self.legal_placements(p))

    def legal_moves(self, player: int | None = None) -> list[tuple[int, int]]:
        """The fast (cell, rotation) form of :meth:`legal_placements`."""
        seat = self._laying(self.player if player is None else player)
        return [] if seat is None else seat.legal_moves()

    def why_illegal(self, decision: Decision, player: int | None = None) -> str | None:
        """Why ``player`` may not make ``decision`` now, or None."""
        error = self._refusal(decision, self.player if player is None else player)
        return None if error is None else str(error)

    def _refusal(self, decision: Decision, p: int) -> ValueError | None:
        if self.is_over:
            return GameOver("the game is over")
        if p not in (0, 1):
            return OutOfTurn(f"there is no player {p + 1}")
        if p not in self.to_move():
            if self.seats is None:
                return OutOfTurn(f"it is player {self.player + 1}'s pick")
            if self.seats[p].is_over:
                return OutOfTurn(f"player {p + 1}'s game is over")
            return OutOfTurn(f"player {p + 1} has placed this round; waiting for player {2 - p}")
        if isinstance(decision, Pick):
            if self.seats is not None:
                return WrongKind("the draft is over")
            if decision.tile_id not in self.pool:
                return IllegalDecision(f"tile {decision.tile_id} is not in the open pool")
            return None
        if self.seats is None:
            return WrongKind("the draft is still on: pick a tile")
        reason = self.seats[p].why_illegal(decision)
        return None if reason is None else IllegalPlacement(reason)

    def scores(self) -> tuple[HeadToHeadScorePad, HeadToHeadScorePad]:
        """Both score pads, as at the end of the game."""
        return score_head_to_head(self.area(0)), score_head_to_head(self.area(1))

    def winner(self) -> int | None:
        """The winning player (0 or 1) by total and tie-breakers; None for a shared victory."""
        a, b = (pad.tie_breakers() for pad in self.scores())
        if a == b:
            return None
        return 0 if a > b else 1

    def returns(self) -> tuple[float, float]:
        """1 for the winner and -1 for the loser once the game is over; else 0 for both."""
        over = self.is_over
        return two_player_returns(self.winner() if over else None, over)

    def made(self) -> list[tuple[int, Decision]]:
        return list(self.history)

    def happened(self, index: int) -> tuple[Happened, ...]:
        """Decision ``index``: a pick, or a placement with the tasks it completed or failed, and
        before it the player's tiles set aside (they fit nowhere) since their last placement."""
        number = index + 1
        player, decision = self.history[index]
        if isinstance(decision, Pick):
            tile = self.game.tileset.tiles[decision.tile_id]
            return (Happened(number, player, PICKED, tile),)
        assert self.seats is not None
        nth = sum(1 for p, d in self.history[:index] if p == player and isinstance(d, Placement))
        out: list[Happened] = []
        placed = 0
        for turn in self.seats[player].turns:
            if turn.placement is not None:
                if placed == nth:
                    out += placed_or_set_aside(number, player, turn.revealed, turn.placement, turn.changes)
                    break
                placed += 1
                out.clear()
            elif turn.set_aside:
                out += placed_or_set_aside(number, player, turn.revealed, None)
        return tuple(out)

    def unseen(self, player: int) -> tuple[Tile, ...]:
        """The tiles still face down in ``player``'s stacks, in a canonical order (not the stack's)."""
        tiles = self.game.tileset.tiles
        if self.seats is None:
            ids = [*self.owned[player], *self.flags[player]]
        else:
            seen = {t.revealed.tile_id for t in self.seats[player].turns}
            ids = [i for i in (*self.owned[player], *self.flags[player]) if i not in seen]
        return tuple(sorted((tiles[i] for i in ids), key=_tile_order))

    def stacks_left(self, player: int) -> tuple[tuple[int, int], tuple[int, int]]:
        """Task and landscape tiles left in each player's stacks as ``player`` may know them (the
        other's tiles revealed since a placement ``player`` may not see yet count as face down):
        the ``stacks_left`` of :meth:`view`, without the rest of the view."""
        seats = self.seats
        if seats is None:
            return self._draft_counts(0), self._draft_counts(1)
        left = [(s.task_tiles_left(), s.landscapes_left()) for s in seats]
        other = 1 - player
        if other in self.pending():
            since = self._revealed_since_placed(other)
            tasks = sum(1 for tile in since if tile.is_task)
            left[other] = (left[other][0] + tasks, left[other][1] + len(since) - tasks)
        return left[0], left[1]

    def _revealed_since_placed(self, player: int) -> list[Tile]:
        """The tiles ``player`` revealed after their last placement (still face down to the other)."""
        assert self.seats is not None
        turns = self.seats[player].turns
        return [t.revealed.tile for t in turns[self._last_placed(player) + 1 :]]

    def view(self, player: int | None = None) -> HeadToHeadView:
        """What ``player`` (default: :attr:`player`, else player 1) may know."""
        if player is None:
            player = max(self.player, 0)
        if player not in (0, 1):
            raise ValueError(f"there is no player {player + 1}")
        seats = self.seats
        left = list(self.stacks_left(player))
        revealed = [self.revealed(0), self.revealed(1)]
        unseen = [self.unseen(0), self.unseen(1)]
        other = 1 - player
        pending = other in self.pending()
        areas = [PlayArea(), PlayArea()]
        if seats is not None:
            areas[player] = seats[player].area.copy()
            areas[other] = self.area_before_round(other) if pending else seats[other].area.copy()
        if pending:
            assert seats is not None
            turns = seats[other].turns
            last = self._last_placed(other)
            revealed[other] = turns[last].revealed  # the tile they were placing
            since = self._revealed_since_placed(other)
            unseen[other] = tuple(sorted((*unseen[other], *since), key=_tile_order))
        return HeadToHeadView(
            player,
            self.phase,
            self.to_move(),
            tuple(self.pool),
            (tuple(self.owned[0]), tuple(self.owned[1])),
            (areas[0], areas[1]),
            (revealed[0], revealed[1]),
            (left[0], left[1]),
            (unseen[0], unseen[1]),
            self.game.tileset.tiles,
        )

    def _draft_counts(self, player: int) -> tuple[int, int]:
        tiles = self.game.tileset.tiles
        tasks = sum(1 for i in self.owned[player] if tiles[i].is_task)
        return tasks, len(self.owned[player]) - tasks + len(self.flags[player])

    # --- changing the game ----------------------------------------------------------

    def pick(self, tile_id: int, player: int | None = None) -> None:
        """Take an open tile in the draft; raises :class:`IllegalDecision` (nothing changed)."""
        self.apply(Pick(tile_id), player)

    def play(self, placement: Placement, player: int | None = None) -> None:
        """Place ``player``'s revealed tile; raises :class:`IllegalPlacement` (nothing changed)."""
        self.apply(placement, player)

    def apply(self, decision: Decision, player: int | None = None) -> None:
        """Make a decision after checking it once; raises IllegalDecision / IllegalPlacement
        (nothing changed)."""
        p = self.player if player is None else player
        error = self._refusal(decision, p)
        if error is not None:
            raise error
        if isinstance(decision, Pick):
            self._take(p, decision.tile_id)
        else:
            self.push_move(cell_of(*decision.at), decision.rot, p)

    def push_move(self, cell: int, rot: int, player: int | None = None) -> None:
        """Place at a move from :meth:`legal_moves`, unchecked: the hot path for search."""
        p = self.player if player is None else player
        assert self.seats is not None
        self.seats[p].push_move(cell, rot)
        self.history.append((p, placement_at(cell, rot)))

    def _take(self, player: int, tile_id: int) -> None:
        self.pool.remove(tile_id)
        self.owned[player].append(tile_id)
        self.history.append((player, Pick(tile_id)))
        if len(self.pool) == 1:
            self.owned[1].append(self.pool.pop())  # the last tile goes to the second player
            self._deal()

    def _deal(self) -> None:
        """Shuffle each player's tiles into a task stack and a landscape stack; reveal."""
        tiles = self.game.tileset.tiles
        rng = random.Random(self.game.seed)
        seats = []
        for p in (0, 1):
            mine = sorted([*self.owned[p], *self.flags[p]])
            tasks = [i for i in mine if tiles[i].is_task]
            landscapes = [i for i in mine if not tiles[i].is_task]
            rng.shuffle(tasks)
            rng.shuffle(landscapes)
            seats.append(
                Seat(
                    tiles,
                    tasks,
                    landscapes,
                    task_of=_printed_task,
                    put_back=_no_marker,
                    player_of=_always(p),
                    area=self._areas[p],
                )
            )
        self.seats = (seats[0], seats[1])
        for seat in self.seats:
            seat.reveal()

    def undo(self) -> tuple[int, Decision]:
        """Take back the last decision (a placement, or a pick); returns it with its player."""
        if not self.history:
            raise IndexError("nothing to undo")
        self.taken_back = True
        player, decision = self.history.pop()
        if isinstance(decision, Placement):
            assert self.seats is not None
            self.seats[player].undo()
            return player, decision
        if self.seats is not None:  # the pick that ended the draft
            self.seats = None
            self.pool.append(self.owned[1].pop())
        self.owned[player].pop()
        self.pool.append(decision.tile_id)
        self.pool.sort()
        return player, decision
