"""``dorf serve``: play in the browser.

The command's arguments live here; :mod:`dorf.cli` registers them with
:func:`add_serve_parser` and runs :func:`serve_main`.  The web dependencies
(FastAPI, uvicorn) are imported only when the server starts.  The port is
bound first (a port in use is one line, exit 2) and the address is announced
only once the server answers on it.
"""

from __future__ import annotations

import argparse
import socket
import sys
from typing import Any

from dorf.arguments import bounded

#: The serve options' ranges, read with one message style (see dorf.arguments).
_port = bounded(0, 65535, what="port")
_workers = bounded(0, 64)
_delay = bounded(0, 10, cast=float, what="seconds")
_cap = bounded(0.1, 60, cast=float, what="seconds")
_count = bounded(0, 1_000_000)
_limit = bounded(1, 1_000_000)
_idle = bounded(1, 86_400, cast=float, what="seconds")


def add_serve_parser(sub: Any) -> argparse.ArgumentParser:
    """Add ``serve`` to the ``dorf`` command's subparsers."""
    serve = sub.add_parser("serve", help="play in the browser: every mode, against the computer and online")
    serve.add_argument("--host", default="127.0.0.1", help="address to listen on (default 127.0.0.1)")
    serve.add_argument("--port", type=_port, default=8000, help="port (default 8000; 0: any free port)")
    serve.add_argument(
        "--db", default=None, metavar="PATH", help="SQLite file (default: $DORF_DB or the user data folder)"
    )
    serve.add_argument(
        "--ai-workers",
        type=_workers,
        default=2,
        metavar="N",
        help="processes that think for computer seats (0: two threads in the server; default 2)",
    )
    serve.add_argument(
        "--ai-delay",
        type=_delay,
        default=0.4,
        metavar="SECONDS",
        help="pause before a computer seat moves, so people can follow (default 0.4)",
    )
    serve.add_argument(
        "--ai-max-seconds",
        type=_cap,
        default=2.0,
        metavar="SECONDS",
        help="longest a computer may think about one move; the server stops it there (default 2)",
    )
    serve.add_argument(
        "--create-limit",
        type=_count,
        default=30,
        metavar="N",
        help="new games a minute from one address (default 30; 0: no limit)",
    )
    serve.add_argument(
        "--max-connections", type=_limit, default=1000, metavar="N", help="websocket clients at most (1000)"
    )
    serve.add_argument(
        "--max-game-connections",
        type=_limit,
        default=32,
        metavar="N",
        help="websocket clients of one game at most (default 32)",
    )
    serve.add_argument(
        "--games-in-memory",
        type=_limit,
        default=100,
        metavar="N",
        help="games held in memory when idle ones can go (default 100; the others stay in the database)",
    )
    serve.add_argument(
        "--idle-seconds",
        type=_idle,
        default=300.0,
        metavar="SECONDS",
        help="a game nobody uses this long leaves memory, and its computers stop (default 300)",
    )
    serve.add_argument("--log-level", default="warning", choices=("debug", "info", "warning", "error"))
    return serve  # type: ignore[no-any-return]


def shown_host(host: str) -> str:
    """The host of the address to print: 127.0.0.1 for every-address hosts.

    >>> shown_host("0.0.0.0"), shown_host("::1"), shown_host("127.0.0.1")
    ('127.0.0.1', '[::1]', '127.0.0.1')
    """
    if host in ("", "0.0.0.0", "::"):
        return "127.0.0.1"
    return f"[{host}]" if ":" in host else host


def bind(host: str, port: int) -> socket.socket:
    """A listening socket on ``host:port`` (OSError if it cannot be had)."""
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    sock = socket.socket(family, socket.SOCK_STREAM)
    try:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        sock.bind((host, port))
        sock.listen(2048)
    except OSError:
        sock.close()
        raise
    sock.set_inheritable(True)
    return sock


def serve_main(args: argparse.Namespace) -> int:
    """Run the server until interrupted."""
    try:
        import uvicorn

        from dorf.server.app import TRANSPORT_LIMIT, create_app
        from dorf.server.hub import ServerConfig
    except ImportError as exc:
        print(
            f"dorf serve: the web server needs FastAPI and uvicorn ({exc.name} is missing): "
            "pip install 'dorf[web]'",
            file=sys.stderr,
        )
        return 2
    from dorf.db import DatabaseError, default_path
    from dorf.server.storage import Storage

    db = args.db or default_path()
    try:
        Storage(args.db).close()  # a database that cannot be used is one line here, not a traceback later
    except DatabaseError as exc:
        print(f"dorf serve: {exc}", file=sys.stderr)
        return 2
    try:
        sock = bind(args.host, args.port)
    except OSError as exc:
        print(f"dorf serve: cannot listen on {args.host}:{args.port}: {exc.strerror or exc}", file=sys.stderr)
        return 2
    port = sock.getsockname()[1]
    address = f"http://{shown_host(args.host)}:{port}/"
    config = ServerConfig(
        db=args.db,
        ai_workers=args.ai_workers,
        ai_delay=args.ai_delay,
        ai_max_seconds=args.ai_max_seconds,
        create_limit=args.create_limit,
        max_connections=args.max_connections,
        max_game_connections=args.max_game_connections,
        games_in_memory=args.games_in_memory,
        idle_seconds=args.idle_seconds,
        origins=(address.rstrip("/"),),
        page_policy=True,
    )

    class Server(uvicorn.Server):
        async def startup(self, sockets: list[socket.socket] | None = None) -> None:
            await super().startup(sockets=sockets)
            if self.started and not self.should_exit:
                print(f"dorf: playing at {address}  (games in {db}; Ctrl-C stops)", flush=True)

    server = Server(
        uvicorn.Config(
            create_app(config), log_level=args.log_level, ws_max_size=TRANSPORT_LIMIT, ws_ping_interval=20
        )
    )
    with sock:
        server.run(sockets=[sock])
    return 0 if server.started else 2
