"""The players' and ratings' rows, on both databases (the players themselves are
:mod:`dorf.server.players`): one :class:`PeopleTables` whose SQL is written once, run by
:class:`~dorf.server.storage.sqlite.SqliteStorage` and
:class:`~dorf.server.storage.postgres.PostgresStorage` in a transaction of their own.

- ``server_player``: a player (an id, a name unique ignoring case: ``name_key``, whether it is
  a bot account or a computer level);
- ``server_session``: the hashes of the cookies' secrets, each naming one player (a device);
- ``server_password``: a player's argon2id password hash (none: it never set one);
- ``server_token``: the hashes of a player's API tokens (bots);
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

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, TypeVar

from dorf.server.storage.base import (
    RatedGame,
    RateUpdate,
    RatingChange,
    Refused,
    StoredPlayer,
    StoredRating,
    now,
)

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

_PLAYER = (
    "SELECT p.id, p.name, p.bot, (SELECT count(*) FROM server_password w WHERE w.player_id = p.id),"
    " p.created FROM server_player p"
)
_RATING = "SELECT mode, rating, rd, volatility, games, played FROM server_rating"
_CHANGE = (
    "SELECT r.game_id, r.mode, r.player_id, r.opponent_id, coalesce(o.name, ''), r.score,"
    " r.rating_before, r.rating_after, r.rd_after, r.ended"
    " FROM server_rating_game r LEFT JOIN server_player o ON o.id = r.opponent_id"
)


def name_key(name: str) -> str:
    """What names are told apart by: the name ignoring case."""
    return name.lower()


def _player(row: Sequence[Any]) -> StoredPlayer:
    return StoredPlayer(row[0], row[1], bool(row[2]), bool(row[3]), row[4])


@dataclass
class Sql:
    """A connection in a transaction: ``%s`` placeholders become its database's, and ``lock``
    is how it locks the rows it reads (``FOR UPDATE``; nothing on SQLite, whose transaction holds
    the file)."""

    conn: Any
    mark: str = "%s"
    lock: str = " FOR UPDATE"

    def __call__(self, query: str, args: Sequence[Any] = ()) -> Any:
        if self.mark != "%s":
            query = query.replace("%s", self.mark)
        return self.conn.execute(query, tuple(args))

    def many(self, query: str, rows: Sequence[Sequence[Any]]) -> None:
        """``query`` once for each of ``rows``."""
        if self.mark != "%s":
            query = query.replace("%s", self.mark)
        cursor = self.conn.cursor()
        try:
            cursor.executemany(query, [tuple(row) for row in rows])
        finally:
            cursor.close()


class PeopleTables:
    """Players, their secrets and their ratings; each method runs in the caller's transaction."""

    @staticmethod
    def new_player(sql: Sql, player: StoredPlayer, session_hash: str | None) -> None:
        key = name_key(player.name)
        if sql("SELECT 1 FROM server_player WHERE name_key = %s", (key,)).fetchone() is not None:
            raise Refused(f"the name {player.name} is taken")
        sql(
            "INSERT INTO server_player (id, name, name_key, bot, created) VALUES (%s, %s, %s, %s, %s)",
            (player.id, player.name, key, int(player.bot), player.created or now()),
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
    def rename_player(sql: Sql, player_id: str, name: str) -> None:
        key = name_key(name)
        other = sql("SELECT id FROM server_player WHERE name_key = %s", (key,)).fetchone()
        if other is not None and other[0] != player_id:
            raise Refused(f"the name {name} is taken")
        changed = sql(
            "UPDATE server_player SET name = %s, name_key = %s WHERE id = %s", (name, key, player_id)
        ).rowcount
        if changed != 1:
            raise Refused("there is no such player")

    @staticmethod
    def password_of(sql: Sql, player_id: str) -> str | None:
        row = sql("SELECT hash FROM server_password WHERE player_id = %s", (player_id,)).fetchone()
        return None if row is None else str(row[0])

    @staticmethod
    def set_password(sql: Sql, player_id: str, password_hash: str, keep_session: str | None) -> None:
        sql(
            "INSERT INTO server_password (player_id, hash, set_at) VALUES (%s, %s, %s)"
            " ON CONFLICT (player_id) DO UPDATE SET hash = excluded.hash, set_at = excluded.set_at",
            (player_id, password_hash, now()),
        )
        sql(
            "DELETE FROM server_session WHERE player_id = %s AND secret_hash <> %s",
            (player_id, keep_session or ""),
        )

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
    def add_token(sql: Sql, player_id: str, token_hash: str) -> None:
        sql(
            "INSERT INTO server_token (token_hash, player_id, created) VALUES (%s, %s, %s)",
            (token_hash, player_id, now()),
        )
        sql("UPDATE server_player SET bot = 1 WHERE id = %s", (player_id,))

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
        changes: list[RatingChange] = []
        for (me, other), (start, new), score in zip(
            ((a, b), (b, a)), moved, (game.score, 1.0 - game.score), strict=True
        ):
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
    def rating_changes(sql: Sql, player_id: str, game_id: str, limit: int) -> list[RatingChange]:
        if game_id:
            rows = sql(f"{_CHANGE} WHERE r.game_id = %s ORDER BY r.player_id", (game_id,)).fetchall()
        else:
            rows = sql(
                f"{_CHANGE} WHERE r.player_id = %s ORDER BY r.ended DESC, r.game_id LIMIT %s",
                (player_id, limit),
            ).fetchall()
        return [RatingChange(*row) for row in rows]


class PeopleCalls:
    """The storage's calls about players and ratings (:class:`~dorf.server.storage.base.Storage`),
    for a storage that runs ``work(sql, *args)`` in a transaction of its own (:meth:`people`)."""

    async def people(self, work: Callable[..., T], *args: Any) -> T:
        raise NotImplementedError

    async def new_player(self, player: StoredPlayer, session_hash: str | None) -> None:
        await self.people(PeopleTables.new_player, player, session_hash)

    async def find_player(self, *, session: str = "", token: str = "", name: str = "") -> StoredPlayer | None:
        return await self.people(PeopleTables.find_player, session, token, name)

    async def players_by_id(self, ids: list[str]) -> dict[str, StoredPlayer]:
        if not ids:
            return {}
        return await self.people(PeopleTables.players_by_id, ids)

    async def rename_player(self, player_id: str, name: str) -> None:
        await self.people(PeopleTables.rename_player, player_id, name)

    async def password_of(self, player_id: str) -> str | None:
        return await self.people(PeopleTables.password_of, player_id)

    async def set_password(self, player_id: str, password_hash: str, keep_session: str | None) -> None:
        await self.people(PeopleTables.set_password, player_id, password_hash, keep_session)

    async def add_session(self, player_id: str, session_hash: str) -> None:
        await self.people(PeopleTables.add_session, player_id, session_hash)

    async def end_session(self, session_hash: str) -> None:
        await self.people(PeopleTables.end_session, session_hash)

    async def add_token(self, player_id: str, token_hash: str) -> None:
        await self.people(PeopleTables.add_token, player_id, token_hash)

    async def ratings_of(self, player_id: str) -> list[StoredRating]:
        return await self.people(PeopleTables.ratings_of, player_id)

    async def rate_game(self, game: RatedGame, update: RateUpdate) -> list[RatingChange] | None:
        return await self.people(PeopleTables.rate_game, game, update)

    async def rating_changes(
        self, *, player_id: str = "", game_id: str = "", limit: int = 50
    ) -> list[RatingChange]:
        return await self.people(PeopleTables.rating_changes, player_id, game_id, limit)
