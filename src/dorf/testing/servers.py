"""A dorf server on loopback for the tests and the tools: :func:`launch`.

``launch(db)`` runs the app in a thread of this process (the browser tests, the pictures);
``launch(db, process=True)`` runs ``dorf serve`` as a process of its own (the load and capacity
benchmarks, the crash tests), from another source tree with ``src``.  Either way it returns once
``/api/health`` answers, a :class:`Running` with the server's ``url``; ``stop()`` it, or use it
as a context manager.

Settings are :class:`~dorf.server.hub.ServerConfig`'s fields by name (``create_limit=3``); a
process gets them as options (``--create-limit 3``, ``True`` a flag alone).  Unless given, a
server has :data:`DEFAULTS`: no limit of games, players or connections per address (the tests
make many from one address), computer seats thinking in threads, and the daily challenge's
expert played by ``greedy`` (the ``expert`` level would think a second a move for a whole game
whenever a page asks for today's challenge).  A process started from
``src`` leaves out the defaults its version of ``dorf serve`` does not know (an older commit's).
"""

from __future__ import annotations

import functools
import os
import signal
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Iterable
from pathlib import Path
from types import TracebackType
from typing import IO, Any

from dorf.testing.net import free_port, get

#: What a launched server has unless told otherwise.
DEFAULTS: dict[str, Any] = {
    "ai_workers": 0,
    "ai_delay": 0.05,
    "create_limit": 0,
    "player_limit": 0,
    "max_connections_per_address": 0,
    "open_games_per_address": 0,
    "daily_expert": "greedy",
}


class ServerError(RuntimeError):
    """The server stopped at start, or did not answer in time."""


class Running:
    """A launched server: its address, and the ``dorf serve`` process if it runs in one."""

    def __init__(
        self,
        url: str,
        process: subprocess.Popen[bytes] | None = None,
        thread: threading.Thread | None = None,
        uvicorn_server: Any = None,
        errors: IO[bytes] | None = None,
    ) -> None:
        self.url = url
        self.process = process
        #: Where the process writes its standard error (its last lines explain a failed start).
        self._errors = errors
        self._thread = thread
        self._uvicorn = uvicorn_server

    @property
    def pid(self) -> int:
        """The server's process (this one for a server in a thread)."""
        return self.process.pid if self.process is not None else os.getpid()

    def alive(self) -> bool:
        if self.process is not None:
            return self.process.poll() is None
        return self._thread is not None and self._thread.is_alive()

    def wait(self, limit: float = 30.0) -> None:
        """Return once ``/api/health`` answers; :class:`ServerError` if the server stops first
        or ``limit`` seconds pass."""
        deadline = time.monotonic() + limit
        while True:
            if not self.alive():
                raise ServerError(f"the server at {self.url} stopped at start{self._said()}")
            try:
                get(self.url + "/api/health", timeout=2)
                return
            except (OSError, ValueError):
                if time.monotonic() > deadline:
                    raise ServerError(f"the server at {self.url} did not answer in {limit:g} s") from None
                time.sleep(0.05)

    def _said(self) -> str:
        """The last lines the process wrote to its standard error, if any."""
        if self._errors is None:
            return ""
        self._errors.seek(0)
        lines = self._errors.read().decode(errors="replace").strip().splitlines()[-5:]
        return (": " + " / ".join(lines)) if lines else ""

    def _ask_to_stop(self) -> None:
        if self.process is not None:
            if self.process.poll() is None:
                self.process.terminate()
        elif self._uvicorn is not None:
            self._uvicorn.should_exit = True

    def _wait_stopped(self, timeout: float) -> None:
        if self.process is not None:
            try:
                self.process.wait(timeout=timeout)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
        elif self._thread is not None:
            self._thread.join(timeout=timeout)

    def stop(self, timeout: float = 10.0) -> None:
        """Stop the server (a process: SIGTERM, then SIGKILL after ``timeout`` seconds)."""
        stop_all([self], timeout)

    def kill(self) -> None:
        """SIGKILL the server's process, as a crash would."""
        assert self.process is not None, "a server in a thread cannot be killed"
        self.process.send_signal(signal.SIGKILL)
        self.process.wait()

    def __enter__(self) -> Running:
        return self

    def __exit__(
        self, kind: type[BaseException] | None, error: BaseException | None, trace: TracebackType | None
    ) -> None:
        self.stop()


def stop_all(servers: Iterable[Running], timeout: float = 10.0) -> None:
    """Stop several servers at once: all are asked, then each waited for."""
    servers = list(servers)
    for server in servers:
        server._ask_to_stop()
    for server in servers:
        server._wait_stopped(timeout)


def _environment(src: str | Path | None) -> dict[str, str]:
    env = {**os.environ, "PYTHONUNBUFFERED": "1"}
    if src is not None:
        env["PYTHONPATH"] = str(Path(src).resolve())
    return env


@functools.cache
def _serve_help(src: str | None) -> str:
    return subprocess.run(
        [sys.executable, "-m", "dorf.cli", "serve", "--help"],
        env=_environment(src),
        capture_output=True,
        text=True,
        check=False,
    ).stdout


def serve_knows(option: str, src: str | Path | None = None) -> bool:
    """Whether the ``dorf serve`` of source tree ``src`` (this one if None) has ``option``."""
    return src is None or option in _serve_help(str(Path(src).resolve()))


def _option(name: str) -> str:
    return "--" + name.replace("_", "-")


def _options(settings: dict[str, Any]) -> list[str]:
    """Settings as ``dorf serve``'s options.

    >>> _options({"ai_workers": 0, "allow_bot_commands": True, "page_policy": False})
    ['--ai-workers', '0', '--allow-bot-commands']
    """
    options: list[str] = []
    for name, value in settings.items():
        if value is True:
            options.append(_option(name))
        elif value is not False and value is not None:
            options += [_option(name), str(value)]
    return options


def launch(
    db: str | Path,
    *,
    process: bool = False,
    port: int | None = None,
    src: str | Path | None = None,
    wait: bool = True,
    limit: float = 30.0,
    **settings: Any,
) -> Running:
    """A dorf server on ``db`` (a SQLite file or a postgresql:// URL) at ``127.0.0.1:port`` (a
    free port unless given): in a thread, or as a ``dorf serve`` process (``process``, from the
    source tree ``src`` if given).  Returns once it answers (:class:`ServerError` if it does
    not within ``limit`` seconds), or at once without ``wait`` (then :meth:`Running.wait`)."""
    port = port or free_port()
    url = f"http://127.0.0.1:{port}"
    if process:
        known = {k: v for k, v in DEFAULTS.items() if serve_knows(_option(k), src)}
        command = [sys.executable, "-m", "dorf.cli", "serve", "--host", "127.0.0.1", "--port", str(port)]
        command += ["--db", str(db), "--log-level", "error", *_options(known | settings)]
        errors = tempfile.TemporaryFile()  # noqa: SIM115 - kept open as long as the server runs
        started = subprocess.Popen(command, env=_environment(src), stdout=subprocess.DEVNULL, stderr=errors)
        running = Running(url, process=started, errors=errors)
    else:
        if src is not None:
            raise ValueError("a server from another source tree runs as a process (process=True)")
        running = _in_thread(db, port, DEFAULTS | settings)
    if wait:
        try:
            running.wait(limit)
        except BaseException:
            running.stop()
            raise
    return running


def _in_thread(db: str | Path, port: int, settings: dict[str, Any]) -> Running:
    import uvicorn

    from dorf.server.config import ServerConfig
    from dorf.server.edge.app import TRANSPORT_LIMIT
    from dorf.server.hub import create_app

    app = create_app(ServerConfig(db=db, **settings))
    config = uvicorn.Config(app, host="127.0.0.1", port=port, log_level="error", ws_max_size=TRANSPORT_LIMIT)
    server = uvicorn.Server(config)
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    return Running(f"http://127.0.0.1:{port}", thread=thread, uvicorn_server=server)
