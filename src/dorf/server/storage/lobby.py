"""The lobby's rows, on both databases: the open games waiting for people, and the seeks of quick
pairing (the lobby itself is :mod:`dorf.server.lobby`).

- ``lobby_game``: a game created open (``"open": true``): anyone may take its free online seats
  from the lobby.  A row leaves when the game has no free seat left or is over.
- ``lobby_seek``: a player waiting to be paired, on the server that holds their lobby
  socket (``instance``), since the database's time ``since``.

On PostgreSQL every server pairs from the one table: a pool's seeks (same mode, clock, rated
flag) are read with ``SELECT ... FOR UPDATE SKIP LOCKED``, the pure rule
(:func:`dorf.server.lobby.pairing.pairs`) chooses, and the paired rows are deleted in the same
transaction, so a seek is paired once however many servers pair at the same moment (one that
another server is pairing is skipped, not waited for).  A server tells the others on the
channel ``dorf_lobby`` (an open game changed; a seek of yours was paired, with the seat's
invitation), in the transaction that made the change.  A server alone on SQLite keeps its seeks
in the same table, and removes those of its earlier runs when it starts (they ended with their
sockets).  The SQL is written once (:class:`LobbyTables`) against
:class:`~dorf.server.storage.sql.Sql`: ``SKIP LOCKED``, the advisory locks and the notifications
are its dialect's (nothing on SQLite, whose transaction holds the file).

A player has at most ``limit`` open games and seeks at once, and an address at most
``per_address`` open games in the public list (``lobby_game.address``: the address that listed it;
a rematch offered to one player has none): counted and inserted in one transaction, under an
advisory lock on the player and on the address on PostgreSQL (SQLite's one thread is enough).
"""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Callable, Sequence
from typing import Any, TypeVar

from dorf.server.storage.rows import Choose, OpenGame, Pool, PoolCount, Seek
from dorf.server.storage.sql import Dialect, Sql

T = TypeVar("T")

#: The channel on which servers tell each other what changed in the lobby.
LOBBY_CHANNEL = "dorf_lobby"
SCHEMA_STEP = """
    CREATE TABLE lobby_game (
        game_id TEXT PRIMARY KEY,
        creator TEXT NOT NULL,
        name TEXT NOT NULL,
        rating DOUBLE PRECISION,
        rd DOUBLE PRECISION,
        mode TEXT NOT NULL,
        clock TEXT,
        rated INTEGER NOT NULL CHECK (rated IN (0, 1)),
        free INTEGER NOT NULL CHECK (free >= 0),
        seats INTEGER NOT NULL CHECK (seats >= 1),
        invited TEXT,
        since DOUBLE PRECISION NOT NULL
    );
    CREATE INDEX lobby_game_by_creator ON lobby_game (creator);
    CREATE TABLE lobby_seek (
        id TEXT PRIMARY KEY,
        player TEXT NOT NULL,
        name TEXT NOT NULL,
        rating DOUBLE PRECISION NOT NULL,
        rd DOUBLE PRECISION NOT NULL,
        mode TEXT NOT NULL,
        clock TEXT NOT NULL,
        rated INTEGER NOT NULL CHECK (rated IN (0, 1)),
        since DOUBLE PRECISION NOT NULL,
        instance TEXT NOT NULL
    );
    CREATE INDEX lobby_seek_by_pool ON lobby_seek (mode, clock, rated, since);
    CREATE INDEX lobby_seek_by_player ON lobby_seek (player)
"""

#: A seek's clock in the table: ``-`` for none (so that a pool is an equality on three columns).
NO_CLOCK = "-"


OPEN_COLUMNS = "game_id, creator, name, rating, rd, mode, clock, rated, free, seats, invited, since"
#: The step that adds the address an open game was listed from (issue 60: a bound an address).
ADDRESS_STEP = """
    ALTER TABLE lobby_game ADD COLUMN address TEXT NOT NULL DEFAULT '';
    CREATE INDEX lobby_game_by_address ON lobby_game (address)
"""
#: Why an open game was not listed: its player's bound, or its address's.
PLAYER_FULL, ADDRESS_FULL = "player", "address"
SEEK_COLUMNS = "id, player, name, rating, rd, mode, clock, rated, since"


def open_game(row: Sequence[Any]) -> OpenGame:
    """An open game from its row (:data:`OPEN_COLUMNS`, then ``address``)."""
    game, creator, name, rating, rd, mode, clock, rated, free, seats, invited, since, address = row
    return OpenGame(
        game, creator, name, rating, rd, mode, clock, bool(rated), free, seats, invited, since, address
    )


def seek_of(row: Sequence[Any]) -> Seek:
    sid, player, name, rating, rd, mode, clock, rated, since = row
    return Seek(
        sid,
        player,
        name,
        float(rating),
        float(rd),
        mode,
        None if clock == NO_CLOCK else clock,
        bool(rated),
        float(since),
    )


def note(kind: str, **fields: Any) -> str:
    """A message on :data:`LOBBY_CHANNEL` (well under PostgreSQL's 8000 bytes)."""
    return json.dumps({"t": kind, **fields}, separators=(",", ":"))


class LobbyTables:
    """The lobby's rows, written once for both databases; each method runs in the caller's
    transaction (:class:`~dorf.server.storage.sql.Sql`)."""

    @staticmethod
    def count(sql: Sql, player: str) -> int:
        """The open games and seeks of ``player`` (held for the rest of the transaction)."""
        sql.hold(f"lobby:{player}")
        row = sql(
            "SELECT (SELECT count(*) FROM lobby_game WHERE creator = %s)"
            " + (SELECT count(*) FROM lobby_seek WHERE player = %s)",
            (player, player),
        ).fetchone()
        return int(row[0])

    @staticmethod
    def add_seek(sql: Sql, seek: Seek, instance: str, limit: int) -> Seek | None:
        """Store a seek unless its player has ``limit`` open games and seeks: the seek with its
        ``since`` (the database's time), or None if refused."""
        if LobbyTables.count(sql, seek.player) >= limit:
            return None
        row = sql(
            f"INSERT INTO lobby_seek ({SEEK_COLUMNS}, instance)"
            f" VALUES (%s, %s, %s, %s, %s, %s, %s, %s, {sql.epoch}, %s) RETURNING since",
            (
                seek.id,
                seek.player,
                seek.name,
                seek.rating,
                seek.rd,
                seek.mode,
                seek.clock or NO_CLOCK,
                int(seek.rated),
                instance,
            ),
        ).fetchone()
        return dataclasses.replace(seek, since=float(row[0]))

    @staticmethod
    def drop_seek(sql: Sql, seek_id: str) -> None:
        sql("DELETE FROM lobby_seek WHERE id = %s", (seek_id,))

    @staticmethod
    def pair(sql: Sql, pool: Pool, choose: Choose) -> list[tuple[Seek, Seek]]:
        """Pair a pool's seeks that no other server is pairing now; the paired rows are gone."""
        mode, clock, rated = pool
        rows = sql(
            f"SELECT {SEEK_COLUMNS}, {sql.epoch} FROM lobby_seek"
            f" WHERE mode = %s AND clock = %s AND rated = %s ORDER BY since{sql.dialect.skip_locked}",
            (mode, clock or NO_CLOCK, int(rated)),
        ).fetchall()
        if len(rows) < 2:
            return []
        made = choose([seek_of(row[:-1]) for row in rows], float(rows[0][-1]))
        paired = [s.id for pair in made for s in pair]
        if paired:
            sql(f"DELETE FROM lobby_seek WHERE id IN ({sql.marks(len(paired))})", paired)
        return made

    @staticmethod
    def pools(sql: Sql, limit: int) -> list[PoolCount]:
        """How many seek in each pool (the fullest ``limit`` pools): counts only, no names."""
        rows = sql(
            "SELECT mode, clock, rated, count(*) FROM lobby_seek GROUP BY mode, clock, rated"
            " ORDER BY count(*) DESC, mode, clock, rated LIMIT %s",
            (limit,),
        ).fetchall()
        return [(str(m), None if c == NO_CLOCK else str(c), bool(r), int(n)) for m, c, r, n in rows]

    @staticmethod
    def forget_dead(sql: Sql) -> None:
        """The seeks of servers no longer alive (their sockets are gone with them)."""
        sql("DELETE FROM lobby_seek WHERE instance NOT IN (SELECT id FROM server_instance)")

    @staticmethod
    def add_open(sql: Sql, entry: OpenGame, limit: int, per_address: int) -> str | None:
        """List ``entry``: None, or why not (:data:`PLAYER_FULL`, :data:`ADDRESS_FULL`); the
        other servers are told."""
        if LobbyTables.count(sql, entry.creator) >= limit:
            return PLAYER_FULL
        if entry.address and per_address:
            sql.hold(f"lobby-address:{entry.address}")
            row = sql(
                "SELECT count(*) FROM lobby_game WHERE address = %s AND invited IS NULL", (entry.address,)
            ).fetchone()
            if int(row[0]) >= per_address:
                return ADDRESS_FULL
        sql(
            f"INSERT INTO lobby_game ({OPEN_COLUMNS}, address)"
            f" VALUES (%s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s, {sql.epoch}, %s)",
            (*entry.row()[:-1], entry.address),
        )
        sql.notify(LOBBY_CHANNEL, note("games"))
        return None

    @staticmethod
    def set_free(sql: Sql, game_id: str, free: int) -> bool:
        """A seat of an open game was taken (or it ended: ``free`` 0): whether its row changed
        (and if so the other servers are told)."""
        if free <= 0:
            changed = sql("DELETE FROM lobby_game WHERE game_id = %s", (game_id,)).rowcount
        else:
            changed = sql(
                "UPDATE lobby_game SET free = %s WHERE game_id = %s AND free <> %s", (free, game_id, free)
            ).rowcount
        if changed:
            sql.notify(LOBBY_CHANNEL, note("games"))
        return bool(changed)

    @staticmethod
    def open_games(sql: Sql) -> list[OpenGame]:
        rows = sql(f"SELECT {OPEN_COLUMNS}, address FROM lobby_game ORDER BY since, game_id").fetchall()
        return [open_game(row) for row in rows]

    @staticmethod
    def tell(sql: Sql, payload: str) -> None:
        sql.notify(LOBBY_CHANNEL, payload)

    @staticmethod
    def player_games(sql: Sql, player: str, limit: int) -> list[str]:
        """A player's games, the most recently changed first."""
        rows = sql(
            "SELECT s.game_id FROM server_seat s JOIN server_game g ON g.id = s.game_id"
            " WHERE s.player_id = %s GROUP BY s.game_id ORDER BY max(g.updated) DESC, s.game_id LIMIT %s",
            (player, limit),
        ).fetchall()
        return [row[0] for row in rows]

    @staticmethod
    def alone(sql: Sql, instance: str) -> None:
        """A server alone on its database starts: the only one alive, the seeks of its earlier
        runs gone (a seek ends with its socket)."""
        sql("DELETE FROM server_instance")
        sql(f"INSERT INTO server_instance (id, seen) VALUES (%s, {sql.epoch})", (instance,))
        sql("DELETE FROM lobby_seek")


class LobbyCalls:
    """The storage's calls of the lobby (:class:`~dorf.server.storage.base.Storage`), for a
    storage that runs ``work(sql, *args)`` in a transaction of its own (:meth:`people`)."""

    instance: str
    dialect: Dialect

    async def people(self, work: Callable[..., T], *args: Any) -> T:
        raise NotImplementedError

    async def lobby_seek(self, seek: Seek, limit: int) -> Seek | None:
        """Store a seek (its ``since`` the storage's time), None if its player has ``limit``."""
        return await self.people(LobbyTables.add_seek, seek, self.instance, limit)

    async def lobby_unseek(self, seek_id: str) -> None:
        await self.people(LobbyTables.drop_seek, seek_id)

    async def lobby_count(self, player: str) -> int:
        """The open games and seeks of ``player`` now."""
        return await self.people(LobbyTables.count, player)

    async def lobby_pair(self, pool: Pool, choose: Choose) -> list[tuple[Seek, Seek]]:
        """The pairs ``choose`` makes among a pool's seeks no other server is pairing; gone after."""
        return await self.people(LobbyTables.pair, pool, choose)

    async def lobby_sweep(self) -> None:
        """Forget the seeks of servers that died."""
        await self.people(LobbyTables.forget_dead)

    async def lobby_pools(self, limit: int) -> list[PoolCount]:
        """How many seek in each pool, the fullest ``limit`` pools (mode, clock, rated, count)."""
        return await self.people(LobbyTables.pools, limit)

    async def lobby_open(self, entry: OpenGame, limit: int, per_address: int = 0) -> str | None:
        """List an open game, unless its creator has ``limit`` open games and seeks, or its
        address ``per_address`` open games listed (0: no bound): None if listed, else which
        bound refused it (``"player"``, ``"address"``)."""
        return await self.people(LobbyTables.add_open, entry, limit, per_address)

    async def lobby_seats(self, game_id: str, free: int) -> bool:
        """An open game has ``free`` seats now (0: it leaves the list): whether that changed it."""
        return await self.people(LobbyTables.set_free, game_id, free)

    async def lobby_games(self) -> list[OpenGame]:
        return await self.people(LobbyTables.open_games)

    async def lobby_tell(self, payload: str) -> None:
        """Tell the other servers (``dorf_lobby``); nobody, alone."""
        if self.dialect.shared:  # nobody to tell, alone
            await self.people(LobbyTables.tell, payload)

    async def player_games(self, player: str, limit: int) -> list[str]:
        """The ids of a player's games (a seat records them), the most recently changed first."""
        return await self.people(LobbyTables.player_games, player, limit)
