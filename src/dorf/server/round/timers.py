"""The deadlines of the clocks: a priority queue, and one task that sleeps until the earliest.

Every clocked game that is not over has one live deadline (the earliest of its
running seats': :meth:`~dorf.server.round.clock.Clock.deadline`).
:meth:`Timers.set` pushes a game's new deadline on a heap (``heapq``) and
remembers it as the game's live one; an older entry of the game stays in the
heap and is dropped when it comes to the top (lazy deletion), and the heap is
rebuilt from the live entries when the dead ones outnumber them.  One task
sleeps until the earliest live deadline (woken when an earlier one is pushed);
when it passes, the game is read (from memory, else from the storage) and
:meth:`Finisher.due <dorf.server.round.finisher.Finisher>` ends it on time or
aborts it, if its clock still says so.

**Cost per live game**: O(log n) for each decision (one push, one pop later),
and nothing while the clocks tick: nothing loops over the games.  The page
counts down by itself from the clock in the game's description.

The deadlines come from this server's own changes, from the changes it hears
from the other servers (each carries its game's deadline, so a server knows
the deadlines of games it does not hold), and, once at start, from the storage
(:meth:`~dorf.server.storage.base.Storage.deadlines`: the unfinished games whose
clocks run), so a restarted server, or the one left when another died, ends
every game whose time runs out.  With several servers, each may try to end a
game at its deadline; the end is stored by compare-and-set on the game's
version, so exactly one does (:mod:`~dorf.server.round.finisher`).
"""

from __future__ import annotations

import asyncio
import contextlib
import heapq
import logging
from collections.abc import Awaitable, Callable

from dorf.server.protocol.messages import ProtocolError
from dorf.server.round.game import Broken, Game
from dorf.server.storage.base import StorageError

log = logging.getLogger("dorf.server")

#: The longest the task sleeps at once, in seconds of the clocks' time (it wakes for nothing).
MAX_SLEEP = 3600.0


class Timers:
    """The live deadline of every clocked game this server knows of (see the module)."""

    def __init__(
        self,
        now: Callable[[], float],
        game: Callable[[str], Awaitable[Game | Broken]],
        due: Callable[[Game], Awaitable[bool]],
        scale: float = 1.0,
    ) -> None:
        """``game`` finds a game by id (the cache's), ``due`` ends it if its clock says so (the
        finisher's)."""
        self.game = game
        self.due_end = due
        self.now = now
        #: How much faster than real time the clocks run (tests only: ``--clock-scale``).
        self.scale = scale
        self._heap: list[tuple[float, str, int]] = []
        #: The live (deadline, version) of each game.
        self._live: dict[str, tuple[float, int]] = {}
        self._wake = asyncio.Event()
        self._task: asyncio.Task[None] | None = None
        self._ending: set[asyncio.Task[None]] = set()
        #: Deadlines that came (a game ended or found not due), and pushes.
        self.fired = 0
        self.pushed = 0

    def __len__(self) -> int:
        return len(self._live)

    def start(self) -> None:
        self._task = asyncio.get_running_loop().create_task(self._run())

    async def close(self) -> None:
        if self._task is not None:
            self._task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._task
        for task in list(self._ending):
            task.cancel()

    def set(self, game_id: str, deadline: float | None, version: int) -> None:
        """``game_id``'s live deadline is now ``deadline`` (None: none, the game is over or its
        clock does not run) at ``version``."""
        if deadline is None:
            self._live.pop(game_id, None)
            return
        live = self._live.get(game_id)
        if live is not None and live[1] > version:
            return  # a newer one is known already
        self._live[game_id] = (deadline, version)
        heap = self._heap
        earliest = heap[0][0] if heap else None
        heapq.heappush(heap, (deadline, game_id, version))
        self.pushed += 1
        if len(heap) > 2 * len(self._live) + 64:  # more dead entries than live: rebuild
            self._heap = [(d, g, v) for g, (d, v) in self._live.items()]
            heapq.heapify(self._heap)
        if earliest is None or deadline < earliest:
            self._wake.set()

    def follow(self, game: Game) -> None:
        """Take ``game``'s deadline as its session has it now."""
        session = game.session
        clock = session.clock
        if clock is None:
            return
        self.set(game.id, None if session.is_over else clock.deadline(), session.version)

    def earliest(self) -> float | None:
        """The earliest live deadline (dead entries at the top dropped)."""
        heap = self._heap
        while heap and self._live.get(heap[0][1]) != (heap[0][0], heap[0][2]):
            heapq.heappop(heap)
        return heap[0][0] if heap else None

    def due(self) -> list[str]:
        """Take off the heap the games whose live deadline has passed."""
        now = self.now()
        games: list[str] = []
        while (earliest := self.earliest()) is not None and earliest <= now:
            _, game_id, _ = heapq.heappop(self._heap)
            del self._live[game_id]
            games.append(game_id)
        return games

    async def fire(self) -> int:
        """End (or look again at) every game whose deadline has passed, and wait for those the
        task took already: how many this call took (tests call it, having moved their time on)."""
        games = self.due()
        await asyncio.gather(*(self._end(game_id) for game_id in games), *list(self._ending))
        return len(games)

    async def _run(self) -> None:
        while True:
            earliest = self.earliest()
            if earliest is None:
                await self._wake.wait()
                self._wake.clear()
                continue
            wait = min(MAX_SLEEP, earliest - self.now()) / self.scale
            if wait > 0:
                self._wake.clear()
                with contextlib.suppress(TimeoutError):
                    await asyncio.wait_for(self._wake.wait(), wait)
                continue
            for game_id in self.due():
                task = asyncio.get_running_loop().create_task(self._end(game_id))
                self._ending.add(task)
                task.add_done_callback(self._ending.discard)

    async def _end(self, game_id: str) -> None:
        """The deadline of ``game_id`` passed: end it if its clock says so, else take its deadline
        again (it moved: another server's change not yet heard)."""
        self.fired += 1
        try:
            game = await self.game(game_id)
            if isinstance(game, Broken):
                return
            await self.due_end(game)
        except (ProtocolError, StorageError) as exc:
            log.warning("dorf: the clock of game %s could not be checked: %s", game_id, exc)
            self.set(game_id, self.now() + 1.0, -1)  # try again in a second
            return
        self.follow(game)
