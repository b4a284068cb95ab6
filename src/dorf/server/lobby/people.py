"""Who is in the lobby: a player's rating and RD in a mode (the players are
:class:`~dorf.server.players.service.Players`,
:mod:`dorf.server.players`: the cookie's player, made on the first visit; a bot's token)."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from dorf.server.players.service import Players

#: A new player's rating and RD (Glicko-2 as lichess starts it), where none is known.
START_RATING, START_RD = 1500.0, 500.0


async def rating_of(players: Players, player_id: str, mode: str) -> tuple[float | None, float | None]:
    """A player's rating and RD in ``mode``; (None, None) in a mode without ratings (the
    cooperative game)."""
    found = (await players.ratings(player_id)).get(mode)
    if found is None:
        return None, None
    return float(found.rating), float(found.rd)
