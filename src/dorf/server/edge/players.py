"""The players' HTTP API (:mod:`dorf.server.players`; details in ``docs/server.md``, "Players and
ratings"):

- ``GET /api/me``: the player of this browser (``"player": false`` and no name for a visitor
  who is none yet: a read makes nobody); ``POST /api/me``: become one (the cookie);
- ``POST /api/me/name``, ``/api/me/password``, ``/api/me/tokens``: change the name, set or
  change the password, make an API token (a bot account);
- ``GET /api/me/tokens``, ``DELETE /api/me/tokens/ID``: the player's API tokens (never a secret),
  and revoking one (``current``: the token the request is sent with);
- ``POST /api/me/sign-out-everywhere``: end every other session and every API token;
- ``POST /api/sign-in``, ``/api/sign-out``: this device as another player (name and password),
  or as nobody;
- ``GET /api/players/NAME``: a player's ratings, their history and the last rated games;
- ``GET /api/games/ID/players``: the players of a game's seats, their ratings, the changes.

A request that changes a player must name one (its cookie or bearer token: else ``no-player``,
HTTP 401) and come from the server's own pages (``bad-origin``).  Signing in is limited per
address, per name from one address, and per name from anywhere (a much higher bound: a guesser
elsewhere cannot keep the owner out); setting a password per player and per address (HTTP 429,
``Retry-After``).
"""

from __future__ import annotations

import math
from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, Any, Protocol

from fastapi import FastAPI, Request, Response
from fastapi.responses import JSONResponse

from dorf.server.edge.limits import client_address
from dorf.server.players.accounts import BANNED, COOKIE, need_cookie
from dorf.server.players.inputs import check_password, checked_name, checked_text
from dorf.server.players.names import name_key
from dorf.server.protocol.messages import ProtocolError, need_object
from dorf.server.storage.base import StorageError

if TYPE_CHECKING:
    from collections.abc import Mapping

    from dorf.server.daily.challenge import Daily
    from dorf.server.players.service import Players
    from dorf.server.round.game import Game
    from dorf.server.storage.base import Storage


class PlayerParts(Protocol):
    """What the players' routes use of the server (the app factory hands them the composition
    root's)."""

    @property
    def storage(self) -> Storage: ...

    @property
    def players(self) -> Players: ...

    @property
    def daily(self) -> Daily: ...

    @property
    def games(self) -> Mapping[str, Game]: ...

    async def playable(self, game_id: str) -> Game: ...


#: Sign-in attempts a minute from one address, for one name from one address, and for one name
#: from anywhere (much higher, so that a guesser elsewhere does not keep the owner out).
SIGN_IN_PER_ADDRESS, SIGN_IN_PER_NAME, SIGN_IN_PER_NAME_ANYWHERE = 10, 5, 60
#: Passwords set a minute by one player, and from one address (each runs argon2: 64 MiB).
PASSWORD_PER_PLAYER, PASSWORD_PER_ADDRESS = 5, 10


def add_player_routes(
    app: FastAPI, hub: Callable[[], PlayerParts], body_of: Callable[[Request], Awaitable[Any]]
) -> None:
    """The players' routes on ``app`` (``hub()`` the server's parts, once it runs; ``body_of`` a
    changing request's JSON body, checked to come from the server's own pages)."""

    async def player_body(request: Request, what: str) -> tuple[Any, dict[str, Any]]:
        data = need_object(await body_of(request), what)
        return await hub().players.of_request(request, None), data

    async def limited(key: str, per_minute: int, what: str, doing: str = "sign-ins") -> JSONResponse | None:
        """The 429 answer if ``key`` has had its ``per_minute`` sign-ins (``doing``) of the minute."""
        try:
            wait = await hub().storage.hit(key, per_minute)
        except StorageError as exc:
            raise ProtocolError("storage", f"the database cannot count requests now ({exc})", 503) from None
        if wait is None:
            return None
        seconds = max(1, math.ceil(wait))
        message = f"at most {per_minute} {doing} a minute {what}: try again in {seconds} s"
        error = ProtocolError("rate-limited", message, 429)
        return JSONResponse(
            {"error": error.as_json()}, status_code=429, headers={"Retry-After": str(seconds)}
        )

    @app.get("/api/me")
    async def me(request: Request) -> dict[str, Any]:
        players = hub().players
        try:
            player = await players.player_of(request)  # a read: it makes nobody
        except ProtocolError as exc:
            if exc.code != BANNED:
                raise
            return {**players.visitor(), "banned": exc.message}  # the pages still show
        return players.visitor() if player is None else await players.me(player)

    @app.post("/api/me")
    async def become(request: Request, response: Response) -> dict[str, Any]:
        await body_of(request)  # only from our own pages
        players = hub().players
        return await players.me(await players.of_request(request, response))

    @app.post("/api/me/name")
    async def rename(request: Request, response: Response) -> dict[str, Any]:
        data = need_object(await body_of(request), "a new name")
        players = hub().players
        player = await players.player_of(request)
        if player is None and request.cookies.get(COOKIE) is None:  # a visitor choosing a name
            return await players.me(
                await players.new_player(request, response, checked_name(data.get("name")))
            )
        if player is None:  # a cookie that names nobody (signed out, forged): nobody to rename
            player = await players.of_request(request, None)
        return await players.me(await players.rename(player, data.get("name")))

    @app.post("/api/me/password")
    async def password(request: Request, response: Response) -> dict[str, Any] | JSONResponse:
        data = need_object(await body_of(request), "a password")
        player = await hub().players.player_of(request)
        if player is None and request.cookies.get(COOKIE) is None:  # a visitor: a player with it
            check_password(data.get("password"))
            player = await hub().players.new_player(request, response)
        elif player is None:  # a cookie that names nobody: refused
            player = await hub().players.of_request(request, None)
        need_cookie(request, "setting a password")
        address = client_address(request)
        refused = await limited(f"password:{address}", PASSWORD_PER_ADDRESS, "from one address", "passwords")
        if refused is None:
            refused = await limited(
                f"password player:{player.id}", PASSWORD_PER_PLAYER, "for one player", "passwords"
            )
        if refused is not None:
            await hub().players.undo_new(request)  # a player made for it: gone again
            return refused
        players = hub().players
        await players.set_password(request, response, player, data)
        return await players.me(player)

    @app.post("/api/me/tokens")
    async def token(request: Request) -> JSONResponse:
        player, data = await player_body(request, "a token request")
        made = await hub().players.new_token(request, player, data)
        return JSONResponse({**made, "name": player.name, "bot": True}, status_code=201)

    @app.get("/api/me/tokens")
    async def tokens(request: Request) -> dict[str, Any]:
        players = hub().players
        player = await players.of_request(request, None)
        return {"tokens": await players.tokens(request, player)}

    @app.delete("/api/me/tokens/{token_id}")
    async def revoke(request: Request, token_id: str) -> dict[str, Any]:
        player, _ = await player_body(request, "a revocation")
        return {"revoked": await hub().players.revoke_token(request, player, token_id)}

    @app.post("/api/me/sign-out-everywhere")
    async def everywhere(request: Request, response: Response) -> dict[str, Any]:
        player, _ = await player_body(request, "a sign-out")
        players = hub().players
        await players.sign_out_everywhere(request, response, player)
        return await players.me(player)

    @app.post("/api/sign-in")
    async def sign_in(request: Request, response: Response) -> dict[str, Any] | JSONResponse:
        data = need_object(await body_of(request), "a sign-in")
        name = data.get("name")
        if not isinstance(name, str) or not 1 <= len(name) <= 40:
            raise ProtocolError("bad-message", "sign in with {name, password}: a name of 2 to 20 characters")
        checked_text(name, "a name")
        address, key = client_address(request), name_key(name)
        refused = await limited(f"sign-in:{address}", SIGN_IN_PER_ADDRESS, "from one address")
        if refused is None:  # a guesser's address is held back, not the name's owner elsewhere
            refused = await limited(
                f"sign-in name:{key}@{address}", SIGN_IN_PER_NAME, f"as {name} from one address"
            )
        if refused is None:
            refused = await limited(f"sign-in name:{key}", SIGN_IN_PER_NAME_ANYWHERE, f"as {name}")
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
        for line in found["games"]:  # how each ended: "lost on time", not "lost"
            line["end"] = await game_end(hub().games, hub().storage, line["id"])
        return {**found, **await hub().daily.of_player(player_id)}

    @app.get("/api/games/{game_id}/players")
    async def game_players(game_id: str) -> dict[str, Any]:
        game = await hub().playable(game_id)
        await game.settled()
        return await hub().players.seats(game)


async def game_end(games: Mapping[str, Game], storage: Storage, game_id: str) -> str | None:
    """How a finished game ended (``normal``, ``time``, ``resign``, ``aborted``): from the game in
    memory (``games``), else its stored row (None: it cannot be read now)."""
    game = games.get(game_id)
    if game is not None:
        ending = game.session.ending
        return "normal" if ending is None else ending.end
    try:
        stored = await storage.load_game(game_id)
    except StorageError:
        return None
    return None if stored is None else stored.end or "normal"


__all__ = ["add_player_routes"]
