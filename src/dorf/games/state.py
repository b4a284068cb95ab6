"""One interface for the states of the three games, as OpenSpiel has one ``State`` for every game.

Every game's state (:class:`~dorf.games.coop.CoopState`,
:class:`~dorf.games.duel.DuelState`, :class:`~dorf.games.headtohead.HeadToHeadState`)
answers the same questions with the same signatures, so that whatever drives a
game (the server, the terminal, the computer players, the bot protocol, the RL
adapters) asks them without asking which game it is:

- :meth:`~GameState.to_move`: the players who may decide now (both at once where
  the rules have them place at the same time);
- :meth:`~GameState.legal_decisions`: a player's legal decisions, from the one
  enumerator of each game;
- :meth:`~GameState.why_illegal` and :meth:`~GameState.apply`: a decision
  checked once, and made (or refused with :class:`IllegalDecision` or
  :class:`~dorf.rules.area.IllegalPlacement`, nothing changed);
- :meth:`~GameState.undo`, :meth:`~GameState.made` and :meth:`~GameState.happened`:
  what was decided, in order, and what the table saw happen then;
- :meth:`~GameState.view`: what one player may know (plain data);
- :attr:`~GameState.is_over`, :meth:`~GameState.returns`, :meth:`~GameState.scores`.

Players are numbered from 0 in the order they play (``player 1`` on screen is
player 0).  A decision is a :class:`~dorf.rules.area.Placement`, or a :class:`Pick`
in the Head to Head draft.

>>> from dorf.games.coop import CoopGame
>>> from dorf.games.duel import DuelGame
>>> from dorf.games.headtohead import HeadToHeadGame
>>> for game in (CoopGame(seed=1, players=2), DuelGame(seed=1), HeadToHeadGame(seed=1)):
...     state = game.new_state()
...     player = state.to_move()[0]
...     state.apply(state.legal_decisions(player)[0], player)
...     print(state.mode, state.players, state.made()[0][0], state.to_move(), state.returns())
coop 2 0 (1,) (0.0, 0.0)
duel 2 0 (1,) (0.0, 0.0)
head-to-head 2 0 (1,) (0.0, 0.0)
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import ClassVar, NamedTuple, Protocol

from dorf.rules.area import Placement, PlayArea
from dorf.rules.hexgrid import Hex, hex_of
from dorf.rules.scoring import DuelScorePad, HeadToHeadScorePad, ScorePad
from dorf.rules.tasks import Task, TaskSpec, TaskStatus
from dorf.rules.tiles import Tile, TileSet


class Pick(NamedTuple):
    """A draft decision: take the open tile ``tile_id`` (its index in the tile set)."""

    tile_id: int

    def __str__(self) -> str:
        return f"pick {self.tile_id}"


#: What a player decides: where to place a tile, or which tile to take in the draft.
Decision = Placement | Pick
#: A score pad of any game.
Pad = ScorePad | DuelScorePad | HeadToHeadScorePad


class IllegalDecision(ValueError):
    """A decision that is not allowed now (out of turn, not in the pool, game over); the message says why."""


class OutOfTurn(IllegalDecision):
    """A player who may not decide now: another's turn, or this player has decided this round."""


class GameOver(IllegalDecision):
    """A decision after the end: a finished game never changes."""


class WrongKind(IllegalDecision):
    """A pick where a placement is due, or the other way round."""


#: What :class:`Happened` says happened.
PLACED, SET_ASIDE, PICKED, COMPLETED, FAILED = "place", "aside", "pick", "completed", "failed"


class Happened(NamedTuple):
    """One thing the table saw happen: a tile placed or set aside (it fit nowhere), a tile
    taken in the draft, a task completed or failed.

    ``number`` is the turn as the game counts it (Head to Head: the decision's number); ``tile``
    is the tile placed, set aside or taken (for a task completed or failed: the tile whose
    placement did it); ``task`` the task on the tile placed or set aside, or the task completed
    or failed; ``at`` where the tile was placed, or where the completed or failed task lies."""

    number: int
    player: int
    kind: str
    tile: Tile
    task: TaskSpec | None = None
    at: Hex | None = None


class GameView(Protocol):
    """What one player may know, as plain data: every game's view has these (and more of its
    own: the tiles not yet seen, the draft's pool, ...)."""

    #: The game's name (``coop``, ``duel``, ``head-to-head``).
    mode: ClassVar[str]

    @property
    def player(self) -> int:
        """Whose view it is (the cooperative game's: whoever decides now)."""
        ...

    @property
    def phase(self) -> str:
        """``playing`` (Head to Head: ``draft``, then ``laying``), then ``over``."""
        ...

    @property
    def to_move(self) -> tuple[int, ...]:
        """The players who may decide now."""
        ...

    @property
    def areas(self) -> tuple[PlayArea, ...]:
        """The areas as this player may see them (copies: a player may push and pop on them)."""
        ...

    @property
    def area(self) -> PlayArea:
        """This player's own area (the cooperative game's one area)."""
        ...

    @property
    def to_place(self) -> Revealed | None:
        """The tile this player places now (None in a draft, once placed this round, or over)."""
        ...

    def legal_decisions(self) -> Sequence[Decision]:
        """What this player may decide now: placements, or picks in a draft."""
        ...


class GameDescription(Protocol):
    """The immutable description a state was dealt from: its seed and tile set."""

    @property
    def seed(self) -> int: ...

    @property
    def tileset(self) -> TileSet: ...


class GameState(Protocol):
    """A game in progress, of any of the three games."""

    #: ``coop``, ``duel`` or ``head-to-head``: the record's and the server's name of the game.
    mode: ClassVar[str]

    @property
    def game(self) -> GameDescription:
        """What the game was dealt from (its seed tells every tile: never shown to a seat)."""
        ...

    #: Whether a decision was ever taken back: its record is a practice game's (rules note 29).
    taken_back: bool

    @property
    def players(self) -> int:
        """How many players play."""
        ...

    @property
    def is_over(self) -> bool: ...

    @property
    def phase(self) -> str:
        """``playing`` (Head to Head: ``draft``, then ``laying``), then ``over``."""
        ...

    @property
    def areas(self) -> tuple[PlayArea, ...]:
        """The play areas, live (one in the cooperative game, one per player in the others)."""
        ...

    def area_index(self, player: int) -> int:
        """Which of :attr:`areas` ``player`` places on."""
        ...

    def to_move(self) -> tuple[int, ...]:
        """The players who may decide now, in order; empty once the game is over."""
        ...

    def pending(self) -> tuple[int, ...]:
        """The player (if any) whose latest placement the other may not see yet: the rules have
        both place at the same time, so it stays hidden until the other has placed too."""
        ...

    def legal_decisions(self, player: int | None = None) -> Sequence[Decision]:
        """``player``'s legal decisions now (empty if the player may not decide)."""
        ...

    def legal_moves(self, player: int | None = None) -> list[tuple[int, int]]:
        """``player``'s legal placements as (cell, rotation) pairs: the fast form of
        :meth:`legal_decisions` (none in a draft), computed once when the tile is revealed."""
        ...

    def why_illegal(self, decision: Decision, player: int | None = None) -> str | None:
        """Why ``player`` may not make ``decision`` now, or None."""
        ...

    def apply(self, decision: Decision, player: int | None = None) -> None:
        """Make ``decision`` for ``player`` (default: the first in :meth:`to_move`) after checking
        it once; raises :class:`IllegalDecision` or ``IllegalPlacement`` (nothing changed)."""
        ...

    def push_move(self, cell: int, rot: int, player: int | None = None) -> None:
        """Place at a move of :meth:`legal_moves`, unchecked: the hot path of search and RL."""
        ...

    def undo(self) -> tuple[int, Decision]:
        """Take back the last decision (and what it revealed); returns its player and decision."""
        ...

    def made(self) -> list[tuple[int, Decision]]:
        """Every decision so far, in order: (player, decision)."""
        ...

    def happened(self, index: int) -> tuple[Happened, ...]:
        """What the table saw happen with decision ``index`` (from 0, in :meth:`made`'s order):
        the tile placed or taken and the tasks it completed or failed, and the tiles set aside
        because they fit nowhere, where the game tells of them then."""
        ...

    def revealed_for(self, player: int) -> Revealed | None:
        """The tile ``player`` places next, as everyone sees it (None if none)."""
        ...

    def view(self, player: int | None = None) -> GameView:
        """What ``player`` may know: plain data that shares nothing with the state."""
        ...

    def scores(self) -> tuple[Pad, ...]:
        """The score pad of each area, as it stands."""
        ...

    def returns(self) -> tuple[float, ...]:
        """Per player, what the game gives them: the cooperative game's score, the same for
        everyone; in a two-player game 1 for the winner and -1 for the loser once it is over
        (0 for both in a shared victory, and until the end)."""
        ...


class Revealed(NamedTuple):
    """The tile on the table: which tile of the set, and its task."""

    tile_id: int
    tile: Tile
    task: TaskSpec | None


def two_player_returns(winner: int | None, over: bool) -> tuple[float, float]:
    """:meth:`GameState.returns` of a two-player game with this winner (None: shared).

    >>> two_player_returns(1, True), two_player_returns(None, True), two_player_returns(0, False)
    ((-1.0, 1.0), (0.0, 0.0), (0.0, 0.0))
    """
    if not over or winner is None:
        return 0.0, 0.0
    return (1.0, -1.0) if winner == 0 else (-1.0, 1.0)


def placed_or_set_aside(
    number: int,
    player: int,
    revealed: Revealed,
    placement: Placement | None,
    changes: Sequence[tuple[Task, TaskStatus]] = (),
) -> list[Happened]:
    """The :class:`Happened` of one tile: placed at ``placement`` with the tasks it completed or
    failed (``changes``: the area's last changes), or set aside if ``placement`` is None."""
    if placement is None:
        return [Happened(number, player, SET_ASIDE, revealed.tile, revealed.task)]
    out = [Happened(number, player, PLACED, revealed.tile, revealed.task, placement.at)]
    for task, status in changes:
        kind = COMPLETED if status is TaskStatus.COMPLETED else FAILED
        out.append(Happened(number, player, kind, revealed.tile, task.spec, hex_of(task.cell)))
    return out
