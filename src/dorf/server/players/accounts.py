"""Players: a person who opens the site is one at once (a name kept by a cookie), may set a
password to sign in elsewhere, and may make API tokens for a bot that plays as them.

**The cookie.**  A new player gets a long random secret (:func:`secrets.token_urlsafe`, 32
bytes) in the cookie ``dorf_player``: ``HttpOnly`` (no script reads it), ``SameSite=Lax`` (a
form of another site does not send it), ``Path=/``, kept 400 days (the most browsers keep one),
and ``Secure`` when the request came over HTTPS (``dorf serve`` behind a ``--trusted-proxy``
believes its ``X-Forwarded-Proto``).  Only the secret's SHA-256 is stored: whoever reads the
database cannot be anyone.  A cookie the server does not know (forged, or of a device that signed
out) names nobody: the page gets a new player, and a request that would change a player is
refused (``no-player``, HTTP 401).

**Passwords** are hashed with argon2id (:mod:`argon2`'s defaults, RFC 9106's second choice) in a
thread, not on the event loop; signing in is limited per address and per name (HTTP 429 with
``Retry-After``, counted by the storage's ``hit``, so on every server sharing a database).
Setting or changing a password ends the player's other sessions.

**API tokens** (``dorf_`` and 32 random bytes) are shown once and stored as their SHA-256; a
player that has made one is a bot account (``bot: true`` wherever its name shows, as lichess marks
BOT accounts).  A bot sends it as ``Authorization: Bearer TOKEN``.
"""

from __future__ import annotations

import asyncio
import re
import secrets
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from dorf.server.players.names import NameRefused, check_name, random_name
from dorf.server.protocol.messages import ProtocolError
from dorf.server.storage.base import Refused, StorageError, StoredPlayer, now, secret_hash

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
#: Passwords: at least 8 characters (NIST SP 800-63B), at most 200.
MIN_PASSWORD, MAX_PASSWORD = 8, 200
#: How often a new player's random name is drawn again when it is taken.
NAME_TRIES = 20


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


def _hasher() -> Any:
    try:
        from argon2 import PasswordHasher
    except ImportError:  # pragma: no cover - the web extra installs it
        raise ProtocolError(
            "no-passwords", "this server cannot keep passwords: pip install 'dorf[web]'", 501
        ) from None
    return PasswordHasher()


def bearer(connection: HTTPConnection) -> str | None:
    """The token of an ``Authorization: Bearer TOKEN`` header (None: there is none)."""
    header = connection.headers.get("authorization")
    if header is None:
        return None
    scheme, _, token = header.partition(" ")
    return token.strip() if scheme.lower() == "bearer" else None


def secure(connection: HTTPConnection) -> bool:
    """Whether the request came over HTTPS (behind a trusted proxy: as it says)."""
    return connection.url.scheme in ("https", "wss")


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


class Accounts:
    """The players of a storage: who a request or a socket is, names, passwords, tokens."""

    def __init__(self, storage: Storage) -> None:
        self.storage = storage

    # --- who is asking ------------------------------------------------------------------

    async def _find(self, *, session: str = "", token: str = "") -> Player | None:
        try:
            found = await self.storage.find_player(session=session, token=token)
        except StorageError as exc:
            raise _unavailable(exc) from None
        return None if found is None else _player(found)

    async def known(self, connection: HTTPConnection) -> Player | None:
        """The player a request or socket names (its bearer token, else its cookie), or None."""
        token = bearer(connection)
        if token is not None:
            if not SECRET.fullmatch(token.removeprefix(TOKEN_PREFIX)):
                return None
            return await self._find(token=secret_hash(token))
        secret = connection.cookies.get(COOKIE)
        if secret is None or not SECRET.fullmatch(secret):
            return None
        return await self._find(session=secret_hash(secret))

    async def of_request(self, request: HTTPConnection, response: Response | None) -> Player:
        """The player of a request; a new one (its cookie set on ``response``) for a person
        arriving, or whose cookie names nobody.  Without ``response``, such a request is refused
        (``no-player``, 401): it would change a player nobody has."""
        found = await self.known(request)
        if found is not None:
            return found
        if bearer(request) is not None:
            raise ProtocolError("bad-token", "this API token names no player (it was never made here)", 401)
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
        except ProtocolError:
            return None  # the storage cannot say now: a spectator

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

    async def new_player(self, request: HTTPConnection, response: Response) -> Player:
        """A new player with a readable random name; its cookie set on ``response``."""
        secret = secrets.token_urlsafe(32)
        player_id = secrets.token_urlsafe(12)
        for attempt in range(NAME_TRIES):
            name = random_name(number=attempt > 0)
            try:
                await self.storage.new_player(
                    StoredPlayer(player_id, name, created=now()), secret_hash(secret)
                )
            except Refused:
                continue  # the name is taken: draw another
            except StorageError as exc:
                raise _unavailable(exc) from None
            self.set_cookie(request, response, secret)
            return Player(player_id, name)
        raise ProtocolError("busy", "no free name was found for a new player: try again", 503)

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
        name = checked_name(raw)
        try:
            await self.storage.rename_player(player.id, name)
        except Refused:
            raise ProtocolError("name-taken", f"the name {name} is taken: choose another", 409) from None
        except StorageError as exc:
            raise _unavailable(exc) from None
        return Player(player.id, name, player.bot)

    async def set_password(self, request: HTTPConnection, player: Player, data: dict[str, Any]) -> None:
        """Set the player's password (``{"password", "current"}``: ``current`` needed to change
        one); the player's other devices are signed out."""
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
        hashed = await asyncio.to_thread(hasher.hash, password)
        secret = request.cookies.get(COOKIE)
        keep = secret_hash(secret) if secret is not None and bearer(request) is None else None
        try:
            await self.storage.set_password(player.id, hashed, keep)
        except StorageError as exc:
            raise _unavailable(exc) from None

    async def _verify(self, stored: str, password: str) -> bool:
        from argon2.exceptions import InvalidHashError, VerificationError

        hasher = _hasher()
        try:
            return bool(await asyncio.to_thread(hasher.verify, stored, password))
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
            await asyncio.to_thread(_hasher().hash, password)  # as long as a wrong password takes
            raise wrong
        if not await self._verify(stored, password):
            raise wrong
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

    async def new_token(self, player: Player) -> str:
        """A new API token of the player (shown once); the player is a bot account from now on."""
        token = TOKEN_PREFIX + secrets.token_urlsafe(32)
        try:
            await self.storage.add_token(player.id, secret_hash(token))
        except StorageError as exc:
            raise _unavailable(exc) from None
        return token

    async def signed_in(self, player: Player) -> bool:
        """Whether the player has a password (can sign in from another device)."""
        try:
            return await self.storage.password_of(player.id) is not None
        except StorageError as exc:
            raise _unavailable(exc) from None


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


__all__ = ["COOKIE", "Accounts", "Player", "bearer", "check_password", "checked_name"]
