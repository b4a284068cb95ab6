"""Table talk (issue 63): a short text chat per game for its seated players, kept with the game.

A seated player says ``{"type": "say", "seat": S, "text": "..."}`` (the text read once:
:func:`~dorf.server.protocol.messages.parse_talk`); the message is stored with its number in
the game (:mod:`dorf.server.storage.talk`: the other servers hear it there), and every client
here that holds a seat of the game gets ``{"type": "talk", "message": {"n", "seat", "name",
"text", "at"}}``.  Watchers neither read nor write it.  A game has talk when two or more of its
seats are people (not computers): the cooperative game with friends, the Duel, Head to Head.

The last :data:`KEEP` messages of a game in memory are kept with it (read from the storage when a
seat holder first asks, see :meth:`Talk.load`): a seat holder's state carries them.  A seat says
at most :data:`BURST` messages in :data:`WINDOW` seconds (on this server).
"""

from __future__ import annotations

import logging
import time
from collections import deque
from collections.abc import Callable, Collection
from datetime import UTC, datetime
from typing import Protocol
from weakref import WeakKeyDictionary

from dorf.server.protocol.messages import ProtocolError
from dorf.server.protocol.views import Json
from dorf.server.protocol.wire import dumps
from dorf.server.round.connection import Connection
from dorf.server.round.game import Game
from dorf.server.round.seats import check_seat
from dorf.server.round.session import COMPUTER, GameSession
from dorf.server.storage.base import StorageError, TalkLine

log = logging.getLogger("dorf.server")

#: The messages of a game a seat holder's state carries (the last ones).
KEEP = 100
#: At most BURST messages from one seat in WINDOW seconds.
BURST, WINDOW = 5, 10.0


class TalkStore(Protocol):
    """What talk asks of the storage (:class:`~dorf.server.storage.talk.TalkCalls`)."""

    async def talk_say(self, game_id: str, line: TalkLine) -> TalkLine: ...

    async def talk_recent(self, game_id: str, limit: int = 0) -> list[TalkLine]: ...


def has_talk(session: GameSession) -> bool:
    """Whether a game has talk: two or more of its seats are people."""
    return sum(seat.kind != COMPUTER for seat in session.seats) >= 2


def utc_stamp(seconds: float) -> str:
    """``seconds`` since 1970 as UTC ISO 8601 to the second.

    >>> utc_stamp(0)
    '1970-01-01T00:00:00Z'
    """
    return datetime.fromtimestamp(seconds, UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


class Talk:
    """The talk of the games in memory: said, kept, told (see the module)."""

    def __init__(
        self,
        storage: TalkStore,
        wall: Callable[[], float] = time.time,
        monotonic: Callable[[], float] = time.monotonic,
    ) -> None:
        """``wall`` says when a message was said (seconds since 1970), ``monotonic`` times the limit."""
        self.storage = storage
        self.wall = wall
        self.monotonic = monotonic
        #: The last KEEP messages of each game read so far (a game that leaves memory takes its own).
        self._lines: WeakKeyDictionary[Game, list[TalkLine]] = WeakKeyDictionary()
        #: When each seat of a game last spoke (the last BURST times).
        self._said: WeakKeyDictionary[Game, dict[int, deque[float]]] = WeakKeyDictionary()
        #: Messages said here and heard from other servers.
        self.counts = {"said": 0, "heard": 0}

    async def load(self, game: Game, *, again: bool = False) -> None:
        """Read the game's last messages from the storage, once; ``again``: read them anew (a seat
        holder's hello or sync), so that a message removed since (``dorf admin remove-message``)
        is gone from what is shown.  A storage error: nothing read now, the next one asks again."""
        if not has_talk(game.session):
            return
        known = self._lines.get(game)
        if known is not None and not again:
            return
        before = set() if known is None else {line.n for line in known}
        try:
            lines = await self.storage.talk_recent(game.id, KEEP)
        except StorageError as exc:
            log.warning("dorf: the talk of game %s could not be read: %s", game.id, exc)
            return
        current = self._lines.get(game, [])
        arrived = [line for line in current if line.n not in before]  # said while it was read
        merged = {line.n: line for line in [*lines, *arrived]}
        self._lines[game] = [merged[n] for n in sorted(merged)][-KEEP:]

    def recent(self, game: Game, seats: Collection[int]) -> list[Json]:
        """The messages a client holding ``seats`` is shown in its state (a watcher: none)."""
        if not seats:
            return []
        return [line.json() for line in self._lines.get(game, ())]

    async def say(self, game: Game, conn: Connection, seat: int, text: str) -> TalkLine:
        """``seat`` (held by ``conn``) says ``text`` (read already): stored, then told to every seat
        holder here (and, through the storage, on the other servers).  ProtocolError if not."""
        session = game.session
        check_seat(session, conn.seats, seat)
        if not has_talk(session):
            raise ProtocolError(
                "no-talk", "this game has no talk: it needs two or more people at the table", 409
            )
        times = self._said.setdefault(game, {}).setdefault(seat, deque(maxlen=BURST))
        now = self.monotonic()
        if len(times) == BURST and now - times[0] < WINDOW:
            wait = WINDOW - (now - times[0])
            raise ProtocolError(
                "talk-too-fast", f"at most {BURST} messages in {WINDOW:g} s: wait {wait:.0f} s", 429
            )
        await self.load(game)
        line = TalkLine(0, seat, session.name(seat), text, utc_stamp(self.wall()), len(session.decisions))
        try:
            said = await self.storage.talk_say(game.id, line)
        except StorageError as exc:
            raise ProtocolError("storage", f"the message was not kept: {exc}", 503) from None
        times.append(now)
        self.counts["said"] += 1
        self.add(game, said)
        return said

    async def replay(self, game_id: str) -> list[Json]:
        """Every message of a game, each with ``move``: how many decisions had been made when it
        was said (a finished game's replay shows them)."""
        try:
            lines = await self.storage.talk_recent(game_id)
        except StorageError as exc:
            raise ProtocolError("storage", f"the game's talk cannot be read now: {exc}", 503) from None
        return [line.json(move=True) for line in lines]

    def heard(self, game: Game, line: TalkLine) -> None:
        """Another server stored a message of a game held here."""
        self.counts["heard"] += 1
        self.add(game, line)

    def add(self, game: Game, line: TalkLine) -> None:
        """Keep a new message (once per number) and tell the seat holders here."""
        lines = self._lines.get(game)
        if lines is not None:
            if any(known.n == line.n for known in lines):
                return
            lines.append(line)
            lines.sort(key=lambda known: known.n)
            del lines[:-KEEP]
        text = dumps({"type": "talk", "message": line.json()})
        for conn in list(game.connections):
            if conn.seats:
                conn.send(text)


__all__ = ["BURST", "KEEP", "WINDOW", "Talk", "has_talk", "utc_stamp"]
