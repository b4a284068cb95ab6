"""A game's table talk, on both databases (issue 63): the messages its seated players say,
kept with the game and shown in its replay (the roles: :mod:`dorf.server.round.talk`).

- ``server_talk``: one row per message, numbered ``n`` from 1 within its game, with the seat
  and the name that said it, its text (1 to 200 characters, stored as said: it is shown as
  text, never markup), when (``said``, UTC ISO 8601) and after how many decisions (``move``).
  A message leaves with its game (``ON DELETE CASCADE``) or by :meth:`TalkTables.remove`
  (``dorf admin remove-message GAME N``).

A message's number is the game's largest plus one, counted and inserted in one transaction
(under an advisory lock on the game on PostgreSQL; SQLite's one thread is enough), and the other
servers are told on the channel :data:`TABLE_CHANNEL` in the same transaction.  The same channel
carries the table's choice and proposals, which are never stored (:func:`note`).
"""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from typing import Any, TypeVar

from dorf.server.storage.rows import TalkLine
from dorf.server.storage.sql import Dialect, Sql

T = TypeVar("T")

#: The channel on which servers tell each other what changed at a game's table: its talk, its
#: choice and its proposals.
TABLE_CHANNEL = "dorf_table"
#: Table talk (issue 63).
TALK_STEP = """
    CREATE TABLE server_talk (
        game_id TEXT NOT NULL REFERENCES server_game (id) ON DELETE CASCADE,
        n INTEGER NOT NULL CHECK (n >= 1),
        seat INTEGER NOT NULL CHECK (seat >= 0),
        name TEXT NOT NULL,
        text TEXT NOT NULL,
        said TEXT NOT NULL,
        move INTEGER NOT NULL CHECK (move >= 0),
        PRIMARY KEY (game_id, n)
    )
"""
TALK_COLUMNS = "n, seat, name, text, said, move"


def note(kind: str, game: str, origin: str, **fields: Any) -> str:
    """A message on :data:`TABLE_CHANNEL`: ``t`` what it is (``talk``, ``choice``,
    ``proposals``), ``g`` the game, ``o`` the server it comes from (well under PostgreSQL's 8000
    bytes: a message of talk is at most 200 characters).

    >>> note("choice", "g1", "s1", choice=None)
    '{"t":"choice","g":"g1","o":"s1","choice":null}'
    """
    return json.dumps({"t": kind, "g": game, "o": origin, **fields}, separators=(",", ":"))


def talk_line(row: Sequence[Any]) -> TalkLine:
    n, seat, name, text, said, move = row
    return TalkLine(int(n), int(seat), str(name), str(text), str(said), int(move))


class TalkTables:
    """A game's talk; each method runs in the caller's transaction."""

    @staticmethod
    def say(sql: Sql, game_id: str, line: TalkLine, origin: str) -> TalkLine:
        """Store ``line`` as the game's next message (its ``n`` is ignored): the line with its
        number; the other servers are told."""
        sql.hold(f"talk:{game_id}")
        row = sql("SELECT coalesce(max(n), 0) FROM server_talk WHERE game_id = %s", (game_id,)).fetchone()
        said = TalkLine(int(row[0]) + 1, line.seat, line.name, line.text, line.at, line.move)
        sql(
            f"INSERT INTO server_talk (game_id, {TALK_COLUMNS}) VALUES (%s, %s, %s, %s, %s, %s, %s)",
            (game_id, said.n, said.seat, said.name, said.text, said.at, said.move),
        )
        sql.notify(TABLE_CHANNEL, note("talk", game_id, origin, line=said.json(move=True)))
        return said

    @staticmethod
    def recent(sql: Sql, game_id: str, limit: int) -> list[TalkLine]:
        """The game's last ``limit`` messages, in order (every message: ``limit`` 0)."""
        if limit <= 0:
            rows = sql(
                f"SELECT {TALK_COLUMNS} FROM server_talk WHERE game_id = %s ORDER BY n", (game_id,)
            ).fetchall()
            return [talk_line(row) for row in rows]
        rows = sql(
            f"SELECT {TALK_COLUMNS} FROM server_talk WHERE game_id = %s ORDER BY n DESC LIMIT %s",
            (game_id, limit),
        ).fetchall()
        return [talk_line(row) for row in reversed(rows)]

    @staticmethod
    def remove(sql: Sql, game_id: str, n: int) -> bool:
        """Remove message ``n`` of the game: whether there was one (the others keep their numbers)."""
        return bool(sql("DELETE FROM server_talk WHERE game_id = %s AND n = %s", (game_id, n)).rowcount)

    @staticmethod
    def tell(sql: Sql, payload: str) -> None:
        sql.notify(TABLE_CHANNEL, payload)


class TalkCalls:
    """The storage's calls of table talk (:class:`~dorf.server.storage.base.Storage`), for a
    storage that runs ``work(sql, *args)`` in a transaction of its own (:meth:`people`)."""

    instance: str
    dialect: Dialect

    async def people(self, work: Callable[..., T], *args: Any) -> T:
        raise NotImplementedError

    async def talk_say(self, game_id: str, line: TalkLine) -> TalkLine:
        """Store a message of the game's talk: the line with its number (the other servers hear it)."""
        return await self.people(TalkTables.say, game_id, line, self.instance)

    async def talk_recent(self, game_id: str, limit: int = 0) -> list[TalkLine]:
        """The game's last ``limit`` messages in order (0: all of them)."""
        return await self.people(TalkTables.recent, game_id, limit)

    async def talk_remove(self, game_id: str, n: int) -> bool:
        """Remove message ``n`` of the game's talk (``dorf admin remove-message``): whether it was there."""
        return await self.people(TalkTables.remove, game_id, n)

    async def table_tell(self, payload: str) -> None:
        """Tell the other servers what changed at a game's table (:func:`note`); nobody, alone."""
        if self.dialect.shared:
            await self.people(TalkTables.tell, payload)


__all__ = ["TABLE_CHANNEL", "TALK_STEP", "TalkCalls", "TalkTables", "note", "talk_line"]
