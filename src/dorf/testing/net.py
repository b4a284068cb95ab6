"""Loopback ports and JSON over HTTP, for the tests and the tools.

:func:`get` and :func:`post` send and read JSON; an answer of the server's error format,
``{"error": {"code", "message"}}`` with a 4xx or 5xx status, raises :class:`HttpError`, which
says the three.  A server that does not answer raises :class:`OSError` as urllib does.
"""

from __future__ import annotations

import contextlib
import json
import socket
import urllib.error
import urllib.request
from typing import Any


def free_ports(count: int) -> list[int]:
    """``count`` different loopback ports free now (all held at once while they are found).

    >>> first, second = free_ports(2)
    >>> first != second and first > 0
    True
    """
    with contextlib.ExitStack() as stack:
        ports = []
        for _ in range(count):
            s = stack.enter_context(socket.socket())
            s.bind(("127.0.0.1", 0))
            ports.append(int(s.getsockname()[1]))
        return ports


def free_port() -> int:
    """A loopback port free now."""
    return free_ports(1)[0]


class HttpError(Exception):
    """The server refused a request: the HTTP status and the error's code and message."""

    def __init__(self, status: int, code: str, message: str) -> None:
        super().__init__(f"HTTP {status} {code}: {message}")
        self.status = status
        self.code = code
        self.message = message


def _refusal(error: urllib.error.HTTPError) -> HttpError:
    """The :class:`HttpError` of an error answer (its body in the server's format, or not)."""
    body = error.read().decode("utf-8", "replace")
    with contextlib.suppress(ValueError, AttributeError, TypeError):
        said = json.loads(body)["error"]
        return HttpError(error.code, str(said.get("code", "")), str(said.get("message", "")))
    return HttpError(error.code, "", body[:200] or str(error.reason))


def call(method: str, url: str, body: Any = None, timeout: float = 60.0) -> Any:
    """``method`` on ``url`` with ``body`` as JSON (none if None); the answer read as JSON."""
    data = None if body is None else json.dumps(body).encode()
    request = urllib.request.Request(
        url, data=data, method=method, headers={"Content-Type": "application/json"}
    )
    try:
        with urllib.request.urlopen(request, timeout=timeout) as response:
            return json.loads(response.read())
    except urllib.error.HTTPError as error:
        raise _refusal(error) from None


def get(url: str, timeout: float = 60.0) -> Any:
    """``GET url``, read as JSON."""
    return call("GET", url, timeout=timeout)


def post(url: str, body: Any, timeout: float = 60.0) -> Any:
    """``POST url`` with ``body`` as JSON, the answer read as JSON."""
    return call("POST", url, body, timeout)
