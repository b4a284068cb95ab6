"""The ASGI app: the browser UI, the HTTP API and the websocket of each game.

``create_app(config)`` builds a FastAPI app around a :class:`~dorf.server.hub.Hub`;
``dorf serve`` runs it with uvicorn.  Routes (details in ``docs/server.md``):

- ``/``, ``/game/ID``, ``/join/ID/CODE``, ``/replay``, ``/campaigns``: the page
  (one HTML file; the script reads the path), assets under ``/static/``;
- ``/api/games`` (POST: create), ``/api/games/ID`` (GET: the public state),
  ``.../join``, ``.../move``, ``.../preview``, ``.../undo`` (POST),
  ``.../record`` and ``.../replay`` (GET, once the game is over);
- ``/api/replay`` (POST a record: its steps), ``/api/campaigns...``;
- ``/ws/ID``: the game's websocket.

Only requests for the server's own host names are answered (DNS rebinding);
pages carry a Content-Security-Policy; a POST or a websocket from a page of
another site is refused (:mod:`dorf.server.limits`); creating games and
campaigns is limited per address, and hints and replays are computed in the
worker processes, one at a time per address.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import math
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

from fastapi import FastAPI, Request, WebSocket
from fastapi.responses import JSONResponse, Response
from starlette.types import Message
from starlette.websockets import WebSocketDisconnect

from dorf.formats.record import RecordError
from dorf.players.levels import levels
from dorf.server.assets import LANGUAGES, Asset, Assets, accepts_gzip, headers_for, preferred_language
from dorf.server.campaigns import CampaignDesk, finished_game, record_request
from dorf.server.hints import check_hint_allowed
from dorf.server.hub import Broken, Connection, Game, Hub, ServerConfig
from dorf.server.limits import CreationLimit, HostCheck, allowed_origin, client_address, page_policy
from dorf.server.protocol import (
    MAX_BODY,
    MAX_MESSAGE,
    ProtocolError,
    error_message,
    message_type,
    need_object,
    parse_json,
    parse_move,
    parse_seat,
    parse_tokens,
    request_id,
)

log = logging.getLogger("dorf.server")
#: Websocket messages larger than this are refused by the transport itself (close code 1009);
#: up to it, the server reads the message and answers an over-long one with an error.
TRANSPORT_LIMIT = 1 << 20
#: How long a move over HTTP waits to be stored before it is answered (``"saved": false``).
SAVED_WAIT = 5.0


async def read_body(request: Request) -> Any:
    """The request's JSON body, at most :data:`MAX_BODY` bytes."""
    declared = request.headers.get("content-length")
    if declared is not None and declared.isdigit() and int(declared) > MAX_BODY:
        raise ProtocolError(
            "too-large", f"request body of {declared} bytes is over the limit {MAX_BODY}", 413
        )
    chunks = bytearray()
    async for chunk in request.stream():
        chunks += chunk
        if len(chunks) > MAX_BODY:
            raise ProtocolError("too-large", f"request body is over the limit of {MAX_BODY} bytes", 413)
    if not chunks:
        return {}
    return parse_json(bytes(chunks), MAX_BODY)


def error_response(error: ProtocolError, headers: dict[str, str] | None = None) -> JSONResponse:
    return JSONResponse({"error": error.as_json()}, status_code=error.status, headers=headers)


def create_app(config: ServerConfig | None = None) -> FastAPI:
    """The app; its hub opens the database when the app starts and closes it when it stops."""
    config = config or ServerConfig()
    state: dict[str, Any] = {}
    limit = CreationLimit(config.create_limit)
    campaign_limit = CreationLimit(config.campaign_limit)

    @asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        hub = Hub(config)
        await hub.start()
        state["hub"] = hub
        state["desk"] = await hub.db(CampaignDesk, hub)
        app.state.hub = hub
        try:
            yield
        finally:
            await hub.db(state["desk"].close)
            await hub.close()

    app = FastAPI(title="dorf", lifespan=lifespan, docs_url=None, redoc_url=None, openapi_url=None)
    app.add_middleware(HostCheck, hosts=config.allowed_hosts)

    def hub() -> Hub:
        result: Hub = state["hub"]
        return result

    def desk() -> CampaignDesk:
        result: CampaignDesk = state["desk"]
        return result

    async def body_of(request: Request) -> Any:
        """The JSON body of a request that may change something: only from our own pages."""
        if not allowed_origin(
            request.headers.get("origin"), request.headers.get("host"), config.allowed_hosts, config.origins
        ):
            raise ProtocolError("bad-origin", "this request comes from a page of another site", 403)
        return await read_body(request)

    async def too_many(request: Request, limit: CreationLimit, what: str) -> JSONResponse | None:
        """The 429 answer if the request's address has made its ``what`` of the minute (counted
        in the database with several servers)."""
        wait = await hub().limit_wait(limit, what, client_address(request))
        if wait is None:
            return None
        refusal = ProtocolError(
            "rate-limited",
            f"at most {limit.per_minute} {what} a minute from one address: try again in {math.ceil(wait)} s",
            429,
        )
        return error_response(refusal, {"Retry-After": str(math.ceil(wait))})

    @app.exception_handler(ProtocolError)
    async def protocol_error(request: Request, exc: ProtocolError) -> JSONResponse:
        return error_response(exc)

    @app.exception_handler(RecordError)
    async def record_error(request: Request, exc: RecordError) -> JSONResponse:
        return error_response(ProtocolError("bad-record", str(exc)))

    # --- pages ---------------------------------------------------------------------

    assets = Assets.from_package()
    # The page in each language it speaks: its <html lang> is the one the browser prefers.
    index = {lang: assets.page(lang=lang) for lang in LANGUAGES}

    def asset_response(request: Request, asset: Asset, built: bool, more: dict[str, str]) -> Response:
        gzipped = accepts_gzip(request.headers.get("accept-encoding"))
        headers = {**headers_for(asset, built, gzipped), **more}
        if gzipped:
            headers["ETag"] = asset.etag[:-1] + '-gz"'
        if request.headers.get("if-none-match") == headers["ETag"]:
            return Response(status_code=304, headers=headers)
        return Response(asset.gzipped if gzipped else asset.body, headers=headers)

    @app.get("/static/{path:path}", include_in_schema=False)
    async def static(path: str, request: Request) -> Response:
        found = assets.find(path)
        if found is None:
            raise ProtocolError("not-found", f"there is no file {path!r}", 404)
        return asset_response(request, found[0], found[1], {})

    async def page(request: Request) -> Response:
        headers = {"Referrer-Policy": "no-referrer", "Vary": "Accept-Encoding, Accept-Language"}
        if config.page_policy:
            headers["Content-Security-Policy"] = page_policy(request.headers.get("host"))
        lang = preferred_language(request.headers.get("accept-language"))
        return asset_response(request, index[lang], False, headers)

    for path in (
        "/",
        "/game/{game_id}",
        "/join/{game_id}/{code}",
        "/replay",
        "/replay/{game_id}",
        "/campaigns",
        "/campaigns/{name}",
    ):
        app.add_api_route(path, page, methods=["GET"], include_in_schema=False)

    @app.get("/favicon.ico", include_in_schema=False)
    async def favicon(request: Request) -> Response:
        return asset_response(request, assets.files["favicon.svg"], False, {})

    # --- games -------------------------------------------------------------------------

    @app.get("/api/health")
    async def health() -> dict[str, Any]:
        pool = hub().pool
        link = hub().link
        return {
            "ok": True,
            "instance": link.instance if link is not None else None,
            "heard": link.heard if link is not None else 0,
            "thought": hub().thoughts,
            "games": len(hub().games),
            "connections": hub().connected,
            "thinking": {**pool.counts, "waiting": pool.waiting(), "running": pool.running()},
            "writes": {
                "transactions": hub().writer.batches + hub().committer.batches,
                "changes": hub().writer.written + hub().committer.written,
                "waiting": hub().writer.waiting,
            },
        }

    @app.post("/api/games")
    async def create_game(request: Request) -> JSONResponse:
        data = await body_of(request)
        refused = await too_many(request, limit, "new games")
        if refused is not None:
            return refused
        return JSONResponse(await hub().create(data), status_code=201)

    @app.get("/api/games/{game_id}")
    async def get_game(game_id: str) -> Response:
        game = await hub().game(game_id)
        text = game.public_text() if isinstance(game, Broken) else game.session.public_text()
        return Response(text, media_type="application/json")

    @app.post("/api/games/{game_id}/join")
    async def join_game(game_id: str, request: Request) -> dict[str, Any]:
        data = await body_of(request)
        return await hub().join(await hub().playable(game_id), data)

    async def seat_request(game_id: str, request: Request, what: str) -> tuple[Game, dict[str, Any]]:
        data = need_object(await body_of(request), what)
        return await hub().playable(game_id), data

    @app.post("/api/games/{game_id}/move")
    async def move(game_id: str, request: Request) -> dict[str, Any]:
        game, data = await seat_request(game_id, request, "a move")
        seats = hub().token_seats(game, data.get("token"))
        parsed = parse_move(data)
        hub().check_seat(game.session, seats, parsed.seat)
        entry = await hub().move(game, parsed)
        version = game.session.version
        saved = await hub().wait_saved(game, version, SAVED_WAIT)
        return {"ok": True, "version": version, "decision": entry, "saved": saved}

    @app.post("/api/games/{game_id}/preview")
    async def preview(game_id: str, request: Request) -> dict[str, Any]:
        game, data = await seat_request(game_id, request, "a preview request")
        seats = hub().token_seats(game, data.get("token"))
        parsed = parse_move(data)
        hub().check_seat(game.session, seats, parsed.seat)
        if parsed.placement is None:
            raise ProtocolError("bad-message", "a preview is of a placement (at, rot)")
        return game.session.preview(parsed.seat, parsed.placement)

    @app.post("/api/games/{game_id}/hint")
    async def game_hint(game_id: str, request: Request) -> dict[str, Any]:
        game, data = await seat_request(game_id, request, "a hint request")
        seats = hub().token_seats(game, data.get("token"))
        seat = parse_seat(data.get("seat"))
        session = game.session
        hub().check_seat(session, seats, seat)
        check_hint_allowed(session, seats, seat)
        return await hub().hint(game, seat, client_address(request))

    @app.get("/api/levels")
    async def computer_levels() -> dict[str, Any]:
        return {"levels": [level.as_json() for level in levels()]}

    @app.post("/api/games/{game_id}/undo")
    async def undo(game_id: str, request: Request) -> dict[str, Any]:
        game, data = await seat_request(game_id, request, "an undo request")
        seats = hub().token_seats(game, data.get("token"))
        seat = parse_seat(data.get("seat"))
        hub().check_seat(game.session, seats, seat)
        count = await hub().undo(game, seat)
        return {"ok": True, "undone": count, "version": game.session.version}

    async def finished(game_id: str) -> Game:
        game = await hub().playable(game_id)
        if not game.session.is_over:
            raise ProtocolError(
                "not-over", "the record comes once the game is over (it holds the seed of the shuffle)", 409
            )
        return game

    @app.get("/api/games/{game_id}/record")
    async def record(game_id: str) -> Response:
        session = (await finished(game_id)).session
        text = json.dumps(session.record(), indent=1) + "\n"
        filename = f"dorf-{session.mode}-{session.id}.json"
        return Response(
            text,
            media_type="application/json",
            headers={"Content-Disposition": f'attachment; filename="{filename}"'},
        )

    @app.get("/api/games/{game_id}/replay")
    async def replay_game(game_id: str, request: Request) -> dict[str, Any]:
        return await hub().replay((await finished(game_id)).session.record(), client_address(request))

    @app.post("/api/replay")
    async def replay(request: Request) -> dict[str, Any]:
        return await hub().replay(need_object(await read_body(request), "a record"), client_address(request))

    # --- campaigns -------------------------------------------------------------------------

    @app.get("/api/campaigns")
    async def campaigns() -> dict[str, Any]:
        return await hub().db(desk().listing)

    @app.post("/api/campaigns")
    async def new_campaign(request: Request) -> JSONResponse:
        data = await body_of(request)
        refused = await too_many(request, campaign_limit, "new campaigns")
        if refused is not None:
            return refused
        return JSONResponse(await hub().db(desk().create, data), status_code=201)

    @app.get("/api/campaigns/{name}")
    async def campaign(name: str) -> dict[str, Any]:
        return await hub().db(desk().view, name)

    @app.get("/api/campaigns/{name}/score.svg")
    async def campaign_plot(name: str) -> Response:
        return Response(await hub().db(desk().score_svg, name), media_type="image/svg+xml")

    @app.get("/api/campaigns/{name}/track.svg")
    async def campaign_track(name: str) -> Response:
        return Response(await hub().db(desk().track_svg, name), media_type="image/svg+xml")

    @app.post("/api/campaigns/{name}/record")
    async def campaign_record(name: str, request: Request) -> dict[str, Any]:
        game_id, branches = record_request(await body_of(request))
        game = await hub().playable(game_id)
        return await hub().db(desk().record, name, finished_game(game.session), branches)

    @app.post("/api/campaigns/{name}/choose")
    async def campaign_choose(name: str, request: Request) -> dict[str, Any]:
        data = await body_of(request)
        return await hub().db(desk().choose, name, data)

    # --- the websocket -------------------------------------------------------------------------

    @app.websocket("/ws/{game_id}")
    async def websocket(ws: WebSocket, game_id: str) -> None:
        if not allowed_origin(
            ws.headers.get("origin"), ws.headers.get("host"), config.allowed_hosts, config.origins
        ):
            await ws.close(code=4403)  # before accepting: the handshake is answered 403
            return
        await ws.accept()
        try:
            game = await hub().game(game_id)
        except ProtocolError as exc:
            await ws.send_text(json.dumps(error_message(exc)))
            await ws.close(code=4404 if exc.code == "no-game" else 1013)
            return
        conn = Connection(ws.send_text, lambda code: ws.close(code=code), client_address(ws))
        await hub().attach(game, conn)  # a spectator, or held back (conn.refusal) until a hello proves a seat
        pump = asyncio.get_running_loop().create_task(conn.pump())
        hub().send_state(game, conn)
        try:
            while not conn.closed:
                message = await next_message(ws, conn)
                if message is None or message["type"] == "websocket.disconnect":
                    break
                text = message.get("text")
                if text is None:
                    conn.send(error_message(ProtocolError("bad-message", "send JSON text, not binary")))
                    continue
                await handle(game, conn, text)
                if conn.refusal is not None:
                    break  # held back, and its first message proved no seat
        except WebSocketDisconnect:
            pass
        finally:
            await hub().detach(game, conn)
            if conn.refusal is not None and not conn.closed:
                conn.refuse()  # what is queued, the reason, then the close 1013
                with contextlib.suppress(BaseException):
                    await asyncio.wait_for(pump, 5.0)
            conn.closed = True
            pump.cancel()
            with contextlib.suppress(BaseException):
                await pump

    async def next_message(ws: WebSocket, conn: Connection) -> Message | None:
        """The client's next message; None if a client that is held back (no room for another
        spectator) has not said hello within ``hello_seconds``."""
        if conn.refusal is None:
            return await ws.receive()
        try:
            return await asyncio.wait_for(ws.receive(), config.hello_seconds)
        except TimeoutError:
            return None

    async def handle(game: Game | Broken, conn: Connection, text: str) -> None:
        """One client message, answered in order (a move is answered once made; it is saved after)."""
        ref: int | str | None = None
        try:
            data = need_object(parse_json(text, MAX_MESSAGE))
            ref = request_id(data)
            kind = message_type(data)
            if kind == "ping":
                conn.send({"type": "pong", "id": ref})
                return
            if isinstance(game, Broken):
                if kind in ("hello", "sync"):
                    hub().send_state(game, conn)
                    if kind == "hello":
                        conn.send({"type": "welcome", "id": ref, "seats": []})
                    return
                raise game.refusal()
            hub().touch(game)
            session = game.session
            if kind == "hello":
                seats, bad = hub().seats_for(game, parse_tokens(data.get("tokens")))
                if not await hub().admit(game, conn, seats):
                    return  # no room for it so: turned away (conn.refusal)
                hub().send_state(game, conn)
                conn.send({"type": "welcome", "id": ref, "seats": sorted(seats)})
                if bad:
                    raise ProtocolError(
                        "bad-token", f"{bad} of your seat tokens are not valid for this game: you watch", 403
                    )
            elif kind == "sync":
                hub().send_state(game, conn)
            elif kind == "move":
                parsed = parse_move(data)
                hub().check_seat(session, conn.seats, parsed.seat)
                made = await hub().move(game, parsed, conn)
                ok = {"type": "ok", "id": ref, "version": game.session.version}
                conn.send({**ok, "again": True} if made.get("again") else ok)
            elif kind == "preview":
                parsed = parse_move(data)
                hub().check_seat(session, conn.seats, parsed.seat)
                if parsed.placement is None:
                    raise ProtocolError("bad-message", "a preview is of a placement (at, rot)")
                result = session.preview(parsed.seat, parsed.placement)
                conn.send({"type": "preview", "id": ref, "version": session.version, **result})
            elif kind == "undo":
                seat = parse_seat(data.get("seat"))
                hub().check_seat(session, conn.seats, seat)
                count = await hub().undo(game, seat, conn)
                conn.send({"type": "ok", "id": ref, "version": game.session.version, "undone": count})
        except ProtocolError as exc:
            conn.send(error_message(exc, ref))

    return app
