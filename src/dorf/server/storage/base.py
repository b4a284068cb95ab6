"""What the server asks of its storage, whichever database it is: one interface, one change record.

The hub is handed a :class:`Storage` (as boardgame.io hands its master a
storage) and never asks which one it has:

- :class:`~dorf.server.storage.sqlite.SqliteStorage`: one server on a SQLite
  file; a change is made in memory at once and written behind, many in one
  transaction (:mod:`dorf.server.storage.writer`);
- :class:`~dorf.server.storage.postgres.PostgresStorage`: one or several servers
  on one PostgreSQL database; a change is stored first, only if its game is
  still at the version it was made from (compare-and-set), and the other
  servers hear of it (:mod:`dorf.server.storage.bus`).

A change of a game is one :class:`Change`, the same record whether it is
queued to be written, committed, or heard from another server.  Every error of
a storage is a :class:`StorageError`: :class:`Unavailable` (try again later: a
locked file, a lost connection), :class:`Refused` (for good: a finished game, a
seat taken), :class:`Conflict` (another server changed the game first), and
:class:`DamagedGame` for a game whose rows cannot be read.
"""

from __future__ import annotations

import asyncio
import hashlib
import json
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any, Protocol, TypeVar

if TYPE_CHECKING:
    from dorf.server.lobby.pairing import Seek
    from dorf.server.storage.daily import DayRow, Leader, Result
    from dorf.server.storage.lobby import Choose, OpenGame, Pool, PoolCount

T = TypeVar("T")

#: What a change does: a decision made, decisions taken back (an undo), a seat taken, a game
#: ended otherwise than by its last decision (time, resign, abort: :mod:`dorf.server.round.finisher`).
MOVE, UNDO, SEAT, END = "move", "undo", "seat", "end"


class StorageError(Exception):
    """The storage could not do what was asked; the message is one line."""


class Unavailable(StorageError):
    """The database cannot take it now (a locked file, a lost connection, a timeout): try again
    later."""


class Refused(StorageError):
    """The database refuses the change for good (a finished game never changes; a seat is taken
    once)."""


class Conflict(StorageError):
    """The game changed meanwhile (another server stored a change first): nothing was written."""


class DamagedGame(StorageError):
    """A stored game whose rows cannot be read; the message is one line."""


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


class Storage(Protocol):
    """The server's games and what several servers share, in a database (its calls run in a
    thread of the storage's own: the event loop never waits for the database)."""

    #: This server's name among those sharing the database.
    instance: str
    #: How long a server thinks for a game's computer seats before another may take over, in s.
    lease: float

    async def start(self) -> None: ...

    async def close(self) -> None: ...

    def counts(self) -> dict[str, int]:
        """Transactions and changes written so far, and changes waiting (``/api/health``)."""
        ...

    async def create_game(self, game: StoredGame, thinker: str | None) -> bool:
        """Store a new game; whether this server thinks for its computer seats."""
        ...

    async def load_game(self, game_id: str) -> StoredGame | None:
        """One stored game (None if there is none); :class:`DamagedGame` if it cannot be read."""
        ...

    def check(self, unsaved: int) -> None:
        """Raise :class:`Unavailable` if a new change of a game with ``unsaved`` changes not yet
        written may not be made now (the database has refused writes for too long)."""
        ...

    async def commit(self, change: Change) -> Stored:
        """Store ``change`` (made in memory already): :class:`Conflict` if its game is no longer at
        the version it was made from, :class:`StorageError` if it cannot be stored now."""
        ...

    async def claim_seat(
        self, change: Change, name: str, token_hash: str, player_id: str | None = None
    ) -> None:
        """An invited player (``player_id``) takes seat ``change.seat``: its invitation is used up
        and its token set (:class:`Refused` if it was taken meanwhile); the other servers are told."""
        ...

    async def claim_thinking(self, game_id: str, version: int) -> bool:
        """Take the lease to think for a game's computer seats at ``version``, if nobody holds it
        (or its holder let it run out): whether this server has it now."""
        ...

    async def versions(self, game_ids: list[str]) -> dict[str, int]:
        """The stored version of each of these games."""
        ...

    async def deadlines(self) -> list[tuple[str, float, int]]:
        """``(game, deadline, version)`` of every unfinished game whose clock runs."""
        ...

    async def admit(self, client: Client, decide: Decide[T]) -> T:
        """Count ``client`` (on every server sharing the database) if ``decide`` answers None;
        return what it answers."""
        ...

    async def leave(self, client: Client) -> None:
        """``client`` is gone: count it no longer."""
        ...

    async def hit(self, key: str, per_minute: int) -> float | None:
        """Count a request under ``key`` unless ``per_minute`` were counted in the last minute:
        None if counted, else the seconds to wait."""
        ...

    # The lobby (:mod:`dorf.server.storage.lobby`): seeks and open games, at most ``limit`` a player.

    async def lobby_seek(self, seek: Seek, limit: int) -> Seek | None:
        """Store a seek (its ``since`` the storage's time), None if its player has ``limit``."""
        ...

    async def lobby_unseek(self, seek_id: str) -> None: ...

    async def lobby_count(self, player: str) -> int:
        """The open games and seeks of ``player`` now."""
        ...

    async def lobby_pair(self, pool: Pool, choose: Choose) -> list[tuple[Seek, Seek]]:
        """The pairs ``choose`` makes among a pool's seeks no other server is pairing; gone after."""
        ...

    async def lobby_sweep(self) -> None:
        """Forget the seeks of servers that died."""
        ...

    async def lobby_open(self, entry: OpenGame, limit: int, per_address: int = 0) -> str | None:
        """List an open game, unless its creator has ``limit`` open games and seeks, or its
        address ``per_address`` open games listed (0: no bound): None if listed, else which
        bound refused it (``"player"``, ``"address"``)."""
        ...

    async def lobby_seats(self, game_id: str, free: int) -> bool:
        """An open game has ``free`` seats now (0: it leaves the list): whether that changed it."""
        ...

    async def lobby_games(self) -> list[OpenGame]: ...

    async def lobby_pools(self, limit: int) -> list[PoolCount]:
        """How many seek in each pool, the fullest ``limit`` pools (mode, clock, rated, count)."""
        ...

    async def lobby_tell(self, payload: str) -> None:
        """Tell the other servers (``dorf_lobby``); nobody, alone."""
        ...

    async def player_games(self, player: str, limit: int) -> list[str]:
        """The ids of a player's games (a seat records them), the most recently changed first."""
        ...

    # --- players and ratings (dorf.server.players) ----------------------------------------

    async def new_player(
        self, player: StoredPlayer, session_hash: str | None, at: float | None = None
    ) -> None:
        """Store a new player (and its first session, the hash of its cookie's secret):
        :class:`Refused` if its name is taken (by its skeleton, ``name_key``), or held for the
        player who gave it up (at ``at``, seconds since 1970; None: now)."""
        ...

    async def find_player(self, *, session: str = "", token: str = "", name: str = "") -> StoredPlayer | None:
        """The player of a session (its secret's hash), of an API token (its hash), or of a name
        (ignoring case); None if there is none."""
        ...

    async def players_by_id(self, ids: list[str]) -> dict[str, StoredPlayer]:
        """The players of these ids (those that exist)."""
        ...

    async def rename_player(
        self, player_id: str, name: str, at: float | None = None, hold_until: float = 0.0
    ) -> None:
        """Change a player's name: :class:`Refused` if another player has it (by its skeleton) or
        it is held for another; the name given up is held for this player until ``hold_until``."""
        ...

    async def forget_player(self, player_id: str) -> bool:
        """Remove a player made for a request that failed, unless it has played: whether it did."""
        ...

    async def sweep_players(self, before: str, at: float, limit: int = 1000) -> tuple[int, int]:
        """Remove the new players made before ``before`` (ISO 8601) who never played, at most
        ``limit`` looked at; forget the name holds over at ``at``: ``(looked at, removed)``."""
        ...

    async def password_of(self, player_id: str) -> str | None:
        """The hash of a player's password (None: it has none)."""
        ...

    async def set_password(
        self, player_id: str, password_hash: str, keep_session: str | None, end_tokens: bool = False
    ) -> None:
        """Set a player's password (its hash); every session of the player but ``keep_session``
        ends (the other devices sign in again), and with ``end_tokens`` every API token."""
        ...

    async def add_session(self, player_id: str, session_hash: str) -> None:
        """A device signed in as the player: its cookie's secret (hash) now names it."""
        ...

    async def end_session(self, session_hash: str) -> None:
        """A device signed out: its cookie's secret names nobody any more."""
        ...

    async def add_token(self, player_id: str, token_hash: str, label: str = "", limit: int = 0) -> str:
        """An API token (its hash) now names the player, which is a bot account from now on: its
        id (what lists and revokes it; the hash's first 16 digits).  :class:`Refused` if the
        player has ``limit`` tokens already (0: no limit)."""
        ...

    async def tokens_of(self, player_id: str) -> list[StoredToken]:
        """A player's API tokens (never their hashes), the oldest first."""
        ...

    async def revoke_token(self, player_id: str, token_id: str) -> bool:
        """End the player's token of this id: whether there was one (another's is not found)."""
        ...

    async def token_used(self, token_hash: str, when: str, before: str) -> None:
        """Note that a token was used ``when``, unless it was noted at ``before`` or later."""
        ...

    async def end_sessions(self, player_id: str, keep_session: str | None, tokens: bool) -> None:
        """Sign a player out everywhere: every session but ``keep_session`` ends, and with
        ``tokens`` every API token too."""
        ...

    async def ratings_of(self, player_id: str) -> list[StoredRating]:
        """A player's ratings, one per mode it has played rated games of."""
        ...

    async def rate_game(self, game: RatedGame, update: RateUpdate) -> list[RatingChange] | None:
        """Rate a finished game once: in one transaction, the ratings of its two players as stored
        (None: a first rated game of the mode) are given to ``update``, and what it answers is
        stored with one history row per player.  None if the game was rated already (by this or
        another server): nothing changes."""
        ...

    async def rating_changes(
        self, *, player_id: str = "", game_id: str = "", limit: int = 50
    ) -> list[RatingChange]:
        """The rating changes of a player (its latest ``limit`` games, newest first), or of one
        game (one per player)."""
        ...

    # --- the daily challenge and the leaderboards (dorf.server.daily; storage/daily.py) ----

    async def daily_secret(self, name: str, made: str) -> str:
        """The secret of ``name`` (stored as ``made`` by whichever server asks first)."""
        ...

    async def daily_day(self, day: str) -> DayRow: ...

    async def daily_attempt(self, day: str, player_id: str, game_id: str, started: float) -> Result | None:
        """Start a player's counted attempt of ``day``: None if it had none, else the one it has."""
        ...

    async def daily_drop(self, game_id: str) -> None: ...

    async def daily_score(self, game_id: str, score: int, finished: bool, today: str) -> bool: ...

    async def daily_result(self, day: str, player_id: str) -> Result | None:
        """A player's attempt of ``day`` with its rank (None: it has none)."""
        ...

    async def daily_top(self, day: str, limit: int) -> list[Result]: ...

    async def daily_median(self, day: str, players: int) -> float | None: ...

    async def daily_history(self, player_id: str, limit: int) -> list[Result]: ...

    async def daily_days(self, player_id: str, limit: int) -> list[str]: ...

    async def daily_best(self, player_id: str) -> Result | None: ...

    async def daily_claim_expert(self, day: str, instance: str, now: float, lease: float) -> bool: ...

    async def daily_expert_played(self, day: str, score: int) -> None: ...

    async def daily_open_days(self, before: str) -> list[str]: ...

    async def daily_close(self, day: str) -> bool: ...

    async def game_lessons(
        self, game_id: str, seats: str, text: str | None = None, made: float = 0.0
    ) -> str | None:
        """The coach's lessons of a finished game for ``seats`` ("0", "0,1") as kept (JSON text;
        None: not computed yet); ``text``: keep these first, unless some are kept already."""
        ...

    async def leaders(self, mode: str, limit: int, offset: int = 0) -> list[Leader]:
        """The rated players a leaderboard may list, best first."""
        ...


@dataclass(frozen=True)
class StoredPlayer:
    """A player: its id, name, whether it is a bot account (it made an API token) or a computer
    level, and whether it has a password."""

    id: str
    name: str
    bot: bool = False
    has_password: bool = False
    created: str = ""


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
