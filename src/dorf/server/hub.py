"""The games the server holds, who is connected to them, and the computer seats.

:class:`Hub` is the server without HTTP: create a game, join a seat, check a
seat token, make a move (checked, written to the database, then told to every
client of the game), undo, and let computer seats think off the event loop.
Everything here runs on the event loop's thread; the only work sent elsewhere
is a computer player's thinking (:func:`dorf.server.thinking.think`), which
gets a record, not the live state.
"""

from __future__ import annotations

import asyncio
import contextlib
import hmac
import json
import logging
import multiprocessing
import random
import secrets
import sqlite3
from collections.abc import Callable
from concurrent.futures import Executor, ProcessPoolExecutor, ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from dorf.formats.notation import is_int
from dorf.formats.record import FORMAT, RecordError
from dorf.rules.area import Placement
from dorf.rules.hexgrid import Hex
from dorf.server.protocol import Move, ProtocolError, need_object
from dorf.server.sessions import (
    COMPUTER,
    HERE,
    MODES,
    ONLINE,
    SEAT_KINDS,
    TILESETS,
    GameSession,
    SeatSpec,
    check_name,
    check_player_spec,
)
from dorf.server.storage import Storage, StoredGame, StoredSeat, now, secret_hash
from dorf.server.thinking import think
from dorf.server.views import Json

log = logging.getLogger("dorf.server")

#: Messages waiting for a slow client before the server gives up on it.
MAX_QUEUE = 256
MAX_SEED = 2**62


@dataclass
class ServerConfig:
    """How ``dorf serve`` runs: the database, and how computer seats think.

    ``ai_workers`` processes think for computer seats (0: threads of the server
    process); ``ai_delay`` seconds pass before a computer moves, so people can
    follow the game.
    """

    db: str | Path | None = None
    ai_workers: int = 2
    ai_delay: float = 0.4


class Connection:
    """One websocket client: the seats it holds and its queue of outgoing messages."""

    def __init__(self, send: Callable[[str], Any], close: Callable[[int], Any]) -> None:
        self._send = send
        self._close = close
        self.seats: set[int] = set()
        self.queue: asyncio.Queue[str | None] = asyncio.Queue()
        self.closed = False

    def send(self, message: Json | str) -> None:
        if self.closed:
            return
        if self.queue.qsize() >= MAX_QUEUE:
            log.warning("dropping a client that does not read its messages")
            self.closed = True
            self.queue.put_nowait(None)
            return
        self.queue.put_nowait(message if isinstance(message, str) else json.dumps(message))

    async def pump(self) -> None:
        """Send queued messages in order until the connection ends."""
        while True:
            message = await self.queue.get()
            if message is None:
                with contextlib.suppress(Exception):
                    await self._close(1008)
                return
            await self._send(message)


@dataclass
class _Secrets:
    tokens: dict[int, str] = field(default_factory=dict)
    invites: dict[int, str] = field(default_factory=dict)


class Hub:
    """Every game of the server, loaded from and written to :class:`Storage`."""

    def __init__(self, config: ServerConfig) -> None:
        self.config = config
        self.storage = Storage(config.db)
        self.sessions: dict[str, GameSession] = {}
        self._stored: dict[str, StoredGame] = {}
        self._secrets: dict[str, _Secrets] = {}
        self.connections: dict[str, set[Connection]] = {}
        self._thinking: dict[tuple[str, int], asyncio.Task[None]] = {}
        self.executor: Executor
        if config.ai_workers > 0:
            self.executor = ProcessPoolExecutor(
                max_workers=config.ai_workers, mp_context=multiprocessing.get_context("spawn")
            )
        else:
            self.executor = ThreadPoolExecutor(max_workers=2, thread_name_prefix="dorf-ai")
        self.broken: dict[str, str] = {}

    # --- start and stop -----------------------------------------------------------

    def load(self) -> int:
        """Read every stored game: unfinished ones are replayed now (and their computer seats
        start thinking), finished ones when someone asks for them.  Returns how many."""
        games = self.storage.load_games()
        for stored in games:
            self._secrets[stored.id] = _Secrets(
                {s.index: s.token_hash for s in stored.seats if s.token_hash},
                {s.index: s.invite_hash for s in stored.seats if s.invite_hash},
            )
            self._stored[stored.id] = stored
            if not stored.finished:
                session = self._replay(stored.id)
                if session is not None:
                    self.kick(session)
        return len(games)

    def _replay(self, game_id: str) -> GameSession | None:
        stored = self._stored.pop(game_id)
        seats = [
            SeatSpec(s.kind, s.name, s.player, s.kind == ONLINE and bool(s.token_hash)) for s in stored.seats
        ]
        try:
            session = GameSession.replay(stored.id, stored.mode, stored.seed, seats, stored.decisions)
        except (RecordError, ValueError, KeyError) as exc:
            self.broken[game_id] = str(exc)
            log.error("game %s does not replay: %s", game_id, exc)
            return None
        session.undo_allowed = stored.undo
        self.sessions[game_id] = session
        return session

    async def close(self) -> None:
        for task in list(self._thinking.values()):
            task.cancel()
        for task in list(self._thinking.values()):
            with contextlib.suppress(BaseException):
                await task
        for conns in self.connections.values():
            for conn in conns:
                conn.queue.put_nowait(None)
        self.executor.shutdown(wait=False, cancel_futures=True)
        self.storage.close()

    # --- games ------------------------------------------------------------------------

    def get(self, game_id: str) -> GameSession:
        session = self.sessions.get(game_id)
        if session is not None:
            return session
        if game_id in self._stored:
            session = self._replay(game_id)
            if session is not None:
                return session
        if game_id in self.broken:
            raise ProtocolError("broken", f"game {game_id} cannot be replayed: {self.broken[game_id]}", 410)
        raise ProtocolError("no-game", f"there is no game {game_id!r}", 404)

    def create(self, body: Any) -> Json:
        """Create a game from ``{"mode", "seed"?, "seats": [{"kind", "name", "player"?}]}``."""
        data = need_object(body, "a new game")
        mode = data.get("mode", "coop")
        if mode not in MODES:
            raise ProtocolError("bad-message", f"mode {mode!r} is not one of {', '.join(MODES)}")
        seed = data.get("seed")
        if seed is None:
            seed = random.randrange(1, 2**31)
        if not is_int(seed) or not -MAX_SEED <= seed <= MAX_SEED:
            raise ProtocolError("bad-message", "seed must be a whole number")
        raw_seats = data.get("seats")
        if raw_seats is None:
            raw_seats = [{"kind": HERE}] * (1 if mode == "coop" else 2)
        if not isinstance(raw_seats, list):
            raise ProtocolError("bad-message", "seats must be a list")
        wanted = (1, 6) if mode == "coop" else (2, 2)
        if not wanted[0] <= len(raw_seats) <= wanted[1]:
            need = "1 to 6" if mode == "coop" else "2"
            raise ProtocolError("bad-message", f"this game has {need} seats, not {len(raw_seats)}")
        seats: list[SeatSpec] = []
        for i, raw in enumerate(raw_seats):
            item = need_object(raw, "a seat")
            kind = item.get("kind", HERE)
            if kind not in SEAT_KINDS:
                kinds = ", ".join(SEAT_KINDS)
                raise ProtocolError("bad-message", f"seat kind {kind!r} is not one of {kinds}")
            player = check_player_spec(item.get("player", "greedy")) if kind == COMPUTER else None
            default = f"Computer {i + 1} ({player})" if player else f"Player {i + 1}"
            seats.append(SeatSpec(kind, check_name(item.get("name"), default), player))
        game_id = secrets.token_urlsafe(8)
        session = GameSession.new(game_id, mode, seed, seats)
        tokens = {i: secrets.token_urlsafe(24) for i, s in enumerate(seats) if s.kind == HERE}
        invites = {i: secrets.token_urlsafe(12) for i, s in enumerate(seats) if s.kind == ONLINE}
        hidden = _Secrets(
            {i: secret_hash(t) for i, t in tokens.items()}, {i: secret_hash(c) for i, c in invites.items()}
        )
        stored = StoredGame(
            game_id,
            mode,
            TILESETS[mode],
            seed,
            session.undo_allowed,
            now(),
            False,
            [
                StoredSeat(i, s.kind, s.name, s.player, hidden.tokens.get(i), hidden.invites.get(i))
                for i, s in enumerate(seats)
            ],
            [],
        )
        try:
            self.storage.create_game(stored)
        except sqlite3.Error as exc:
            raise ProtocolError("storage", f"the game could not be stored: {exc}", 503) from None
        self.sessions[game_id] = session
        self._secrets[game_id] = hidden
        self.kick(session)
        return {
            "id": game_id,
            "mode": mode,
            "tokens": {str(i): t for i, t in tokens.items()},
            "invites": {str(i): c for i, c in invites.items()},
        }

    def join(self, game_id: str, body: Any) -> Json:
        """Take an online seat with its invitation code: ``{"invite": CODE, "name": NAME}``."""
        session = self.get(game_id)
        data = need_object(body, "a join request")
        code = data.get("invite")
        if not isinstance(code, str) or not code or len(code) > 200:
            raise ProtocolError("missing-token", "an invitation code is needed to join", 401)
        hidden = self._secrets[game_id]
        wanted = secret_hash(code)
        seat = next((s for s, h in hidden.invites.items() if hmac.compare_digest(h, wanted)), None)
        if seat is None:
            raise ProtocolError(
                "bad-token", "this invitation is not valid or its seat is taken (ask for a new link)", 403
            )
        name = check_name(data.get("name"), session.seats[seat].name)
        token = secrets.token_urlsafe(24)
        token_hash = secret_hash(token)
        try:
            self.storage.claim_seat(game_id, seat, name, token_hash)
        except sqlite3.Error as exc:
            raise ProtocolError("storage", f"the seat could not be stored: {exc}", 503) from None
        del hidden.invites[seat]
        hidden.tokens[seat] = token_hash
        session.seats[seat].name = name
        session.seats[seat].claimed = True
        session.version += 1
        self.broadcast(session)
        return {"id": game_id, "seat": seat, "token": token}

    def seats_for(self, game_id: str, tokens: list[str]) -> tuple[set[int], int]:
        """The seats these tokens hold, and how many tokens held none."""
        hidden = self._secrets.get(game_id, _Secrets())
        seats: set[int] = set()
        bad = 0
        for token in tokens:
            wanted = secret_hash(token)
            found = [s for s, h in hidden.tokens.items() if hmac.compare_digest(h, wanted)]
            seats.update(found)
            bad += not found
        return seats, bad

    def check_seat(self, session: GameSession, seats: set[int], seat: int) -> None:
        if not 0 <= seat < len(session.seats):
            raise ProtocolError("bad-message", f"there is no seat {seat} in this game")
        if seat in seats:
            return
        spec = session.seats[seat]
        if spec.kind == COMPUTER:
            raise ProtocolError("not-your-seat", f"seat {seat} ({spec.name}) is played by the computer", 403)
        raise ProtocolError("not-your-seat", f"you do not hold the token of seat {seat} ({spec.name})", 403)

    def token_seats(self, session: GameSession, token: Any) -> set[int]:
        """For the HTTP API: the seats one token holds (401 without a token, 403 for a wrong one)."""
        if token is None or token == "":
            raise ProtocolError("missing-token", "a seat token is needed for this", 401)
        if not isinstance(token, str) or len(token) > 200:
            raise ProtocolError("bad-token", "this seat token is not valid for this game", 403)
        seats, bad = self.seats_for(session.id, [token])
        if bad:
            raise ProtocolError("bad-token", "this seat token is not valid for this game", 403)
        return seats

    # --- moves ---------------------------------------------------------------------------

    def move(self, session: GameSession, move: Move) -> Json:
        """Check, store, then tell everyone; ProtocolError (and no change) if anything is wrong."""
        entry = session.apply(move)
        try:
            self.storage.add_decision(
                session.id, len(session.decisions), move.seat, entry, finished=session.is_over
            )
        except sqlite3.Error as exc:
            session.take_back()
            raise ProtocolError(
                "storage", f"the move was not made: it could not be stored ({exc})", 503
            ) from None
        self.broadcast(session)
        self.kick(session)
        return entry

    def undo(self, session: GameSession, seat: int) -> int:
        count = session.undo(seat)
        try:
            self.storage.truncate(session.id, len(session.decisions))
        except sqlite3.Error as exc:  # pragma: no cover - the file vanished
            log.error("undo of game %s not stored: %s", session.id, exc)
        self.broadcast(session)
        self.kick(session)
        return count

    # --- telling the clients ----------------------------------------------------------------

    def state_message(self, session: GameSession, seats: set[int]) -> str:
        you = {
            "seats": sorted(seats),
            "legal": {str(s): session.legal(s) for s in sorted(seats) if s in session.waiting()},
        }
        return (
            '{"type":"state","you":'
            + json.dumps(you, separators=(",", ":"))
            + ',"game":'
            + session.public_text()
            + "}"
        )

    def attach(self, session: GameSession, conn: Connection) -> None:
        self.connections.setdefault(session.id, set()).add(conn)

    def detach(self, session: GameSession, conn: Connection) -> None:
        conns = self.connections.get(session.id)
        if conns is not None:
            conns.discard(conn)
            if not conns:
                del self.connections[session.id]

    def broadcast(self, session: GameSession) -> None:
        for conn in list(self.connections.get(session.id, ())):
            conn.send(self.state_message(session, conn.seats))

    # --- computer seats ------------------------------------------------------------------------

    def kick(self, session: GameSession) -> None:
        """Start a computer player for every computer seat that must decide now."""
        if session.is_over:
            return
        for seat in session.waiting():
            key = (session.id, seat)
            if session.seats[seat].kind == COMPUTER and key not in self._thinking:
                self._thinking[key] = asyncio.get_running_loop().create_task(self._think(session, seat))

    def thinking(self, game_id: str) -> list[int]:
        return sorted(seat for gid, seat in self._thinking if gid == game_id)

    async def _think(self, session: GameSession, seat: int) -> None:
        key = (session.id, seat)
        again = False
        try:
            await asyncio.sleep(self.config.ai_delay)
            epoch = session.epoch
            record = {
                "format": FORMAT,
                "mode": session.mode,
                "tileset": TILESETS[session.mode],
                "seed": session.seed,
                "players": [s.name for s in session.seats],
                "decisions": list(session.decisions),
            }
            spec = session.seats[seat].player or "greedy"
            seed = (session.seed * 7919 + len(session.decisions) * 31 + seat) % MAX_SEED
            loop = asyncio.get_running_loop()
            try:
                answer = await loop.run_in_executor(self.executor, think, record, seat, spec, seed)
            except asyncio.CancelledError:
                raise
            except Exception as exc:  # a broken worker must not stall the game
                log.error("computer player %s failed in game %s: %s", spec, session.id, exc)
                answer = await loop.run_in_executor(self.executor, think, record, seat, "random", seed)
            if session.epoch != epoch or seat not in session.waiting():
                again = session.epoch != epoch
                return
            if "pick" in answer:
                move = Move(seat, pick=int(answer["pick"]))
            else:
                move = Move(seat, placement=Placement(Hex(*answer["at"]), int(answer["rot"])))
            self._release(key)  # so that the move can start this seat's next turn
            try:
                self.move(session, move)
            except ProtocolError as exc:
                log.error("computer move refused in game %s: %s", session.id, exc.message)
                self.move(session, _any_decision(session, seat))
        finally:
            self._release(key)
        if again and self.sessions.get(session.id) is session:
            self.kick(session)

    def _release(self, key: tuple[str, int]) -> None:
        if self._thinking.get(key) is asyncio.current_task():
            del self._thinking[key]


def _any_decision(session: GameSession, seat: int) -> Move:
    """A legal decision for ``seat``, for when a computer player's answer is refused."""
    public = session.public()
    if "pool" in public:
        return Move(seat, pick=public["pool"][0]["id"])
    q, r, rots = session.legal(seat)[0]
    return Move(seat, placement=Placement(Hex(q, r), rots[0]))
