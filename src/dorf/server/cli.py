"""``dorf serve``: play in the browser.

The command's arguments live here; :mod:`dorf.cli` registers them with
:func:`add_serve_parser` and runs :func:`serve_main`.  The web dependencies
(FastAPI, uvicorn) are imported only when the server starts.
"""

from __future__ import annotations

import argparse
import sys
from typing import Any

from dorf.arguments import bounded

#: The serve options' ranges, read with one message style (see dorf.arguments).
_port = bounded(0, 65535, what="port")
_workers = bounded(0, 64)
_delay = bounded(0, 10, cast=float, what="seconds")


def add_serve_parser(sub: Any) -> argparse.ArgumentParser:
    """Add ``serve`` to the ``dorf`` command's subparsers."""
    serve = sub.add_parser("serve", help="play in the browser: every mode, against the computer and online")
    serve.add_argument("--host", default="127.0.0.1", help="address to listen on (default 127.0.0.1)")
    serve.add_argument("--port", type=_port, default=8000, help="port (default 8000)")
    serve.add_argument(
        "--db", default=None, metavar="PATH", help="SQLite file (default: $DORF_DB or the user data folder)"
    )
    serve.add_argument(
        "--ai-workers",
        type=_workers,
        default=2,
        metavar="N",
        help="processes that think for computer seats (0: threads in the server; default 2)",
    )
    serve.add_argument(
        "--ai-delay",
        type=_delay,
        default=0.4,
        metavar="SECONDS",
        help="pause before a computer seat moves, so people can follow (default 0.4)",
    )
    serve.add_argument("--log-level", default="warning", choices=("debug", "info", "warning", "error"))
    return serve  # type: ignore[no-any-return]


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
    config = ServerConfig(db=db, ai_workers=args.ai_workers, ai_delay=args.ai_delay)
    try:
        Storage(db).close()  # a database that cannot be used is one line here, not a traceback later
        app = create_app(config)
        shown = "localhost" if args.host in ("127.0.0.1", "::1") else args.host
        print(f"dorf: playing at http://{shown}:{args.port}/  (games in {db}; Ctrl-C stops)", flush=True)
        uvicorn.run(
            app,
            host=args.host,
            port=args.port,
            log_level=args.log_level,
            ws_max_size=TRANSPORT_LIMIT,
            ws_ping_interval=20,
        )
    except DatabaseError as exc:
        print(f"dorf serve: {exc}", file=sys.stderr)
        return 2
    return 0
