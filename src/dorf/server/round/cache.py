"""The games in memory (lila's ``GameProxyRepo``): read from the storage when asked for, let go
when idle.

Only games in use are in memory.  A game is read from the storage and replayed
when someone asks for it (nothing is read at start, so start-up does not grow
with the database); it leaves memory when nobody has used it for
``idle_seconds`` (no client connected, no computer thinking), or when more than
``games_in_memory`` games are held (the least recently used first).  A game of
computers that nobody watches stops thinking when it leaves, and goes on when
someone opens it again.

**Damaged games** (rows that cannot be read or replayed) are held as
:class:`~dorf.server.round.game.Broken`: shown with the reason, never played;
one log line each.
"""

from __future__ import annotations

import asyncio
import logging
import re
import time
from collections import OrderedDict
from collections.abc import Callable
from typing import Protocol

from dorf.server.protocol.messages import ProtocolError
from dorf.server.round.game import REPLAY_ERRORS, Broken, Game, loaded, replayed, seat_specs
from dorf.server.round.session import COMPUTER
from dorf.server.storage.base import DamagedGame, Storage, StorageError

log = logging.getLogger("dorf.server")

#: A game id as the server makes them (:func:`~dorf.server.round.seats.new_game_id`), or a little longer.
GAME_ID = re.compile(r"[A-Za-z0-9_-]{1,64}")


class Seats(Protocol):
    """What the cache asks of the computer seats (:class:`~dorf.server.computer.seats.ComputerSeats`)."""

    def claim(self, game: Game) -> None: ...

    def cancel(self, game_id: str) -> None: ...

    def end_bots(self, game: Game) -> None: ...


class GameCache:
    """The games this server holds in memory, and the broken ones (see the module)."""

    def __init__(
        self,
        storage: Storage,
        games_in_memory: int,
        today: Callable[[], str],
        loaded: Callable[[Game], None],
        computer: Seats,
        games: OrderedDict[str, Game] | None = None,
    ) -> None:
        """``today`` is the date every game learns (the challenge's clock), ``loaded`` hears each
        game read from the storage (the clocks take its deadline, another server's change heard
        meanwhile is followed); ``games`` is the mapping it holds them in (the computer seats
        read it too)."""
        self.storage = storage
        self.games_in_memory = games_in_memory
        self.today = today
        self.loaded = loaded
        self.computer = computer
        self.games: OrderedDict[str, Game] = OrderedDict() if games is None else games
        self.broken: dict[str, Broken] = {}
        self._loading: dict[str, asyncio.Future[Game | Broken]] = {}

    def __len__(self) -> int:
        return len(self.games)

    def loading(self, game_id: str) -> bool:
        """Whether ``game_id`` is being read now."""
        return game_id in self._loading

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
        self.loaded(game)
        return game

    def _mark_broken(self, broken: Broken) -> Broken:
        self.broken[broken.id] = broken
        log.error("dorf: game %s is broken: %s", broken.id, broken.reason)
        return broken

    def hold(self, game: Game) -> None:
        """Keep ``game`` in memory (letting idle ones go beyond ``games_in_memory``)."""
        game.session.today = self.today
        self.games[game.id] = game
        self.games.move_to_end(game.id)
        extra = len(self.games) - self.games_in_memory
        for old in list(self.games.values()):
            if extra <= 0:
                break
            if old is not game and self._idle(old):
                self.drop(old)
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
            and not computer_on_the_clock(game)
        )

    def drop(self, game: Game) -> None:
        """Let a game leave memory (it stays in the storage): its computers stop thinking."""
        for task in game.thinking.values():
            task.cancel()
        self.computer.cancel(game.id)
        self.computer.end_bots(game)
        self.games.pop(game.id, None)

    def sweep(self, idle: float, lease: float) -> None:
        """Let go of the games nobody has used for ``idle`` seconds, and think for the games whose
        thinker let its lease (``lease`` seconds) run out."""
        cutoff = time.monotonic() - idle
        for game in list(self.games.values()):
            quiet = not game.connections and not game.lock.locked() and not game.unsaved
            if game.used < cutoff and quiet and not computer_on_the_clock(game):
                self.drop(game)  # left alone: computers of an unwatched game stop too
            elif time.monotonic() - game.changed > lease:
                self.computer.claim(game)  # whoever held the lease to think stopped, or died

    def lost(self, game: Game, error: BaseException) -> None:
        """The storage refused a change of ``game`` for good: let the game go from memory, so that
        it is read again as stored, and close its clients (they connect again)."""
        if self.games.get(game.id) is game:
            self.drop(game)
        for conn in list(game.connections):
            conn.send({"type": "error", "code": "storage", "message": f"a change was not stored: {error}"})
            conn.close()

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
        game.session.today = self.today
        game.take_stored(stored)


def computer_on_the_clock(game: Game) -> bool:
    """Whether a computer seat of the game must decide while its clock runs: the game stays
    in memory, thinking (else its computer would lose on time for nobody watching)."""
    session = game.session
    if session.clock is None or session.is_over:
        return False
    return any(session.seats[seat].kind == COMPUTER for seat in session.waiting())


__all__ = ["GAME_ID", "GameCache", "computer_on_the_clock"]
