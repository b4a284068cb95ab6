"""What the server refuses to the careless and the hostile: too many new games, foreign pages.

- :class:`CreationLimit`: at most N games a minute from one address (``dorf
  serve --create-limit N``); the next one is answered with HTTP 429 and how
  many seconds to wait.
- :func:`allowed_origin`: a browser says in ``Origin`` which page sent a
  request; a websocket or a state-changing request from a page of another site
  is refused.  Same origin (the request's own ``Host``), or the address the
  server was started with, is allowed; a request without ``Origin`` comes
  from a program, not from a page, and is let through.
- :func:`page_policy`: the Content-Security-Policy of the pages: scripts,
  styles and connections from this server only (inline ``style=`` attributes
  allowed), images also from ``data:`` and ``blob:``.

>>> limit = CreationLimit(2)
>>> limit.wait("1.2.3.4", 0.0), limit.wait("1.2.3.4", 1.0), limit.wait("1.2.3.4", 2.0)
(None, None, 58.0)
>>> limit.wait("5.6.7.8", 2.0), limit.wait("1.2.3.4", 60.5)
(None, None)
>>> allowed_origin("http://127.0.0.1:8000", "127.0.0.1:8000", ())
True
>>> allowed_origin("https://evil.example", "127.0.0.1:8000", ("http://localhost:8000",))
False
"""

from __future__ import annotations

from collections import deque
from urllib.parse import urlsplit

#: The window of the creation limit, in seconds.
WINDOW = 60.0
#: Addresses remembered at most; the oldest are forgotten first.
MAX_ADDRESSES = 10_000


class CreationLimit:
    """At most ``per_minute`` games from one address in any 60 seconds (0: no limit)."""

    def __init__(self, per_minute: int) -> None:
        self.per_minute = per_minute
        self._times: dict[str, deque[float]] = {}

    def wait(self, address: str, now: float) -> float | None:
        """None if ``address`` may create a game now (and counts it), else the seconds to wait."""
        if self.per_minute <= 0:
            return None
        times = self._times.pop(address, None) or deque()
        while times and times[0] <= now - WINDOW:
            times.popleft()
        self._times[address] = times  # the most recent address last
        if len(times) >= self.per_minute:
            return round(times[0] + WINDOW - now, 3)
        times.append(now)
        while len(self._times) > MAX_ADDRESSES:
            del self._times[next(iter(self._times))]
        return None


def allowed_origin(origin: str | None, host: str | None, started: tuple[str, ...]) -> bool:
    """Whether a request with this ``Origin`` header (None: none) may change anything."""
    if origin is None:
        return True
    if origin in started:
        return True
    parts = urlsplit(origin)
    return bool(host) and parts.scheme in ("http", "https") and parts.netloc == host


def page_policy(host: str | None) -> str:
    """The Content-Security-Policy header of the pages served to ``host``."""
    sockets = f" ws://{host} wss://{host}" if host else ""
    return (
        "default-src 'self'; script-src 'self'; style-src 'self' 'unsafe-inline'; "
        f"img-src 'self' data: blob:; connect-src 'self'{sockets}; font-src 'self'; "
        "object-src 'none'; base-uri 'none'; frame-ancestors 'none'; form-action 'self'"
    )
