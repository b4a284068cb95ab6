"""The server without HTTP: the games in memory, handed a storage and a bus.

:class:`Hub` is handed its :class:`~dorf.server.storage.base.Storage` and its
:class:`~dorf.server.storage.bus.Bus` (:func:`dorf.server.storage.open_storage`
chooses them from ``--db``) and never asks which it has.  It holds the games in
use and gives each job its own module:

- making a move, taking moves back: :mod:`dorf.server.round.moves`;
- creating a game, taking a seat, tokens: :mod:`dorf.server.round.seats`;
- letting clients in: :mod:`dorf.server.round.clients`;
- telling them what changed: :mod:`dorf.server.round.fanout`;
- computer seats, hints, replays: :mod:`dorf.server.computer.seats`.

**Memory.** Only games in use are in memory.  A game is read from the storage
and replayed when someone asks for it (nothing is read at start, so start-up
does not grow with the database); it leaves memory when nobody has used it for
``idle_seconds`` (no client connected, no computer thinking), or when more than
``games_in_memory`` games are held (the least recently used first).  A game of
computers that nobody watches stops thinking when it leaves, and goes on when
someone opens it again.

**Other servers.** What another server stored is heard on the bus: a game held
here follows the change (or is read again if it does not follow on), and its
clients here are told.

**Damaged games** (rows that cannot be read or replayed) are held as
:class:`~dorf.server.round.game.Broken`: shown with the reason, never played;
one log line each.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import re
import time
from collections import OrderedDict
from collections.abc import Awaitable, Callable
from typing import Any

from dorf.formats.record import read_decision
from dorf.server.computer.pool import ThinkPool
from dorf.server.computer.seats import ComputerSeats
from dorf.server.config import ServerConfig
from dorf.server.daily.challenge import Daily
from dorf.server.lobby.lobby import Lobby
from dorf.server.players.service import Players
from dorf.server.protocol.messages import Move, ProtocolError
from dorf.server.round.clients import Doorman
from dorf.server.round.clock import Clock
from dorf.server.round.fanout import Fanout
from dorf.server.round.finisher import Finisher
from dorf.server.round.game import REPLAY_ERRORS, Broken, Game, loaded, replayed, seat_specs
from dorf.server.round.moves import Mover
from dorf.server.round.seats import Seating
from dorf.server.round.session import COMPUTER, GameSession
from dorf.server.round.timers import Timers
from dorf.server.storage.base import END, MOVE, UNDO, Change, DamagedGame, Storage, StorageError
from dorf.server.storage.bus import Bus

log = logging.getLogger("dorf.server")

#: A game id as the server makes them (``secrets.token_urlsafe(8)``), or a little longer.
GAME_ID = re.compile(r"[A-Za-z0-9_-]{1,64}")


class Hub:
    """Every game of the server: those in memory, and the rest in its storage."""

    def __init__(self, config: ServerConfig, storage: Storage, bus: Bus) -> None:
        self.config = config
        self.storage = storage
        self.bus = bus
        self.games: OrderedDict[str, Game] = OrderedDict()
        self.broken: dict[str, Broken] = {}
        self._loading: dict[str, asyncio.Future[Game | Broken]] = {}
        #: Games another server changed while this one was reading them.
        self._stale: set[str] = set()
        self._tasks: set[asyncio.Task[None]] = set()
        self._sweeper: asyncio.Task[None] | None = None
        self.pool = ThinkPool(config.ai_workers, config.ai_max_seconds)
        self.fanout = Fanout(self.now, config.clock_scale)
        self.doorman = Doorman(self)
        self.mover = Mover(self)
        self.seating = Seating(self)
        self.computer = ComputerSeats(self, self.pool)
        #: The players and their ratings (players/); a rated game is rated when it ends.
        self.players = Players(storage)
        self.players.player_limit = config.player_limit
        #: Every end of a game goes through it; the clocks' deadlines (round/timers.py).
        self.finisher = Finisher(self)
        self.finisher.listeners.append(self.players.on_end)
        self.timers = Timers(self, self.now, config.clock_scale)
        #: The open games and seeks (lobby/); told when a game is made, a seat taken, a game ends.
        self.lobby = Lobby(self)
        self.lobby_hooks: list[Callable[[Game], None]] = [self.lobby.changed]
        self.finisher.listeners.append(self.lobby.ended)
        #: The daily challenge (daily/): a counted attempt's score follows each of its changes.
        self.daily = Daily(self)
        self.change_hooks: list[Callable[[Game], None]] = [self.daily.changed]

    # --- start and stop -----------------------------------------------------------

    async def start(self) -> None:
        """Open the storage and start the computer players' workers; hear the other servers."""
        await self.storage.start()
        self.bus.start(self.heard, self.resync)
        await self.bus.ready()
        await self.pool.start()
        self._sweeper = asyncio.get_running_loop().create_task(self._sweep())
        for game_id, deadline, version in await self.storage.deadlines():
            self.timers.set(game_id, deadline, version)
        self.timers.start()
        await self.lobby.start()
        await self.daily.start()

    async def close(self) -> None:
        if self._sweeper is not None:
            self._sweeper.cancel()
        await self.timers.close()
        await self.lobby.close()
        await self.daily.close()
        for game in self.games.values():
            for task in game.thinking.values():
                task.cancel()
        for game in list(self.games.values()):
            for task in list(game.thinking.values()):
                with contextlib.suppress(BaseException):
                    await task
            for conn in game.connections:
                conn.queue.put_nowait(None)
            self.computer.end_bots(game)
        await self.computer.close()
        await self.pool.close()
        await self.bus.stop()
        await self.storage.close()

    def now(self) -> float:
        """The clocks' time, in seconds since 1970; for tests, ``clock_scale`` times that (the
        clocks run so much faster, and several servers still agree on the time)."""
        return self.config.clock_time() * self.config.clock_scale

    def health(self) -> dict[str, Any]:
        """What ``/api/health`` says of this server."""
        pool = self.pool
        return {
            "ok": True,
            "instance": self.storage.instance,
            "heard": self.bus.heard,
            "thought": self.computer.thoughts,
            "hurried": self.computer.hurried,  # computer decisions played greedy as time ran short
            "games": len(self.games),
            "connections": self.doorman.connected,
            "thinking": {**pool.counts, "waiting": pool.waiting(), "running": pool.running()},
            "writes": self.storage.counts(),
            "lobby": self.lobby.health(),
            "ended": dict(self.finisher.counts),  # games ended here, by how (round/finisher.py)
            "daily": self.daily.health(),
        }

    def background(self, work: Awaitable[Any]) -> None:
        """Run ``work`` on its own (a storage error is logged); kept until it is done."""

        async def run() -> None:
            try:
                await work
            except StorageError as exc:
                log.warning("dorf: %s", exc)

        task = asyncio.get_running_loop().create_task(run())
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

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
            stored = await self.storage.load_game(game_id)
        except DamagedGame as exc:
            return self._mark_broken(Broken(game_id, str(exc)))
        except StorageError as exc:
            raise ProtocolError("storage", f"the game could not be read now ({exc})", 503) from None
        if stored is None:
            raise ProtocolError("no-game", f"there is no game {game_id!r}", 404)
        try:
            game = loaded(stored)
        except REPLAY_ERRORS as exc:
            return self._mark_broken(
                Broken(game_id, f"its decisions do not replay ({exc})", stored.mode, seat_specs(stored))
            )
        self.hold(game)
        self.timers.follow(game)
        if game_id in self._stale:  # another server changed it while it was read
            self._stale.discard(game_id)
            self.background(self.follow(game, None))
        else:
            self.computer.claim(game)
        return game

    def _mark_broken(self, broken: Broken) -> Broken:
        self.broken[broken.id] = broken
        log.error("dorf: game %s is broken: %s", broken.id, broken.reason)
        return broken

    def hold(self, game: Game) -> None:
        """Keep ``game`` in memory (letting idle ones go beyond ``games_in_memory``)."""
        self.daily.mark(game.session)
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
        return (
            not game.connections
            and not game.thinking
            and not game.lock.locked()
            and not game.unsaved
            and not self._computer_on_the_clock(game)
        )

    def _computer_on_the_clock(self, game: Game) -> bool:
        """Whether a computer seat of the game must decide while its clock runs: the game stays
        in memory, thinking (else its computer would lose on time for nobody watching)."""
        session = game.session
        if session.clock is None or session.is_over:
            return False
        return any(session.seats[seat].kind == COMPUTER for seat in session.waiting())

    def _drop(self, game: Game) -> None:
        """Let a game leave memory (it stays in the storage): its computers stop thinking."""
        for task in game.thinking.values():
            task.cancel()
        self.pool.cancel(game.id)
        self.computer.end_bots(game)
        self.games.pop(game.id, None)

    async def _sweep(self) -> None:
        """Now and then, let go of the games nobody has used for ``idle_seconds``, and think for
        the games whose thinker let its lease run out."""
        idle = self.config.idle_seconds
        while True:
            await asyncio.sleep(min(5.0, max(0.05, idle / 4)))
            cutoff = time.monotonic() - idle
            for game in list(self.games.values()):
                quiet = not game.connections and not game.lock.locked() and not game.unsaved
                if game.used < cutoff and quiet and not self._computer_on_the_clock(game):
                    self._drop(game)  # left alone: computers of an unwatched game stop too
                elif time.monotonic() - game.changed > self.storage.lease:
                    self.computer.claim(game)  # whoever held the lease to think stopped, or died
            if self.players.sweep_due():  # once an hour: the players who never played
                self.background(self.players.sweep())

    def lost(self, game: Game, error: BaseException) -> None:
        """The storage refused a change of ``game`` for good: let the game go from memory, so that
        it is read again as stored, and close its clients (they connect again)."""
        if self.games.get(game.id) is game:
            self._drop(game)
        for conn in list(game.connections):
            conn.send({"type": "error", "code": "storage", "message": f"a change was not stored: {error}"})
            conn.close()

    # --- what the other servers changed ----------------------------------------------

    def heard(self, change: Change) -> None:
        """Another server stored a change: follow it if the game is here."""
        game = self.games.get(change.game)
        if game is not None:
            self.background(self.follow(game, change))
        elif change.game in self._loading:
            self._stale.add(change.game)
        elif change.clock is not None or change.kind == END:  # its deadline, held or not
            deadline = None if change.finished else change.deadline
            self.timers.set(change.game, deadline, change.version)

    async def follow(self, game: Game, change: Change | None) -> None:
        """Make another server's change here (or read the game again if it does not follow on
        from what is here), then tell this server's clients."""
        try:
            async with game.lock:
                session = game.session
                if change is not None and change.version <= session.version:
                    return  # made here already
                if change is None or change.version > session.version + 1 or not _follows(session, change):
                    await self.reread(game)
                game.lease = False  # whoever stored it thinks for the computers, if one must
                game.saved_version = game.session.version
                game.changed = time.monotonic()
                if change is not None and change.kind == MOVE:
                    game.remember_key(change.seat, change.key, change.number)
                if change is not None and change.kind == UNDO:
                    game.forget_keys(change.keep)
                    for task in game.thinking.values():
                        task.cancel()
        except ProtocolError as exc:
            log.warning("dorf: game %s could not follow another server's change: %s", game.id, exc.message)
            return
        self.fanout.broadcast(game)
        self.timers.follow(game)
        if game.session.is_over:
            self.pool.cancel(game.id)

    async def reread(self, game: Game) -> None:
        """Read ``game`` again as stored (its lock held): another server changed it."""
        try:
            stored = await self.storage.load_game(game.id)
        except StorageError as exc:
            raise ProtocolError("storage", f"the game could not be read now ({exc})", 503) from None
        if stored is None:
            raise ProtocolError("no-game", f"there is no game {game.id!r}", 404)
        try:
            game.session = replayed(stored)
        except REPLAY_ERRORS as exc:
            raise ProtocolError("broken", f"game {game.id} does not replay: {exc}", 410) from None
        self.daily.mark(game.session)
        game.take_stored(stored)

    def resync(self) -> None:
        """Notifications may have been missed (the listener was cut off): compare every game
        here with the database, and read again those another server changed."""
        self.background(self._resync())

    async def _resync(self) -> None:
        ids = list(self.games)
        try:
            stored = await self.storage.versions(ids)
        except StorageError as exc:
            log.warning("dorf: the games in memory could not be compared with the database: %s", exc)
            return
        for game_id, version in stored.items():
            game = self.games.get(game_id)
            if game is not None and version != game.session.version:
                await self.follow(game, None)


def _follows(session: GameSession, change: Change) -> bool:
    """Make another server's change (one version on from ``session``'s) here: whether it could
    be made so (else the game is read again)."""
    if change.kind == MOVE and change.decision is not None and change.number == len(session.decisions) + 1:
        try:
            _, decision = read_decision(session.state, change.decision)
            session.apply(Move(change.seat, decision))
            if change.clock is not None and session.clock is not None:
                session.clock = Clock.restore(session.clock.spec.text, change.clock, len(session.seats))
        except (ProtocolError, ValueError, KeyError, TypeError):
            return False
        return True
    if change.kind == UNDO and change.keep < len(session.decisions):
        session.take_back(len(session.decisions) - change.keep)
        return True
    return False
