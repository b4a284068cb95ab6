"""What the lobby keeps of its seeks and counts: a seek of this server waiting with its
player's socket (:class:`Waiting`), and the lobby's figures for ``/api/health``."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from dorf.server.round.clients import Connection
from dorf.server.storage.rows import Seek

if TYPE_CHECKING:
    from dorf.server.players.accounts import Player


@dataclass
class Waiting:
    """A seek of this server: the player's socket hears when it is paired."""

    seek: Seek
    player: Player
    conn: Connection


@dataclass
class LobbyCounts:
    """Seeks made on this server, players it paired, open games it listed."""

    seeks: int = 0
    paired: int = 0
    games: int = 0
