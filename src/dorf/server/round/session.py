"""A game on the server: its engine state, its seats, and the decisions made.

A :class:`GameSession` holds one engine state of any game through the one
interface every game's state has (:class:`dorf.games.state.GameState`), so it
never asks which game it holds: which seats decide now, making a
:class:`~dorf.server.protocol.messages.Move` (parsed once into the engine's
decision, checked once by the engine), taking decisions back (practice games
only), and the record.  What the browser sees of it is made by
:class:`~dorf.server.protocol.describe.Description` (``session.description``);
it never touches storage or sockets.

Seats are numbered as the game was created; the engine numbers its players
from the one who starts (``first``): seat ``first - 1`` is the engine's
player 0, and the others follow in seat order.  Records, stored decisions and
the computer players use the engine's numbers; everything the browser sees
uses seats.

The seed and the record only come out once the game is over.  In the Duel and
in Head to Head a placement stays unseen by the other seat until that seat has
placed too (the rules have both place at the same time): until then what the
other seat is shown, and what its computer player is given, is the game as it
was before that placement (:meth:`GameSession.pending_seat`).

>>> session = GameSession.new("g", "coop", 3, [SeatSpec("here", "Ann")])
>>> session.waiting()
(0,)
>>> move = Move(0, session.state.legal_decisions(0)[0])
>>> session.apply(move)
{'player': 0, 'at': [0, 0], 'rot': 0}
>>> session.version
1
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Collection, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

from dorf.formats.record import (
    FORMAT,
    GameState,
    RecordError,
    apply_decision,
    decision_entry,
    record_of,
    start_of,
)
from dorf.games.modes import MODES as GAMES
from dorf.games.state import GameOver, IllegalDecision, OutOfTurn
from dorf.rules.area import IllegalPlacement, PlayArea
from dorf.server.protocol.describe import MODE_NAMES, Description
from dorf.server.protocol.messages import Move, ProtocolError
from dorf.server.protocol.views import Json
from dorf.server.round.clock import Clock
from dorf.server.round.ending import Ending

#: The games by name (``coop``, ``duel``, ``head-to-head``), their titles and tile sets: the
#: games layer's data (:mod:`dorf.games.modes`).
MODES = tuple(GAMES)
TILESETS = {name: mode.tileset for name, mode in GAMES.items()}
HERE, ONLINE, COMPUTER = "here", "online", "computer"
SEAT_KINDS = (HERE, ONLINE, COMPUTER)


@dataclass
class SeatSpec:
    """A seat as the game is created: who plays it."""

    kind: str
    name: str
    player: str | None = None
    #: An online seat someone has taken with its invitation.
    claimed: bool = False
    #: The player who holds it (:mod:`dorf.server.players`; None: nobody known).
    player_id: str | None = None


def utc_today() -> str:
    """Today's date, UTC (``YYYY-MM-DD``)."""
    return datetime.now(UTC).date().isoformat()


def computer_seed(seed: int, decisions: int, player: int) -> int:
    """A computer player's seed for one decision: a one-way function of the game's seed, so
    that nothing the computer does tells anything about the seed (and so the tile order).

    >>> computer_seed(7, 3, 1) == computer_seed(7, 3, 1) != computer_seed(7, 3, 0)
    True
    """
    text = f"{seed}/{decisions}/{player}".encode()
    return int.from_bytes(hashlib.blake2b(text, digest_size=8, person=b"dorf-computer").digest()) >> 1


def seat_order(count: int, first: int) -> list[int]:
    """The seat of each engine player when seat ``first`` (from 1) starts.

    >>> seat_order(3, 2), seat_order(2, 1)
    ([1, 2, 0], [0, 1])
    """
    return [(p + first - 1) % count for p in range(count)]


def record_head(mode: str, seed: int, players: list[str], decisions: list[Json]) -> Json:
    """The fields of a record that determine a game."""
    return {
        "format": FORMAT,
        "mode": mode,
        "tileset": TILESETS[mode],
        "seed": seed,
        "players": players,
        "decisions": decisions,
    }


#: How the engine's refusals are answered: (code, HTTP status).
_REFUSALS: tuple[tuple[type[ValueError], str, int], ...] = (
    (GameOver, "game-over", 409),
    (OutOfTurn, "out-of-turn", 409),
    (IllegalDecision, "illegal", 400),
    (IllegalPlacement, "illegal", 400),
)


class GameSession:
    """One game on the server, of any of the three games."""

    def __init__(
        self,
        game_id: str,
        mode: str,
        seed: int,
        seats: list[SeatSpec],
        state: GameState,
        *,
        practice: bool = False,
        first: int = 1,
    ) -> None:
        self.id = game_id
        self.mode = mode
        self.seed = seed
        self.seats = seats
        self.state = state
        #: A practice game: undo allowed, and it never goes into a campaign.
        self.practice = practice
        #: Whoever created the game chose its seed, so could know every tile: its record says
        #: so and it never goes into a campaign (set when the game is made or read).
        self.seed_chosen = False
        #: A rated game: its players' ratings change once it is over (:mod:`dorf.server.players`;
        #: set when the game is made or read).
        self.rated = False
        #: Who starts, counted from 1 in seat order.
        self.first = first
        #: The seat of each engine player, and the engine player of each seat.
        self.order = seat_order(len(seats), first)
        self.player_of = {seat: p for p, seat in enumerate(self.order)}
        #: The record entry of every decision, in order (what is stored).
        self.decisions: list[Json] = []
        #: The seat that made each decision, in order.
        self.deciders: list[int] = []
        #: Counts every change (a move, an undo, a seat taken): clients see it.
        self.version = 0
        #: Counts undos: a computer's answer computed before an undo is dropped.
        self.epoch = 0
        #: While the pending placement is taken back (:meth:`as_before_pending`).
        self.pending_hidden = False
        #: Its clock (None: none; the Duel and Head to Head may have one), and how it ended if
        #: it did (:mod:`~dorf.server.round.finisher`: also by time, resign or abort).
        self.clock: Clock | None = None
        self.ending: Ending | None = None
        #: The day whose daily challenge shuffle it plays (``YYYY-MM-DD``; None: none), and today's
        #: date as the server's challenge tells it (:mod:`dorf.server.daily`): its seed and record
        #: are shown once that day is over.
        self.daily: str | None = None
        self.today: Callable[[], str] = utc_today
        #: What the browser sees of it, made once per version and view.
        self.description = Description(self)

    @classmethod
    def new(
        cls,
        game_id: str,
        mode: str,
        seed: int,
        seats: list[SeatSpec],
        *,
        practice: bool = False,
        first: int = 1,
    ) -> GameSession:
        if mode not in MODES:
            raise ProtocolError("bad-message", f"mode {mode!r} is not one of {', '.join(MODES)}")
        names = [seats[seat].name for seat in seat_order(len(seats), first)]
        state = start_of(record_head(mode, seed, names, []))
        return cls(game_id, mode, seed, seats, state, practice=practice, first=first)

    @classmethod
    def replay(
        cls,
        game_id: str,
        mode: str,
        seed: int,
        seats: list[SeatSpec],
        decisions: list[Json],
        *,
        practice: bool = False,
        first: int = 1,
    ) -> GameSession:
        """A stored game rebuilt from its decisions (raises RecordError if they no longer fit)."""
        session = cls.new(game_id, mode, seed, seats, practice=practice, first=first)
        for number, entry in enumerate(decisions, 1):
            player, _ = apply_decision(session.state, number, entry)
            session.decisions.append(entry)
            session.deciders.append(session.order[player])
        session.version = len(decisions)
        return session

    def seed_public(self) -> bool:
        """Whether its seed (and so its record) may be shown: once it is over, and for a game of
        the daily challenge once its day is over too (the others play the same shuffle today)."""
        return self.is_over and (self.daily is None or self.daily < self.today())

    def record_head(self, decisions: list[Json]) -> Json:
        """A record of this game with these decisions (players in the engine's order)."""
        return record_head(self.mode, self.seed, [self.seats[seat].name for seat in self.order], decisions)

    # --- turns ---------------------------------------------------------------------

    @property
    def is_over(self) -> bool:
        """Over by the rules, or ended otherwise (time, resign, abort)."""
        return self.ending is not None or self.state.is_over

    @property
    def phase(self) -> str:
        return self.state.phase

    def hints_refused(self) -> str | None:
        """Why the coach gives no hint in this game, to any seat (None: it gives them): a game
        against another person (an online seat), or a counted attempt at the daily challenge;
        a practice game has them.  The game's description says it (``"hints"``), so that the
        page offers no Hint it would refuse."""
        if self.practice:
            return None
        if any(s.kind == ONLINE for s in self.seats):
            return "no hints in a game against another person (only in practice games)"
        if self.daily is not None:
            return "no hints in your attempt at the daily challenge (practice games of it have them)"
        return None

    def waiting(self) -> tuple[int, ...]:
        """The seats that may decide now."""
        return self.description.waiting()

    def pending_seat(self) -> int | None:
        """The seat whose latest placement the other seat may not see yet (it placed while the
        other still has to: the Duel, Head to Head), or None.  A game ended by time, resign or
        abort has none: everyone sees everything once it is over."""
        if self.ending is not None:
            return None
        pending = self.state.pending()
        return self.order[pending[0]] if pending else None

    def sees_pending(self, seats: Collection[int]) -> bool:
        """Whether a client holding ``seats`` may see the pending placement: it holds that
        seat and not the seat still to place (two people at one screen do not)."""
        pending = self.pending_seat()
        return pending is not None and pending in seats and 1 - pending not in seats

    def name(self, seat: int) -> str:
        return self.seats[seat].name

    def player_name(self, player: int) -> str:
        """The name of the seat of engine player ``player``."""
        return self.seats[self.order[player]].name

    def area(self, seat: int) -> PlayArea:
        """The area ``seat`` plays on."""
        state = self.state
        return state.areas[state.area_index(self.player_of[seat])]

    def areas(self) -> list[PlayArea]:
        """The play areas in seat order (the cooperative game has one)."""
        areas = self.state.areas
        return [areas[0]] if len(areas) == 1 else [self.area(seat) for seat in range(len(self.seats))]

    def area_index(self, seat: int) -> int:
        """Which of :meth:`areas` a seat plays on."""
        return 0 if len(self.state.areas) == 1 else seat

    # --- changing the game --------------------------------------------------------------

    def names(self, text: str) -> str:
        """The engine says 'player 1'; the table knows names."""
        for player in range(len(self.seats)):
            name = self.player_name(player)
            text = text.replace(f"player {player + 1}'s", f"{name}'s").replace(f"player {player + 1}", name)
        return text

    def apply(self, move: Move) -> Json:
        """Make ``move``, checked once by the engine; returns its record entry (what is stored).
        Raises ProtocolError (nothing changed) if it may not be made."""
        if not 0 <= move.seat < len(self.seats):
            raise ProtocolError("bad-message", f"there is no seat {move.seat} in this game")
        player = self.player_of[move.seat]
        if self.ending is not None:
            raise ProtocolError("game-over", f"the game is over ({self.ending.end}): it never changes", 409)
        try:
            self.state.apply(move.decision, player)
        except (IllegalDecision, IllegalPlacement) as exc:
            code, status = next((c, s) for kind, c, s in _REFUSALS if isinstance(exc, kind))
            raise ProtocolError(code, self.names(str(exc)), status) from None
        entry = decision_entry(player, move.decision)
        self.decisions.append(entry)
        self.deciders.append(move.seat)
        self.version += 1
        return entry

    def take_back(self, count: int, *, counted: bool = True) -> None:
        """Take back the last ``count`` decisions.  ``counted``: as a change of the game (an undo);
        else as if they had never been made (a move the storage did not take), the version as
        before them."""
        for _ in range(count):
            self.state.undo()
            self.decisions.pop()
            self.deciders.pop()
        if counted:
            self.version += 1
            self.epoch += 1
        else:
            self.version -= count
        self.description.forget()

    # --- practice games -------------------------------------------------------------

    def can_undo(self) -> bool:
        """Whether an undo is possible now: a practice game, not over, a person's decision made."""
        return (
            self.practice and not self.is_over and any(self.seats[s].kind != COMPUTER for s in self.deciders)
        )

    def undo_count(self, seat: int) -> int:
        """How many decisions an undo by ``seat`` takes back: its last placement (or pick) of a
        person and every computer decision after it.  Raises ProtocolError if it may not."""
        if not self.practice:
            raise ProtocolError(
                "no-undo", "a laid tile stays: undo is only for practice games (chosen when created)", 409
            )
        if self.is_over:
            raise ProtocolError("game-over", "the game is over: a finished game never changes", 409)
        if not 0 <= seat < len(self.seats) or self.seats[seat].kind == COMPUTER:
            raise ProtocolError("bad-message", f"seat {seat} cannot undo")
        for count, decider in enumerate(reversed(self.deciders), 1):
            if self.seats[decider].kind != COMPUTER:
                return count
        raise ProtocolError("no-undo", "there is nothing to undo", 409)

    # --- what a seat may see ----------------------------------------------------------

    @contextmanager
    def as_before_pending(self) -> Iterator[None]:
        """The state with the pending placement taken back, for as long as the block runs."""
        entry = self.decisions[-1]
        self.state.undo()
        self.pending_hidden = True
        try:
            yield
        finally:
            self.pending_hidden = False
            apply_decision(self.state, len(self.decisions), entry)

    def visible_record(self, seat: int) -> Json:
        """The record as ``seat`` may know it (for its computer player): without another seat's
        pending placement."""
        decisions = self.decisions
        pending = self.pending_seat()
        if pending is not None and pending != seat:
            decisions = decisions[:-1]
        return self.record_head(list(decisions))

    def winner(self) -> int | None:
        """The winning seat once a two-player game is over (None: shared, or not over)."""
        if self.ending is not None and self.ending.end != "normal":
            return self.ending.winner
        returns = self.state.returns()
        if not self.is_over or len(returns) != 2 or returns[0] == returns[1]:
            return None
        return self.order[0 if returns[0] > returns[1] else 1]

    def record(self) -> Json:
        """The game's ``dorf-record/1`` (players in the engine's order: who started first)."""
        out = record_of(self.state, [self.seats[seat].name for seat in self.order])
        out["game_id"] = self.id
        out.pop("practice", None)  # the server takes back only to look, or in a practice game
        if self.practice:
            out["practice"] = True
        if self.seed_chosen:
            out["seed_chosen"] = True
        if self.clock is not None:
            out["clock"] = self.clock.spec.text
        if self.ending is not None and self.ending.end != "normal":  # ended by time, resign, abort
            out["end"] = self.ending.end
            winner = self.ending.winner
            out["winner"] = None if winner is None else self.player_of[winner]  # engine numbers
        return out

    def public(self, seats: Collection[int] = ()) -> Json:
        """Everything a client holding ``seats`` may know (see :class:`Description`)."""
        return self.description.public(seats)

    def document(self, seats: Collection[int] = ()) -> Json:
        """``{"you", "game"}`` for a client holding ``seats`` (see :class:`Description`)."""
        return self.description.document(seats)

    def public_text(self, seats: Collection[int] = ()) -> str:
        return self.description.public_text(seats)

    def legal(self, seat: int) -> list[list[Any]]:
        return self.description.legal(seat)


__all__ = [
    "COMPUTER",
    "HERE",
    "MODES",
    "MODE_NAMES",
    "ONLINE",
    "SEAT_KINDS",
    "TILESETS",
    "GameSession",
    "RecordError",
    "SeatSpec",
    "computer_seed",
    "record_head",
    "seat_order",
]
