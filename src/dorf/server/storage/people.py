"""The players' and ratings' rows, on both databases (the players themselves are
:mod:`dorf.server.players`): one :class:`PeopleTables` whose SQL is written once, run by
:class:`~dorf.server.storage.sqlite.SqliteStorage` and
:class:`~dorf.server.storage.postgres.PostgresStorage` in a transaction of their own.

- ``server_player``: a player (an id, a name unique by its skeleton: ``name_key``, whether it
  is a bot account or a computer level, when it was made, and ``fresh`` until the sweep has
  looked at it: removed if it never played, kept for good if it did);
- ``server_name_hold``: a name given up by a rename (its key), held for its player until
  ``until`` (seconds since 1970): nobody else takes it meanwhile;
- ``server_session``: the hashes of the cookies' secrets, each naming one player (a device);
- ``server_password``: a player's argon2id password hash (none: it never set one);
- ``server_token``: the hashes of a player's API tokens (bots), each with an id (the hash's
  first 16 digits: what lists and revokes it), a label, and when it was made and last used;
- ``server_rating``: a player's Glicko-2 rating per mode, and when it last played rated;
- ``server_rating_game``: one row per rated game and player (the history), whose key
  ``(game_id, player_id)`` is what makes a game rated once: the rows are written in the
  transaction that changes the ratings, after the two players' rows are locked (``FOR UPDATE``
  on PostgreSQL, in the order of their ids; SQLite's ``BEGIN IMMEDIATE`` locks the file), so a
  second server rating the same game waits, then finds the rows and changes nothing, and two
  games of one player ending at once on two servers are rated one after the other.

A seat records its player (``server_seat.player_id``) and a game whether it is rated
(``server_game.rated``).  Only hashes of secrets are stored: the cookie's secret and the API
tokens as SHA-256 (:func:`~dorf.server.storage.base.secret_hash`: they are long and random),
passwords with argon2id (people choose them).
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from typing import Any, TypeVar

from dorf.server.storage.errors import Refused
from dorf.server.storage.rows import (
    RatedGame,
    RateUpdate,
    RatingChange,
    StoredPlayer,
    StoredRating,
    StoredToken,
    name_key,
    name_key_sql,
    now,
)
from dorf.server.storage.sql import Sql

T = TypeVar("T")

SCHEMA_STEP = """
    CREATE TABLE server_player (
        id TEXT PRIMARY KEY,
        name TEXT NOT NULL,
        name_key TEXT NOT NULL UNIQUE,
        bot INTEGER NOT NULL DEFAULT 0 CHECK (bot IN (0, 1)),
        created TEXT NOT NULL
    );
    CREATE TABLE server_session (
        secret_hash TEXT PRIMARY KEY,
        player_id TEXT NOT NULL REFERENCES server_player (id) ON DELETE CASCADE,
        created TEXT NOT NULL
    );
    CREATE INDEX server_session_by_player ON server_session (player_id);
    CREATE TABLE server_password (
        player_id TEXT PRIMARY KEY REFERENCES server_player (id) ON DELETE CASCADE,
        hash TEXT NOT NULL,
        set_at TEXT NOT NULL
    );
    CREATE TABLE server_token (
        token_hash TEXT PRIMARY KEY,
        player_id TEXT NOT NULL REFERENCES server_player (id) ON DELETE CASCADE,
        created TEXT NOT NULL
    );
    CREATE TABLE server_rating (
        player_id TEXT NOT NULL REFERENCES server_player (id) ON DELETE CASCADE,
        mode TEXT NOT NULL,
        rating DOUBLE PRECISION NOT NULL,
        rd DOUBLE PRECISION NOT NULL,
        volatility DOUBLE PRECISION NOT NULL,
        games INTEGER NOT NULL CHECK (games >= 0),
        played DOUBLE PRECISION NOT NULL,
        PRIMARY KEY (player_id, mode)
    );
    CREATE TABLE server_rating_game (
        game_id TEXT NOT NULL,
        player_id TEXT NOT NULL REFERENCES server_player (id) ON DELETE CASCADE,
        mode TEXT NOT NULL,
        opponent_id TEXT NOT NULL,
        score DOUBLE PRECISION NOT NULL,
        rating_before DOUBLE PRECISION NOT NULL,
        rating_after DOUBLE PRECISION NOT NULL,
        rd_after DOUBLE PRECISION NOT NULL,
        ended DOUBLE PRECISION NOT NULL,
        PRIMARY KEY (game_id, player_id)
    );
    CREATE INDEX server_rating_game_by_player ON server_rating_game (player_id, ended);
    ALTER TABLE server_seat ADD COLUMN player_id TEXT;
    ALTER TABLE server_game ADD COLUMN rated INTEGER NOT NULL DEFAULT 0 CHECK (rated IN (0, 1))
"""

#: API tokens listed and revoked (issue 60): an id (the hash's first 16 hex digits: the hash of a
#: random secret, so it says nothing of the token), a label, and when it was last used (noted at
#: most once a minute per token and server, so a bot's requests do not each pay a write).
TOKENS_STEP = """
    ALTER TABLE server_token ADD COLUMN id TEXT;
    ALTER TABLE server_token ADD COLUMN label TEXT NOT NULL DEFAULT '';
    ALTER TABLE server_token ADD COLUMN last_used TEXT;
    UPDATE server_token SET id = substr(token_hash, 1, 16);
    CREATE UNIQUE INDEX server_token_by_id ON server_token (id);
    CREATE INDEX server_token_by_player ON server_token (player_id)
"""
#: How long a token's id is: the first digits of its hash.
TOKEN_ID = 16

#: Rated results past the day's limit between two players (issue 60): recorded as played, not
#: counted (``counted`` 0, the ratings as they were); the index counts a pair's results of a day.
COUNTED_STEP = """
    ALTER TABLE server_rating_game ADD COLUMN counted INTEGER NOT NULL DEFAULT 1 CHECK (counted IN (0, 1));
    CREATE INDEX server_rating_game_by_pair ON server_rating_game (player_id, opponent_id, ended)
"""
#: The window of the limit on rated results between two players: a day, in seconds.
PAIR_DAY = 86400.0

#: Players made only when needed, names told apart by their skeletons (issue 60): ``fresh`` marks
#: a player made for a visitor and not yet looked at by the sweep (every player there was before
#: this step is looked at once); the seats' index finds a player's games; a name given up is held
#: for its player a while (``server_name_hold``); the names' keys become their skeletons, and of
#: two names alike once folded, the newer player's is renamed ``Renamed-`` and 12 characters of
#: its id (the older keeps its name).
NAMES_STEP = f"""
    ALTER TABLE server_player ADD COLUMN fresh INTEGER NOT NULL DEFAULT 0 CHECK (fresh IN (0, 1));
    UPDATE server_player SET fresh = 1 WHERE bot = 0;
    CREATE INDEX server_player_fresh ON server_player (created) WHERE fresh = 1;
    CREATE INDEX server_seat_by_player ON server_seat (player_id);
    CREATE TABLE server_name_hold (
        name_key TEXT PRIMARY KEY,
        player_id TEXT NOT NULL REFERENCES server_player (id) ON DELETE CASCADE,
        until DOUBLE PRECISION NOT NULL
    );
    UPDATE server_player SET name = 'Renamed-' || substr(id, 1, 12)
        WHERE EXISTS (SELECT 1 FROM server_player o
            WHERE {name_key_sql("o.name")} = {name_key_sql("server_player.name")}
            AND (o.created < server_player.created
                OR (o.created = server_player.created AND o.id < server_player.id)));
    UPDATE server_player SET name_key = '#' || id;
    UPDATE server_player SET name_key = {name_key_sql("name")}
"""

_PLAYER = (
    "SELECT p.id, p.name, p.bot, (SELECT count(*) FROM server_password w WHERE w.player_id = p.id),"
    " p.created, p.banned FROM server_player p"
)
_RATING = "SELECT mode, rating, rd, volatility, games, played FROM server_rating"
_CHANGE = (
    "SELECT r.game_id, r.mode, r.player_id, r.opponent_id, coalesce(o.name, ''), r.score,"
    " r.rating_before, r.rating_after, r.rd_after, r.ended, r.counted = 1"
    " FROM server_rating_game r LEFT JOIN server_player o ON o.id = r.opponent_id"
)


#: What a player who never played is: no seat in any game, no daily attempt, no rated game, no
#: seek or open game in the lobby, no password, no API token and no campaign (``p``: the player's
#: row).
NEVER_PLAYED = (
    "p.bot = 0"
    " AND NOT EXISTS (SELECT 1 FROM server_seat s WHERE s.player_id = p.id)"
    " AND NOT EXISTS (SELECT 1 FROM server_daily_result d WHERE d.player_id = p.id)"
    " AND NOT EXISTS (SELECT 1 FROM server_rating_game r WHERE r.player_id = p.id)"
    " AND NOT EXISTS (SELECT 1 FROM lobby_seek k WHERE k.player = p.id)"
    " AND NOT EXISTS (SELECT 1 FROM lobby_game g WHERE g.creator = p.id)"
    " AND NOT EXISTS (SELECT 1 FROM server_password w WHERE w.player_id = p.id)"
    " AND NOT EXISTS (SELECT 1 FROM server_token t WHERE t.player_id = p.id)"
    " AND NOT EXISTS (SELECT 1 FROM server_campaign_member c WHERE c.player_id = p.id)"
)


def _held(sql: Sql, key: str, player_id: str, at: float) -> bool:
    """Whether ``key`` is a name another player gave up less than its hold ago."""
    row = sql("SELECT player_id, until FROM server_name_hold WHERE name_key = %s", (key,)).fetchone()
    return row is not None and row[0] != player_id and float(row[1]) > at


def _change(row: Sequence[Any]) -> RatingChange:
    """A row of :data:`_CHANGE` (its last column: whether the result counted, 1 or true)."""
    game_id, mode, player_id, opponent_id, name, score, before, after, rd, ended, counted = row
    numbers = (score, before, after, rd, ended)
    return RatingChange(game_id, mode, player_id, opponent_id, name, *numbers, bool(counted))


def _player(row: Sequence[Any]) -> StoredPlayer:
    return StoredPlayer(row[0], row[1], bool(row[2]), bool(row[3]), row[4], row[5])


class PeopleTables:
    """Players, their secrets and their ratings; each method runs in the caller's transaction."""

    @staticmethod
    def new_player(sql: Sql, player: StoredPlayer, session_hash: str | None, at: float) -> None:
        key = name_key(player.name)
        if sql("SELECT 1 FROM server_player WHERE name_key = %s", (key,)).fetchone() is not None:
            raise Refused(f"the name {player.name} is taken")
        if _held(sql, key, player.id, at):
            raise Refused(f"the name {player.name} was given up a short while ago: it is held")
        sql(
            "INSERT INTO server_player (id, name, name_key, bot, created, fresh)"
            " VALUES (%s, %s, %s, %s, %s, %s)",
            (player.id, player.name, key, int(player.bot), player.created or now(), int(not player.bot)),
        )
        if session_hash is not None:
            PeopleTables.add_session(sql, player.id, session_hash)

    @staticmethod
    def find_player(sql: Sql, session: str, token: str, name: str) -> StoredPlayer | None:
        if session:
            where, arg = "p.id = (SELECT player_id FROM server_session WHERE secret_hash = %s)", session
        elif token:
            where, arg = "p.id = (SELECT player_id FROM server_token WHERE token_hash = %s)", token
        elif name:
            where, arg = "p.name_key = %s", name_key(name)
        else:
            return None
        row = sql(f"{_PLAYER} WHERE {where}", (arg,)).fetchone()
        return None if row is None else _player(row)

    @staticmethod
    def players_by_id(sql: Sql, ids: list[str]) -> dict[str, StoredPlayer]:
        found: dict[str, StoredPlayer] = {}
        wanted = sorted(set(ids))
        for start in range(0, len(wanted), 100):
            chunk = wanted[start : start + 100]
            marks = ", ".join(["%s"] * len(chunk))
            for row in sql(f"{_PLAYER} WHERE p.id IN ({marks})", chunk).fetchall():
                found[row[0]] = _player(row)
        return found

    @staticmethod
    def rename_player(sql: Sql, player_id: str, name: str, at: float, hold_until: float) -> None:
        key = name_key(name)
        other = sql("SELECT id FROM server_player WHERE name_key = %s", (key,)).fetchone()
        if other is not None and other[0] != player_id:
            raise Refused(f"the name {name} is taken")
        if _held(sql, key, player_id, at):
            raise Refused(f"the name {name} was given up a short while ago: it is held")
        row = sql("SELECT name_key FROM server_player WHERE id = %s", (player_id,)).fetchone()
        if row is None:
            raise Refused("there is no such player")
        sql("UPDATE server_player SET name = %s, name_key = %s WHERE id = %s", (name, key, player_id))
        sql("DELETE FROM server_name_hold WHERE name_key = %s", (key,))  # taken back, or free again
        if row[0] != key and hold_until > at:  # the name given up: held for its player a while
            sql(
                "INSERT INTO server_name_hold (name_key, player_id, until) VALUES (%s, %s, %s)"
                " ON CONFLICT (name_key) DO UPDATE"
                " SET player_id = excluded.player_id, until = excluded.until",
                (row[0], player_id, hold_until),
            )

    @staticmethod
    def forget_player(sql: Sql, player_id: str) -> bool:
        """Remove a player made for a request that failed, unless it has played meanwhile."""
        gone = sql(
            f"DELETE FROM server_player WHERE id IN"
            f" (SELECT p.id FROM server_player p WHERE p.id = %s AND {NEVER_PLAYED})",
            (player_id,),
        ).rowcount
        return bool(gone == 1)

    @staticmethod
    def sweep_players(sql: Sql, before: str, at: float, limit: int) -> tuple[int, int]:
        """Of the new players made before ``before`` (at most ``limit``, the oldest first), remove
        those who never played and keep the others for good (no longer ``fresh``: each player is
        looked at once); forget the name holds over at ``at``.  ``(looked at, removed)``."""
        ids = [
            row[0]
            for row in sql(
                "SELECT id FROM server_player WHERE fresh = 1 AND created < %s ORDER BY created, id LIMIT %s",
                (before, limit),
            ).fetchall()
        ]
        sql("DELETE FROM server_name_hold WHERE until <= %s", (at,))
        if not ids:
            return 0, 0
        marks = ", ".join(["%s"] * len(ids))
        gone = sql(
            f"DELETE FROM server_player WHERE id IN (SELECT p.id FROM server_player p"
            f" WHERE p.id IN ({marks}) AND {NEVER_PLAYED})",
            ids,
        ).rowcount
        sql(f"UPDATE server_player SET fresh = 0 WHERE id IN ({marks})", ids)
        return len(ids), int(gone)

    @staticmethod
    def password_of(sql: Sql, player_id: str) -> str | None:
        row = sql("SELECT hash FROM server_password WHERE player_id = %s", (player_id,)).fetchone()
        return None if row is None else str(row[0])

    @staticmethod
    def set_password(
        sql: Sql, player_id: str, password_hash: str, keep_session: str | None, end_tokens: bool
    ) -> None:
        sql(
            "INSERT INTO server_password (player_id, hash, set_at) VALUES (%s, %s, %s)"
            " ON CONFLICT (player_id) DO UPDATE SET hash = excluded.hash, set_at = excluded.set_at",
            (player_id, password_hash, now()),
        )
        sql(
            "DELETE FROM server_session WHERE player_id = %s AND secret_hash <> %s",
            (player_id, keep_session or ""),
        )
        if end_tokens:
            sql("DELETE FROM server_token WHERE player_id = %s", (player_id,))

    @staticmethod
    def add_session(sql: Sql, player_id: str, session_hash: str) -> None:
        sql(
            "INSERT INTO server_session (secret_hash, player_id, created) VALUES (%s, %s, %s)",
            (session_hash, player_id, now()),
        )

    @staticmethod
    def end_session(sql: Sql, session_hash: str) -> None:
        sql("DELETE FROM server_session WHERE secret_hash = %s", (session_hash,))

    @staticmethod
    def add_token(sql: Sql, player_id: str, token_hash: str, label: str, limit: int) -> str:
        if limit > 0:
            # The player's row locked (PostgreSQL): two requests at once do not both pass the count.
            sql(f"SELECT id FROM server_player WHERE id = %s{sql.lock}", (player_id,)).fetchone()
            (count,) = sql("SELECT count(*) FROM server_token WHERE player_id = %s", (player_id,)).fetchone()
            if count >= limit:
                raise Refused(f"a player has at most {limit} API tokens")
        token_id = token_hash[:TOKEN_ID]
        sql(
            "INSERT INTO server_token (token_hash, player_id, created, id, label)"
            " VALUES (%s, %s, %s, %s, %s)",
            (token_hash, player_id, now(), token_id, label),
        )
        sql("UPDATE server_player SET bot = 1 WHERE id = %s", (player_id,))
        return token_id

    @staticmethod
    def tokens_of(sql: Sql, player_id: str) -> list[StoredToken]:
        rows = sql(
            "SELECT id, label, created, last_used FROM server_token"
            " WHERE player_id = %s ORDER BY created, id",
            (player_id,),
        ).fetchall()
        return [StoredToken(*row) for row in rows]

    @staticmethod
    def revoke_token(sql: Sql, player_id: str, token_id: str) -> bool:
        gone = sql(
            "DELETE FROM server_token WHERE player_id = %s AND id = %s", (player_id, token_id)
        ).rowcount
        return bool(gone == 1)

    @staticmethod
    def token_used(sql: Sql, token_hash: str, when: str, before: str) -> None:
        sql(
            "UPDATE server_token SET last_used = %s WHERE token_hash = %s"
            " AND (last_used IS NULL OR last_used < %s)",
            (when, token_hash, before),
        )

    @staticmethod
    def end_sessions(sql: Sql, player_id: str, keep_session: str | None, tokens: bool) -> None:
        sql(
            "DELETE FROM server_session WHERE player_id = %s AND secret_hash <> %s",
            (player_id, keep_session or ""),
        )
        if tokens:
            sql("DELETE FROM server_token WHERE player_id = %s", (player_id,))

    @staticmethod
    def ratings_of(sql: Sql, player_id: str) -> list[StoredRating]:
        rows = sql(f"{_RATING} WHERE player_id = %s ORDER BY mode", (player_id,)).fetchall()
        return [StoredRating(*row) for row in rows]

    @staticmethod
    def rate_game(sql: Sql, game: RatedGame, update: RateUpdate) -> list[RatingChange] | None:
        a, b = game.players
        if a == b:
            raise Refused("a player is not rated against themselves")
        ratings: dict[str, StoredRating] = {}
        for player_id in sorted(game.players):  # always in one order: two servers never deadlock
            # The player's row exists (a rating's may not yet): locked, it orders its games.
            if sql(f"SELECT id FROM server_player WHERE id = %s{sql.lock}", (player_id,)).fetchone() is None:
                raise Refused(f"there is no player {player_id}")
            row = sql(f"{_RATING} WHERE player_id = %s AND mode = %s", (player_id, game.mode)).fetchone()
            if row is not None:
                ratings[player_id] = StoredRating(*row)
        if sql("SELECT 1 FROM server_rating_game WHERE game_id = %s", (game.id,)).fetchone() is not None:
            return None  # rated already
        moved = update(game, [ratings.get(a), ratings.get(b)])
        counted = game.pair_limit <= 0 or PeopleTables.pair_results(sql, game) < game.pair_limit
        changes: list[RatingChange] = []
        for (me, other), (start, new), score in zip(
            ((a, b), (b, a)), moved, (game.score, 1.0 - game.score), strict=True
        ):
            if not counted:  # recorded as played, the ratings as they were
                sql(
                    "INSERT INTO server_rating_game (game_id, player_id, mode, opponent_id, score,"
                    " rating_before, rating_after, rd_after, ended, counted)"
                    " VALUES (%s, %s, %s, %s, %s, %s, %s, %s, %s, 0)",
                    (game.id, me, game.mode, other, score, start.rating, start.rating, start.rd, game.ended),
                )
                kept = (start.rating, start.rating, start.rd, game.ended)
                changes.append(RatingChange(game.id, game.mode, me, other, "", score, *kept, False))
                continue
            sql(
                "INSERT INTO server_rating (player_id, mode, rating, rd, volatility, games, played)"
                " VALUES (%s, %s, %s, %s, %s, %s, %s) ON CONFLICT (player_id, mode) DO UPDATE SET"
                " rating = excluded.rating, rd = excluded.rd, volatility = excluded.volatility,"
                " games = excluded.games, played = excluded.played",
                (me, game.mode, new.rating, new.rd, new.volatility, new.games, new.played),
            )
            sql(
                "INSERT INTO server_rating_game (game_id, player_id, mode, opponent_id, score, rating_before,"
                " rating_after, rd_after, ended) VALUES (%s, %s, %s, %s, %s, %s, %s, %s, %s)",
                (game.id, me, game.mode, other, score, start.rating, new.rating, new.rd, game.ended),
            )
            change = (game.id, game.mode, me, other, "", score, start.rating, new.rating, new.rd, game.ended)
            changes.append(RatingChange(*change))
        return changes

    @staticmethod
    def pair_results(sql: Sql, game: RatedGame) -> int:
        """The rated results the game's two players counted against each other in its mode in
        the day before it ended (read once both players' rows are locked: two of their games
        ending at once are counted one after the other)."""
        a, b = game.players
        row = sql(
            "SELECT count(*) FROM server_rating_game WHERE player_id = %s AND opponent_id = %s"
            " AND mode = %s AND counted = 1 AND ended > %s",
            (a, b, game.mode, game.ended - PAIR_DAY),
        ).fetchone()
        return int(row[0])

    @staticmethod
    def rating_changes(sql: Sql, player_id: str, game_id: str, limit: int) -> list[RatingChange]:
        if game_id:
            rows = sql(f"{_CHANGE} WHERE r.game_id = %s ORDER BY r.player_id", (game_id,)).fetchall()
        else:
            rows = sql(
                f"{_CHANGE} WHERE r.player_id = %s ORDER BY r.ended DESC, r.game_id LIMIT %s",
                (player_id, limit),
            ).fetchall()
        return [_change(row) for row in rows]


class PeopleCalls:
    """The storage's calls about players and ratings (:class:`~dorf.server.storage.base.Storage`),
    for a storage that runs ``work(sql, *args)`` in a transaction of its own (:meth:`people`)."""

    async def people(self, work: Callable[..., T], *args: Any) -> T:
        raise NotImplementedError

    async def new_player(
        self, player: StoredPlayer, session_hash: str | None, at: float | None = None
    ) -> None:
        """Store a new player (and its first session, the hash of its cookie's secret):
        :class:`Refused` if its name is taken (by its skeleton, ``name_key``), or held for the
        player who gave it up (at ``at``, seconds since 1970; None: now)."""
        at = time.time() if at is None else at
        await self.people(PeopleTables.new_player, player, session_hash, at)

    async def find_player(self, *, session: str = "", token: str = "", name: str = "") -> StoredPlayer | None:
        """The player of a session (its secret's hash), of an API token (its hash), or of a name
        (ignoring case); None if there is none."""
        return await self.people(PeopleTables.find_player, session, token, name)

    async def players_by_id(self, ids: list[str]) -> dict[str, StoredPlayer]:
        """The players of these ids (those that exist)."""
        if not ids:
            return {}
        return await self.people(PeopleTables.players_by_id, ids)

    async def rename_player(
        self, player_id: str, name: str, at: float | None = None, hold_until: float = 0.0
    ) -> None:
        """Change a player's name: :class:`Refused` if another player has it (by its skeleton) or
        it is held for another; the name given up is held for this player until ``hold_until``."""
        at = time.time() if at is None else at
        await self.people(PeopleTables.rename_player, player_id, name, at, hold_until)

    async def forget_player(self, player_id: str) -> bool:
        """Remove a player made for a request that failed, unless it has played: whether it did."""
        return await self.people(PeopleTables.forget_player, player_id)

    async def sweep_players(self, before: str, at: float, limit: int = 1000) -> tuple[int, int]:
        """Remove the new players made before ``before`` (ISO 8601) who never played, at most
        ``limit`` looked at; forget the name holds over at ``at``: ``(looked at, removed)``."""
        return await self.people(PeopleTables.sweep_players, before, at, limit)

    async def password_of(self, player_id: str) -> str | None:
        """The hash of a player's password (None: it has none)."""
        return await self.people(PeopleTables.password_of, player_id)

    async def set_password(
        self, player_id: str, password_hash: str, keep_session: str | None, end_tokens: bool = False
    ) -> None:
        """Set a player's password (its hash); every session of the player but ``keep_session``
        ends (the other devices sign in again), and with ``end_tokens`` every API token."""
        await self.people(PeopleTables.set_password, player_id, password_hash, keep_session, end_tokens)

    async def add_session(self, player_id: str, session_hash: str) -> None:
        """A device signed in as the player: its cookie's secret (hash) now names it."""
        await self.people(PeopleTables.add_session, player_id, session_hash)

    async def end_session(self, session_hash: str) -> None:
        """A device signed out: its cookie's secret names nobody any more."""
        await self.people(PeopleTables.end_session, session_hash)

    async def add_token(self, player_id: str, token_hash: str, label: str = "", limit: int = 0) -> str:
        """An API token (its hash) now names the player, which is a bot account from now on: its
        id (what lists and revokes it; the hash's first 16 digits).  :class:`Refused` if the
        player has ``limit`` tokens already (0: no limit)."""
        return await self.people(PeopleTables.add_token, player_id, token_hash, label, limit)

    async def tokens_of(self, player_id: str) -> list[StoredToken]:
        """A player's API tokens (never their hashes), the oldest first."""
        return await self.people(PeopleTables.tokens_of, player_id)

    async def revoke_token(self, player_id: str, token_id: str) -> bool:
        """End the player's token of this id: whether there was one (another's is not found)."""
        return await self.people(PeopleTables.revoke_token, player_id, token_id)

    async def token_used(self, token_hash: str, when: str, before: str) -> None:
        """Note that a token was used ``when``, unless it was noted at ``before`` or later."""
        await self.people(PeopleTables.token_used, token_hash, when, before)

    async def end_sessions(self, player_id: str, keep_session: str | None, tokens: bool) -> None:
        """Sign a player out everywhere: every session but ``keep_session`` ends, and with
        ``tokens`` every API token too."""
        await self.people(PeopleTables.end_sessions, player_id, keep_session, tokens)

    async def ratings_of(self, player_id: str) -> list[StoredRating]:
        """A player's ratings, one per mode it has played rated games of."""
        return await self.people(PeopleTables.ratings_of, player_id)

    async def rate_game(self, game: RatedGame, update: RateUpdate) -> list[RatingChange] | None:
        """Rate a finished game once: in one transaction, the ratings of its two players as stored
        (None: a first rated game of the mode) are given to ``update``, and what it answers is
        stored with one history row per player.  None if the game was rated already (by this or
        another server): nothing changes."""
        return await self.people(PeopleTables.rate_game, game, update)

    async def rating_changes(
        self, *, player_id: str = "", game_id: str = "", limit: int = 50
    ) -> list[RatingChange]:
        """The rating changes of a player (its latest ``limit`` games, newest first), or of one
        game (one per player)."""
        return await self.people(PeopleTables.rating_changes, player_id, game_id, limit)
