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
in memory (they end with their sockets) and its open games in the table.

A player has at most ``limit`` open games and seeks at once, and an address at most
``per_address`` open games in the public list (``lobby_game.address``: the address that listed it;
a rematch offered to one player has none): counted and inserted in one transaction, under an
advisory lock on the player and on the address on PostgreSQL (SQLite's one thread is enough).
"""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass
from typing import Any, TypeVar

from dorf.server.lobby.pairing import Seek

T = TypeVar("T")

#: The channel on which servers tell each other what changed in the lobby.
LOBBY_CHANNEL = "dorf_lobby"
#: ``choose(seeks, now)``: the pairs to make among one pool's seeks (the pure rule).
Choose = Callable[[list[Seek], float], list[tuple[Seek, Seek]]]
#: A pool: mode, clock, rated.
Pool = tuple[str, str | None, bool]
#: A pool and how many seek in it.
PoolCount = tuple[str, str | None, bool, int]

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


class PostgresLobby:
    """The lobby's statements on a PostgreSQL connection (the storage's thread holds it)."""

    def __init__(self, epoch: str) -> None:
        self.epoch = epoch

    def count(self, conn: Any, player: str) -> int:
        """The open games and seeks of ``player`` (locked for the rest of the transaction)."""
        conn.execute("SELECT pg_advisory_xact_lock(hashtext(%s))", (f"lobby:{player}",))
        row = conn.execute(
            "SELECT (SELECT count(*) FROM lobby_game WHERE creator = %s)"
            " + (SELECT count(*) FROM lobby_seek WHERE player = %s)",
            (player, player),
        ).fetchone()
        return int(row[0])

    def add_seek(self, conn: Any, seek: Seek, instance: str, limit: int) -> float | None:
        """Store a seek unless its player has ``limit`` open games and seeks: its ``since`` (the
        database's time), or None if refused."""
        if self.count(conn, seek.player) >= limit:
            return None
        row = conn.execute(
            f"INSERT INTO lobby_seek ({SEEK_COLUMNS}, instance)"
            f" VALUES (%s, %s, %s, %s, %s, %s, %s, %s, {self.epoch}, %s) RETURNING since",
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
        return float(row[0])

    def drop_seek(self, conn: Any, seek_id: str) -> None:
        conn.execute("DELETE FROM lobby_seek WHERE id = %s", (seek_id,))

    def pair(self, conn: Any, pool: Pool, choose: Choose) -> list[tuple[Seek, Seek]]:
        """Pair a pool's seeks that no other server is pairing now; the paired rows are gone."""
        mode, clock, rated = pool
        rows = conn.execute(
            f"SELECT {SEEK_COLUMNS}, {self.epoch} FROM lobby_seek"
            " WHERE mode = %s AND clock = %s AND rated = %s ORDER BY since FOR UPDATE SKIP LOCKED",
            (mode, clock or NO_CLOCK, int(rated)),
        ).fetchall()
        if len(rows) < 2:
            return []
        made = choose([seek_of(row[:-1]) for row in rows], float(rows[0][-1]))
        if made:
            conn.execute(
                "DELETE FROM lobby_seek WHERE id = ANY(%s)", ([s.id for pair in made for s in pair],)
            )
        return made

    def pools(self, conn: Any, limit: int) -> list[PoolCount]:
        """How many seek in each pool (the fullest ``limit`` pools): counts only, no names."""
        rows = conn.execute(
            "SELECT mode, clock, rated, count(*) FROM lobby_seek GROUP BY mode, clock, rated"
            " ORDER BY count(*) DESC, mode, clock, rated LIMIT %s",
            (limit,),
        ).fetchall()
        return [(str(m), None if c == NO_CLOCK else str(c), bool(r), int(n)) for m, c, r, n in rows]

    def forget_dead(self, conn: Any) -> None:
        """The seeks of servers no longer alive (their sockets are gone with them)."""
        conn.execute("DELETE FROM lobby_seek WHERE instance NOT IN (SELECT id FROM server_instance)")

    def add_open(self, conn: Any, entry: OpenGame, limit: int, per_address: int) -> str | None:
        """List ``entry``: None, or why not (:data:`PLAYER_FULL`, :data:`ADDRESS_FULL`)."""
        if self.count(conn, entry.creator) >= limit:
            return PLAYER_FULL
        if entry.address and per_address:
            conn.execute("SELECT pg_advisory_xact_lock(hashtext(%s))", (f"lobby-address:{entry.address}",))
            row = conn.execute(
                "SELECT count(*) FROM lobby_game WHERE address = %s AND invited IS NULL", (entry.address,)
            ).fetchone()
            if int(row[0]) >= per_address:
                return ADDRESS_FULL
        conn.execute(
            f"INSERT INTO lobby_game ({OPEN_COLUMNS}, address)"
            f" VALUES (%s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s, {self.epoch}, %s)",
            (*entry.row()[:-1], entry.address),
        )
        return None

    def set_free(self, conn: Any, game_id: str, free: int) -> bool:
        """A seat of an open game was taken (or it ended: ``free`` 0): whether its row changed."""
        if free <= 0:
            return bool(conn.execute("DELETE FROM lobby_game WHERE game_id = %s", (game_id,)).rowcount)
        return bool(
            conn.execute(
                "UPDATE lobby_game SET free = %s WHERE game_id = %s AND free <> %s", (free, game_id, free)
            ).rowcount
        )

    def open_games(self, conn: Any) -> list[OpenGame]:
        rows = conn.execute(
            f"SELECT {OPEN_COLUMNS}, address FROM lobby_game ORDER BY since, game_id"
        ).fetchall()
        return [open_game(row) for row in rows]

    def notify(self, conn: Any, payload: str) -> None:
        conn.execute("SELECT pg_notify(%s, %s)", (LOBBY_CHANNEL, payload))


class SqliteLobby:
    """A server alone on SQLite: seeks in memory, open games in the table; used from the
    storage's one thread only (the seeks too, so that counting and pairing see them whole)."""

    def __init__(self) -> None:
        self.seeks: dict[str, Seek] = {}

    def count(self, conn: Any, player: str) -> int:
        row = conn.execute("SELECT count(*) FROM lobby_game WHERE creator = ?", (player,)).fetchone()
        return int(row[0]) + sum(s.player == player for s in self.seeks.values())

    def add_seek(self, conn: Any, seek: Seek, limit: int) -> bool:
        if self.count(conn, seek.player) >= limit:
            return False
        self.seeks[seek.id] = seek
        return True

    def drop_seek(self, seek_id: str) -> None:
        self.seeks.pop(seek_id, None)

    def pair(self, pool: Pool, choose: Choose, now: float) -> list[tuple[Seek, Seek]]:
        waiting = [s for s in self.seeks.values() if (s.mode, s.clock, s.rated) == pool]
        made = choose(waiting, now) if len(waiting) > 1 else []
        for pair in made:
            for seek in pair:
                del self.seeks[seek.id]
        return made

    def pools(self, limit: int) -> list[PoolCount]:
        counted: dict[Pool, int] = {}
        for s in self.seeks.values():
            counted[(s.mode, s.clock, s.rated)] = counted.get((s.mode, s.clock, s.rated), 0) + 1
        ranked = sorted(
            counted.items(), key=lambda item: (-item[1], item[0][0], item[0][1] or "", item[0][2])
        )
        return [(*pool, n) for pool, n in ranked[:limit]]

    def add_open(self, conn: Any, entry: OpenGame, limit: int, per_address: int) -> str | None:
        if self.count(conn, entry.creator) >= limit:
            return PLAYER_FULL
        if entry.address and per_address:
            row = conn.execute(
                "SELECT count(*) FROM lobby_game WHERE address = ? AND invited IS NULL", (entry.address,)
            ).fetchone()
            if int(row[0]) >= per_address:
                return ADDRESS_FULL
        conn.execute(
            f"INSERT INTO lobby_game ({OPEN_COLUMNS}, address)"
            " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
            (*entry.row(), entry.address),
        )
        return None

    def set_free(self, conn: Any, game_id: str, free: int) -> bool:
        if free <= 0:
            changed = conn.execute("DELETE FROM lobby_game WHERE game_id = ?", (game_id,)).rowcount
        else:
            changed = conn.execute(
                "UPDATE lobby_game SET free = ? WHERE game_id = ? AND free <> ?", (free, game_id, free)
            ).rowcount
        return bool(changed)

    def open_games(self, conn: Any) -> list[OpenGame]:
        rows = conn.execute(
            f"SELECT {OPEN_COLUMNS}, address FROM lobby_game ORDER BY since, game_id"
        ).fetchall()
        return [open_game(row) for row in rows]


#: A player's games, the most recently changed first (``%s``: the player, the limit).
PLAYER_GAMES = (
    "SELECT s.game_id FROM server_seat s JOIN server_game g ON g.id = s.game_id"
    " WHERE s.player_id = %s GROUP BY s.game_id ORDER BY max(g.updated) DESC, s.game_id LIMIT %s"
)


def player_games(conn: Any, player: str, limit: int, sqlite: bool = False) -> list[str]:
    query = PLAYER_GAMES.replace("%s", "?") if sqlite else PLAYER_GAMES
    return [row[0] for row in conn.execute(query, (player, limit)).fetchall()]


class PostgresLobbyCalls:
    """The lobby's calls of :class:`~dorf.server.storage.postgres.PostgresStorage`: each one
    transaction, in the storage's thread."""

    instance: str
    lobby: PostgresLobby
    run: Callable[..., Awaitable[Any]]
    _tables: Any

    async def _lobby(self, call: Callable[..., T], *args: Any) -> T:
        """``call(conn, *args)`` in one transaction, in the database's thread."""

        def within() -> T:
            with self._tables.transaction() as conn:
                return call(conn, *args)

        result: T = await self.run(within)
        return result

    async def lobby_seek(self, seek: Seek, limit: int) -> Seek | None:
        since = await self._lobby(self.lobby.add_seek, seek, self.instance, limit)
        return None if since is None else dataclasses.replace(seek, since=since)

    async def lobby_unseek(self, seek_id: str) -> None:
        await self._lobby(self.lobby.drop_seek, seek_id)

    async def lobby_count(self, player: str) -> int:
        return await self._lobby(self.lobby.count, player)

    async def lobby_pair(self, pool: Pool, choose: Choose) -> list[tuple[Seek, Seek]]:
        return await self._lobby(self.lobby.pair, pool, choose)

    async def lobby_sweep(self) -> None:
        await self._lobby(self.lobby.forget_dead)

    async def lobby_pools(self, limit: int) -> list[PoolCount]:
        return await self._lobby(self.lobby.pools, limit)

    async def lobby_open(self, entry: OpenGame, limit: int, per_address: int = 0) -> str | None:
        def add(conn: Any) -> str | None:
            refused = self.lobby.add_open(conn, entry, limit, per_address)
            if refused is None:
                self.lobby.notify(conn, note("games"))
            return refused

        return await self._lobby(add)

    async def lobby_seats(self, game_id: str, free: int) -> bool:
        def change(conn: Any) -> bool:
            changed = self.lobby.set_free(conn, game_id, free)
            if changed:
                self.lobby.notify(conn, note("games"))
            return changed

        return await self._lobby(change)

    async def lobby_games(self) -> list[OpenGame]:
        return await self._lobby(self.lobby.open_games)

    async def lobby_tell(self, payload: str) -> None:
        await self._lobby(self.lobby.notify, payload)

    async def player_games(self, player: str, limit: int) -> list[str]:
        return await self._lobby(player_games, player, limit)
