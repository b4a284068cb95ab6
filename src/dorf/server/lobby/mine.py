"""A player's own games (``GET /api/me/games``) and the rematch of a finished one.

The games are those whose seats record the player (``server_seat.player_id``), the most
recently changed first, read as the server holds them: those where it is the player's move
first (a correspondence game is come back to here, over days), then the others in play, then
the finished ones, each with its result for the player and whether a rematch can be offered.
A rematch (``POST /api/games/ID/rematch``) is a new game of the same mode, clock and rated flag
with the seats in reverse order (so the other side starts): the asker's seats are theirs, the
other person's seat is online and offered to that player alone (a lobby row ``invited``, shown
in their games as an offer, taken with the lobby's ``take``); computer seats stay computers.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, Any

from fastapi import FastAPI, Request
from fastapi.responses import JSONResponse

from dorf.server.protocol.messages import ProtocolError
from dorf.server.protocol.requests import client_address
from dorf.server.protocol.views import Json
from dorf.server.round.creating import count_new_game
from dorf.server.round.game import Broken, Game
from dorf.server.round.session import COMPUTER, HERE, ONLINE
from dorf.server.storage.base import StorageError

if TYPE_CHECKING:
    from dorf.server.lobby.parts import LobbyParts
    from dorf.server.players.accounts import Player

#: Games listed at most.
MAX_GAMES = 30


def _mine(game: Game, player_id: str) -> list[int]:
    return [i for i, s in enumerate(game.session.seats) if s.player_id == player_id]


def game_line(game: Game, player_id: str) -> Json:
    """One of the player's games as ``/api/me/games`` lists it."""
    session = game.session
    seats = _mine(game, player_id)
    over = session.is_over
    winner = session.winner() if over else None
    end = None if session.ending is None else session.ending.end
    result = None
    if over:
        if end == "aborted":
            result = "aborted"
        elif winner is None:
            result = "draw" if len(session.seats) == 2 else None
        else:
            result = "won" if winner in seats else "lost"
    people = [s for s in session.seats if s.kind != COMPUTER and s.player_id not in (None, player_id)]
    return {
        "id": game.id,
        "mode": session.mode,
        "clock": None if session.clock is None else session.clock.spec.text,
        "rated": session.rated,
        "seats": seats,
        "opponents": [s.name for i, s in enumerate(session.seats) if i not in seats],
        "your_move": not over and any(seat in session.waiting() for seat in seats),
        "over": over,
        "result": result,
        "rematch": over and len(people) <= 1 and session.daily is None,
        "daily": session.daily,  # a game of the daily challenge: played again from there
    }


async def my_games(parts: LobbyParts, player: Player) -> Json:
    """``GET /api/me/games``: the player's games, their move first, and rematches offered to them."""
    try:
        ids = await parts.storage.player_games(player.id, MAX_GAMES)
    except StorageError as exc:
        raise ProtocolError("storage", f"your games cannot be read now ({exc})", 503) from None
    lines = []
    for game_id in ids:
        try:
            game = await parts.game(game_id)
        except ProtocolError:
            continue
        if isinstance(game, Game) and _mine(game, player.id):
            await game.settled()
            lines.append(game_line(game, player.id))
    lines.sort(key=lambda g: (not g["your_move"], g["over"]))  # stable: the most recent first within
    await parts.lobby.reread_now()
    offers = [
        {"id": o.game, "mode": o.mode, "clock": o.clock, "rated": o.rated, "name": o.name}
        for o in parts.lobby.offers.values()
        if o.invited == player.id
    ]
    return {"games": lines, "offers": offers}


async def rematch(parts: LobbyParts, game_id: str, player: Player, address: str = "unknown") -> Json:
    """``POST /api/games/ID/rematch``: the new game (the asker's tokens), offered to the other.
    It counts against the limit on new games of ``address`` and of the player
    (:mod:`dorf.server.round.creating`)."""
    found = await parts.game(game_id)
    if isinstance(found, Broken):
        raise found.refusal()
    game = found
    await game.settled()
    session = game.session
    mine = _mine(game, player.id)
    if not mine:
        raise ProtocolError("not-your-game", "a rematch is asked for by a player of the game", 403)
    if not session.is_over:
        raise ProtocolError("not-over", "a rematch comes once the game is over", 409)
    if session.daily is not None:
        raise ProtocolError(
            "bad-message", "a game of the daily challenge is played again from the challenge (/api/daily)"
        )
    others = {
        s.player_id for s in session.seats if s.kind != COMPUTER and s.player_id not in (None, player.id)
    }
    if len(others) > 1:
        raise ProtocolError(
            "bad-message", "a rematch is offered to one other player; open a new game instead"
        )
    seats: list[Json] = []
    for i in reversed(range(len(session.seats))):
        spec = session.seats[i]
        if spec.kind == COMPUTER:
            seats.append({"kind": COMPUTER, "player": spec.player, "name": spec.name})
        elif i in mine:
            seats.append({"kind": HERE, "name": spec.name})
        else:
            seats.append({"kind": ONLINE, "name": spec.name})
    body: Json = {"mode": session.mode, "seats": seats, "rated": session.rated}
    if session.clock is not None:
        body["clock"] = session.clock.spec.text
    await parts.lobby.check_room(player)
    await count_new_game(parts.storage, parts.config.create_limit, address, player.id)
    made = await parts.seating.create(body, creator=player)
    if made["invites"]:
        invited = next(iter(others), None)
        await parts.lobby.list_open(made, body, player, invited=invited)
    return made


def add_mine_routes(
    app: FastAPI, parts: Callable[[], LobbyParts], body_of: Callable[[Request], Awaitable[Any]]
) -> None:
    """``GET /api/me/games`` and ``POST /api/games/ID/rematch`` on ``app``."""

    @app.get("/api/me/games")
    async def me_games(request: Request) -> JSONResponse:
        player = await parts().players.player_of(request)  # a read: it makes nobody
        if player is None:
            return JSONResponse({"games": [], "offers": []})
        return JSONResponse(await my_games(parts(), player))

    @app.post("/api/games/{game_id}/rematch")
    async def game_rematch(game_id: str, request: Request) -> JSONResponse:
        await body_of(request)
        player = await parts().players.of_request(request, None)
        made = await rematch(parts(), game_id, player, client_address(request))
        return JSONResponse(made, status_code=201)
