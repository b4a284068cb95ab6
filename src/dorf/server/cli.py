"""``dorf serve``: play in the browser.

The command's arguments live here; :mod:`dorf.cli` registers them with
:func:`add_serve_parser` and runs :func:`serve_main`.  The web dependencies
(FastAPI, uvicorn) are imported only when the server starts.  The port is
bound first (a port in use is one line, exit 2) and the address is announced
only once the server answers on it.

The server answers only for its own host names (:func:`serve_hosts`: the
loopback names, ``--host`` and every ``--allowed-host``), and believes a
client's ``X-Forwarded-For`` only from a ``--trusted-proxy``.
"""

from __future__ import annotations

import argparse
import ipaddress
import logging.config
import os
import re
import socket
import sys
from collections.abc import Callable, Iterable, Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from dorf.arguments import bounded
from dorf.server.settings import SettingsError, Settled, describe, explicit, read_file, settle, variable

if TYPE_CHECKING:
    from dorf.server.config import BotCommands

#: The serve options' ranges, read with one message style (see dorf.arguments).
_port = bounded(0, 65535, what="port")
_workers = bounded(0, 64)
_delay = bounded(0, 10, cast=float, what="seconds")
_cap = bounded(0.1, 60, cast=float, what="seconds")
_scale = bounded(1, 1000, cast=float, what="times")
_count = bounded(0, 1_000_000)
_limit = bounded(1, 1_000_000)
_idle = bounded(1, 86_400, cast=float, what="seconds")
_bot_clock = bounded(0.01, 3600, cast=float, what="seconds")
#: The coach behind a finished game's lessons (``dorf.players.coach.DEFAULT_PLAYER``).
DEFAULT_COACH = "planner"
#: Hosts that mean every address of the machine: no name of its own to allow.
EVERY_ADDRESS = ("", "0.0.0.0", "::")
#: A host name or address as ``--allowed-host`` takes it (an IPv6 address with or without brackets).
_HOST = re.compile(r"\[?[A-Za-z0-9.:_-]{1,253}\]?")
#: A token as ``--metrics-token`` takes it (what an Authorization header can carry).
_TOKEN = re.compile(r"[!-~]{1,256}")


def _allowed_host(value: str) -> str:
    if not _HOST.fullmatch(value):
        raise argparse.ArgumentTypeError(f"not a host name: {value!r}")
    return value


def _token(value: str) -> str:
    if not _TOKEN.fullmatch(value):
        raise argparse.ArgumentTypeError("a token is 1 to 256 printable characters without spaces")
    return value


def _proxy(value: str) -> str:
    try:
        ipaddress.ip_network(value, strict=False)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not an address or network: {value!r}") from None
    return value


def add_serve_parser(sub: Any) -> argparse.ArgumentParser:
    """Add ``serve`` to the ``dorf`` command's subparsers."""
    serve = sub.add_parser(
        "serve",
        help="play in the browser: every mode, against the computer and online",
        description="Every option may also come from the environment (--ai-workers: DORF_AI_WORKERS) or"
        " a config file (--config); a flag wins over the environment, which wins over the file.",
    )
    serve.add_argument(
        "--config",
        type=Path,
        default=None,
        metavar="FILE",
        help="a TOML file of options (keys: the options' names, ai-workers = 0; default $DORF_CONFIG)",
    )
    serve.add_argument(
        "--print-config",
        action="store_true",
        help="print the configuration these flags, the environment and the file make (secrets hidden),"
        " each value's source, and exit",
    )
    serve.add_argument("--host", default="127.0.0.1", help="address to listen on (default 127.0.0.1)")
    serve.add_argument("--port", type=_port, default=8000, help="port (default 8000; 0: any free port)")
    serve.add_argument(
        "--db",
        default=None,
        metavar="PATH|URL",
        help="SQLite file (default: $DORF_DB or the user data folder), or a PostgreSQL database"
        " (postgresql://user@host:port/name) that several servers share",
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
        help="new games a minute from one address, and from one player (every way of making one:"
        " a game, a rematch, a seek, the daily challenge; default 30; 0: no limit)",
    )
    serve.add_argument(
        "--campaign-limit",
        type=_count,
        default=10,
        metavar="N",
        help="new campaigns a minute from one address (default 10; 0: no limit)",
    )
    serve.add_argument(
        "--player-limit",
        type=_count,
        default=10,
        metavar="N",
        help="new players a minute from one address (default 10; 0: no limit)",
    )
    serve.add_argument(
        "--allowed-host",
        action="append",
        type=_allowed_host,
        default=[],
        metavar="H",
        help="a host name the server answers for, besides the loopback names and --host (repeatable; "
        "with --host 0.0.0.0 name the public one)",
    )
    serve.add_argument(
        "--trusted-proxy",
        action="append",
        type=_proxy,
        default=[],
        metavar="ADDR",
        help="a proxy (address or network) whose X-Forwarded-For is believed (repeatable; default none)",
    )
    serve.add_argument(
        "--max-connections",
        type=_limit,
        default=1000,
        metavar="N",
        help="websocket clients at most; then only seat holders get in (default 1000)",
    )
    serve.add_argument(
        "--max-spectators",
        type=_limit,
        default=32,
        metavar="N",
        help="spectators of one game at most; its seat holders always get in (default 32)",
    )
    serve.add_argument(
        "--max-connections-per-address",
        type=_count,
        default=16,
        metavar="N",
        help="spectators from one address at most, and as many seat holders (default 16; 0: no limit)",
    )
    serve.add_argument(
        "--open-games-per-address",
        type=_count,
        default=8,
        metavar="N",
        help="open games in the lobby from one address at once (default 8; 0: no limit)",
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
    serve.add_argument(
        "--storage-grace",
        type=_cap,
        default=20.0,
        metavar="SECONDS",
        help="moves are refused once the database has taken no write this long (default 20; "
        "meanwhile they are made and written when it can)",
    )
    serve.add_argument(
        "--allow-bot-commands",
        action="store_true",
        help="let a new game name a program as a computer player (cmd:COMMAND, docs/bots.md): whoever "
        "can create a game here can then run any command on this machine, as this server's user",
    )
    serve.add_argument(
        "--bot-seconds",
        type=_bot_clock,
        default=5.0,
        metavar="SECONDS",
        help="with --allow-bot-commands: a program's clock for each decision; late, it plays the first "
        "legal move (default 5)",
    )
    serve.add_argument(
        "--clock-scale",
        type=_scale,
        default=1.0,
        metavar="TIMES",
        help="for tests only: the games' clocks run this many times faster than real time (default 1)",
    )
    serve.add_argument(
        "--daily-expert",
        default="expert",
        metavar="LEVEL",
        help="the computer level (or player) whose score on each daily challenge players try to beat"
        " (default expert)",
    )
    serve.add_argument(
        "--daily-coach",
        default=DEFAULT_COACH,
        metavar="PLAYER",
        help=f"the coach behind a finished game's lessons (default {DEFAULT_COACH})",
    )
    serve.add_argument(
        "--today-file",
        type=Path,
        default=None,
        metavar="PATH",
        help="for tests only: today's date (YYYY-MM-DD, UTC) is read from this file instead of the clock",
    )
    serve.add_argument(
        "--privacy-file",
        type=Path,
        default=None,
        metavar="FILE",
        help="the privacy notice /privacy shows instead of dorf's: FILE.html as HTML, any other file"
        " as text with # headings and - items, escaped (docs/server.md, Privacy)",
    )
    serve.add_argument(
        "--no-migrate",
        action="store_true",
        help="refuse to start if the database's tables need an upgrade (run dorf migrate first);"
        " by default the server applies the steps itself, each logged",
    )
    serve.add_argument("--log-level", default="warning", choices=("debug", "info", "warning", "error"))
    serve.add_argument(
        "--log-format",
        default="text",
        choices=("text", "json"),
        help="each log line as text (time, level, [request id], logger: message) or as one JSON object"
        " (default text)",
    )
    serve.add_argument(
        "--log-addresses",
        action="store_true",
        help="name each client's address in the access log (--log-level info); by default it is left out",
    )
    serve.add_argument(
        "--metrics-token",
        type=_token,
        default=None,
        metavar="TOKEN",
        help="/metrics answers a scraper that sends Authorization: Bearer TOKEN; without a token it answers"
        " only programs on this machine",
    )
    return serve  # type: ignore[no-any-return]


def serve_parser() -> argparse.ArgumentParser:
    """A fresh parser of ``dorf serve``'s options alone (to read them again, or list them)."""
    return add_serve_parser(argparse.ArgumentParser(prog="dorf").add_subparsers())


def settle_serve(args: argparse.Namespace, argv: Sequence[str], environ: Mapping[str, str]) -> Settled:
    """Every option of ``args`` (``dorf serve``'s, parsed from ``argv``, the words after ``serve``)
    from its flag in ``argv``, else ``environ`` (``DORF_PORT``...), else the config file (``--config``
    or ``$DORF_CONFIG``), else its default (:mod:`dorf.server.settings`); SettingsError if a value
    of the environment or the file cannot be used."""
    given = {dest: getattr(args, dest) for dest in explicit(serve_parser(), argv)}
    config = given.get("config") or environ.get(variable("config"), "").strip() or None
    table = read_file(config) if config else None
    return settle(serve_parser(), given, environ, table, file_name=str(config))


def database_line(db: str | Path | None) -> str:
    """Where the games are kept, for ``--print-config`` (a URL's password hidden)."""
    from dorf.db import default_path
    from dorf.server.storage import is_url, redact

    if is_url(db):
        return f"# games in PostgreSQL: {redact(str(db))}"
    return f"# games in the SQLite file {db or default_path()}"


def serve_command(
    args: argparse.Namespace, argv: Sequence[str], programs: Callable[[float], BotCommands]
) -> int:
    """``dorf serve`` from the ``dorf`` command: settle the options (:func:`settle_serve`), print
    them (``--print-config``) or serve; ``programs(seconds)`` runs the programs of ``cmd:``
    computer seats (with ``--allow-bot-commands``)."""
    try:
        settled = settle_serve(args, argv, os.environ)
    except SettingsError as exc:
        print(f"dorf serve: {exc}", file=sys.stderr)
        return 2
    if args.print_config:
        print("# dorf serve's configuration: a flag wins over the environment, which wins over the file")
        print(describe(serve_parser(), settled))
        print(database_line(settled.values["db"]))
        return 0
    vars(args).update(settled.values)
    return serve_main(args, programs(args.bot_seconds) if args.allow_bot_commands else None)


def daily_players_refused(expert: str, coach: str) -> str | None:
    """Why ``--daily-expert`` or ``--daily-coach`` cannot be used (None: they can)."""
    from dorf.players import make_player
    from dorf.players.coach import coach_player
    from dorf.players.levels import level_spec

    try:
        make_player(level_spec(expert) or expert)
    except ValueError as exc:
        return f"--daily-expert {expert}: {exc}"
    try:
        coach_player(coach)
    except ValueError as exc:
        return f"--daily-coach {coach}: {exc}"
    return None


def shown_host(host: str) -> str:
    """The host of the address to print: 127.0.0.1 for every-address hosts.

    >>> shown_host("0.0.0.0"), shown_host("::1"), shown_host("127.0.0.1")
    ('127.0.0.1', '[::1]', '127.0.0.1')
    """
    if host in ("", "0.0.0.0", "::"):
        return "127.0.0.1"
    return f"[{host}]" if ":" in host else host


def serve_hosts(host: str, allowed: Iterable[str]) -> tuple[str, ...]:
    """The host names ``dorf serve --host host --allowed-host ...`` answers for: the loopback
    names, ``host`` unless it means every address, and ``allowed``.

    >>> serve_hosts("0.0.0.0", ["Dorf.example"])
    ('127.0.0.1', 'localhost', '::1', 'dorf.example')
    >>> serve_hosts("192.0.2.7", ["[2001:db8::1]"])
    ('127.0.0.1', 'localhost', '::1', '192.0.2.7', '2001:db8::1')
    """
    from dorf.server.config import LOOPBACK
    from dorf.server.edge.limits import host_name

    names = [*LOOPBACK, *([] if host in EVERY_ADDRESS else [host]), *allowed]
    return tuple(dict.fromkeys(host_name(name) for name in names))


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


def serve_main(args: argparse.Namespace, bot_commands: BotCommands | None = None) -> int:
    """Run the server until interrupted; ``bot_commands`` runs the programs of ``cmd:`` computer
    seats (:mod:`dorf.cli` gives :class:`dorf.bots.seat.BotCommands` with ``--allow-bot-commands``)."""
    if getattr(args, "allow_bot_commands", False) and bot_commands is None:
        print(
            "dorf serve: --allow-bot-commands: no program runner was given (run it as dorf serve)",
            file=sys.stderr,
        )
        return 2
    try:
        import uvicorn

        from dorf.server.config import ServerConfig
        from dorf.server.edge.app import TRANSPORT_LIMIT
        from dorf.server.edge.logs import log_config, redact_access_log
        from dorf.server.hub import create_app
    except ImportError as exc:
        print(
            f"dorf serve: the web server needs FastAPI and uvicorn ({exc.name} is missing): "
            "pip install 'dorf-games[web]'",
            file=sys.stderr,
        )
        return 2
    from dorf.db import DatabaseError, default_path
    from dorf.server.storage import check_database, is_url, redact

    refused = daily_players_refused(args.daily_expert, args.daily_coach)
    if refused is not None:
        print(f"dorf serve: {refused}", file=sys.stderr)
        return 2
    db = redact(args.db) if is_url(args.db) else (args.db or default_path())
    try:
        if getattr(args, "no_migrate", False):
            from dorf.server.storage.upgrade import ready

            ready(args.db or default_path())  # one line if the tables need an upgrade
    except DatabaseError as exc:
        print(f"dorf serve: {exc}", file=sys.stderr)
        return 2
    # Every line from here on (a migration's, uvicorn's, dorf's) says its time, level and request id.
    logs = log_config(args.log_level, args.log_format, args.log_addresses)
    logging.config.dictConfig(logs)
    try:
        check_database(args.db)  # a database that cannot be used is one line here, not a traceback later
    except DatabaseError as exc:
        print(f"dorf serve: {exc}", file=sys.stderr)
        return 2
    privacy_file = getattr(args, "privacy_file", None)
    if privacy_file is not None:
        try:
            Path(privacy_file).read_text(encoding="utf-8")
        except (OSError, UnicodeError) as exc:
            why = getattr(exc, "strerror", None) or exc
            print(f"dorf serve: --privacy-file {privacy_file}: {why}", file=sys.stderr)
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
        campaign_limit=args.campaign_limit,
        player_limit=args.player_limit,
        max_connections=args.max_connections,
        max_spectators=args.max_spectators,
        max_connections_per_address=args.max_connections_per_address,
        open_games_per_address=args.open_games_per_address,
        games_in_memory=args.games_in_memory,
        idle_seconds=args.idle_seconds,
        storage_grace=args.storage_grace,
        origins=(address.rstrip("/"),),
        allowed_hosts=serve_hosts(args.host, args.allowed_host),
        page_policy=True,
        bot_commands=bot_commands,
        clock_scale=args.clock_scale,
        daily_expert=args.daily_expert,
        daily_coach=args.daily_coach,
        today_file=args.today_file,
        privacy_file=privacy_file,
        trusted_proxies=tuple(args.trusted_proxy),
        metrics_token=args.metrics_token,
    )

    class Server(uvicorn.Server):
        async def startup(self, sockets: list[socket.socket] | None = None) -> None:
            await super().startup(sockets=sockets)
            if self.started and not self.should_exit:
                if bot_commands is not None:
                    print(
                        "dorf: --allow-bot-commands: a new game may run any command on this machine",
                        file=sys.stderr,
                        flush=True,
                    )
                print(f"dorf: playing at {address}  (games in {db}; Ctrl-C stops)", flush=True)

    server = Server(
        uvicorn.Config(
            create_app(config),
            log_level=args.log_level,
            ws_max_size=TRANSPORT_LIMIT,
            ws_ping_interval=20,
            # A move's delta is a few hundred bytes: compressing every message costs more
            # processor time than the bytes it saves (docs/server.md, "The load benchmark").
            ws_per_message_deflate=False,
            # X-Forwarded-For (and -Proto) only from the proxies named, believed by the app itself
            # (config.trusted_proxies): else uvicorn would believe it from 127.0.0.1, and anyone on
            # the machine could pass for any address.
            proxy_headers=False,
            log_config=logs,
        )
    )
    redact_access_log()  # after uvicorn set up its loggers: no invitation code in the access log
    with sock:
        server.run(sockets=[sock])
    return 0 if server.started else 2
