"""Telling the clients of a game what changed: deltas of each client's own view.

Each client holds the description of the game it was last sent
(:attr:`~dorf.server.round.clients.Connection.doc`); after a change it gets
what changed in its view (:mod:`dorf.server.protocol.delta`), one diff per
pair of views however many clients share them, and a whole state only on
connecting or asking (``sync``).  Each state and delta says the server's time
(``now``, ms since 1970: the page's clocks tick from it; and ``rate``, how many times
faster than real time the clocks run, where that is not 1: ``--clock-scale``, for tests).
A state also carries the game's table (``"table"``: the active choice, the proposals, the talk:
:mod:`~dorf.server.round.table`), and once a change has gone out the table hears of it.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any, Protocol

from dorf.server.protocol.delta import diff
from dorf.server.protocol.messages import saved_message
from dorf.server.protocol.wire import dumps
from dorf.server.round.clients import Connection
from dorf.server.round.game import Broken, Game


class TableView(Protocol):
    """What the fan-out asks of a game's table (:class:`~dorf.server.round.table.Table`)."""

    def text(self, game: Game, seats: set[int]) -> str:
        """A state's ``"table"`` for a client holding ``seats``, as JSON text."""
        ...

    def changed(self, game: Game) -> None:
        """The game changed and its clients have their deltas."""
        ...


class Fanout:
    """Sends the states and deltas of games to their clients; ``now`` is the clocks' time,
    ``table`` the games' tables (None: states carry none)."""

    def __init__(
        self, now: Callable[[], float] = time.time, rate: float = 1.0, table: TableView | None = None
    ) -> None:
        self.now = now
        self.rate = rate
        self.table = table

    def _now(self) -> str:
        now = str(round(self.now() * 1000))
        return now if self.rate == 1.0 else f'{now},"rate":{self.rate:g}'

    def send_state(self, game: Game | Broken, conn: Connection) -> None:
        """Send ``conn`` the whole state of the game (on connecting, after hello, when asked); the
        next change goes to it as a delta from this."""
        if isinstance(game, Broken):
            conn.send('{"type":"state","you":{"seats":[],"legal":{}},"game":' + game.public_text() + "}")
            conn.doc = None
            return
        doc = game.session.document(conn.seats)
        game_text = game.session.public_text(conn.seats)  # the same as doc["game"], kept as text
        # the server's time, for the page's clocks: only a game with a clock needs it
        clocked = game.session.clock is not None
        head = '{"type":"state","now":' + self._now() + ',"you":' if clocked else '{"type":"state","you":'
        table = "" if self.table is None else ',"table":' + self.table.text(game, conn.seats)
        conn.send(head + dumps(doc["you"]) + ',"game":' + game_text + table + "}")
        conn.doc = doc

    def broadcast(self, game: Game) -> None:
        """Tell every client of the game what changed in its view: a delta from the description
        it has (one diff per pair of views), or the whole state if it has none."""
        made: dict[tuple[int, int], str] = {}
        clocked = game.session.clock is not None
        now = {"now": round(self.now() * 1000)} if clocked else {}
        rate = {} if self.rate == 1.0 or not clocked else {"rate": self.rate}
        game_ops: dict[tuple[int, int], list[list[Any]]] = {}  # the game's part, once per pair of views
        for conn in list(game.connections):
            old = conn.doc
            new = game.session.document(conn.seats)
            if old is new:
                continue
            if old is None:
                self.send_state(game, conn)
                continue
            key = (id(old), id(new))
            text = made.get(key)
            if text is None:
                try:
                    pair = (id(old["game"]), id(new["game"]))
                    ops = game_ops.get(pair)
                    if ops is None:
                        ops = game_ops[pair] = diff(old["game"], new["game"], "game")
                    if old["you"] is not new["you"]:
                        ops = ops + diff(old["you"], new["you"], "you")
                except ValueError:
                    self.send_state(game, conn)
                    continue
                text = made[key] = dumps(
                    {
                        "type": "delta",
                        **now,
                        **rate,
                        "from": old["game"]["version"],
                        "version": new["game"]["version"],
                        "ops": ops,
                    }
                )
            conn.send(text)
            conn.doc = new
        if self.table is not None:
            self.table.changed(game)

    def saved(self, game: Game, version: int, movers: list[Connection]) -> None:
        """The game is stored up to ``version``: tell the clients whose changes those were."""
        text = saved_message(version)
        for conn in movers:
            conn.send(text)
