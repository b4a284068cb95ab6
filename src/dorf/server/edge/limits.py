"""What the server refuses to the careless and the hostile: foreign hosts and pages, too many
new games or campaigns, too many hints and replays at once.

- :class:`HostCheck`: an ASGI middleware that answers only requests (HTTP and
  websocket) whose ``Host`` is one of the server's names, so that a site whose
  name is made to resolve to this server (DNS rebinding) finds nothing there:
  another ``Host`` is answered HTTP 400 ``bad-host``, a websocket handshake 403.
- :func:`client_address`: the one address every limit counts a request under
  (the connection's peer; uvicorn puts the ``X-Forwarded-For`` client there
  only for a ``--trusted-proxy``).
- creation limits: at most N games (``dorf serve --create-limit N``) or
  campaigns (``--campaign-limit N``) a minute from one address, counted by the
  storage (:meth:`~dorf.server.storage.base.Storage.hit`); the next one is
  answered with HTTP 429 and how many seconds to wait.
- :class:`InFlight`: one hint (one replay) at a time from one address, and a
  few in all; another is answered HTTP 429 ``busy``.
- :func:`allowed_origin`: a browser says in ``Origin`` which page sent a
  request; a websocket or a state-changing request from a page of another site
  is refused.  Same origin (the request's own ``Host``) on one of the allowed
  hosts, or the address the server was started with, is allowed; a request
  without ``Origin`` comes from a program, not from a page, and is let through.
- :func:`page_policy`: the Content-Security-Policy of the pages: scripts,
  styles and connections from this server only (inline ``style=`` attributes
  allowed), images also from ``data:`` and ``blob:``.

>>> allowed_origin("http://127.0.0.1:8000", "127.0.0.1:8000", LOOPBACK, ())
True
>>> allowed_origin("https://evil.example", "127.0.0.1:8000", LOOPBACK, ("http://localhost:8000",))
False
>>> allowed_origin("http://evil.example", "evil.example", LOOPBACK, ())  # same origin, not ours
False
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from typing import TYPE_CHECKING
from urllib.parse import urlsplit

from dorf.server.protocol.messages import ProtocolError

if TYPE_CHECKING:
    from starlette.requests import HTTPConnection
    from starlette.types import ASGIApp, Receive, Scope, Send

#: The loopback names: a server always answers to them.
LOOPBACK = ("127.0.0.1", "localhost", "::1")
#: The host FastAPI's TestClient sends: an app made with ``ServerConfig()`` answers to it too.
TEST_HOST = "testserver"
#: Longest host shown back in a ``bad-host`` message.
SHOWN_HOST = 100


def host_name(host: str) -> str:
    """The name in a ``Host`` header (or an address given on the command line): lower case,
    without port, brackets or a final dot.

    >>> host_name("Example.COM:8000"), host_name("[::1]:8000"), host_name("[::1]"), host_name("::1")
    ('example.com', '::1', '::1', '::1')
    >>> host_name("localhost."), host_name("127.0.0.1:80")
    ('localhost', '127.0.0.1')
    """
    host = host.strip().lower()
    if host.startswith("["):
        end = host.find("]")
        host = host[1:end] if end > 0 else host
    elif host.count(":") == 1:
        host = host.partition(":")[0]
    return host.rstrip(".")


def client_address(connection: HTTPConnection) -> str:
    """The address a request is counted under by every limit: the connection's peer.

    Behind a proxy named with ``dorf serve --trusted-proxy``, uvicorn has put the
    ``X-Forwarded-For`` client there; from anyone else that header is ignored.
    """
    client = connection.client
    return client.host if client is not None else "unknown"


class HostCheck:
    """ASGI middleware: serve only requests whose ``Host`` names one of ``hosts``.

    Another host (or none) is answered HTTP 400 with the usual JSON error, code
    ``bad-host``; a websocket handshake is refused (HTTP 403).  Lifespan events
    pass.  Pure ASGI, so it covers websockets and costs one header lookup.
    """

    def __init__(self, app: ASGIApp, hosts: Iterable[str]) -> None:
        self.app = app
        self.hosts = frozenset(host_name(host) for host in hosts)

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] not in ("http", "websocket"):
            await self.app(scope, receive, send)
            return
        host = next((value for key, value in scope["headers"] if key == b"host"), None)
        name = host_name(host.decode("latin-1")) if host is not None else None
        if name in self.hosts:
            await self.app(scope, receive, send)
            return
        if scope["type"] == "websocket":
            await send({"type": "websocket.close", "code": 1008})  # before accepting: HTTP 403
            return
        shown = "none" if name is None else json.dumps(name[:SHOWN_HOST])
        message = (
            f"this server does not answer for the host {shown}: "
            "open it by one of its own names (dorf serve --allowed-host adds one)"
        )
        body = json.dumps({"error": {"code": "bad-host", "message": message}}).encode()
        headers = [
            (b"content-type", b"application/json"),
            (b"content-length", str(len(body)).encode()),
            (b"x-content-type-options", b"nosniff"),
        ]
        await send({"type": "http.response.start", "status": 400, "headers": headers})
        await send({"type": "http.response.body", "body": body})


class InFlight:
    """Requests of one kind (``what``: hints, replays) being computed: at most one from each
    address, and ``total`` in all; one more is refused with HTTP 429 ``busy``.

    >>> hints = InFlight("hint", 2)
    >>> with hints.hold("1.2.3.4"):
    ...     try:
    ...         with hints.hold("1.2.3.4"):
    ...             pass
    ...     except ProtocolError as exc:
    ...         print(exc.code, exc.status, exc.message)
    busy 429 one hint at a time from one address: wait for the one you asked for
    >>> with hints.hold("1.2.3.4"), hints.hold("5.6.7.8"):
    ...     try:
    ...         with hints.hold("9.9.9.9"):
    ...             pass
    ...     except ProtocolError as exc:
    ...         print(exc.code, exc.message)
    busy the server is computing 2 hints already: ask again soon
    >>> len(hints.addresses)
    0
    """

    def __init__(self, what: str, total: int) -> None:
        self.what = what
        self.total = total
        self.addresses: set[str] = set()

    @contextmanager
    def hold(self, address: str) -> Iterator[None]:
        """Count one request from ``address`` while the block runs (ProtocolError if full)."""
        if address in self.addresses:
            raise ProtocolError(
                "busy", f"one {self.what} at a time from one address: wait for the one you asked for", 429
            )
        if len(self.addresses) >= self.total:
            raise ProtocolError(
                "busy", f"the server is computing {self.total} {self.what}s already: ask again soon", 429
            )
        self.addresses.add(address)
        try:
            yield
        finally:
            self.addresses.discard(address)


def allowed_origin(
    origin: str | None, host: str | None, hosts: Iterable[str], started: tuple[str, ...]
) -> bool:
    """Whether a request with this ``Origin`` header (None: none) may change anything: the
    origin is the address the server was started with, or the request's own (its ``Host``)
    and on one of the ``hosts`` the server answers for (a page of a site whose name was made
    to point here, DNS rebinding, is its own origin too)."""
    if origin is None:
        return True
    if origin in started:
        return True
    parts = urlsplit(origin)
    if not host or parts.scheme not in ("http", "https") or parts.netloc.lower() != host.lower():
        return False
    return host_name(parts.netloc) in {host_name(name) for name in hosts}


def page_policy(host: str | None) -> str:
    """The Content-Security-Policy header of the pages served to ``host``."""
    sockets = f" ws://{host} wss://{host}" if host else ""
    return (
        "default-src 'self'; script-src 'self'; style-src 'self' 'unsafe-inline'; "
        f"img-src 'self' data: blob:; connect-src 'self'{sockets}; font-src 'self'; "
        "object-src 'none'; base-uri 'none'; frame-ancestors 'none'; form-action 'self'"
    )
