"""``hub.daily``: the daily challenge.  Each day (UTC) has one solo Board Game shuffle, the same
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
from typing import TYPE_CHECKING, Any

from dorf.formats.record import apply_decision, decision_entry, start_of
from dorf.players.levels import level_spec
from dorf.server.computer.pool import DAILY, LESSONS, ThinkError
from dorf.server.daily.calendar import Today, day_seed, read_day, streak
from dorf.server.protocol.messages import ProtocolError, need_object
from dorf.server.round.seats import token_seats
from dorf.server.round.session import HERE, computer_seed, record_head
from dorf.server.storage.base import StorageError

if TYPE_CHECKING:
    from dorf.server.hub import Hub
    from dorf.server.players.accounts import Player
    from dorf.server.round.game import Game
    from dorf.server.round.session import GameSession
    from dorf.server.storage.daily import Result

log = logging.getLogger("dorf.server")

#: The secret's name in ``server_secret``.
SECRET = "daily-seed"
#: The attempts a day's leaderboard lists, and the days a player's page shows.
TOP, CALENDAR = 100, 60
#: How long a server holds the lease to play a day's expert game without a move, in seconds.
EXPERT_LEASE = 60.0
#: How often the challenge looks at the clock (a new day: close the last, play the expert's game).
TICK = 30.0
#: The longest the coach may weigh one game, in seconds.
LESSON_SECONDS = 300.0


def _unavailable(exc: StorageError) -> ProtocolError:
    return ProtocolError("storage", f"the daily challenge cannot be read or stored now ({exc})", 503)


class Daily:
    """The daily challenge of a hub (see the module)."""

    def __init__(self, hub: Hub) -> None:
        self.hub = hub
        config = hub.config
        self.today = Today(config.clock_time, config.today_file)
        self.expert_spec = level_spec(config.daily_expert) or config.daily_expert
        self._secret: bytes | None = None
        #: The expert's score of the days it is known for, and the days it is played here.
        self._expert: dict[str, int] = {}
        self._playing: dict[str, asyncio.Task[None]] = {}
        self._tried: dict[str, float] = {}
        self._checked = ""
        #: The last day someone asked for (its expert game is played once asked for).
        self._wanted = ""
        self._ticker: asyncio.Task[None] | None = None
        #: Lessons being computed, by game: a second request waits for the first.
        self._lessons: dict[str, asyncio.Future[list[Any]]] = {}
        self.counts = {"attempts": 0, "practice": 0, "expert": 0, "lessons": 0, "closed": 0}

    # --- start, stop, the clock --------------------------------------------------------------

    async def start(self) -> None:
        made = await self.hub.storage.daily_secret(SECRET, secrets.token_hex(32))
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
            self.hub.background(self._close_days(today))
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
        for day in await self.hub.storage.daily_open_days(today):
            if await self.hub.storage.daily_close(day):
                self.counts["closed"] += 1

    def seed(self, day: str) -> int:
        assert self._secret is not None, "the daily challenge has not started"
        return day_seed(self._secret, day)

    def mark(self, session: GameSession) -> None:
        """A game in memory learns today's date from the challenge's clock (its seed is shown
        once its day is over)."""
        session.today = self.today

    # --- the expert's game ----------------------------------------------------------------

    async def _expert_game(self, day: str) -> None:
        """Play ``day``'s shuffle with the expert computer, one move a job, holding the lease."""
        storage, instance = self.hub.storage, self.hub.storage.instance
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
                    answer = await self.hub.pool.think(
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
            await storage.daily_expert_played(day, score)
            self._expert[day] = score
            self.counts["expert"] += 1
        except StorageError as exc:
            log.warning("dorf: the daily expert's game of %s stopped: %s", day, exc)

    async def expert(self, day: str) -> int | None:
        known = self._expert.get(day)
        if known is None:
            known = (await self.hub.storage.daily_day(day)).expert
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
        storage = self.hub.storage
        game_id = secrets.token_urlsafe(8)
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
            answer = await self.hub.seating.create(
                spec, creator=player, daily=day, seed=self.seed(day), game_id=game_id
            )
        except BaseException:
            if not practice:
                with contextlib.suppress(StorageError):
                    await storage.daily_drop(game_id)
            raise
        self.counts["practice" if practice else "attempts"] += 1
        return {**answer, "practice": practice, "date": day}

    def changed(self, game: Game) -> None:
        """A game changed: a counted attempt's score follows it (while its day lasts)."""
        session = game.session
        if session.daily is None or session.practice:
            return
        score = int(session.state.returns()[0])
        today = self.today()
        if session.daily == today:
            self.hub.background(self.hub.storage.daily_score(game.id, score, session.is_over, today))

    # --- what players see ------------------------------------------------------------------

    async def view(self, player: Player | None, day: str | None = None) -> dict[str, Any]:
        """``GET /api/daily[/DATE]``: a day's challenge as ``player`` sees it."""
        today = self.look()
        day = today if day is None else read_day(day)
        if day > today:
            raise ProtocolError("no-daily", f"the challenge of {day} has not begun", 404)
        over = day < today
        storage = self.hub.storage
        try:
            row = await storage.daily_day(day)
            mine = None if player is None else await storage.daily_result(day, player.id)
            top = await storage.daily_top(day, TOP)
            shown = over or (mine is not None and mine.finished)
            median = await storage.daily_median(day, row.players) if shown else None
            days = [] if player is None else await storage.daily_days(player.id, 400)
        except StorageError as exc:
            raise _unavailable(exc) from None
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
        return out

    async def of_player(self, player_id: str) -> dict[str, Any]:
        """What a player's page shows of the challenge: its days (newest first), its best day and
        its streak."""
        today = self.look()
        try:
            history = await self.hub.storage.daily_history(player_id, CALENDAR)
            best = await self.hub.storage.daily_best(player_id)
            days = await self.hub.storage.daily_days(player_id, 400)
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

    async def lessons(self, game: Game, token: Any) -> dict[str, Any]:
        """``POST /api/games/ID/lessons``: the coach's three biggest lessons of a finished game for
        the seats ``token`` holds (kept with a counted attempt, computed once)."""
        seats = token_seats(game, token)
        if not seats:
            raise ProtocolError(
                "bad-token", "the lessons are for the game's players: send your seat's token", 403
            )
        await game.settled()
        session = game.session
        if not session.is_over:
            raise ProtocolError("not-over", "the lessons come once the game is over", 409)
        counted = session.daily is not None and not session.practice
        storage = self.hub.storage
        if counted:
            try:
                kept = await storage.daily_lessons(game.id)
            except StorageError as exc:
                raise _unavailable(exc) from None
            if kept is not None:
                return {"lessons": json.loads(kept)}
        key = f"{game.id}/{sorted(seats)}"
        waiting = self._lessons.get(key)
        if waiting is not None:
            return {"lessons": await asyncio.shield(waiting)}
        future: asyncio.Future[list[Any]] = asyncio.get_running_loop().create_future()
        self._lessons[key] = future
        try:
            players = sorted(session.player_of[seat] for seat in seats)
            args = {"record": session.record(), "players": players, "spec": self.hub.config.daily_coach}
            answer = await self.hub.computer.work(LESSONS, "lessons", args, LESSON_SECONDS)
            found = list(answer["lessons"])
            future.set_result(found)
        except BaseException as exc:
            future.set_exception(exc)
            future.exception()  # retrieved: whoever waits gets it too
            raise
        finally:
            del self._lessons[key]
        self.counts["lessons"] += 1
        if counted:
            with contextlib.suppress(StorageError):
                await storage.daily_lessons(game.id, json.dumps(found))
        return {"lessons": found}

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
