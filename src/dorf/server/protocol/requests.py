"""The checks of a request that every part of the server shares (the edge and the features'
routes): the address it is counted under (:func:`client_address`), whether its page may change
anything (:func:`allowed_origin`), and requests of one kind being computed (:class:`InFlight`).
The edge's middleware and policies are :mod:`dorf.server.edge.limits`.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from typing import TYPE_CHECKING
from urllib.parse import urlsplit

from dorf.server.protocol.messages import ProtocolError

if TYPE_CHECKING:
    from starlette.requests import HTTPConnection


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


__all__ = ["InFlight", "allowed_origin", "client_address", "host_name"]
