"""The messages between the browser and the server, read strictly.

Every problem is a :class:`ProtocolError` with a short ``code`` a program
can test and a one-line ``message`` a person can read; the server answers it
with ``{"type": "error", "code": ..., "message": ...}`` (over HTTP: the same
object under ``"error"``, with a 4xx status) and changes nothing.  The
protocol itself is described in ``docs/server.md``.

>>> parse_move({"seat": 0, "at": [1, -1], "rot": 2})
Move(seat=0, placement=Placement(at=Hex(1, -1), rot=2), pick=None, key=None)
>>> parse_move({"seat": 1, "pick": 12}).pick
12
>>> parse_move({"seat": 0, "at": [1], "rot": 2})
Traceback (most recent call last):
...
dorf.server.protocol.ProtocolError: at [1] is not [q, r] with two integers
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, replace
from typing import Any

from dorf.formats.notation import is_int, parse_at_rot
from dorf.rules.area import Placement

#: Largest websocket text message the server reads, in bytes.
MAX_MESSAGE = 4096
#: Largest HTTP request body (a game record uploaded to the replay viewer fits easily).
MAX_BODY = 1_000_000
#: Client message types.
#: A move's key (:attr:`Move.key`).
MOVE_KEY = re.compile(r"[A-Za-z0-9_-]{1,64}")
CLIENT_TYPES = ("hello", "move", "preview", "undo", "ping", "sync")


class ProtocolError(ValueError):
    """A request the server refuses: ``code`` for programs, the message for people."""

    def __init__(self, code: str, message: str, status: int = 400) -> None:
        super().__init__(message)
        self.code = code
        self.message = message
        self.status = status

    def as_json(self) -> dict[str, Any]:
        return {"code": self.code, "message": self.message}


@dataclass(frozen=True)
class Move:
    """A decision from one seat: a placement, or a pick in the Head to Head draft."""

    seat: int
    placement: Placement | None = None
    pick: int | None = None
    #: The client's name for this move: a move whose key was made for the seat already is not
    #: made again (a client that lost its connection may send it again safely).
    key: str | None = None


def parse_json(text: str | bytes, limit: int = MAX_MESSAGE) -> Any:
    """A JSON document of at most ``limit`` bytes."""
    size = len(text.encode() if isinstance(text, str) else text)
    if size > limit:
        raise ProtocolError("too-large", f"message of {size} bytes is over the limit of {limit}", 413)
    try:
        return json.loads(text)
    except (ValueError, RecursionError) as exc:
        raise ProtocolError("bad-json", f"not valid JSON: {exc}") from None


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
        return Move(seat, pick=pick)
    try:
        placement = parse_at_rot(data.get("at"), data.get("rot"))
    except ValueError as exc:
        raise ProtocolError("bad-message", str(exc)) from None
    q, r = placement.at
    if not (-100 < q < 100 and -100 < r < 100):
        raise ProtocolError("illegal", f"[{q}, {r}] is too far from the origin")
    return Move(seat, placement=placement)


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
    if raw is None or (is_int(raw) and abs(raw) < 2**53) or (isinstance(raw, str) and len(raw) <= 64):
        return raw
    raise ProtocolError("bad-message", "id must be an integer or a short string")


def error_message(error: ProtocolError, ref: int | str | None = None) -> dict[str, Any]:
    out: dict[str, Any] = {"type": "error", **error.as_json()}
    if ref is not None:
        out["id"] = ref
    return out
