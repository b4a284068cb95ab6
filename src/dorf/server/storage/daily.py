"""The daily challenge's rows and the rating leaderboards, on both databases (the challenge itself
is :mod:`dorf.server.daily`): one :class:`DailyTables` whose SQL is written once, run in a
transaction of its own by either storage (``people``, as :mod:`~dorf.server.storage.people`).

- ``server_secret``: the server's secrets by name; the daily seeds' HMAC key is made by whichever
  server starts first (``INSERT ... ON CONFLICT DO NOTHING``, then read: every server of a shared
  database reads the same one);
- ``server_daily``: one row a day: how many players made their attempt (counted as they start,
  so no count of the results is needed), the expert computer's score once it has played, who
  plays it until when (a lease: one server plays it, another takes over if it dies), whether
  the day is closed (its ranks stored);
- ``server_daily_result``: one counted attempt per player and day.  Its key ``(day, player_id)``
  is what makes the attempt one: two attempts started at once (on two servers) insert the same
  key, and only one insert takes.  The score follows the game's moves; once the day closes each
  row keeps its rank;
- ``server_daily_score``: how many attempts of a day have each score, changed in the transaction
  that changes an attempt's score (the lower score's row first, so two servers never deadlock):
  a rank is a sum over the scores above, a median a walk up the scores, whatever the number of
  players (a few hundred distinct scores against a hundred thousand attempts);
- ``server_lessons``: the coach's lessons of a finished game (an attempt, practice, any game), by
  game and the seats they are for, kept once computed: they are computed once per game, and
  read from here by a second request or another server.

The indexes, argued (``docs/server.md``, "The daily challenge"):

- ``server_daily_result (day, score DESC, started)``: a day's top 100 is the first 100 entries of
  the index, read in order (no sort of the day's rows);
- ``server_daily_score (day, score)`` (its key): a rank and a median read a day's distinct
  scores, not its attempts (a count over the score index would walk up to every attempt of the
  day: 11 ms on SQLite and 17 to 25 ms on PostgreSQL for a rank near the bottom of 100,000);
- ``server_daily_result (player_id, day)``: a player's calendar and streak, newest first;
- ``server_daily_result (game_id)``: a game's attempt (its score as it is played);
- ``server_rating_leaders (mode, rating DESC) WHERE games >= 10 AND rd < 110``: a partial index
  holding only the players a leaderboard may list, in rating order: its top 100 are the index's
  first 100 entries, however many players there are; each is checked to have counted results
  against 3 different players (``server_rating_game (player_id, ended)``: its own games only).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from typing import Any, TypeVar

from dorf.server.storage.rows import DayRow, DayView, Leader, Result
from dorf.server.storage.sql import Sql

T = TypeVar("T")

#: A leaderboard lists players with at least this many rated games and an RD below this (lichess).
LEADER_GAMES, LEADER_RD = 10, 110.0
#: ... and counted rated results against at least this many different players (issue 60: two
#: accounts that only play each other list nobody).
LEADER_OPPONENTS = 3

SCHEMA_STEP = f"""
    CREATE TABLE server_secret (name TEXT PRIMARY KEY, value TEXT NOT NULL);
    CREATE TABLE server_daily (
        day TEXT PRIMARY KEY,
        players INTEGER NOT NULL DEFAULT 0,
        expert_score INTEGER,
        expert_by TEXT,
        expert_until DOUBLE PRECISION,
        closed INTEGER NOT NULL DEFAULT 0 CHECK (closed IN (0, 1))
    );
    CREATE TABLE server_daily_result (
        day TEXT NOT NULL,
        player_id TEXT NOT NULL REFERENCES server_player (id) ON DELETE CASCADE,
        game_id TEXT NOT NULL,
        score INTEGER NOT NULL DEFAULT 0,
        finished INTEGER NOT NULL DEFAULT 0 CHECK (finished IN (0, 1)),
        started DOUBLE PRECISION NOT NULL,
        place INTEGER,
        lessons TEXT,
        PRIMARY KEY (day, player_id)
    );
    CREATE TABLE server_daily_score (
        day TEXT NOT NULL,
        score INTEGER NOT NULL,
        players INTEGER NOT NULL,
        PRIMARY KEY (day, score)
    );
    CREATE INDEX server_daily_result_by_score ON server_daily_result (day, score DESC, started);
    CREATE INDEX server_daily_result_by_player ON server_daily_result (player_id, day);
    CREATE UNIQUE INDEX server_daily_result_by_game ON server_daily_result (game_id);
    CREATE INDEX server_rating_leaders ON server_rating (mode, rating DESC)
        WHERE games >= {LEADER_GAMES} AND rd < {LEADER_RD};
    ALTER TABLE server_game ADD COLUMN daily TEXT
"""

#: The coach's lessons of any finished game (issue 60), kept once computed: by game and the seats
#: they are for (``"0"``, ``"0,1"``), so that a second request, or another server, reads them.  The
#: lessons kept with counted attempts before this step move here.
LESSONS_STEP = """
    CREATE TABLE server_lessons (
        game_id TEXT NOT NULL REFERENCES server_game (id) ON DELETE CASCADE,
        seats TEXT NOT NULL,
        lessons TEXT NOT NULL,
        made DOUBLE PRECISION NOT NULL,
        PRIMARY KEY (game_id, seats)
    );
    INSERT INTO server_lessons (game_id, seats, lessons, made)
        SELECT r.game_id, '0', r.lessons, r.started FROM server_daily_result r
        JOIN server_game g ON g.id = r.game_id WHERE r.lessons IS NOT NULL
"""


_RESULT = (
    "SELECT r.day, r.player_id, coalesce(p.name, ''), r.game_id, r.score, r.finished, r.place,"
    " d.expert_score, coalesce(d.players, 0)"
    " FROM server_daily_result r LEFT JOIN server_player p ON p.id = r.player_id"
    " LEFT JOIN server_daily d ON d.day = r.day"
)


def _result(row: Any) -> Result:
    day, player, name, game, score, finished, place, expert, players = row
    return Result(day, player, name, game, int(score), bool(finished), place, expert, int(players))


def _count(sql: Sql, day: str, score: int, step: int) -> None:
    """One attempt more (``step`` 1) or fewer (-1) of ``day`` has ``score``."""
    sql(
        "INSERT INTO server_daily_score (day, score, players) VALUES (%s, %s, %s)"
        " ON CONFLICT (day, score) DO UPDATE SET players = server_daily_score.players + excluded.players",
        (day, score, step),
    )


class DailyTables:
    """The challenge's rows; each method runs in the caller's transaction."""

    @staticmethod
    def secret(sql: Sql, name: str, made: str) -> str:
        sql(
            "INSERT INTO server_secret (name, value) VALUES (%s, %s) ON CONFLICT (name) DO NOTHING",
            (name, made),
        )
        return str(sql("SELECT value FROM server_secret WHERE name = %s", (name,)).fetchone()[0])

    @staticmethod
    def day(sql: Sql, day: str) -> DayRow:
        """A day's row as stored; a day nobody played has none (a read writes nothing: the row
        is made by the day's first attempt or expert game)."""
        row = sql(
            "SELECT day, players, expert_score, closed FROM server_daily WHERE day = %s", (day,)
        ).fetchone()
        if row is None:
            return DayRow(day, 0, None, False)
        return DayRow(row[0], int(row[1]), row[2], bool(row[3]))

    @staticmethod
    def attempt(sql: Sql, day: str, player_id: str, game_id: str, started: float) -> Result | None:
        """Start ``player_id``'s counted attempt of ``day`` with ``game_id``, unless it has one:
        None if it started one now, else the one it has."""
        sql("INSERT INTO server_daily (day) VALUES (%s) ON CONFLICT (day) DO NOTHING", (day,))
        taken = sql(
            "INSERT INTO server_daily_result (day, player_id, game_id, started) VALUES (%s, %s, %s, %s)"
            " ON CONFLICT (day, player_id) DO NOTHING",
            (day, player_id, game_id, started),
        ).rowcount
        if taken == 1:
            sql("UPDATE server_daily SET players = players + 1 WHERE day = %s", (day,))
            _count(sql, day, 0, 1)
            return None
        row = sql(f"{_RESULT} WHERE r.day = %s AND r.player_id = %s", (day, player_id)).fetchone()
        return _result(row)

    @staticmethod
    def drop_attempt(sql: Sql, game_id: str) -> None:
        """An attempt whose game could not be stored is no attempt."""
        row = sql("SELECT day, score FROM server_daily_result WHERE game_id = %s", (game_id,)).fetchone()
        if row is not None:
            sql("DELETE FROM server_daily_result WHERE game_id = %s", (game_id,))
            sql("UPDATE server_daily SET players = players - 1 WHERE day = %s", (row[0],))
            _count(sql, row[0], int(row[1]), -1)

    @staticmethod
    def score(sql: Sql, game_id: str, score: int, finished: bool, today: str) -> bool:
        """A counted attempt's score as its game stands (only while its day lasts): whether it was
        one."""
        row = sql(
            "SELECT score FROM server_daily_result WHERE game_id = %s AND day = %s AND finished = 0"
            + sql.lock,
            (game_id, today),
        ).fetchone()
        if row is None:
            return False
        old = int(row[0])
        if old != score:  # the lower score's row first: two transactions lock them in one order
            for value, step in sorted(((old, -1), (score, 1))):
                _count(sql, today, value, step)
        sql(
            "UPDATE server_daily_result SET score = %s, finished = %s WHERE game_id = %s",
            (score, int(finished), game_id),
        )
        return True

    @staticmethod
    def result_of(sql: Sql, day: str, player_id: str) -> Result | None:
        """A player's attempt of a day, with its rank."""
        row = sql(f"{_RESULT} WHERE r.day = %s AND r.player_id = %s", (day, player_id)).fetchone()
        if row is None:
            return None
        found = _result(row)
        return found if found.rank is not None else DailyTables._ranked(sql, found)

    @staticmethod
    def _ranked(sql: Sql, result: Result) -> Result:
        above = sql(
            "SELECT coalesce(sum(players), 0) FROM server_daily_score WHERE day = %s AND score > %s",
            (result.day, result.score),
        ).fetchone()[0]
        return replace(result, rank=int(above) + 1)

    @staticmethod
    def top(sql: Sql, day: str, limit: int) -> list[Result]:
        """A day's best attempts in order, ranked (ties share a rank)."""
        rows = sql(
            f"{_RESULT} WHERE r.day = %s ORDER BY r.score DESC, r.started LIMIT %s", (day, limit)
        ).fetchall()
        out: list[Result] = []
        last, rank = None, 0
        for n, (day_of, player, name, game, score, finished, _place, expert, players) in enumerate(rows, 1):
            if score != last:  # ties share a rank
                last, rank = score, n
            out.append(
                Result(day_of, player, name, game, int(score), bool(finished), rank, expert, int(players))
            )
        return out

    @staticmethod
    def median(sql: Sql, day: str, players: int) -> float | None:
        """The median score of a day's attempts (``players`` of them)."""
        if players <= 0:
            return None
        wanted = sorted({(players - 1) // 2, players // 2})  # the middle one, or the middle two
        found: list[float] = []
        seen = 0
        rows = sql("SELECT score, players FROM server_daily_score WHERE day = %s ORDER BY score", (day,))
        for score, count in rows.fetchall():
            seen += int(count)
            while wanted and wanted[0] < seen:
                found.append(float(score))
                wanted.pop(0)
            if not wanted:
                break
        return sum(found) / len(found) if found else None

    @staticmethod
    def history(sql: Sql, player_id: str, limit: int) -> list[Result]:
        """A player's attempts, newest first (ranks of closed days; others counted)."""
        rows = sql(
            f"{_RESULT} WHERE r.player_id = %s ORDER BY r.day DESC LIMIT %s", (player_id, limit)
        ).fetchall()
        found = [_result(row) for row in rows]
        return [r if r.rank is not None else DailyTables._ranked(sql, r) for r in found]

    @staticmethod
    def view(sql: Sql, day: str, player_id: str | None, top: int, days: int, over: bool) -> DayView:
        """All that ``GET /api/daily`` shows of ``day`` in one transaction: its row, the player's
        attempt (ranked), its ``top`` best attempts, the median once shown (the day is ``over``,
        or the player's attempt finished), the player's last ``days`` days."""
        row = DailyTables.day(sql, day)
        mine = None if player_id is None else DailyTables.result_of(sql, day, player_id)
        best = DailyTables.top(sql, day, top)
        shown = over or (mine is not None and mine.finished)
        median = DailyTables.median(sql, day, row.players) if shown else None
        played = [] if player_id is None else DailyTables.days(sql, player_id, days)
        return DayView(row, mine, best, median, played)

    @staticmethod
    def days(sql: Sql, player_id: str, limit: int) -> list[str]:
        """The days a player made its attempt, newest first."""
        rows = sql(
            "SELECT day FROM server_daily_result WHERE player_id = %s ORDER BY day DESC LIMIT %s",
            (player_id, limit),
        ).fetchall()
        return [str(row[0]) for row in rows]

    @staticmethod
    def best(sql: Sql, player_id: str) -> Result | None:
        """A player's best attempt of a closed day (its rank kept), the earliest of equals."""
        row = sql(
            f"{_RESULT} WHERE r.player_id = %s AND r.place IS NOT NULL ORDER BY r.score DESC, r.day LIMIT 1",
            (player_id,),
        ).fetchone()
        return None if row is None else _result(row)

    @staticmethod
    def claim_expert(sql: Sql, day: str, instance: str, now: float, lease: float) -> bool:
        """Take the lease to play the expert's game of ``day`` (nobody holds it, or it ran out)."""
        sql("INSERT INTO server_daily (day) VALUES (%s) ON CONFLICT (day) DO NOTHING", (day,))
        taken = sql(
            "UPDATE server_daily SET expert_by = %s, expert_until = %s WHERE day = %s"
            " AND expert_score IS NULL AND (expert_until IS NULL OR expert_until < %s OR expert_by = %s)",
            (instance, now + lease, day, now, instance),
        ).rowcount
        return bool(taken)

    @staticmethod
    def expert_played(sql: Sql, day: str, score: int) -> None:
        sql(
            "UPDATE server_daily SET expert_score = %s, expert_by = NULL, expert_until = NULL"
            " WHERE day = %s AND expert_score IS NULL",
            (score, day),
        )

    @staticmethod
    def open_days(sql: Sql, before: str) -> list[str]:
        rows = sql("SELECT day FROM server_daily WHERE closed = 0 AND day < %s ORDER BY day", (before,))
        return [str(row[0]) for row in rows.fetchall()]

    @staticmethod
    def close_day(sql: Sql, day: str) -> bool:
        """Close a day that is over: each attempt keeps its rank (ties share one).  Whether this
        call closed it (another server may have)."""
        row = sql(f"SELECT closed FROM server_daily WHERE day = %s{sql.lock}", (day,)).fetchone()
        if row is None or row[0]:
            return False
        scores = sql(
            "SELECT player_id, score FROM server_daily_result WHERE day = %s ORDER BY score DESC, started",
            (day,),
        ).fetchall()
        places: list[tuple[int, str, str]] = []
        last, rank = None, 0
        for n, (player, score) in enumerate(scores, 1):
            if score != last:
                last, rank = score, n
            places.append((rank, day, player))
        for start in range(0, len(places), 1000):
            sql.many(
                "UPDATE server_daily_result SET place = %s WHERE day = %s AND player_id = %s",
                places[start : start + 1000],
            )
        sql("UPDATE server_daily SET closed = 1 WHERE day = %s", (day,))
        return True

    @staticmethod
    def lessons(sql: Sql, game_id: str, seats: str, text: str | None, made: float) -> str | None:
        """A game's lessons for ``seats`` as kept (``text``: keep these first, unless some are)."""
        if text is not None:
            sql(
                "INSERT INTO server_lessons (game_id, seats, lessons, made) VALUES (%s, %s, %s, %s)"
                " ON CONFLICT (game_id, seats) DO NOTHING",
                (game_id, seats, text, made),
            )
        row = sql(
            "SELECT lessons FROM server_lessons WHERE game_id = %s AND seats = %s", (game_id, seats)
        ).fetchone()
        return None if row is None else str(row[0])

    @staticmethod
    def leaders(sql: Sql, mode: str, limit: int, offset: int) -> list[Leader]:
        """The rated players a leaderboard may list (``LEADER_GAMES`` games, RD below ``LEADER_RD``
        as stored, counted results against ``LEADER_OPPONENTS`` different players), best first."""
        rows = sql(
            "SELECT p.name, r.rating, r.rd, r.volatility, r.games, r.played FROM server_rating r"
            " JOIN server_player p ON p.id = r.player_id"
            f" WHERE r.mode = %s AND r.games >= {LEADER_GAMES} AND r.rd < {LEADER_RD}"
            " AND (SELECT count(DISTINCT g.opponent_id) FROM server_rating_game g"
            "  WHERE g.player_id = r.player_id AND g.mode = r.mode AND g.counted = 1)"
            f" >= {LEADER_OPPONENTS}"
            " ORDER BY r.rating DESC LIMIT %s OFFSET %s",
            (mode, limit, offset),
        ).fetchall()
        return [Leader(str(a), float(b), float(c), float(v), int(d), float(e)) for a, b, c, v, d, e in rows]


class DailyCalls:
    """The storage's calls of the daily challenge and the leaderboards, for a storage that runs
    ``work(sql, *args)`` in a transaction of its own (``people``)."""

    async def people(self, work: Callable[..., T], *args: Any) -> T:
        raise NotImplementedError

    async def daily_secret(self, name: str, made: str) -> str:
        """The secret of ``name``, stored as ``made`` if none was."""
        return await self.people(DailyTables.secret, name, made)

    async def daily_day(self, day: str) -> DayRow:
        return await self.people(DailyTables.day, day)

    async def daily_attempt(self, day: str, player_id: str, game_id: str, started: float) -> Result | None:
        """Start a counted attempt: None if it is the player's first of the day, else the first."""
        return await self.people(DailyTables.attempt, day, player_id, game_id, started)

    async def daily_drop(self, game_id: str) -> None:
        await self.people(DailyTables.drop_attempt, game_id)

    async def daily_score(self, game_id: str, score: int, finished: bool, today: str) -> bool:
        return await self.people(DailyTables.score, game_id, score, finished, today)

    async def daily_result(self, day: str, player_id: str) -> Result | None:
        """A player's attempt of ``day`` with its rank (None: it has none)."""
        return await self.people(DailyTables.result_of, day, player_id)

    async def daily_top(self, day: str, limit: int) -> list[Result]:
        return await self.people(DailyTables.top, day, limit)

    async def daily_median(self, day: str, players: int) -> float | None:
        return await self.people(DailyTables.median, day, players)

    async def daily_view(self, day: str, player_id: str | None, top: int, days: int, over: bool) -> DayView:
        """What ``GET /api/daily`` shows of a day, in one call (:meth:`DailyTables.view`)."""
        return await self.people(DailyTables.view, day, player_id, top, days, over)

    async def daily_history(self, player_id: str, limit: int) -> list[Result]:
        return await self.people(DailyTables.history, player_id, limit)

    async def daily_days(self, player_id: str, limit: int) -> list[str]:
        return await self.people(DailyTables.days, player_id, limit)

    async def daily_best(self, player_id: str) -> Result | None:
        return await self.people(DailyTables.best, player_id)

    async def daily_claim_expert(self, day: str, instance: str, now: float, lease: float) -> bool:
        return await self.people(DailyTables.claim_expert, day, instance, now, lease)

    async def daily_expert_played(self, day: str, score: int) -> None:
        await self.people(DailyTables.expert_played, day, score)

    async def daily_open_days(self, before: str) -> list[str]:
        return await self.people(DailyTables.open_days, before)

    async def daily_close(self, day: str) -> bool:
        return await self.people(DailyTables.close_day, day)

    async def game_lessons(
        self, game_id: str, seats: str, text: str | None = None, made: float = 0.0
    ) -> str | None:
        """The coach's lessons of a finished game for ``seats`` as kept (``text``: keep these)."""
        return await self.people(DailyTables.lessons, game_id, seats, text, made)

    async def leaders(self, mode: str, limit: int, offset: int = 0) -> list[Leader]:
        """The rated players a leaderboard may list, best first."""
        return await self.people(DailyTables.leaders, mode, limit, offset)


__all__ = [
    "LEADER_GAMES",
    "LEADER_OPPONENTS",
    "LEADER_RD",
    "LESSONS_STEP",
    "DailyCalls",
    "DailyTables",
    "DayRow",
    "DayView",
    "Leader",
    "Result",
]
