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
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from importlib import resources
from pathlib import Path
from typing import Any

from fastapi import FastAPI, Request, WebSocket
from fastapi.responses import FileResponse, JSONResponse, Response
from fastapi.staticfiles import StaticFiles
from starlette.websockets import WebSocketDisconnect

from dorf.formats.record import RecordError
from dorf.players.levels import levels
from dorf.server.campaigns import CampaignDesk
from dorf.server.hints import check_hint_allowed, hint_for
from dorf.server.hub import Connection, Hub, ServerConfig
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
from dorf.server.replay import replay_steps
from dorf.server.sessions import GameSession

log = logging.getLogger("dorf.server")
#: Websocket messages larger than this are refused by the transport itself (close code 1009);
#: up to it, the server reads the message and answers an over-long one with an error.
TRANSPORT_LIMIT = 1 << 20


def web_root() -> Path:
    """The folder of the browser UI shipped in the package."""
    return Path(str(resources.files("dorf.web")))


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


def error_response(error: ProtocolError) -> JSONResponse:
    return JSONResponse({"error": error.as_json()}, status_code=error.status)


def create_app(config: ServerConfig | None = None) -> FastAPI:
    """The app; its hub opens the database when the app starts and closes it when it stops."""
    config = config or ServerConfig()
    state: dict[str, Any] = {}

    @asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        hub = Hub(config)
        count = hub.load()
        log.info("dorf: %d stored games", count)
        state["hub"] = hub
        state["desk"] = CampaignDesk(hub)
        app.state.hub = hub
        try:
            yield
        finally:
            state["desk"].close()
            await hub.close()

    app = FastAPI(title="dorf", lifespan=lifespan, docs_url=None, redoc_url=None, openapi_url=None)

    def hub() -> Hub:
        result: Hub = state["hub"]
        return result

    def desk() -> CampaignDesk:
        result: CampaignDesk = state["desk"]
        return result

    @app.exception_handler(ProtocolError)
    async def protocol_error(request: Request, exc: ProtocolError) -> JSONResponse:
        return error_response(exc)

    @app.exception_handler(RecordError)
    async def record_error(request: Request, exc: RecordError) -> JSONResponse:
        return error_response(ProtocolError("bad-record", str(exc)))

    # --- pages ---------------------------------------------------------------------

    root = web_root()
    app.mount("/static", StaticFiles(directory=root), name="static")

    def page() -> FileResponse:
        return FileResponse(root / "index.html", headers={"Cache-Control": "no-cache"})

    @app.get("/", include_in_schema=False)
    async def index() -> FileResponse:
        return page()

    @app.get("/game/{game_id}", include_in_schema=False)
    async def game_page(game_id: str) -> FileResponse:
        return page()

    @app.get("/join/{game_id}/{code}", include_in_schema=False)
    async def join_page(game_id: str, code: str) -> FileResponse:
        return page()

    @app.get("/replay", include_in_schema=False)
    async def replay_page() -> FileResponse:
        return page()

    @app.get("/replay/{game_id}", include_in_schema=False)
    async def replay_game_page(game_id: str) -> FileResponse:
        return page()

    @app.get("/campaigns", include_in_schema=False)
    async def campaigns_page() -> FileResponse:
        return page()

    @app.get("/campaigns/{name}", include_in_schema=False)
    async def campaign_page(name: str) -> FileResponse:
        return page()

    @app.get("/favicon.ico", include_in_schema=False)
    async def favicon() -> FileResponse:
        return FileResponse(root / "favicon.svg", media_type="image/svg+xml")

    # --- games -------------------------------------------------------------------------

    @app.get("/api/health")
    async def health() -> dict[str, Any]:
        return {"ok": True, "games": len(hub().sessions)}

    @app.post("/api/games")
    async def create_game(request: Request) -> JSONResponse:
        return JSONResponse(hub().create(await read_body(request)), status_code=201)

    @app.get("/api/games/{game_id}")
    async def get_game(game_id: str) -> Response:
        session = hub().get(game_id)
        return Response(session.public_text(), media_type="application/json")

    @app.post("/api/games/{game_id}/join")
    async def join_game(game_id: str, request: Request) -> dict[str, Any]:
        return hub().join(game_id, await read_body(request))

    @app.post("/api/games/{game_id}/move")
    async def move(game_id: str, request: Request) -> dict[str, Any]:
        session = hub().get(game_id)
        data = need_object(await read_body(request), "a move")
        seats = hub().token_seats(session, data.get("token"))
        parsed = parse_move(data)
        hub().check_seat(session, seats, parsed.seat)
        entry = hub().move(session, parsed)
        return {"ok": True, "version": session.version, "decision": entry}

    @app.post("/api/games/{game_id}/preview")
    async def preview(game_id: str, request: Request) -> dict[str, Any]:
        session = hub().get(game_id)
        data = need_object(await read_body(request), "a preview request")
        seats = hub().token_seats(session, data.get("token"))
        parsed = parse_move(data)
        hub().check_seat(session, seats, parsed.seat)
        if parsed.placement is None:
            raise ProtocolError("bad-message", "a preview is of a placement (at, rot)")
        return session.preview(parsed.seat, parsed.placement)

    @app.post("/api/games/{game_id}/hint")
    async def game_hint(game_id: str, request: Request) -> dict[str, Any]:
        session = hub().get(game_id)
        data = need_object(await read_body(request), "a hint request")
        seats = hub().token_seats(session, data.get("token"))
        seat = parse_seat(data.get("seat"))
        hub().check_seat(session, seats, seat)
        check_hint_allowed(session, seats, seat)
        seed = len(session.decisions) * 31 + seat
        loop = asyncio.get_running_loop()
        answer: dict[str, Any] = await loop.run_in_executor(
            hub().executor, hint_for, session.record(), seat, seed
        )
        return answer

    @app.get("/api/levels")
    async def computer_levels() -> dict[str, Any]:
        return {"levels": [level.as_json() for level in levels()]}

    @app.post("/api/games/{game_id}/undo")
    async def undo(game_id: str, request: Request) -> dict[str, Any]:
        session = hub().get(game_id)
        data = need_object(await read_body(request), "an undo request")
        seats = hub().token_seats(session, data.get("token"))
        seat = parse_seat(data.get("seat"))
        hub().check_seat(session, seats, seat)
        return {"ok": True, "undone": hub().undo(session, seat), "version": session.version}

    def finished(game_id: str) -> GameSession:
        session = hub().get(game_id)
        if not session.is_over:
            raise ProtocolError(
                "not-over", "the record comes once the game is over (it holds the seed of the shuffle)", 409
            )
        return session

    @app.get("/api/games/{game_id}/record")
    async def record(game_id: str) -> Response:
        session = finished(game_id)
        text = json.dumps(session.record(), indent=1) + "\n"
        filename = f"dorf-{session.mode}-{session.id}.json"
        return Response(
            text,
            media_type="application/json",
            headers={"Content-Disposition": f'attachment; filename="{filename}"'},
        )

    @app.get("/api/games/{game_id}/replay")
    async def replay_game(game_id: str) -> dict[str, Any]:
        return replay_steps(finished(game_id).record())

    @app.post("/api/replay")
    async def replay(request: Request) -> dict[str, Any]:
        return replay_steps(need_object(await read_body(request), "a record"))

    # --- campaigns -------------------------------------------------------------------------

    @app.get("/api/campaigns")
    async def campaigns() -> dict[str, Any]:
        return desk().listing()

    @app.post("/api/campaigns")
    async def new_campaign(request: Request) -> JSONResponse:
        return JSONResponse(desk().create(await read_body(request)), status_code=201)

    @app.get("/api/campaigns/{name}")
    async def campaign(name: str) -> dict[str, Any]:
        return desk().view(name)

    @app.get("/api/campaigns/{name}/score.svg")
    async def campaign_plot(name: str) -> Response:
        return Response(desk().score_svg(name), media_type="image/svg+xml")

    @app.get("/api/campaigns/{name}/track.svg")
    async def campaign_track(name: str) -> Response:
        return Response(desk().track_svg(name), media_type="image/svg+xml")

    @app.post("/api/campaigns/{name}/record")
    async def campaign_record(name: str, request: Request) -> dict[str, Any]:
        return desk().record(name, await read_body(request))

    @app.post("/api/campaigns/{name}/choose")
    async def campaign_choose(name: str, request: Request) -> dict[str, Any]:
        return desk().choose(name, await read_body(request))

    # --- the websocket -------------------------------------------------------------------------

    @app.websocket("/ws/{game_id}")
    async def websocket(ws: WebSocket, game_id: str) -> None:
        await ws.accept()
        try:
            session = hub().get(game_id)
        except ProtocolError as exc:
            await ws.send_text(json.dumps(error_message(exc)))
            await ws.close(code=4404)
            return
        conn = Connection(ws.send_text, lambda code: ws.close(code=code))
        hub().attach(session, conn)
        pump = asyncio.get_running_loop().create_task(conn.pump())
        conn.send(hub().state_message(session, conn.seats))
        try:
            while not conn.closed:
                message = await ws.receive()
                if message["type"] == "websocket.disconnect":
                    break
                text = message.get("text")
                if text is None:
                    conn.send(error_message(ProtocolError("bad-message", "send JSON text, not binary")))
                    continue
                handle(session, conn, text)
        except WebSocketDisconnect:
            pass
        finally:
            hub().detach(session, conn)
            conn.closed = True
            pump.cancel()
            with contextlib.suppress(BaseException):
                await pump

    def handle(session: GameSession, conn: Connection, text: str) -> None:
        """One client message: answered at once, never awaited in between (so no move interleaves)."""
        ref: int | str | None = None
        try:
            data = need_object(parse_json(text, MAX_MESSAGE))
            ref = request_id(data)
            kind = message_type(data)
            if kind == "ping":
                conn.send({"type": "pong", "id": ref})
            elif kind == "hello":
                seats, bad = hub().seats_for(session.id, parse_tokens(data.get("tokens")))
                conn.seats = seats
                conn.send(hub().state_message(session, conn.seats))
                conn.send({"type": "welcome", "id": ref, "seats": sorted(seats)})
                if bad:
                    raise ProtocolError(
                        "bad-token", f"{bad} of your seat tokens are not valid for this game: you watch", 403
                    )
            elif kind == "move":
                parsed = parse_move(data)
                hub().check_seat(session, conn.seats, parsed.seat)
                hub().move(session, parsed)
                conn.send({"type": "ok", "id": ref, "version": session.version})
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
                count = hub().undo(session, seat)
                conn.send({"type": "ok", "id": ref, "version": session.version, "undone": count})
        except ProtocolError as exc:
            conn.send(error_message(exc, ref))

    return app
