"""The daily challenge's and the leaderboards' HTTP API (details in ``docs/server.md``, "The daily
challenge"):

- ``POST /api/daily``: start today's attempt, or a practice game of a day's shuffle
  (``{"date"}``), answered as ``POST /api/games`` answers, with ``practice`` and ``date``;
- ``GET /api/daily``, ``GET /api/daily/DATE``: a day's challenge as the asking player sees it;
- ``POST /api/games/ID/lessons``: the coach's three biggest lessons of a finished game;
- ``GET /api/leaderboard?mode=duel``: the top players by rating.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, Any

from fastapi import FastAPI, Request
from fastapi.responses import JSONResponse

from dorf.server.edge.creating import count_new_game
from dorf.server.edge.limits import client_address
from dorf.server.players.leaders import leaderboard
from dorf.server.protocol.messages import need_object

if TYPE_CHECKING:
    from dorf.server.hub import Hub


def add_daily_routes(
    app: FastAPI, hub: Callable[[], Hub], body_of: Callable[[Request], Awaitable[Any]]
) -> None:
    """The challenge's routes on ``app`` (``hub()`` the app's hub, ``body_of`` a changing
    request's JSON body, checked to come from the server's own pages)."""

    @app.post("/api/daily")
    async def start_daily(request: Request) -> JSONResponse:
        data = await body_of(request)
        cookies = JSONResponse({})
        player = await hub().players.of_request(request, cookies)  # a visitor becomes a player now
        await count_new_game(hub(), client_address(request), player.id)  # as every new game
        answer = JSONResponse(await hub().daily.start_attempt(data, player), status_code=201)
        answer.raw_headers.extend(h for h in cookies.raw_headers if h[0] == b"set-cookie")
        return answer

    @app.get("/api/daily")
    async def today(request: Request) -> dict[str, Any]:
        return await hub().daily.view(await hub().players.known(request))

    @app.get("/api/daily/{day}")
    async def a_day(day: str, request: Request) -> dict[str, Any]:
        return await hub().daily.view(await hub().players.known(request), day)

    @app.post("/api/games/{game_id}/lessons")
    async def lessons(game_id: str, request: Request) -> dict[str, Any]:
        data = need_object(await body_of(request), "a lessons request")
        game = await hub().playable(game_id)
        return await hub().daily.lessons(game, data.get("token"), client_address(request))

    @app.get("/api/leaderboard")
    async def leaders(mode: str = "duel") -> dict[str, Any]:
        return await leaderboard(hub().storage, mode, hub().players.clock())


__all__ = ["add_daily_routes"]
