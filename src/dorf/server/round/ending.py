"""How a game ended (told with :class:`~dorf.server.round.events.GameEnded`, kept in its session)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class Ending:
    """How a game ended: ``end`` (one of :data:`~dorf.server.round.finisher.ENDS`), the winning
    seat (None: a draw, a shared result, or an abort) and whether it counts for the ratings."""

    end: str
    winner: int | None
    rated: bool = False

    def json(self) -> dict[str, Any]:
        return {"end": self.end, "winner": self.winner, "rated": self.rated}


__all__ = ["Ending"]
