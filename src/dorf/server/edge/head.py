"""``HEAD`` wherever ``GET`` is: the same status and headers, no body.

FastAPI answers a route only for the methods it names, so ``HEAD /`` was 405.  :class:`HeadAsGet`
serves a ``HEAD`` request as the ``GET`` of the same path and drops the body on the way out
(``Content-Length`` stays the ``GET``'s, as HTTP wants), so every route that answers ``GET``
(pages, assets, the API, ``/metrics``, and any added later) answers ``HEAD`` too.  A path
without ``GET`` answers ``HEAD`` as it answers ``GET``: 405.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from starlette.types import ASGIApp, Message, Receive, Scope, Send

#: What a request served by :class:`HeadAsGet` carries in its scope: it came as ``HEAD``.
HEAD_KEY = "dorf.head"


class HeadAsGet:
    """ASGI middleware: a ``HEAD`` request is served as a ``GET``, without its body.

    The inner app sees a copy of the scope (method ``GET``, :data:`HEAD_KEY` set); the server
    keeps the original, so it too knows to send no body."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or scope["method"] != "HEAD":
            await self.app(scope, receive, send)
            return

        async def headers_only(message: Message) -> None:
            if message["type"] == "http.response.body":
                if message.get("more_body", False):
                    return  # the rest of a streamed body: nothing to send yet
                message = {"type": "http.response.body", "body": b"", "more_body": False}
            await send(message)

        await self.app({**scope, "method": "GET", HEAD_KEY: True}, receive, headers_only)


__all__ = ["HEAD_KEY", "HeadAsGet"]
