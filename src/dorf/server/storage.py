"""Games kept in the shared SQLite database (:mod:`dorf.db`), under the ``server_`` tables.

A game is stored as what determines it: mode, tile set, seed, its seats, and
its decisions in order, each written in its own transaction before anyone
hears of it.  On start the server replays every game from these rows (the
engine replays exactly), so a restart resumes each game where it stood and a
crash loses at most the move being made.

Seat tokens and invitation codes are stored as SHA-256 hashes only.

>>> store = Storage(":memory:")
>>> store.create_game(StoredGame("g1", "coop", "base", 7, False, "2026-01-01T00:00:00+00:00", False,
...     [StoredSeat(0, "here", "Ann", None, "h", None)], []))
>>> store.add_decision("g1", 1, 0, {"at": [0, 0], "rot": 0}, finished=False)
>>> [g.decisions for g in store.load_games()]
[[{'at': [0, 0], 'rot': 0}]]
"""

from __future__ import annotations

import hashlib
import json
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
)


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
    undo: bool
    created: str
    finished: bool
    seats: list[StoredSeat]
    decisions: list[dict[str, Any]]


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
                "INSERT INTO server_game (id, mode, tileset, seed, undo, created, updated)"
                " VALUES (?, ?, ?, ?, ?, ?, ?)",
                (game.id, game.mode, game.tileset, game.seed, int(game.undo), game.created, game.created),
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
        stamp = now()
        with transaction(self.conn):
            self.conn.execute(
                "INSERT INTO server_decision (game_id, number, seat, decision, made) VALUES (?, ?, ?, ?, ?)",
                (game_id, number, seat, json.dumps(decision, separators=(",", ":")), stamp),
            )
            self.conn.execute(
                "UPDATE server_game SET updated = ?, finished = ? WHERE id = ?",
                (stamp, int(finished), game_id),
            )

    def truncate(self, game_id: str, keep: int) -> None:
        """Drop every decision after the first ``keep`` (an undo)."""
        with transaction(self.conn):
            self.conn.execute("DELETE FROM server_decision WHERE game_id = ? AND number > ?", (game_id, keep))
            self.conn.execute(
                "UPDATE server_game SET updated = ?, finished = 0 WHERE id = ?", (now(), game_id)
            )

    def claim_seat(self, game_id: str, seat: int, name: str, token_hash: str) -> None:
        """An invited player takes a seat: the invitation is used up, the token set."""
        with transaction(self.conn):
            self.conn.execute(
                "UPDATE server_seat SET name = ?, token_hash = ?, invite_hash = NULL"
                " WHERE game_id = ? AND seat = ?",
                (name, token_hash, game_id, seat),
            )

    def load_games(self) -> list[StoredGame]:
        """Every stored game with its seats and decisions."""
        games: dict[str, StoredGame] = {}
        for gid, mode, tileset, seed, undo, created, finished in self.conn.execute(
            "SELECT id, mode, tileset, seed, undo, created, finished FROM server_game ORDER BY created, id"
        ):
            games[gid] = StoredGame(gid, mode, tileset, seed, bool(undo), created, bool(finished), [], [])
        for gid, seat, kind, name, player, token_hash, invite_hash in self.conn.execute(
            "SELECT game_id, seat, kind, name, player, token_hash, invite_hash FROM server_seat"
            " ORDER BY game_id, seat"
        ):
            games[gid].seats.append(StoredSeat(seat, kind, name, player, token_hash, invite_hash))
        for gid, text in self.conn.execute(
            "SELECT game_id, decision FROM server_decision ORDER BY game_id, number"
        ):
            games[gid].decisions.append(json.loads(text))
        return list(games.values())
