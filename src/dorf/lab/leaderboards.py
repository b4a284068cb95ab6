"""The leaderboards' benchmark: the daily challenge's and the ratings' pages on a full database.

``python -m dorf.lab.leaderboards`` makes a database (a SQLite file in a temporary folder; with
``--db postgres`` a fresh database in a throwaway PostgreSQL cluster, :mod:`dorf.testing.pgcluster`;
or ``--db postgresql://...``, an empty database, or ``--db FILE.sqlite3``, a file that does not
exist yet), migrates the server's schema into it and fills it with bulk inserts (``executemany``
in one transaction a table or a day on SQLite, ``COPY`` on PostgreSQL; the results' indexes
dropped meanwhile and made again from their own definitions; on PostgreSQL ``VACUUM ANALYZE``
after, as autovacuum would do within minutes):

- ``--players`` players (unique names), each with a rating in the Duel and in Head to Head:
  rating ~ N(1500, 250), 0 to 300 games, RD 45 to 150 for those with 10 games or more (150 to
  350 below), last played within days, so that about half may be listed (10 games, RD < 110);
- ``--results`` counted attempts of the daily challenge over as many days as it takes to hold
  them with every day as full as the next (1,000,000 results of 100,000 players: ten days of
  100,000): score ~ N(120, 30), mostly finished; the days before today are closed (each attempt's
  rank stored, as the server stores it), today is open, its ranks counted on asking; the
  counts of each score (``server_daily_score``) made from them, as the server keeps them.

Then it times the server's own queries (:class:`~dorf.server.storage.daily.DailyTables`, run as
the storage runs them, ``--repeats`` times each) and prints the plan of each (SQLite's ``EXPLAIN
QUERY PLAN``, PostgreSQL's ``EXPLAIN ANALYZE``), starts ``dorf serve`` on the database (today
read from a ``--today-file``, no think workers: the day's expert score is stored, so the server
plays no game) and measures each page over HTTP: one keep-alive connection (``http.client``),
``--requests`` requests in a row after ``--warmup`` more, the latency p50, p99 and max in
milliseconds from sending the request to reading the whole answer, and the CPU time the server
process used per request (``/proc/PID/stat``; with a cluster of its own also the PostgreSQL
server's, every process of it).  Each page's line also says how much of the machine's CPUs other
processes used meanwhile (``others``, from ``/proc/stat``): a p99 measured while other work
runs is that work's as much as the server's.  The pages:

- ``GET /api/daily`` as a new player (no attempt), and as players whose attempt of today ranks
  near the top (1 %), in the middle and near the bottom (99 %): its rank is a sum of the day's
  score counts above its score (``server_daily_score``); and as a player near the bottom who
  has finished: the median too;
- ``GET /api/daily/DATE`` of yesterday (closed: ranks stored, the median), as the player near
  the bottom;
- ``GET /api/leaderboard?mode=duel`` and ``?mode=head-to-head``;
- ``GET /api/players/NAME`` of the player near the bottom (its calendar counts today's rank).

It prints one line per figure and a final JSON line.  Everything runs on 127.0.0.1, client and
server on one machine; runs are bounded in players, results and requests.  Linux only (CPU
times are read from ``/proc``).
"""

from __future__ import annotations

import argparse
import base64
import contextlib
import http.client
import json
import math
import os
import random
import sqlite3
import sys
import tempfile
import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from datetime import UTC, date, datetime, timedelta
from pathlib import Path
from typing import Any

from dorf.lab.capacity import descendants
from dorf.server.players.accounts import COOKIE
from dorf.server.players.names import name_key
from dorf.server.storage.base import secret_hash
from dorf.server.storage.daily import LEADER_GAMES, LEADER_RD, DailyTables
from dorf.server.storage.people import PeopleTables
from dorf.server.storage.sql import Sql
from dorf.testing.servers import launch

#: The rated modes, each player with a rating in both.
MODES = ("duel", "head-to-head")
#: The attempts ``GET /api/daily`` lists, and the days a player's page shows (the server's).
TOP, CALENDAR, STREAK_DAYS = 100, 60, 400
#: The bounds of a run.
MAX_PLAYERS, MAX_RESULTS, MAX_REQUESTS = 1_000_000, 10_000_000, 100_000
#: The issue's bar: every page answers within this at p99, in milliseconds.
BAR_MS = 50.0
#: The players measured, by where their attempt of today ranks (a fraction of the day's players)
#: and whether it is finished (the median is shown to those who finished).
CHOSEN: dict[str, tuple[float, bool]] = {
    "top": (0.01, False),
    "middle": (0.50, False),
    "bottom": (0.99, False),
    "finished": (0.985, True),
}


@dataclass(frozen=True)
class Options:
    """A run's sizes: players, results, timed requests a page (after ``warmup``), timed runs of
    each query, and the random seed of the data."""

    players: int = 100_000
    results: int = 1_000_000
    requests: int = 300
    warmup: int = 30
    repeats: int = 50
    seed: int = 1


@dataclass(frozen=True)
class Chosen:
    """A player measured: id, name, today's score, rank and whether finished; its cookie."""

    id: str
    name: str
    score: int
    rank: int
    finished: bool
    secret: str


@dataclass
class Filled:
    """What a fill made: the days (oldest first: today last), their players, the players measured,
    and the seconds each part took."""

    days: list[str]
    counts: list[int]
    chosen: dict[str, Chosen]
    seconds: dict[str, float] = field(default_factory=dict)

    @property
    def today(self) -> str:
        return self.days[-1]

    @property
    def yesterday(self) -> str | None:
        return self.days[-2] if len(self.days) > 1 else None


def say(line: str) -> None:
    """A figure's line, printed at once (a run takes minutes)."""
    print(line, flush=True)


# --- the data ---------------------------------------------------------------------------------


def plan_days(players: int, results: int) -> list[int]:
    """How many attempts each day holds (oldest first): as few days as hold ``results`` with at
    most ``players`` a day, as even as can be.

    >>> plan_days(100_000, 1_000_000) == [100_000] * 10, plan_days(300, 2000)
    (True, [286, 286, 286, 286, 286, 285, 285])
    """
    days = max(1, math.ceil(results / players))
    base, extra = divmod(results, days)
    return [base + (1 if n < extra else 0) for n in range(days)]


def places(scores: Sequence[tuple[int, float]]) -> list[int]:
    """The rank of each ``(score, started)``: 1 + the attempts with a higher score (ties share a
    rank), as the server ranks them.

    >>> places([(5, 1.0), (9, 2.0), (5, 0.5), (7, 3.0)])
    [3, 1, 3, 2]
    """
    order = sorted((-score, started, i) for i, (score, started) in enumerate(scores))
    out = [0] * len(scores)
    last, rank = None, 0
    for n, (score, _, i) in enumerate(order, 1):
        if score != last:
            last, rank = score, n
        out[i] = rank
    return out


def _token(rng: random.Random, size: int) -> str:
    return base64.urlsafe_b64encode(rng.randbytes(size)).decode().rstrip("=")


def player_rows(rng: random.Random, count: int) -> list[tuple[str, str, str, int, str]]:
    """``server_player`` rows: id (random, as the server's), a unique name, its key, not a bot."""
    created = datetime.now(UTC).isoformat(timespec="seconds")
    ids: set[str] = set()
    rows = []
    for n in range(count):
        player_id = _token(rng, 12)
        while player_id in ids:
            player_id = _token(rng, 12)
        ids.add(player_id)
        name = f"Bench{n:06d}"
        rows.append((player_id, name, name_key(name), 0, created))
    return rows


def rating_rows(rng: random.Random, ids: Sequence[str], when: float) -> list[tuple[Any, ...]]:
    """``server_rating`` rows, one a player and mode (see the module)."""
    rows = []
    for player_id in ids:
        for mode in MODES:
            games = 0 if rng.random() < 0.05 else min(300, int(rng.expovariate(1 / 60)))
            rd = rng.uniform(45, 150) if games >= LEADER_GAMES else rng.uniform(150, 350)
            rating = min(3000.0, max(400.0, rng.gauss(1500, 250)))
            played = when - min(60.0, rng.expovariate(1 / 4)) * 86400
            volatility = min(0.1, max(0.04, rng.gauss(0.06, 0.005)))
            rows.append((player_id, mode, rating, rd, volatility, games, played))
    return rows


def day_rows(
    rng: random.Random, day: str, count: int, ids: Sequence[str], closed: bool, when: float
) -> list[tuple[Any, ...]]:
    """A day's ``server_daily_result`` rows: ``count`` of the players ``ids`` (sorted), ranked if
    ``closed``, in the order of the key ``(day, player_id)``; each game's id random (64 bits)."""
    start = datetime.fromisoformat(day).replace(tzinfo=UTC).timestamp()
    span = max(1.0, min(86400.0, when - start))
    who = sorted(rng.sample(range(len(ids)), count))
    gauss, uniform, bits = rng.gauss, rng.uniform, rng.getrandbits
    scores = [(max(0, round(gauss(120, 30))), start + uniform(0, span)) for _ in who]
    ranks: Sequence[int | None] = places(scores) if closed else [None] * count
    finished = 0.97 if closed else 0.90
    chance = rng.random
    return [
        (day, ids[i], f"{bits(64):016x}", score, int(chance() < finished), started, rank)
        for i, (score, started), rank in zip(who, scores, ranks, strict=True)
    ]


def choose(rows: list[tuple[Any, ...]], names: dict[str, str], rng: random.Random) -> dict[str, Chosen]:
    """The players measured among today's ``rows`` (their attempts made finished or not as
    :data:`CHOSEN` says, in place), with their ranks and new cookies' secrets."""
    order = sorted(range(len(rows)), key=lambda i: (-rows[i][3], rows[i][5]))
    ranks = places([(row[3], row[5]) for row in rows])
    chosen: dict[str, Chosen] = {}
    taken: set[int] = set()
    for label, (where, finished) in CHOSEN.items():
        at = min(len(order) - 1, int(where * len(order)))
        while order[at] in taken:
            at = at - 1 if at > 0 else at + 1
        i = order[at]
        taken.add(i)
        day, player, game, score, _, started, place = rows[i]
        rows[i] = (day, player, game, score, int(finished), started, place)
        chosen[label] = Chosen(player, names[player], score, ranks[i], finished, _token(rng, 32))
    return chosen


class Filler:
    """Bulk inserts into a database whose schema is made: ``rows(table, columns, rows)``."""

    def rows(self, table: str, columns: Sequence[str], rows: Sequence[Sequence[Any]]) -> None:
        raise NotImplementedError

    def indexes(self, table: str) -> list[tuple[str, str]]:
        """The indexes of ``table`` that may be dropped (none behind a key): name, definition."""
        raise NotImplementedError

    def run(self, statement: str) -> None:
        raise NotImplementedError

    @contextlib.contextmanager
    def without_indexes(self, table: str) -> Iterator[None]:
        """Fill ``table`` without its indexes, made again after from their stored definitions
        (the server's own, as migrated): a sort of each at the end, not a million random
        insertions into each."""
        found = self.indexes(table)
        for name, _ in found:
            self.run(f"DROP INDEX {name}")
        yield
        for _, definition in found:
            self.run(definition)

    def finish(self) -> None:
        """After the last rows: what the database would do in time by itself."""

    def close(self) -> None:
        raise NotImplementedError


class SqliteFiller(Filler):
    """``executemany`` in one transaction a call, durability off while filling."""

    def __init__(self, path: str) -> None:
        self.conn = sqlite3.connect(path, isolation_level=None)
        self.conn.execute("PRAGMA synchronous = OFF")
        self.conn.execute("PRAGMA cache_size = -1000000")  # 1 GB: the indexes built in memory

    def rows(self, table: str, columns: Sequence[str], rows: Sequence[Sequence[Any]]) -> None:
        marks = ", ".join("?" * len(columns))
        self.conn.execute("BEGIN")
        self.conn.executemany(f"INSERT INTO {table} ({', '.join(columns)}) VALUES ({marks})", rows)
        self.conn.execute("COMMIT")

    def indexes(self, table: str) -> list[tuple[str, str]]:
        query = (
            "SELECT name, sql FROM sqlite_master WHERE type = 'index' AND tbl_name = ? AND sql IS NOT NULL"
        )
        return [(str(name), str(sql)) for name, sql in self.conn.execute(query, (table,))]

    def run(self, statement: str) -> None:
        self.conn.execute(statement)

    def finish(self) -> None:
        self.conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")

    def close(self) -> None:
        self.conn.close()


class PostgresFiller(Filler):
    """``COPY ... FROM STDIN``, then ``VACUUM ANALYZE`` (the statistics and the visibility map
    autovacuum makes within minutes of such a fill)."""

    def __init__(self, url: str) -> None:
        import psycopg

        self.conn = psycopg.connect(url, autocommit=True)

    def rows(self, table: str, columns: Sequence[str], rows: Sequence[Sequence[Any]]) -> None:
        with (
            self.conn.cursor() as cursor,
            cursor.copy(f"COPY {table} ({', '.join(columns)}) FROM STDIN") as copy,
        ):
            for row in rows:
                copy.write_row(row)

    def indexes(self, table: str) -> list[tuple[str, str]]:
        query = (
            "SELECT indexname, indexdef FROM pg_indexes WHERE tablename = %s"
            " AND indexname NOT IN (SELECT conname FROM pg_constraint)"
        )
        return [(str(name), str(sql)) for name, sql in self.conn.execute(query, (table,)).fetchall()]

    def run(self, statement: str) -> None:
        self.conn.execute(statement)

    def finish(self) -> None:
        tables = ("player", "rating", "daily", "daily_result", "daily_score")
        for table in tables:
            self.conn.execute(f"VACUUM ANALYZE server_{table}")

    def close(self) -> None:
        self.conn.close()


def make_schema(db: str) -> None:
    """The server's tables in ``db``, migrated as the server migrates them."""
    if is_postgres(db):
        from dorf.server.storage.postgres import PostgresTables

        PostgresTables(db, 30.0).close()
    else:
        from dorf.server.storage.sqlite import SqliteTables

        SqliteTables(db).close()


def fill(db: str, options: Options, today: str, out: Callable[[str], None] = say) -> Filled:
    """Make the schema in ``db`` and fill it (see the module); ``today`` the server's today."""
    rng = random.Random(options.seed)
    when = time.time()
    counts = plan_days(options.players, options.results)
    last = date.fromisoformat(today)
    days = [(last - timedelta(days=len(counts) - 1 - n)).isoformat() for n in range(len(counts))]
    seconds: dict[str, float] = {}
    started = time.perf_counter()
    make_schema(db)
    seconds["schema"] = time.perf_counter() - started
    filler: Filler = PostgresFiller(db) if is_postgres(db) else SqliteFiller(db)
    try:
        mark = time.perf_counter()
        players = player_rows(rng, options.players)
        filler.rows("server_player", ("id", "name", "name_key", "bot", "created"), players)
        ids = sorted(row[0] for row in players)
        names = {row[0]: row[1] for row in players}
        seconds["players"] = time.perf_counter() - mark
        mark = time.perf_counter()
        columns = ("player_id", "mode", "rating", "rd", "volatility", "games", "played")
        ratings = rating_rows(rng, ids, when)
        filler.rows("server_rating", columns, ratings)
        seconds["ratings"] = time.perf_counter() - mark
        mark = time.perf_counter()
        chosen: dict[str, Chosen] = {}
        columns = ("day", "player_id", "game_id", "score", "finished", "started", "place")
        with filler.without_indexes("server_daily_result"):
            for day, count in zip(days, counts, strict=True):
                rows = day_rows(rng, day, count, ids, day != today, when)
                if day == today:
                    chosen = choose(rows, names, rng)
                filler.rows("server_daily_result", columns, rows)
        expert = [
            (day, count, round(rng.gauss(150, 12)), int(day != today))
            for day, count in zip(days, counts, strict=True)
        ]
        filler.rows("server_daily", ("day", "players", "expert_score", "closed"), expert)
        # the scores' counts a rank and a median read, as the server keeps them move by move
        filler.run(
            "INSERT INTO server_daily_score (day, score, players)"
            " SELECT day, score, count(*) FROM server_daily_result GROUP BY day, score"
        )
        seconds["results"] = time.perf_counter() - mark
        mark = time.perf_counter()
        filler.rows("server_session", ("secret_hash", "player_id", "created"), session_rows(chosen))
        filler.rows("server_rating_game", RATING_GAME_COLUMNS, rating_game_rows(rng, chosen, ids, when))
        filler.rows("server_rating_game", RATING_GAME_COLUMNS, opponent_rows(rng, ratings, ids, when))
        filler.finish()
        seconds["finish"] = time.perf_counter() - mark
    finally:
        filler.close()
    seconds["total"] = time.perf_counter() - started
    finish = "sessions, vacuum analyze" if is_postgres(db) else "sessions, checkpoint"
    parts = ", ".join(f"{k} {v:.1f} s" for k, v in seconds.items() if k not in ("total", "finish"))
    out(
        f"fill: {options.players} players, {2 * options.players} ratings, {options.results} results over"
        f" {len(days)} days ({counts[-1]} today) in {seconds['total']:.1f} s ({parts}, {finish}"
        f" {seconds['finish']:.1f} s)"
    )
    return Filled(days, counts, chosen, seconds)


def session_rows(chosen: dict[str, Chosen]) -> list[tuple[str, str, str]]:
    """The measured players' sessions: the hashes of their cookies' secrets."""
    created = datetime.now(UTC).isoformat(timespec="seconds")
    return [(secret_hash(c.secret), c.id, created) for c in chosen.values()]


RATING_GAME_COLUMNS = (
    "game_id",
    "player_id",
    "mode",
    "opponent_id",
    "score",
    "rating_before",
    "rating_after",
    "rd_after",
    "ended",
)


def opponent_rows(
    rng: random.Random, ratings: Sequence[tuple[Any, ...]], ids: Sequence[str], when: float
) -> list[tuple[Any, ...]]:
    """For each rating a leaderboard may list, three rated games against three players (issue 60:
    a leaderboard lists players with counted results against three different opponents)."""
    rows = []
    for player_id, mode, rating, rd, _, games, played in ratings:
        if games < LEADER_GAMES or rd >= LEADER_RD:
            continue
        for n, opponent in enumerate(rng.sample(ids, 3)):
            game_id = _token(rng, 12)
            rows.append((game_id, player_id, mode, opponent, 1.0, rating, rating, rd, played - n * 3600.0))
    return rows


def rating_game_rows(
    rng: random.Random, chosen: dict[str, Chosen], ids: Sequence[str], when: float
) -> list[tuple[Any, ...]]:
    """A rating history for each measured player (50 rated Duels), as its page lists them."""
    rows = []
    for c in chosen.values():
        rating = 1500.0
        for n in range(50):
            after = rating + rng.uniform(-12, 12)
            ended = when - (50 - n) * 3600.0
            rows.append(
                (
                    _token(rng, 12),
                    c.id,
                    "duel",
                    rng.choice(ids),
                    float(rng.random() < 0.5),
                    rating,
                    after,
                    60.0,
                    ended,
                )
            )
            rating = after
    return rows


# --- the queries ------------------------------------------------------------------------------


@dataclass
class Recording(Sql):
    """A :class:`Sql` that keeps each query it runs with its arguments (in ``%s`` form)."""

    seen: list[tuple[str, tuple[Any, ...]]] = field(default_factory=list)

    def __call__(self, query: str, args: Sequence[Any] = ()) -> Any:
        self.seen.append((query, tuple(args)))
        return super().__call__(query, args)


def queries(filled: Filled) -> dict[str, tuple[Callable[..., Any], tuple[Any, ...]]]:
    """The server's queries behind the pages, by name: the storage's call and its arguments."""
    bottom = filled.chosen["bottom"]
    out: dict[str, tuple[Callable[..., Any], tuple[Any, ...]]] = {
        "top 100 of today": (DailyTables.top, (filled.today, TOP)),
        "rank near the bottom": (DailyTables.result_of, (filled.today, bottom.id)),
        "rank near the top": (DailyTables.result_of, (filled.today, filled.chosen["top"].id)),
        "median of today": (DailyTables.median, (filled.today, filled.counts[-1])),
        "days (streak)": (DailyTables.days, (bottom.id, STREAK_DAYS)),
        "calendar": (DailyTables.history, (bottom.id, CALENDAR)),
        "best day": (DailyTables.best, (bottom.id,)),
        "leaderboard duel": (DailyTables.leaders, ("duel", 2 * TOP, 0)),
        "player by name": (PeopleTables.find_player, ("", "", bottom.name)),
    }
    if filled.yesterday is not None:
        out["median of yesterday"] = (DailyTables.median, (filled.yesterday, filled.counts[-2]))
    return out


class Tables:
    """The storage's tables of ``db`` as the server uses them: ``people(work, *args)`` runs
    ``work(sql, *args)`` in a transaction, ``explain(query, args)`` the plan's lines."""

    def __init__(self, db: str) -> None:
        self.postgres = is_postgres(db)
        self.tables: Any
        if self.postgres:
            from dorf.server.storage.postgres import PostgresTables

            self.tables = PostgresTables(db, 30.0)
        else:
            from dorf.server.storage.sqlite import SqliteTables

            self.tables = SqliteTables(db)

    def people(self, work: Callable[..., Any], *args: Any) -> list[tuple[str, tuple[Any, ...]]]:
        """Run ``work`` as the server does; the queries it ran."""
        seen: list[tuple[str, tuple[Any, ...]]] = []

        def recorded(sql: Sql, *args: Any) -> Any:
            recording = Recording(sql.conn, sql.dialect, seen)
            return work(recording, *args)

        self.tables.people(recorded, *args)
        return seen

    def explain(self, query: str, args: tuple[Any, ...]) -> list[str]:
        if self.postgres:
            conn = self.tables.connection()
            rows = conn.execute("EXPLAIN (ANALYZE, COSTS OFF, BUFFERS) " + query, args).fetchall()
            return [str(row[0]).strip() for row in rows]
        rows = self.tables.conn.execute("EXPLAIN QUERY PLAN " + query.replace("%s", "?"), args).fetchall()
        return [str(row[3]) for row in rows]

    def close(self) -> None:
        self.tables.close()


def time_queries(db: str, filled: Filled, repeats: int, out: Callable[[str], None] = say) -> dict[str, Any]:
    """Each of :func:`queries` run ``repeats`` times as the storage runs it: its p50, p99 and max
    in milliseconds, and the plan of each query it ran."""
    tables = Tables(db)
    found: dict[str, Any] = {}
    try:
        for name, (work, args) in queries(filled).items():
            seen = tables.people(work, *args)  # a first run, untimed: the pages in memory
            times = []
            for _ in range(repeats):
                started = time.perf_counter()
                tables.people(work, *args)
                times.append(time.perf_counter() - started)
            figures = latency(times)
            found[name] = figures
            out(f"query {name:<24} {_figures(figures)}")
            for query, query_args in dict.fromkeys(seen):
                plan = tables.explain(query, query_args)
                out(f"  plan {_short(query)}")
                for line in plan:
                    out(f"    {line}")
    finally:
        tables.close()
    return found


def _short(query: str, width: int = 100) -> str:
    return query if len(query) <= width else query[: width - 3] + "..."


# --- the pages --------------------------------------------------------------------------------


def percentile(times: Sequence[float], q: float) -> float:
    """The nearest-rank percentile ``q`` (0 to 1) of ``times``.

    >>> percentile([float(n) for n in range(1, 101)], 0.99), percentile([3.0, 1.0, 2.0], 0.5)
    (99.0, 2.0)
    """
    ordered = sorted(times)
    return ordered[max(0, math.ceil(q * len(ordered)) - 1)]


def latency(times: Sequence[float]) -> dict[str, float]:
    """p50, p99 and max of ``times`` (seconds) in milliseconds."""
    return {
        "p50_ms": round(1000 * percentile(times, 0.50), 2),
        "p99_ms": round(1000 * percentile(times, 0.99), 2),
        "max_ms": round(1000 * max(times), 2),
    }


def _figures(figures: dict[str, float]) -> str:
    return (
        f"p50 {figures['p50_ms']:7.2f} ms  p99 {figures['p99_ms']:7.2f} ms  max {figures['max_ms']:7.2f} ms"
    )


def cpu_seconds(pids: Sequence[int]) -> float:
    """The CPU time (user and system) the processes ``pids`` have used, in seconds (those gone
    count nothing)."""
    ticks = os.sysconf("SC_CLK_TCK")
    total = 0
    for pid in pids:
        with contextlib.suppress(OSError, ValueError, IndexError):
            stat = Path(f"/proc/{pid}/stat").read_text()
            fields = stat[stat.rindex(")") + 2 :].split()
            total += int(fields[11]) + int(fields[12])
    return total / ticks


def machine_busy() -> float:
    """The CPU time every CPU of the machine has been busy (not idle, not waiting), in seconds
    (``/proc/stat``)."""
    fields = Path("/proc/stat").read_text().split("\n", 1)[0].split()[1:9]
    user, nice, system, _, _, irq, softirq, steal = (int(f) for f in fields)
    return (user + nice + system + irq + softirq + steal) / os.sysconf("SC_CLK_TCK")


class Client:
    """One keep-alive HTTP connection to the server."""

    def __init__(self, url: str) -> None:
        host, port = url.removeprefix("http://").split(":")
        self.conn = http.client.HTTPConnection(host, int(port), timeout=60)

    def get(self, path: str, cookie: str | None = None) -> tuple[int, bytes, http.client.HTTPResponse]:
        self.conn.request("GET", path, headers={} if cookie is None else {"Cookie": cookie})
        response = self.conn.getresponse()
        return response.status, response.read(), response

    def close(self) -> None:
        self.conn.close()


@dataclass(frozen=True)
class Page:
    """A page measured: its path, the cookie it is asked with, and a check of its answer."""

    path: str
    cookie: str | None
    check: Callable[[Any], None]


def pages(filled: Filled, new_cookie: str) -> dict[str, Page]:
    """The pages measured (see the module), each with what its answer must say."""
    chosen = filled.chosen
    players = filled.counts[-1]

    def cookie(label: str) -> str:
        return f"{COOKIE}={chosen[label].secret}"

    def daily(label: str | None) -> Callable[[Any], None]:
        def check(body: Any) -> None:
            assert body["date"] == filled.today and body["players"] == players, body
            assert len(body["top"]) == min(TOP, players), len(body["top"])
            if label is None:
                assert body["attempt"] is None, body["attempt"]
                return
            mine = chosen[label]
            assert body["attempt"]["rank"] == mine.rank and body["attempt"]["score"] == mine.score, body[
                "attempt"
            ]
            assert (body["median"] is not None) == mine.finished, body["median"]

        return check

    def past(body: Any) -> None:
        assert body["date"] == filled.yesterday and body["over"] and body["median"] is not None, body
        assert body["players"] == filled.counts[-2] and len(body["top"]) == min(TOP, filled.counts[-2])

    def board(mode: str) -> Callable[[Any], None]:
        def check(body: Any) -> None:
            assert body["mode"] == mode and len(body["players"]) <= TOP, body
            ratings = [p["rating"] for p in body["players"]]
            assert ratings == sorted(ratings, reverse=True), ratings
            assert all(p["games"] >= LEADER_GAMES and p["rd"] < LEADER_RD for p in body["players"])

        return check

    def profile(body: Any) -> None:
        assert body["name"] == chosen["bottom"].name and body["daily"], body
        first = body["daily"][0]
        assert first["date"] == filled.today and first["rank"] == chosen["bottom"].rank, first

    out = {
        "daily, new player": Page("/api/daily", new_cookie, daily(None)),
        **{f"daily, {label}": Page("/api/daily", cookie(label), daily(label)) for label in CHOSEN},
    }
    if filled.yesterday is not None:
        out["daily of yesterday"] = Page(f"/api/daily/{filled.yesterday}", cookie("bottom"), past)
    for mode in MODES:
        out[f"leaderboard {mode}"] = Page(f"/api/leaderboard?mode={mode}", None, board(mode))
    out["player page"] = Page(f"/api/players/{chosen['bottom'].name}", None, profile)
    return out


def measure_pages(
    url: str,
    filled: Filled,
    options: Options,
    server_pids: Callable[[], list[int]],
    db_pids: Callable[[], list[int]] | None,
    out: Callable[[str], None] = say,
) -> tuple[dict[str, Any], dict[str, Any]]:
    """Each page asked ``options.requests`` times in a row on one connection after
    ``options.warmup``: its latency, the server's (and the database's) CPU per request, the share
    of the machine's CPUs that other processes used meanwhile (they skew the latency: the more,
    the more); and the last answer of each page."""
    client = Client(url)
    found: dict[str, Any] = {}
    bodies: dict[str, Any] = {}
    try:
        status, _, response = client.get("/api/me")
        assert status == 200, status
        new_cookie = "; ".join(c.split(";", 1)[0] for c in response.headers.get_all("Set-Cookie") or [])
        for name, page in pages(filled, new_cookie).items():
            for _ in range(options.warmup):
                status, body, _ = client.get(page.path, page.cookie)
                assert status == 200, (name, status, body[:300])
            page.check(json.loads(body))
            times = []
            pids = server_pids()
            cpu = cpu_seconds(pids)
            theirs = [] if db_pids is None else db_pids()
            db_cpu = cpu_seconds(theirs)
            busy, mine, began = machine_busy(), time.process_time(), time.perf_counter()
            for _ in range(options.requests):
                started = time.perf_counter()
                status, body, _ = client.get(page.path, page.cookie)
                times.append(time.perf_counter() - started)
                assert status == 200, (name, status, body[:300])
            wall = time.perf_counter() - began
            used = [cpu_seconds(pids) - cpu, cpu_seconds(theirs) - db_cpu, time.process_time() - mine]
            others = max(0.0, machine_busy() - busy - sum(used)) / (wall * (os.cpu_count() or 1))
            figures: dict[str, Any] = latency(times)
            figures["server_cpu_ms"] = round(1000 * used[0] / options.requests, 2)
            line = (
                f"page {name:<24} {_figures(figures)}  server CPU {figures['server_cpu_ms']:6.2f} ms/request"
            )
            if db_pids is not None:
                figures["db_cpu_ms"] = round(1000 * used[1] / options.requests, 2)
                line += f"  database CPU {figures['db_cpu_ms']:6.2f} ms/request"
            figures["others_cpu_pct"] = round(100 * others, 1)
            line += f"  others {100 * others:3.0f} %"
            figures["bytes"] = len(body)
            bodies[name] = json.loads(body)
            found[name] = figures
            out(line + f"  ({len(body)} bytes)")
    finally:
        client.close()
    return found, bodies


# --- the run ----------------------------------------------------------------------------------


def is_postgres(db: str) -> bool:
    return db.startswith(("postgresql://", "postgres://"))


def postmaster_pids(data: Path) -> Callable[[], list[int]]:
    """The processes of the PostgreSQL server of the folder ``data``: its postmaster and each
    process it started (the backends)."""
    postmaster = int((data / "postmaster.pid").read_text().split()[0])
    return lambda: [postmaster, *descendants(postmaster)]


@dataclass
class Bench:
    """A run's figures (the JSON line) and the last answer of each page."""

    figures: dict[str, Any]
    bodies: dict[str, Any]


def bench(
    db: str,
    options: Options,
    folder: Path,
    db_pids: Callable[[], list[int]] | None = None,
    out: Callable[[str], None] = say,
) -> Bench:
    """Fill ``db`` (a new SQLite file or an empty PostgreSQL database), time its queries, measure
    the pages on a server of its own (``folder`` holds its today file); the figures, printed
    line by line and last as one JSON line."""
    today = datetime.now(UTC).date().isoformat()
    filled = fill(db, options, today, out)
    queried = time_queries(db, filled, options.repeats, out)
    today_file = folder / "today.txt"
    today_file.write_text(today + "\n", encoding="utf-8")
    running = launch(db, process=True, today_file=today_file, ai_workers=0, limit=300)
    try:
        measured, bodies = measure_pages(
            running.url, filled, options, lambda: [running.pid, *descendants(running.pid)], db_pids, out
        )
    finally:
        running.stop()
    worst = max(page["p99_ms"] for page in measured.values())
    out(f"worst page p99 {worst:.2f} ms: {'under' if worst < BAR_MS else 'OVER'} the bar of {BAR_MS:g} ms")
    load = [round(x, 2) for x in os.getloadavg()]
    out(
        f"load average at the end {load[0]} {load[1]} {load[2]} on {os.cpu_count()} CPUs"
        " (other work on the machine skews the figures)"
    )
    figures: dict[str, Any] = {
        "db": "postgresql" if is_postgres(db) else "sqlite",
        "players": options.players,
        "results": options.results,
        "days": len(filled.days),
        "today_results": filled.counts[-1],
        "requests": options.requests,
        "fill_s": {k: round(v, 2) for k, v in filled.seconds.items()},
        "queries": queried,
        "pages": measured,
        "worst_p99_ms": worst,
        "under_bar": worst < BAR_MS,
        "load_average": load,
        "cpus": os.cpu_count(),
    }
    out(json.dumps(figures))
    return Bench(figures, bodies)


@contextlib.contextmanager
def database(db: str, folder: Path) -> Iterator[tuple[str, Callable[[], list[int]] | None]]:
    """The database of ``--db``: a new SQLite file (in ``folder`` unless a path is given), a
    throwaway cluster's fresh database (``postgres``), or the URL given; with the processes of
    its server where they are known."""
    if db in ("postgres", "postgresql", "temp"):
        from dorf.testing.pgcluster import Cluster

        with Cluster() as cluster:
            yield cluster.fresh_database(), postmaster_pids(cluster.data)
        return
    if is_postgres(db):
        yield db, None
        return
    path = folder / "leaderboards.sqlite3" if db == "sqlite" else Path(db)
    if path.exists():
        raise SystemExit(f"{path} exists: the benchmark fills a new file")
    yield str(path), None


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m dorf.lab.leaderboards", description=__doc__.split("\n\n")[0]
    )
    parser.add_argument(
        "--db",
        default="sqlite",
        help="sqlite (a temporary file, the default), FILE.sqlite3 (new), postgres (a throwaway cluster)"
        " or postgresql://... (an empty database)",
    )
    parser.add_argument("--players", type=int, default=Options.players)
    parser.add_argument("--results", type=int, default=Options.results)
    parser.add_argument("--requests", type=int, default=Options.requests, help="timed requests a page")
    parser.add_argument("--warmup", type=int, default=Options.warmup, help="untimed requests a page first")
    parser.add_argument("--repeats", type=int, default=Options.repeats, help="timed runs of each query")
    parser.add_argument("--seed", type=int, default=Options.seed)
    args = parser.parse_args(argv)
    if not 20 <= args.players <= MAX_PLAYERS or not 20 <= args.results <= MAX_RESULTS:
        parser.error(f"20 to {MAX_PLAYERS} players, 20 to {MAX_RESULTS} results")
    if (
        not 1 <= args.requests <= MAX_REQUESTS
        or not 1 <= args.warmup <= 1000
        or not 1 <= args.repeats <= 10_000
    ):
        parser.error(f"1 to {MAX_REQUESTS} requests, 1 to 1000 warm-up requests, 1 to 10000 repeats")
    options = Options(args.players, args.results, args.requests, args.warmup, args.repeats, args.seed)
    with (
        tempfile.TemporaryDirectory(prefix="dorf-leaderboards-") as folder,
        database(args.db, Path(folder)) as (
            db,
            pids,
        ),
    ):
        bench(db, options, Path(folder), pids)
    return 0


if __name__ == "__main__":
    sys.exit(main())
