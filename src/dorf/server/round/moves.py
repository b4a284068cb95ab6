"""Making a move, and taking moves back in a practice game (lila's ``MovePlayer`` and ``Takebacker``).

One path for every game and every storage: a move is parsed once into the
engine's decision (:mod:`~dorf.server.protocol.messages`), made once (the engine
checks it as it makes it: :meth:`~dorf.server.round.session.GameSession.apply`),
stored (:meth:`~dorf.server.storage.base.Storage.commit`: written behind on a
server alone, stored first by compare-and-set on a shared database), and then
told to every client of the game as a delta of its own view.  If the storage
does not take it, it is taken back and the game is as before: no client ever
heard of it.  If another server changed the game first, the game is read
again and the move made anew (at most :data:`MAX_RACES` times).

The client that made a change hears ``ok`` once it is made and told, and
``saved`` once it is in the database.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Awaitable, Callable
from functools import partial
from typing import Protocol

from dorf.server.protocol.messages import Move, ProtocolError
from dorf.server.protocol.views import Json
from dorf.server.round.clients import Connection
from dorf.server.round.events import Events, GameChanged
from dorf.server.round.fanout import Fanout
from dorf.server.round.finisher import Finisher
from dorf.server.round.game import Game
from dorf.server.round.session import GameSession
from dorf.server.storage.base import MOVE, UNDO, Change, Conflict, Storage, StorageError, Stored

log = logging.getLogger("dorf.server")

#: How often a change is tried again when another server changed the game first.
MAX_RACES = 8


class Thinkers(Protocol):
    """What the mover asks of the computer seats (:class:`~dorf.server.computer.seats.ComputerSeats`)."""

    def thinker(self, session: GameSession) -> str | None: ...

    def kick(self, game: Game) -> None: ...

    def cancel(self, game_id: str) -> None: ...


class Mover:
    """Moves and undos of the games in memory."""

    def __init__(
        self,
        storage: Storage,
        fanout: Fanout,
        finisher: Finisher,
        events: Events,
        computer: Thinkers,
        now: Callable[[], float],
        reread: Callable[[Game], Awaitable[None]],
        refollow: Callable[[Game], None],
        lost: Callable[[Game, BaseException], None],
    ) -> None:
        """``reread`` reads a game again as stored (its lock held), ``refollow`` does so once its
        lock is free, ``lost`` lets a game whose change the storage refused for good go."""
        self.storage = storage
        self.fanout = fanout
        self.finisher = finisher
        self.events = events
        self.computer = computer
        self.now = now
        self.reread = reread
        self.refollow = refollow
        self.lost = lost
        #: Per game, the clients to tell ``saved`` at the next turn of the event loop.
        self._saving: dict[Game, set[Connection]] = {}

    async def move(self, game: Game, move: Move, by: Connection | None = None) -> Json:
        """Make ``move``, store it, tell everyone; returns its record entry (marked ``again`` if a
        move with its key was made for its seat already).  ProtocolError, and no change, if it may
        not be made or the storage does not take it."""
        late = False
        for _ in range(MAX_RACES):
            async with game.lock:
                again = game.made_before(move)
                if again is not None:
                    return again
                self._check(game)
                session = game.session
                clock, now = session.clock, self.now()
                if clock is not None and not session.is_over and clock.due(now) is not None:
                    late = True  # a seat's time ran out before the move came: the clock ends it
                    break
                number = len(session.decisions) + 1
                before = None if clock is None else clock.copy()
                entry = session.apply(move)
                if clock is not None:
                    clock.decided(move.seat, now, session.waiting())
                change = Change(
                    game.id,
                    session.version,
                    MOVE,
                    move.seat,
                    number,
                    entry,
                    session.is_over,
                    key=move.key,
                    thinker=self.computer.thinker(session),
                    clock=None if clock is None else clock.stored(),
                    deadline=None if clock is None else clock.deadline(),
                )
                try:
                    stored = await self._store(game, change, taken_back=1)
                except BaseException:
                    session.clock = before
                    raise
                if stored is None:
                    session.clock = before
                    continue  # another server changed the game first: read again, check again
                game.remember_key(move.seat, move.key, number)
                break
        else:
            raise ProtocolError("busy", "the game changed too often to make the move now: try again", 503)
        if late:
            await self.finisher.due(game)
            ending = game.session.ending
            raise ProtocolError(
                "game-over", f"the game is over: {'it ended' if ending is None else ending.end}", 409
            )
        assert stored is not None
        self.told(game, stored, by)
        if game.session.is_over:
            await self.finisher.finished(game)
        return entry

    async def undo(self, game: Game, seat: int, by: Connection | None = None) -> int:
        """Take back ``seat``'s last decision and the computer's after it (practice games): how
        many decisions were taken back."""
        for _ in range(MAX_RACES):
            async with game.lock:
                session = game.session
                count = session.undo_count(seat)
                self._check(game)
                keep = len(session.decisions) - count
                change = Change(game.id, session.version + 1, UNDO, seat, keep=keep)
                stored = await self._store(game, change, taken_back=0)
                if stored is None:
                    continue
                session.take_back(count)
                game.forget_keys(keep)
                for task in game.thinking.values():
                    task.cancel()
                self.computer.cancel(game.id)
                break
        else:
            raise ProtocolError("busy", "the game changed too often to undo now: try again", 503)
        self.told(game, stored, by)
        return count

    def _check(self, game: Game) -> None:
        try:
            self.storage.check(game.unsaved)
        except StorageError as exc:
            raise ProtocolError("storage", f"the move was not made: {exc}", 503) from None

    async def _store(self, game: Game, change: Change, taken_back: int) -> Stored | None:
        """Store ``change`` (its game's lock held); if it is not stored, take back the
        ``taken_back`` decisions made for it in memory: None if another server changed the game
        first (it is read again), ProtocolError if the storage cannot take it now."""
        try:
            return await self.storage.commit(change)
        except BaseException as exc:
            if taken_back:
                game.session.take_back(taken_back, counted=False)
            if isinstance(exc, Conflict):
                await self.reread(game)
                return None
            # Whether a shared database stored it before the answer was lost is not known here:
            # the game is read again once its lock is free.
            self.refollow(game)
            if isinstance(exc, StorageError):
                raise ProtocolError(
                    "storage", f"the move was not made: the database refused it ({exc})", 503
                ) from None
            raise

    def told(self, game: Game, stored: Stored, by: Connection | None) -> None:
        """A change of ``game`` is made and taken by the storage: tell every client, tell its maker
        once it is stored, and let the computer seats that must decide think;
        :class:`~dorf.server.round.events.GameChanged` is published (the clocks take its deadline)."""
        game.changed = time.monotonic()
        game.lease = stored.thinks
        game.unsaved += 1
        stored.saved.add_done_callback(partial(self._saved, game, by))
        self.fanout.broadcast(game)
        if game.session.is_over:
            self.computer.cancel(game.id)
        self.computer.kick(game)
        self.events.publish(GameChanged(game))

    def _saved(self, game: Game, by: Connection | None, saved: asyncio.Future[int]) -> None:
        """A change of ``game`` is stored (or refused for good): whoever made it hears ``saved``
        at the next turn of the event loop, with every other change stored meanwhile."""
        game.unsaved -= 1
        if saved.cancelled():
            return
        error = saved.exception()
        if error is not None:
            self.lost(game, error)
            return
        game.saved_version = max(game.saved_version, saved.result())
        movers = self._saving.get(game)
        if movers is None:
            movers = self._saving[game] = set()
            asyncio.get_running_loop().call_soon(self._tell_saved, game)
        if by is not None:
            movers.add(by)

    def _tell_saved(self, game: Game) -> None:
        """Tell the clients whose changes were stored meanwhile, once each."""
        movers = self._saving.pop(game, set())
        game.stored_up_to(game.saved_version)
        self.fanout.saved(game, game.saved_version, sorted(movers, key=lambda c: c.number))
