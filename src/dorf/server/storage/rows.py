"""The storage's rows: every record the server stores or reads back, in one module that imports
no other part of the server (the features and the storage both use them; the storage's SQL is in
:mod:`.people`, :mod:`.daily`, :mod:`.lobby`, :mod:`.games`).

- a game: :class:`StoredGame`, its :class:`StoredSeat` s, one :class:`Change` of it, what a
  commit answers (:class:`Stored`), a websocket client as counted (:class:`Client`);
- players and ratings: :class:`StoredPlayer`, :class:`StoredToken`, :class:`StoredRating`,
  :class:`RatedGame`, :class:`RatingChange`;
- the daily challenge: :class:`DayRow`, :class:`Result`, :class:`DayView`, :class:`Leader`;
- the lobby: :class:`Seek`, :class:`OpenGame`.

and how a name's key is made (:func:`name_key`, the same in SQL: :func:`name_key_sql`), which the
players' table keeps unique.
"""

from __future__ import annotations

import asyncio
import hashlib
import json
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any, TypeVar

T = TypeVar("T")

#: What a change does: a decision made, decisions taken back (an undo), a seat taken, a game
#: ended otherwise than by its last decision (time, resign, abort: :mod:`dorf.server.round.finisher`).
MOVE, UNDO, SEAT, END = "move", "undo", "seat", "end"


@dataclass
class Change:
    """One change of a game: decision ``number`` made by ``seat`` (``decision``, its record
    entry), decisions taken back to ``keep`` (an undo), or a seat taken.  ``version`` is the game's
    version after it (so it was made from ``version - 1``); ``finished`` whether the game is over
    after it; ``key`` the key its client gave the move; ``thinker`` the server that thinks for the
    game's computer seats after it (set by the storage); ``origin`` the server that made it."""

    game: str
    version: int
    kind: str
    seat: int = 0
    number: int = 0
    decision: dict[str, Any] | None = None
    finished: bool = False
    keep: int = 0
    key: str | None = None
    thinker: str | None = None
    origin: str = ""
    #: How the game ended (an ``end`` change: ``time``, ``resign``, ``aborted``) and who won.
    end: str | None = None
    winner: int | None = None
    #: The game's clock after the change (:meth:`dorf.server.round.clock.Clock.stored`), and
    #: the earliest deadline of its running seats (seconds since 1970), if it has a clock.
    clock: str | None = None
    deadline: float | None = None

    def payload(self) -> str:
        """How a change is told to the other servers (well under PostgreSQL's 8000 bytes)."""
        fields: dict[str, Any] = {"o": self.origin, "g": self.game, "v": self.version, "t": self.kind}
        fields["s"] = self.seat
        if self.kind == MOVE:
            fields |= {"n": self.number, "d": self.decision, "k": self.key, "f": self.finished}
        elif self.kind == UNDO:
            fields["keep"] = self.keep
        elif self.kind == END:
            fields |= {"e": self.end, "w": self.winner}
        if self.clock is not None:
            fields |= {"c": self.clock, "dl": self.deadline}
        return json.dumps(fields, separators=(",", ":"))

    @classmethod
    def parse(cls, payload: str) -> Change:
        """A change from its :meth:`payload`; ValueError (or KeyError, TypeError) for anything else.

        >>> change = Change("g", 3, MOVE, 1, 3, {"player": 1, "at": [0, 1], "rot": 2}, origin="s")
        >>> Change.parse(change.payload()) == change
        True
        """
        data = json.loads(payload)
        if not isinstance(data, dict) or data.get("t") not in (MOVE, UNDO, SEAT, END):
            raise ValueError("not a change")
        decision = data.get("d")
        if decision is not None and not isinstance(decision, dict):
            raise ValueError("a change's decision is an object")
        key = data.get("k")
        end, winner, clock, deadline = data.get("e"), data.get("w"), data.get("c"), data.get("dl")
        return cls(
            str(data["g"]),
            int(data["v"]),
            data["t"],
            int(data.get("s", 0)),
            int(data.get("n", 0)),
            decision,
            bool(data.get("f", False)),
            int(data.get("keep", 0)),
            None if key is None else str(key),
            origin=str(data["o"]),
            end=None if end is None else str(end),
            winner=None if winner is None else int(winner),
            clock=None if clock is None else str(clock),
            deadline=None if deadline is None else float(deadline),
        )


@dataclass
class Stored:
    """What :meth:`Storage.commit` answers: whether this server now thinks for the game's computer
    seats, and ``saved``, done (with the version stored) once the change is in the database, or
    with the :class:`StorageError` that refused it for good."""

    thinks: bool
    saved: asyncio.Future[int]


@dataclass
class StoredSeat:
    """One seat: ``here`` (played at the creator's screen), ``online`` (joined by invitation)
    or ``computer`` (``player`` names the computer player)."""

    index: int
    kind: str
    name: str
    player: str | None
    token_hash: str | None
    invite_hash: str | None
    #: The player who holds it (:mod:`dorf.server.players`; None: nobody known, a computer).
    player_id: str | None = None


@dataclass
class StoredGame:
    id: str
    mode: str
    tileset: str
    seed: int
    #: A practice game (undo allowed; never in a campaign).
    practice: bool
    created: str
    finished: bool
    seats: list[StoredSeat]
    decisions: list[dict[str, Any]]
    #: Who starts, counted from 1 in seat order.
    first: int = 1
    #: Whoever created the game chose its seed (never in a campaign).
    seed_chosen: bool = False
    #: The game's version: its changes so far (decisions, and undos).
    version: int = 0
    #: The key its client gave each decision (None: none given).
    keys: list[str | None] = field(default_factory=list)
    #: It changes its players' ratings once it is over (:mod:`dorf.server.players.ratings`).
    rated: bool = False
    #: Its clock (``"5+3"``, ``"1d"``; None: none), the clock's state as last stored
    #: (:meth:`dorf.server.round.clock.Clock.stored`) and its earliest deadline (seconds since
    #: 1970); how it ended, if not by its last decision (``time``, ``resign``, ``aborted``), and
    #: who won then.
    clock: str | None = None
    clock_state: str | None = None
    deadline: float | None = None
    end: str | None = None
    winner: int | None = None
    #: The day (``YYYY-MM-DD``, UTC) whose daily challenge shuffle it plays (None: none): its
    #: seed and record are shown only once that day is over (:mod:`dorf.server.daily`).
    daily: str | None = None


@dataclass(frozen=True)
class Client:
    """A websocket client as the caps count it: which server holds it (``instance``), its number
    there, its address, its game, and whether it plays (``playing``) or watches (``watching``)."""

    instance: str
    number: int
    address: str
    game: str
    role: str


#: ``decide(holders, watching, spectators)``: why a client cannot be let in (None: it can), from
#: its address's other seat-holding clients and spectators and its game's other spectators.
Decide = Callable[[int, int, int], T]


@dataclass(frozen=True)
class StoredPlayer:
    """A player: its id, name, whether it is a bot account (it made an API token) or a computer
    level, and whether it has a password."""

    id: str
    name: str
    bot: bool = False
    has_password: bool = False
    created: str = ""
    #: Why the player is banned (``dorf admin ban``; None: it is not).
    banned: str | None = None


@dataclass(frozen=True)
class StoredToken:
    """An API token as its player sees it listed: its id, label, when it was made and last used
    (ISO 8601 in UTC; last used to the minute or so, None: never)."""

    id: str
    label: str
    created: str
    last_used: str | None


@dataclass(frozen=True)
class StoredRating:
    """A player's rating in one mode: Glicko-2's rating, deviation and volatility, its rated
    games, and when the last one ended (seconds since 1970)."""

    mode: str
    rating: float
    rd: float
    volatility: float
    games: int
    played: float


@dataclass(frozen=True)
class RatedGame:
    """A rated game to rate: its id, mode, its two players (ids, in seat order) and the first
    one's score (1 won, 0.5 drawn, 0 lost), and when it ended (seconds since 1970).
    ``pair_limit``: the most rated results the two may have recorded in the mode in the day
    before it ended (0: no limit); past it the game is recorded, not counted (no rating changes)."""

    id: str
    mode: str
    players: tuple[str, str]
    score: float
    ended: float
    pair_limit: int = 0


@dataclass(frozen=True)
class RatingChange:
    """What one rated game did to one player's rating (a row of its history)."""

    game_id: str
    mode: str
    player_id: str
    opponent_id: str
    opponent_name: str
    score: float
    before: float
    after: float
    rd: float
    ended: float
    #: Whether it changed the ratings (False: the pair's rated results of the day were used up).
    counted: bool = True


#: ``update(game, [rating of each player as stored, or None])``: for each player in order, the
#: rating it is rated from (a new player's, or the stored one grown with the time away) and the
#: rating after the game.
RateUpdate = Callable[[RatedGame, list[StoredRating | None]], list[tuple[StoredRating, StoredRating]]]


@dataclass(frozen=True)
class DayRow:
    """A day of the challenge: its players so far, the expert's score (None: not played yet),
    whether it is closed (ranks stored)."""

    day: str
    players: int
    expert: int | None
    closed: bool


@dataclass(frozen=True)
class Result:
    """A counted attempt: its day, player (id and name), game, score, whether it is finished, its
    rank (None: not known without counting), and the day's expert score and players."""

    day: str
    player_id: str
    name: str
    game_id: str
    score: int
    finished: bool
    rank: int | None = None
    expert: int | None = None
    players: int = 0


@dataclass(frozen=True)
class DayView:
    """What ``GET /api/daily`` shows of a day, read in one transaction: the day's row, the
    player's attempt (ranked; None: none, or no player), the day's best attempts, the median
    score (None: not shown yet), and the days of the player's attempts, newest first."""

    row: DayRow
    mine: Result | None
    top: list[Result]
    median: float | None
    days: list[str]


@dataclass(frozen=True)
class Leader:
    """A leaderboard's line: a player and its stored rating."""

    name: str
    rating: float
    rd: float
    volatility: float
    games: int
    played: float


@dataclass(frozen=True)
class Seek:
    """One player waiting for a game: ``since`` is when they began (seconds, any clock shared
    by the seeks compared); ``clock`` the clock's text (``"3+2"``, ``"1d"``, or ``None``)."""

    id: str
    player: str
    name: str
    rating: float
    rd: float
    mode: str
    clock: str | None
    rated: bool
    since: float

    def json(self) -> dict[str, object]:
        return {
            "id": self.id,
            "name": self.name,
            "rating": round(self.rating),
            "mode": self.mode,
            "clock": self.clock,
            "rated": self.rated,
        }


#: ``choose(seeks, now)``: the pairs to make among one pool's seeks (the pure rule).
Choose = Callable[[list[Seek], float], list[tuple[Seek, Seek]]]
#: A pool: mode, clock, rated.
Pool = tuple[str, str | None, bool]
#: A pool and how many seek in it.
PoolCount = tuple[str, str | None, bool, int]


@dataclass(frozen=True)
class OpenGame:
    """One open game of the lobby: who made it (their rating in its mode, None in a mode without
    ratings), for what, how many seats are free; ``invited``: a rematch, for that player alone."""

    game: str
    creator: str
    name: str
    rating: float | None
    rd: float | None
    mode: str
    clock: str | None
    rated: bool
    free: int
    seats: int
    invited: str | None
    since: float
    #: The address that listed it ("": none counted, a rematch offered to one player).
    address: str = ""

    def row(self) -> tuple[Any, ...]:
        return (
            self.game,
            self.creator,
            self.name,
            self.rating,
            self.rd,
            self.mode,
            self.clock,
            int(self.rated),
            self.free,
            self.seats,
            self.invited,
            self.since,
        )


@dataclass(frozen=True)
class TalkLine:
    """One message of a game's table talk (issue 63): its number in the game (from 1), the seat
    and name that said it, its text, when (``at``, UTC ISO 8601) and after how many decisions
    (``move``)."""

    n: int
    seat: int
    name: str
    text: str
    at: str
    move: int

    def json(self, *, move: bool = False) -> dict[str, Any]:
        """As the clients get it (``{"n", "seat", "name", "text", "at"}``), with ``move`` for a replay."""
        out: dict[str, Any] = {"n": self.n, "seat": self.seat, "name": self.name, "text": self.text}
        out["at"] = self.at
        if move:
            out["move"] = self.move
        return out


def now() -> str:
    return datetime.now(UTC).isoformat(timespec="seconds")


def secret_hash(secret: str) -> str:
    """How a token or an invitation code is stored: its SHA-256.  A string that is not text
    (a lone surrogate from JSON's ``\\ud800``) has no UTF-8 form: it hashes as the bytes its
    escapes spell, so it can never match a secret the server made (those are ASCII).

    >>> secret_hash("abc")[:12], len(secret_hash("\\ud800"))
    ('ba7816bf8f01', 64)
    """
    return hashlib.sha256(secret.encode("utf-8", "backslashreplace")).hexdigest()


def decision_text(decision: dict[str, Any]) -> str:
    """How a decision is stored: compact JSON."""
    return json.dumps(decision, separators=(",", ":"))


#: What looks alike in a name, folded after lowercasing, in this order: the ASCII entries of
#: Unicode's confusables (UTS #39: ``rn`` as ``m``, ``vv`` as ``w``, ``0`` as ``O``, ``1`` and
#: ``I`` as ``l``; lowercased, ``I`` is ``i``, so ``i`` folds to ``l`` too).  A chain of plain
#: replacements, so that the database can compute the same key (:func:`name_key_sql`).
CONFUSABLES = (("rn", "m"), ("vv", "w"), ("0", "o"), ("1", "l"), ("i", "l"))


def name_key(name: str) -> str:
    """What two names are compared by (one name if equal): the name's skeleton, lowercased with
    its look-alikes folded (:data:`CONFUSABLES`)."""
    key = name.lower()
    for alike, shown in CONFUSABLES:
        key = key.replace(alike, shown)
    return key


def name_key_sql(column: str) -> str:
    """:func:`name_key` of ``column`` in SQL (the same on SQLite and PostgreSQL for ASCII names)."""
    key = f"lower({column})"
    for alike, shown in CONFUSABLES:
        key = f"replace({key}, '{alike}', '{shown}')"
    return key
