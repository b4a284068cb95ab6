"""A rematch offered is pushed to the invited player at once (issue 61: it showed only after a
reload).

Every server reads the lobby's rows again when any server changes them (``dorf_lobby``); an
offer it has not seen before is told, on that server, to the invited player's lobby sockets and
to the sockets of their finished games against the asker that hold their seat (where a player
is at the end of a game): ``{"type": "rematch", "game", "mode", "clock", "rated", "name"}``.
The lobby sockets also hear it as attention (:mod:`.attention`): ``{"type": "attention",
"kind": "rematch", "game", "mode", "text", "name"}`` (the tab says so).
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING

from dorf.server.protocol.views import Json
from dorf.server.protocol.wire import dumps
from dorf.server.round.connection import Connection
from dorf.server.storage.rows import OpenGame

if TYPE_CHECKING:
    from dorf.server.round.game import Game


def offer_json(offer: OpenGame) -> Json:
    """A rematch offered, as the invited player is told it (``name``: who asks)."""
    return {
        "game": offer.game,
        "mode": offer.mode,
        "clock": offer.clock,
        "rated": offer.rated,
        "name": offer.name,
    }


def push_offer(games: Iterable[Game], lobby_clients: Iterable[Connection], offer: OpenGame) -> None:
    """Tell ``offer`` to its invited player's sockets on this server (see the module): in the
    lobby, and in ``games`` (the games in memory)."""
    text = dumps({"type": "rematch", **offer_json(offer)})
    attention = dumps(
        {
            "type": "attention",
            "kind": "rematch",
            "game": offer.game,
            "mode": offer.mode,
            "text": f"{offer.name} offers a rematch",
            "name": offer.name,
        }
    )
    for conn in list(lobby_clients):
        if conn.player_id == offer.invited:
            conn.send(text)
            conn.send(attention)
    for game in list(games):
        session = game.session
        if not game.connections or not session.is_over:
            continue
        ids = [seat.player_id for seat in session.seats]
        if offer.creator not in ids or offer.invited not in ids:
            continue
        theirs = {i for i, player_id in enumerate(ids) if player_id == offer.invited}
        for conn in list(game.connections):
            if conn.seats & theirs:
                conn.send(text)
