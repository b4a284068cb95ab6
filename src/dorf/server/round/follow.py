"""Following the other servers of one database: what another server stored is heard on the bus
(:class:`~dorf.server.storage.bus.Bus`); a game held here follows the change (or is read again
if it does not follow on), and its clients here are told.  When notifications may have been
missed, every game in memory is compared with the database."""

from __future__ import annotations

import logging
import time
from collections.abc import Awaitable, Callable
from typing import Any, Protocol

from dorf.formats.record import read_decision
from dorf.server.protocol.messages import Move, ProtocolError
from dorf.server.round.cache import GameCache
from dorf.server.round.clock import Clock
from dorf.server.round.fanout import Fanout
from dorf.server.round.game import Game
from dorf.server.round.session import GameSession
from dorf.server.round.timers import Timers
from dorf.server.storage.base import END, MOVE, UNDO, Change, Storage, StorageError

log = logging.getLogger("dorf.server")


class Seats(Protocol):
    """What following asks of the computer seats."""

    def claim(self, game: Game) -> None: ...

    def cancel(self, game_id: str) -> None: ...


class Follower:
    """The changes other servers made to the games this one holds (see the module)."""

    def __init__(
        self,
        storage: Storage,
        cache: GameCache,
        fanout: Fanout,
        timers: Timers,
        computer: Seats,
        background: Callable[[Awaitable[Any]], None],
    ) -> None:
        self.storage = storage
        self.cache = cache
        self.fanout = fanout
        self.timers = timers
        self.computer = computer
        self.background = background
        #: Games another server changed while this one was reading them.
        self._stale: set[str] = set()

    def loaded(self, game: Game) -> None:
        """``game`` was read from the storage: take its deadline; follow what another server
        changed meanwhile, else think for its computers if nobody does."""
        self.timers.follow(game)
        if game.id in self._stale:  # another server changed it while it was read
            self._stale.discard(game.id)
            self.later(game)
        else:
            self.computer.claim(game)

    def later(self, game: Game) -> None:
        """Read ``game`` again once its lock is free (a change whose fate is not known)."""
        self.background(self.follow(game, None))

    def heard(self, change: Change) -> None:
        """Another server stored a change: follow it if the game is here."""
        game = self.cache.games.get(change.game)
        if game is not None:
            self.background(self.follow(game, change))
        elif self.cache.loading(change.game):
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
                    await self.cache.reread(game)
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
            self.computer.cancel(game.id)

    def resync(self) -> None:
        """Notifications may have been missed (the listener was cut off): compare every game
        here with the database, and read again those another server changed."""
        self.background(self._resync())

    async def _resync(self) -> None:
        ids = list(self.cache.games)
        try:
            stored = await self.storage.versions(ids)
        except StorageError as exc:
            log.warning("dorf: the games in memory could not be compared with the database: %s", exc)
            return
        for game_id, version in stored.items():
            game = self.cache.games.get(game_id)
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


__all__ = ["Follower"]
