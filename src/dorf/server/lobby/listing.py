"""The open games as the lobby's clients hold them (:class:`Listing`), and when they expire.

The list is one document ``{"version", "games": {id: entry}}`` for every client of a server: the
:data:`SHOWN` newest open games.  A client whose player has open games beyond them holds a
document of its own, the same plus those, so that its own games (and their "Withdraw") are
always at hand; its deltas are its own too.  A change is one diff for all the clients that hold
the common document, however many they are.

An open game nobody takes leaves the list at :func:`expires_at`: :data:`EXPIRE_REAL_TIME` after
it was listed with a real-time clock (its creator is at the screen, waiting), :data:`EXPIRE_SLOW`
with a correspondence clock or none; each entry says when (``expires``).
"""

from __future__ import annotations

import itertools
from collections.abc import Iterable
from typing import TYPE_CHECKING

from dorf.server.protocol.delta import diff
from dorf.server.protocol.messages import ProtocolError
from dorf.server.protocol.views import Json
from dorf.server.protocol.wire import dumps
from dorf.server.round.clients import Connection
from dorf.server.storage.rows import OpenGame

if TYPE_CHECKING:
    from dorf.server.config import ServerConfig

#: A rating is provisional (shown with a "?") while its RD is at least this (lichess).
PROVISIONAL_RD = 110.0
#: How long an open game waits to be taken with a real-time clock, and with a correspondence
#: clock or none (days a move), in seconds: then it leaves the list.
EXPIRE_REAL_TIME = 30 * 60.0
EXPIRE_SLOW = 24 * 3600.0
#: The open games a lobby client is sent (the newest; its player's own beyond them too).
SHOWN = 50


def expires_at(entry: OpenGame) -> float:
    """When ``entry`` leaves the list if nobody takes it (seconds since 1970).

    >>> def made(clock):
    ...     return OpenGame("g", "p", "Ann", None, None, "duel", clock, False, 1, 2, None, 1000.0)
    >>> expires_at(made("3+2")), expires_at(made("3d")), expires_at(made(None))
    (2800.0, 87400.0, 87400.0)
    """
    real_time = entry.clock is not None and not entry.clock.endswith("d")
    return entry.since + (EXPIRE_REAL_TIME if real_time else EXPIRE_SLOW)


def entry_json(entry: OpenGame) -> Json:
    return {
        "id": entry.game,
        "mode": entry.mode,
        "clock": entry.clock,
        "rated": entry.rated,
        "name": entry.name,
        "rating": None if entry.rating is None else round(entry.rating),
        "provisional": entry.rd is not None and entry.rd >= PROVISIONAL_RD,
        "free": entry.free,
        "seats": entry.seats,
        "since": entry.since,
        "expires": round(expires_at(entry)),
    }


class Listing:
    """The document the lobby's clients hold, and the open games of each player beyond it."""

    def __init__(self) -> None:
        self.doc: Json = {"version": 0, "games": {}}
        #: The open games of each player beyond the :data:`SHOWN` newest (their clients hold them too).
        self.beyond: dict[str, dict[str, Json]] = {}
        self._versions = itertools.count(1)

    def doc_for(self, conn: Connection) -> Json:
        """The document ``conn`` is to hold: the common one, or with its player's open games
        beyond the newest (then a version of its own)."""
        extra = self.beyond.get(conn.player_id) if conn.player_id is not None else None
        if not extra:
            return self.doc
        games = {**self.doc["games"], **extra}
        held = conn.doc
        if held is not None and held is not self.doc and held["games"] == games:
            return held
        return {"version": next(self._versions), "games": games}

    def update(self, found: Iterable[OpenGame], clients: Iterable[Connection]) -> None:
        """The open games as just read: each client hears what changed of its document."""
        old = self.doc
        old_games = old["games"]

        def entry(g: OpenGame) -> Json:
            shown = old_games.get(g.game)
            made = entry_json(g)
            return shown if shown == made else made  # unchanged: the same object, diffed at once

        newest = sorted(found, key=lambda g: (g.since, g.game), reverse=True)
        games = {g.game: entry(g) for g in newest[:SHOWN]}
        beyond: dict[str, dict[str, Json]] = {}
        for g in newest[SHOWN:]:
            beyond.setdefault(g.creator, {})[g.game] = entry(g)
        had_beyond, self.beyond = bool(self.beyond), beyond
        new = {"version": next(self._versions), "games": games}
        ops = diff(old, new)
        if len(ops) > 1:  # more than the version
            self.doc = new
        elif not had_beyond and not beyond:
            return
        common = None
        if self.doc is new:
            common = dumps({"type": "delta", "from": old["version"], "version": new["version"], "ops": ops})
        for conn in list(clients):
            held = conn.doc
            want = self.doc_for(conn)
            if want is held:
                continue
            if held is old and want is self.doc and common is not None:
                conn.send(common)
            else:
                send_delta(conn, held, want)
            conn.doc = want


def send_delta(conn: Connection, held: Json | None, want: Json) -> None:
    """Bring ``conn`` from the document it holds to ``want`` (a document of its own)."""
    if held is None:
        conn.send('{"type":"lobby",' + dumps(want)[1:])
        return
    ops = diff(held, want)
    conn.send(dumps({"type": "delta", "from": held["version"], "version": want["version"], "ops": ops}))


class Addresses:
    """The lobby clients of each address on this server: at most ``max_connections_per_address``
    (0: no limit) from one, besides ``max_connections`` in all (counted in memory: a lobby
    socket costs no transaction; behind several servers, that many on each)."""

    def __init__(self) -> None:
        self.counts: dict[str, int] = {}

    def room(self, address: str, clients: int, config: ServerConfig) -> ProtocolError | None:
        """Why one more client from ``address`` cannot be let in when the server has ``clients``
        (None: it can)."""
        per_address = config.max_connections_per_address
        if per_address and self.counts.get(address, 0) >= per_address:
            return ProtocolError(
                "busy", f"{per_address} lobby clients from your address already: close one first", 503
            )
        if clients >= config.max_connections:
            return ProtocolError("busy", "the lobby is full: try again later", 503)
        return None

    def add(self, address: str) -> None:
        self.counts[address] = self.counts.get(address, 0) + 1

    def remove(self, address: str) -> None:
        left = self.counts.get(address, 1) - 1
        if left > 0:
            self.counts[address] = left
        else:
            self.counts.pop(address, None)


def address_full(most: int) -> ProtocolError:
    return ProtocolError(
        "address-full",
        f"your address has {most} open games in the lobby already: wait until one is taken or expires",
        429,
    )
