"""What the round tells the rest of the server: typed events on one :class:`Events` object
(lila's ``Bus``, inside one server).

The round publishes; the features subscribe, in the composition root
(:mod:`dorf.server.hub`): the players' ratings and the lobby hear every :class:`GameEnded`, the
daily challenge every :class:`GameChanged`, the lobby every :class:`SeatTaken`, the rematch
offers every :class:`GameCreated`.  The round imports no feature: it knows who listens only
as handlers.

A handler is called with the event; one that returns an awaitable is awaited by
:meth:`Events.tell` (the end of a game is told so: the ratings are written before the
clients hear the game is rated) and run in the background by :meth:`Events.publish`.  A
failing handler is logged and the others still hear the event.
"""

from __future__ import annotations

import asyncio
import inspect
import logging
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, TypeVar

from dorf.server.round.ending import Ending

if TYPE_CHECKING:
    from dorf.server.round.game import Game

log = logging.getLogger("dorf.server")


@dataclass(frozen=True)
class GameCreated:
    """A game was created on this server (stored, held in memory)."""

    game: Game


@dataclass(frozen=True)
class GameChanged:
    """A change of a game (a move, an undo, an end) was made on this server and stored."""

    game: Game


@dataclass(frozen=True)
class SeatTaken:
    """An online seat of a game was taken on this server (``player_id``: its player, if any)."""

    game: Game
    seat: int
    player_id: str | None = None


@dataclass(frozen=True)
class GameEnded:
    """A game ended, told once: on the server that stored its end."""

    game: Game
    ending: Ending


@dataclass(frozen=True)
class ProposalMade:
    """A seat proposed a placement at a cooperative table on this server (``active``: the seat
    that places the tile, whose player the proposal is for)."""

    game: Game
    seat: int
    active: int


Event = GameCreated | GameChanged | SeatTaken | GameEnded | ProposalMade
E = TypeVar("E", GameCreated, GameChanged, SeatTaken, GameEnded, ProposalMade)


class Events:
    """The handlers of each type of event, called in the order they subscribed."""

    def __init__(self) -> None:
        self._handlers: dict[type[Any], list[Callable[[Any], Awaitable[None] | None]]] = {}
        self._tasks: set[asyncio.Task[None]] = set()
        #: Events published, by type's name.
        self.counts: dict[str, int] = {}

    def subscribe(self, kind: type[E], handler: Callable[[E], Awaitable[None] | None]) -> None:
        self._handlers.setdefault(kind, []).append(handler)

    def handlers(self, kind: type[Any]) -> list[Callable[[Any], Awaitable[None] | None]]:
        return list(self._handlers.get(kind, ()))

    def publish(self, event: Event) -> None:
        """Tell ``event`` to its handlers now; an awaitable answer runs in the background."""
        name = type(event).__name__
        self.counts[name] = self.counts.get(name, 0) + 1
        for handler in self.handlers(type(event)):
            try:
                answer = handler(event)
            except Exception:
                log.exception("dorf: a handler of %s failed", name)
                continue
            if inspect.isawaitable(answer):
                task = asyncio.ensure_future(self._run(answer, name))
                self._tasks.add(task)
                task.add_done_callback(self._tasks.discard)

    async def tell(self, event: Event) -> None:
        """Tell ``event`` to its handlers one after another, awaiting each."""
        name = type(event).__name__
        self.counts[name] = self.counts.get(name, 0) + 1
        for handler in self.handlers(type(event)):
            try:
                answer = handler(event)
                if inspect.isawaitable(answer):
                    await answer
            except Exception:
                log.exception("dorf: a handler of %s failed", name)

    @staticmethod
    async def _run(answer: Awaitable[None], name: str) -> None:
        try:
            await answer
        except Exception:
            log.exception("dorf: a handler of %s failed", name)


__all__ = ["Ending", "Event", "Events", "GameChanged", "GameCreated", "GameEnded", "SeatTaken"]
