"""The ASGI app: the browser UI, the HTTP API and the websocket of each game.

``build_app(config, make)`` builds a FastAPI app around the server ``make(config)`` builds
(:func:`dorf.server.hub.create_app` hands it the composition root, with the storage and bus of
``--db``); ``dorf serve`` runs it with uvicorn.
Routes (details in ``docs/server.md``):

- ``/``, ``/game/ID``, ``/join/ID/CODE``, ``/replay``, ``/campaigns``: the page
  (one HTML file; the script reads the path), assets under ``/static/``;
- ``/api/games`` (POST: create), ``/api/games/ID`` (GET: the public state),
  ``.../join``, ``.../move``, ``.../preview``, ``.../undo``, ``.../hint``, ``.../resign`` (POST),
  ``.../record`` and ``.../replay`` (GET, once the game is over);
- ``/api/replay`` (POST a record: its steps), ``/api/campaigns...``;
- ``/ws/ID``: the game's websocket (:mod:`dorf.server.edge.socket`);
- ``/metrics``: Prometheus' text (:mod:`dorf.server.edge.metrics`); ``/api/health`` says the version.

Every ``GET`` answers ``HEAD`` too (:mod:`dorf.server.edge.head`), and every request and
websocket gets an id, answered in ``X-Request-Id`` and named by its log lines
(:mod:`dorf.server.edge.logs`).

Only requests for the server's own host names are answered (DNS rebinding);
pages carry a Content-Security-Policy; a POST or a websocket from a page of
another site is refused (:mod:`dorf.server.edge.limits`); creating games (every way of
making one, per address and per player: :mod:`dorf.server.round.creating`) and campaigns
is limited per address, and hints and replays are computed in the
worker processes, one at a time per address.  Every error, from the routes or
from the framework (an unknown path, a method not allowed), is answered in the
project's format: ``{"error": {"code", "message"}}``.
"""

from __future__ import annotations

import json
import logging
import math
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from typing import Any

from fastapi import FastAPI, Request, WebSocket
from fastapi.responses import JSONResponse, Response
from fastapi.routing import APIRoute
from starlette.exceptions import HTTPException
from uvicorn.middleware.proxy_headers import ProxyHeadersMiddleware

from dorf.formats.record import RecordError
from dorf.players.levels import levels
from dorf.server.campaigns import SEALED
from dorf.server.campaigns.routes import add_campaign_routes
from dorf.server.computer.hints import check_hint_allowed
from dorf.server.config import ServerConfig
from dorf.server.daily.routes import add_daily_routes
from dorf.server.edge.assets import LANGUAGES, Asset, Assets, accepts_gzip, headers_for, preferred_language
from dorf.server.edge.head import HeadAsGet
from dorf.server.edge.limits import HostCheck, allowed_origin, client_address, page_policy
from dorf.server.edge.logs import RequestIds
from dorf.server.edge.metrics import CountRequests, Metrics, add_metrics_route, server_version
from dorf.server.edge.missing import MissingPages, wants_page
from dorf.server.edge.parts import ServerParts
from dorf.server.edge.players import add_player_routes
from dorf.server.edge.privacy import add_privacy_routes
from dorf.server.edge.socket import serve_socket
from dorf.server.lobby.routes import add_lobby_routes, open_game
from dorf.server.protocol.messages import (
    MAX_BODY,
    ProtocolError,
    need_object,
    parse_json,
    parse_move,
    parse_seat,
)
from dorf.server.round.creating import RateLimited, count_new_game
from dorf.server.round.game import Broken, Game
from dorf.server.round.preview import preview
from dorf.server.round.seats import check_seat, seats_for, token_seats
from dorf.server.storage.base import StorageError

log = logging.getLogger("dorf.server")
#: Websocket messages larger than this are refused by the transport itself (close code 1009);
#: up to it, the server reads the message and answers an over-long one with an error.
TRANSPORT_LIMIT = 1 << 20
#: How long a move over HTTP waits to be stored before it is answered (``"saved": false``).
SAVED_WAIT = 5.0
#: The framework's own refusals, in the project's words.
HTTP_CODES = {404: "not-found", 405: "method-not-allowed"}
#: The pages: one HTML file, whose script reads the path.
PAGES = (
    "/",
    "/game/{game_id}",
    "/join/{game_id}/{code}",
    "/replay",
    "/replay/{game_id}",
    "/campaigns",
    "/campaigns/{name}",
    "/campaigns/{name}/join/{code}",
    "/@/{name}",
    "/daily",
    "/daily/{day}",
    "/leaderboard",
    "/how-to-play",
)


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


class PlainRoute(APIRoute):
    """A route that answers its endpoint's value as JSON as it is: no response model made from the
    return annotation (the answers are described in docs/server.md, not checked by a schema).
    Making those models was a third of the time :func:`build_app` took, and checking each
    answer against ``dict[str, Any]`` checked nothing."""

    def __init__(self, path: str, endpoint: Callable[..., Any], **options: Any) -> None:
        options["response_model"] = None
        super().__init__(path, endpoint, **options)


def build_app(config: ServerConfig, make: Callable[[ServerConfig], ServerParts]) -> FastAPI:
    """The app around the server ``make(config)`` builds when the app starts (it opens its
    storage then, and closes it when the app stops)."""
    state: dict[str, Any] = {}

    @asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        hub = make(config)
        await hub.start()
        state["hub"] = hub
        app.state.hub = hub
        try:
            yield
        finally:
            await hub.close()

    app = FastAPI(title="dorf", lifespan=lifespan, docs_url=None, redoc_url=None, openapi_url=None)
    app.router.route_class = PlainRoute
    app.add_middleware(HostCheck, hosts=config.allowed_hosts)
    if config.trusted_proxies:  # a trusted proxy's X-Forwarded-For and -Proto: the client's address, scheme
        app.add_middleware(ProxyHeadersMiddleware, trusted_hosts=list(config.trusted_proxies))

    def metrics() -> Metrics | None:
        return state["hub"].metrics if "hub" in state else None

    # Outermost last: the request's id (seeing the proxy's own address), HEAD as GET, the count.
    app.add_middleware(CountRequests, metrics=metrics)
    app.add_middleware(HeadAsGet)
    app.add_middleware(RequestIds, proxies=config.trusted_proxies)

    def hub() -> ServerParts:
        result: ServerParts = state["hub"]
        return result

    async def body_of(request: Request) -> Any:
        """The JSON body of a request that may change something: only from our own pages."""
        if not allowed_origin(
            request.headers.get("origin"), request.headers.get("host"), config.allowed_hosts, config.origins
        ):
            raise ProtocolError("bad-origin", "this request comes from a page of another site", 403)
        return await read_body(request)

    async def too_many(request: Request, per_minute: int, what: str) -> JSONResponse | None:
        """The 429 answer if the request's address has made its ``what`` of the minute."""
        if per_minute <= 0:
            return None
        try:
            wait = await hub().storage.hit(f"{what}:{client_address(request)}", per_minute)
        except StorageError as exc:
            raise ProtocolError("storage", f"the database cannot count requests now ({exc})", 503) from None
        if wait is None:
            return None
        seconds = math.ceil(wait)
        refusal = ProtocolError(
            "rate-limited",
            f"at most {per_minute} {what} a minute from one address: try again in {seconds} s",
            429,
        )
        return error_response(refusal, {"Retry-After": str(seconds)})

    @app.exception_handler(ProtocolError)
    async def protocol_error(request: Request, exc: ProtocolError) -> JSONResponse:
        await hub().players.undo_new(request)  # a player made for a refused request: gone again
        return error_response(exc, exc.headers if isinstance(exc, RateLimited) else None)

    @app.exception_handler(RecordError)
    async def record_error(request: Request, exc: RecordError) -> JSONResponse:
        return error_response(ProtocolError("bad-record", str(exc)))

    @app.exception_handler(HTTPException)
    async def http_error(request: Request, exc: HTTPException) -> Response:
        if exc.status_code == 404 and wants_page(
            request.method, request.url.path, request.headers.get("accept")
        ):
            # A browser that followed a bad link: a page saying what is missing, the way home.
            return missing_page(request)
        code = HTTP_CODES.get(exc.status_code, "bad-request")
        words = {
            404: f"there is nothing at {request.url.path!r}",
            405: f"{request.method} is not allowed here",
        }
        message = words.get(exc.status_code, str(exc.detail))
        return error_response(ProtocolError(code, message, exc.status_code), dict(exc.headers or {}))

    # --- pages ---------------------------------------------------------------------

    assets = Assets.from_package()
    # The page in each language it speaks: its <html lang> is the one the browser prefers.
    index = {lang: assets.page(lang=lang) for lang in LANGUAGES}

    missing = MissingPages(assets)

    def missing_page(request: Request) -> Response:
        headers = {
            "Referrer-Policy": "no-referrer",
            "Vary": "Accept, Accept-Language",
            "Cache-Control": "no-cache",
        }
        if config.page_policy:
            headers["Content-Security-Policy"] = page_policy(request.headers.get("host"))
        lang = preferred_language(request.headers.get("accept-language"))
        body = missing.body(request.url.path, lang)
        return Response(body, status_code=404, media_type="text/html; charset=utf-8", headers=headers)

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

    for path in PAGES:
        app.add_api_route(path, page, methods=["GET"], include_in_schema=False)

    @app.get("/favicon.ico", include_in_schema=False)
    async def favicon(request: Request) -> Response:
        return asset_response(request, assets.files["favicon.svg"], False, {})

    # --- games -------------------------------------------------------------------------

    async def new_game(request: Request, player_id: str | None) -> None:
        """Count a new game of ``request`` (and its player's): every new game counts."""
        storage, per_minute = hub().storage, hub().config.create_limit
        await count_new_game(storage, per_minute, client_address(request), player_id)

    @app.get("/api/health")
    async def health() -> dict[str, Any]:
        return {**hub().health(), "version": server_version()}

    add_metrics_route(app, lambda: hub().metrics, config.metrics_token)

    @app.post("/api/games")
    async def create_game(request: Request) -> JSONResponse:
        data = await body_of(request)
        if isinstance(data, dict) and data.get("open") is not None:  # for anyone, in the lobby

            async def limited() -> None:  # every new game counts (round/creating.py)
                known = await hub().players.known(request)
                await new_game(request, None if known is None else known.id)

            return await open_game(hub(), request, data, limited)
        creator = await hub().players.known(request)  # None: a program without a player's cookie
        await new_game(request, None if creator is None else creator.id)
        return JSONResponse(await hub().seating.create(data, creator=creator), status_code=201)

    @app.get("/api/games/{game_id}")
    async def get_game(game_id: str) -> Response:
        game = await hub().game(game_id)
        if isinstance(game, Broken):
            return Response(game.public_text(), media_type="application/json")
        await game.settled()
        return Response(game.session.public_text(), media_type="application/json")

    @app.post("/api/games/{game_id}/join")
    async def join_game(game_id: str, request: Request) -> dict[str, Any]:
        data = await body_of(request)
        game = await hub().playable(game_id)
        return await hub().seating.join(game, data, await hub().players.known(request))

    async def seat_request(
        game_id: str, request: Request, what: str
    ) -> tuple[Game, dict[str, Any], set[int]]:
        """The game, the body, and the seats its ``token`` holds."""
        data = need_object(await body_of(request), what)
        game = await hub().playable(game_id)
        return game, data, token_seats(game, data.get("token"))

    @app.post("/api/games/{game_id}/move")
    async def move(game_id: str, request: Request) -> dict[str, Any]:
        game, data, seats = await seat_request(game_id, request, "a move")
        parsed = parse_move(data)
        check_seat(game.session, seats, parsed.seat)
        entry = await hub().mover.move(game, parsed)
        version = game.session.version
        saved = await game.wait_saved(version, SAVED_WAIT)
        return {"ok": True, "version": version, "decision": entry, "saved": saved}

    @app.post("/api/games/{game_id}/preview")
    async def preview_move(game_id: str, request: Request) -> dict[str, Any]:
        game, data, seats = await seat_request(game_id, request, "a preview request")
        parsed = parse_move(data)
        check_seat(game.session, seats, parsed.seat)
        if parsed.placement is None:
            raise ProtocolError("bad-message", "a preview is of a placement (at, rot)")
        await game.settled()
        return preview(game.session, parsed.seat, parsed.placement)

    @app.post("/api/games/{game_id}/hint")
    async def game_hint(game_id: str, request: Request) -> dict[str, Any]:
        game, data, seats = await seat_request(game_id, request, "a hint request")
        seat = parse_seat(data.get("seat"))
        check_seat(game.session, seats, seat)
        await game.settled()
        check_hint_allowed(game.session, seats, seat)
        return await hub().computer.hint(game, seat, client_address(request))

    @app.get("/api/levels")
    async def computer_levels() -> dict[str, Any]:
        return {"levels": [level.as_json() for level in levels()]}

    @app.post("/api/games/{game_id}/undo")
    async def undo(game_id: str, request: Request) -> dict[str, Any]:
        game, data, seats = await seat_request(game_id, request, "an undo request")
        seat = parse_seat(data.get("seat"))
        check_seat(game.session, seats, seat)
        count = await hub().mover.undo(game, seat)
        return {"ok": True, "undone": count, "version": game.session.version}

    @app.post("/api/games/{game_id}/resign")
    async def resign(game_id: str, request: Request) -> dict[str, Any]:
        game, data, seats = await seat_request(game_id, request, "a resign request")
        seat = parse_seat(data.get("seat"))
        check_seat(game.session, seats, seat)
        ending = await hub().finisher.resign(game, seat)
        return {"ok": True, "version": game.session.version, **ending.json()}

    async def finished(game_id: str) -> Game:
        game = await hub().playable(game_id)
        await game.settled()
        if not game.session.is_over:
            raise ProtocolError(
                "not-over", "the record comes once the game is over (it holds the seed of the shuffle)", 409
            )
        if not game.session.seed_public():
            raise ProtocolError("sealed", SEALED, 409)
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
        game = await finished(game_id)
        session = game.session
        steps = await hub().computer.replay(session.record(), client_address(request))
        # The table's talk (issue 63) is for the table: a replay shows it to the game's players
        # only (their player holds a seat, or the page sends a seat's token: X-Seat-Tokens), as
        # the live game does (a watcher reads none of it).
        tokens = [t[:200] for t in request.headers.get("x-seat-tokens", "").split(",") if t][:8]
        seated = bool(tokens) and bool(seats_for(game, tokens)[0])
        if not seated:
            try:
                player = await hub().players.player_of(request)
            except ProtocolError:  # banned: a visitor here
                player = None
            seated = player is not None and any(seat.player_id == player.id for seat in session.seats)
        return {**steps, "talk": await hub().talk.replay(game_id) if seated else []}

    @app.post("/api/replay")
    async def replay(request: Request) -> dict[str, Any]:
        record = need_object(await read_body(request), "a record")
        return await hub().computer.replay(record, client_address(request))

    # --- campaigns (campaigns/routes.py) ----------------------------------------------------

    add_campaign_routes(app, hub, body_of, too_many)

    # --- the websockets: the lobby's first (``/ws/{game_id}`` would take ``lobby``) -------------

    add_lobby_routes(app, hub, body_of)
    add_player_routes(app, hub, body_of)
    add_privacy_routes(app, hub, body_of, config, too_many)
    add_daily_routes(app, hub, body_of)

    @app.websocket("/ws/{game_id}")
    async def websocket(ws: WebSocket, game_id: str) -> None:
        if not allowed_origin(
            ws.headers.get("origin"), ws.headers.get("host"), config.allowed_hosts, config.origins
        ):
            await ws.close(code=4403)  # before accepting: the handshake is answered 403
            return
        await ws.accept()
        await serve_socket(hub(), ws, game_id)

    return app
