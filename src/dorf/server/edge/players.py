"""The players' HTTP API (:mod:`dorf.server.players`; details in ``docs/server.md``, "Players and
ratings"):

- ``GET /api/me``: the player of this browser (made on its first visit: the cookie);
- ``POST /api/me/name``, ``/api/me/password``, ``/api/me/tokens``: change the name, set or
  change the password, make an API token (a bot account);
- ``POST /api/sign-in``, ``/api/sign-out``: this device as another player (name and password),
  or as nobody;
- ``GET /api/players/NAME``: a player's ratings, their history and the last rated games;
- ``GET /api/games/ID/players``: the players of a game's seats, their ratings, the changes.

A request that changes a player must name one (its cookie or bearer token: else ``no-player``,
HTTP 401) and come from the server's own pages (``bad-origin``); signing in is limited per
address and per name (HTTP 429, ``Retry-After``).
"""

from __future__ import annotations

import math
from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, Any

from fastapi import FastAPI, Request, Response
from fastapi.responses import JSONResponse

from dorf.server.edge.limits import client_address
from dorf.server.players.accounts import checked_text
from dorf.server.players.names import name_key
from dorf.server.protocol.messages import ProtocolError, need_object
from dorf.server.storage.base import StorageError

if TYPE_CHECKING:
    from dorf.server.hub import Hub

#: Sign-in attempts a minute from one address, and for one name (from anywhere).
SIGN_IN_PER_ADDRESS, SIGN_IN_PER_NAME = 10, 5


def add_player_routes(
    app: FastAPI, hub: Callable[[], Hub], body_of: Callable[[Request], Awaitable[Any]]
) -> None:
    """The players' routes on ``app`` (``hub()`` the app's hub, ``body_of`` a changing request's
    JSON body, checked to come from the server's own pages)."""

    async def player_body(request: Request, what: str) -> tuple[Any, dict[str, Any]]:
        data = need_object(await body_of(request), what)
        return await hub().players.of_request(request, None), data

    async def limited(key: str, per_minute: int, what: str) -> JSONResponse | None:
        """The 429 answer if ``key`` has had its ``per_minute`` sign-ins of the minute."""
        try:
            wait = await hub().storage.hit(key, per_minute)
        except StorageError as exc:
            raise ProtocolError("storage", f"the database cannot count requests now ({exc})", 503) from None
        if wait is None:
            return None
        seconds = max(1, math.ceil(wait))
        message = f"at most {per_minute} sign-ins a minute {what}: try again in {seconds} s"
        error = ProtocolError("rate-limited", message, 429)
        return JSONResponse(
            {"error": error.as_json()}, status_code=429, headers={"Retry-After": str(seconds)}
        )

    @app.get("/api/me")
    async def me(request: Request, response: Response) -> dict[str, Any]:
        players = hub().players
        player = await players.of_request(request, response)
        return await players.me(player)

    @app.post("/api/me/name")
    async def rename(request: Request) -> dict[str, Any]:
        player, data = await player_body(request, "a new name")
        players = hub().players
        return await players.me(await players.rename(player, data.get("name")))

    @app.post("/api/me/password")
    async def password(request: Request) -> dict[str, Any]:
        player, data = await player_body(request, "a password")
        players = hub().players
        await players.set_password(request, player, data)
        return await players.me(player)

    @app.post("/api/me/tokens")
    async def token(request: Request) -> JSONResponse:
        player, _ = await player_body(request, "a token request")
        made = await hub().players.new_token(player)
        return JSONResponse({"token": made, "name": player.name, "bot": True}, status_code=201)

    @app.post("/api/sign-in", response_model=None)
    async def sign_in(request: Request, response: Response) -> dict[str, Any] | JSONResponse:
        data = need_object(await body_of(request), "a sign-in")
        name = data.get("name")
        if not isinstance(name, str) or not 1 <= len(name) <= 40:
            raise ProtocolError("bad-message", "sign in with {name, password}: a name of 2 to 20 characters")
        checked_text(name, "a name")
        refused = await limited(f"sign-in:{client_address(request)}", SIGN_IN_PER_ADDRESS, "from one address")
        if refused is None:
            refused = await limited(f"sign-in name:{name_key(name)}", SIGN_IN_PER_NAME, f"as {name}")
        if refused is not None:
            return refused
        players = hub().players
        return await players.me(await players.sign_in(request, response, data))

    @app.post("/api/sign-out")
    async def sign_out(request: Request, response: Response) -> dict[str, Any]:
        player, _ = await player_body(request, "a sign-out")
        await hub().players.sign_out(request, response, player)
        return {"ok": True}

    @app.get("/api/players/{name}")
    async def profile(name: str) -> dict[str, Any]:
        if len(name) > 40:
            raise ProtocolError("no-player", "there is no player so named", 404)
        found = await hub().players.profile(name)
        player_id = found.pop("id")  # the page shows the name
        return {**found, **await hub().daily.of_player(player_id)}

    @app.get("/api/games/{game_id}/players")
    async def game_players(game_id: str) -> dict[str, Any]:
        game = await hub().playable(game_id)
        await game.settled()
        return await hub().players.seats(game)


__all__ = ["add_player_routes"]
