"""What the server's logs leave out: the code of a seat invitation.

A link ``/join/ID/CODE`` is a live seat invitation: whoever has it takes the seat.  uvicorn's
access log (``dorf serve --log-level info``) writes the path of every request, so the page
request of an invited player would leave the code in the log for anyone who reads it.
:class:`RedactInvites`, a filter on the logger ``uvicorn.access`` (:func:`redact_access_log`),
writes ``/join/ID/…`` instead; the game's id stays (which game was joined is worth knowing).

>>> redact_path("/join/abc123/s3cr3t-c0de?x=1")
'/join/abc123/…?x=1'
>>> redact_path("/game/abc123"), redact_path("/join/abc123")
('/game/abc123', '/join/abc123')

And what they say of each line (``dorf serve --log-format text|json``, :func:`log_config`): its
time (UTC), its level and the id of the request it belongs to.  :class:`RequestIds`, the app's
outermost middleware, gives every request (and websocket) an id: the ``X-Request-Id`` a
``--trusted-proxy`` sent, else a new one; the answer carries it back in ``X-Request-Id``, and
every line logged while the request is served (uvicorn's access line, dorf's own) names it.
The client's address is left out of uvicorn's lines unless ``--log-addresses`` asks for it.

>>> record = logging.LogRecord("uvicorn.access", logging.INFO, "", 0, '%s - "%s %s HTTP/%s" %d',
...                            ("192.0.2.7:5000", "GET", "/", "1.1", 200), None)
>>> record.created, record.msecs, record.request_id = 0.0, 0.0, "4f2a"
>>> TextFormatter().format(record)
'1970-01-01T00:00:00.000Z INFO [4f2a] uvicorn.access: "GET / HTTP/1.1" 200'
>>> TextFormatter(addresses=True).format(record)
'1970-01-01T00:00:00.000Z INFO [4f2a] uvicorn.access: 192.0.2.7:5000 - "GET / HTTP/1.1" 200'
>>> line = json.loads(JsonFormatter().format(record))
>>> line["time"], line["level"], line["request_id"], line["path"], line["status"], "client" in line
('1970-01-01T00:00:00.000Z', 'info', '4f2a', '/', 200, False)
"""

from __future__ import annotations

import ipaddress
import json
import logging
import re
import secrets
import sys
import time
from collections.abc import Iterable
from contextvars import ContextVar
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from starlette.types import ASGIApp, Message, Receive, Scope, Send

#: The logger uvicorn writes one line a request to.
ACCESS_LOGGER = "uvicorn.access"
#: The code of an invitation in a path (what follows ``/join/ID/`` up to a query or the end).
INVITE = re.compile(r"(/join/[^/?#\s\"]+/|/sign-in/)[^?#\s\"]+")
#: (and of a one-time sign-in link, ``/sign-in/LINK``: ``dorf admin reset-password``)
_SECRET_PATHS = re.compile("/join/|/sign-in/")


def redact_path(text: str) -> str:
    """``text`` with the code of every invitation link in it replaced by ``…``."""
    return INVITE.sub(r"\1…", text)


class RedactInvites(logging.Filter):
    """A logging filter that takes the invitation codes out of a record (its arguments, as
    uvicorn's access log passes the path, or its message): it lets every record through."""

    def filter(self, record: logging.LogRecord) -> bool:
        args = record.args
        if isinstance(args, tuple) and any(isinstance(a, str) and _SECRET_PATHS.search(a) for a in args):
            record.args = tuple(redact_path(a) if isinstance(a, str) else a for a in args)
        if isinstance(record.msg, str) and _SECRET_PATHS.search(record.msg):
            record.msg = redact_path(record.msg)
        return True


def redact_access_log() -> RedactInvites:
    """Put a :class:`RedactInvites` on uvicorn's access logger (once): the filter."""
    logger = logging.getLogger(ACCESS_LOGGER)
    for present in logger.filters:
        if isinstance(present, RedactInvites):
            return present
    added = RedactInvites()
    logger.addFilter(added)
    return added


# --- request ids ---------------------------------------------------------------------------

#: The id of the request being served (None: no request, the server's own work).
REQUEST_ID: ContextVar[str | None] = ContextVar("dorf_request_id", default=None)
#: The header that carries a request's id, in both directions.
REQUEST_ID_HEADER = b"x-request-id"
#: An id a proxy may hand in: short, and only characters that cannot break a log line.
GOOD_ID = re.compile(r"[A-Za-z0-9._:/+=@-]{1,128}")

Network = ipaddress.IPv4Network | ipaddress.IPv6Network


def new_request_id() -> str:
    """A fresh request id: 16 hexadecimal digits."""
    return secrets.token_hex(8)


def trusted_networks(proxies: Iterable[str]) -> tuple[Network, ...]:
    """The ``--trusted-proxy`` values as networks (an address is a network of one)."""
    return tuple(ipaddress.ip_network(proxy, strict=False) for proxy in proxies)


def is_trusted(peer: str | None, networks: tuple[Network, ...]) -> bool:
    """Whether the connection's peer ``peer`` is one of the trusted proxies.

    >>> proxies = trusted_networks(["10.0.0.0/24"])
    >>> is_trusted("10.0.0.3", proxies), is_trusted("10.0.1.3", proxies), is_trusted("testclient", proxies)
    (True, False, False)
    """
    if peer is None or not networks:
        return False
    try:
        address = ipaddress.ip_address(peer)
    except ValueError:
        return False
    return any(address in network for network in networks)


class RequestIds:
    """ASGI middleware: each request and websocket gets an id (:data:`REQUEST_ID` while it is
    served), the ``X-Request-Id`` of a trusted proxy (``proxies``) if it sent a usable one, else
    a new one; the answer (the response, the websocket's acceptance) carries it back.

    Outermost, so that it sees the connection's own peer (the proxy), not the client a trusted
    proxy names in ``X-Forwarded-For``."""

    def __init__(self, app: ASGIApp, proxies: Iterable[str] = ()) -> None:
        self.app = app
        self.networks = trusted_networks(proxies)

    def request_id(self, scope: Scope) -> str:
        """The request's id: its trusted proxy's, else a new one."""
        client = scope.get("client")
        if self.networks and is_trusted(client[0] if client else None, self.networks):
            for key, value in scope["headers"]:
                if key == REQUEST_ID_HEADER:
                    given = bytes(value).decode("latin-1")
                    if GOOD_ID.fullmatch(given):
                        return given
        return new_request_id()

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] not in ("http", "websocket"):
            await self.app(scope, receive, send)
            return
        request_id = self.request_id(scope)
        header = (REQUEST_ID_HEADER, request_id.encode("latin-1"))

        async def send_with_id(message: Message) -> None:
            if message["type"] in ("http.response.start", "websocket.accept"):
                message = {**message, "headers": [*message.get("headers", ()), header]}
            await send(message)

        token = REQUEST_ID.set(request_id)
        try:
            await self.app(scope, receive, send_with_id)
        finally:
            REQUEST_ID.reset(token)


# --- log lines -------------------------------------------------------------------------------

#: How uvicorn's lines that name a client begin: the address, then the request.
ADDRESS_FIRST = "%s - "


class RequestIdFilter(logging.Filter):
    """Give each record the id of the request it was logged in (``-``: none)."""

    def filter(self, record: logging.LogRecord) -> bool:
        if not hasattr(record, "request_id"):
            record.request_id = REQUEST_ID.get() or "-"
        return True


def utc_time(record: logging.LogRecord) -> str:
    """When ``record`` was made: ISO 8601, UTC, to the millisecond."""
    stamp = time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(record.created))
    return f"{stamp}.{int(record.msecs):03d}Z"


def without_address(record: logging.LogRecord) -> logging.LogRecord:
    """``record``, or a copy of it without the client's address if it is one of uvicorn's lines
    that begin with it (the access line, a websocket's handshake)."""
    args = record.args
    if (
        record.name.startswith("uvicorn")
        and isinstance(record.msg, str)
        and record.msg.startswith(ADDRESS_FIRST)
        and isinstance(args, tuple)
        and args
    ):
        copy = logging.makeLogRecord(record.__dict__)
        copy.msg, copy.args = record.msg[len(ADDRESS_FIRST) :], args[1:]
        return copy
    return record


def request_id_of(record: logging.LogRecord) -> str:
    """The id of the request ``record`` was logged in (``-``: none)."""
    given = getattr(record, "request_id", None)
    return given if isinstance(given, str) else REQUEST_ID.get() or "-"


class TextFormatter(logging.Formatter):
    """``TIME LEVEL [REQUEST-ID] LOGGER: MESSAGE``, one line (a traceback follows it as Python
    prints it); the client's address only if ``addresses``."""

    def __init__(self, addresses: bool = False) -> None:
        super().__init__()
        self.addresses = addresses

    def message(self, record: logging.LogRecord) -> str:
        return (record if self.addresses else without_address(record)).getMessage()

    def format(self, record: logging.LogRecord) -> str:
        head = f"{utc_time(record)} {record.levelname} [{request_id_of(record)}] {record.name}"
        line = f"{head}: {self.message(record)}"
        if record.exc_info:
            line += "\n" + self.formatException(record.exc_info)
        return line


class JsonFormatter(TextFormatter):
    """One JSON object a line: ``time``, ``level``, ``logger``, ``request_id``, ``message``; for an
    access line also ``method``, ``path``, ``status`` (and ``client`` with ``addresses``); a
    traceback as ``error``."""

    def format(self, record: logging.LogRecord) -> str:
        line: dict[str, Any] = {
            "time": utc_time(record),
            "level": record.levelname.lower(),
            "logger": record.name,
            "request_id": request_id_of(record),
            "message": self.message(record),
        }
        args = record.args
        if record.name == ACCESS_LOGGER and isinstance(args, tuple) and len(args) == 5:
            client, method, path, _, status = args
            line.update(method=method, path=path, status=status)
            if self.addresses:
                line["client"] = client
        if record.exc_info:
            line["error"] = self.formatException(record.exc_info)
        return json.dumps(line, ensure_ascii=False, default=str)


class StandardError(logging.StreamHandler):  # type: ignore[type-arg]
    """Lines to the standard error as it is when each is written (``sys.stderr`` read then, not
    kept): a process that swaps it (a test's capture, then closed) leaves no handler on a closed
    stream."""

    def __init__(self) -> None:
        super().__init__(sys.stderr)

    @property
    def stream(self) -> Any:
        return sys.stderr

    @stream.setter
    def stream(self, value: Any) -> None:
        pass  # always the standard error of the moment


#: The formats of ``dorf serve --log-format``.
LOG_FORMATS = ("text", "json")


def log_config(level: str, form: str = "text", addresses: bool = False) -> dict[str, Any]:
    """The logging configuration of ``dorf serve`` (:func:`logging.config.dictConfig`'s, as uvicorn
    takes it): uvicorn's lines and dorf's own, at ``level`` and above, in the format ``form``
    (:data:`LOG_FORMATS`) on the standard error, each with its request id."""
    formatter = JsonFormatter if form == "json" else TextFormatter
    shown = {"handlers": ["line"], "level": level.upper(), "propagate": False}
    return {
        "version": 1,
        "disable_existing_loggers": False,
        "filters": {"request_id": {"()": RequestIdFilter}},
        "formatters": {"line": {"()": formatter, "addresses": addresses}},
        "handlers": {
            "line": {
                "class": "dorf.server.edge.logs.StandardError",
                "formatter": "line",
                "filters": ["request_id"],
            }
        },
        "loggers": {
            "uvicorn": shown,
            "uvicorn.error": {"level": level.upper()},
            "uvicorn.access": shown,
            "dorf": shown,
        },
        "root": {"handlers": ["line"], "level": "WARNING"},
    }
