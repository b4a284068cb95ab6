"""``GET /api/leaderboard?mode=duel``: the best players of a rated mode, as lichess lists them.

A leaderboard lists the players with at least :data:`~dorf.server.storage.daily.LEADER_GAMES`
rated games whose RD is below :data:`~dorf.server.storage.daily.LEADER_RD` *now* (an RD grows
while its player stays away: a player who stopped playing leaves the list until it plays again),
and with counted results against :data:`~dorf.server.storage.daily.LEADER_OPPONENTS` different
players (issue 60: two accounts that only play each other list neither).
The storage reads them in rating order from an index that holds only those whose stored RD is
below the bar; the RD grown since is checked here, and the next ones read if some fell out.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from dorf.server.players.ratings import RATED_MODES, grown
from dorf.server.protocol.messages import ProtocolError
from dorf.server.storage.base import StorageError, StoredRating
from dorf.server.storage.daily import LEADER_RD

if TYPE_CHECKING:
    from dorf.server.storage.base import Storage

#: Players a leaderboard lists.
LEADERS = 100


async def leaderboard(storage: Storage, mode: str, when: float, limit: int = LEADERS) -> dict[str, Any]:
    """The top ``limit`` players of ``mode`` at ``when`` (seconds since 1970), best first."""
    if mode not in RATED_MODES:
        raise ProtocolError("bad-mode", f"a leaderboard is of a rated mode: {', '.join(RATED_MODES)}")
    players: list[dict[str, Any]] = []
    offset, batch = 0, limit * 2
    try:
        while len(players) < limit:
            found = await storage.leaders(mode, batch, offset)
            for leader in found:
                stored = StoredRating(
                    mode, leader.rating, leader.rd, leader.volatility, leader.games, leader.played
                )
                rd = grown(stored, when).rd
                if rd < LEADER_RD and len(players) < limit:
                    players.append(
                        {
                            "rank": len(players) + 1,
                            "name": leader.name,
                            "rating": round(leader.rating, 2),
                            "rd": round(rd, 2),
                            "games": leader.games,
                        }
                    )
            if len(found) < batch:
                break
            offset += batch
    except StorageError as exc:
        raise ProtocolError("storage", f"the leaderboard cannot be read now ({exc})", 503) from None
    return {"mode": mode, "players": players}


__all__ = ["LEADERS", "leaderboard"]
