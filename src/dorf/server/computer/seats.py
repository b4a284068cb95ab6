"""The computer seats of the games in memory, and the coach's hints and the replays they share
the workers with.

A computer seat that must decide thinks in the pool (:mod:`~dorf.server.computer.pool`),
from what its seat may see (its game's record without another seat's pending
placement), after a pause (``--ai-delay``) so people can follow; its answer is
made like any move (:mod:`~dorf.server.round.moves`).  A move the storage
cannot take now is tried again, a little later each time; a game changed by
another server meanwhile is thought about again.  With several servers on one
database only the one that holds a game's lease thinks for it.

A computer seat on a real-time clock thinks within it (issue 60): what one decision may take
is :func:`~dorf.server.computer.thinking.clock_allowance` of the time left on the seat's clock
(for its first decision, the time left to make it before the game is aborted), in real seconds
(``--clock-scale``).  The pause before it is at most a quarter of that, the level thinks at
most half of it (and never longer than its usual budget), an answer that is not back in time
is dropped, and with less than :data:`~dorf.server.computer.thinking.FAST_SECONDS` to think,
or no answer in time, the seat plays greedy at once: it never loses on time to a fast person.

A ``cmd:`` seat (``--allow-bot-commands``) is a program, shown exactly what
that seat's page shows, within its clock.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Awaitable, Callable, Mapping
from typing import TYPE_CHECKING, Any

from dorf.server.computer import hints
from dorf.server.computer.pool import BUDGET_SHARE, HINTS, REPLAYS, Overrun, Refused, ThinkError, ThinkPool
from dorf.server.computer.thinking import FAST_SECONDS, clock_allowance, think
from dorf.server.protocol.messages import Move, ProtocolError, parse_move
from dorf.server.protocol.requests import InFlight
from dorf.server.protocol.views import Json
from dorf.server.round.game import Game
from dorf.server.round.seats import COMMAND_PREFIX
from dorf.server.round.session import COMPUTER, GameSession, computer_seed
from dorf.server.storage.base import Storage

if TYPE_CHECKING:
    from dorf.server.config import ServerConfig

log = logging.getLogger("dorf.server")

#: Longest wait between two tries of a computer move that could not be stored, in seconds.
MAX_RETRY = 30.0
#: Hints (replays) being computed at most, per worker of the pool (waiting or running); one
#: more is refused as busy.  One address has one of each at a time.
HINTS_PER_WORKER, REPLAYS_PER_WORKER = 2, 4
#: The longest a hint (a replay) may take, in seconds (at least ``ai_max_seconds``).
HINT_SECONDS, REPLAY_SECONDS = 10.0, 10.0
#: Of what a decision on a clock may take: at most this share waits (``--ai-delay``), and at
#: most this share is the level's thinking (the rest is the queue, the replay, the storing).
DELAY_SHARE, THINK_SHARE = 0.25, 0.5
#: How long, as a share of what a decision on a clock may take, its level's answer is waited for
#: (queue and all) before the seat plays greedy instead.
WAIT_SHARE = 0.75


class ComputerSeats:
    """Thinking for the computer seats of the games in memory."""

    def __init__(
        self,
        config: ServerConfig,
        storage: Storage,
        pool: ThinkPool,
        games: Mapping[str, Game],
        now: Callable[[], float],
        move: Callable[[Game, Move], Awaitable[Any]],
        background: Callable[[Awaitable[Any]], None],
    ) -> None:
        """``games`` are the games in memory (the cache's), ``move`` makes a computer's move (the
        mover's)."""
        self.config = config
        self.storage = storage
        self.pool = pool
        self.games = games
        self.now = now
        self.move = move
        self.background = background
        #: Hints and replays asked for and not yet answered: one per address, a few per worker.
        self._hints = InFlight("hint", HINTS_PER_WORKER * pool.size)
        self._replays = InFlight("replay", REPLAYS_PER_WORKER * pool.size)
        #: Programs of ``cmd:`` seats being stopped (:meth:`end_bots`).
        self._bot_ends: set[asyncio.Future[None]] = set()
        #: Computer decisions thought on this server, and those played greedy as time ran short.
        self.thoughts = 0
        self.hurried = 0

    def thinker(self, session: GameSession) -> str | None:
        """This server, if a computer seat must decide now in ``session`` (it will think)."""
        if any(session.seats[seat].kind == COMPUTER for seat in session.waiting()):
            return self.storage.instance
        return None

    def kick(self, game: Game) -> None:
        """Start a computer player for every computer seat that must decide now (with several
        servers, only on the one that holds the game's lease to think)."""
        session = game.session
        if session.is_over and game.bots:
            self.end_bots(game)
        if session.is_over or self.games.get(game.id) is not game or not game.lease:
            return
        for seat in session.waiting():
            if session.seats[seat].kind == COMPUTER and seat not in game.thinking:
                game.thinking[seat] = asyncio.get_running_loop().create_task(self._think(game, seat))

    def thinking(self, game_id: str) -> list[int]:
        game = self.games.get(game_id)
        return sorted(game.thinking) if game is not None else []

    def cancel(self, game_id: str) -> None:
        """Stop thinking for ``game_id`` in the pool (its jobs waiting or running)."""
        self.pool.cancel(game_id)

    def claim(self, game: Game) -> None:
        """Take the lease to think for the game's computer seats if one must decide and nobody
        holds it (or its holder let it run out): then think here."""
        session = game.session
        if game.lease or game.thinking or session.is_over or self.thinker(session) is None:
            return

        async def claim() -> None:
            version = game.session.version
            if await self.storage.claim_thinking(game.id, version) and game.session.version == version:
                game.lease = True
                self.kick(game)

        self.background(claim())

    async def _think(self, game: Game, seat: int) -> None:
        spec = game.session.seats[seat].player or "greedy"
        moved = False
        try:
            delay = self.config.ai_delay
            allowed = self.allowance(game, seat)
            await asyncio.sleep(delay if allowed is None else min(delay, DELAY_SHARE * allowed))
            answer: Move | None = None
            epoch = (-1, -1)
            delay = 0.5
            while not (session := game.session).is_over and seat in session.waiting():
                now_at = (id(session), session.epoch)  # a new session: read again after a change elsewhere
                if answer is None or epoch != now_at:  # thought before an undo
                    epoch = now_at
                    answer = await self._answer(game, seat, spec)
                    continue
                try:
                    await self.move(game, answer)
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
                        answer = any_decision(session, seat)
                    else:
                        return
        finally:
            if game.thinking.get(seat) is asyncio.current_task():
                del game.thinking[seat]
            if moved:
                self.kick(game)

    def allowance(self, game: Game, seat: int) -> float | None:
        """The real seconds the computer of ``seat`` may take for the decision it owes, from its
        real-time clock (None: no such clock runs for it; see the module)."""
        clock = game.session.clock
        if clock is None or clock.spec.days is not None or not clock.started:
            return None
        deadline = clock.deadline_of(seat)
        if deadline is None:
            return None
        left = max(0.0, deadline - self.now())  # its time, or the window of its first decision
        return clock_allowance(left, clock.spec.increment) / self.config.clock_scale

    async def _answer(self, game: Game, seat: int, spec: str) -> Move:
        """What the computer of ``seat`` plays, from what its seat may see; greedy if it fails."""
        if spec.startswith(COMMAND_PREFIX):
            return await self._bot_answer(game, seat, spec)
        session = game.session
        record = session.visible_record(seat)
        player = session.player_of[seat]
        seed = computer_seed(session.seed, len(record["decisions"]), player)
        allowed = self.allowance(game, seat)
        try:
            if allowed is None:
                answer = await self.pool.think(game.id, record, player, spec, seed)
            else:
                answer = await self._on_clock(game, record, player, spec, seed, allowed)
        except ThinkError as exc:
            log.warning(
                "dorf: %s (%s) in game %s: %s; it plays greedy", session.name(seat), spec, game.id, exc
            )
            answer = await asyncio.to_thread(think, record, player, "greedy", seed)
        return parse_move({**answer, "seat": seat})

    async def _on_clock(
        self, game: Game, record: Json, player: int, spec: str, seed: int, allowed: float
    ) -> Json:
        """The decision of a computer seat that may take ``allowed`` real seconds: its level
        thinking within them, or greedy at once (too little time, or no answer in time)."""
        budget = min(self.pool.max_seconds * BUDGET_SHARE, THINK_SHARE * allowed)
        if budget >= FAST_SECONDS:
            args = {"record": record, "player": player, "spec": spec, "seed": seed, "seconds": budget}
            asked = self.pool.run(game.id, "think", args, self.pool.max_seconds)
            with contextlib.suppress(TimeoutError, ThinkError):  # too late, or failed: greedy
                return await asyncio.wait_for(asked, WAIT_SHARE * allowed)
        self.hurried += 1
        return await asyncio.to_thread(think, record, player, "greedy", seed)

    async def _bot_answer(self, game: Game, seat: int, spec: str) -> Move:
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
                return any_decision(session, seat)
            player = session.player_of[seat]

            def say(text: str, game_id: str = game.id) -> None:
                log.warning("%s (game %s)", text, game_id)

            seed = computer_seed(session.seed, 0, player)  # one way: it tells nothing of the tiles
            bot = game.bots[seat] = commands.make(spec, session.mode, seat, seed, say)
        try:
            answer = await asyncio.to_thread(bot.decide, session.document([seat]), seat)
            return parse_move({**answer, "seat": seat})
        except ValueError:
            return any_decision(session, seat)

    def end_bots(self, game: Game) -> None:
        """Stop the programs of the game's ``cmd:`` seats, in threads (each waits for a decision
        under way, at most its clock), telling them the final view if the game is over."""
        session = game.session
        for seat, bot in list(game.bots.items()):
            final = session.document([seat]) if session.is_over else None
            ending = asyncio.ensure_future(asyncio.to_thread(bot.end, final))
            self._bot_ends.add(ending)
            ending.add_done_callback(self._bot_ends.discard)
        game.bots.clear()

    async def close(self) -> None:
        """Wait for the programs being stopped."""
        if self._bot_ends:
            await asyncio.wait(self._bot_ends)

    # --- the coach's hints and the replays --------------------------------------------------

    async def hint(self, game: Game, seat: int, address: str = "unknown") -> Json:
        """The coach's hint for ``seat`` from what the seat may see, computed in the pool's
        workers (busy, HTTP 429, if ``address`` waits for one already or the queue is full)."""
        session = game.session
        record = session.visible_record(seat)
        player = session.player_of[seat]
        seed = computer_seed(session.seed, len(record["decisions"]), player)
        args = {"record": record, "player": player, "seed": seed, "spec": hints.HINT_PLAYER}
        with self._hints.hold(address):
            return await self.work(HINTS, "hint", args, HINT_SECONDS)

    async def replay(self, record: Json, address: str = "unknown") -> Json:
        """The replay viewer's steps of ``record``, computed in the pool's workers (busy, HTTP
        429, if ``address`` waits for one already or the queue is full)."""
        with self._replays.hold(address):
            return await self.work(REPLAYS, "replay", {"record": record}, REPLAY_SECONDS)

    async def work(self, queue: str, kind: str, args: Json, seconds: float) -> Json:
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


def any_decision(session: GameSession, seat: int) -> Move:
    """A legal decision for ``seat``, for when a computer player's answer is refused."""
    return Move(seat, session.state.legal_decisions(session.player_of[seat])[0])
