"""Attention (issue 63): a player hears on their lobby sockets what waits for them elsewhere.

One message type, sent to one player's lobby sockets (``/ws/lobby``, and the quiet ones every
other page opens, ``/ws/lobby?only=attention``)::

    {"type": "attention", "kind": "your-move" | "rematch" | "proposal" | "campaign",
     "game": ID, "mode": MODE, "text": "..."}

``text`` is English, for a client without words of its own; the page says it in its language
from ``kind`` and ``mode`` (src/dorf/web/attention.js).  Who sends what:

- ``your-move``: :class:`Turns` hears the round's ``GameCreated``, ``GameChanged`` and
  ``SeatTaken`` (the composition root subscribes it) and tells the players of a game who now
  decide and did not before (the turn passed to them), or, when some of those who decided
  have decided and others still do (the Duel and Head to Head place at once: the other has
  placed), those who still do.  A player alone at their game (solo) is not told of their
  own moves.
- ``rematch``: an offer pushed to the invited player (:mod:`.offers`).
- ``proposal``: :meth:`Turns.proposed` hears the round's ``ProposalMade`` and tells the player
  who places the tile.
- ``campaign``: any feature calls the lobby's :class:`Attention` (its own kind).

A player learns only of their own games: a message goes to the sockets whose player holds a
seat of the game (``your-move``) or was offered it, and says no more than the game, its mode and
the kind.  On a database shared by several servers it goes over the lobby's channel
(``dorf_lobby``, ``{"t": "attention", "to": PLAYER, "m": MESSAGE}``), so a socket on any of them hears it.
"""

from __future__ import annotations

import logging
from collections import OrderedDict
from collections.abc import Callable, Coroutine
from typing import TYPE_CHECKING, Any

from dorf.games.modes import MODES
from dorf.server.protocol.views import Json
from dorf.server.protocol.wire import dumps
from dorf.server.storage.base import Storage, StorageError
from dorf.server.storage.lobby import note

if TYPE_CHECKING:
    from dorf.server.round.game import Game

log = logging.getLogger("dorf.server")

#: The kinds of attention a page knows.
KINDS = ("your-move", "rematch", "proposal", "campaign")
#: Games whose deciding players are remembered at most (the least recently changed forgotten).
REMEMBERED = 20_000

#: Tell one player: ``(player_id, kind, game_id, mode, text)``.
Tell = Callable[[str, str, str, str, str], None]


def mode_text(mode: str) -> str:
    """A mode's name in English (``MODES``), or the mode itself."""
    found = MODES.get(mode)
    return mode if found is None else found.title


class Turns:
    """Whose move it is in each game changed here: a player whose seat becomes one that decides
    is told ``your-move`` (see the module)."""

    def __init__(self, tell: Tell) -> None:
        self.tell = tell
        #: The players deciding in each game, as last seen (bounded, oldest forgotten).
        self.deciding: OrderedDict[str, frozenset[str]] = OrderedDict()
        #: ``your-move`` messages asked for.
        self.told = 0

    def turned(self, game: Game) -> None:
        """``game`` changed (created, a move, a seat taken): tell the players newly deciding."""
        session = game.session
        if session.is_over:
            self.deciding.pop(game.id, None)
            return
        seats = session.seats
        if any(s.kind == "online" and not s.claimed for s in seats):
            now: frozenset[str] = frozenset()  # not started: an online seat waits for its player
        else:
            now = frozenset(pid for i in session.waiting() if (pid := seats[i].player_id) is not None)
        before = self.deciding.pop(game.id, frozenset())
        self.deciding[game.id] = now
        while len(self.deciding) > REMEMBERED:
            self.deciding.popitem(last=False)
        mode = session.mode
        # The turn passed to them; or others decided and these still have to (now within before).
        told = now if now < before else now - before
        for player_id in sorted(told):
            self.told += 1
            self.tell(player_id, "your-move", game.id, mode, f"Your move: {mode_text(mode)}")

    def ended(self, game: Game) -> None:
        """``game`` ended: nobody decides in it any more."""
        self.deciding.pop(game.id, None)

    def proposed(self, game: Game, seat: int, active: int) -> None:
        """``seat`` proposed a placement to ``active`` at a cooperative table: the active seat's
        player hears ``proposal`` (not the proposer's own player: one person at several seats)."""
        seats = game.session.seats
        to, by = seats[active].player_id, seats[seat].player_id
        if to is not None and to != by:
            name = game.session.name(seat)
            self.tell(to, "proposal", game.id, game.session.mode, f"{name} proposes a placement")


__all__ = ["KINDS", "Tell", "Turns", "mode_text"]


class Attention:
    """The hook every feature calls (``lobby.attention(player_id, kind, game_id, mode, text)``):
    tell ``player_id``'s lobby sockets, on every server, that ``kind`` (one of :data:`KINDS`)
    waits for them in ``game_id``.  Only for a player of that game (or offered it): the caller
    knows.  ``spawn`` runs a coroutine in the background, ``tell_player(player_id, text)`` sends
    to that player's sockets on this server."""

    def __init__(
        self,
        storage: Storage,
        spawn: Callable[[Coroutine[Any, Any, None]], None],
        tell_player: Callable[[str, str], None],
    ) -> None:
        self.storage, self.spawn, self.tell_player = storage, spawn, tell_player

    def __call__(
        self, player_id: str, kind: str, game_id: str, mode: str = "", text: str = "", url: str = ""
    ) -> None:
        message: Json = {"type": "attention", "kind": kind, "game": game_id, "mode": mode, "text": text}
        if url:  # where the page goes (a campaign's page), if not the game's
            message["url"] = url
        if self.storage.dialect.shared:  # heard back here too, from the lobby's channel
            self.spawn(self._over_the_channel(player_id, message))
        else:
            self.tell_player(player_id, dumps(message))

    async def _over_the_channel(self, player_id: str, message: Json) -> None:
        try:
            await self.storage.lobby_tell(note("attention", to=player_id, m=message))
        except StorageError as exc:
            log.warning("dorf: an attention could not be told: %s", exc)
