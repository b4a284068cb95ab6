"""The composition root of the server (lila's ``Env``): it builds the storage, the events, the
roles and the features, and connects them; :func:`create_app` hands it to the edge's app
factory, which asks it for what the routes need.  Nothing in ``dorf.server`` imports it but
``cli`` (``dorf serve``).

:class:`Hub` is handed its :class:`~dorf.server.storage.base.Storage` and its
:class:`~dorf.server.storage.bus.Bus` (:func:`dorf.server.storage.open_storage` chooses them
from ``--db``) and never asks which it has.  Each role is handed the collaborators it uses:

- the games in memory (read when asked for, let go when idle): :mod:`dorf.server.round.cache`;
- following what the other servers of one database store: :mod:`dorf.server.round.follow`;
- making a move, taking moves back: :mod:`dorf.server.round.moves`;
- every end of a game: :mod:`dorf.server.round.finisher`; the clocks' deadlines:
  :mod:`dorf.server.round.timers`;
- creating a game, taking a seat, tokens: :mod:`dorf.server.round.seats`;
- letting clients in: :mod:`dorf.server.round.clients`;
- telling them what changed: :mod:`dorf.server.round.fanout`;
- the table's choice and proposals, its talk: :mod:`dorf.server.round.table`,
  :mod:`dorf.server.round.talk`;
- computer seats, hints, replays: :mod:`dorf.server.computer.seats`.

The round publishes typed events (:mod:`dorf.server.round.events`) on one :class:`Events`;
here the features subscribe: the players' ratings and the lobby to every end of a game, the
lobby to every seat taken, the daily challenge to every change, the campaigns to every end of a
game (a campaign's next game is recorded into it).  The round imports no feature.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections import OrderedDict
from collections.abc import Awaitable
from typing import TYPE_CHECKING, Any

from dorf.server.campaigns.desk import CampaignDesk
from dorf.server.computer.pool import ThinkPool
from dorf.server.computer.seats import ComputerSeats
from dorf.server.config import ServerConfig
from dorf.server.daily.calendar import Today
from dorf.server.daily.challenge import Daily
from dorf.server.edge.app import build_app
from dorf.server.edge.metrics import Metrics, Readings
from dorf.server.lobby.attention import Turns
from dorf.server.lobby.lobby import Lobby
from dorf.server.players.service import Players
from dorf.server.round.cache import GameCache
from dorf.server.round.clients import Doorman
from dorf.server.round.events import Events, GameChanged, GameCreated, GameEnded, ProposalMade, SeatTaken
from dorf.server.round.fanout import Fanout
from dorf.server.round.finisher import Finisher
from dorf.server.round.follow import Follower
from dorf.server.round.game import Broken, Game
from dorf.server.round.moves import Mover
from dorf.server.round.seats import Seating
from dorf.server.round.table import Table
from dorf.server.round.talk import Talk
from dorf.server.round.timers import Timers
from dorf.server.storage import open_storage
from dorf.server.storage.base import Storage, StorageError
from dorf.server.storage.bus import Bus

if TYPE_CHECKING:
    from fastapi import FastAPI

log = logging.getLogger("dorf.server")


class Hub:
    """The server without HTTP: its storage, its bus, its roles and its features, connected."""

    def __init__(self, config: ServerConfig, storage: Storage, bus: Bus) -> None:
        self.config = config
        self.storage = storage
        self.bus = bus
        self._tasks: set[asyncio.Task[None]] = set()
        self._sweeper: asyncio.Task[None] | None = None
        now, background = self.now, self.background
        #: What the round tells the features (round/events.py).
        self.events = Events()
        self.today = Today(config.clock_time, config.today_file)
        self.pool = ThinkPool(config.ai_workers, config.ai_max_seconds)
        games: OrderedDict[str, Game] = OrderedDict()
        #: The cooperative table (issue 63): table talk, the active choice and the proposals;
        #: states carry them, and the other servers hear them on the bus.
        self.talk = Talk(storage)
        self.table = Table(storage, self.talk, games, self.events)
        self.fanout = Fanout(now, config.clock_scale, self.table)
        # Roles that call one another are connected through small functions, read when called.
        self.computer = ComputerSeats(
            config, storage, self.pool, games, now, lambda game, move: self.mover.move(game, move), background
        )
        self.cache = GameCache(
            storage,
            config.games_in_memory,
            self.today,
            lambda game: self.follower.loaded(game),
            self.computer,
            games,
        )
        self.timers = Timers(now, self.cache.game, lambda game: self.finisher.due(game), config.clock_scale)
        self.follower = Follower(storage, self.cache, self.fanout, self.timers, self.computer, background)
        #: Every end of a game goes through it.
        self.finisher = Finisher(
            storage,
            self.events,
            now,
            self.cache.reread,
            self.follower.later,
            lambda game, stored, by: self.mover.told(game, stored, by),
        )
        self.mover = Mover(
            storage,
            self.fanout,
            self.finisher,
            self.events,
            self.computer,
            now,
            self.cache.reread,
            self.follower.later,
            self.cache.lost,
        )
        self.doorman = Doorman(config, storage, self.cache.games, self.cache.touch)
        #: The players and their ratings (players/): a rated game is rated when it ends.
        self.players = Players(storage)
        self.players.player_limit = config.player_limit
        self.seating = Seating(
            storage,
            self.cache,
            self.fanout,
            self.events,
            self.players,
            self.computer,
            now,
            config.bot_commands,
        )
        #: The open games and seeks (lobby/).
        self.lobby = Lobby(config, storage, bus, self.cache, self.seating, self.players)
        #: The daily challenge (daily/): a counted attempt's score follows each of its changes.
        self.daily = Daily(config, storage, self.today, self.seating, self.computer, self.pool, background)
        #: The groups' campaigns (campaigns/): a campaign's next game is recorded when it ends.
        self.campaigns = CampaignDesk(storage, self.seating, self.cache.game, self.lobby.attention)

        # The clocks take the deadline of every change made here; the features hear the round.
        def clock(event: GameCreated | GameChanged | SeatTaken) -> None:
            self.timers.follow(event.game)

        self.events.subscribe(GameCreated, clock)
        self.events.subscribe(GameChanged, clock)
        self.events.subscribe(SeatTaken, clock)
        self.events.subscribe(GameEnded, self.players.on_end)
        self.events.subscribe(GameEnded, lambda event: self.lobby.changed(event.game))
        self.events.subscribe(SeatTaken, lambda event: self.lobby.changed(event.game))
        self.events.subscribe(GameChanged, self.daily.changed)
        #: Attention (lobby/attention.py): a player whose move it becomes hears it on their
        #: lobby sockets, wherever they are on the site.
        self.turns = Turns(self.lobby.attention)
        self.events.subscribe(GameCreated, lambda event: self.turns.turned(event.game))
        self.events.subscribe(GameChanged, lambda event: self.turns.turned(event.game))
        self.events.subscribe(SeatTaken, lambda event: self.turns.turned(event.game))
        self.events.subscribe(GameEnded, lambda event: self.turns.ended(event.game))
        self.events.subscribe(ProposalMade, lambda e: self.turns.proposed(e.game, e.seat, e.active))
        #: What ``/metrics`` says (edge/metrics.py): the moves heard, the writes timed, the rest
        #: read when scraped.
        self.metrics = Metrics(
            Readings(
                games=lambda: len(self.cache.games),
                game_sockets=lambda: self.doorman.connected,
                lobby_sockets=lambda: len(self.lobby.clients) + len(self.lobby.listeners),
                think_waiting=self.pool.waiting,
                think_running=self.pool.running,
                seeks=lambda: len(self.lobby.waiting),
                daily_attempts=lambda: self.daily.counts["attempts"],
            )
        )
        self.events.subscribe(GameChanged, self.metrics.changed)
        storage.time_writes(self.metrics.wrote)
        self.events.subscribe(GameEnded, self.campaigns.ended)

    @classmethod
    def open(cls, config: ServerConfig) -> Hub:
        """The server of ``config``: its storage and bus chosen from ``--db``."""
        storage, bus = open_storage(config.db, grace=config.storage_grace, lease=config.lease)
        return cls(config, storage, bus)

    # --- start and stop -----------------------------------------------------------

    async def start(self) -> None:
        """Open the storage and start the computer players' workers; hear the other servers."""
        await self.storage.start()
        self.bus.on_table(self.table.heard)
        self.bus.start(self.follower.heard, self.follower.resync)
        await self.bus.ready()
        await self.pool.start()
        self._sweeper = asyncio.get_running_loop().create_task(self._sweep())
        for game_id, deadline, version in await self.storage.deadlines():
            self.timers.set(game_id, deadline, version)
        self.timers.start()
        await self.lobby.start()
        await self.daily.start()
        await self.campaigns.start(self.config.db)

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
            "campaigns": self.campaigns.health(),
            "table": {**self.table.counts, **{f"talk_{k}": v for k, v in self.talk.counts.items()}},
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

    async def _sweep(self) -> None:
        """Now and then, let go of the games nobody has used for ``idle_seconds``, think for the
        games whose thinker let its lease run out, and let the players who never played go."""
        idle = self.config.idle_seconds
        while True:
            await asyncio.sleep(min(5.0, max(0.05, idle / 4)))
            self.cache.sweep(idle, self.storage.lease)
            if self.players.sweep_due():  # once an hour: the players who never played
                self.background(self.players.sweep())

    # --- what the routes ask for (the cache's) -------------------------------------

    @property
    def games(self) -> OrderedDict[str, Game]:
        """The games in memory."""
        return self.cache.games

    async def game(self, game_id: str) -> Game | Broken:
        return await self.cache.game(game_id)

    async def playable(self, game_id: str) -> Game:
        return await self.cache.playable(game_id)

    def touch(self, game: Game) -> None:
        self.cache.touch(game)


def create_app(config: ServerConfig | None = None) -> FastAPI:
    """The ASGI app of ``dorf serve``: the edge's routes around a :class:`Hub` of ``config``,
    opened when the app starts and closed when it stops."""
    return build_app(config or ServerConfig(), Hub.open)


__all__ = ["Hub", "create_app"]
