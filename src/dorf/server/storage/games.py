"""The games' rows, written once for both databases: a new game, a game read back, a seat taken,
the clocks that run (each function runs in the caller's transaction,
:class:`~dorf.server.storage.sql.Sql`).  How changes of a game are written differs by design,
not by dialect: behind, many in one transaction, on a SQLite file alone
(:meth:`~dorf.server.storage.sqlite.SqliteTables.write_changes`); first, by compare-and-set on
the game's version, on a shared PostgreSQL database
(:meth:`~dorf.server.storage.postgres.PostgresTables.commit_changes`).

A game is stored as what determines it: mode, tile set, seed (and whether its
creator chose it), who starts, whether it is a practice game, its seats, and
its decisions in order.  The server reads a game when someone asks for it and
replays it (the engine replays exactly), so a restart resumes each game where
it stood.  Seat tokens and invitation codes are stored as SHA-256 hashes only.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Sequence
from typing import Any

from dorf.server.storage.errors import DamagedGame, Refused
from dorf.server.storage.rows import Change, StoredGame, StoredSeat
from dorf.server.storage.sql import Sql

#: The channel on which servers tell each other of the changes they stored.
CHANNEL = "dorf_change"

#: A new game's clock; the clock started when the last seat is taken.
CLOCK_CREATED = "UPDATE server_game SET clock = %s, clock_state = %s, deadline = %s WHERE id = %s"
CLOCK_STARTED = "UPDATE server_game SET clock_state = %s, deadline = %s WHERE id = %s AND finished = 0"
#: The unfinished games whose clocks run: ``(id, deadline, version)``.
DEADLINES_QUERY = "SELECT id, deadline, version FROM server_game WHERE finished = 0 AND deadline IS NOT NULL"


#: How a stored game is read (``%s`` for its id), the same on SQLite and PostgreSQL.
GAME_QUERY = (
    "SELECT id, mode, tileset, seed, practice, created, finished, first, seed_chosen, version, rated,"
    " clock, clock_state, deadline, end_reason, end_winner, daily"
    " FROM server_game WHERE id = %s"
)
SEATS_QUERY = (
    "SELECT seat, kind, name, player, token_hash, invite_hash, player_id FROM server_seat"
    " WHERE game_id = %s ORDER BY seat"
)
DECISIONS_QUERY = "SELECT number, decision, key FROM server_decision WHERE game_id = %s ORDER BY number"


def game_rows(game: StoredGame) -> tuple[Any, ...]:
    """The values of a new game's row: id, mode, tileset, seed, undo, practice, first, created,
    updated, seed_chosen, rated, daily."""
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
        int(game.rated),
        game.daily,
    )


def seat_rows(game: StoredGame) -> list[tuple[Any, ...]]:
    """The rows of a new game's seats."""
    return [
        (game.id, s.index, s.kind, s.name, s.player, s.token_hash, s.invite_hash, s.player_id)
        for s in game.seats
    ]


def stored_game(
    row: Sequence[Any], seats: Iterable[Sequence[Any]], decisions: Iterable[Sequence[Any]]
) -> StoredGame:
    """A game from its rows (of :data:`GAME_QUERY`, :data:`SEATS_QUERY` and
    :data:`DECISIONS_QUERY`); raises :class:`DamagedGame` if they do not make one."""
    gid, mode, tileset, seed, practice, created, finished, first, chosen, version, rated = row[:11]
    clock, clock_state, deadline, end, winner = row[11:16]  # the clock's columns
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
        rated=bool(rated),
    )
    for seat, kind, name, player, token_hash, invite_hash, player_id in seats:
        game.seats.append(StoredSeat(seat, kind, name, player, token_hash, invite_hash, player_id))
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
    game.clock, game.clock_state, game.deadline = clock, clock_state, deadline
    game.end, game.winner = end, winner
    game.daily = row[16]
    return game


class GamesTables:
    """A game's rows; each method runs in the caller's transaction."""

    @staticmethod
    def create(sql: Sql, game: StoredGame, thinker: str | None, lease: float) -> None:
        """Store a new game, its seats and its clock; ``thinker`` thinks for its computer seats
        for ``lease`` seconds (None: nobody holds the lease)."""
        sql(
            "INSERT INTO server_game (id, mode, tileset, seed, undo, practice, first, created, updated,"
            " seed_chosen, rated, daily, thinker, think_until)"
            f" VALUES (%s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s, {sql.epoch} + %s)",
            (*game_rows(game), thinker, None if thinker is None else lease),
        )
        sql.many(
            "INSERT INTO server_seat (game_id, seat, kind, name, player, token_hash, invite_hash,"
            " player_id) VALUES (%s, %s, %s, %s, %s, %s, %s, %s)",
            seat_rows(game),
        )
        if game.clock is not None:
            sql(CLOCK_CREATED, (game.clock, game.clock_state, game.deadline, game.id))

    @staticmethod
    def load(sql: Sql, game_id: str) -> StoredGame | None:
        """One stored game with its seats and decisions; None if there is none."""
        row = sql(GAME_QUERY, (game_id,)).fetchone()
        if row is None:
            return None
        seats = sql(SEATS_QUERY, (game_id,)).fetchall()
        decisions = sql(DECISIONS_QUERY, (game_id,)).fetchall()
        return stored_game(row, seats, decisions)

    @staticmethod
    def claim_seat(sql: Sql, change: Change, name: str, token_hash: str, player_id: str | None) -> None:
        """An invited player takes a seat, once (:class:`Refused` if it was taken meanwhile): the
        invitation is used up, the token set, the clock started if it was the last seat; the
        other servers are told."""
        taken = sql(
            "UPDATE server_seat SET name = %s, token_hash = %s, invite_hash = NULL, player_id = %s"
            " WHERE game_id = %s AND seat = %s AND invite_hash IS NOT NULL",
            (name, token_hash, player_id, change.game, change.seat),
        ).rowcount
        if taken != 1:
            raise Refused("this seat was taken meanwhile (ask for a new link)")
        if change.clock is not None:  # the last seat taken: the clock starts
            sql(CLOCK_STARTED, (change.clock, change.deadline, change.game))
        sql.notify(CHANNEL, change.payload())

    @staticmethod
    def deadlines(sql: Sql) -> list[tuple[str, float, int]]:
        """``(game, deadline, version)`` of every unfinished game whose clock runs."""
        return [(gid, float(d), int(v)) for gid, d, v in sql(DEADLINES_QUERY).fetchall()]
