"""What the lobby's routes use of the server: handed to them by the edge's app factory (the
composition root, :mod:`dorf.server.hub`, has them); nothing here imports it."""

from __future__ import annotations

from typing import TYPE_CHECKING, Protocol

if TYPE_CHECKING:
    from dorf.server.config import ServerConfig
    from dorf.server.lobby.lobby import Lobby
    from dorf.server.players.service import Players
    from dorf.server.round.game import Broken, Game
    from dorf.server.round.seats import Seating
    from dorf.server.storage.base import Storage


class LobbyParts(Protocol):
    """The roles and features the lobby's routes call."""

    @property
    def config(self) -> ServerConfig: ...

    @property
    def storage(self) -> Storage: ...

    @property
    def players(self) -> Players: ...

    @property
    def lobby(self) -> Lobby: ...

    @property
    def seating(self) -> Seating: ...

    async def game(self, game_id: str) -> Game | Broken: ...


__all__ = ["LobbyParts"]
