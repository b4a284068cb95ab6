"""What a player types: a name, a password, a token's label, each checked before the accounts
see it (:mod:`.accounts`).  Text without a UTF-8 form (a lone surrogate) is ``bad-message``."""

from __future__ import annotations

import unicodedata
from typing import Any

from dorf.server.players.names import NameRefused, check_name
from dorf.server.protocol.messages import ProtocolError

#: Passwords: at least 8 characters (NIST SP 800-63B), at most 200.
MIN_PASSWORD, MAX_PASSWORD = 8, 200
#: The longest label of an API token.
MAX_LABEL = 40


def checked_text(raw: str, what: str) -> str:
    try:
        raw.encode("utf-8")
    except UnicodeEncodeError:
        raise ProtocolError("bad-message", f"{what} is text (this one has no UTF-8 form)") from None
    return raw


def check_password_like(raw: Any) -> str:
    """A password given to be checked (any length up to the most; a lone surrogate refused)."""
    if not isinstance(raw, str) or len(raw) > MAX_PASSWORD:
        raise ProtocolError("bad-message", "a password is text")
    return checked_text(raw, "a password")


def check_label(raw: Any) -> str:
    """A token's label: text of at most :data:`MAX_LABEL` characters, no control characters."""
    if raw is None:
        return ""
    if not isinstance(raw, str):
        raise ProtocolError("bad-label", "a token's label is text")
    label = checked_text(raw, "a token's label").strip()
    if len(label) > MAX_LABEL or any(unicodedata.category(c).startswith("C") for c in label):
        raise ProtocolError("bad-label", f"a token's label is at most {MAX_LABEL} printable characters")
    return label


def check_password(raw: Any) -> str:
    """A password a player may choose: text of :data:`MIN_PASSWORD` to :data:`MAX_PASSWORD`
    characters (a lone surrogate is refused ``bad-message``)."""
    if not isinstance(raw, str):
        raise ProtocolError("bad-message", "a password is text")
    try:
        raw.encode("utf-8")
    except UnicodeEncodeError:
        raise ProtocolError("bad-message", "a password is text (this one has no UTF-8 form)") from None
    if not MIN_PASSWORD <= len(raw) <= MAX_PASSWORD:
        raise ProtocolError("bad-password", f"a password is {MIN_PASSWORD} to {MAX_PASSWORD} characters long")
    return raw


def checked_name(raw: Any) -> str:
    """A name a player may take, or ProtocolError (``bad-message`` for a lone surrogate)."""
    if isinstance(raw, str):
        try:
            raw.encode("utf-8")
        except UnicodeEncodeError:
            raise ProtocolError("bad-message", "a name is text (this one has no UTF-8 form)") from None
    try:
        return check_name(raw)
    except NameRefused as exc:
        raise ProtocolError(exc.code, str(exc)) from None


__all__ = [
    "MAX_LABEL",
    "MAX_PASSWORD",
    "MIN_PASSWORD",
    "check_label",
    "check_password",
    "check_password_like",
    "checked_name",
    "checked_text",
]
