"""Players: a person becomes one (a name kept by a cookie) with the first thing they do that
needs one (takes a seat, seeks, starts the daily challenge, chooses a name, sets a password, makes
a rated game: :meth:`Accounts.of_request`), may set a password to sign in elsewhere, and may make
API tokens for a bot that plays as them.  Reading pages makes nobody: a visitor is no player.
New players are limited per address (:data:`NEW_PLAYERS_PER_MINUTE`), one made for a request
that then fails is removed again, and one that never plays is swept after
:data:`NEVER_PLAYED_DAYS` days.

**The cookie.**  A new player gets a long random secret (:func:`secrets.token_urlsafe`, 32
bytes) in the cookie ``dorf_player``: ``HttpOnly`` (no script reads it), ``SameSite=Lax`` (a
form of another site does not send it), ``Path=/``, kept 400 days (the most browsers keep one),
and ``Secure`` when the request came over HTTPS (``dorf serve`` behind a ``--trusted-proxy``
believes its ``X-Forwarded-Proto``).  Only the secret's SHA-256 is stored: whoever reads the
database cannot be anyone.  A cookie the server does not know (forged, or of a device that signed
out) names nobody: the page sees a visitor, and a request that would change a player is
refused (``no-player``, HTTP 401).

**Passwords** are hashed with argon2id (:mod:`argon2`'s defaults, RFC 9106's second choice) in a
thread, not on the event loop, at most :data:`HASHING_AT_ONCE` at a time (each takes 64 MiB:
more wait their turn); signing in and setting a password are limited (HTTP 429 with
``Retry-After``, counted by the storage's ``hit``, so on every server sharing a database:
``edge/players.py``).  Setting or changing a password signs the player out everywhere else:
every other session ends and this device gets a new cookie (a copy of the old one is worth
nothing); changing one also ends every API token.  Setting a password, making a token and
signing out everywhere need the cookie: an API token is refused (``need-cookie``, HTTP 403).

**API tokens** (``dorf_`` and 32 random bytes) are shown once and stored as their SHA-256, with an
id (the hash's first 16 digits), a label, and when each was made and last used (noted at most once
a minute per token: :data:`TOKEN_USE_EVERY`); a player has at most :data:`MAX_TOKENS`.  A player
that has made one is a bot account (``bot: true`` wherever its name shows, as lichess marks BOT
accounts).  A bot sends it as ``Authorization: Bearer TOKEN``.  The player's browser lists its
tokens and revokes any of them by id; a token's holder revokes that token alone (its id, or
``current``).
"""

from __future__ import annotations

import asyncio
import contextlib
import math
import re
import secrets
import time
from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import TYPE_CHECKING, Any, TypeVar

from dorf.server.players.inputs import (
    check_label,
    check_password,
    check_password_like,
    checked_name,
    checked_text,
)
from dorf.server.players.names import random_name
from dorf.server.protocol.messages import ProtocolError, RateLimited
from dorf.server.protocol.requests import client_address
from dorf.server.storage.base import Refused, StorageError, StoredPlayer, secret_hash

if TYPE_CHECKING:
    from starlette.requests import HTTPConnection
    from starlette.responses import Response

    from dorf.server.storage.base import Storage

#: The cookie that keeps a player, and how long (seconds: 400 days, the most browsers keep).
COOKIE = "dorf_player"
COOKIE_AGE = 400 * 86400
#: What a secret the server made looks like (cookie secrets, API tokens): anything else is forged.
SECRET = re.compile(r"[A-Za-z0-9_-]{20,100}")
TOKEN_PREFIX = "dorf_"
#: How often a new player's random name is drawn again when it is taken (:func:`_digits`).
NAME_TRIES = 20
#: New players a minute from one address, by default (``dorf serve --player-limit``).
NEW_PLAYERS_PER_MINUTE = 10
#: A player who never played is removed this many days after it was made (the sweep).
NEVER_PLAYED_DAYS = 7
#: How often the sweep runs (seconds), and how many players it looks at in one transaction.
SWEEP_EVERY, SWEEP_BATCH = 3600.0, 500
#: How long a name given up (a rename) is held for its player: nobody else may take it meanwhile.
NAME_HELD_DAYS = 30
#: argon2 hashes (and checks) computed at once: each takes 64 MiB and a core for about 0.1 s, so
#: a flood of sign-ins or password changes waits its turn instead of filling the memory.
HASHING_AT_ONCE = 2
#: A token's last use is written at most once in this many seconds (per token and server): a
#: bot's requests do not each pay a write.
TOKEN_USE_EVERY = 60.0
#: API tokens a player may have at once.
MAX_TOKENS = 20
#: What a token's id looks like (the first 16 hex digits of its hash).
TOKEN_ID = re.compile(r"[0-9a-f]{16}")
#: The token ids remembered as noted lately (:meth:`Accounts._token_used`), at most.
TOKEN_USES_KEPT = 10_000

T = TypeVar("T")
#: The error code of whatever a banned player tries (``dorf admin ban``).
BANNED = "banned"


@dataclass(frozen=True)
class Player:
    """A player: its id (never shown), its name, and whether it is a bot account (or a computer
    level)."""

    id: str
    name: str
    bot: bool = False

    def json(self) -> dict[str, Any]:
        return {"name": self.name, "bot": self.bot}


def _player(stored: StoredPlayer) -> Player:
    return Player(stored.id, stored.name, stored.bot)


def _unavailable(exc: StorageError) -> ProtocolError:
    return ProtocolError("storage", f"the players cannot be read or stored now ({exc})", 503)


def banned(reason: str | None) -> ProtocolError:
    """The refusal of anything a banned player tries (``banned``, HTTP 403)."""
    why = f": {reason}" if reason else ""
    return ProtocolError(BANNED, f"this player is banned from this site{why}", 403)


def _taken(name: str) -> ProtocolError:
    return ProtocolError(
        "name-taken",
        f"the name {name} is taken (or one that looks like it, or held a while): choose another",
        409,
    )


def _digits(attempt: int) -> int:
    """How many digits follow a new player's random name at its ``attempt``-th draw: none at
    first (1,920 names), then two (172,800), then four (over 17 million), then eight after a
    noun (3.6 billion)."""
    return 0 if attempt == 0 else 2 if attempt < 5 else 4 if attempt < 10 else 8


def _hasher() -> Any:
    try:
        from argon2 import PasswordHasher
    except ImportError:  # pragma: no cover - the web extra installs it
        raise ProtocolError(
            "no-passwords", "this server cannot keep passwords: pip install 'dorf-games[web]'", 501
        ) from None
    return PasswordHasher()


def bearer(connection: HTTPConnection) -> str | None:
    """The token of an ``Authorization: Bearer TOKEN`` header (None: there is none)."""
    header = connection.headers.get("authorization")
    if header is None:
        return None
    scheme, _, token = header.partition(" ")
    return token.strip() if scheme.lower() == "bearer" else None


def need_cookie(connection: HTTPConnection, what: str) -> None:
    """Refuse (``need-cookie``, HTTP 403) a request sent with an API token: ``what`` is for the
    player's own browser (a token is a bot's, and must not take over the player)."""
    if bearer(connection) is not None:
        raise ProtocolError(
            "need-cookie", f"{what} needs the player's browser (its cookie), not an API token", 403
        )


def token_id_of(connection: HTTPConnection) -> str | None:
    """The id of the API token a request is sent with (None: it is sent with none)."""
    token = bearer(connection)
    return None if token is None else secret_hash(token)[:16]


def secure(connection: HTTPConnection) -> bool:
    """Whether the request came over HTTPS (behind a trusted proxy: as it says)."""
    return connection.url.scheme in ("https", "wss")


class Accounts:
    """The players of a storage: who a request or a socket is, names, passwords, tokens."""

    def __init__(self, storage: Storage) -> None:
        self.storage = storage
        #: Seconds since 1970 (injectable for tests): when players are made, swept, names held.
        self.clock: Callable[[], float] = time.time
        #: New players a minute from one address (0: no limit; ``dorf serve --player-limit``).
        self.player_limit = NEW_PLAYERS_PER_MINUTE
        self._swept = -SWEEP_EVERY
        self._hashing = asyncio.Semaphore(HASHING_AT_ONCE)
        #: When this server last noted each token's use (its hash: ``time.monotonic()``).
        self._token_uses: dict[str, float] = {}

    async def _argon2(self, work: Callable[..., T], *args: Any) -> T:
        """An argon2 hash or check, in a thread, at most :data:`HASHING_AT_ONCE` at a time."""
        async with self._hashing:
            return await asyncio.to_thread(work, *args)

    async def _token_used(self, token_hash: str) -> None:
        """Note a token's use (for its list), at most once in :data:`TOKEN_USE_EVERY` seconds."""
        moment = time.monotonic()
        last = self._token_uses.get(token_hash)
        if last is not None and moment - last < TOKEN_USE_EVERY:
            return
        if len(self._token_uses) >= TOKEN_USES_KEPT:
            self._token_uses.clear()
        self._token_uses[token_hash] = moment
        when = datetime.now(UTC)
        since = when - timedelta(seconds=TOKEN_USE_EVERY)
        with contextlib.suppress(StorageError):  # only a note: the request goes on
            await self.storage.token_used(
                token_hash, when.isoformat(timespec="seconds"), since.isoformat(timespec="seconds")
            )

    # --- who is asking ------------------------------------------------------------------

    async def _find(self, *, session: str = "", token: str = "") -> Player | None:
        try:
            found = await self.storage.find_player(session=session, token=token)
        except StorageError as exc:
            raise _unavailable(exc) from None
        if found is not None and found.banned is not None:
            raise banned(found.banned)  # read from the database at every request: seen at once
        return None if found is None else _player(found)

    async def refuse_banned(self, player_id: str) -> None:
        """Refuse (``banned``) a player banned since it was found: for what a socket opened
        before the ban does (a seek, a line of table talk)."""
        try:
            found = (await self.storage.players_by_id([player_id])).get(player_id)
        except StorageError as exc:
            raise _unavailable(exc) from None
        if found is not None and found.banned is not None:
            raise banned(found.banned)

    async def known(self, connection: HTTPConnection) -> Player | None:
        """The player a request or socket names (its bearer token, else its cookie), or None."""
        token = bearer(connection)
        if token is not None:
            if not SECRET.fullmatch(token.removeprefix(TOKEN_PREFIX)):
                return None
            hashed = secret_hash(token)
            found = await self._find(token=hashed)
            if found is not None:
                await self._token_used(hashed)
            return found
        secret = connection.cookies.get(COOKIE)
        if secret is None or not SECRET.fullmatch(secret):
            return None
        return await self._find(session=secret_hash(secret))

    async def of_request(self, request: HTTPConnection, response: Response | None) -> Player:
        """The player of a request; for a visitor (no cookie, or one that names nobody) a new one,
        its cookie set on ``response``: only for a request that needs a player (a seat, the daily
        challenge, ``POST /api/me``: :meth:`new_player`; a read makes nobody, :meth:`player_of`).
        Without ``response``, such a request is refused (``no-player``, 401): it would change a
        player nobody has."""
        found = await self.known(request)
        if found is not None:
            return found
        if bearer(request) is not None:
            raise ProtocolError(
                "bad-token", "this API token names no player (it was never made here, or was revoked)", 401
            )
        if response is None:
            raise ProtocolError(
                "no-player",
                "this browser holds no player here (its cookie is unknown): open the site again",
                401,
            )
        return await self.new_player(request, response)

    async def of_socket(self, ws: HTTPConnection) -> Player | None:
        """The player of a websocket (its bearer token, else its cookie); None: a spectator."""
        try:
            return await self.known(ws)
        except ProtocolError as exc:  # the storage cannot say now, or a banned player: a spectator
            if exc.code == BANNED:
                ws.state.refusal = exc  # what its seeks are answered
            return None

    async def bot_of(self, ws: HTTPConnection) -> str | None:
        """The id of the player whose API token a websocket sent (None: none, or unknown)."""
        if bearer(ws) is None:
            return None
        player = await self.of_socket(ws)
        return None if player is None else player.id

    @staticmethod
    def seats_of(session: Any, player_id: str | None) -> set[int]:
        """The seats of a game that ``player_id`` holds."""
        if player_id is None:
            return set()
        return {i for i, seat in enumerate(session.seats) if seat.player_id == player_id}

    async def player_of(self, request: HTTPConnection) -> Player | None:
        """The player a request names, or None for a visitor who is no player (yet): no cookie,
        or one that names nobody.  An API token that names nobody is refused (``bad-token``)."""
        found = await self.known(request)
        if found is None and bearer(request) is not None:
            raise ProtocolError(
                "bad-token", "this API token names no player (it was never made here, or was revoked)", 401
            )
        return found

    async def new_player(
        self, request: HTTPConnection, response: Response, name: str | None = None
    ) -> Player:
        """A new player, named ``name`` (refused ``name-taken`` if it is taken or held) or with a
        readable random name (drawn again while taken: after a few tries with two digits, then
        four, then a noun and eight digits, so a visitor always gets one); its cookie set on
        ``response``.  At most :attr:`player_limit` a minute from one address (``rate-limited``,
        HTTP 429 with ``Retry-After``).  Remembered on the request: should the request fail, the
        player is removed again (:meth:`undo_new`)."""
        await self._admit(request)
        secret = secrets.token_urlsafe(32)
        player_id = secrets.token_urlsafe(12)
        at = self.clock()
        created = datetime.fromtimestamp(at, UTC).isoformat(timespec="seconds")
        for attempt in range(NAME_TRIES):
            chosen = name if name is not None else random_name(digits=_digits(attempt))
            try:
                await self.storage.new_player(
                    StoredPlayer(player_id, chosen, created=created), secret_hash(secret), at
                )
            except Refused:
                if name is not None:
                    raise _taken(name) from None
                continue  # the name is taken: draw another
            except StorageError as exc:
                raise _unavailable(exc) from None
            self.set_cookie(request, response, secret)
            request.state.new_player = player_id
            return Player(player_id, chosen)
        raise ProtocolError("busy", "no free name was found for a new player: try again", 503)

    async def _admit(self, request: HTTPConnection) -> None:
        """Count a new player of the request's address: ``rate-limited`` (429) past the limit."""
        if self.player_limit <= 0:
            return
        try:
            key = f"new players:{client_address(request)}"
            wait = await self.storage.hit(key, self.player_limit)
        except StorageError as exc:
            raise _unavailable(exc) from None
        if wait is not None:
            seconds = max(1, math.ceil(wait))
            raise RateLimited(
                f"at most {self.player_limit} new players a minute from one address:"
                f" try again in {seconds} s",
                seconds,
            )

    async def undo_new(self, connection: HTTPConnection) -> None:
        """The request failed: remove the player made for it (none made: nothing), unless it
        has played meanwhile.  Its cookie was never sent."""
        made = getattr(connection.state, "new_player", None)
        if made is None:
            return
        connection.state.new_player = None
        with contextlib.suppress(StorageError):
            await self.storage.forget_player(made)

    def sweep_due(self) -> bool:
        """Whether it is time to sweep the players who never played (once in :data:`SWEEP_EVERY`)."""
        moment = time.monotonic()
        if moment - self._swept < SWEEP_EVERY:
            return False
        self._swept = moment
        return True

    async def sweep(self) -> int:
        """Remove the players made more than :data:`NEVER_PLAYED_DAYS` ago who never played (no
        seat, no daily attempt, no password, no token, nothing in the lobby); the others are kept
        for good.  Forget the name holds that are over.  How many were removed."""
        at = self.clock()
        before = datetime.fromtimestamp(at - NEVER_PLAYED_DAYS * 86400, UTC).isoformat(timespec="seconds")
        removed = 0
        while True:
            try:
                looked, gone = await self.storage.sweep_players(before, at, SWEEP_BATCH)
            except StorageError:
                return removed  # another time
            removed += gone
            if looked < SWEEP_BATCH:
                return removed

    def set_cookie(self, request: HTTPConnection, response: Response, secret: str) -> None:
        response.set_cookie(
            COOKIE,
            secret,
            max_age=COOKIE_AGE,
            path="/",
            secure=secure(request),
            httponly=True,
            samesite="lax",
        )

    # --- changing a player ------------------------------------------------------------------

    async def rename(self, player: Player, raw: Any) -> Player:
        """Rename the player; the name it gives up is held for it :data:`NAME_HELD_DAYS` (nobody
        else may take it meanwhile; it may take it back)."""
        name = checked_name(raw)
        at = self.clock()
        try:
            await self.storage.rename_player(player.id, name, at, at + NAME_HELD_DAYS * 86400)
        except Refused:
            raise _taken(name) from None
        except StorageError as exc:
            raise _unavailable(exc) from None
        return Player(player.id, name, player.bot)

    async def set_password(
        self, request: HTTPConnection, response: Response, player: Player, data: dict[str, Any]
    ) -> None:
        """Set the player's password (``{"password", "current"}``: ``current`` needed to change
        one), from the player's browser only (``need-cookie``); the player is signed out
        everywhere else: every other session ends, this device gets a new cookie, and changing a
        password ends every API token too."""
        need_cookie(request, "setting a password")
        password = check_password(data.get("password"))
        current = data.get("current")
        try:
            stored = await self.storage.password_of(player.id)
        except StorageError as exc:
            raise _unavailable(exc) from None
        hasher = _hasher()
        if stored is not None:
            if current is None:
                raise ProtocolError("wrong-password", "to change the password, give the current one too", 403)
            if not await self._verify(stored, check_password_like(current)):
                raise ProtocolError("wrong-password", "the current password is not right", 403)
        hashed = await self._argon2(hasher.hash, password)
        secret = secrets.token_urlsafe(32)
        try:
            await self.storage.add_session(player.id, secret_hash(secret))
            await self.storage.set_password(player.id, hashed, secret_hash(secret), stored is not None)
        except StorageError as exc:
            raise _unavailable(exc) from None
        self.set_cookie(request, response, secret)

    async def sign_out_everywhere(self, request: HTTPConnection, response: Response, player: Player) -> None:
        """End every session of the player and every API token; this device (the player's
        browser: ``need-cookie``) stays, with a new cookie."""
        need_cookie(request, "signing out everywhere")
        secret = secrets.token_urlsafe(32)
        try:
            await self.storage.add_session(player.id, secret_hash(secret))
            await self.storage.end_sessions(player.id, secret_hash(secret), tokens=True)
        except StorageError as exc:
            raise _unavailable(exc) from None
        self.set_cookie(request, response, secret)

    async def _verify(self, stored: str, password: str) -> bool:
        from argon2.exceptions import InvalidHashError, VerificationError

        hasher = _hasher()
        try:
            return bool(await self._argon2(hasher.verify, stored, password))
        except (VerificationError, InvalidHashError):
            return False

    async def sign_in(self, request: HTTPConnection, response: Response, data: dict[str, Any]) -> Player:
        """Sign this device in as the player named (``{"name", "password"}``): a new session, its
        cookie set on ``response``.  The same refusal for an unknown name and a wrong password."""
        name = data.get("name")
        password = check_password_like(data.get("password"))
        if not isinstance(name, str) or len(name) > 40:
            raise ProtocolError("bad-message", "sign in with {name, password}")
        checked_text(name, "a name")
        wrong = ProtocolError("wrong-password", "that name and password do not match", 401)
        try:
            found = await self.storage.find_player(name=name)
            stored = None if found is None else await self.storage.password_of(found.id)
        except StorageError as exc:
            raise _unavailable(exc) from None
        if found is None or stored is None:
            await self._argon2(_hasher().hash, password)  # as long as a wrong password takes
            raise wrong
        if not await self._verify(stored, password):
            raise wrong
        if found.banned is not None:  # said only to whoever knows the password
            raise banned(found.banned)
        secret = secrets.token_urlsafe(32)
        try:
            await self.storage.add_session(found.id, secret_hash(secret))
        except StorageError as exc:
            raise _unavailable(exc) from None
        self.set_cookie(request, response, secret)
        return _player(found)

    async def sign_out(self, request: HTTPConnection, response: Response, player: Player) -> None:
        """End this device's session (a player without a password cannot: it would be lost)."""
        try:
            stored = await self.storage.password_of(player.id)
        except StorageError as exc:
            raise _unavailable(exc) from None
        if stored is None:
            raise ProtocolError(
                "no-password", "set a password first: a player without one cannot sign in again", 409
            )
        secret = request.cookies.get(COOKIE)
        if secret is not None and SECRET.fullmatch(secret):
            try:
                await self.storage.end_session(secret_hash(secret))
            except StorageError as exc:
                raise _unavailable(exc) from None
        response.delete_cookie(COOKIE, path="/", secure=secure(request), httponly=True, samesite="lax")

    async def new_token(
        self, request: HTTPConnection, player: Player, data: dict[str, Any]
    ) -> dict[str, Any]:
        """A new API token of the player (``{"label"?}``; shown once: ``{"token", "id", "label"}``),
        made from the player's browser only (``need-cookie``); the player is a bot account from
        now on."""
        need_cookie(request, "making an API token")
        label = check_label(data.get("label"))
        token = TOKEN_PREFIX + secrets.token_urlsafe(32)
        try:
            token_id = await self.storage.add_token(player.id, secret_hash(token), label, MAX_TOKENS)
        except Refused:
            raise ProtocolError(
                "too-many-tokens", f"a player has at most {MAX_TOKENS} API tokens: revoke one first", 409
            ) from None
        except StorageError as exc:
            raise _unavailable(exc) from None
        return {"token": token, "id": token_id, "label": label}

    async def tokens(self, request: HTTPConnection, player: Player) -> list[dict[str, Any]]:
        """The player's API tokens (``{"id", "label", "created", "last_used", "current"}``, the
        oldest first; ``current``: the one this request is sent with).  Never a secret."""
        current = token_id_of(request)
        try:
            stored = await self.storage.tokens_of(player.id)
        except StorageError as exc:
            raise _unavailable(exc) from None
        return [
            {
                "id": t.id,
                "label": t.label,
                "created": t.created,
                "last_used": t.last_used,
                "current": t.id == current,
            }
            for t in stored
        ]

    async def revoke_token(self, request: HTTPConnection, player: Player, raw: str) -> str:
        """Revoke the player's API token of id ``raw`` (``current``: the one the request is sent
        with); its id.  The player's browser revokes any of its tokens; a token's holder that
        token alone (``need-cookie``).  Another player's token, or none: ``no-token`` (404)."""
        current = token_id_of(request)
        token_id = current if raw == "current" else raw
        if token_id is None:
            raise ProtocolError(
                "no-token",
                "'current' is the API token a request is sent with: this one is sent with none",
                404,
            )
        if not TOKEN_ID.fullmatch(token_id):
            raise ProtocolError(
                "no-token", "an API token's id is 16 digits 0-9 a-f, as the list shows it", 404
            )
        if current is not None and token_id != current:
            raise ProtocolError(
                "need-cookie",
                "an API token revokes only itself: revoke the others from the player's browser",
                403,
            )
        try:
            gone = await self.storage.revoke_token(player.id, token_id)
        except StorageError as exc:
            raise _unavailable(exc) from None
        if not gone:
            raise ProtocolError("no-token", f"you have no API token {token_id}", 404)
        return token_id

    async def signed_in(self, player: Player) -> bool:
        """Whether the player has a password (can sign in from another device)."""
        try:
            return await self.storage.password_of(player.id) is not None
        except StorageError as exc:
            raise _unavailable(exc) from None


__all__ = [
    "BANNED",
    "COOKIE",
    "Accounts",
    "Player",
    "banned",
    "bearer",
    "check_password",
    "checked_name",
    "need_cookie",
]
