"""The load benchmark: many games and clients at once on loopback.

``python -m dorf.lab.loadtest`` starts ``dorf serve`` on a free port with a
fresh database (or uses ``--url``), creates ``--games`` games of all three
modes with two seats each, and connects one websocket client per seat
(``--clients``, two per game by default).  Every client plays random legal
moves as fast as the server lets it, asking for a placement preview before
most placements, until its game ends or ``--seconds`` pass (``--think S``:
wait about S seconds before each move, like a person; by default clients
move flat out, so the figures measure a saturated server).  The seconds count
from the moment every client holds its first state (connecting is measured
apart, so a busy machine's slow first answers do not eat the play).  It prints the
latency percentiles of moves (sent until answered) and previews, the
messages and errors counted, and one JSON line with the same figures.

Several servers on one PostgreSQL database: ``--instances N --db
postgresql://USER@HOST:PORT/DBNAME`` starts N ``dorf serve`` processes, each on
a free port, on a fresh database of their own: each run creates a new
database on the server of ``--db`` (``CREATE DATABASE dorf_load_...``, so
the role needs CREATEDB; the database named in the URL is only where that is
done from) and drops it afterwards (``--keep-db``: keep it and print its URL).
A new database rather than clearing the ``server_`` rows of the given one:
the runs compare on equal, empty databases, and nothing of the given
database is ever deleted.  The games are created through the instances in
turn, and the two clients of a game connect to different instances (seat 0
to instance i, seat 1 to instance i + 1), so that every move reaches the
other seat through the database: the worst case for the fan-out.
``--instances 1,2`` runs once with each count, on a fresh database each, and
prints ``instances 2 vs 1: moves/s X / Y = Z.ZZx``.  ``moves_per_s`` counts the
moves acknowledged ``ok``; ``server_cpu_s`` is the sum over the instances (a
killed one up to its reading just before the kill), without PostgreSQL's own
processes; ``machine_busy`` is the share of all the machine's processors busy
during the play (the benchmark's clients, the servers and the database share
them), ``client_cpu_s`` the benchmark's own processor time.

Every move carries a key of its own (``<run>-<game>-<seat>-<n>``); a
client remembers the move in flight (sent, not yet answered ``ok``) and every
move acknowledged.  ``--kill-one-after S`` kills one instance (not the first)
with SIGKILL S seconds into the play; its clients notice the dropped
websocket, connect to the next instance that answers (``reconnects``), say
hello with their token, and send the move in flight again with the same key
if it is still legal there (if the killed server made it, the answer is
``ok`` again and it is not made twice), else choose a fresh move
(``--repeat-last``: also the last move acknowledged, first, which must be
answered ``ok`` again: the keys put to the test across servers).  At the end
the benchmark reads the database: ``lost_moves`` counts moves acknowledged
``ok`` whose key is not among the stored decisions, ``duplicate_moves`` the
stored decisions beyond the first of each key, plus those with no key at all
(the benchmark's games have no computer seats, so every decision came from a
client with a key).  The same check reads the SQLite file of a run without
``--db`` once its server has stopped (a server without keys: ``null``).

Everything stays on this machine: the server listens on 127.0.0.1 only, and
the run is bounded in moves and in time.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import os
import random
import secrets
import sqlite3
import statistics
import sys
import tempfile
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit, urlunsplit

from dorf.testing.net import HttpError, free_ports, get, post
from dorf.testing.servers import Running, ServerError, launch, stop_all

MODES = ("duel", "head-to-head", "coop")
#: The most server processes one run starts.
MOST_INSTANCES = 16
#: How long a client may take to connect (and all of them to hold their first state).
CONNECTING = 30.0


@dataclass
class Figures:
    """What the clients measured."""

    moves: list[float] = field(default_factory=list)
    previews: list[float] = field(default_factory=list)
    connects: list[float] = field(default_factory=list)
    messages: int = 0
    #: Websocket payload bytes received by all clients.
    bytes: int = 0
    states: int = 0
    deltas: int = 0
    resyncs: int = 0
    errors: list[str] = field(default_factory=list)
    finished: int = 0
    #: The keys of the moves answered ``ok``.
    acknowledged: set[str] = field(default_factory=set)
    #: Connections made again after one dropped, and how long each took from the drop.
    reconnects: int = 0
    reconnect_times: list[float] = field(default_factory=list)
    #: Moves in flight when a connection dropped: sent again (same key), or given up as no
    #: longer legal; and answers ``ok`` with ``"again": true`` (the key was made before).
    resent: int = 0
    abandoned: int = 0
    again: int = 0
    #: Moves acknowledged before sent again after connecting again (``--repeat-last``).
    repeated: int = 0
    #: Moves answered ``ok`` on connections made again (the clients of a killed server going on).
    moves_after_reconnect: int = 0
    #: The ids of the run's games.
    game_ids: list[str] = field(default_factory=list)


@dataclass(frozen=True)
class Place:
    """A client's seat: its game (number in the run, id), token, seat, and the instance it
    connects to first."""

    game: int
    game_id: str
    token: str
    seat: int
    home: int


@dataclass
class Play:
    """What the clients share: the instances' websocket addresses, when to stop, the run's
    key prefix, whether an instance was killed, and the figures."""

    ws_bases: list[str]
    deadline: float
    prefix: str
    figures: Figures
    think: float = 0.0
    killed: bool = False
    #: After connecting again, send the last move acknowledged once more (same key) first.
    repeat_last: bool = False
    #: Whether the server knows move keys (a server of an older commit, for --against, does not).
    keys: bool = True
    #: The play's clock: ``seconds`` long, from the moment every client holds its first whole
    #: state (connecting is measured apart, and a busy machine's slow first answers do not eat
    #: the play); ``unready`` clients are not there yet; ``began`` is when the last one was.
    seconds: float = 0.0
    unready: int = 0
    began: float | None = None
    everyone: asyncio.Event = field(default_factory=asyncio.Event)

    def ready(self) -> None:
        """A client holds its first state; the last one starts the clock."""
        self.unready -= 1
        if self.unready == 0:
            self.began = time.perf_counter()
            self.deadline = time.monotonic() + self.seconds
            self.everyone.set()

    async def start(self) -> None:
        """Wait for every client (at most until the deadline)."""
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(self.everyone.wait(), timeout=max(0.0, self.deadline - time.monotonic()))


@dataclass
class Hand:
    """One client's memory across its connections: the move in flight (sent with its key,
    not yet answered), the last move acknowledged, and the number of its last key."""

    inflight: dict[str, Any] | None = None
    last: dict[str, Any] | None = None
    number: int = 0
    ready: bool = False  # has held a whole state (counted in Play.unready)


def percentile(values: list[float], p: float) -> float:
    """The ``p``-th percentile (0 to 100) by nearest rank; 0 for no values.

    >>> percentile([1.0, 2.0, 3.0, 4.0], 50), percentile([5.0], 99)
    (2.0, 5.0)
    """
    if not values:
        return 0.0
    ordered = sorted(values)
    rank = max(1, min(len(ordered), round(p / 100 * len(ordered) + 0.5)))
    return ordered[rank - 1]


def still_legal(doc: dict[str, Any], move: dict[str, Any]) -> bool:
    """Whether ``move`` (a move message) can be made in the state ``doc`` (``{"you", "game"}``).

    >>> doc = {"game": {"over": False, "waiting": [1], "phase": "play"},
    ...        "you": {"legal": {"1": [[0, 1, [0, 3]]]}}}
    >>> [still_legal(doc, {"seat": 1, "at": [0, 1], "rot": rot}) for rot in (3, 2)]
    [True, False]
    >>> still_legal(doc, {"seat": 0, "at": [0, 1], "rot": 3})
    False
    """
    game = doc["game"]
    seat = move["seat"]
    if game["over"] or seat not in game["waiting"]:
        return False
    if "pick" in move:
        return game["phase"] == "draft" and any(tile["id"] == move["pick"] for tile in game["pool"])
    if game["phase"] == "draft":
        return False
    q, r = move["at"]
    return any(
        (cq, cr) == (q, r) and move["rot"] in rots for cq, cr, rots in doc["you"]["legal"].get(str(seat), [])
    )


async def _client(play: Play, place: Place, rng: random.Random) -> None:
    """One seat's client, until its game ends or the time is up: on the instance ``place.home``,
    and after a dropped connection on the next instance that answers."""
    from websockets.asyncio.client import connect
    from websockets.exceptions import ConnectionClosed, WebSocketException

    hand = Hand()
    instance = place.home
    dropped: float | None = None  # when the connection dropped (none yet: the first connection)
    while time.monotonic() < play.deadline:
        started = time.perf_counter()
        url = f"{play.ws_bases[instance]}/ws/{place.game_id}"
        try:
            ws = await connect(url, max_size=1 << 22, open_timeout=CONNECTING)
        except (OSError, TimeoutError, WebSocketException):
            if dropped is None and not play.killed:
                raise  # the first connection to a server that should be there
            instance = (instance + 1) % len(play.ws_bases)
            await asyncio.sleep(0.05)
            continue
        async with ws:
            if dropped is None:
                play.figures.connects.append(time.perf_counter() - started)
            else:
                play.figures.reconnects += 1
                play.figures.reconnect_times.append(time.perf_counter() - dropped)
            try:
                await _play(ws, play, place, hand, rng, reconnected=dropped is not None)
                return
            except ConnectionClosed:
                dropped = time.perf_counter()
                instance = (instance + 1) % len(play.ws_bases)


async def _play(
    ws: Any, play: Play, place: Place, hand: Hand, rng: random.Random, reconnected: bool = False
) -> None:
    """Play on one connection until the game ends or the time is up (ConnectionClosed if the
    connection drops)."""
    from dorf.server.protocol.delta import patch

    figures, seat = play.figures, place.seat
    pending: dict[int, tuple[str, float, dict[str, Any] | None]] = {}  # what, when, the move
    next_id = 1
    repeat = reconnected and play.repeat_last and hand.last is not None
    doc: dict[str, Any] | None = None  # {"you", "game"}: whole states replace it, deltas change it
    await ws.send(json.dumps({"type": "hello", "tokens": [place.token], "id": 0}))
    waiting_reply = True  # for the welcome
    while time.monotonic() < play.deadline:
        try:
            raw = await asyncio.wait_for(ws.recv(), timeout=max(0.1, play.deadline - time.monotonic()))
        except TimeoutError:
            break
        figures.messages += 1
        figures.bytes += len(raw) if isinstance(raw, bytes) else len(raw.encode())
        message = json.loads(raw)
        kind = message["type"]
        if kind == "state":
            doc = {"you": message["you"], "game": message["game"]}
            figures.states += 1
        elif kind == "delta":
            figures.deltas += 1
            if doc is not None and message["from"] == doc["game"]["version"]:
                doc = patch(doc, message["ops"])
            else:  # lost track: ask for the whole state
                figures.resyncs += 1
                doc = None
                await ws.send(json.dumps({"type": "sync"}))
        elif kind == "welcome":
            waiting_reply = bool(pending)
        elif kind in ("ok", "preview", "error") and message.get("id") in pending:
            what, sent, sent_move = pending.pop(message["id"])
            elapsed = time.perf_counter() - sent
            if kind == "error":
                figures.errors.append(f"{what}: {message['code']}: {message['message']}")
            elif what == "move" and sent_move is not None:
                figures.moves.append(elapsed)
                figures.moves_after_reconnect += reconnected
                if "key" in sent_move:
                    figures.acknowledged.add(sent_move["key"])
                figures.again += bool(message.get("again"))
                hand.last = sent_move
            elif what == "repeat":
                if message.get("again"):
                    figures.again += 1
                else:  # a move acknowledged before, made once more?
                    figures.errors.append("repeat: a move sent again with its key was not answered 'again'")
            else:
                figures.previews.append(elapsed)
            if what == "move":
                hand.inflight = None  # answered: made (now or before), or refused
            waiting_reply = bool(pending)
        elif kind == "error":
            figures.errors.append(f"{message['code']}: {message['message']}")
        if doc is not None and not hand.ready:
            hand.ready = True
            play.ready()
            await play.start()
        if doc is None or waiting_reply:
            continue
        if repeat and hand.last is not None:  # made and acknowledged: answered ok "again"
            repeat = False
            figures.repeated += 1
            pending[next_id] = ("repeat", time.perf_counter(), hand.last)
            await ws.send(json.dumps({**hand.last, "id": next_id}))
            next_id += 1
            waiting_reply = True
            continue
        if hand.inflight is not None:  # sent on a connection that dropped before the answer
            move = hand.inflight
            if still_legal(doc, move):
                figures.resent += 1
                pending[next_id] = ("move", time.perf_counter(), move)
                await ws.send(json.dumps({**move, "id": next_id}))
                next_id += 1
                waiting_reply = True
                continue
            figures.abandoned += 1  # made before the drop, or no longer possible: choose afresh
            hand.inflight = None
        game = doc["game"]
        if game["over"]:
            if seat == 0:
                figures.finished += 1
            return
        if seat not in game["waiting"]:
            continue
        if play.think:
            await asyncio.sleep(rng.uniform(0, 2 * play.think))  # a person looking at the board
        if game["phase"] == "draft":
            pool = game["pool"]
            move = {"type": "move", "seat": seat, "pick": pool[rng.randrange(len(pool))]["id"]}
        else:
            cells = doc["you"]["legal"].get(str(seat))
            if not cells:
                continue
            q, r, rots = cells[rng.randrange(len(cells))]
            move = {"type": "move", "seat": seat, "at": [q, r], "rot": rots[rng.randrange(len(rots))]}
            if rng.random() < 0.7:
                pending[next_id] = ("preview", time.perf_counter(), None)
                await ws.send(json.dumps({**move, "type": "preview", "id": next_id}))
                next_id += 1
        hand.number += 1
        if play.keys:
            move["key"] = f"{play.prefix}-{place.game}-{seat}-{hand.number}"
        hand.inflight = move
        pending[next_id] = ("move", time.perf_counter(), move)
        await ws.send(json.dumps({**move, "id": next_id}))
        next_id += 1
        waiting_reply = True  # the new state reaches every client before the answer


async def run(
    base: str | Sequence[str],
    games: int,
    clients: int,
    seconds: float,
    seed: int,
    think: float = 0.0,
    kill: tuple[float, Callable[[], object]] | None = None,
    repeat_last: bool = False,
    together: bool = False,
) -> tuple[Figures, float]:
    """Create the games (through the servers ``base`` in turn), play them, and return the figures
    and the seconds the play took.  A game's seat s plays on the server after the one that made
    it by s (with one server: on it).  ``kill``: (seconds, call) calls ``call`` (in a thread)
    that long into the play; ``repeat_last``: see :class:`Play`; ``together``: both seats of a
    game on the server that made it (as a balancer that routes by game would place them)."""
    bases = [base.rstrip("/")] if isinstance(base, str) else [b.rstrip("/") for b in base]
    rng = random.Random(seed)
    places: list[Place] = []
    figures = Figures()
    for number in range(games):
        mode = MODES[number % len(MODES)]
        body = {"mode": mode, "seed": rng.randrange(1, 10**9), "seats": [{"kind": "here"}, {"kind": "here"}]}
        made: dict[str, Any] = await asyncio.to_thread(
            post, bases[number % len(bases)] + "/api/games", body, 30
        )
        figures.game_ids.append(made["id"])
        for seat_text, token in made["tokens"].items():
            seat = int(seat_text)
            spread = 0 if together else seat
            places.append(Place(number, made["id"], token, seat, (number + spread) % len(bases)))
    places = places[:clients]
    play = Play(
        [b.replace("http://", "ws://", 1) for b in bases],
        time.monotonic() + CONNECTING + seconds,
        secrets.token_hex(4),
        figures,
        think,
        repeat_last=repeat_last,
        keys="instance" in (_health(bases[0]) or {}),
        seconds=seconds,
        unready=len(places),
    )
    started = time.perf_counter()

    async def killer(after: float, call: Callable[[], object]) -> None:
        await play.start()
        await asyncio.sleep(after)
        play.killed = True
        await asyncio.to_thread(call)

    killing = None if kill is None else asyncio.create_task(killer(*kill))
    tasks = [asyncio.create_task(_client(play, place, random.Random(rng.random()))) for place in places]
    for result in await asyncio.gather(*tasks, return_exceptions=True):
        if isinstance(result, BaseException):
            figures.errors.append(f"client failed: {type(result).__name__}: {result}")
    elapsed = time.perf_counter() - (started if play.began is None else play.began)
    if killing is not None:
        if not play.killed:  # every game ended first: nothing left to kill
            killing.cancel()
        try:
            await killing
        except asyncio.CancelledError:
            pass
        except Exception as exc:
            figures.errors.append(f"the kill failed: {type(exc).__name__}: {exc}")
    return figures, elapsed


def _ms(value: float) -> str:
    return f"{value * 1000:.1f}"


def cpu_seconds(pid: int) -> float | None:
    """The processor time (user and system) process ``pid`` has used so far; None where
    ``/proc`` cannot tell."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except OSError:
        return None
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def machine_cpu() -> tuple[float, float] | None:
    """The machine's processor time so far, (busy, all) in clock ticks over all processors;
    None where ``/proc/stat`` cannot tell."""
    try:
        ticks = [int(t) for t in Path("/proc/stat").read_text().splitlines()[0].split()[1:]]
    except (OSError, ValueError, IndexError):
        return None
    idle = ticks[3] + (ticks[4] if len(ticks) > 4 else 0)  # idle and waiting for I/O
    return float(sum(ticks) - idle), float(sum(ticks))


def busy(before: tuple[float, float] | None, after: tuple[float, float] | None) -> float | None:
    """The share of the machine's processors busy between two readings of :func:`machine_cpu`.

    >>> busy((10.0, 100.0), (70.0, 200.0))
    0.6
    """
    if before is None or after is None or after[1] <= before[1]:
        return None
    return round((after[0] - before[0]) / (after[1] - before[1]), 2)


# --- the servers the benchmark starts ---------------------------------------------------------


@dataclass
class Instance:
    """One ``dorf serve`` the benchmark started, and its processor time: at the start of the
    play, and at the last reading (the end of the run, or just before it was killed)."""

    server: Running
    cpu_start: float | None = None
    cpu_last: float | None = None
    killed: bool = False

    @property
    def base(self) -> str:
        return self.server.url

    def read_cpu(self) -> None:
        value = cpu_seconds(self.server.pid)
        if value is not None:
            self.cpu_last = value

    @property
    def cpu(self) -> float | None:
        """Seconds of processor time used since ``cpu_start``, up to the last reading."""
        if self.cpu_start is None or self.cpu_last is None:
            return None
        return self.cpu_last - self.cpu_start


def _serve(db: str, src: str | None, port: int) -> Instance:
    """``dorf serve`` (from the source folder ``src`` if given) on ``port`` with database ``db``
    (a file or a postgresql:// URL), started, not yet answering: no limit of games created or of
    connections per address (an older server may have no such limit), no thinking delay."""
    return Instance(launch(db, process=True, port=port, src=src, wait=False, ai_delay=0))


def start_instances(db: str, src: str | None, count: int) -> list[Instance]:
    """``count`` servers on database ``db``, each answering on a port of its own: the first
    alone (it makes the database's tables), then the others together."""
    ports = free_ports(count)
    servers = [_serve(db, src, ports[0])]
    try:
        servers[0].server.wait()
        servers += [_serve(db, src, port) for port in ports[1:]]
        for server in servers[1:]:
            server.server.wait()
    except ServerError as exc:
        stop_instances(servers)
        raise SystemExit(f"loadtest: {exc}") from None
    except BaseException:
        stop_instances(servers)
        raise
    return servers


def stop_instances(servers: Sequence[Instance]) -> None:
    """Stop the servers still running (SIGTERM, then SIGKILL after 10 s)."""
    stop_all(server.server for server in servers)


def kill_instance(server: Instance) -> None:
    """SIGKILL ``server``, its processor time read just before."""
    server.read_cpu()
    server.killed = True
    server.server.kill()


def _health(base: str) -> dict[str, Any] | None:
    with contextlib.suppress(OSError, ValueError, HttpError):
        data: dict[str, Any] = get(base + "/api/health")
        return data
    return None


# --- the database ----------------------------------------------------------------------------


def is_postgres(url: str) -> bool:
    """Whether ``url`` names a PostgreSQL database.

    >>> is_postgres("postgresql://dorf@127.0.0.1:5432/dorf"), is_postgres("/tmp/load.sqlite3")
    (True, False)
    """
    return url.startswith(("postgresql://", "postgres://"))


def _psycopg() -> Any:
    try:
        import psycopg
    except ImportError:
        raise SystemExit("loadtest: --db needs psycopg 3 (pip install 'psycopg[binary]')") from None
    return psycopg


def with_database(url: str, name: str) -> str:
    """``url`` naming the database ``name`` instead.

    >>> with_database("postgresql://dorf@127.0.0.1:5433/dorf?sslmode=disable", "dorf_load_1")
    'postgresql://dorf@127.0.0.1:5433/dorf_load_1?sslmode=disable'
    """
    return urlunsplit(urlsplit(url)._replace(path="/" + name))


def create_database(url: str) -> str:
    """A new, empty database on the PostgreSQL server of ``url`` (created from the database
    ``url`` names); its URL."""
    psycopg = _psycopg()
    name = f"dorf_load_{secrets.token_hex(6)}"
    try:
        with psycopg.connect(url, autocommit=True) as conn:
            conn.execute(psycopg.sql.SQL("CREATE DATABASE {}").format(psycopg.sql.Identifier(name)))
    except psycopg.Error as exc:
        first = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
        raise SystemExit(f"loadtest: cannot create a database for the run on {url}: {first}") from None
    return with_database(url, name)


def drop_database(url: str, run_url: str) -> None:
    """Drop the run's database ``run_url`` (from the database ``url`` names)."""
    psycopg = _psycopg()
    name = urlsplit(run_url).path.lstrip("/")
    with psycopg.connect(url, autocommit=True) as conn:
        conn.execute(
            psycopg.sql.SQL("DROP DATABASE IF EXISTS {} WITH (FORCE)").format(psycopg.sql.Identifier(name))
        )


def stored_keys(db: str, game_ids: Sequence[str]) -> list[tuple[str | None, int]] | None:
    """The keys of the stored decisions of the games ``game_ids`` in database ``db`` (a file or
    a postgresql:// URL), each with its count of rows (None: the decisions of no key); None if
    the database has no keys (a server from before them)."""
    if is_postgres(db):
        psycopg = _psycopg()
        with psycopg.connect(db) as conn:
            has_key = conn.execute(
                "SELECT 1 FROM information_schema.columns"
                " WHERE table_name = 'server_decision' AND column_name = 'key'"
            ).fetchone()
            if has_key is None:
                return None
            rows = conn.execute(
                "SELECT key, count(*) FROM server_decision WHERE game_id = ANY(%s) GROUP BY key",
                (list(game_ids),),
            ).fetchall()
            return [(key, int(count)) for key, count in rows]
    conn = sqlite3.connect(f"file:{db}?mode=ro", uri=True)
    try:
        columns = {row[1] for row in conn.execute("PRAGMA table_info(server_decision)")}
        if "key" not in columns:
            return None
        rows = conn.execute(
            "SELECT key, count(*) FROM server_decision"
            " WHERE game_id IN (SELECT value FROM json_each(?)) GROUP BY key",
            (json.dumps(list(game_ids)),),
        ).fetchall()
        return [(key, int(count)) for key, count in rows]
    finally:
        conn.close()


def tally(counts: list[tuple[str | None, int]], acknowledged: set[str]) -> tuple[int, int, int]:
    """(lost, duplicate, stored) moves: the keys acknowledged but not stored; the rows of a key
    beyond its first, and the rows of no key; all the rows.

    >>> tally([("a", 1), ("b", 3), (None, 2)], {"a", "b", "c"})
    (1, 4, 6)
    """
    stored = {key for key, _ in counts if key is not None}
    duplicate = sum(count - 1 if key is not None else count for key, count in counts)
    return len(acknowledged - stored), duplicate, sum(count for _, count in counts)


# --- one run, and its report -----------------------------------------------------------------


def report(
    figures: Figures,
    elapsed: float,
    games: int,
    clients: int,
    server_cpu: float | None = None,
    instances: int = 1,
    checked: tuple[int, int, int] | None = None,
) -> dict[str, Any]:
    """The run's figures as the JSON line has them; ``checked``: (lost, duplicate, stored) moves
    found in the database (None: not read)."""
    moves = len(figures.moves)
    out: dict[str, Any] = {
        "games": games,
        "clients": clients,
        "instances": instances,
        "seconds": round(elapsed, 2),
        "games_finished": figures.finished,
        "moves": moves,
        "moves_per_s": round(moves / elapsed, 1) if elapsed else 0,
        "previews": len(figures.previews),
        "messages_received": figures.messages,
        "bytes_received": figures.bytes,
        "bytes_per_move": round(figures.bytes / moves) if moves else 0,
        "states_received": figures.states,
        "deltas_received": figures.deltas,
        "resyncs": figures.resyncs,
        "server_cpu_s": None if server_cpu is None else round(server_cpu, 2),
        "server_cpu_ms_per_move": None
        if server_cpu is None or not moves
        else round(server_cpu / moves * 1000, 3),
        "errors": len(figures.errors),
        "lost_moves": None if checked is None else checked[0],
        "duplicate_moves": None if checked is None else checked[1],
        "stored_moves": None if checked is None else checked[2],
        "reconnects": figures.reconnects,
        "moves_after_reconnect": figures.moves_after_reconnect,
        "resent": figures.resent,
        "resent_abandoned": figures.abandoned,
        "repeated": figures.repeated,
        "acknowledged_again": figures.again,
    }
    for name, values in (
        ("move", figures.moves),
        ("preview", figures.previews),
        ("connect", figures.connects),
    ):
        for p in (50, 90, 99):
            out[f"{name}_p{p}_ms"] = float(_ms(percentile(values, p)))
        out[f"{name}_max_ms"] = float(_ms(max(values, default=0.0)))
    out["reconnect_p50_ms"] = float(_ms(percentile(figures.reconnect_times, 50)))
    out["reconnect_max_ms"] = float(_ms(max(figures.reconnect_times, default=0.0)))
    return out


def measure(
    args: argparse.Namespace, src: str | None, instances: int = 1
) -> tuple[dict[str, Any], Figures, str]:
    """One run: start ``instances`` servers (from ``src`` if given; none with ``--url``) on a
    fresh database, play, check the database, and report."""
    folder = tempfile.TemporaryDirectory(prefix="dorf-load-")
    servers: list[Instance] = []
    run_db: str | None = None  # the run's own PostgreSQL database
    try:
        if args.url is None:
            if args.db is not None:
                run_db = db = create_database(args.db)
            else:
                db = str(Path(folder.name) / "load.sqlite3")
            servers = start_instances(db, src, instances)
            bases = [server.base for server in servers]
        else:
            bases = [args.url.rstrip("/")]
        for server in servers:
            server.read_cpu()
            server.cpu_start = server.cpu_last
        kill: tuple[float, Callable[[], object]] | None = None
        if args.kill_one_after is not None:
            kill = (args.kill_one_after, lambda: kill_instance(servers[-1]))
        writes: dict[str, int] | None = None
        client_before, machine_before = time.process_time(), machine_cpu()
        try:
            figures, elapsed = asyncio.run(
                run(
                    bases,
                    args.games,
                    args.clients,
                    args.seconds,
                    args.seed,
                    args.think,
                    kill,
                    args.repeat_last,
                    args.together,
                )
            )
            client_cpu, machine_after = time.process_time() - client_before, machine_cpu()
            for server in servers:
                if not server.killed:
                    server.read_cpu()
            alive = [server.base for server in servers if not server.killed] if servers else bases
            for base in alive:  # what a killed one wrote is not counted
                said = (_health(base) or {}).get("writes")
                if isinstance(said, dict):
                    writes = writes or {}
                    for key, value in said.items():
                        writes[key] = writes.get(key, 0) + value
        finally:
            stop_instances(servers)
        checked = None
        if args.url is None:
            counts = stored_keys(db, figures.game_ids)
            if counts is not None:
                checked = tally(counts, figures.acknowledged)
    finally:
        if run_db is not None:
            if args.keep_db:
                print(f"the run's database (kept): {run_db}")
            else:
                try:
                    drop_database(args.db, run_db)
                except Exception as exc:
                    print(f"loadtest: the run's database {run_db} is left: {exc}", file=sys.stderr)
        folder.cleanup()
    cpus = [server.cpu for server in servers]
    server_cpu = sum(c for c in cpus if c is not None) if servers and None not in cpus else None
    result = report(figures, elapsed, args.games, args.clients, server_cpu, len(bases), checked)
    # transactions and changes written (servers that say so; with several, the sum over the
    # servers alive at the end)
    result["client_cpu_s"] = round(client_cpu, 2)
    result["machine_busy"] = busy(machine_before, machine_after)
    result["server_writes"] = writes
    result["killed_after_s"] = args.kill_one_after if any(s.killed for s in servers) else None
    where = bases[0] if len(bases) == 1 else f"{len(bases)} instances ({', '.join(bases)})"
    return result, figures, where


def show(args: argparse.Namespace, result: dict[str, Any], figures: Figures, base: str) -> None:
    pace = f"{args.think} s thinking a move" if args.think else "moving flat out"
    print(f"{args.games} games, {args.clients} clients {pace}, {result['seconds']} s on {base}")
    finished = result["games_finished"]
    print(f"  moves     {result['moves']:>6}  ({result['moves_per_s']}/s), {finished} games finished")
    for name in ("move", "preview", "connect"):
        print(
            f"  {name:<8} p50 {result[f'{name}_p50_ms']:>7} ms  p90 {result[f'{name}_p90_ms']:>7} ms"
            f"  p99 {result[f'{name}_p99_ms']:>7} ms  max {result[f'{name}_max_ms']:>7} ms"
        )
    print(
        f"  received  {result['bytes_received']} bytes in {result['messages_received']} messages"
        f" ({result['bytes_per_move']} bytes a move; {result['states_received']} whole states,"
        f" {result['deltas_received']} deltas)"
    )
    if result["server_cpu_s"] is not None:
        several = (
            " (all instances; a killed one until just before the kill)" if result["instances"] > 1 else ""
        )
        print(
            f"  server    {result['server_cpu_s']} s of CPU ({result['server_cpu_ms_per_move']} ms a move)"
            + several
        )
    if result["machine_busy"] is not None:
        print(
            f"  machine   {round(result['machine_busy'] * 100)}% of {os.cpu_count()} processors busy"
            f" (this benchmark's clients: {result['client_cpu_s']} s of CPU)"
        )
    if result["killed_after_s"] is not None:
        print(
            f"  killed    one instance after {result['killed_after_s']} s: {result['reconnects']} reconnects"
            f" (p50 {result['reconnect_p50_ms']} ms, max {result['reconnect_max_ms']} ms),"
            f" {result['moves_after_reconnect']} moves after reconnecting"
        )
        print(
            f"  in flight {result['resent']} moves sent again, {result['resent_abandoned']} given up"
            f" (no longer legal: made before the drop); {result['repeated']} acknowledged moves"
            f" repeated; {result['acknowledged_again']} answers 'made before'"
        )
    if result["lost_moves"] is not None:
        print(
            f"  database  {result['stored_moves']} moves stored: {result['lost_moves']} acknowledged"
            f" moves lost, {result['duplicate_moves']} made twice"
        )
    print(f"  errors    {len(figures.errors)}")
    for error in figures.errors[:10]:
        print(f"    {error}")
    print(json.dumps(result))


def failed(result: dict[str, Any], figures: Figures) -> bool:
    """Whether the run went wrong: an error, a move lost or made twice."""
    return bool(figures.errors or result["lost_moves"] or result["duplicate_moves"])


#: The figures compared by ``--against``, and whether less is better.
COMPARED = (("server_cpu_ms_per_move", True), ("bytes_per_move", True), ("moves_per_s", False))


def _instance_counts(text: str) -> list[int]:
    """``--instances``: a count, or counts separated by commas.

    >>> _instance_counts("1,2"), _instance_counts("3")
    ([1, 2], [3])
    """
    try:
        counts = [int(part) for part in text.split(",")]
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a count or counts separated by commas: {text!r}") from None
    if not all(1 <= count <= MOST_INSTANCES for count in counts):
        raise argparse.ArgumentTypeError(f"instances from 1 to {MOST_INSTANCES}: {text!r}")
    return counts


def _on_throwaway_cluster(argv: list[str] | None) -> int:
    """Run with ``--db temp``: the same command on a throwaway PostgreSQL cluster, stopped after."""
    from dorf.testing.pgcluster import Cluster, find_bin

    if find_bin() is None:
        print("loadtest: --db temp needs Debian's postgresql (apt-get install postgresql)", file=sys.stderr)
        return 2
    given = list(sys.argv[1:] if argv is None else argv)
    at = given.index("--db") if "--db" in given else -1
    with Cluster() as cluster:
        if at >= 0:
            given[at + 1] = cluster.url("postgres")
        else:
            given = [a if a != "--db=temp" else f"--db={cluster.url('postgres')}" for a in given]
        print(f"a throwaway PostgreSQL cluster at {cluster.url('postgres')}", flush=True)
        return main(given)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m dorf.lab.loadtest", description=__doc__.split("\n\n")[0])
    parser.add_argument("--url", default=None, help="a running server (default: start one on a free port)")
    parser.add_argument("--games", type=int, default=50)
    parser.add_argument("--clients", type=int, default=100, help="websocket clients, at most 2 per game")
    parser.add_argument("--seconds", type=float, default=60.0, help="stop after this long (default 60)")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument(
        "--think",
        type=float,
        default=0.0,
        help="mean seconds a client waits before each move (default 0: flat out)",
    )
    parser.add_argument(
        "--src",
        default=None,
        metavar="DIR",
        help="start the server from this source folder (another commit's src/, built in place)",
    )
    parser.add_argument(
        "--against",
        default=None,
        metavar="DIR",
        help="also run the server of this source folder, in turns with this one, and print the ratios",
    )
    parser.add_argument(
        "--rounds", type=int, default=3, help="runs of each server with --against (default 3)"
    )
    parser.add_argument(
        "--db",
        default=None,
        metavar="URL",
        help="a PostgreSQL server (postgresql://USER@HOST:PORT/DBNAME): each run creates a fresh "
        "database there and drops it after; 'temp': a throwaway cluster of Debian's postgresql "
        "started for the run (dorf.testing.pgcluster) (default: a fresh SQLite file)",
    )
    parser.add_argument(
        "--instances",
        type=_instance_counts,
        default=[1],
        metavar="N[,N...]",
        help="servers on the one database (above 1: needs --db); several counts: a run with each, "
        "and the ratios of moves/s (default 1)",
    )
    parser.add_argument(
        "--kill-one-after",
        type=float,
        default=None,
        metavar="S",
        help="SIGKILL one instance (not the first) S seconds into the play; its clients go on elsewhere",
    )
    parser.add_argument(
        "--repeat-last",
        action="store_true",
        help="after connecting again, a client first sends its last acknowledged move once more, with "
        "its key: the server must answer ok again and not make it twice",
    )
    parser.add_argument(
        "--together",
        action="store_true",
        help="both clients of a game on one server (as a balancer routing by game would place them);"
        " by default they are on different servers, the worst case for fan-out",
    )
    parser.add_argument("--keep-db", action="store_true", help="keep each run's PostgreSQL database")
    args = parser.parse_args(argv)
    if not 1 <= args.games <= 500 or not 1 <= args.clients <= 2 * args.games or not 0 < args.seconds <= 600:
        parser.error("1 to 500 games, at most 2 clients a game, at most 600 seconds")
    for folder in (args.src, args.against):
        if folder is not None and not (Path(folder) / "dorf" / "server").is_dir():
            parser.error(f"{folder}: no dorf/server in that folder")
    if args.against is not None and (args.url is not None or not 1 <= args.rounds <= 10):
        parser.error("--against starts both servers itself (no --url), 1 to 10 rounds")
    counts: list[int] = args.instances
    if args.db == "temp":
        return _on_throwaway_cluster(argv)
    if args.db is not None and not is_postgres(args.db):
        parser.error("--db takes a postgresql:// URL (without it each run has a fresh SQLite file)")
    if max(counts) > 1 and args.db is None:
        parser.error("--instances above 1 needs --db postgresql://...: the instances share one database")
    if args.url is not None and (args.db is not None or counts != [1] or args.kill_one_after is not None):
        parser.error("--url uses a running server: no --db, --instances or --kill-one-after")
    if args.kill_one_after is not None and (min(counts) < 2 or not 0 < args.kill_one_after < args.seconds):
        parser.error("--kill-one-after S needs at least 2 instances in every run, and S within --seconds")
    if args.keep_db and args.db is None:
        parser.error("--keep-db keeps the PostgreSQL database of --db")
    if args.against is not None and len(counts) > 1:
        parser.error("--against compares two servers at one --instances count")
    if args.against is None and len(counts) > 1:
        return compare_instances(args, counts)
    if args.against is None:
        result, figures, base = measure(args, args.src, counts[0])
        show(args, result, figures, base)
        return 1 if failed(result, figures) else 0
    runs: dict[str, list[dict[str, Any]]] = {"against": [], "this": []}
    bad = False
    for number in range(args.rounds):
        for name, src in (("against", args.against), ("this", args.src)):
            print(f"round {number + 1}, {name} ({src or 'this version'}):")
            result, figures, base = measure(args, src, counts[0])
            show(args, result, figures, base)
            runs[name].append(result)
            bad = bad or failed(result, figures)
    summary: dict[str, Any] = {"rounds": args.rounds}
    for key, lower in COMPARED:
        old = statistics.median(r[key] for r in runs["against"])
        new = statistics.median(r[key] for r in runs["this"])
        ratio = (old / new if lower else new / old) if old and new else None
        summary[key] = {"against": old, "this": new, "better_by": None if ratio is None else round(ratio, 2)}
        print(
            f"{key:<24} against {old:>10}  this {new:>10}  better by {ratio and round(ratio, 2)}x (medians)"
        )
    print(json.dumps(summary))
    return 1 if bad else 0


def compare_instances(args: argparse.Namespace, counts: list[int]) -> int:
    """A run with each count of instances (each on a fresh database), then the moves a second
    of each against the first."""
    results: list[dict[str, Any]] = []
    bad = False
    for count in counts:
        print(f"{count} instance{'s' if count > 1 else ''}:")
        result, figures, base = measure(args, args.src, count)
        show(args, result, figures, base)
        results.append(result)
        bad = bad or failed(result, figures)
    first = results[0]
    for count, result in zip(counts[1:], results[1:], strict=True):
        new, old = result["moves_per_s"], first["moves_per_s"]
        ratio = f"{new / old:.2f}x" if old else "-"
        print(f"instances {count} vs {counts[0]}: moves/s {new} / {old} = {ratio}")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
