"""The messages between the browser and the server, read strictly.

A client's message is read once, here, into the engine's own types (a move's
decision is a :class:`~dorf.rules.area.Placement` or a
:class:`~dorf.games.state.Pick`), and checked once, by the engine, when it is
made.  Every problem is a :class:`ProtocolError` with a short ``code`` a
program can test and a one-line ``message`` a person can read; the server
answers it with ``{"type": "error", "code": ..., "message": ...}`` (over HTTP:
the same object under ``"error"``, with a 4xx status) and changes nothing.
The protocol itself is described in ``docs/server.md``.

>>> parse_move({"seat": 0, "at": [1, -1], "rot": 2})
Move(seat=0, decision=Placement(at=Hex(1, -1), rot=2), key=None)
>>> parse_move({"seat": 1, "pick": 12}).decision
Pick(tile_id=12)
>>> parse_move({"seat": 0, "at": [1], "rot": 2})
Traceback (most recent call last):
...
dorf.server.protocol.messages.ProtocolError: at [1] is not [q, r] with two integers
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, replace
from typing import Any

from dorf.formats.notation import is_int, parse_at_rot
from dorf.games.state import Decision, Pick
from dorf.rules.area import Placement

#: Largest websocket text message the server reads, in bytes.
MAX_MESSAGE = 4096
#: Largest HTTP request body (a game record uploaded to the replay viewer fits easily).
MAX_BODY = 1_000_000
#: Client message types.
#: A move's key (:attr:`Move.key`).
MOVE_KEY = re.compile(r"[A-Za-z0-9_-]{1,64}")
CLIENT_TYPES = ("hello", "move", "preview", "undo", "ping", "sync", "resign", "choose", "propose", "say")
#: The longest message of table talk, in characters (after stripping).
MAX_TALK = 200


class ProtocolError(ValueError):
    """A request the server refuses: ``code`` for programs, the message for people."""

    def __init__(self, code: str, message: str, status: int = 400) -> None:
        super().__init__(message)
        self.code = code
        self.message = message
        self.status = status
        #: The id of the client's request it answers, where known.
        self.ref: int | str | None = None

    def as_json(self) -> dict[str, Any]:
        return {"code": self.code, "message": self.message}


class RateLimited(ProtocolError):
    """A request refused by a limit: HTTP 429 ``rate-limited``, and the seconds to wait."""

    def __init__(self, message: str, retry_after: int) -> None:
        super().__init__("rate-limited", message, 429)
        self.retry_after = retry_after

    @property
    def headers(self) -> dict[str, str]:
        return {"Retry-After": str(self.retry_after)}


@dataclass(frozen=True)
class Move:
    """A decision from one seat: a placement, or a pick in the Head to Head draft."""

    seat: int
    decision: Decision
    #: The client's name for this move: a move whose key was made for the seat already is not
    #: made again (a client that lost its connection may send it again safely).
    key: str | None = None

    @property
    def placement(self) -> Placement | None:
        """The placement, if the decision is one."""
        return self.decision if isinstance(self.decision, Placement) else None


def parse_json(text: str | bytes, limit: int = MAX_MESSAGE) -> Any:
    r"""A JSON document of at most ``limit`` bytes, whose strings are text: a lone surrogate
    (``"\ud800"``, which JSON allows and no UTF-8 can hold) is refused here, whatever field it
    is in, so that no token, name or record can carry one further.

    >>> parse_json('{"token": "\\ud83d\\ude00"}')
    {'token': '😀'}
    >>> parse_json('{"token": "\\ud800"}')
    Traceback (most recent call last):
    dorf.server.protocol.messages.ProtocolError: a lone surrogate (\ud800 to \udfff) is not text
    """
    data = _load(text, limit)
    check_text(text, data)
    return data


def _load(text: str | bytes, limit: int) -> Any:
    size = len(text.encode("utf-8", "surrogatepass") if isinstance(text, str) else text)
    if size > limit:
        raise ProtocolError("too-large", f"message of {size} bytes is over the limit of {limit}", 413)
    try:
        return json.loads(text)
    except (ValueError, RecursionError) as exc:
        raise ProtocolError("bad-json", f"not valid JSON: {exc}") from None


def check_text(text: str | bytes, data: Any) -> None:
    """ProtocolError if a string of ``data`` (read from ``text``) holds a lone surrogate."""
    raw = text.encode("utf-8", "surrogatepass") if isinstance(text, str) else text
    if _ESCAPED_SURROGATE.search(raw) and _has_surrogate(data):
        raise ProtocolError("bad-message", "a lone surrogate (\\ud800 to \\udfff) is not text")


#: A JSON escape that may spell half of a surrogate pair (only then is the document walked).
_ESCAPED_SURROGATE = re.compile(rb"\\u[dD][89a-fA-F]")
_SURROGATE = re.compile("[\ud800-\udfff]")
#: Control characters (C0, DEL, C1) other than white space, which a message of talk never holds.
_CONTROL = re.compile("[\x00-\x1f\x7f-\x9f]")


def _has_surrogate(data: Any) -> bool:
    """Whether a string in ``data`` (keys included) holds a lone surrogate."""
    pending = [data]
    while pending:
        item = pending.pop()
        if isinstance(item, str):
            if _SURROGATE.search(item):
                return True
        elif isinstance(item, dict):
            pending.extend(item.keys())
            pending.extend(item.values())
        elif isinstance(item, list):
            pending.extend(item)
    return False


def need_object(data: Any, what: str = "a message") -> dict[str, Any]:
    if not isinstance(data, dict):
        raise ProtocolError("bad-message", f"{what} must be a JSON object")
    return data


def parse_seat(raw: Any) -> int:
    if not is_int(raw) or not 0 <= raw < 64:
        raise ProtocolError("bad-message", f"seat {raw!r} is not a seat number")
    assert isinstance(raw, int)
    return raw


def parse_move(data: dict[str, Any]) -> Move:
    """``{"seat": S, "at": [q, r], "rot": K}`` or ``{"seat": S, "pick": TILE}``, with an
    optional ``"key"`` (1 to 64 letters, digits, ``-`` and ``_``)."""
    move = _parse_decision(data)
    key = data.get("key")
    if key is None:
        return move
    if not isinstance(key, str) or not MOVE_KEY.fullmatch(key):
        raise ProtocolError("bad-message", "key must be 1 to 64 letters, digits, - or _")
    return replace(move, key=key)


def _parse_decision(data: dict[str, Any]) -> Move:
    seat = parse_seat(data.get("seat"))
    if "pick" in data:
        pick = data["pick"]
        if not is_int(pick) or not 0 <= pick < 10_000:
            raise ProtocolError("bad-message", f"pick {pick!r} is not a tile number")
        if "at" in data or "rot" in data:
            raise ProtocolError("bad-message", "a move is a placement (at, rot) or a pick, not both")
        return Move(seat, Pick(pick))
    try:
        placement = parse_at_rot(data.get("at"), data.get("rot"))
    except ValueError as exc:
        raise ProtocolError("bad-message", str(exc)) from None
    q, r = placement.at
    if not (-100 < q < 100 and -100 < r < 100):
        raise ProtocolError("illegal", f"[{q}, {r}] is too far from the origin")
    return Move(seat, placement)


def parse_tokens(raw: Any) -> list[str]:
    """The seat tokens a client presents: a list of at most 6 strings."""
    if raw is None:
        return []
    if not isinstance(raw, list) or len(raw) > 6 or not all(isinstance(t, str) and len(t) < 200 for t in raw):
        raise ProtocolError("bad-message", "tokens must be a list of at most 6 token strings")
    return list(raw)


def message_type(data: dict[str, Any]) -> str:
    kind = data.get("type")
    if kind not in CLIENT_TYPES:
        raise ProtocolError(
            "unknown-type", f"unknown message type {kind!r}: expected {', '.join(CLIENT_TYPES)}"
        )
    assert isinstance(kind, str)
    return kind


def request_id(data: dict[str, Any]) -> int | str | None:
    """The client's own id for a request, echoed in the reply (a short string or an integer)."""
    raw = data.get("id")
    if raw is None or (is_int(raw) and abs(raw) < 2**53):
        return raw
    if isinstance(raw, str) and len(raw) <= 64 and not _SURROGATE.search(raw):
        return raw
    raise ProtocolError("bad-message", "id must be an integer or a short string")


# --- what a client sends (lila-ws's ClientIn) --------------------------------------------


@dataclass(frozen=True)
class Hello:
    """``hello``: the seat tokens the client holds (it watches with none)."""

    id: int | str | None
    tokens: list[str]


@dataclass(frozen=True)
class MoveIn:
    """``move``: a decision of a seat the client holds."""

    id: int | str | None
    move: Move


@dataclass(frozen=True)
class PreviewIn:
    """``preview``: what placing the seat's tile there would do, without doing it."""

    id: int | str | None
    seat: int
    placement: Placement


@dataclass(frozen=True)
class UndoIn:
    """``undo``: take back the seat's last decision (practice games)."""

    id: int | str | None
    seat: int


@dataclass(frozen=True)
class Ping:
    """``ping``: answered ``pong`` after everything sent before it."""

    id: int | str | None


@dataclass(frozen=True)
class Sync:
    """``sync``: send the whole state again."""

    id: int | str | None


@dataclass(frozen=True)
class ResignIn:
    """``resign``: the seat gives the game up (the Duel, Head to Head): the other seat wins."""

    id: int | str | None
    seat: int


@dataclass(frozen=True)
class ChooseIn:
    """``choose``: the active seat's considered cell and rotation (None: it cleared it); not a move."""

    id: int | str | None
    seat: int
    placement: Placement | None


@dataclass(frozen=True)
class ProposeIn:
    """``propose``: a seat proposes a placement of the current tile (cooperative games);
    ``clear``: it withdraws that one, or all of its proposals (``placement`` None)."""

    id: int | str | None
    seat: int
    placement: Placement | None
    clear: bool = False


@dataclass(frozen=True)
class SayIn:
    """``say``: a message of table talk from a seat (stripped, 1 to :data:`MAX_TALK` characters)."""

    id: int | str | None
    seat: int
    text: str


ClientIn = Hello | MoveIn | PreviewIn | UndoIn | Ping | Sync | ResignIn | ChooseIn | ProposeIn | SayIn


def read_client(text: str) -> ClientIn:
    """One websocket message of a client, read strictly; ProtocolError (with ``ref``, the
    message's id, where it could be read) if it is not one.

    >>> read_client('{"type": "move", "id": 4, "seat": 0, "at": [0, 1], "rot": 3}')
    MoveIn(id=4, move=Move(seat=0, decision=Placement(at=Hex(0, 1), rot=3), key=None))
    >>> read_client('{"type": "ping"}')
    Ping(id=None)
    """
    data = need_object(_load(text, MAX_MESSAGE))
    ref = request_id(data)
    try:
        check_text(text, data)
        kind = message_type(data)
        if kind == "hello":
            return Hello(ref, parse_tokens(data.get("tokens")))
        if kind == "move":
            return MoveIn(ref, parse_move(data))
        if kind == "preview":
            return PreviewIn(ref, *preview_of(data))
        if kind == "undo":
            return UndoIn(ref, parse_seat(data.get("seat")))
        if kind == "resign":
            return ResignIn(ref, parse_seat(data.get("seat")))
        if kind == "choose":
            seat, placement, _ = table_placement(data, clearing=False)
            return ChooseIn(ref, seat, placement)
        if kind == "propose":
            return ProposeIn(ref, *table_placement(data, clearing=True))
        if kind == "say":
            return SayIn(ref, parse_seat(data.get("seat")), parse_talk(data.get("text")))
        return Ping(ref) if kind == "ping" else Sync(ref)
    except ProtocolError as exc:
        exc.ref = ref
        raise


def preview_of(data: dict[str, Any]) -> tuple[int, Placement]:
    """The seat and placement of a preview request (a pick has no preview)."""
    move = parse_move(data)
    if move.placement is None:
        raise ProtocolError("bad-message", "a preview is of a placement (at, rot)")
    return move.seat, move.placement


def table_placement(data: dict[str, Any], *, clearing: bool) -> tuple[int, Placement | None, bool]:
    """The seat, placement and ``clear`` of a ``choose`` or ``propose``: ``{"seat", "at", "rot"}``,
    or ``{"seat", "clear": true}`` (a ``propose`` may name the one it withdraws: ``clearing``).

    >>> table_placement({"seat": 1, "clear": True}, clearing=False)
    (1, None, True)
    >>> table_placement({"seat": 1, "clear": True, "at": [0, 1], "rot": 2}, clearing=True)
    (1, Placement(at=Hex(0, 1), rot=2), True)
    """
    clear = data.get("clear", False)
    if not isinstance(clear, bool):
        raise ProtocolError("bad-message", "clear must be true or false")
    if clear and (not clearing or ("at" not in data and "rot" not in data)):
        if "at" in data or "rot" in data:
            raise ProtocolError("bad-message", "a choice is cleared with clear alone, without at and rot")
        return parse_seat(data.get("seat")), None, True
    if "pick" in data:
        raise ProtocolError("bad-message", "a choice or proposal is a placement (at, rot), not a pick")
    move = _parse_decision(data)
    return move.seat, move.placement, clear


def parse_talk(raw: Any) -> str:
    """A message of table talk: one line of text, stripped, 1 to :data:`MAX_TALK` characters; a
    run of white space (a line break, a tab) is one space, another control character is refused.
    Markup is kept as it is: the text is always shown as text, never markup.

    >>> parse_talk("  <b>Here?</b>\\n\\n or there ")
    '<b>Here?</b> or there'
    """
    if not isinstance(raw, str):
        raise ProtocolError("bad-message", "text must be a string")
    if len(raw) > 4 * MAX_TALK:
        raise ProtocolError("talk-too-long", f"a message is at most {MAX_TALK} characters, not {len(raw)}")
    text = " ".join(raw.split())
    if _CONTROL.search(text):
        raise ProtocolError("bad-message", "a message is text: no control characters")
    if not text:
        raise ProtocolError("talk-empty", "say something: the message is empty")
    if len(text) > MAX_TALK:
        raise ProtocolError("talk-too-long", f"a message is at most {MAX_TALK} characters, not {len(text)}")
    return text


# --- what the server sends (ClientOut) ------------------------------------------------------


def error_message(error: ProtocolError, ref: int | str | None = None) -> dict[str, Any]:
    out: dict[str, Any] = {"type": "error", **error.as_json()}
    ref = ref if ref is not None else error.ref
    if ref is not None:
        out["id"] = ref
    return out


def ok_message(ref: int | str | None, version: int, **more: Any) -> dict[str, Any]:
    """``ok``: the request was done; the game is at ``version`` (``again``: a move sent again)."""
    return {"type": "ok", "id": ref, "version": version, **more}


def saved_message(version: int) -> str:
    """``saved``: every change of the game up to ``version`` is in the database."""
    return f'{{"type":"saved","version":{version}}}'
