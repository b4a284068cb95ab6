"""A game's websocket, one client at a time (lila-ws's client actor): read each message into a
typed :data:`~dorf.server.protocol.messages.ClientIn`, hand it to the hub, and answer in order.

The socket is accepted, the client counted as a spectator (or held back if
there is no room for one: then its first message must be a ``hello`` that
proves a seat, within ``hello_seconds``), and sent the game's state; its
outgoing messages go through its own queue (:class:`~dorf.server.round.clients.Connection`),
so a slow client holds up nobody else.  A move is answered ``ok`` once made
(and ``saved`` once stored); every other client of the game hears a delta.
"""

from __future__ import annotations

import asyncio
import contextlib
import json

from starlette.types import Message
from starlette.websockets import WebSocket, WebSocketDisconnect

from dorf.server.edge.limits import client_address
from dorf.server.edge.parts import ServerParts
from dorf.server.protocol.messages import (
    ChooseIn,
    ClientIn,
    Hello,
    MoveIn,
    Ping,
    PreviewIn,
    ProposeIn,
    ProtocolError,
    ResignIn,
    SayIn,
    Sync,
    UndoIn,
    error_message,
    ok_message,
    read_client,
)
from dorf.server.round.clients import Connection
from dorf.server.round.game import Broken, Game
from dorf.server.round.preview import preview
from dorf.server.round.seats import check_seat, seats_for


async def serve_socket(hub: ServerParts, ws: WebSocket, game_id: str) -> None:
    """The whole life of one client of game ``game_id`` (accepted already)."""
    try:
        game = await hub.game(game_id)
    except ProtocolError as exc:
        await ws.send_text(json.dumps(error_message(exc)))
        await ws.close(code=4404 if exc.code == "no-game" else 1013)
        return
    conn = Connection(ws.send_text, lambda code: ws.close(code=code), client_address(ws))
    conn.player_id = await hub.players.bot_of(ws)  # a bot's API token: it holds its player's seats
    await hub.doorman.attach(game, conn)  # a spectator, or held back until a hello proves a seat
    pump = asyncio.get_running_loop().create_task(conn.pump())
    if isinstance(game, Game):
        await game.settled()
    hub.fanout.send_state(game, conn)
    try:
        while not conn.closed:
            message = await _next(hub, ws, conn)
            if message is None or message["type"] == "websocket.disconnect":
                break
            text = message.get("text")
            if text is None:
                conn.send(error_message(ProtocolError("bad-message", "send JSON text, not binary")))
                continue
            try:
                await _handle(hub, game, conn, read_client(text))
            except ProtocolError as exc:
                conn.send(error_message(exc))
            if conn.refusal is not None:
                break  # held back, and its first message proved no seat
    except WebSocketDisconnect:
        pass
    finally:
        hub.doorman.detach(game, conn)
        if conn.refusal is not None and not conn.closed:
            conn.refuse()  # what is queued, the reason, then the close 1013
            with contextlib.suppress(BaseException):
                await asyncio.wait_for(pump, 5.0)
        conn.closed = True
        pump.cancel()
        with contextlib.suppress(BaseException):
            await pump


async def _next(hub: ServerParts, ws: WebSocket, conn: Connection) -> Message | None:
    """The client's next message; None if a client that is held back (no room for another
    spectator) has not said hello within ``hello_seconds``."""
    if conn.refusal is None:
        return await ws.receive()
    try:
        return await asyncio.wait_for(ws.receive(), hub.config.hello_seconds)
    except TimeoutError:
        return None


async def _handle(hub: ServerParts, game: Game | Broken, conn: Connection, message: ClientIn) -> None:
    """One client message, answered in order (a move is answered once made; it is saved after)."""
    ref = message.id
    if isinstance(message, Ping):
        conn.send({"type": "pong", "id": ref})
        return
    if isinstance(game, Broken):
        if isinstance(message, Hello | Sync):
            hub.fanout.send_state(game, conn)
            if isinstance(message, Hello):
                conn.send({"type": "welcome", "id": ref, "seats": []})
            return
        raise _answering(game.refusal(), ref)
    hub.touch(game)
    try:
        await _act(hub, game, conn, message)
    except ProtocolError as exc:
        raise _answering(exc, ref) from None


async def _act(hub: ServerParts, game: Game, conn: Connection, message: ClientIn) -> None:
    ref = message.id
    if isinstance(message, Hello):
        seats, bad = seats_for(game, message.tokens)
        seats |= hub.players.seats_of(game.session, conn.player_id)
        if not await hub.doorman.admit(game, conn, seats):
            return  # no room for it so: turned away (conn.refusal)
        await game.settled()
        if seats:
            await hub.talk.load(game, again=True)  # a seat holder's state carries the table's talk
        hub.fanout.send_state(game, conn)
        conn.send({"type": "welcome", "id": ref, "seats": sorted(seats)})
        if bad:
            raise ProtocolError(
                "bad-token", f"{bad} of your seat tokens are not valid for this game: you watch", 403
            )
    elif isinstance(message, Sync):
        await game.settled()
        if conn.seats:
            await hub.talk.load(game, again=True)
        hub.fanout.send_state(game, conn)
    elif isinstance(message, MoveIn):
        check_seat(game.session, conn.seats, message.move.seat)
        made = await hub.mover.move(game, message.move, conn)
        more = {"again": True} if made.get("again") else {}
        conn.send(ok_message(ref, game.session.version, **more))
    elif isinstance(message, PreviewIn):
        check_seat(game.session, conn.seats, message.seat)
        await game.settled()
        result = preview(game.session, message.seat, message.placement)
        conn.send({"type": "preview", "id": ref, "version": game.session.version, **result})
    elif isinstance(message, UndoIn):
        check_seat(game.session, conn.seats, message.seat)
        count = await hub.mover.undo(game, message.seat, conn)
        conn.send(ok_message(ref, game.session.version, undone=count))
    elif isinstance(message, ResignIn):
        check_seat(game.session, conn.seats, message.seat)
        ending = await hub.finisher.resign(game, message.seat)
        conn.send(ok_message(ref, game.session.version, **ending.json()))
    elif isinstance(message, ChooseIn | ProposeIn | SayIn):
        await _at_table(hub, game, conn, message)


async def _at_table(
    hub: ServerParts, game: Game, conn: Connection, message: ChooseIn | ProposeIn | SayIn
) -> None:
    """The table (issue 63): a choice, a proposal, a message of talk; answered ``ok`` only if it
    has an id (a choice is sent often, and changes no game)."""
    if isinstance(message, ChooseIn):
        await hub.table.choose(game, conn, message.seat, message.placement)
    elif isinstance(message, ProposeIn):
        await hub.table.propose(game, conn, message.seat, message.placement, message.clear)
    else:
        seats = game.session.seats
        # A banned player says nothing (dorf admin ban: seen at once); asked only for a seat this
        # connection holds, so that nobody learns whether another seat's player is banned.
        held = message.seat in conn.seats and 0 <= message.seat < len(seats)
        speaker = seats[message.seat].player_id if held else None
        if speaker is not None:
            await hub.players.refuse_banned(speaker)
        await hub.talk.say(game, conn, message.seat, message.text)
    if message.id is not None:
        conn.send({"type": "ok", "id": message.id})


def _answering(error: ProtocolError, ref: int | str | None) -> ProtocolError:
    error.ref = ref
    return error
