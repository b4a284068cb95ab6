"""The daily challenge.  Each day (UTC) has one solo Board Game shuffle, the same
for every player; each player's first game of it counts, and the rest is practice.

- **The shuffle.** A day's seed is :func:`~dorf.server.daily.calendar.day_seed` of the day under
  the server's secret (made on the first start and kept in the database, so every server of a
  shared database derives the same seeds).  A game of the challenge carries its day
  (``session.daily``): its seed and record are shown once that day is over, not before, even
  when the game is finished (:meth:`GameSession.seed_public`).
- **One counted attempt.** ``POST /api/daily`` stores the player's attempt first (the key
  ``(day, player)``: of two started at once, on two servers, one is stored), then makes the game.
  A second start of the day, once the first is finished, is a practice game of the same shuffle
  (undo allowed, never ranked); while the first goes on it is refused (``daily-unfinished``:
  practice with undo would show the tiles to come of the attempt).  A past day is practice.
- **The score** of an attempt follows its game's moves (:meth:`Daily.changed`), so an attempt
  left unfinished counts with the score it had when its day ended.  Once a day is over it is
  closed: each attempt keeps its rank.
- **The expert computer** plays each day's shuffle once, in the think pool at its normal budget,
  one move a job (queue ``(daily)``), on the server that holds the day's lease (renewed each
  move: another server takes over if it dies).  Its score, the median and the coach's lessons
  are shown only to a player who has finished (and to everyone once the day is over).
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import secrets
import time
from collections.abc import Awaitable, Callable, Iterator
from typing import TYPE_CHECKING, Any

from dorf.formats.record import apply_decision, decision_entry, start_of
from dorf.games.modes import MODES
from dorf.players.levels import level_spec
from dorf.server.computer.lessons import lessons_in
from dorf.server.computer.pool import DAILY, LESSONS, ThinkError, ThinkPool
from dorf.server.daily.calendar import Today, day_seed, read_day, streak
from dorf.server.protocol.messages import ProtocolError, need_object
from dorf.server.round.events import GameChanged
from dorf.server.round.seats import GameOrigin, new_game_id, token_seats
from dorf.server.round.session import COMPUTER, HERE, computer_seed, record_head
from dorf.server.storage.base import MOVE, Change, Storage, StorageError, StoredGame, StoredSeat, now

if TYPE_CHECKING:
    from dorf.server.computer.seats import ComputerSeats
    from dorf.server.config import ServerConfig
    from dorf.server.players.accounts import Player
    from dorf.server.round.game import Game
    from dorf.server.round.seats import Seating
    from dorf.server.storage.daily import Result

log = logging.getLogger("dorf.server")
#: What a request for a game of the challenge that chooses its seed is told.
SEED_REFUSAL = "the daily challenge's seed is the server's: leave out seed"

#: The secret's name in ``server_secret``.
SECRET = "daily-seed"
#: The expert's game of a day is stored as a finished game of this id (its board is shown, as the
#: players' are, once the day is over): ``daily-expert-2026-12-05``, never one a server draws.
EXPERT_GAME = "daily-expert-{day}"
#: The name of the expert's seat on its board.
EXPERT_NAME = "Computer (expert)"
#: The attempts a day's leaderboard lists, and the days a player's page shows.
TOP, CALENDAR = 100, 60
#: How long a server holds the lease to play a day's expert game without a move, in seconds.
EXPERT_LEASE = 60.0
#: How often the challenge looks at the clock (a new day: close the last, play the expert's game).
TICK = 30.0
#: The longest one step of the coach's lessons may take, in seconds (a step takes about one).
LESSON_SECONDS = 60.0
#: Lessons computed at once at most, per worker of the think pool; one from an address, and one
#: from a player (a request for lessons being computed waits for them, and is not counted).
LESSONS_PER_WORKER = 2


def _unavailable(exc: StorageError) -> ProtocolError:
    return ProtocolError("storage", f"the daily challenge cannot be read or stored now ({exc})", 503)


class Daily:
    """The daily challenge of a server (see the module)."""

    def __init__(
        self,
        config: ServerConfig,
        storage: Storage,
        today: Today,
        seating: Seating,
        computer: ComputerSeats,
        pool: ThinkPool,
        background: Callable[[Awaitable[Any]], None],
    ) -> None:
        """``computer`` asks the pool for hints' and lessons' work, ``pool`` plays the expert's
        game and is cancelled for lessons no longer wanted."""
        self.config = config
        self.storage = storage
        self.seating = seating
        self.computer = computer
        self.pool = pool
        self.background = background
        self.today = today
        self.expert_spec = level_spec(config.daily_expert) or config.daily_expert
        self._secret: bytes | None = None
        #: The expert's score of the days it is known for, and the days it is played here.
        self._expert: dict[str, int] = {}
        #: Whether the expert's game of a day is stored (its board), by day.
        self._boards: dict[str, bool] = {}
        self._playing: dict[str, asyncio.Task[None]] = {}
        self._tried: dict[str, float] = {}
        self._checked = ""
        #: The last day someone asked for (its expert game is played once asked for).
        self._wanted = ""
        self._ticker: asyncio.Task[None] | None = None
        #: Lessons being computed, by game: a second request waits for the first.
        self._lessons: dict[str, asyncio.Future[list[Any]]] = {}
        #: The addresses and players whose lessons are being computed (:meth:`_asking`).
        self._addresses: set[str] = set()
        self._players: set[str] = set()
        self.counts = {"attempts": 0, "practice": 0, "expert": 0, "lessons": 0, "closed": 0}

    # --- start, stop, the clock --------------------------------------------------------------

    async def start(self) -> None:
        made = await self.storage.daily_secret(SECRET, secrets.token_hex(32))
        self._secret = bytes.fromhex(made)
        self._ticker = asyncio.get_running_loop().create_task(self._tick())

    async def close(self) -> None:
        for task in [self._ticker, *self._playing.values()]:
            if task is not None:
                task.cancel()
                with contextlib.suppress(BaseException):
                    await task

    async def _tick(self) -> None:
        while True:
            self.look(asked=False)
            await asyncio.sleep(TICK)

    def look(self, asked: bool = True) -> str:
        """Today; on a new day, close the days before it.  Once someone has ``asked`` for today's
        challenge (the front page does), play its expert game if nobody has."""
        today = self.today()
        if self._checked != today:
            self._checked = today
            self.background(self._close_days(today))
        if asked:
            self._wanted = today
        if self._wanted == today and today not in self._expert and today not in self._playing:
            last = self._tried.get(today, -1e9)
            if time.monotonic() - last > EXPERT_LEASE / 2:
                self._tried[today] = time.monotonic()
                task = asyncio.get_running_loop().create_task(self._expert_game(today))
                self._playing[today] = task
                task.add_done_callback(lambda _: self._playing.pop(today, None))
        return today

    async def _close_days(self, today: str) -> None:
        for day in await self.storage.daily_open_days(today):
            if await self.storage.daily_close(day):
                self.counts["closed"] += 1

    def seed(self, day: str) -> int:
        assert self._secret is not None, "the daily challenge has not started"
        return day_seed(self._secret, day)

    # --- the expert's game ----------------------------------------------------------------

    async def _expert_game(self, day: str) -> None:
        """Play ``day``'s shuffle with the expert computer, one move a job, holding the lease."""
        storage, instance = self.storage, self.storage.instance
        try:
            row = await storage.daily_day(day)
            if row.expert is not None:
                self._expert[day] = row.expert
                return
            seed = self.seed(day)
            record = record_head("coop", seed, ["Expert"], [])
            state = start_of(record)
            while not state.is_over:
                if not await storage.daily_claim_expert(day, instance, time.time(), EXPERT_LEASE):
                    return  # another server plays it
                number = len(record["decisions"])
                try:
                    answer = await self.pool.think(
                        DAILY, record, 0, self.expert_spec, computer_seed(seed, number, 0)
                    )
                    entry = {"player": 0, **answer}
                    apply_decision(state, number + 1, entry)
                except (ThinkError, ValueError) as exc:
                    log.warning(
                        "dorf: the daily expert's move %d failed (%s): its first legal move", number, exc
                    )
                    entry = decision_entry(0, state.legal_decisions(0)[0])
                    apply_decision(state, number + 1, entry)
                record["decisions"].append(entry)
            score = int(state.returns()[0])
            await self._store_expert(day, seed, record["decisions"])
            await storage.daily_expert_played(day, score)
            self._expert[day] = score
            self.counts["expert"] += 1
        except StorageError as exc:
            log.warning("dorf: the daily expert's game of %s stopped: %s", day, exc)

    async def _store_expert(self, day: str, seed: int, decisions: list[dict[str, Any]]) -> None:
        """Keep the expert's game of ``day`` as a finished game (once: a server that took over
        the lease finds it stored), so that its board can be viewed once the day is over."""
        storage, game_id = self.storage, EXPERT_GAME.format(day=day)
        if await storage.load_game(game_id) is not None:
            return
        seat = StoredSeat(0, COMPUTER, EXPERT_NAME, self.expert_spec, None, None)
        game = StoredGame(
            game_id, "coop", MODES["coop"].tileset, seed, False, now(), False, [seat], [], daily=day
        )
        await storage.create_game(game, None)
        saved = None
        for number, entry in enumerate(decisions, 1):
            change = Change(
                game_id, number, MOVE, 0, number, entry, number == len(decisions), origin=storage.instance
            )
            saved = (await storage.commit(change)).saved
        if saved is not None:
            await saved
        self._boards[day] = True

    async def expert_board(self, day: str) -> str | None:
        """The id of the expert's stored game of ``day`` (None: not stored, as before issue 61)."""
        known = self._boards.get(day)
        if known is None:
            known = await self.storage.load_game(EXPERT_GAME.format(day=day)) is not None
            self._boards[day] = known
        return EXPERT_GAME.format(day=day) if known else None

    async def expert(self, day: str) -> int | None:
        known = self._expert.get(day)
        if known is None:
            known = (await self.storage.daily_day(day)).expert
            if known is not None:
                self._expert[day] = known
        return known

    # --- playing ----------------------------------------------------------------------------

    async def start_attempt(self, body: Any, player: Player | None) -> dict[str, Any]:
        """``POST /api/daily``: the player's attempt at today's challenge, or a practice game of
        its shuffle (or of a past day's)."""
        data = need_object(body, "a daily challenge request")
        if player is None:
            raise ProtocolError(
                "no-player", "the daily challenge is played by a player: open the site first", 401
            )
        today = self.look()
        day = today if data.get("date") is None else read_day(data["date"])
        if day > today:
            raise ProtocolError("no-daily", f"the challenge of {day} has not begun", 404)
        storage = self.storage
        game_id = new_game_id()
        practice = True
        if day == today:
            try:
                earlier = await storage.daily_attempt(day, player.id, game_id, time.time())
            except StorageError as exc:
                raise _unavailable(exc) from None
            if earlier is not None and not earlier.finished:
                raise ProtocolError(
                    "daily-unfinished",
                    "your attempt at today's challenge goes on: finish it first"
                    " (its game is in GET /api/daily)",
                    409,
                )
            practice = earlier is not None
        seats = [{"kind": HERE, "name": player.name}]
        spec = {"mode": "coop", "practice": practice, "seats": seats}
        try:
            origin = GameOrigin(
                day, self.seed(day), game_id, "the daily challenge's seed is the server's: leave out seed"
            )
            answer = await self.seating.create(spec, creator=player, origin=origin)
        except BaseException:
            if not practice:
                with contextlib.suppress(StorageError):
                    await storage.daily_drop(game_id)
            raise
        self.counts["practice" if practice else "attempts"] += 1
        return {**answer, "practice": practice, "date": day}

    def changed(self, event: GameChanged) -> None:
        """A game changed: a counted attempt's score follows it (while its day lasts)."""
        game = event.game
        session = game.session
        if session.daily is None or session.practice:
            return
        score = int(session.state.returns()[0])
        today = self.today()
        if session.daily == today:
            self.background(self.storage.daily_score(game.id, score, session.is_over, today))

    # --- what players see ------------------------------------------------------------------

    async def view(self, player: Player | None, day: str | None = None) -> dict[str, Any]:
        """``GET /api/daily[/DATE]``: a day's challenge as ``player`` sees it."""
        today = self.look()
        day = today if day is None else read_day(day)
        if day > today:
            raise ProtocolError("no-daily", f"the challenge of {day} has not begun", 404)
        over = day < today
        try:  # one storage call, one transaction
            seen = await self.storage.daily_view(day, None if player is None else player.id, TOP, 400, over)
        except StorageError as exc:
            raise _unavailable(exc) from None
        row, mine, top, median, days = seen.row, seen.mine, seen.top, seen.median, seen.days
        shown = over or (mine is not None and mine.finished)
        expert = row.expert if row.expert is not None else self._expert.get(day)
        out: dict[str, Any] = {
            "date": day,
            "over": over,
            "players": row.players,
            "streak": streak(days, today),
            "attempt": None if mine is None else _attempt(mine),
            "top": [_line(r, over) for r in top],
            "expert": expert if shown else None,
            "median": median,
        }
        if over:
            seed = self.seed(day)
            out["seed"], out["seed_text"] = seed, str(seed)
            if expert is not None:
                try:
                    out["expert_game"] = await self.expert_board(day)
                except StorageError:
                    out["expert_game"] = None
        return out

    async def of_player(self, player_id: str) -> dict[str, Any]:
        """What a player's page shows of the challenge: its days (newest first), its best day and
        its streak."""
        today = self.look()
        try:
            history = await self.storage.daily_history(player_id, CALENDAR)
            best = await self.storage.daily_best(player_id)
            days = await self.storage.daily_days(player_id, 400)
        except StorageError as exc:
            raise _unavailable(exc) from None
        calendar = []
        for result in history:
            over = result.day < today
            expert = result.expert if over else None
            calendar.append(
                {
                    "date": result.day,
                    "score": result.score,
                    "rank": result.rank,
                    "players": result.players,
                    "finished": result.finished,
                    "expert": expert,
                    "beat": None if expert is None else result.score > expert,
                    "game": result.game_id if over else None,
                }
            )
        return {
            "daily": calendar,
            "daily_best": None
            if best is None
            else {"score": best.score, "date": best.day, "rank": best.rank},
            "streak": streak(days, today),
        }

    async def lessons(self, game: Game, token: Any, address: str = "unknown") -> dict[str, Any]:
        """``POST /api/games/ID/lessons``: the coach's three biggest lessons of a finished game for
        the seats ``token`` holds: computed once (a second request waits for the first), then
        read from the storage.  A computation is one at a time from an address and from a
        player, a few in all (:data:`LESSONS_PER_WORKER`); one more is refused, HTTP 429 busy."""
        seats = token_seats(game, token)
        if not seats:
            raise ProtocolError(
                "bad-token", "the lessons are for the game's players: send your seat's token", 403
            )
        await game.settled()
        session = game.session
        if not session.is_over:
            raise ProtocolError("not-over", "the lessons come once the game is over", 409)
        storage = self.storage
        key = ",".join(str(seat) for seat in sorted(seats))
        try:
            kept = await storage.game_lessons(game.id, key)
        except StorageError as exc:
            raise _unavailable(exc) from None
        if kept is not None:
            return {"lessons": json.loads(kept)}
        name = f"{game.id}/{key}"
        waiting = self._lessons.get(name)
        if waiting is not None:
            return {"lessons": await asyncio.shield(waiting)}
        players = {p for seat in seats if (p := session.seats[seat].player_id) is not None}
        with self._asking(address, players):
            future: asyncio.Future[list[Any]] = asyncio.get_running_loop().create_future()
            self._lessons[name] = future
            try:
                found = await self._compute(game, seats)
                future.set_result(found)
            except BaseException as exc:
                future.set_exception(exc)
                future.exception()  # retrieved: whoever waits gets it too
                raise
            finally:
                del self._lessons[name]
        self.counts["lessons"] += 1
        with contextlib.suppress(StorageError):
            text = await storage.game_lessons(game.id, key, json.dumps(found), time.time())
            if text is not None:  # another server's, kept first
                found = json.loads(text)
        return {"lessons": found}

    @contextlib.contextmanager
    def _asking(self, address: str, players: set[str]) -> Iterator[None]:
        """Count one lessons computation for ``address`` and ``players`` while the block runs
        (ProtocolError 429 busy if one of them has one already, or the server has enough)."""
        total = LESSONS_PER_WORKER * self.pool.size
        if address in self._addresses:
            raise ProtocolError(
                "busy", "one lessons request at a time from one address: wait for the one you asked for", 429
            )
        if players & self._players:
            raise ProtocolError(
                "busy", "one lessons request at a time from one player: wait for the one you asked for", 429
            )
        if len(self._addresses) >= total:
            raise ProtocolError(
                "busy", f"the server is computing {total} lessons already: ask again soon", 429
            )
        self._addresses.add(address)
        self._players |= players
        try:
            yield
        finally:
            self._addresses.discard(address)
            self._players -= players

    async def _compute(self, game: Game, seats: set[int]) -> list[Any]:
        """The lessons, in the think pool's lessons lane: the quick look over the whole game, then
        the coach at its full budget on the placements it kept, each a job of its own."""
        session = game.session
        record = session.record()
        spec = self.config.daily_coach
        players = sorted(session.player_of[seat] for seat in seats)
        queue = f"{LESSONS} {game.id}/{','.join(str(seat) for seat in sorted(seats))}"
        try:
            return await lessons_in(self.computer.work, queue, record, players, spec, LESSON_SECONDS)
        except BaseException:
            self.pool.cancel(queue)  # the steps still waiting, or running
            raise

    def health(self) -> dict[str, Any]:
        return {"today": self.today(), "playing": sorted(self._playing), **self.counts}


def _attempt(result: Result) -> dict[str, Any]:
    return {"game": result.game_id, "score": result.score, "rank": result.rank, "finished": result.finished}


def _line(result: Result, over: bool) -> dict[str, Any]:
    """A leaderboard's line: its board (the game) only once the day is over."""
    return {
        "rank": result.rank,
        "name": result.name,
        "score": result.score,
        "finished": result.finished,
        "game": result.game_id if over else None,
    }


__all__ = ["Daily"]
