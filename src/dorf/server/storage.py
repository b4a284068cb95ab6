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
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from dorf.db import connect, migrate, transaction

SCHEMA: tuple[str, ...] = (
    """
    CREATE TABLE server_game (
        id TEXT PRIMARY KEY,
        mode TEXT NOT NULL CHECK (mode IN ('coop', 'duel', 'head-to-head')),
        tileset TEXT NOT NULL,
        seed INTEGER NOT NULL,
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
)


class DamagedGame(ValueError):
    """A stored game that cannot be read; the message is one line."""


#: One change of a game to write: (game id, decision number, seat, decision or None for an
#: undo, finished, decisions kept by the undo).
ChangeRow = tuple[str, int, int, dict[str, Any] | None, bool, int]


class GameOver(sqlite3.IntegrityError):
    """A change to a finished game, refused: a finished game never changes."""


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
                (
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
                ),
            )
            self.conn.executemany(
                "INSERT INTO server_seat (game_id, seat, kind, name, player, token_hash, invite_hash)"
                " VALUES (?, ?, ?, ?, ?, ?, ?)",
                [
                    (game.id, s.index, s.kind, s.name, s.player, s.token_hash, s.invite_hash)
                    for s in game.seats
                ],
            )

    def add_decision(
        self, game_id: str, number: int, seat: int, decision: dict[str, Any], *, finished: bool
    ) -> None:
        """Write decision ``number`` (1-based) of a game: all or nothing."""
        self.write_changes([(game_id, number, seat, decision, finished, 0)])

    def truncate(self, game_id: str, keep: int) -> None:
        """Drop every decision after the first ``keep`` (an undo)."""
        self.write_changes([(game_id, keep, 0, None, False, keep)])

    def write_changes(self, rows: list[ChangeRow]) -> None:
        """Write changes of games in order, all in one transaction (all or nothing): each row is
        ``(game id, number, seat, decision, finished, keep)``, a decision ``number``, or with
        decision None an undo back to ``keep`` decisions (:mod:`dorf.server.writer`)."""
        stamp = now()
        touched: dict[str, bool] = {}
        with transaction(self.conn):
            for game_id, number, seat, decision, finished, keep in rows:
                if touched.get(game_id):
                    raise GameOver(f"game {game_id} is over: a finished game never changes")
                if decision is None:
                    self.conn.execute(
                        "DELETE FROM server_decision WHERE game_id = ? AND number > ?", (game_id, keep)
                    )
                else:
                    self.conn.execute(
                        "INSERT INTO server_decision (game_id, number, seat, decision, made)"
                        " VALUES (?, ?, ?, ?, ?)",
                        (game_id, number, seat, json.dumps(decision, separators=(",", ":")), stamp),
                    )
                touched[game_id] = decision is not None and finished
            for game_id, done in touched.items():  # and a finished game refuses them all
                changed = self.conn.execute(
                    "UPDATE server_game SET updated = ?, finished = ? WHERE id = ? AND finished = 0",
                    (stamp, int(done), game_id),
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
            row = self.conn.execute(
                "SELECT id, mode, tileset, seed, practice, created, finished, first, seed_chosen"
                " FROM server_game WHERE id = ?",
                (game_id,),
            ).fetchone()
            if row is None:
                return None
            gid, mode, tileset, seed, practice, created, finished, first, chosen = row
            game = StoredGame(
                gid, mode, tileset, seed, bool(practice), created, bool(finished), [], [], first, bool(chosen)
            )
            for seat, kind, name, player, token_hash, invite_hash in self.conn.execute(
                "SELECT seat, kind, name, player, token_hash, invite_hash FROM server_seat"
                " WHERE game_id = ? ORDER BY seat",
                (game_id,),
            ):
                game.seats.append(StoredSeat(seat, kind, name, player, token_hash, invite_hash))
            rows = self.conn.execute(
                "SELECT number, decision FROM server_decision WHERE game_id = ? ORDER BY number", (game_id,)
            ).fetchall()
        except sqlite3.OperationalError:
            raise
        except sqlite3.DatabaseError as exc:
            raise DamagedGame(f"its rows in the database file are damaged ({exc})") from None
        if [s.index for s in game.seats] != list(range(len(game.seats))) or not game.seats:
            raise DamagedGame("its seats are missing or out of order")
        for expected, (number, text) in enumerate(rows, 1):
            if number != expected:
                raise DamagedGame(f"decision {expected} is missing")
            try:
                decision = json.loads(text)
            except (TypeError, ValueError, RecursionError):
                raise DamagedGame(f"decision {number} is not JSON") from None
            if not isinstance(decision, dict):
                raise DamagedGame(f"decision {number} is not a JSON object")
            game.decisions.append(decision)
        return game
