"""The one limit on making games: every way of making one counts against it.

A game is made by ``POST /api/games`` (also an open game for the lobby), a rematch
(``POST /api/games/ID/rematch``), a seek of quick pairing (``{"type": "seek"}`` on
``/ws/lobby``: the game its pairing makes is counted when the seek is made), and a game of the
daily challenge (``POST /api/daily``: the counted attempt or a practice game).  Each is counted
under its address and, where a player asks, under its player too, at most ``--create-limit``
(:attr:`~dorf.server.config.ServerConfig.create_limit`) a minute each, by the storage's
:meth:`~dorf.server.storage.base.Storage.hit` (shared by every server of one database).  The
next one is refused with HTTP 429 ``rate-limited`` (``Retry-After``: the seconds to wait), and
nothing is made.  Taking a seat of a game someone else made is no new game (the maker's count
paid for it).
"""

from __future__ import annotations

import math

from dorf.server.protocol.messages import ProtocolError, RateLimited
from dorf.server.storage.base import Storage, StorageError

#: What the requests are counted as (the address's key is ``new games:ADDRESS``, the player's
#: ``new games:player:ID``: an address never begins with ``player:``).
WHAT = "new games"


async def count_new_game(
    storage: Storage, per_minute: int, address: str, player_id: str | None = None
) -> None:
    """Count one new game from ``address`` (and ``player_id``, if a player asks) in ``storage``;
    :class:`RateLimited` if either made ``per_minute`` (``--create-limit``) games in the last
    minute (``storage`` 503 if the database cannot count now; none counted if it is 0)."""
    if per_minute <= 0:
        return
    keys = [(f"{WHAT}:{address}", "from one address")]
    if player_id is not None:
        keys.append((f"{WHAT}:player:{player_id}", "from one player"))
    for key, who in keys:
        try:
            wait = await storage.hit(key, per_minute)
        except StorageError as exc:
            raise ProtocolError("storage", f"the database cannot count requests now ({exc})", 503) from None
        if wait is not None:
            seconds = max(1, math.ceil(wait))
            raise RateLimited(
                f"at most {per_minute} new games a minute {who}: try again in {seconds} s", seconds
            )


__all__ = ["WHAT", "RateLimited", "count_new_game"]
