"""The games the server holds, who is connected to them, and the computer seats.

:class:`Hub` is the server without HTTP: create a game, join a seat, check a
seat token, make a move (checked, made, told to every client of the game as a
delta of its own view, then written behind), undo in practice games, and let
computer seats think.

- **Memory.** Only games in use are in memory.  A game is read from the
  database and replayed when someone asks for it (nothing is read at start, so
  start-up does not grow with the database); it leaves memory when nobody has
  used it for ``idle_seconds`` (no client connected, no computer thinking), or
  when more than ``games_in_memory`` games are held (the least recently used
  first).  A game of computers that nobody watches stops thinking when it
  leaves, and goes on when someone opens it again.
- **The database** is used from one thread of its own: the event loop never
  waits for it.  Moves are written behind, many in one transaction
  (:mod:`dorf.server.writer`): ``ok`` when made, ``saved`` when stored; a
  locked file holds up no move of a game in memory, for a while.  Moves of one
  game are made one at a time (:attr:`Game.lock`).
- **Deltas.**  Each client holds the description of the game it was last sent
  (:attr:`Connection.doc`); after a change it gets what changed
  (:mod:`dorf.server.delta`), a whole state only on connecting or asking.
- **Computer seats** think in :class:`~dorf.server.workers.ThinkPool`, with a
  time cap; a move that cannot be stored is tried again, a little later each
  time.  The coach's hints and the replays of records are computed there too
  (never on the event loop), one at a time per address and a few in all.
- **Damaged games** (rows that cannot be read or replayed) are held as
  :class:`Broken`: shown with the reason, never played; one log line each.
"""

from __future__ import annotations

import asyncio
import contextlib
import hmac
import itertools
import logging
import re
import secrets
import sqlite3
import time
from collections import OrderedDict
from collections.abc import Awaitable, Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from functools import partial
from pathlib import Path
from typing import Any, TypeVar

from dorf.formats.notation import is_int
from dorf.formats.record import RecordError
from dorf.rules.area import Placement
from dorf.rules.hexgrid import Hex
from dorf.server import hints
from dorf.server.delta import diff
from dorf.server.limits import LOOPBACK, TEST_HOST, CreationLimit, InFlight
from dorf.server.postgres import PostgresStorage, Shared, is_url
from dorf.server.protocol import Move, ProtocolError, need_object
from dorf.server.sessions import (
    COMMAND_PREFIX,
    COMPUTER,
    HERE,
    MODE_NAMES,
    MODES,
    ONLINE,
    SEAT_KINDS,
    TILESETS,
    BotCommands,
    GameSession,
    SeatBot,
    SeatSpec,
    check_name,
    check_player_spec,
    computer_seed,
)
from dorf.server.shared import Committer, Heard, Link
from dorf.server.storage import (
    ChangeRow,
    DamagedGame,
    Storage,
    StoredGame,
    StoredSeat,
    now,
    secret_hash,
)
from dorf.server.thinking import think
from dorf.server.views import Json
from dorf.server.wire import dumps
from dorf.server.workers import HINTS, REPLAYS, Overrun, Refused, ThinkError, ThinkPool
from dorf.server.writer import Change, Writer

log = logging.getLogger("dorf.server")

#: Messages waiting for a slow client before the server gives up on it.
MAX_QUEUE = 256
#: Seeds a client may choose: SQLite's integers.
MAX_SEED = 2**63 - 1
#: Bits of a seed the server draws (from :mod:`secrets`).
SEED_BITS = 63
#: A game id as the server makes them (``secrets.token_urlsafe(8)``), or a little longer.
GAME_ID = re.compile(r"[A-Za-z0-9_-]{1,64}")
#: Longest wait between two tries of a computer move that could not be stored, in seconds.
MAX_RETRY = 30.0
#: How a client is counted (:attr:`Connection.role`): a spectator, or a holder of seats.
WATCHING, PLAYING = "watching", "playing"
#: Hints (replays) being computed at most, per worker of the pool (waiting or running); one
#: more is refused as busy.  One address has one of each at a time.
HINTS_PER_WORKER, REPLAYS_PER_WORKER = 2, 4
#: The longest a hint (a replay) may take, in seconds (at least ``ai_max_seconds``).
HINT_SECONDS, REPLAY_SECONDS = 10.0, 10.0
#: Several servers: how often each says it is alive, and after how long without a word its
#: clients are no longer counted, in seconds; how much longer than the longest think a lease to
#: think for a game's computer seats lasts.
HEARTBEAT, DEAD_AFTER, LEASE_MARGIN = 5.0, 20.0, 10.0
#: How often a move is tried again when another server changed the game first.
MAX_RACES = 8

T = TypeVar("T")


def draw_seed() -> int:
    """The seed of a game whose creator chose none: 63 bits from :mod:`secrets`."""
    return secrets.randbits(SEED_BITS)


#: A seed written as text: the page sends the digits typed (a JavaScript number keeps 53 bits).
SEED_TEXT = re.compile(r"-?[0-9]{1,19}")


def parse_seed(value: Any) -> int:
    """A chosen seed: a JSON integer, or a string of its decimal digits, within SQLite's integers.

    >>> parse_seed(4988471454571237152), parse_seed("4988471454571237152"), parse_seed(" -7 ")
    (4988471454571237152, 4988471454571237152, -7)
    >>> parse_seed("1e3")
    Traceback (most recent call last):
    dorf.server.protocol.ProtocolError: seed must be a whole number (a JSON integer or a string of digits)
    """
    if isinstance(value, str) and SEED_TEXT.fullmatch(value.strip()):
        value = int(value.strip())
    if not is_int(value) or not -MAX_SEED <= value <= MAX_SEED:
        raise ProtocolError(
            "bad-message", "seed must be a whole number (a JSON integer or a string of digits)"
        )
    seed: int = value
    return seed


@dataclass
class ServerConfig:
    """How ``dorf serve`` runs (the options of the same names, see ``docs/server.md``)."""

    db: str | Path | None = None
    ai_workers: int = 2
    ai_delay: float = 0.4
    ai_max_seconds: float = 2.0
    create_limit: int = 30
    #: New campaigns a minute from one address (0: no limit).
    campaign_limit: int = 10
    #: Websocket clients at most: once reached, only seat holders are let in.
    max_connections: int = 1000
    #: Spectators of one game at most (clients that hold none of its seats).
    max_spectators: int = 32
    #: Spectators from one address at most, and as many seat-holding clients (0: no limit).
    max_connections_per_address: int = 16
    #: How long a client held back (no room for another spectator) has to prove a seat.
    hello_seconds: float = 10.0
    games_in_memory: int = 100
    idle_seconds: float = 300.0
    #: How long the database may refuse writes before new moves are refused too, in seconds
    #: (meanwhile moves are made in memory and written once it takes writes again).
    storage_grace: float = 20.0
    #: The address the server was started with (``http://host:port``): an allowed Origin.
    origins: tuple[str, ...] = ()
    #: The host names (of the ``Host`` header, port aside) the server answers for; a request for
    #: another is refused (DNS rebinding).  ``dorf serve`` always sets them (the loopback names,
    #: ``--host``, ``--allowed-host``); an app made directly answers the loopback names and
    #: ``testserver``, the host of FastAPI's TestClient.
    allowed_hosts: tuple[str, ...] = (*LOOPBACK, TEST_HOST)
    #: Send the pages' Content-Security-Policy.  ``dorf serve`` does; an app made directly (the
    #: browser tests: Playwright's string predicates need eval, which the policy forbids) does
    #: not unless asked.
    page_policy: bool = False
    #: Programs as computer players (``cmd:COMMAND``), where the operator allows them (``dorf serve
    #: --allow-bot-commands`` gives :class:`dorf.lab.bots.BotCommands`); None: a game that names
    #: one is refused (``no-commands``).
    bot_commands: BotCommands | None = None


_numbers = itertools.count(1)


class Connection:
    """One websocket client: the seats it holds and its queue of outgoing messages."""

    def __init__(
        self, send: Callable[[str], Any], close: Callable[[int], Any], address: str = "unknown"
    ) -> None:
        self._send = send
        self._close = close
        #: The client's address, for the cap of connections per address.
        self.address = address
        #: How the hub counts it: WATCHING, PLAYING, or None (not let in yet, or gone).
        self.role: str | None = None
        #: Why it is not let in (held back, or turned away): it is told so and closed.
        self.refusal: ProtocolError | None = None
        #: The close code once the queue is sent (:meth:`refuse` makes it 1013, try again later).
        self.close_code = 1008
        self.seats: set[int] = set()
        self.queue: asyncio.Queue[str | None] = asyncio.Queue()
        self.closed = False
        #: The description of the game this client has (its last state, deltas applied): the
        #: next change is sent as a delta from it.  Never changed in place.
        self.doc: Json | None = None
        #: Its number on this server (several servers count their clients in the database).
        self.number = next(_numbers)

    def send(self, message: Json | str) -> None:
        if self.closed:
            return
        if self.queue.qsize() >= MAX_QUEUE:
            log.warning("dropping a client that does not read its messages")
            self.closed = True
            self.queue.put_nowait(None)
            return
        self.queue.put_nowait(message if isinstance(message, str) else dumps(message))

    async def pump(self) -> None:
        """Send queued messages in order until the connection ends."""
        while True:
            message = await self.queue.get()
            if message is None:
                with contextlib.suppress(Exception):
                    await self._close(self.close_code)
                return
            await self._send(message)

    def refuse(self) -> None:
        """Turn the client away: what is queued, then the ``busy`` error of :attr:`refusal`, then
        the close 1013 (try again later)."""
        if self.refusal is not None:
            self.send({"type": "error", **self.refusal.as_json()})
        self.close_code = 1013
        self.closed = True
        self.queue.put_nowait(None)


@dataclass(eq=False)
class Game:
    """A game in memory: its session, its seats' secrets, its clients and thinking seats."""

    session: GameSession
    tokens: dict[int, str]
    invites: dict[int, str]
    lock: asyncio.Lock = field(default_factory=asyncio.Lock)
    connections: set[Connection] = field(default_factory=set)
    thinking: dict[int, asyncio.Task[None]] = field(default_factory=dict)
    #: When a client last used it (time.monotonic()).
    used: float = field(default_factory=time.monotonic)
    #: Changes made and not yet stored (:mod:`dorf.server.writer`), and the version stored.
    unsaved: int = 0
    saved_version: int = 0
    saved: asyncio.Event = field(default_factory=asyncio.Event)
    #: The keys clients gave its decisions: key -> (seat, decision number).
    keys: dict[str, tuple[int, int]] = field(default_factory=dict)
    #: Several servers: whether this one holds the lease to think for its computer seats, and
    #: when its version last changed (time.monotonic()).
    lease: bool = False
    changed: float = field(default_factory=time.monotonic)
    #: The programs playing its ``cmd:`` computer seats, by seat (started when first asked).
    bots: dict[int, SeatBot] = field(default_factory=dict)

    @property
    def id(self) -> str:
        return self.session.id


@dataclass(eq=False)
class Broken:
    """A stored game that cannot be loaded: shown with the reason, never played."""

    id: str
    reason: str
    mode: str | None = None
    seats: list[SeatSpec] = field(default_factory=list)

    def public(self) -> Json:
        return {
            "id": self.id,
            "mode": self.mode,
            "mode_name": MODE_NAMES.get(self.mode or "", "a game"),
            "version": 0,
            "phase": "broken",
            "over": False,
            "turn": 0,
            "waiting": [],
            "seats": [
                {"index": i, "name": s.name, "kind": s.kind, "player": s.player, "claimed": s.claimed}
                for i, s in enumerate(self.seats)
            ],
            "areas": [],
            "scores": [],
            "revealed": [],
            "left": [],
            "practice": False,
            "undo": False,
            "first": 1,
            "broken": self.reason,
            "log": [],
        }

    def public_text(self) -> str:
        return dumps(self.public())

    def refusal(self) -> ProtocolError:
        return ProtocolError("broken", f"game {self.id} cannot be played: {self.reason}", 410)


def _seat_specs(stored: StoredGame) -> list[SeatSpec]:
    return [SeatSpec(s.kind, s.name, s.player, s.kind == ONLINE and bool(s.token_hash)) for s in stored.seats]


def _replayed(stored: StoredGame) -> GameSession:
    """The session of a stored game, replayed (raises RecordError, ValueError... if it does not)."""
    session = GameSession.replay(
        stored.id,
        stored.mode,
        stored.seed,
        _seat_specs(stored),
        stored.decisions,
        practice=stored.practice,
        first=stored.first,
    )
    session.seed_chosen = stored.seed_chosen
    session.version = stored.version
    return session


def _take_stored(game: Game, stored: StoredGame) -> None:
    """What a game in memory keeps of its stored rows besides its session: the seats' secrets,
    the keys of its decisions, the version stored."""
    game.tokens = {s.index: s.token_hash for s in stored.seats if s.token_hash}
    game.invites = {s.index: s.invite_hash for s in stored.seats if s.invite_hash}
    game.keys = {
        key: (game.session.deciders[number - 1], number)
        for number, key in enumerate(stored.keys, 1)
        if key is not None
    }
    game.saved_version = game.session.version
    game.changed = time.monotonic()


class Hub:
    """Every game of the server: those in memory, and the rest in :class:`Storage`."""

    def __init__(self, config: ServerConfig) -> None:
        self.config = config
        self.games: OrderedDict[str, Game] = OrderedDict()
        self.broken: dict[str, Broken] = {}
        self._loading: dict[str, asyncio.Future[Game | Broken]] = {}
        #: Programs of ``cmd:`` seats being stopped (:meth:`_end_bots`).
        self._bot_ends: set[asyncio.Future[None]] = set()
        self.pool = ThinkPool(config.ai_workers, config.ai_max_seconds)
        #: Hints and replays asked for and not yet answered: one per address, a few per worker.
        workers = self.pool.size
        self._hints = InFlight("hint", HINTS_PER_WORKER * workers)
        self._replays = InFlight("replay", REPLAYS_PER_WORKER * workers)
        self._db = ThreadPoolExecutor(1, thread_name_prefix="dorf-db")
        self._storage: Storage | PostgresStorage | None = None
        #: Several servers on one PostgreSQL database: this one's link to the others.
        self.link = Link(str(config.db), self._heard, self.resync) if is_url(config.db) else None
        self.committer = Committer(self._commit_changes)
        #: Games another server changed while this one was reading them.
        self._stale: set[str] = set()
        self._beat: asyncio.Task[None] | None = None
        #: Computer decisions thought on this server.
        self.thoughts = 0
        self._tasks: set[asyncio.Task[None]] = set()
        self.writer = Writer(self._write_changes, self._saved, self._lost, config.storage_grace)
        self._sweeper: asyncio.Task[None] | None = None
        #: Clients let in, in all; and per address, spectators and seat-holding clients.
        self.connected = 0
        self._watching: dict[str, int] = {}
        self._holders: dict[str, int] = {}

    # --- start and stop -----------------------------------------------------------

    async def start(self) -> None:
        """Open the database (in its own thread) and start the computer players' workers; with
        PostgreSQL, listen to the other servers."""
        loop = asyncio.get_running_loop()
        if self.link is not None:
            lease = self.config.ai_delay + 2 * self.config.ai_max_seconds + LEASE_MARGIN
            self._storage = await self.db(PostgresStorage, str(self.config.db), lease=lease)
            self.link.start()
            await self.link.ready()
            await self.db(self._storage.heartbeat, self.link.instance, DEAD_AFTER)
            self._beat = loop.create_task(self._heartbeat())
            self.committer.start()
        else:
            self._storage = await self.db(Storage, self.config.db)
        self.writer.start()
        await self.pool.start()
        self._sweeper = loop.create_task(self._sweep())

    @property
    def storage(self) -> Storage | PostgresStorage:
        assert self._storage is not None, "the hub has not started"
        return self._storage

    @property
    def shared(self) -> PostgresStorage:
        """The database of several servers (only with a link)."""
        assert isinstance(self._storage, PostgresStorage)
        return self._storage

    async def db(self, call: Callable[..., T], *args: Any, **kwargs: Any) -> T:
        """Run ``call`` in the database thread: the event loop goes on meanwhile."""
        return await asyncio.get_running_loop().run_in_executor(self._db, partial(call, *args, **kwargs))

    async def close(self) -> None:
        if self._sweeper is not None:
            self._sweeper.cancel()
        if self._beat is not None:
            self._beat.cancel()
        for game in self.games.values():
            for task in game.thinking.values():
                task.cancel()
        for game in list(self.games.values()):
            for task in list(game.thinking.values()):
                with contextlib.suppress(BaseException):
                    await task
            for conn in game.connections:
                conn.queue.put_nowait(None)
            self._end_bots(game)
        if self._bot_ends:
            await asyncio.wait(self._bot_ends)
        await self.pool.close()
        await self.writer.close(timeout=10.0)
        if self.link is not None:
            await self.committer.close()
            await asyncio.to_thread(self.link.stop)
            with contextlib.suppress(sqlite3.Error):
                await self.db(self.shared.leave, self.link.instance)
        if self._storage is not None:
            await self.db(self._storage.close)
        self._db.shutdown(wait=True)

    # --- games in memory ------------------------------------------------------------

    async def game(self, game_id: str) -> Game | Broken:
        """A game by id: from memory, else read and replayed (404 if there is none)."""
        game = self.games.get(game_id)
        if game is not None:
            self.touch(game)
            return game
        broken = self.broken.get(game_id)
        if broken is not None:
            return broken
        if not GAME_ID.fullmatch(game_id):
            raise ProtocolError("no-game", f"there is no game {game_id!r}", 404)
        loading = self._loading.get(game_id)
        if loading is not None:
            return await asyncio.shield(loading)
        loading = asyncio.get_running_loop().create_future()
        self._loading[game_id] = loading
        try:
            found = await self._load(game_id)
        except BaseException as exc:
            loading.set_exception(exc)
            loading.exception()  # retrieved: whoever waits gets it too
            raise
        finally:
            del self._loading[game_id]
        loading.set_result(found)
        return found

    async def playable(self, game_id: str) -> Game:
        """A game that can be played (410 for a broken one)."""
        game = await self.game(game_id)
        if isinstance(game, Broken):
            raise game.refusal()
        return game

    async def _load(self, game_id: str) -> Game | Broken:
        try:
            stored = await self.db(self.storage.load_game, game_id)
        except DamagedGame as exc:
            return self._mark_broken(Broken(game_id, str(exc)))
        except sqlite3.Error as exc:
            raise ProtocolError("storage", f"the game could not be read now ({exc})", 503) from None
        if stored is None:
            raise ProtocolError("no-game", f"there is no game {game_id!r}", 404)
        try:
            session = _replayed(stored)
        except (RecordError, ValueError, KeyError, TypeError, IndexError) as exc:
            return self._mark_broken(
                Broken(game_id, f"its decisions do not replay ({exc})", stored.mode, _seat_specs(stored))
            )
        game = Game(session, {}, {})
        _take_stored(game, stored)
        self._hold(game)
        if game_id in self._stale:  # another server changed it while it was read
            self._stale.discard(game_id)
            self._background(self._follow(game, None))
        elif self.link is not None:
            self._claim(game)
        self.kick(game)
        return game

    def _mark_broken(self, broken: Broken) -> Broken:
        self.broken[broken.id] = broken
        log.error("dorf: game %s is broken: %s", broken.id, broken.reason)
        return broken

    def _hold(self, game: Game) -> None:
        self.games[game.id] = game
        self.games.move_to_end(game.id)
        extra = len(self.games) - self.config.games_in_memory
        for old in list(self.games.values()):
            if extra <= 0:
                break
            if old is not game and self._idle(old):
                self._drop(old)
                extra -= 1

    def touch(self, game: Game) -> None:
        """A client used the game: it stays in memory a while longer."""
        game.used = time.monotonic()
        if self.games.get(game.id) is game:
            self.games.move_to_end(game.id)

    def _idle(self, game: Game) -> bool:
        return not game.connections and not game.thinking and not game.lock.locked() and not game.unsaved

    def _drop(self, game: Game) -> None:
        """Let a game leave memory (it stays in the database): its computers stop thinking."""
        for task in game.thinking.values():
            task.cancel()
        self.pool.cancel(game.id)
        self._end_bots(game)
        self.games.pop(game.id, None)

    def _end_bots(self, game: Game) -> None:
        """Stop the programs of the game's ``cmd:`` seats, in threads (each waits for a decision
        under way, at most its clock), telling them the final view if the game is over."""
        session = game.session
        for seat, bot in list(game.bots.items()):
            final = session.document([seat]) if session.is_over else None
            ending = asyncio.ensure_future(asyncio.to_thread(bot.end, final))
            self._bot_ends.add(ending)
            ending.add_done_callback(self._bot_ends.discard)
        game.bots.clear()

    async def _sweep(self) -> None:
        """Now and then, let go of the games nobody has used for ``idle_seconds``."""
        idle = self.config.idle_seconds
        while True:
            await asyncio.sleep(min(5.0, max(0.05, idle / 4)))
            cutoff = time.monotonic() - idle
            for game in list(self.games.values()):
                quiet = not game.connections and not game.lock.locked() and not game.unsaved
                if game.used < cutoff and quiet:
                    self._drop(game)  # left alone: computers of an unwatched game stop too
                elif self.link is not None and time.monotonic() - game.changed > self.shared.lease:
                    self._claim(game)  # whoever held the lease to think stopped, or died

    # --- creating and joining ----------------------------------------------------------

    async def create(self, body: Any) -> Json:
        """Create a game from ``{"mode", "seed"?, "practice"?, "first"?, "seats": [...]}``."""
        data = need_object(body, "a new game")
        mode = data.get("mode", "coop")
        if mode not in MODES:
            raise ProtocolError("bad-message", f"mode {mode!r} is not one of {', '.join(MODES)}")
        chosen = data.get("seed") is not None
        seed = parse_seed(data["seed"]) if chosen else draw_seed()
        practice = data.get("practice", False)
        if not isinstance(practice, bool):
            raise ProtocolError("bad-message", "practice must be true or false")
        raw_seats = data.get("seats")
        if raw_seats is None:
            raw_seats = [{"kind": HERE}] * (1 if mode == "coop" else 2)
        if not isinstance(raw_seats, list):
            raise ProtocolError("bad-message", "seats must be a list")
        wanted = (1, 6) if mode == "coop" else (2, 2)
        if not wanted[0] <= len(raw_seats) <= wanted[1]:
            need = "1 to 6" if mode == "coop" else "2"
            raise ProtocolError("bad-message", f"this game has {need} seats, not {len(raw_seats)}")
        first = data.get("first", 1)
        if not is_int(first) or not 1 <= first <= len(raw_seats):
            raise ProtocolError("bad-message", f"first must be a seat from 1 to {len(raw_seats)}")
        seats: list[SeatSpec] = []
        for i, raw in enumerate(raw_seats):
            item = need_object(raw, "a seat")
            kind = item.get("kind", HERE)
            if kind not in SEAT_KINDS:
                kinds = ", ".join(SEAT_KINDS)
                raise ProtocolError("bad-message", f"seat kind {kind!r} is not one of {kinds}")
            commands = self.config.bot_commands
            player = check_player_spec(item.get("player", "greedy"), commands) if kind == COMPUTER else None
            shown = "bot" if player and player.startswith(COMMAND_PREFIX) else player
            default = f"Computer {i + 1} ({shown})" if player else f"Player {i + 1}"
            seats.append(SeatSpec(kind, check_name(item.get("name"), default), player))
        if practice and any(s.kind == ONLINE for s in seats):
            raise ProtocolError(
                "bad-message", "a practice game is played at one screen: undo would take back another's move"
            )
        if chosen and any(s.kind == ONLINE for s in seats):
            raise ProtocolError(
                "bad-message",
                "a game with an online seat gets its seed from the server: leave out seed"
                " (whoever chose it would know every tile)",
            )
        game_id = secrets.token_urlsafe(8)
        session = GameSession.new(game_id, mode, seed, seats, practice=practice, first=first)
        session.seed_chosen = chosen
        tokens = {i: secrets.token_urlsafe(24) for i, s in enumerate(seats) if s.kind == HERE}
        invites = {i: secrets.token_urlsafe(12) for i, s in enumerate(seats) if s.kind == ONLINE}
        game = Game(
            session,
            {i: secret_hash(t) for i, t in tokens.items()},
            {i: secret_hash(c) for i, c in invites.items()},
        )
        stored = StoredGame(
            game_id,
            mode,
            TILESETS[mode],
            seed,
            practice,
            now(),
            False,
            [
                StoredSeat(i, s.kind, s.name, s.player, game.tokens.get(i), game.invites.get(i))
                for i, s in enumerate(seats)
            ],
            [],
            first,
            seed_chosen=chosen,
        )
        try:
            if self.link is not None:
                thinker = self._thinker(session, session.waiting())
                await self.db(self.shared.create_game, stored, thinker)
                game.lease = thinker is not None
            else:
                await self.db(self.storage.create_game, stored)
        except sqlite3.Error as exc:
            raise ProtocolError("storage", f"the game could not be stored: {exc}", 503) from None
        self._hold(game)
        self.kick(game)
        return {
            "id": game_id,
            "mode": mode,
            "tokens": {str(i): t for i, t in tokens.items()},
            "invites": {str(i): c for i, c in invites.items()},
        }

    async def join(self, game: Game, body: Any) -> Json:
        """Take an online seat with its invitation code: ``{"invite": CODE, "name": NAME}``."""
        data = need_object(body, "a join request")
        code = data.get("invite")
        if not isinstance(code, str) or not code or len(code) > 200:
            raise ProtocolError("missing-token", "an invitation code is needed to join", 401)
        session = game.session
        async with game.lock:
            wanted = secret_hash(code)
            seat = next((s for s, h in game.invites.items() if hmac.compare_digest(h, wanted)), None)
            if seat is None:
                raise ProtocolError(
                    "bad-token", "this invitation is not valid or its seat is taken (ask for a new link)", 403
                )
            name = check_name(data.get("name"), session.seats[seat].name)
            token = secrets.token_urlsafe(24)
            token_hash = secret_hash(token)
            try:
                if self.link is not None:  # the others read the game again
                    told = Heard(game.id, session.version + 1, "seat", seat).payload(self.link.instance)
                    await self.db(self.shared.claim_seat, game.id, seat, name, token_hash, told)
                else:
                    await self.db(self.storage.claim_seat, game.id, seat, name, token_hash)
            except sqlite3.IntegrityError as exc:
                raise ProtocolError("bad-token", str(exc), 403) from None
            except sqlite3.Error as exc:
                raise ProtocolError("storage", f"the seat could not be stored: {exc}", 503) from None
            del game.invites[seat]
            game.tokens[seat] = token_hash
            session.seats[seat].name = name
            session.seats[seat].claimed = True
            session.version += 1
        self.broadcast(game)
        return {"id": game.id, "seat": seat, "token": token}

    # --- seats and tokens ----------------------------------------------------------------

    def seats_for(self, game: Game, tokens: list[str]) -> tuple[set[int], int]:
        """The seats these tokens hold, and how many tokens held none."""
        seats: set[int] = set()
        bad = 0
        for token in tokens:
            wanted = secret_hash(token)
            found = [s for s, h in game.tokens.items() if hmac.compare_digest(h, wanted)]
            seats.update(found)
            bad += not found
        return seats, bad

    def check_seat(self, session: GameSession, seats: set[int], seat: int) -> None:
        if not 0 <= seat < len(session.seats):
            raise ProtocolError("bad-message", f"there is no seat {seat} in this game")
        if seat in seats:
            return
        spec = session.seats[seat]
        if spec.kind == COMPUTER:
            raise ProtocolError("not-your-seat", f"seat {seat} ({spec.name}) is played by the computer", 403)
        raise ProtocolError("not-your-seat", f"you do not hold the token of seat {seat} ({spec.name})", 403)

    def token_seats(self, game: Game, token: Any) -> set[int]:
        """For the HTTP API: the seats one token holds (401 without a token, 403 for a wrong one)."""
        if token is None or token == "":
            raise ProtocolError("missing-token", "a seat token is needed for this", 401)
        if not isinstance(token, str) or len(token) > 200:
            raise ProtocolError("bad-token", "this seat token is not valid for this game", 403)
        seats, bad = self.seats_for(game, [token])
        if bad:
            raise ProtocolError("bad-token", "this seat token is not valid for this game", 403)
        return seats

    # --- moves ---------------------------------------------------------------------------

    async def move(self, game: Game, move: Move, by: Connection | None = None) -> Json:
        """Check, make, tell everyone, and hand to the writer (:mod:`dorf.server.writer`): the
        move is stored once the database lets.  ProtocolError (and no change) if anything is
        wrong, or if the database has refused writes for too long."""
        if self.link is not None:
            return await self._move_shared(game, move, by)
        session = game.session
        async with game.lock:
            again = _made_before(game, move)
            if again is not None:
                return again
            error = session.why_not(move)
            if error is not None:
                raise error
            self.writer.check(game)
            number = len(session.decisions) + 1
            entry = session.apply(move)
            if move.key is not None:
                game.keys[move.key] = (move.seat, number)
            self.writer.add(
                Change(game, session.version, number, move.seat, entry, session.is_over, by=by, key=move.key)
            )
        self.broadcast(game)
        if session.is_over:
            self.pool.cancel(game.id)
        self.kick(game)
        return entry

    async def _move_shared(self, game: Game, move: Move, by: Connection | None) -> Json:
        """A move with several servers: stored first, only if nobody changed the game meanwhile
        (compare-and-set on its version), then made here and told; if another server changed
        it first, the game is read again and the move checked once more."""
        assert self.link is not None
        for _ in range(MAX_RACES):
            async with game.lock:
                session = game.session
                again = _made_before(game, move)
                if again is not None:
                    return again
                entry, over, waiting = session.trial(move)  # checked; nothing changed
                number = len(session.decisions) + 1
                thinker = self._thinker(session, waiting)
                row = ChangeRow(game.id, number, move.seat, entry, over, 0, session.version + 1, move.key)
                told = Heard(game.id, row.version, "move", move.seat, number, entry, key=move.key)
                if await self._commit(
                    game, Shared(row, session.version, thinker, told.payload(self.link.instance))
                ):
                    session.apply(move)
                    self._made(game, thinker, move.key, move.seat, number)
                    break
                await self._reread(game)  # another server was first: its change, then check again
        else:
            raise ProtocolError("busy", "the game changed too often to make the move now: try again", 503)
        self.broadcast(game)
        if by is not None:  # after the ok its caller sends
            asyncio.get_running_loop().call_soon(self._saved, game, game.saved_version, [by])
        if game.session.is_over:
            self.pool.cancel(game.id)
        self.kick(game)
        return entry

    async def _commit(self, game: Game, change: Shared) -> bool:
        """Store a change if its game is still at the version it was made from: whether it was.
        If the answer is lost (the database failed, the move was cancelled), whether it was
        stored is not known here: the game is read again."""
        try:
            return await self.committer.commit(change)
        except BaseException as exc:
            self._background(self._follow(game, None))  # once the lock is free
            if isinstance(exc, sqlite3.Error):
                message = f"the move was not made: the database refused it ({exc})"
                raise ProtocolError("storage", message, 503) from None
            raise

    async def _commit_changes(self, changes: list[Shared]) -> list[bool]:
        written: list[bool] = await self.db(self.shared.commit_changes, changes)
        return written

    async def limit_wait(self, limit: CreationLimit, what: str, address: str) -> float | None:
        """None if ``address`` may make one more of ``what`` now (and counts it), else the seconds
        to wait: counted here, or in the database with several servers."""
        if self.link is None or limit.per_minute <= 0:
            return limit.wait(address, time.monotonic())
        try:
            wait: float | None = await self.db(self.shared.hit, f"{what}:{address}", limit.per_minute)
        except sqlite3.Error as exc:
            raise ProtocolError("storage", f"the database cannot count requests now ({exc})", 503) from None
        return wait

    def _made(self, game: Game, thinker: str | None, key: str | None, seat: int, number: int) -> None:
        """This server stored a change of ``game`` and made it in memory."""
        game.saved_version = game.session.version
        game.changed = time.monotonic()
        game.lease = thinker is not None
        if key is not None:
            game.keys[key] = (seat, number)

    def _thinker(self, session: GameSession, waiting: tuple[int, ...]) -> str | None:
        """This server, if a computer seat must decide among ``waiting`` (it will think)."""
        if self.link is None or not any(session.seats[seat].kind == COMPUTER for seat in waiting):
            return None
        return self.link.instance

    async def undo(self, game: Game, seat: int, by: Connection | None = None) -> int:
        """Take back ``seat``'s last decision and the computer's after it (practice games)."""
        if self.link is not None:
            return await self._undo_shared(game, seat, by)
        session = game.session
        async with game.lock:
            count = session.undo_count(seat)
            self.writer.check(game)
            keep = len(session.decisions) - count
            session.undo(count)
            _forget_keys(game, keep)
            self.writer.add(Change(game, session.version, keep, seat, None, keep=keep, by=by))
            for task in game.thinking.values():
                task.cancel()
            self.pool.cancel(game.id)
        self.broadcast(game)
        self.kick(game)
        return count

    async def _undo_shared(self, game: Game, seat: int, by: Connection | None) -> int:
        assert self.link is not None
        for _ in range(MAX_RACES):
            async with game.lock:
                session = game.session
                count = session.undo_count(seat)
                keep = len(session.decisions) - count
                row = ChangeRow(game.id, keep, seat, None, False, keep, session.version + 1)
                told = Heard(game.id, row.version, "undo", seat, keep=keep)
                if await self._commit(
                    game, Shared(row, session.version, None, told.payload(self.link.instance))
                ):
                    session.undo(count)
                    for task in game.thinking.values():
                        task.cancel()
                    self.pool.cancel(game.id)
                    self._made(game, None, None, seat, keep)
                    _forget_keys(game, keep)
                    break
                await self._reread(game)
        else:
            raise ProtocolError("busy", "the game changed too often to undo now: try again", 503)
        self.broadcast(game)
        if by is not None:
            asyncio.get_running_loop().call_soon(self._saved, game, game.saved_version, [by])
        self.kick(game)
        return count

    # --- several servers: what the others changed ----------------------------------------------

    def _heard(self, change: Heard) -> None:
        """Another server stored a change: follow it if the game is here."""
        game = self.games.get(change.game)
        if game is not None:
            self._background(self._follow(game, change))
        elif change.game in self._loading:
            self._stale.add(change.game)

    async def _follow(self, game: Game, change: Heard | None) -> None:
        """Make another server's change here (or read the game again if it does not follow on
        from what is here), then tell this server's clients."""
        try:
            async with game.lock:
                session = game.session
                if change is not None and change.version <= session.version:
                    return  # made here already
                if change is None or change.version > session.version + 1 or not _follows(session, change):
                    await self._reread(game)
                game.lease = False  # whoever stored it thinks for the computers, if one must
                game.saved_version = game.session.version
                game.changed = time.monotonic()
                if change is not None and change.key is not None and change.kind == "move":
                    game.keys[change.key] = (change.seat, change.number)
                if change is not None and change.kind == "undo":
                    _forget_keys(game, change.keep)
                    for task in game.thinking.values():
                        task.cancel()
        except ProtocolError as exc:
            log.warning("dorf: game %s could not follow another server's change: %s", game.id, exc.message)
            return
        self.broadcast(game)
        if game.session.is_over:
            self.pool.cancel(game.id)

    async def _reread(self, game: Game) -> None:
        """Read ``game`` again as stored (its lock held): another server changed it."""
        try:
            stored = await self.db(self.storage.load_game, game.id)
        except (sqlite3.Error, DamagedGame) as exc:
            raise ProtocolError("storage", f"the game could not be read now ({exc})", 503) from None
        if stored is None:
            raise ProtocolError("no-game", f"there is no game {game.id!r}", 404)
        try:
            game.session = _replayed(stored)
        except (RecordError, ValueError, KeyError, TypeError, IndexError) as exc:
            raise ProtocolError("broken", f"game {game.id} does not replay: {exc}", 410) from None
        _take_stored(game, stored)

    def resync(self) -> None:
        """Notifications may have been missed (the listener was cut off): compare every game
        here with the database, and read again those another server changed."""
        self._background(self._resync())

    async def _resync(self) -> None:
        ids = list(self.games)
        try:
            stored = await self.db(self.shared.versions, ids)
        except sqlite3.Error as exc:
            log.warning("dorf: the games in memory could not be compared with the database: %s", exc)
            return
        for game_id, version in stored.items():
            game = self.games.get(game_id)
            if game is not None and version != game.session.version:
                await self._follow(game, None)

    async def _heartbeat(self) -> None:
        """Say now and then that this server is alive; forget the clients of servers that died."""
        assert self.link is not None
        while True:
            await asyncio.sleep(HEARTBEAT)
            try:
                await self.db(self.shared.heartbeat, self.link.instance, DEAD_AFTER)
            except sqlite3.Error as exc:
                log.warning("dorf: the heartbeat was not stored: %s", exc)

    def _claim(self, game: Game) -> None:
        """Take the lease to think for the game's computer seats if one must decide and nobody
        holds it (or its holder let it run out): then think here."""
        session = game.session
        if (
            game.lease
            or game.thinking
            or session.is_over
            or self._thinker(session, session.waiting()) is None
        ):
            return

        async def claim() -> None:
            assert self.link is not None
            version = game.session.version
            try:
                mine = await self.db(self.shared.claim_thinking, game.id, version, self.link.instance)
            except sqlite3.Error:
                return
            if mine and game.session.version == version:
                game.lease = True
                self.kick(game)

        self._background(claim())

    async def _write_changes(self, rows: list[ChangeRow]) -> None:
        await self.db(self.storage.write_changes, rows)

    def _saved(self, game: Game, version: int, movers: list[Connection]) -> None:
        """The writer stored ``game`` up to ``version``: tell the clients whose changes those were."""
        game.saved_version = max(game.saved_version, version)
        game.saved.set()
        game.saved = asyncio.Event()
        text = f'{{"type":"saved","version":{game.saved_version}}}'
        for conn in movers:
            conn.send(text)

    def _lost(self, game: Game, error: Exception) -> None:
        """The database refused a change of ``game`` for good: let the game go from memory, so
        that it is read again as stored, and close its clients (they connect again)."""
        if self.games.get(game.id) is game:
            self._drop(game)
        for conn in list(game.connections):
            conn.send({"type": "error", "code": "storage", "message": f"a change was not stored: {error}"})
            conn.closed = True
            conn.queue.put_nowait(None)

    async def wait_saved(self, game: Game, version: int, timeout: float) -> bool:
        """Wait (at most ``timeout`` seconds) until ``game`` is stored up to ``version``."""
        deadline = time.monotonic() + timeout
        while game.saved_version < version:
            left = deadline - time.monotonic()
            if left <= 0:
                return False
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(game.saved.wait(), left)
        return True

    # --- telling the clients ----------------------------------------------------------------

    def send_state(self, game: Game | Broken, conn: Connection) -> None:
        """Send ``conn`` the whole state of the game (on connecting, after hello, when asked); the
        next change goes to it as a delta from this."""
        if isinstance(game, Broken):
            conn.send('{"type":"state","you":{"seats":[],"legal":{}},"game":' + game.public_text() + "}")
            conn.doc = None
            return
        doc = game.session.document(conn.seats)
        game_text = game.session.public_text(conn.seats)  # the same as doc["game"], kept as text
        conn.send('{"type":"state","you":' + dumps(doc["you"]) + ',"game":' + game_text + "}")
        conn.doc = doc

    def broadcast(self, game: Game) -> None:
        """Tell every client of the game what changed in its view: a delta from the description
        it has (one diff per pair of views), or the whole state if it has none."""
        made: dict[tuple[int, int], str] = {}
        game_ops: dict[tuple[int, int], list[list[Any]]] = {}  # the game's part, once per pair of views
        for conn in list(game.connections):
            old = conn.doc
            new = game.session.document(conn.seats)
            if old is new:
                continue
            if old is None:
                self.send_state(game, conn)
                continue
            key = (id(old), id(new))
            text = made.get(key)
            if text is None:
                try:
                    pair = (id(old["game"]), id(new["game"]))
                    ops = game_ops.get(pair)
                    if ops is None:
                        ops = game_ops[pair] = diff(old["game"], new["game"], "game")
                    if old["you"] is not new["you"]:
                        ops = ops + diff(old["you"], new["you"], "you")
                except ValueError:
                    self.send_state(game, conn)
                    continue
                text = made[key] = dumps(
                    {
                        "type": "delta",
                        "from": old["game"]["version"],
                        "version": new["game"]["version"],
                        "ops": ops,
                    }
                )
            conn.send(text)
            conn.doc = new

    # --- who is let in: seat holders always, spectators while there is room ------------------

    async def attach(self, game: Game | Broken, conn: Connection) -> None:
        """A new client of a game, counted as a spectator: it holds no seat until its hello
        proves one.  Without room for another spectator it is held back (``conn.refusal`` says
        why): it hears nothing of the game's changes, and unless its first message is a hello
        that proves a seat (within ``hello_seconds``) it is turned away."""
        conn.refusal = await self._room(game, conn, set())
        if conn.refusal is None:
            self._count(game, conn, WATCHING)

    async def admit(self, game: Game | Broken, conn: Connection, seats: set[int]) -> bool:
        """The client's hello proved ``seats`` (perhaps none): count it as their holder, or as a
        spectator.  False, with ``conn.refusal`` set, if there is no room for it as that."""
        refusal = await self._room(game, conn, seats)
        if refusal is None and isinstance(game, Game) and self.games.get(game.id) is not game:
            refusal = ProtocolError("busy", "the game left memory meanwhile: connect again", 503)
        conn.refusal = refusal
        if refusal is not None:
            return False
        self._uncount(game, conn)
        conn.seats = seats
        self._count(game, conn, PLAYING if seats else WATCHING)
        return True

    async def detach(self, game: Game | Broken, conn: Connection) -> None:
        counted = conn.role is not None
        self._uncount(game, conn)
        if isinstance(game, Game):
            game.used = time.monotonic()
        if self.link is not None and counted:  # not awaited: the client's task may be cancelled
            self._background(self.db(self.shared.unseat_client, self.link.instance, conn.number))

    def _background(self, work: Awaitable[Any]) -> None:
        """Run ``work`` on its own (a database error is logged); kept until it is done."""

        async def run() -> None:
            try:
                await work
            except sqlite3.Error as exc:
                log.warning("dorf: %s", exc)

        task = asyncio.get_running_loop().create_task(run())
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    async def _room(self, game: Game | Broken, conn: Connection, seats: set[int]) -> ProtocolError | None:
        """Why ``conn`` cannot be let in holding ``seats`` (none: as a spectator); None if it can
        (and, with several servers, it is counted in the database at once: two servers cannot
        both let in the last one)."""
        decide = partial(self._no_room, conn, seats)
        if self.link is None:
            address = conn.address
            holders = self._holders.get(address, 0) - (conn.role == PLAYING)
            watching = self._watching.get(address, 0) - (conn.role == WATCHING)
            spectators = (
                sum(1 for c in game.connections if c.role == WATCHING and c is not conn)
                if isinstance(game, Game)
                else 0
            )
            return decide(holders, watching, spectators)
        role = PLAYING if seats else WATCHING
        try:
            refusal: ProtocolError | None = await self.db(
                self.shared.seat_client, self.link.instance, conn.number, conn.address, game.id, role, decide
            )
        except sqlite3.Error as exc:
            return ProtocolError("storage", f"the database cannot count clients now ({exc})", 503)
        return refusal

    def _no_room(
        self, conn: Connection, seats: set[int], holders: int, watching: int, spectators: int
    ) -> ProtocolError | None:
        """Why ``conn`` cannot be let in holding ``seats``, when its address has ``holders``
        other seat-holding clients and ``watching`` other spectators, and its game
        ``spectators`` other spectators; None if it can.

        A seat holder is always let in, however many spectators there are, in the game or in
        all; only its own address's other seat-holding clients count against it.  A spectator
        needs room in the game, in all, and among its address's spectators."""
        per_address = self.config.max_connections_per_address
        if seats:
            if per_address and holders >= per_address:
                return ProtocolError(
                    "busy", f"{holders} clients from your address hold seats already: close one first", 503
                )
            return None
        if per_address and watching >= per_address:
            return ProtocolError(
                "busy", f"{watching} clients from your address watch games already: close one first", 503
            )
        if self.connected - (conn.role is not None) >= self.config.max_connections:
            return ProtocolError(
                "busy",
                "the server has as many clients as it takes (its players still get in): try again later",
                503,
            )
        if spectators >= self.config.max_spectators:
            return ProtocolError(
                "busy",
                "this game has as many spectators as it takes (its players still get in): try later",
                503,
            )
        return None

    def _count(self, game: Game | Broken, conn: Connection, role: str) -> None:
        conn.role = role
        counts = self._holders if role == PLAYING else self._watching
        counts[conn.address] = counts.get(conn.address, 0) + 1
        self.connected += 1
        if isinstance(game, Game):
            game.connections.add(conn)
            self.touch(game)

    def _uncount(self, game: Game | Broken, conn: Connection) -> None:
        role, conn.role = conn.role, None
        if role is None:
            return
        counts = self._holders if role == PLAYING else self._watching
        counts[conn.address] -= 1
        if not counts[conn.address]:
            del counts[conn.address]
        self.connected -= 1
        if isinstance(game, Game):
            game.connections.discard(conn)

    # --- computer seats ------------------------------------------------------------------------

    def kick(self, game: Game) -> None:
        """Start a computer player for every computer seat that must decide now (with several
        servers, only on the one that holds the game's lease to think)."""
        session = game.session
        if session.is_over and game.bots:
            self._end_bots(game)
        if session.is_over or self.games.get(game.id) is not game:
            return
        if self.link is not None and not game.lease:
            return
        for seat in session.waiting():
            if session.seats[seat].kind == COMPUTER and seat not in game.thinking:
                game.thinking[seat] = asyncio.get_running_loop().create_task(self._think(game, seat))

    def thinking(self, game_id: str) -> list[int]:
        game = self.games.get(game_id)
        return sorted(game.thinking) if game is not None else []

    async def _think(self, game: Game, seat: int) -> None:
        spec = game.session.seats[seat].player or "greedy"
        moved = False
        try:
            await asyncio.sleep(self.config.ai_delay)
            answer: Json | None = None
            epoch = (-1, -1)
            delay = 0.5
            while not (session := game.session).is_over and seat in session.waiting():
                now_at = (id(session), session.epoch)  # a new session: read again after a change elsewhere
                if answer is None or epoch != now_at:  # thought before an undo
                    epoch = now_at
                    answer = await self._answer(game, seat, spec)
                    continue
                try:
                    await self.move(game, _move_of(seat, answer))
                    self.thoughts += 1
                    moved = True
                    return
                except ProtocolError as exc:
                    if exc.code == "storage":
                        log.warning(
                            "dorf: %s's move in game %s was not stored (%s): trying again in %g s",
                            session.name(seat),
                            game.id,
                            exc.message,
                            delay,
                        )
                        await asyncio.sleep(delay)
                        delay = min(MAX_RETRY, delay * 2)
                    elif exc.code in ("illegal", "bad-message") and id(game.session) != epoch[0]:
                        answer = None  # another server changed the game: think again
                    elif exc.code in ("illegal", "bad-message"):
                        log.error("dorf: computer move refused in game %s: %s", game.id, exc.message)
                        answer = _any_decision(session, seat)
                    else:
                        return
        finally:
            if game.thinking.get(seat) is asyncio.current_task():
                del game.thinking[seat]
            if moved:
                self.kick(game)

    async def hint(self, game: Game, seat: int, address: str = "unknown") -> Json:
        """The coach's hint for ``seat`` from what the seat may see, computed in the pool's
        workers (busy, HTTP 429, if ``address`` waits for one already or the queue is full)."""
        session = game.session
        record = session.visible_record(seat)
        player = session.player_of[seat]
        seed = computer_seed(session.seed, len(record["decisions"]), player)
        args = {"record": record, "player": player, "seed": seed, "spec": hints.HINT_PLAYER}
        with self._hints.hold(address):
            return await self._work(HINTS, "hint", args, HINT_SECONDS)

    async def replay(self, record: Json, address: str = "unknown") -> Json:
        """The replay viewer's steps of ``record``, computed in the pool's workers (busy, HTTP
        429, if ``address`` waits for one already or the queue is full)."""
        with self._replays.hold(address):
            return await self._work(REPLAYS, "replay", {"record": record}, REPLAY_SECONDS)

    async def _work(self, queue: str, kind: str, args: Json, seconds: float) -> Json:
        """A hint or a replay from the pool; its failures as the client's errors."""
        cap = max(seconds, self.config.ai_max_seconds)
        try:
            return await self.pool.run(queue, kind, args, cap)
        except Refused as exc:
            raise ProtocolError(exc.code, exc.message) from None
        except Overrun:
            raise ProtocolError("busy", f"the {kind} took over {cap:g} s: ask again later", 503) from None
        except ThinkError as exc:
            raise ProtocolError("busy", f"the {kind} failed ({exc}): ask again in a moment", 503) from None

    async def _answer(self, game: Game, seat: int, spec: str) -> Json:
        """What the computer of ``seat`` plays, from what its seat may see; greedy if it fails."""
        if spec.startswith(COMMAND_PREFIX):
            return await self._bot_answer(game, seat, spec)
        session = game.session
        record = session.visible_record(seat)
        player = session.player_of[seat]
        seed = computer_seed(session.seed, len(record["decisions"]), player)
        try:
            return await self.pool.think(game.id, record, player, spec, seed)
        except ThinkError as exc:
            log.warning(
                "dorf: %s (%s) in game %s: %s; it plays greedy", session.name(seat), spec, game.id, exc
            )
            return await asyncio.to_thread(think, record, player, "greedy", seed)

    async def _bot_answer(self, game: Game, seat: int, spec: str) -> Json:
        """What the program of a ``cmd:`` seat plays, shown what the seat's page shows, in a
        thread, within its clock; the first legal move if it fails (or runs on no server here)."""
        session = game.session
        bot = game.bots.get(seat)
        if bot is None:
            commands = self.config.bot_commands
            if commands is None:
                log.warning(
                    "dorf: %s (%s) in game %s: this server runs no programs (--allow-bot-commands);"
                    " it plays the first legal move",
                    session.name(seat),
                    spec,
                    game.id,
                )
                return _any_decision(session, seat)
            player = session.player_of[seat]

            def say(text: str, game_id: str = game.id) -> None:
                log.warning("%s (game %s)", text, game_id)

            seed = computer_seed(session.seed, 0, player)  # one way: it tells nothing of the tiles
            bot = game.bots[seat] = commands.make(spec, session.mode, seat, seed, say)
        try:
            return await asyncio.to_thread(bot.decide, session.document([seat]), seat)
        except ValueError:
            return _any_decision(session, seat)


def _forget_keys(game: Game, keep: int) -> None:
    """An undo back to ``keep`` decisions: the keys of those taken back are free again."""
    game.keys = {k: v for k, v in game.keys.items() if v[1] <= keep}


def _made_before(game: Game, move: Move) -> Json | None:
    """If a move with this key was made for this seat already: its decision, marked ``again``."""
    made = game.keys.get(move.key) if move.key is not None else None
    if made is None or made[0] != move.seat:
        return None
    return {**game.session.decisions[made[1] - 1], "again": True}


def _follows(session: GameSession, change: Heard) -> bool:
    """Make another server's change (one version on from ``session``'s) here: whether it could
    be made so (else the game is read again)."""
    if change.kind == "move" and change.decision is not None and change.number == len(session.decisions) + 1:
        try:
            session.apply(_move_of(change.seat, change.decision))
        except (ProtocolError, KeyError, TypeError, ValueError):
            return False
        return True
    if change.kind == "undo" and change.keep < len(session.decisions):
        session.undo(len(session.decisions) - change.keep)
        return True
    return False


def _move_of(seat: int, answer: Json) -> Move:
    if "pick" in answer:
        return Move(seat, pick=int(answer["pick"]))
    return Move(seat, placement=Placement(Hex(*answer["at"]), int(answer["rot"])))


def _any_decision(session: GameSession, seat: int) -> Json:
    """A legal decision for ``seat``, for when a computer player's answer is refused."""
    public = session.public([seat])
    if "pool" in public:
        return {"pick": public["pool"][0]["id"]}
    q, r, rots = session.legal(seat)[0]
    return {"at": [q, r], "rot": rots[0]}
