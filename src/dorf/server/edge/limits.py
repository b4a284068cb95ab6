"""What the server refuses to the careless and the hostile: foreign hosts and pages, too many
new games or campaigns, too many hints and replays at once.

- :class:`HostCheck`: an ASGI middleware that answers only requests (HTTP and
  websocket) whose ``Host`` is one of the server's names, so that a site whose
  name is made to resolve to this server (DNS rebinding) finds nothing there:
  another ``Host`` is answered HTTP 400 ``bad-host``, a websocket handshake 403.
- :func:`client_address`: the one address every limit counts a request under
  (the connection's peer; uvicorn puts the ``X-Forwarded-For`` client there
  only for a ``--trusted-proxy``).  It, :func:`allowed_origin` and :class:`InFlight` are
  :mod:`dorf.server.protocol.requests` (the features' routes use them too).
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

>>> from dorf.server.config import LOOPBACK
>>> allowed_origin("http://127.0.0.1:8000", "127.0.0.1:8000", LOOPBACK, ())
True
>>> allowed_origin("https://evil.example", "127.0.0.1:8000", LOOPBACK, ("http://localhost:8000",))
False
>>> allowed_origin("http://evil.example", "evil.example", LOOPBACK, ())  # same origin, not ours
False
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from typing import TYPE_CHECKING

from dorf.server.protocol.requests import InFlight, allowed_origin, client_address, host_name

if TYPE_CHECKING:
    from starlette.types import ASGIApp, Receive, Scope, Send

#: Longest host shown back in a ``bad-host`` message.
SHOWN_HOST = 100


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


def page_policy(host: str | None) -> str:
    """The Content-Security-Policy header of the pages served to ``host``."""
    sockets = f" ws://{host} wss://{host}" if host else ""
    return (
        "default-src 'self'; script-src 'self'; style-src 'self' 'unsafe-inline'; "
        f"img-src 'self' data: blob:; connect-src 'self'{sockets}; font-src 'self'; "
        "object-src 'none'; base-uri 'none'; frame-ancestors 'none'; form-action 'self'"
    )


__all__ = [
    "SHOWN_HOST",
    "HostCheck",
    "InFlight",
    "allowed_origin",
    "client_address",
    "host_name",
    "page_policy",
]
