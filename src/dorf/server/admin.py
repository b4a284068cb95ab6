"""``dorf admin``: what an operator does on the server, against its database (never over HTTP).

:mod:`dorf.cli` registers it with :func:`add_admin_parser` and runs :func:`admin_main`.  The
database is ``dorf serve``'s: ``--db``, else ``$DORF_DB``, else the default file; a PostgreSQL
URL (``postgresql://...``) is PostgreSQL.  Each action runs in one transaction with its line of
the administration log (``server_admin_log``; ``dorf admin log`` lists it) and is logged on the
``dorf.admin`` logger.  A running server reads its players from the database at every request,
so a ban or a deletion holds for its next request (details: ``docs/server.md``,
"Administration").  The SQL is :mod:`dorf.server.storage.admin`.

``remove-message GAME N`` removes message ``N`` of a game's table talk (its SQL:
:mod:`dorf.server.storage.talk`); the clients connected keep what they were sent until they
load the game again.
"""

from __future__ import annotations

import argparse
import logging
import secrets
import sys
import time
from collections.abc import Callable
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, TypeVar

from dorf.arguments import bounded

log = logging.getLogger("dorf.admin")
T = TypeVar("T")
_limit = bounded(1, 100_000)
_hours = bounded(0.1, 24 * 30, cast=float, what="hours")
#: How long a one-time sign-in link is valid, by default (hours).
LINK_HOURS = 24.0


class AdminError(Exception):
    """What ``dorf admin`` says on one line before it exits with 1."""


def add_admin_parser(sub: Any) -> argparse.ArgumentParser:
    """Add ``admin`` to the ``dorf`` command's subparsers."""
    admin = sub.add_parser(
        "admin", help="administer a server's players and games, on the server, against its database"
    )
    admin.add_argument(
        "--db",
        default=None,
        metavar="PATH|URL",
        help="the server's database, as dorf serve takes it (default: $DORF_DB or the user data folder)",
    )
    actions = admin.add_subparsers(dest="action", metavar="SUBCOMMAND", required=True)
    players = actions.add_parser("players", help="list players: name, made, last seen, games, banned")
    players.add_argument("--find", default="", metavar="TEXT", help="only names holding TEXT (any case)")
    players.add_argument("--limit", type=_limit, default=50, metavar="N", help="at most N, newest first (50)")
    rename = actions.add_parser("rename", help="rename a player (the players' name rules apply)")
    rename.add_argument("old", metavar="OLD")
    rename.add_argument("new", metavar="NEW")
    ban = actions.add_parser("ban", help="ban a player: its sign-ins end, it can no longer play or seek")
    ban.add_argument("name", metavar="NAME")
    ban.add_argument("--reason", default="", metavar="TEXT", help="why (shown to the player)")
    unban = actions.add_parser("unban", help="lift a ban (the player signs in again)")
    unban.add_argument("name", metavar="NAME")
    delete = actions.add_parser(
        "delete", help="delete a player and its data; its games stay, its seats anonymised"
    )
    delete.add_argument("name", metavar="NAME")
    reset = actions.add_parser(
        "reset-password", help="print a one-time sign-in link for a player (there is no e-mail)"
    )
    reset.add_argument("name", metavar="NAME")
    reset.add_argument("--base-url", required=True, metavar="URL", help="the site's address, https://...")
    reset.add_argument(
        "--hours",
        type=_hours,
        default=LINK_HOURS,
        metavar="H",
        help=f"valid this long (default {LINK_HOURS:g})",
    )
    everywhere = actions.add_parser("sign-out-everywhere", help="end every session and API token of a player")
    everywhere.add_argument("name", metavar="NAME")
    games = actions.add_parser("games", help="the games changed last: id, mode, seats, last move")
    games.add_argument("--live", action="store_true", help="only games not over")
    games.add_argument("--limit", type=_limit, default=50, metavar="N", help="at most N (50)")
    remove = actions.add_parser("remove-message", help="remove message N of a game's table talk")
    remove.add_argument("game", metavar="GAME")
    remove.add_argument("n", type=bounded(1, 2**31 - 1), metavar="N", help="its number (from 1)")
    lines = actions.add_parser("log", help="the administration log, oldest first")
    lines.add_argument("--limit", type=_limit, default=100, metavar="N", help="the last N lines (100)")
    return admin  # type: ignore[no-any-return]


def open_tables(db: str | Path) -> Any:
    """The server's tables (migrated as ``dorf serve`` would): :class:`AdminError` if there is no
    database there or it cannot be used."""
    from dorf.db import DatabaseError
    from dorf.server.storage import is_url
    from dorf.server.storage import open_tables as tables_of

    try:
        if not is_url(db) and str(db) != ":memory:" and not Path(db).is_file():
            raise AdminError(f"there is no database at {db} (dorf serve makes it; or give --db)")
        return tables_of(db)
    except DatabaseError as exc:
        raise AdminError(str(exc)) from None


def _when(at: float) -> str:
    return datetime.fromtimestamp(at, UTC).isoformat(timespec="seconds")


class Admin:
    """The actions of ``dorf admin`` on open tables (``tables.people(work, *args)`` runs
    ``work(sql, *args)`` in one transaction); each prints what it did to ``out``."""

    def __init__(self, tables: Any, out: Callable[[str], None] = print) -> None:
        self.tables = tables
        self.out = out

    def _run(self, work: Callable[..., T], *args: Any) -> T:
        from dorf.server.storage.errors import StorageError

        try:
            return self.tables.people(work, *args)  # type: ignore[no-any-return]
        except StorageError as exc:
            raise AdminError(f"the database refused: {exc}") from None

    def _player(self, name: str) -> Any:
        from dorf.server.storage.admin import AdminTables

        found = self._run(AdminTables.player, name)
        if found is None:
            raise AdminError(f"there is no player {name!r}")
        return found

    def _act(self, action: str, target: str, detail: str, work: Callable[..., T], *args: Any) -> T:
        """``work(sql, *args)`` and its line of the log, in one transaction; logged."""
        from dorf.server.storage.admin import AdminTables

        def both(sql: Any) -> T:
            done = work(sql, *args)
            AdminTables.log(sql, time.time(), action, target, detail)
            return done

        done = self._run(both)
        log.info("dorf admin %s %s%s", action, target, f" ({detail})" if detail else "")
        return done

    def players(self, find: str, limit: int) -> None:
        from dorf.server.storage.admin import AdminTables

        rows = self._run(AdminTables.players, find, limit)
        self.out(f"{'name':<20}  {'made':<25}  {'last seen':<25}  {'games':>5}  banned")
        for p in rows:
            name = p.name + (" (bot)" if p.bot else "")
            banned = "-" if p.banned is None else f"yes{': ' + p.banned if p.banned else ''}"
            self.out(f"{name:<20}  {p.created:<25}  {p.seen or '-':<25}  {p.games:>5}  {banned}")

    def rename(self, old: str, new: str) -> None:
        from dorf.server.players.names import NameRefused, check_name
        from dorf.server.storage.people import PeopleTables

        found = self._player(old)
        try:
            check_name(new)
        except NameRefused as exc:
            raise AdminError(f"cannot rename {found.name} to {new!r}: {exc}") from None
        # hold_until 0: the name given up (an offensive one, say) is not held for its player
        self._act(
            "rename", found.name, f"to {new}", PeopleTables.rename_player, found.id, new, time.time(), 0.0
        )
        self.out(f"renamed {found.name} to {new}")

    def ban(self, name: str, reason: str) -> None:
        from dorf.server.storage.admin import AdminTables

        found = self._player(name)
        self._act("ban", found.name, reason, AdminTables.ban, found.id, reason)
        self.out(f"banned {found.name}: its API tokens ended, its sessions sign in nobody")

    def unban(self, name: str) -> None:
        from dorf.server.storage.admin import AdminTables

        found = self._player(name)
        if found.banned is None:
            raise AdminError(f"{found.name} is not banned")
        self._act("unban", found.name, "", AdminTables.unban, found.id)
        self.out(f"unbanned {found.name}: it signs in again (its password, or dorf admin reset-password)")

    def delete(self, name: str) -> None:
        from dorf.server.storage.admin import AdminTables

        found = self._player(name)
        seats = self._act("delete", found.name, "", AdminTables.delete_player, found.id)
        self.out(f"deleted {found.name}: its data gone, {seats} seat(s) of its games anonymised")

    def reset_password(self, name: str, base_url: str, hours: float) -> str:
        from dorf.server.storage.admin import AdminTables
        from dorf.server.storage.rows import secret_hash

        if not base_url.startswith(("http://", "https://")):
            raise AdminError(f"--base-url {base_url!r}: the site's address, http(s)://host[:port]")
        found = self._player(name)
        if found.banned is not None:
            raise AdminError(f"{found.name} is banned: unban it first")
        secret = secrets.token_urlsafe(32)
        until = time.time() + hours * 3600
        detail = f"a sign-in link until {_when(until)}"
        self._act(
            "reset-password", found.name, detail, AdminTables.add_link, found.id, secret_hash(secret), until
        )
        link = f"{base_url.rstrip('/')}/sign-in/{secret}"
        self.out(link)
        return link

    def sign_out_everywhere(self, name: str) -> None:
        from dorf.server.storage.admin import AdminTables

        found = self._player(name)
        gone = self._act("sign-out-everywhere", found.name, "", AdminTables.end_sign_ins, found.id)
        self.out(f"signed {found.name} out everywhere: {gone} session(s) and token(s) ended")

    def games(self, live: bool, limit: int) -> None:
        from dorf.server.storage.admin import AdminTables

        rows = self._run(AdminTables.games, live, limit)
        self.out(f"{'id':<14}  {'mode':<12}  {'last move':<25}  seats")
        for g in rows:
            over = "" if not g.finished else "  (over)"
            self.out(f"{g.id:<14}  {g.mode:<12}  {g.updated:<25}  {', '.join(g.seats)}{over}")

    def remove_message(self, game: str, n: int) -> None:
        from dorf.server.storage.talk import TalkTables

        if not any(line.n == n for line in self._run(TalkTables.recent, game, 0)):
            raise AdminError(f"game {game} has no message {n}")
        self._act("remove-message", game, f"message {n}", TalkTables.remove, game, n)
        self.out(f"removed message {n} of game {game}")

    def log_lines(self, limit: int) -> None:
        from dorf.server.storage.admin import AdminTables

        for line in self._run(AdminTables.log_lines, limit):
            detail = f"  {line.detail}" if line.detail else ""
            self.out(f"{_when(line.at)}  {line.action:<20}  {line.target}{detail}")


def admin_main(args: argparse.Namespace) -> int:
    """Run one ``dorf admin`` action: 0, or one line on stderr and 1."""
    if not log.handlers and not logging.getLogger().handlers:  # the action's log line, on stderr
        handler = logging.StreamHandler(sys.stderr)
        handler.setFormatter(logging.Formatter("%(asctime)s %(levelname)s %(name)s: %(message)s"))
        log.addHandler(handler)
        log.setLevel(logging.INFO)
    from dorf.server.storage import chosen_database

    try:
        tables = open_tables(chosen_database(args.db))
        try:
            admin = Admin(tables)
            action = args.action
            if action == "players":
                admin.players(args.find, args.limit)
            elif action == "rename":
                admin.rename(args.old, args.new)
            elif action == "ban":
                admin.ban(args.name, args.reason)
            elif action == "unban":
                admin.unban(args.name)
            elif action == "delete":
                admin.delete(args.name)
            elif action == "reset-password":
                admin.reset_password(args.name, args.base_url, args.hours)
            elif action == "sign-out-everywhere":
                admin.sign_out_everywhere(args.name)
            elif action == "games":
                admin.games(args.live, args.limit)
            elif action == "remove-message":
                admin.remove_message(args.game, args.n)
            else:
                admin.log_lines(args.limit)
        finally:
            tables.close()
    except AdminError as exc:
        print(f"dorf admin: {exc}", file=sys.stderr)
        return 1
    return 0


__all__ = ["LINK_HOURS", "Admin", "AdminError", "add_admin_parser", "admin_main", "open_tables"]
