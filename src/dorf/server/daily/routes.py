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
from typing import TYPE_CHECKING, Any, Protocol

from fastapi import FastAPI, Request
from fastapi.responses import JSONResponse

from dorf.server.players.leaders import leaderboard
from dorf.server.protocol.messages import need_object
from dorf.server.protocol.requests import client_address
from dorf.server.round.creating import count_new_game

if TYPE_CHECKING:
    from dorf.server.config import ServerConfig
    from dorf.server.daily.challenge import Daily
    from dorf.server.players.service import Players
    from dorf.server.round.game import Game
    from dorf.server.storage.base import Storage


class DailyParts(Protocol):
    """What the challenge's routes use of the server (the composition root gives them)."""

    @property
    def config(self) -> ServerConfig: ...

    @property
    def storage(self) -> Storage: ...

    @property
    def players(self) -> Players: ...

    @property
    def daily(self) -> Daily: ...

    async def playable(self, game_id: str) -> Game: ...


def add_daily_routes(
    app: FastAPI, parts: Callable[[], DailyParts], body_of: Callable[[Request], Awaitable[Any]]
) -> None:
    """The challenge's routes on ``app`` (``parts()`` the server's parts, once it runs; ``body_of``
    a changing request's JSON body, checked to come from the server's own pages)."""

    @app.post("/api/daily")
    async def start_daily(request: Request) -> JSONResponse:
        data = await body_of(request)
        cookies = JSONResponse({})
        server = parts()
        player = await server.players.of_request(request, cookies)  # a visitor becomes a player now
        # as every new game
        await count_new_game(server.storage, server.config.create_limit, client_address(request), player.id)
        answer = JSONResponse(await server.daily.start_attempt(data, player), status_code=201)
        answer.raw_headers.extend(h for h in cookies.raw_headers if h[0] == b"set-cookie")
        return answer

    @app.get("/api/daily")
    async def today(request: Request) -> JSONResponse:
        # Answered as it is (plain JSON already): FastAPI's encoding of a returned dict walks the
        # hundred lines of the day's best again, a millisecond of CPU.
        return JSONResponse(await parts().daily.view(await parts().players.known(request)))

    @app.get("/api/daily/{day}")
    async def a_day(day: str, request: Request) -> dict[str, Any]:
        return await parts().daily.view(await parts().players.known(request), day)

    @app.post("/api/games/{game_id}/lessons")
    async def lessons(game_id: str, request: Request) -> dict[str, Any]:
        data = need_object(await body_of(request), "a lessons request")
        game = await parts().playable(game_id)
        return await parts().daily.lessons(game, data.get("token"), client_address(request))

    @app.get("/api/leaderboard")
    async def leaders(mode: str = "duel") -> dict[str, Any]:
        return await leaderboard(parts().storage, mode, parts().players.clock())


__all__ = ["add_daily_routes"]
