"""The campaigns' HTTP API (details in ``docs/server.md``, "Campaigns"): every route but the
list answers a member of the campaign only (else ``not-a-member``, 403).

- ``GET /api/campaigns``: the asking player's campaigns; ``POST /api/campaigns {"name"}``: a new
  one (its id and join link), limited per address (``--campaign-limit``);
- ``GET /api/campaigns/KEY``: one campaign (KEY its id, or the name of one of the player's),
  with its members, its link and its next game; ``.../score.svg``, ``.../track.svg``;
- ``POST /api/campaigns/KEY/join {"code"}``: join by the link ``/campaigns/ID/join/CODE``;
- ``POST .../record {"game", "branches"?}``, ``.../choose {"branch"}``, ``.../rename {"name"}``,
  ``.../archive {"archived"}``, ``.../next`` (a cooperative game of the members).
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, Any, Protocol

from fastapi import FastAPI, Request
from fastapi.responses import JSONResponse, Response

from dorf.server.campaigns.finished import record_request
from dorf.server.protocol.requests import client_address
from dorf.server.round.creating import count_new_game

if TYPE_CHECKING:
    from dorf.server.campaigns.desk import CampaignDesk
    from dorf.server.config import ServerConfig
    from dorf.server.players.service import Players
    from dorf.server.storage.base import Storage


class CampaignParts(Protocol):
    """What the campaigns' routes use of the server (the composition root gives them)."""

    @property
    def config(self) -> ServerConfig: ...

    @property
    def storage(self) -> Storage: ...

    @property
    def players(self) -> Players: ...

    @property
    def campaigns(self) -> CampaignDesk: ...


def add_campaign_routes(
    app: FastAPI,
    parts: Callable[[], CampaignParts],
    body_of: Callable[[Request], Awaitable[Any]],
    too_many: Callable[[Request, int, str], Awaitable[JSONResponse | None]],
) -> None:
    """The campaigns' routes on ``app`` (``too_many``: the 429 answer once an address made its
    new campaigns of the minute)."""

    def answer(data: Any, cookies: JSONResponse, status: int = 200) -> JSONResponse:
        made = JSONResponse(data, status_code=status)
        made.raw_headers.extend(h for h in cookies.raw_headers if h[0] == b"set-cookie")
        return made

    @app.get("/api/campaigns")
    async def campaigns(request: Request) -> JSONResponse:
        server = parts()
        return JSONResponse(await server.campaigns.listing(await server.players.player_of(request)))

    @app.post("/api/campaigns")
    async def new_campaign(request: Request) -> JSONResponse:
        data = await body_of(request)
        server = parts()
        refused = await too_many(request, server.config.campaign_limit, "new campaigns")
        if refused is not None:
            return refused
        cookies = JSONResponse({})
        player = await server.players.of_request(request, cookies)  # a visitor becomes a player
        return answer(await server.campaigns.create(data, player), cookies, 201)

    @app.get("/api/campaigns/{key}")
    async def campaign(key: str, request: Request) -> JSONResponse:
        server = parts()
        player = await server.players.player_of(request)
        cookies = JSONResponse({})
        if player is None and await server.campaigns.claimable(key):
            # A campaign of before, nobody's yet: a visitor who opens it becomes a player and takes it.
            player = await server.players.of_request(request, cookies)
        return answer(await server.campaigns.view(key, player), cookies)

    @app.get("/api/campaigns/{key}/score.svg")
    async def campaign_plot(key: str, request: Request) -> Response:
        server = parts()
        svg = await server.campaigns.svg(key, await server.players.player_of(request), "score")
        return Response(svg, media_type="image/svg+xml")

    @app.get("/api/campaigns/{key}/track.svg")
    async def campaign_track(key: str, request: Request) -> Response:
        server = parts()
        svg = await server.campaigns.svg(key, await server.players.player_of(request), "track")
        return Response(svg, media_type="image/svg+xml")

    @app.post("/api/campaigns/{key}/join")
    async def campaign_join(key: str, request: Request) -> JSONResponse:
        data = await body_of(request)
        cookies = JSONResponse({})
        server = parts()
        player = await server.players.of_request(request, cookies)
        return answer(await server.campaigns.join(key, data, player), cookies)

    @app.post("/api/campaigns/{key}/record")
    async def campaign_record(key: str, request: Request) -> JSONResponse:
        game_id, branches = record_request(await body_of(request))
        server = parts()
        player = await server.players.player_of(request)
        return JSONResponse(await server.campaigns.record(key, game_id, branches, player))

    @app.post("/api/campaigns/{key}/choose")
    async def campaign_choose(key: str, request: Request) -> JSONResponse:
        data = await body_of(request)
        server = parts()
        return JSONResponse(await server.campaigns.choose(key, data, await server.players.player_of(request)))

    @app.post("/api/campaigns/{key}/rename")
    async def campaign_rename(key: str, request: Request) -> JSONResponse:
        data = await body_of(request)
        server = parts()
        return JSONResponse(await server.campaigns.rename(key, data, await server.players.player_of(request)))

    @app.post("/api/campaigns/{key}/archive")
    async def campaign_archive(key: str, request: Request) -> JSONResponse:
        data = await body_of(request)
        server = parts()
        return JSONResponse(
            await server.campaigns.archive(key, data, await server.players.player_of(request))
        )

    @app.post("/api/campaigns/{key}/next")
    async def campaign_next(key: str, request: Request) -> JSONResponse:
        await body_of(request)
        server = parts()
        player = await server.players.player_of(request)
        if player is not None:  # as every new game (a visitor is refused: no campaign is theirs)
            await count_new_game(
                server.storage, server.config.create_limit, client_address(request), player.id
            )
        return JSONResponse(await server.campaigns.next_game(key, player), status_code=201)


__all__ = ["CampaignParts", "add_campaign_routes"]
