"""How ``dorf serve`` runs: :class:`ServerConfig`, the options of the same names (``docs/server.md``)."""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol

#: The loopback names: a server always answers to them.
LOOPBACK = ("127.0.0.1", "localhost", "::1")
#: The host FastAPI's TestClient sends: an app made with ``ServerConfig()`` answers to it too.
TEST_HOST = "testserver"


class SeatBot(Protocol):
    """A program that plays a computer seat (``cmd:COMMAND``, see ``docs/bots.md``)."""

    def decide(self, document: dict[str, Any], seat: int | None = None) -> dict[str, Any]:
        """A legal move of the seat, ``{"at", "rot"}`` or ``{"pick"}``, from what the seat sees
        (:meth:`GameSession.document`): the program's, or a fallback; within its clock."""
        ...

    def end(self, document: dict[str, Any] | None = None) -> None:
        """Stop the program (telling it the final view, if given)."""
        ...


class BotCommands(Protocol):
    """Programs as computer players, where the operator allows them (``dorf serve
    --allow-bot-commands``; :class:`dorf.bots.seat.BotCommands`).  An option of the server, so
    here, where every part of the server may read it (``dorf.server.round.seats`` uses it)."""

    def check(self, spec: str) -> None:
        """ValueError, one line, if ``spec`` (``cmd:COMMAND``) names no program that can run."""
        ...

    def make(
        self, spec: str, mode: str, seat: int, seed: int, log: Callable[[str], None] | None = None
    ) -> SeatBot:
        """The program of one seat of one game (started when it first decides)."""
        ...


#: How much longer than the longest think a lease to think for a game's computer seats lasts
#: (several servers on one database), in seconds.
LEASE_MARGIN = 10.0


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
    #: New players a minute from one address (0: no limit): a player is made by the first thing
    #: a visitor does that needs one (``dorf.server.players.accounts``).
    player_limit: int = 10
    #: Websocket clients at most: once reached, only seat holders are let in.
    max_connections: int = 1000
    #: Spectators of one game at most (clients that hold none of its seats).
    max_spectators: int = 32
    #: Spectators from one address at most, and as many seat-holding clients (0: no limit).
    max_connections_per_address: int = 16
    #: Open games in the lobby's public list from one address at once (0: no limit).
    open_games_per_address: int = 8
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
    #: The proxies (addresses or networks, ``--trusted-proxy``) whose ``X-Forwarded-For``,
    #: ``X-Forwarded-Proto`` and ``X-Request-Id`` are believed; none by default.
    trusted_proxies: tuple[str, ...] = ()
    #: The token a scraper of ``/metrics`` sends (``Authorization: Bearer TOKEN``,
    #: ``--metrics-token``); None: only programs on this machine may read it.
    metrics_token: str | None = None
    #: Programs as computer players (``cmd:COMMAND``), where the operator allows them (``dorf serve
    #: --allow-bot-commands`` gives :class:`dorf.bots.seat.BotCommands`); None: a game that names
    #: one is refused (``no-commands``).
    bot_commands: BotCommands | None = None
    #: The clocks' time, in seconds since 1970 (tests hand in their own), and how much faster
    #: than it the clocks run (``--clock-scale``, for tests only: 60 makes a minute a second).
    clock_time: Callable[[], float] = time.time
    clock_scale: float = 1.0
    #: The daily challenge (``dorf.server.daily``): the computer level (or player spec) whose
    #: score players try to beat, the coach behind the lessons, and, for tests only, a file
    #: holding today's date (``YYYY-MM-DD``) read instead of the clock's.
    daily_expert: str = "expert"
    daily_coach: str = "planner"
    today_file: Path | None = None
    #: The operator's own privacy notice (``--privacy-file``; None: the default text).
    privacy_file: Path | None = None

    @property
    def lease(self) -> float:
        """How long a server thinks for a game's computer seats before another may take over."""
        return self.ai_delay + 2 * self.ai_max_seconds + LEASE_MARGIN
