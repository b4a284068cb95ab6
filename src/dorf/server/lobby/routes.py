"""The lobby's doors: the websocket ``/ws/lobby`` and its HTTP routes.

``/ws/lobby``: first ``{"type": "lobby", "version", "games": {id: entry}}``, then
``{"type": "delta", "from", "version", "ops"}`` whenever the open games change (the game
socket's deltas, :mod:`dorf.server.protocol.delta`).  A client sends (each may carry an
``id``, repeated in its answer):

- ``{"type": "seek", "mode", "clock", "rated"}``: answered ``{"type": "seeking", "seek": {...}}``;
  once paired, ``{"type": "paired", "seek", "game", "seat", "token", "mode"}``.  A seek ends when
  the socket closes, or with ``{"type": "cancel", "seek": ID}`` (answered ``cancelled``);
- ``{"type": "take", "game": ID}``: a free seat of an open game, answered ``{"type": "seated",
  "game", "seat", "token"}``;
- ``{"type": "withdraw", "game": ID}``: the creator takes an open game out of the list
  (answered ``withdrawn``; the game stays, its invitation link still works);
- ``{"type": "ping"}`` (``pong``), ``{"type": "sync"}`` (the whole list again).

A spectator (no player: no cookie) may watch the list; seeking and taking need a player.
A player's sockets also hear ``{"type": "attention", ...}`` when something waits for them
(:mod:`.attention`); ``/ws/lobby?only=attention`` is a quiet socket that hears only that (no
list, no seekers: the pages other than the front page open it), first ``{"type": "listening"}``.
HTTP: ``GET /api/lobby`` (the list), ``POST /api/lobby/ID/take``.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, Any

from fastapi import FastAPI, Request, WebSocket
from fastapi.responses import JSONResponse
from starlette.websockets import WebSocketDisconnect

from dorf.server.lobby.mine import add_mine_routes
from dorf.server.protocol.messages import ProtocolError, error_message, need_object, parse_json
from dorf.server.protocol.requests import allowed_origin, client_address
from dorf.server.round.clients import Connection
from dorf.server.round.creating import count_new_game
from dorf.server.round.session import HERE, ONLINE

if TYPE_CHECKING:
    from dorf.server.lobby.parts import LobbyParts
    from dorf.server.players.accounts import Player

#: What a lobby client may send.
LOBBY_TYPES = ("seek", "cancel", "take", "withdraw", "ping", "sync")


def add_lobby_routes(
    app: FastAPI,
    parts: Callable[[], LobbyParts],
    body_of: Callable[[Request], Awaitable[Any]],
) -> None:
    """The lobby's routes on ``app`` (before ``/ws/{game_id}``, which would take ``lobby``)."""
    add_mine_routes(app, parts, body_of)

    @app.get("/api/lobby")
    async def lobby_list() -> dict[str, Any]:
        await parts().lobby.reread_now()  # as stored now (the sockets hear it a moment later)
        return {"games": list(parts().lobby.doc["games"].values())}

    @app.post("/api/lobby/{game_id}/take")
    async def lobby_take(game_id: str, request: Request) -> JSONResponse:
        await body_of(request)  # only from our own pages
        response = JSONResponse({})
        player = await parts().players.of_request(request, response)
        seated = await parts().lobby.take(game_id, player)
        answer = JSONResponse(seated)
        answer.raw_headers.extend(h for h in response.raw_headers if h[0] == b"set-cookie")
        return answer

    @app.websocket("/ws/lobby")
    async def lobby_socket(ws: WebSocket) -> None:
        config = parts().config
        if not allowed_origin(
            ws.headers.get("origin"), ws.headers.get("host"), config.allowed_hosts, config.origins
        ):
            await ws.close(code=4403)
            return
        await ws.accept()
        await serve_lobby(parts(), ws)


async def serve_lobby(parts: LobbyParts, ws: WebSocket) -> None:
    """The whole life of one lobby client (accepted already)."""
    lobby = parts.lobby
    conn = Connection(ws.send_text, lambda code: ws.close(code=code), client_address(ws))
    pump = asyncio.get_running_loop().create_task(conn.pump())
    player = await parts.players.of_socket(ws)
    # max_connections, and max_connections_per_address: checked and counted with no wait between
    quiet = ws.query_params.get("only") == "attention"
    conn.refusal = lobby.room(conn.address, quiet)
    if conn.refusal is not None:
        conn.refuse()
        with contextlib.suppress(BaseException):
            await asyncio.wait_for(pump, 5.0)
        return
    conn.player_id = None if player is None else player.id  # a rematch offered to them is pushed
    lobby.attach(conn, quiet)
    try:
        while not conn.closed:
            message = await ws.receive()
            if message["type"] == "websocket.disconnect":
                break
            text = message.get("text")
            ref: Any = None
            try:
                if text is None:
                    raise ProtocolError("bad-message", "send JSON text, not binary")
                data = need_object(parse_json(text))
                ref = data.get("id")
                if ref is not None and not isinstance(ref, int | str):
                    ref = None
                answer = await _handle(parts, conn, player, data, ws)
                if answer is not None:
                    conn.send({**answer, "id": ref} if ref is not None else answer)
            except ProtocolError as exc:
                conn.send(error_message(exc, ref))
    except WebSocketDisconnect:
        pass
    finally:
        await lobby.detach(conn)
        conn.closed = True
        pump.cancel()
        with contextlib.suppress(BaseException):
            await pump


async def _handle(
    parts: LobbyParts,
    conn: Connection,
    player: Player | None,
    data: dict[str, Any],
    ws: WebSocket,
) -> dict[str, Any] | None:
    kind = data.get("type")
    lobby = parts.lobby
    if kind == "ping":
        return {"type": "pong"}
    if kind == "sync":
        lobby.send_state(conn)
        return None
    if kind not in LOBBY_TYPES:
        raise ProtocolError("bad-message", f"a lobby message's type is one of {', '.join(LOBBY_TYPES)}")
    if player is None:
        refusal = getattr(ws.state, "refusal", None)  # a banned player's socket: why
        if isinstance(refusal, ProtocolError):
            raise refusal
        raise ProtocolError("no-player", "open the site first: seeking and taking seats need a player", 401)
    await parts.players.refuse_banned(player.id)  # banned since this socket opened: refused at once
    if kind == "seek":
        # the game it makes is one
        await count_new_game(parts.storage, parts.config.create_limit, client_address(ws), player.id)
        seek = await lobby.seek(conn, player, data)
        return {"type": "seeking", "seek": seek.json()}
    if kind == "cancel":
        if not await lobby.cancel(conn, data.get("seek")):
            raise ProtocolError("no-seek", "this socket has no such seek (paired, or ended)", 404)
        return {"type": "cancelled", "seek": data.get("seek")}
    if kind == "withdraw":
        return await lobby.withdraw(data.get("game"), player)
    return await lobby.take(data.get("game"), player)


async def open_game(
    parts: LobbyParts,
    request: Request,
    data: dict[str, Any],
    limited: Callable[[], Awaitable[JSONResponse | None]],
) -> JSONResponse:
    """``POST /api/games`` with ``"open": true``: a game whose online seats anyone may take from
    the lobby (``false``: a game as any other).  The creator's open games and seeks are limited
    (:data:`~dorf.server.lobby.lobby.LIMIT`), the open games an address lists
    (``--open-games-per-address``), and new games from an address; the answer
    says when the game leaves the list if nobody takes it (``expires``, seconds since 1970)."""
    flag = data.pop("open")
    if not isinstance(flag, bool):
        raise ProtocolError("bad-message", "open must be true or false")
    if flag:
        open_body(data)
    cookies = JSONResponse({})
    player = await parts.players.of_request(request, cookies)
    address = client_address(request)
    if flag:
        await parts.lobby.check_room(player, address)
    refused = await limited()
    if refused is not None:
        return refused
    made = await parts.seating.create(data, creator=player)
    if flag:
        made["expires"] = round(await parts.lobby.list_open(made, data, player, address=address))
    answer = JSONResponse(made, status_code=201)
    answer.raw_headers.extend(h for h in cookies.raw_headers if h[0] == b"set-cookie")
    return answer


def open_body(data: dict[str, Any]) -> None:
    """ProtocolError unless ``data`` (``POST /api/games`` with ``"open": true``) makes a game the
    lobby can list: an online seat at least, a seat of the creator's (``here``), not practice."""
    seats = data.get("seats")
    kinds = [s.get("kind", HERE) for s in seats if isinstance(s, dict)] if isinstance(seats, list) else []
    if ONLINE not in kinds or HERE not in kinds:
        raise ProtocolError(
            "bad-message",
            "an open game has a seat of yours (here) and online seats for anyone who takes them",
        )
    if data.get("practice") is True:
        raise ProtocolError("bad-message", "a practice game is played at one screen: it cannot be open")
