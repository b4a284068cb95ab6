"""``dorf bot``: a program plays a seat of a game on a dorf server, through its websocket, as a
person's page would.

It says ``hello`` with the seat's token, follows the seat's description from the ``state``
message and each ``delta`` (:func:`dorf.server.protocol.delta.patch`; ``sync`` when one does not follow
on), and whenever its seat must decide shows the program that description (a :class:`Bot`) and
sends the answer as a ``move``.
"""

from __future__ import annotations

import argparse
import json
import os
import shlex
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

from dorf.bots.process import PREFIX, BotError, command_argv
from dorf.bots.protocol import DEFAULT_SECONDS, Json, bot_seconds, moves_of, one_way_seed
from dorf.bots.seat import Bot


def add_bot_parser(sub: argparse._SubParsersAction[Any]) -> None:
    """Register ``dorf bot`` with its arguments."""
    parser = sub.add_parser(
        "bot",
        help="a program plays a seat of an online game, through the server's websocket",
        description="Play a seat of a game on a dorf server with a program that speaks the bot protocol "
        "(docs/bots.md): dorf connects with the seat's token, shows the program the seat's view "
        "and sends its moves, as the page would.",
    )
    parser.add_argument(
        "--server", default="http://127.0.0.1:8000", metavar="URL", help="the server (default %(default)s)"
    )
    parser.add_argument(
        "--game",
        required=True,
        metavar="ID",
        help="the game's id (in its address); --game=ID if it begins with -",
    )
    parser.add_argument("--token", metavar="T", help="the seat's token; --token=T if it begins with -")
    parser.add_argument(
        "--token-file",
        metavar="F",
        help="a file holding a bot account's API token (made at /api/me/tokens; else $DORF_TOKEN): "
        "the bot plays the seats its player holds",
    )
    parser.add_argument(
        "--bot-seconds",
        type=bot_seconds,
        default=DEFAULT_SECONDS,
        metavar="S",
        help=f"the program's clock for each decision (default {DEFAULT_SECONDS:g})",
    )
    parser.add_argument(
        "program", nargs=argparse.REMAINDER, metavar="-- COMMAND", help="the program and its arguments"
    )


class OnlineError(Exception):
    """Why ``dorf bot`` stops before the game is over: one line, and the exit status (2: it
    could not play; 1: cut off during the game)."""

    def __init__(self, message: str, status: int = 2) -> None:
        super().__init__(message)
        self.status = status


def _ws_url(server: str, game: str) -> str:
    """The websocket of ``game`` on ``server``.

    >>> _ws_url("http://127.0.0.1:8000/", "abc"), _ws_url("https://dorf.example", "x")
    ('ws://127.0.0.1:8000/ws/abc', 'wss://dorf.example/ws/x')
    """
    base = server.rstrip("/")
    for web, ws in (("https://", "wss://"), ("http://", "ws://")):
        if base.startswith(web):
            return ws + base[len(web) :] + "/ws/" + game
    if base.startswith(("ws://", "wss://")):
        return base + "/ws/" + game
    raise OnlineError(f"--server {server!r} is not an http:// or https:// address")


def play_online(
    server: str,
    game_id: str,
    token: str,
    spec: str,
    seconds: float = DEFAULT_SECONDS,
    say: Callable[[str], None] = print,
    api_token: str | None = None,
) -> Json:
    """Play the seat ``token`` holds in game ``game_id`` (or, with a bot account's ``api_token``,
    the seats its player holds) with program ``spec`` to the end of the game; the final
    description ``{"you", "game"}`` (:class:`OnlineError` if it cannot)."""
    try:
        from websockets.exceptions import ConnectionClosed, InvalidHandshake, InvalidURI
        from websockets.sync.client import connect
    except ImportError:
        raise OnlineError("dorf bot needs the websockets package: pip install 'dorf-games[web]'") from None
    from dorf.server.protocol.delta import patch

    url = _ws_url(server, game_id)
    bots: dict[int, Bot] = {}
    try:
        headers = {"Authorization": f"Bearer {api_token}"} if api_token else None
        connection = connect(url, open_timeout=10, close_timeout=2, max_size=None, additional_headers=headers)
    except (OSError, TimeoutError, InvalidHandshake, InvalidURI) as exc:
        raise OnlineError(f"cannot connect to {url}: {exc}") from None
    document: Json | None = None
    seats: list[int] | None = None
    asked: dict[int, Any] = {}  # seat -> the version it last moved at
    in_flight: dict[int, tuple[int, Any]] = {}  # a move's id -> its seat and version, until answered
    refused: set[int] = set()  # seats whose move was refused while nothing changed
    fell_back: dict[int, Any] = {}  # seat -> the version it last played the first legal move at
    moves = 0
    try:
        with connection:
            connection.send(json.dumps({"type": "hello", "tokens": [token] if token else [], "id": "hello"}))
            while True:
                try:
                    message = json.loads(connection.recv())
                except ConnectionClosed as exc:
                    raise OnlineError(f"the server closed the connection ({exc})", 1) from None
                kind = message.get("type")
                if kind == "state":
                    document = {"you": message["you"], "game": message["game"]}
                elif kind == "delta":
                    if document is None or document["game"].get("version") != message.get("from"):
                        connection.send(json.dumps({"type": "sync"}))
                        continue
                    try:
                        document = patch(document, message["ops"])
                    except (ValueError, KeyError, IndexError, TypeError):
                        connection.send(json.dumps({"type": "sync"}))
                        continue
                elif kind == "welcome":
                    seats = list(message.get("seats", []))
                    if not seats:
                        whose = "the API token's player" if api_token and not token else "the token"
                        raise OnlineError(f"{whose} holds no seat of game {game_id}")
                elif kind == "ok":
                    in_flight.pop(message.get("id"), None)
                elif kind == "error":
                    text = f"{message.get('code')}: {message.get('message')}"
                    sent = in_flight.pop(message.get("id"), None)
                    if sent is None:
                        if (
                            message.get("code") in ("no-game", "bad-token", "busy")
                            or message.get("id") == "hello"
                        ):
                            raise OnlineError(text)
                        say(f"dorf bot: the server says {text}")
                    else:
                        say(f"dorf bot: the server refused seat {sent[0]}'s move ({text})")
                        if document is not None and document["game"].get("version") == sent[1]:
                            refused.add(sent[0])  # nothing changed since: it must decide again
                if document is None or seats is None:
                    continue
                game = document["game"]
                if game.get("over"):
                    for seat, ended in bots.items():
                        ended.end(document)
                        if ended.lost:
                            say(f"dorf bot: seat {seat} lost {ended.lost} of {ended.decisions} decisions")
                    return document
                version = game.get("version")
                moving = {seat for seat, _ in in_flight.values()}
                for seat in seats:
                    if seat not in game.get("waiting", ()) or seat in moving:
                        continue  # (a seat whose move is not answered yet may still look as waiting)
                    legal = moves_of(document, seat)
                    if not legal:
                        continue
                    if asked.get(seat) == version:
                        if seat not in refused:
                            continue
                        refused.discard(seat)
                        if fell_back.get(seat) == version:
                            raise OnlineError(f"the server refuses every move of seat {seat} now", 1)
                        fell_back[seat] = version
                        move = legal[0]
                        say(f"dorf bot: seat {seat} plays the first legal move instead, {json.dumps(move)}")
                    else:
                        refused.discard(seat)
                        if seat not in bots:
                            seed = one_way_seed(int.from_bytes(game_id.encode()[:8]), seat)
                            bots[seat] = Bot(spec, mode=game["mode"], seat=seat, seed=seed, seconds=seconds)
                        move = bots[seat].decide(document, seat)
                    asked[seat] = version
                    moves += 1
                    in_flight[moves] = (seat, version)
                    connection.send(json.dumps({"type": "move", "seat": seat, **move, "id": moves}))
    finally:
        for bot in bots.values():
            bot.end(None)


def api_token_of(path: str | None) -> str | None:
    """A bot account's API token: the first line of the file ``path`` (``--token-file``), else
    ``$DORF_TOKEN``; None if neither is given (:class:`OnlineError` for an unreadable file)."""
    if path is not None:
        try:
            text = Path(path).read_text(encoding="utf-8").strip()
        except (OSError, UnicodeDecodeError) as exc:
            raise OnlineError(f"cannot read --token-file {path}: {exc}") from None
        if not text or any(ch.isspace() for ch in text) or not text.isascii():
            raise OnlineError(
                f"--token-file {path} holds no token (one line, the token as /api/me/tokens gave it)"
            )
        return text
    token = os.environ.get("DORF_TOKEN", "").strip()
    return token or None


def bot_main(args: argparse.Namespace) -> int:
    """``dorf bot``: one line on stderr and exit 2 when it cannot play, 1 if cut off mid-game."""
    command = list(args.program)
    if command and command[0] == "--":
        command = command[1:]
    if not command:
        print("dorf bot: name the program after --: dorf bot ... -- python my_bot.py", file=sys.stderr)
        return 2
    spec = PREFIX + shlex.join(command)
    api_token = None
    if args.token is None:
        try:
            api_token = api_token_of(args.token_file)
        except OnlineError as exc:
            print(f"dorf bot: {exc}", file=sys.stderr)
            return 2
    if not args.game or not (args.token or api_token):
        print(
            "dorf bot: --game must not be empty, and a seat --token or an API token is needed",
            file=sys.stderr,
        )
        return 2
    try:
        command_argv(spec)
        final = play_online(
            args.server, args.game, args.token or "", spec, args.bot_seconds, api_token=api_token
        )
    except BotError as exc:
        print(f"dorf bot: {exc}", file=sys.stderr)
        return 2
    except OnlineError as exc:
        print(f"dorf bot: {exc}", file=sys.stderr)
        return exc.status
    game = final["game"]
    totals = [score.get("total") for score in game.get("scores", [])]
    seats = final["you"]["seats"]
    line = f"dorf bot: game {args.game} is over; scores {totals}"
    if "winner" in game:
        winner = game["winner"]
        line += "; a shared victory" if winner is None else ("; won" if winner in seats else "; lost")
    print(line)
    return 0
