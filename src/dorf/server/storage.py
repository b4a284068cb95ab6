"""Games kept in the shared SQLite database (:mod:`dorf.db`), under the ``server_`` tables.

A game is stored as what determines it: mode, tile set, seed (and whether
its creator chose it), who starts, whether it is a practice game, its seats,
and its decisions in order, written by :mod:`dorf.server.writer` (the changes
of many games in one transaction, :meth:`Storage.write_changes`).  The server
reads a game when someone asks for it and replays it (the engine replays
exactly), so a restart resumes each game where it stood, with every change
acknowledged as saved.  A finished game never changes:
a decision for it, or taking one back, is refused here too.

Seat tokens and invitation codes are stored as SHA-256 hashes only.  A game
whose rows cannot be read (a decision that is not JSON, a damaged page of the
file) raises :class:`DamagedGame` with the reason, for that game alone.

A :class:`Storage` belongs to the thread that made it (the server's database
thread).

>>> store = Storage(":memory:")
>>> store.create_game(StoredGame("g1", "coop", "base", 7, False, "2026-01-01T00:00:00+00:00", False,
...     [StoredSeat(0, "here", "Ann", None, "h", None)], []))
>>> store.add_decision("g1", 1, 0, {"at": [0, 0], "rot": 0}, finished=False)
>>> store.load_game("g1").decisions
[{'at': [0, 0], 'rot': 0}]
"""

from __future__ import annotations

import hashlib
import json
import sqlite3
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, NamedTuple

from dorf.db import connect, migrate, transaction

SCHEMA: tuple[str, ...] = (
    """
    CREATE TABLE server_game (
        id TEXT PRIMARY KEY,
        mode TEXT NOT NULL CHECK (mode IN ('coop', 'duel', 'head-to-head')),
        tileset TEXT NOT NULL,
        seed BIGINT NOT NULL,
        undo INTEGER NOT NULL DEFAULT 0 CHECK (undo IN (0, 1)),
        created TEXT NOT NULL,
        updated TEXT NOT NULL,
        finished INTEGER NOT NULL DEFAULT 0 CHECK (finished IN (0, 1))
    );
    CREATE TABLE server_seat (
        game_id TEXT NOT NULL REFERENCES server_game (id) ON DELETE CASCADE,
        seat INTEGER NOT NULL CHECK (seat >= 0),
        kind TEXT NOT NULL CHECK (kind IN ('here', 'online', 'computer')),
        name TEXT NOT NULL,
        player TEXT,
        token_hash TEXT,
        invite_hash TEXT,
        PRIMARY KEY (game_id, seat)
    );
    CREATE TABLE server_decision (
        game_id TEXT NOT NULL REFERENCES server_game (id) ON DELETE CASCADE,
        number INTEGER NOT NULL CHECK (number >= 1),
        seat INTEGER NOT NULL,
        decision TEXT NOT NULL,
        made TEXT NOT NULL,
        PRIMARY KEY (game_id, number)
    );
    CREATE INDEX server_game_by_finished ON server_game (finished, updated)
    """,
    """
    ALTER TABLE server_game ADD COLUMN practice INTEGER NOT NULL DEFAULT 0 CHECK (practice IN (0, 1));
    ALTER TABLE server_game ADD COLUMN first INTEGER NOT NULL DEFAULT 1 CHECK (first >= 1)
    """,
    # Whoever created the game chose its seed.  Games stored before this step cannot say; a
    # seed below 2**32 was typed in, or drawn by the first server (random.randrange(1, 2**31):
    # not secret either), while one that secrets drew (63 bits) is below 2**32 once in 2**31.
    """
    ALTER TABLE server_game ADD COLUMN seed_chosen INTEGER NOT NULL DEFAULT 0 CHECK (seed_chosen IN (0, 1));
    UPDATE server_game SET seed_chosen = 1 WHERE seed < 4294967296
    """,
    # Several servers on one database (PostgreSQL): each game's version, the compare-and-set
    # that orders its changes; the key a client gave a move (made once, however often sent);
    # which server thinks for its computer seats, until when; the servers alive, their
    # clients, and the requests counted by the creation limits.
    """
    ALTER TABLE server_game ADD COLUMN version INTEGER NOT NULL DEFAULT 0;
    UPDATE server_game
        SET version = (SELECT count(*) FROM server_decision d WHERE d.game_id = server_game.id);
    ALTER TABLE server_game ADD COLUMN thinker TEXT;
    ALTER TABLE server_game ADD COLUMN think_until DOUBLE PRECISION;
    ALTER TABLE server_decision ADD COLUMN key TEXT;
    CREATE TABLE server_instance (id TEXT PRIMARY KEY, seen DOUBLE PRECISION NOT NULL);
    CREATE TABLE server_client (
        instance TEXT NOT NULL,
        id BIGINT NOT NULL,
        address TEXT NOT NULL,
        game_id TEXT NOT NULL,
        role TEXT NOT NULL CHECK (role IN ('watching', 'playing')),
        PRIMARY KEY (instance, id)
    );
    CREATE INDEX server_client_by_address ON server_client (address);
    CREATE INDEX server_client_by_game ON server_client (game_id);
    CREATE TABLE server_hit (key TEXT NOT NULL, at DOUBLE PRECISION NOT NULL);
    CREATE INDEX server_hit_by_key ON server_hit (key, at)
    """,
)


class DamagedGame(ValueError):
    """A stored game that cannot be read; the message is one line."""


class ChangeRow(NamedTuple):
    """One change of a game to write: decision ``number`` made by ``seat``, or with
    ``decision`` None an undo back to ``keep`` decisions; ``version`` is the game's version
    after it, ``key`` the key its client gave the move (if any)."""

    game_id: str
    number: int
    seat: int
    decision: dict[str, Any] | None
    finished: bool
    keep: int
    version: int = 0
    key: str | None = None


class GameOver(sqlite3.IntegrityError):
    """A change to a finished game, refused: a finished game never changes."""


class Unavailable(sqlite3.OperationalError):
    """The database cannot be reached now (PostgreSQL's connection lost, timed out): try again
    later, as with a locked SQLite file."""


def now() -> str:
    return datetime.now(UTC).isoformat(timespec="seconds")


def secret_hash(secret: str) -> str:
    """How a token or an invitation code is stored."""
    return hashlib.sha256(secret.encode()).hexdigest()


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


class Storage:
    """The server's tables in one database file (``:memory:`` for tests)."""

    def __init__(self, path: str | Path | None) -> None:
        self.conn = connect(path)
        # WAL with synchronous=NORMAL: a commit survives a crash of the server process
        # (the case that matters here) without an fsync per move.
        self.conn.execute("PRAGMA synchronous = NORMAL")
        migrate(self.conn, "server", SCHEMA)

    def close(self) -> None:
        self.conn.close()

    def create_game(self, game: StoredGame) -> None:
        with transaction(self.conn):
            self.conn.execute(
                "INSERT INTO server_game"
                " (id, mode, tileset, seed, undo, practice, first, created, updated, seed_chosen)"
                " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                game_rows(game),
            )
            self.conn.executemany(
                "INSERT INTO server_seat (game_id, seat, kind, name, player, token_hash, invite_hash)"
                " VALUES (?, ?, ?, ?, ?, ?, ?)",
                seat_rows(game),
            )

    def add_decision(
        self, game_id: str, number: int, seat: int, decision: dict[str, Any], *, finished: bool
    ) -> None:
        """Write decision ``number`` (1-based) of a game: all or nothing."""
        self.write_changes([ChangeRow(game_id, number, seat, decision, finished, 0)])

    def truncate(self, game_id: str, keep: int) -> None:
        """Drop every decision after the first ``keep`` (an undo)."""
        self.write_changes([ChangeRow(game_id, keep, 0, None, False, keep)])

    def write_changes(self, rows: Sequence[tuple[Any, ...]]) -> None:
        """Write changes of games in order, all in one transaction (all or nothing): each row a
        :class:`ChangeRow` (or its first six fields) (:mod:`dorf.server.writer`)."""
        stamp = now()
        touched: dict[str, tuple[bool, int | None]] = {}
        with transaction(self.conn):
            for change in (ChangeRow(*row) for row in rows):
                game_id, number, seat, decision, finished, keep, stored, key = change
                if touched.get(game_id, (False, 0))[0]:
                    raise GameOver(f"game {game_id} is over: a finished game never changes")
                if decision is None:
                    self.conn.execute(
                        "DELETE FROM server_decision WHERE game_id = ? AND number > ?", (game_id, keep)
                    )
                else:
                    self.conn.execute(
                        "INSERT INTO server_decision (game_id, number, seat, decision, made, key)"
                        " VALUES (?, ?, ?, ?, ?, ?)",
                        (game_id, number, seat, decision_text(decision), stamp, key),
                    )
                touched[game_id] = (decision is not None and finished, stored or None)
            for game_id, (done, version) in touched.items():  # and a finished game refuses them all
                changed = self.conn.execute(
                    "UPDATE server_game SET updated = ?, finished = ?, version = coalesce(?, version)"
                    " WHERE id = ? AND finished = 0",
                    (stamp, int(done), version, game_id),
                ).rowcount
                if changed != 1:
                    self._unfinished(game_id)  # raises why
                    raise sqlite3.IntegrityError(f"game {game_id} could not be changed")

    def claim_seat(self, game_id: str, seat: int, name: str, token_hash: str) -> None:
        """An invited player takes a seat: the invitation is used up, the token set."""
        with transaction(self.conn):
            self.conn.execute(
                "UPDATE server_seat SET name = ?, token_hash = ?, invite_hash = NULL"
                " WHERE game_id = ? AND seat = ?",
                (name, token_hash, game_id, seat),
            )

    def _unfinished(self, game_id: str) -> None:
        row = self.conn.execute("SELECT finished FROM server_game WHERE id = ?", (game_id,)).fetchone()
        if row is None:
            raise sqlite3.IntegrityError(f"there is no game {game_id}")
        if row[0]:
            raise GameOver(f"game {game_id} is over: a finished game never changes")

    def load_game(self, game_id: str) -> StoredGame | None:
        """One stored game with its seats and decisions; None if there is none.  Raises
        :class:`DamagedGame` if its rows cannot be read, sqlite3.OperationalError if the
        file cannot be read now (locked, gone)."""
        try:
            # Only this server's database thread writes the server's tables: no snapshot needed.
            row = self.conn.execute(GAME_QUERY.replace("%s", "?"), (game_id,)).fetchone()
            if row is None:
                return None
            seats = self.conn.execute(SEATS_QUERY.replace("%s", "?"), (game_id,)).fetchall()
            decisions = self.conn.execute(DECISIONS_QUERY.replace("%s", "?"), (game_id,)).fetchall()
        except sqlite3.OperationalError:
            raise
        except sqlite3.DatabaseError as exc:
            raise DamagedGame(f"its rows in the database file are damaged ({exc})") from None
        return stored_game(row, seats, decisions)


#: How a stored game is read (``%s`` for its id), the same on SQLite and PostgreSQL.
GAME_QUERY = (
    "SELECT id, mode, tileset, seed, practice, created, finished, first, seed_chosen, version"
    " FROM server_game WHERE id = %s"
)
SEATS_QUERY = (
    "SELECT seat, kind, name, player, token_hash, invite_hash FROM server_seat"
    " WHERE game_id = %s ORDER BY seat"
)
DECISIONS_QUERY = "SELECT number, decision, key FROM server_decision WHERE game_id = %s ORDER BY number"


def game_rows(game: StoredGame) -> tuple[Any, ...]:
    """The values of a new game's row: id, mode, tileset, seed, undo, practice, first, created,
    updated, seed_chosen."""
    return (
        game.id,
        game.mode,
        game.tileset,
        game.seed,
        int(game.practice),
        int(game.practice),
        game.first,
        game.created,
        game.created,
        int(game.seed_chosen),
    )


def seat_rows(game: StoredGame) -> list[tuple[Any, ...]]:
    """The rows of a new game's seats."""
    return [(game.id, s.index, s.kind, s.name, s.player, s.token_hash, s.invite_hash) for s in game.seats]


def decision_text(decision: dict[str, Any]) -> str:
    """How a decision is stored: compact JSON."""
    return json.dumps(decision, separators=(",", ":"))


def stored_game(
    row: Sequence[Any], seats: Iterable[Sequence[Any]], decisions: Iterable[Sequence[Any]]
) -> StoredGame:
    """A game from its rows (of :data:`GAME_QUERY`, :data:`SEATS_QUERY` and
    :data:`DECISIONS_QUERY`); raises :class:`DamagedGame` if they do not make one."""
    gid, mode, tileset, seed, practice, created, finished, first, chosen, version = row
    game = StoredGame(
        gid,
        mode,
        tileset,
        seed,
        bool(practice),
        created,
        bool(finished),
        [],
        [],
        first,
        bool(chosen),
        version,
    )
    for seat, kind, name, player, token_hash, invite_hash in seats:
        game.seats.append(StoredSeat(seat, kind, name, player, token_hash, invite_hash))
    if [s.index for s in game.seats] != list(range(len(game.seats))) or not game.seats:
        raise DamagedGame("its seats are missing or out of order")
    for expected, (number, text, key) in enumerate(decisions, 1):
        if number != expected:
            raise DamagedGame(f"decision {expected} is missing")
        try:
            decision = json.loads(text)
        except (TypeError, ValueError, RecursionError):
            raise DamagedGame(f"decision {number} is not JSON") from None
        if not isinstance(decision, dict):
            raise DamagedGame(f"decision {number} is not a JSON object")
        game.decisions.append(decision)
        game.keys.append(key)
    game.version = max(game.version, len(game.decisions))
    return game
