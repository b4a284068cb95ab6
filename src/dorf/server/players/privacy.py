"""A player's own data (``docs/server.md``, "Privacy"): its export (``GET /api/me/export``), the
deletion of its account (``POST /api/me/delete``, the name typed again: the same as ``dorf admin
delete``), and the one-time sign-in links ``dorf admin reset-password`` prints (``/sign-in/LINK``).
The SQL is :mod:`dorf.server.storage.admin`.
"""

from __future__ import annotations

import logging
import secrets
import time
from typing import TYPE_CHECKING, Any

from dorf.server.players.accounts import COOKIE, SECRET, Player, banned, need_cookie, secure
from dorf.server.protocol.messages import ProtocolError
from dorf.server.storage.admin import AdminTables
from dorf.server.storage.base import StorageError, secret_hash
from dorf.server.storage.rows import name_key

if TYPE_CHECKING:
    from starlette.requests import HTTPConnection
    from starlette.responses import Response

    from dorf.server.players.accounts import Accounts
    from dorf.server.storage.base import Storage
    from dorf.server.storage.sql import Sql

log = logging.getLogger("dorf.admin")


def _unavailable(exc: StorageError) -> ProtocolError:
    return ProtocolError("storage", f"the player's data cannot be read or changed now ({exc})", 503)


async def export(storage: Storage, player: Player) -> dict[str, Any]:
    """Everything stored of ``player`` (``dorf-player-export/1``): the player, its games with its
    seats, ratings and their history, daily results, API tokens' labels (never a secret)."""
    try:
        return await storage.people(AdminTables.export, player.id)
    except StorageError as exc:
        raise _unavailable(exc) from None


def _delete_own(sql: Sql, player_id: str) -> int:
    seats = AdminTables.delete_player(sql, player_id)
    # The log keeps that it was done, not whose account it was.
    AdminTables.log(sql, time.time(), "delete", "(a player's own request)", f"{seats} seat(s) anonymised")
    return seats


async def delete_own(
    request: HTTPConnection, response: Response, storage: Storage, player: Player, data: dict[str, Any]
) -> None:
    """Delete the player's account and data, from its own browser (``need-cookie``) with its name
    typed again (``{"name"}``: else ``confirm-name``); its games stay, its seats anonymised; this
    browser's cookie is cleared."""
    need_cookie(request, "deleting an account")
    typed = data.get("name")
    if not isinstance(typed, str) or len(typed) > 40 or name_key(typed) != name_key(player.name):
        raise ProtocolError("confirm-name", "type your name again to delete your account", 400)
    try:
        await storage.people(_delete_own, player.id)
    except StorageError as exc:
        raise _unavailable(exc) from None
    log.info("dorf: a player deleted their own account")
    response.delete_cookie(COOKIE, path="/", secure=secure(request), httponly=True, samesite="lax")


async def redeem_link(accounts: Accounts, request: HTTPConnection, response: Response, secret: str) -> Player:
    """Use a one-time sign-in link: this browser signs in as its player (a new session, its cookie
    set on ``response``), its password is forgotten (it sets a new one), every other session of
    it ends, and the link ends.  ``bad-link`` (404) for a link used, replaced, expired
    or never made; ``banned`` for a banned player's."""
    bad = ProtocolError(
        "bad-link", "this sign-in link is not valid: used, replaced, expired or never made", 404
    )
    if not SECRET.fullmatch(secret):
        raise bad
    session = secrets.token_urlsafe(32)
    try:
        found = await accounts.storage.people(
            AdminTables.redeem_link, secret_hash(secret), time.time(), secret_hash(session)
        )
    except StorageError as exc:
        raise _unavailable(exc) from None
    if found == "banned":
        raise banned(None)
    if isinstance(found, str):
        raise bad
    player_id, name = found
    accounts.set_cookie(request, response, session)
    log.info("dorf: a one-time sign-in link was used")
    return Player(player_id, name)


__all__ = ["delete_own", "export", "redeem_link"]
