"""A game in memory (lila's ``GameProxy``): its session, its seats' secrets, its clients, and what
it knows of its storage; and a game that cannot be loaded (:class:`Broken`).

The game cache (:mod:`~dorf.server.round.cache`) reads a game from its storage and replays it
when someone asks for it (:func:`replayed`), keeps it while it is used, and writes its changes behind or
through (:mod:`dorf.server.storage`).  Moves of one game are made one at a time
(:attr:`Game.lock`); while a change is being stored, whoever describes the game
to a client waits for it (:meth:`Game.settled`), so no client sees a change the
storage has not taken.
"""

from __future__ import annotations

import asyncio
import time
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from dorf.server.protocol.messages import Move, ProtocolError
from dorf.server.protocol.views import Json
from dorf.server.protocol.wire import dumps
from dorf.server.round.clock import Clock
from dorf.server.round.ending import Ending
from dorf.server.round.session import MODE_NAMES, ONLINE, GameSession, SeatSpec
from dorf.server.storage.base import StoredGame

if TYPE_CHECKING:
    from dorf.server.config import SeatBot
    from dorf.server.round.connection import Connection


@dataclass(eq=False)
class Game:
    """A game in memory."""

    session: GameSession
    #: The hashes of the seats' tokens, and of the invitations of the online seats not yet taken.
    tokens: dict[int, str]
    invites: dict[int, str]
    lock: asyncio.Lock = field(default_factory=asyncio.Lock)
    connections: set[Connection] = field(default_factory=set)
    thinking: dict[int, asyncio.Task[None]] = field(default_factory=dict)
    #: When a client last used it (time.monotonic()).
    used: float = field(default_factory=time.monotonic)
    #: Changes made and not yet stored, and the version stored.
    unsaved: int = 0
    saved_version: int = 0
    saved: asyncio.Event = field(default_factory=asyncio.Event)
    #: The keys clients gave its decisions, per seat: (seat, key) -> decision number.
    keys: dict[tuple[int, str], int] = field(default_factory=dict)
    #: Whether this server thinks for its computer seats (several servers: it holds the lease),
    #: and when its version last changed (time.monotonic()).
    lease: bool = False
    changed: float = field(default_factory=time.monotonic)
    #: The programs playing its ``cmd:`` computer seats, by seat (started when first asked).
    bots: dict[int, SeatBot] = field(default_factory=dict)

    @property
    def id(self) -> str:
        return self.session.id

    async def settled(self) -> None:
        """Wait while a change of the game is being stored (described only once it is)."""
        if self.lock.locked():
            async with self.lock:
                pass

    def made_before(self, move: Move) -> Json | None:
        """If a move with this key was made for this seat already: its decision, marked ``again``."""
        if move.key is None:
            return None
        number = self.keys.get((move.seat, move.key))
        if number is None:
            return None
        return {**self.session.decisions[number - 1], "again": True}

    def remember_key(self, seat: int, key: str | None, number: int) -> None:
        if key is not None:
            self.keys[seat, key] = number

    def forget_keys(self, keep: int) -> None:
        """An undo back to ``keep`` decisions: the keys of those taken back are free again."""
        self.keys = {k: number for k, number in self.keys.items() if number <= keep}

    def take_stored(self, stored: StoredGame) -> None:
        """What a game in memory keeps of its stored rows besides its session: the seats' secrets,
        the keys of its decisions, the version stored."""
        self.tokens = {s.index: s.token_hash for s in stored.seats if s.token_hash}
        self.invites = {s.index: s.invite_hash for s in stored.seats if s.invite_hash}
        deciders = self.session.deciders
        self.keys = {
            (deciders[number - 1], key): number
            for number, key in enumerate(stored.keys, 1)
            if key is not None
        }
        self.saved_version = self.session.version
        self.changed = time.monotonic()

    def stored_up_to(self, version: int) -> None:
        """The storage has every change of the game up to ``version``."""
        self.saved_version = max(self.saved_version, version)
        self.saved.set()
        self.saved = asyncio.Event()

    async def wait_saved(self, version: int, timeout: float) -> bool:
        """Wait (at most ``timeout`` seconds) until the game is stored up to ``version``."""
        deadline = time.monotonic() + timeout
        while self.saved_version < version:
            left = deadline - time.monotonic()
            if left <= 0:
                return False
            try:
                await asyncio.wait_for(self.saved.wait(), left)
            except TimeoutError:
                continue
        return True


@dataclass(eq=False)
class Broken:
    """A stored game that cannot be loaded: shown with the reason, never played."""

    id: str
    reason: str
    mode: str | None = None
    seats: list[SeatSpec] = field(default_factory=list)

    def public(self) -> Json:
        return {
            "id": self.id,
            "mode": self.mode,
            "mode_name": MODE_NAMES.get(self.mode or "", "a game"),
            "version": 0,
            "phase": "broken",
            "over": False,
            "turn": 0,
            "waiting": [],
            "seats": [
                {"index": i, "name": s.name, "kind": s.kind, "player": s.player, "claimed": s.claimed}
                for i, s in enumerate(self.seats)
            ],
            "areas": [],
            "scores": [],
            "revealed": [],
            "left": [],
            "practice": False,
            "undo": False,
            "first": 1,
            "broken": self.reason,
            "log": [],
            "end": None,
            "clock": None,
        }

    def public_text(self) -> str:
        return dumps(self.public())

    def refusal(self) -> ProtocolError:
        return ProtocolError("broken", f"game {self.id} cannot be played: {self.reason}", 410)


def seat_specs(stored: StoredGame) -> list[SeatSpec]:
    return [
        SeatSpec(s.kind, s.name, s.player, s.kind == ONLINE and bool(s.token_hash), s.player_id)
        for s in stored.seats
    ]


def replayed(stored: StoredGame) -> GameSession:
    """The session of a stored game, replayed (raises RecordError, ValueError... if it does not)."""
    session = GameSession.replay(
        stored.id,
        stored.mode,
        stored.seed,
        seat_specs(stored),
        stored.decisions,
        practice=stored.practice,
        first=stored.first,
    )
    session.seed_chosen = stored.seed_chosen
    session.rated = stored.rated
    session.daily = stored.daily
    session.version = stored.version
    if stored.clock is not None:
        session.clock = Clock.restore(stored.clock, stored.clock_state, len(stored.seats))
    if stored.end is not None:
        session.ending = Ending(stored.end, stored.winner)
    return session


#: What a stored game that does not replay raises.
REPLAY_ERRORS: tuple[type[Exception], ...] = (ValueError, KeyError, TypeError, IndexError)


def loaded(stored: StoredGame) -> Game:
    """A stored game in memory (raises one of :data:`REPLAY_ERRORS` if it does not replay)."""
    game = Game(replayed(stored), {}, {})
    game.take_stored(stored)
    return game


__all__: list[Any] = ["Broken", "Game", "loaded", "replayed", "seat_specs"]
