"""What the edge uses of the server: the roles and features the routes and the websockets call.
The composition root (:mod:`dorf.server.hub`) has them and hands itself to the app factory
(:func:`dorf.server.edge.app.build_app`); nothing of the edge imports it."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Protocol

from dorf.server.campaigns.routes import CampaignParts
from dorf.server.daily.routes import DailyParts
from dorf.server.edge.players import PlayerParts
from dorf.server.lobby.parts import LobbyParts

if TYPE_CHECKING:
    from dorf.server.computer.seats import ComputerSeats
    from dorf.server.edge.metrics import Metrics
    from dorf.server.round.clients import Doorman
    from dorf.server.round.fanout import Fanout
    from dorf.server.round.finisher import Finisher
    from dorf.server.round.game import Game
    from dorf.server.round.moves import Mover
    from dorf.server.round.table import Table
    from dorf.server.round.talk import Talk


class ServerParts(LobbyParts, DailyParts, PlayerParts, CampaignParts, Protocol):
    """The server as the edge sees it (started when the app starts, closed when it stops)."""

    @property
    def mover(self) -> Mover: ...

    @property
    def finisher(self) -> Finisher: ...

    @property
    def computer(self) -> ComputerSeats: ...

    @property
    def doorman(self) -> Doorman: ...

    @property
    def fanout(self) -> Fanout: ...

    @property
    def table(self) -> Table: ...

    @property
    def talk(self) -> Talk: ...

    @property
    def metrics(self) -> Metrics: ...

    def touch(self, game: Game) -> None: ...

    def health(self) -> dict[str, Any]: ...

    async def start(self) -> None: ...

    async def close(self) -> None: ...


__all__ = ["ServerParts"]
