"""``/metrics``: what the server is doing, in Prometheus' text format (the ``prometheus-client``
library), for a Prometheus or any scraper that reads it.

Each app has its own :class:`Metrics` (its own registry, never the library's global one: two apps
in one process, as the tests make, do not mix).  The composition root (:mod:`dorf.server.hub`)
makes it and hands it what it reads:

- counted as things happen: the moves made (``dorf_moves_total``, by mode: the hub subscribes
  :meth:`Metrics.changed` to every :class:`~dorf.server.round.events.GameChanged`; the round
  knows nothing of it), the storage's transactions of changes (``dorf_storage_write_seconds``,
  timed by its writer), the HTTP requests (``dorf_http_requests_total``, by route template,
  method and status: :class:`CountRequests`);
- read when scraped (:class:`Readings`: nothing is done for them between two scrapes): the
  games in memory, the open websockets (games, lobby), the think queue, the lobby's seeks
  waiting, the daily challenge's attempts.

Who may read it (:func:`metrics_refusal`): with ``dorf serve --metrics-token TOKEN``, a request
with ``Authorization: Bearer TOKEN`` (anyone else: 401); without a token, only a program on this
machine: a request from a loopback address that came straight, not through a proxy (it carries
no ``X-Forwarded-For``, ``Forwarded`` or ``X-Real-IP``); anyone else: 403.

>>> metrics_refusal(None, None, "127.0.0.1", forwarded=False) is None
True
>>> metrics_refusal(None, None, "127.0.0.1", forwarded=True).status
403
>>> metrics_refusal("s3cret", "Bearer s3cret", "192.0.2.7", forwarded=True) is None
True
>>> metrics_refusal("s3cret", "Bearer guess", "127.0.0.1", forwarded=False).status
401
"""

from __future__ import annotations

import hmac
import ipaddress
import weakref
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from fastapi import FastAPI, Request
from fastapi.responses import JSONResponse, Response
from prometheus_client import (
    GC_COLLECTOR,
    CollectorRegistry,
    Counter,
    Histogram,
    Info,
    PlatformCollector,
    ProcessCollector,
    generate_latest,
)
from prometheus_client.core import CounterMetricFamily, GaugeMetricFamily
from prometheus_client.registry import Collector

from dorf.server.edge.head import HEAD_KEY
from dorf.server.protocol.messages import ProtocolError
from dorf.version import VERSION

if TYPE_CHECKING:
    from collections.abc import Iterator

    from prometheus_client.metrics_core import Metric
    from starlette.types import ASGIApp, Message, Receive, Scope, Send

    from dorf.server.round.events import GameChanged
    from dorf.server.round.session import GameSession

#: The content type of Prometheus' text format (the version every scraper reads).
CONTENT_TYPE = "text/plain; version=0.0.4; charset=utf-8"
#: The buckets of the storage's write times, in seconds: a SQLite commit takes about a
#: millisecond, a PostgreSQL round trip a few, a locked file seconds.
WRITE_BUCKETS = (0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0)
#: The methods counted by name; any other is counted as ``other`` (a client may send any word).
METHODS = frozenset({"GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"})
#: The route of a request no route took (an unknown path, a refused host).
UNMATCHED = "(unmatched)"
#: The headers a proxy adds: a request carrying one did not come straight from this machine.
PROXY_HEADERS = ("x-forwarded-for", "forwarded", "x-real-ip")


def server_version() -> str:
    """dorf's version (:mod:`dorf.version`, which the build writes into the distribution's
    metadata too)."""
    return VERSION


@dataclass(frozen=True)
class Readings:
    """What ``/metrics`` reads of the server when it is scraped (each a function: nothing is
    done for them between two scrapes)."""

    #: Games held in memory (the game cache's).
    games: Callable[[], int]
    #: Open websockets of games, and of the lobby.
    game_sockets: Callable[[], int]
    lobby_sockets: Callable[[], int]
    #: The computer pool's jobs (moves, hints, replays, lessons) waiting for a worker, and running.
    think_waiting: Callable[[], int]
    think_running: Callable[[], int]
    #: Seeks waiting in the lobby for an opponent.
    seeks: Callable[[], int]
    #: Daily challenge attempts started here (the first game of the day of each player).
    daily_attempts: Callable[[], int]


class _Read(Collector):
    """The metrics of :class:`Readings`, made when the registry is collected."""

    def __init__(self, readings: Readings) -> None:
        self.readings = readings

    def collect(self) -> Iterator[Metric]:
        read = self.readings
        yield GaugeMetricFamily("dorf_games_live", "Games held in memory on this server.", value=read.games())
        sockets = GaugeMetricFamily(
            "dorf_connections", "Open websocket connections, by kind (game, lobby).", labels=["kind"]
        )
        sockets.add_metric(["game"], read.game_sockets())
        sockets.add_metric(["lobby"], read.lobby_sockets())
        yield sockets
        queue = GaugeMetricFamily(
            "dorf_think_jobs",
            "Jobs of the computer players' pool (moves, hints, replays, lessons), by state.",
            labels=["state"],
        )
        queue.add_metric(["waiting"], read.think_waiting())
        queue.add_metric(["running"], read.think_running())
        yield queue
        yield GaugeMetricFamily(
            "dorf_lobby_seeks_waiting", "Seeks waiting in the lobby for an opponent.", value=read.seeks()
        )
        yield CounterMetricFamily(
            "dorf_daily_attempts",
            "Daily challenge attempts started on this server (practice games not counted).",
            value=read.daily_attempts(),
        )


class Metrics:
    """The metrics of one app, in a registry of their own (:attr:`registry`)."""

    def __init__(self, readings: Readings) -> None:
        self.registry = registry = CollectorRegistry()
        Info("dorf_build", "The version of dorf serving.", registry=registry).info(
            {"version": server_version()}
        )
        self.moves = Counter(
            "dorf_moves",
            "Moves made on this server (placements and picks), by mode.",
            ["mode"],
            registry=registry,
        )
        self.write_seconds = Histogram(
            "dorf_storage_write_seconds",
            "Seconds each transaction of game changes took to write (every try).",
            buckets=WRITE_BUCKETS,
            registry=registry,
        )
        self.requests = Counter(
            "dorf_http_requests",
            "HTTP requests answered, by route template, method and status.",
            ["route", "method", "status"],
            registry=registry,
        )
        registry.register(_Read(readings))
        ProcessCollector(registry=registry)
        PlatformCollector(registry=registry)
        registry.register(GC_COLLECTOR)
        #: The counters' children met so far (a label look-up costs more than the increment).
        self._by_mode: dict[str, Any] = {}
        self._by_request: dict[tuple[str, str, int], Any] = {}
        #: The undos seen of each game in memory (its session's epoch): a change that comes with a
        #: new epoch is an undo, not a move.
        self._epochs: weakref.WeakKeyDictionary[GameSession, int] = weakref.WeakKeyDictionary()

    def changed(self, event: GameChanged) -> None:
        """A change of a game was made here: a move is counted (an undo or an end is not)."""
        session = event.game.session
        epoch = session.epoch  # 0 until the game's first undo: no look-up then
        if epoch and epoch != self._epochs.get(session, 0):
            self._epochs[session] = epoch  # taken back: an undo
            return
        if session.ending is not None:
            return  # ended (resigned, out of time, aborted): the finisher's change
        counter = self._by_mode.get(session.mode)
        if counter is None:
            counter = self._by_mode[session.mode] = self.moves.labels(session.mode)
        counter.inc()

    def wrote(self, seconds: float) -> None:
        """A transaction of game changes took ``seconds``."""
        self.write_seconds.observe(seconds)

    def request(self, route: str, method: str, status: int) -> None:
        """An HTTP request was answered."""
        key = (route, method if method in METHODS else "other", status)
        counter = self._by_request.get(key)
        if counter is None:
            counter = self._by_request[key] = self.requests.labels(key[0], key[1], str(status))
        counter.inc()

    def text(self) -> bytes:
        """Every metric, in Prometheus' text format."""
        return generate_latest(self.registry)


class CountRequests:
    """ASGI middleware: count each HTTP request, by the template of the route that took it
    (``/api/games/{game_id}``, never the path itself), its method and its answer's status.
    ``metrics()`` is the app's :class:`Metrics` (None before the server started: not counted)."""

    def __init__(self, app: ASGIApp, metrics: Callable[[], Metrics | None]) -> None:
        self.app = app
        self.metrics = metrics

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        status = 500  # unless the app answers: the server answers an exception so

        async def watched(message: Message) -> None:
            nonlocal status
            if message["type"] == "http.response.start":
                status = message["status"]
            await send(message)

        try:
            await self.app(scope, receive, watched)
        finally:
            metrics = self.metrics()
            if metrics is not None:
                route = getattr(scope.get("route"), "path", None) or UNMATCHED
                method = "HEAD" if scope.get(HEAD_KEY) else scope["method"]
                metrics.request(route, method, status)


def is_loopback(host: str | None) -> bool:
    """Whether ``host`` is a loopback address.

    >>> is_loopback("127.0.0.1"), is_loopback("::1"), is_loopback("192.0.2.7"), is_loopback("testclient")
    (True, True, False, False)
    """
    try:
        return host is not None and ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def metrics_refusal(
    token: str | None, authorization: str | None, client: str | None, *, forwarded: bool
) -> ProtocolError | None:
    """Why a request for ``/metrics`` is refused (None: it is answered): with a ``token``, it
    must come with ``Authorization: Bearer TOKEN``; without one, from a loopback ``client`` and
    not ``forwarded`` by a proxy."""
    if token:
        scheme, _, given = (authorization or "").partition(" ")
        if scheme.lower() == "bearer" and hmac.compare_digest(given.strip().encode(), token.encode()):
            return None
        return ProtocolError(
            "unauthorized", "the metrics need Authorization: Bearer TOKEN (--metrics-token)", 401
        )
    if is_loopback(client) and not forwarded:
        return None
    return ProtocolError(
        "forbidden",
        "the metrics are served to this machine only; dorf serve --metrics-token TOKEN serves them"
        " to a scraper that sends the token",
        403,
    )


def add_metrics_route(app: FastAPI, metrics: Callable[[], Metrics], token: str | None) -> None:
    """``GET /metrics`` (and ``HEAD``) on ``app``: ``metrics()``'s text, to whom may read it."""

    @app.get("/metrics", include_in_schema=False)
    async def scrape(request: Request) -> Response:
        forwarded = any(name in request.headers for name in PROXY_HEADERS)
        client = request.client.host if request.client is not None else None
        refused = metrics_refusal(token, request.headers.get("authorization"), client, forwarded=forwarded)
        if refused is not None:
            headers = {"WWW-Authenticate": 'Bearer realm="dorf metrics"'} if refused.status == 401 else None
            return JSONResponse({"error": refused.as_json()}, status_code=refused.status, headers=headers)
        return Response(metrics().text(), media_type=CONTENT_TYPE)


__all__ = [
    "CONTENT_TYPE",
    "CountRequests",
    "Metrics",
    "Readings",
    "add_metrics_route",
    "metrics_refusal",
    "server_version",
]
