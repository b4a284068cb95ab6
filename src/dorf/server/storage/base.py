"""What the server asks of its storage, whichever database it is: one interface, one change record.

The server is handed a :class:`Storage` (as boardgame.io hands its master a
storage) and never asks which one it has:

- :class:`~dorf.server.storage.sqlite.SqliteStorage`: one server on a SQLite
  file; a change is made in memory at once and written behind, many in one
  transaction (:mod:`dorf.server.storage.writer`);
- :class:`~dorf.server.storage.postgres.PostgresStorage`: one or several servers
  on one PostgreSQL database; a change is stored first, only if its game is
  still at the version it was made from (compare-and-set), and the other
  servers hear of it (:mod:`dorf.server.storage.bus`).

A change of a game is one :class:`Change` (the rows: :mod:`.rows`), the same record whether it is
queued to be written, committed, or heard from another server.  Every error of
a storage is a :class:`StorageError` (:mod:`.errors`): :class:`Unavailable` (try again later: a
locked file, a lost connection), :class:`Refused` (for good: a finished game, a
seat taken), :class:`Conflict` (another server changed the game first), and
:class:`DamagedGame` for a game whose rows cannot be read.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Callable
from typing import Any, TypeVar

from dorf.server.storage.daily import DailyCalls
from dorf.server.storage.errors import Conflict, DamagedGame, Refused, StorageError, Unavailable
from dorf.server.storage.lobby import LobbyCalls
from dorf.server.storage.people import PeopleCalls
from dorf.server.storage.rows import (
    END,
    MOVE,
    SEAT,
    UNDO,
    Change,
    Client,
    Decide,
    RatedGame,
    RateUpdate,
    RatingChange,
    Stored,
    StoredGame,
    StoredPlayer,
    StoredRating,
    StoredSeat,
    StoredToken,
    TalkLine,
    decision_text,
    now,
    secret_hash,
)
from dorf.server.storage.sql import Dialect
from dorf.server.storage.talk import TalkCalls

T = TypeVar("T")


class Storage(PeopleCalls, DailyCalls, LobbyCalls, TalkCalls, ABC):
    """The server's games and what several servers share, in a database (its calls run in a
    thread of the storage's own: the event loop never waits for the database).

    The calls of players and ratings, of the daily challenge and of the lobby are written once,
    with their SQL, in :mod:`.people`, :mod:`.daily` and :mod:`.lobby` (each runs one
    transaction: :meth:`people`); what is left here is what each database does its own way."""

    #: This server's name among those sharing the database.
    instance: str
    #: How long a server thinks for a game's computer seats before another may take over, in s.
    lease: float
    #: How its database says what differs (:mod:`.sql`).
    dialect: Dialect

    @abstractmethod
    async def people(self, work: Callable[..., T], *args: Any) -> T:
        """``work(sql, *args)`` in one transaction, in the storage's thread."""

    @abstractmethod
    async def start(self) -> None: ...

    @abstractmethod
    async def close(self) -> None: ...

    @abstractmethod
    def counts(self) -> dict[str, int]:
        """Transactions and changes written so far, and changes waiting (``/api/health``)."""
        ...

    @abstractmethod
    def time_writes(self, timed: Callable[[float], None]) -> None:
        """Have ``timed`` told the seconds of each try to write a transaction of game changes
        (``/metrics``: ``dorf_storage_write_seconds``)."""

    @abstractmethod
    async def create_game(self, game: StoredGame, thinker: str | None) -> bool:
        """Store a new game; whether this server thinks for its computer seats."""
        ...

    @abstractmethod
    async def load_game(self, game_id: str) -> StoredGame | None:
        """One stored game (None if there is none); :class:`DamagedGame` if it cannot be read."""
        ...

    @abstractmethod
    def check(self, unsaved: int) -> None:
        """Raise :class:`Unavailable` if a new change of a game with ``unsaved`` changes not yet
        written may not be made now (the database has refused writes for too long)."""
        ...

    @abstractmethod
    async def commit(self, change: Change) -> Stored:
        """Store ``change`` (made in memory already): :class:`Conflict` if its game is no longer at
        the version it was made from, :class:`StorageError` if it cannot be stored now."""
        ...

    @abstractmethod
    async def claim_seat(
        self, change: Change, name: str, token_hash: str, player_id: str | None = None
    ) -> None:
        """An invited player (``player_id``) takes seat ``change.seat``: its invitation is used up
        and its token set (:class:`Refused` if it was taken meanwhile); the other servers are told."""
        ...

    @abstractmethod
    async def claim_thinking(self, game_id: str, version: int) -> bool:
        """Take the lease to think for a game's computer seats at ``version``, if nobody holds it
        (or its holder let it run out): whether this server has it now."""
        ...

    @abstractmethod
    async def versions(self, game_ids: list[str]) -> dict[str, int]:
        """The stored version of each of these games."""
        ...

    @abstractmethod
    async def deadlines(self) -> list[tuple[str, float, int]]:
        """``(game, deadline, version)`` of every unfinished game whose clock runs."""
        ...

    @abstractmethod
    async def admit(self, client: Client, decide: Decide[T]) -> T:
        """Count ``client`` (on every server sharing the database) if ``decide`` answers None;
        return what it answers."""
        ...

    @abstractmethod
    async def leave(self, client: Client) -> None:
        """``client`` is gone: count it no longer."""
        ...

    @abstractmethod
    async def hit(self, key: str, per_minute: int) -> float | None:
        """Count a request under ``key`` unless ``per_minute`` were counted in the last minute:
        None if counted, else the seconds to wait."""
        ...


__all__ = [
    "END",
    "MOVE",
    "SEAT",
    "UNDO",
    "Change",
    "Client",
    "Conflict",
    "DamagedGame",
    "Decide",
    "RateUpdate",
    "RatedGame",
    "RatingChange",
    "Refused",
    "Storage",
    "StorageError",
    "Stored",
    "StoredGame",
    "StoredPlayer",
    "StoredRating",
    "StoredSeat",
    "StoredToken",
    "TalkLine",
    "Unavailable",
    "decision_text",
    "now",
    "secret_hash",
]
