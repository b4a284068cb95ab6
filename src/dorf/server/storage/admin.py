"""What an operator does to players, and a player's own data, on both databases: the SQL of
``dorf admin`` (:mod:`dorf.server.admin`) and of a player's export and deletion
(:mod:`dorf.server.players.privacy`), written once against :class:`~.sql.Sql` and run in one
transaction by either storage (``Storage.people``) or by the command on the tables it opens.

- ``server_player.banned``: why a player is banned (None: it is not), ``banned_at`` since when;
- ``server_sign_in_link``: the hashes of one-time sign-in links (``dorf admin reset-password``),
  each naming one player until ``until`` (seconds since 1970); a link is deleted when it is used;
- ``server_admin_log``: every action of ``dorf admin`` (and each deletion a player asks for),
  with its time, action, target and detail.

Deleting a player (:meth:`AdminTables.delete_player`) removes its row and, with it, its sessions,
password, API tokens, ratings and rating history, name holds and sign-in links (the tables'
``ON DELETE CASCADE``, deleted here by name too), its seeks and open games in the lobby and its
daily results; its games stay, each of its seats named :data:`DELETED_NAME` and linked to nobody
(and so are the lines of table talk it said from them, ``server_talk``).
"""

from __future__ import annotations

import secrets
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from dorf.server.storage.errors import Refused
from dorf.server.storage.rows import name_key, now
from dorf.server.storage.sql import Sql

#: Bans, one-time sign-in links and the administration log (issue 64).
ADMIN_STEP = """
    ALTER TABLE server_player ADD COLUMN banned TEXT;
    ALTER TABLE server_player ADD COLUMN banned_at TEXT;
    CREATE TABLE server_sign_in_link (
        link_hash TEXT PRIMARY KEY,
        player_id TEXT NOT NULL REFERENCES server_player (id) ON DELETE CASCADE,
        until DOUBLE PRECISION NOT NULL
    );
    CREATE INDEX server_sign_in_link_by_player ON server_sign_in_link (player_id);
    CREATE TABLE server_admin_log (
        id TEXT PRIMARY KEY,
        at DOUBLE PRECISION NOT NULL,
        action TEXT NOT NULL,
        target TEXT NOT NULL,
        detail TEXT NOT NULL DEFAULT ''
    );
    CREATE INDEX server_admin_log_by_at ON server_admin_log (at)
"""

#: The name a deleted player's seats take in the games that are kept.
DELETED_NAME = "Deleted player"


@dataclass(frozen=True)
class PlayerLine:
    """A player as ``dorf admin players`` lists it: ``seen`` is the latest of its games' last
    change, its last sign-in and its tokens' last use (ISO 8601; None: never)."""

    id: str
    name: str
    created: str
    seen: str | None
    games: int
    banned: str | None
    bot: bool


@dataclass(frozen=True)
class GameLine:
    """A game as ``dorf admin games`` lists it: its seats' names, and when it last changed."""

    id: str
    mode: str
    seats: tuple[str, ...]
    updated: str
    finished: bool


@dataclass(frozen=True)
class LogLine:
    """One row of ``server_admin_log``."""

    at: float
    action: str
    target: str
    detail: str


_SEEN = (
    "(SELECT max(x) FROM ("
    " SELECT max(g.updated) AS x FROM server_seat s JOIN server_game g ON g.id = s.game_id"
    " WHERE s.player_id = p.id"
    " UNION ALL SELECT max(created) FROM server_session WHERE player_id = p.id"
    " UNION ALL SELECT max(last_used) FROM server_token WHERE player_id = p.id) seen)"
)
_GAMES = "(SELECT count(DISTINCT game_id) FROM server_seat WHERE player_id = p.id)"


def _line(row: Sequence[Any]) -> PlayerLine:
    pid, name, created, seen, games, banned, bot = row
    return PlayerLine(pid, name, created, seen, int(games), banned, bool(bot))


class AdminTables:
    """The operator's and the privacy calls; each runs in the caller's transaction."""

    @staticmethod
    def player(sql: Sql, name: str) -> PlayerLine | None:
        """The player of ``name`` (by its key, as the players' names are compared)."""
        row = sql(
            f"SELECT p.id, p.name, p.created, {_SEEN}, {_GAMES}, p.banned, p.bot"
            " FROM server_player p WHERE p.name_key = %s",
            (name_key(name),),
        ).fetchone()
        return None if row is None else _line(row)

    @staticmethod
    def players(sql: Sql, find: str, limit: int) -> list[PlayerLine]:
        """Players whose name holds ``find`` (ignoring case; empty: every player), the newest first."""
        pattern = "%" + find.lower().replace("\\", "").replace("%", "").replace("_", "") + "%"
        rows = sql(
            f"SELECT p.id, p.name, p.created, {_SEEN}, {_GAMES}, p.banned, p.bot"
            " FROM server_player p WHERE lower(p.name) LIKE %s"
            " ORDER BY p.created DESC, p.id LIMIT %s",
            (pattern, limit),
        ).fetchall()
        return [_line(row) for row in rows]

    @staticmethod
    def ban(sql: Sql, player_id: str, reason: str) -> None:
        """Ban a player: its API tokens and sign-in links end, its seeks and open games leave the
        lobby.  Its sessions' rows stay only so that its browsers are told ``banned`` (they sign
        in nobody); :meth:`unban` ends them."""
        sql(
            "UPDATE server_player SET banned = %s, banned_at = %s WHERE id = %s",
            (reason, now(), player_id),
        )
        sql("DELETE FROM server_token WHERE player_id = %s", (player_id,))
        sql("DELETE FROM server_sign_in_link WHERE player_id = %s", (player_id,))
        sql("DELETE FROM lobby_seek WHERE player = %s", (player_id,))
        sql("DELETE FROM lobby_game WHERE creator = %s", (player_id,))

    @staticmethod
    def unban(sql: Sql, player_id: str) -> None:
        """Lift a ban: the sessions kept to tell the browsers ``banned`` end (the player signs in
        again with its password, or a one-time link)."""
        sql("UPDATE server_player SET banned = NULL, banned_at = NULL WHERE id = %s", (player_id,))
        sql("DELETE FROM server_session WHERE player_id = %s", (player_id,))

    @staticmethod
    def end_sign_ins(sql: Sql, player_id: str) -> int:
        """Sign a player out everywhere: every session, API token and sign-in link ends; how many
        sessions and tokens there were."""
        gone = sql("DELETE FROM server_session WHERE player_id = %s", (player_id,)).rowcount
        gone += sql("DELETE FROM server_token WHERE player_id = %s", (player_id,)).rowcount
        sql("DELETE FROM server_sign_in_link WHERE player_id = %s", (player_id,))
        return int(gone)

    @staticmethod
    def delete_player(sql: Sql, player_id: str) -> int:
        """Delete a player and its data; its games stay, its seats anonymised.  How many seats
        were anonymised."""
        sql(  # what it said at the table stays with the game, under the seat's new name
            "UPDATE server_talk SET name = %s WHERE EXISTS (SELECT 1 FROM server_seat s"
            " WHERE s.game_id = server_talk.game_id AND s.seat = server_talk.seat AND s.player_id = %s)",
            (DELETED_NAME, player_id),
        )
        seats = sql(
            "UPDATE server_seat SET player_id = NULL, name = %s WHERE player_id = %s",
            (DELETED_NAME, player_id),
        ).rowcount
        sql("DELETE FROM lobby_seek WHERE player = %s", (player_id,))
        sql("DELETE FROM lobby_game WHERE creator = %s", (player_id,))
        sql("DELETE FROM server_daily_result WHERE player_id = %s", (player_id,))
        for table in (
            "server_session",
            "server_password",
            "server_token",
            "server_rating",
            "server_rating_game",
            "server_name_hold",
            "server_sign_in_link",
            "server_campaign_member",  # out of its campaigns (their games keep the seat's name)
            "server_campaign_seat",
        ):
            sql(f"DELETE FROM {table} WHERE player_id = %s", (player_id,))
        if sql("DELETE FROM server_player WHERE id = %s", (player_id,)).rowcount != 1:
            raise Refused("there is no such player")
        return int(seats)

    @staticmethod
    def add_link(sql: Sql, player_id: str, link_hash: str, until: float) -> None:
        """A one-time sign-in link (its secret's hash) for the player, good until ``until``; the
        player's earlier links end."""
        sql("DELETE FROM server_sign_in_link WHERE player_id = %s", (player_id,))
        sql(
            "INSERT INTO server_sign_in_link (link_hash, player_id, until) VALUES (%s, %s, %s)",
            (link_hash, player_id, until),
        )

    @staticmethod
    def redeem_link(sql: Sql, link_hash: str, at: float, session_hash: str) -> tuple[str, str] | str:
        """Use a sign-in link once: ``(player id, name)`` with a new session (its secret's hash),
        or why not: ``"unknown"`` (never made, used, or replaced), ``"expired"``, ``"banned"``.
        The link ends in every case.  Used, it resets the password: the old one is forgotten
        (the player sets a new one without it) and every other session ends."""
        row = sql(
            "SELECT l.player_id, l.until, p.name, p.banned FROM server_sign_in_link l"
            f" JOIN server_player p ON p.id = l.player_id WHERE l.link_hash = %s{sql.lock}",
            (link_hash,),
        ).fetchone()
        if row is None:
            return "unknown"
        player_id, until, name, banned = row
        sql("DELETE FROM server_sign_in_link WHERE link_hash = %s", (link_hash,))
        if float(until) <= at:
            return "expired"
        if banned is not None:
            return "banned"
        sql("DELETE FROM server_password WHERE player_id = %s", (player_id,))
        sql("DELETE FROM server_session WHERE player_id = %s", (player_id,))
        sql(
            "INSERT INTO server_session (secret_hash, player_id, created) VALUES (%s, %s, %s)",
            (session_hash, player_id, now()),
        )
        return str(player_id), str(name)

    @staticmethod
    def games(sql: Sql, live: bool, limit: int) -> list[GameLine]:
        """The games changed last (``live``: the unfinished ones only), the latest first."""
        where = "WHERE g.finished = 0" if live else ""
        rows = sql(
            f"SELECT g.id, g.mode, g.updated, g.finished FROM server_game g {where}"
            " ORDER BY g.updated DESC, g.id LIMIT %s",
            (limit,),
        ).fetchall()
        if not rows:
            return []
        ids = [row[0] for row in rows]
        names: dict[str, list[str]] = {gid: [] for gid in ids}
        for gid, name in sql(
            f"SELECT game_id, name FROM server_seat WHERE game_id IN ({sql.marks(len(ids))})"
            " ORDER BY game_id, seat",
            ids,
        ).fetchall():
            names[gid].append(name)
        return [GameLine(g, mode, tuple(names[g]), updated, bool(done)) for g, mode, updated, done in rows]

    @staticmethod
    def log(sql: Sql, at: float, action: str, target: str, detail: str) -> None:
        """Write one line of the administration log."""
        sql(
            "INSERT INTO server_admin_log (id, at, action, target, detail) VALUES (%s, %s, %s, %s, %s)",
            (secrets.token_hex(8), at, action, target, detail),
        )

    @staticmethod
    def log_lines(sql: Sql, limit: int) -> list[LogLine]:
        """The last ``limit`` lines of the administration log, oldest first."""
        rows = sql(
            "SELECT at, action, target, detail FROM server_admin_log ORDER BY at DESC, id LIMIT %s",
            (limit,),
        ).fetchall()
        return [LogLine(float(at), action, target, detail) for at, action, target, detail in reversed(rows)]

    @staticmethod
    def export(sql: Sql, player_id: str) -> dict[str, Any]:
        """Everything stored of a player, as JSON (never a secret nor a secret's hash)."""
        row = sql(
            "SELECT p.name, p.created, p.bot, p.banned, w.set_at FROM server_player p"
            " LEFT JOIN server_password w ON w.player_id = p.id WHERE p.id = %s",
            (player_id,),
        ).fetchone()
        if row is None:
            raise Refused("there is no such player")
        name, created, bot, banned, password_set = row
        sessions = [
            r[0]
            for r in sql(
                "SELECT created FROM server_session WHERE player_id = %s ORDER BY created", (player_id,)
            ).fetchall()
        ]
        tokens = [
            {"id": r[0], "label": r[1], "created": r[2], "last_used": r[3]}
            for r in sql(
                "SELECT id, label, created, last_used FROM server_token WHERE player_id = %s"
                " ORDER BY created, id",
                (player_id,),
            ).fetchall()
        ]
        games: dict[str, dict[str, Any]] = {}
        for gid, mode, g_created, updated, finished, rated, daily, end, seat, seat_name in sql(
            "SELECT g.id, g.mode, g.created, g.updated, g.finished, g.rated, g.daily, g.end_reason,"
            " s.seat, s.name FROM server_seat s JOIN server_game g ON g.id = s.game_id"
            " WHERE s.player_id = %s ORDER BY g.created, g.id, s.seat",
            (player_id,),
        ).fetchall():
            game = games.setdefault(
                gid,
                {
                    "id": gid,
                    "mode": mode,
                    "created": g_created,
                    "updated": updated,
                    "finished": bool(finished),
                    "rated": bool(rated),
                    "daily": daily,
                    "end": end,
                    "seats": [],
                },
            )
            game["seats"].append({"seat": seat, "name": seat_name})
        ratings = [
            {"mode": r[0], "rating": r[1], "rd": r[2], "volatility": r[3], "games": r[4], "played": r[5]}
            for r in sql(
                "SELECT mode, rating, rd, volatility, games, played FROM server_rating"
                " WHERE player_id = %s ORDER BY mode",
                (player_id,),
            ).fetchall()
        ]
        history = [
            {
                "game": r[0],
                "mode": r[1],
                "opponent": r[2],
                "score": r[3],
                "rating_before": r[4],
                "rating_after": r[5],
                "ended": r[6],
                "counted": bool(r[7]),
            }
            for r in sql(
                "SELECT r.game_id, r.mode, coalesce(o.name, %s), r.score, r.rating_before,"
                " r.rating_after, r.ended, r.counted FROM server_rating_game r"
                " LEFT JOIN server_player o ON o.id = r.opponent_id"
                " WHERE r.player_id = %s ORDER BY r.ended, r.game_id",
                (DELETED_NAME, player_id),
            ).fetchall()
        ]
        daily = [
            {"day": r[0], "game": r[1], "score": r[2], "finished": bool(r[3]), "place": r[4], "started": r[5]}
            for r in sql(
                "SELECT day, game_id, score, finished, place, started FROM server_daily_result"
                " WHERE player_id = %s ORDER BY day",
                (player_id,),
            ).fetchall()
        ]
        talk = [
            {"game": r[0], "n": r[1], "seat": r[2], "text": r[3], "said": r[4]}
            for r in sql(
                "SELECT t.game_id, t.n, t.seat, t.text, t.said FROM server_talk t JOIN server_seat s"
                " ON s.game_id = t.game_id AND s.seat = t.seat WHERE s.player_id = %s"
                " ORDER BY t.game_id, t.n",
                (player_id,),
            ).fetchall()
        ]
        return {
            "format": "dorf-player-export/1",
            "exported": now(),
            "player": {
                "name": name,
                "created": created,
                "bot": bool(bot),
                "banned": banned,
                "password_set": password_set,
                "sessions": sessions,
            },
            "tokens": tokens,
            "games": list(games.values()),
            "ratings": ratings,
            "rating_history": history,
            "daily": daily,
            "talk": talk,
        }


__all__ = ["ADMIN_STEP", "DELETED_NAME", "AdminTables", "GameLine", "LogLine", "PlayerLine"]
