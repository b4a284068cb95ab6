"""Every way a game ends, through one door (lila's ``Finisher``).

A game ends by its last decision (``normal``: the rules decide who won), by a
seat's time running out (``time``: the other seat wins), by a seat resigning
(``resign``: the other wins), or because a seat never made its first decision
(``aborted``: nobody wins, never rated).  A rated game that a seat resigns, or
loses on time, before each seat has made a decision is aborted too
(:func:`too_few_moves`: a game of no moves rates nobody, issue 60).  Whichever it is, :class:`Finisher`
tells :class:`~dorf.server.round.events.GameEnded` once with the game and its
:class:`Ending` (the ratings and the lobby subscribe to it), on the one
server that stored the end: an end other than the last decision is stored as
a change of its own (``end``), by compare-and-set on the game's version on a
shared database, so when two servers both see a clock run out only one of
them stores it, and the other reads the game again and finds it over.

The end and its winner are in what the clients see (``"end"`` and
``"winner"`` in the game's description) and in the record the server gives
out (``"end"``, ``"winner"``: see ``docs/server.md``).
"""

from __future__ import annotations

import logging
import time
from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING

from dorf.server.protocol.messages import ProtocolError
from dorf.server.round.clock import versus
from dorf.server.round.ending import Ending
from dorf.server.round.events import Events, GameEnded
from dorf.server.storage.base import END, Change, Conflict, Storage, StorageError, Stored

if TYPE_CHECKING:
    from dorf.server.round.clients import Connection
    from dorf.server.round.game import Game

log = logging.getLogger("dorf.server")


#: How a game ended.
NORMAL, TIME, RESIGN, ABORTED = "normal", "time", "resign", "aborted"
ENDS = (NORMAL, TIME, RESIGN, ABORTED)
#: How often an end is tried again when another server changed the game first.
MAX_RACES = 8


def is_rated(game: Game) -> bool:
    """Whether the game was created rated (the players' business: ``session.rated``)."""
    return game.session.rated


def too_few_moves(game: Game) -> bool:
    """Whether a rated game has too few moves to be rated: some seat has made no decision yet
    (lichess aborts a game of fewer than two moves, one each; the clock aborts a game whose
    first decision never comes).  Ended so by a resignation or on time, it is aborted."""
    session = game.session
    return is_rated(game) and not set(range(len(session.seats))) <= set(session.deciders)


class Finisher:
    """Ends games (time, resign, abort) and tells every end once (see the module)."""

    def __init__(
        self,
        storage: Storage,
        events: Events,
        now: Callable[[], float],
        reread: Callable[[Game], Awaitable[None]],
        refollow: Callable[[Game], None],
        told: Callable[[Game, Stored, Connection | None], None],
    ) -> None:
        """``reread`` reads a game again as stored (its lock held), ``refollow`` does so once its
        lock is free, ``told`` tells a stored change of a game (the mover's)."""
        self.storage = storage
        self.events = events
        self.now = now
        self.reread = reread
        self.refollow = refollow
        self.told = told
        #: Games ended on this server, by how.
        self.counts: dict[str, int] = dict.fromkeys(ENDS, 0)

    def ending(self, game: Game, end: str, winner: int | None) -> Ending:
        return Ending(end, winner, end != ABORTED and is_rated(game))

    async def finished(self, game: Game) -> None:
        """The last decision of ``game`` was made and stored here: tell its end."""
        session = game.session
        if session.ending is None:
            session.ending = self.ending(game, NORMAL, session.winner())
        await self._tell(game, session.ending)

    async def end(
        self, game: Game, end: str, winner: int | None, still: Callable[[Game], bool] | None = None
    ) -> bool:
        """End ``game`` so (``time``, ``resign``, ``aborted``), if it is not over and ``still(game)``
        holds (checked again after another server's change): store it, tell the clients and
        the subscribers.  Whether this call ended it."""
        for _ in range(MAX_RACES):
            async with game.lock:
                session = game.session
                if session.is_over or (still is not None and not still(game)):
                    return False
                if end in (RESIGN, TIME) and too_few_moves(game):
                    end, winner = ABORTED, None
                ending = self.ending(game, end, winner)
                clock = session.clock
                stopped = None if clock is None else clock.stopped(self.now())
                change = Change(
                    game.id,
                    session.version + 1,
                    END,
                    -1 if winner is None else winner,
                    finished=True,
                    end=end,
                    winner=winner,
                    clock=None if stopped is None else stopped.stored(),
                )
                try:
                    stored = await self.storage.commit(change)
                except Conflict:
                    await self.reread(game)
                    continue
                except StorageError as exc:
                    self.refollow(game)
                    raise ProtocolError("storage", f"the end was not stored: {exc}", 503) from None
                session.version += 1
                session.ending = ending
                session.clock = stopped
                break
        else:
            raise ProtocolError("busy", "the game changed too often to end it now: try again", 503)
        game.changed = time.monotonic()
        self.told(game, stored, None)
        await self._tell(game, ending)
        return True

    async def due(self, game: Game) -> bool:
        """End ``game`` if its clock says so now: the seat out of time loses (``time``), or the
        game is aborted (a first decision that never came).  Whether this call ended it."""
        session = game.session
        clock = session.clock
        if clock is None or session.is_over:
            return False
        found = clock.due(self.now())
        if found is None:
            return False
        end, seat = found
        winner = None if end == ABORTED else 1 - seat

        def still(game: Game) -> bool:
            clock = game.session.clock
            return clock is not None and clock.due(self.now()) == found

        return await self.end(game, end, winner, still)

    async def resign(self, game: Game, seat: int) -> Ending:
        """``seat`` resigns: the other seat wins.  ProtocolError if the game is over already or
        has no other side."""
        session = game.session
        if len(session.seats) != 2 or not versus(session.mode):
            raise ProtocolError(
                "bad-message", "only a game of two sides (the Duel, Head to Head) is resigned"
            )
        if session.is_over:
            raise ProtocolError("game-over", "the game is over already: a finished game never changes", 409)
        if not await self.end(game, RESIGN, 1 - seat, lambda game: not game.session.is_over):
            raise ProtocolError("game-over", "the game ended meanwhile", 409)
        ending = game.session.ending
        assert ending is not None
        return ending

    async def _tell(self, game: Game, ending: Ending) -> None:
        self.counts[ending.end] += 1
        await self.events.tell(GameEnded(game, ending))


__all__ = [
    "ABORTED",
    "ENDS",
    "MAX_RACES",
    "NORMAL",
    "RESIGN",
    "TIME",
    "Ending",
    "Finisher",
    "is_rated",
    "too_few_moves",
]
