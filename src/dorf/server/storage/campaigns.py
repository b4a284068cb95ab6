"""The campaigns' rows, written once for both databases (issue 63): a campaign of the site, its
members, its games, its way along the track, and the seats of its next game.  Each function runs
in the caller's transaction (:class:`~dorf.server.storage.sql.Sql`); what a campaign's rules make
of the rows (how far a game's circles go, what it unlocks) is the feature's
(:mod:`dorf.server.campaigns`), which reads them with :meth:`CampaignTables.load` and writes what
it decided with the other calls, in one transaction.

A campaign is named by a random id (``/campaigns/ID``); its name is the group's and need not be
unique on the site (only among one player's campaigns).  The join code of its link is kept as it
is (its members see the link again on the campaign's page), and so is the invitation of each
member's seat in the campaign's next game, shown to that member alone until it is used.
Campaigns kept from the server's SQLite file of before (``kept``: where they came from) have no
member until a player opens one by its old address.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

from dorf.server.storage.sql import Sql

#: The campaigns' tables (a step of :data:`dorf.server.storage.schema.SCHEMA`).
SCHEMA_STEP = """
    CREATE TABLE server_campaign (
        id TEXT PRIMARY KEY,
        name TEXT NOT NULL,
        sheet TEXT NOT NULL,
        created TEXT NOT NULL,
        archived INTEGER NOT NULL DEFAULT 0 CHECK (archived IN (0, 1)),
        banked INTEGER NOT NULL DEFAULT 0 CHECK (banked >= 0),
        join_code TEXT NOT NULL,
        next_game TEXT,
        kept TEXT
    );
    CREATE UNIQUE INDEX server_campaign_by_kept ON server_campaign (kept);
    CREATE TABLE server_campaign_member (
        campaign_id TEXT NOT NULL REFERENCES server_campaign (id) ON DELETE CASCADE,
        player_id TEXT NOT NULL,
        joined TEXT NOT NULL,
        PRIMARY KEY (campaign_id, player_id)
    );
    CREATE INDEX server_campaign_member_by_player ON server_campaign_member (player_id);
    CREATE TABLE server_campaign_game (
        campaign_id TEXT NOT NULL REFERENCES server_campaign (id) ON DELETE CASCADE,
        number INTEGER NOT NULL CHECK (number >= 1),
        played TEXT NOT NULL,
        source TEXT NOT NULL CHECK (source IN ('pad', 'record')),
        players TEXT NOT NULL,
        breakdown TEXT NOT NULL,
        total INTEGER NOT NULL CHECK (total >= 0),
        circles INTEGER NOT NULL CHECK (circles >= 0),
        record TEXT,
        record_key TEXT,
        game_ref TEXT,
        recorded TEXT NOT NULL,
        PRIMARY KEY (campaign_id, number),
        UNIQUE (campaign_id, record_key),
        UNIQUE (campaign_id, game_ref)
    );
    CREATE TABLE server_campaign_step (
        campaign_id TEXT NOT NULL REFERENCES server_campaign (id) ON DELETE CASCADE,
        position INTEGER NOT NULL CHECK (position >= 1),
        node TEXT NOT NULL,
        game_number INTEGER,
        reached TEXT NOT NULL,
        PRIMARY KEY (campaign_id, position),
        UNIQUE (campaign_id, node)
    );
    CREATE TABLE server_campaign_choice (
        campaign_id TEXT NOT NULL REFERENCES server_campaign (id) ON DELETE CASCADE,
        fork TEXT NOT NULL,
        branch TEXT NOT NULL,
        game_number INTEGER,
        made TEXT NOT NULL,
        PRIMARY KEY (campaign_id, fork)
    );
    CREATE TABLE server_campaign_achievement (
        campaign_id TEXT NOT NULL REFERENCES server_campaign (id) ON DELETE CASCADE,
        achievement TEXT NOT NULL,
        game_number INTEGER NOT NULL,
        PRIMARY KEY (campaign_id, achievement)
    );
    CREATE TABLE server_campaign_unlock (
        campaign_id TEXT NOT NULL REFERENCES server_campaign (id) ON DELETE CASCADE,
        seq INTEGER NOT NULL,
        item TEXT NOT NULL,
        source TEXT NOT NULL CHECK (source IN ('track', 'achievement')),
        ref TEXT NOT NULL,
        game_number INTEGER,
        unlocked TEXT NOT NULL,
        PRIMARY KEY (campaign_id, source, ref)
    );
    CREATE TABLE server_campaign_seat (
        campaign_id TEXT NOT NULL REFERENCES server_campaign (id) ON DELETE CASCADE,
        game_id TEXT NOT NULL,
        seat INTEGER NOT NULL CHECK (seat >= 0),
        player_id TEXT NOT NULL,
        invite TEXT,
        PRIMARY KEY (game_id, seat)
    );
    CREATE INDEX server_campaign_seat_by_campaign ON server_campaign_seat (campaign_id);
    CREATE TABLE server_campaign_import (source TEXT PRIMARY KEY, at TEXT NOT NULL)
"""

CAMPAIGN_COLUMNS = "id, name, sheet, created, archived, banked, join_code, next_game, kept"


@dataclass(frozen=True)
class CampaignRow:
    """A campaign's own row."""

    id: str
    name: str
    sheet: str
    created: str
    archived: bool
    banked: int
    join_code: str
    next_game: str | None
    kept: str | None


@dataclass(frozen=True)
class GameRow:
    """A game recorded in a campaign (its pad as JSON)."""

    number: int
    played: str
    source: str
    players: tuple[str, ...]
    breakdown: dict[str, Any]
    circles: int
    recorded: str
    game_ref: str | None = None


@dataclass(frozen=True)
class UnlockRow:
    item: str
    source: str
    ref: str
    game_number: int | None
    unlocked: str


@dataclass(frozen=True)
class SeatRow:
    """A member's seat in a campaign's game: its invitation while nobody took it."""

    game_id: str
    seat: int
    player_id: str
    invite: str | None


@dataclass
class CampaignRows:
    """Everything stored of one campaign."""

    campaign: CampaignRow
    members: list[str] = field(default_factory=list)
    games: list[GameRow] = field(default_factory=list)
    reached: list[str] = field(default_factory=list)
    choices: dict[str, str] = field(default_factory=dict)
    achieved: dict[str, int] = field(default_factory=dict)
    unlocks: list[UnlockRow] = field(default_factory=list)
    seats: list[SeatRow] = field(default_factory=list)


@dataclass(frozen=True)
class CampaignLine:
    """One campaign as a player's list shows it."""

    campaign: CampaignRow
    games: int
    best: int | None
    last_played: str | None
    members: int


@dataclass(frozen=True)
class NewGame:
    """A game to record: its row's values (the feature decided them)."""

    number: int
    played: str
    source: str
    players: tuple[str, ...]
    breakdown: dict[str, Any]
    total: int
    circles: int
    record: str | None
    record_key: str | None
    game_ref: str | None
    recorded: str


def _campaign(row: Any) -> CampaignRow:
    cid, name, sheet, created, archived, banked, code, next_game, kept = row
    return CampaignRow(cid, name, sheet, created, bool(archived), int(banked), code, next_game, kept)


class CampaignTables:
    """A campaign's rows; each method runs in the caller's transaction."""

    @staticmethod
    def create(sql: Sql, row: CampaignRow, player_id: str | None, joined: str) -> None:
        """Store a new campaign, its creator its first member (None: nobody yet, a kept one)."""
        sql(
            f"INSERT INTO server_campaign ({CAMPAIGN_COLUMNS}) VALUES ({sql.marks(9)})",
            (
                row.id,
                row.name,
                row.sheet,
                row.created,
                int(row.archived),
                row.banked,
                row.join_code,
                row.next_game,
                row.kept,
            ),
        )
        if player_id is not None:
            CampaignTables.add_member(sql, row.id, player_id, joined)

    @staticmethod
    def add_member(sql: Sql, campaign_id: str, player_id: str, joined: str) -> bool:
        """``player_id`` joins the campaign: whether they were not a member before."""
        added = sql(
            "INSERT INTO server_campaign_member (campaign_id, player_id, joined) VALUES (%s, %s, %s)"
            " ON CONFLICT DO NOTHING",
            (campaign_id, player_id, joined),
        ).rowcount
        return bool(added == 1)

    @staticmethod
    def named(sql: Sql, player_id: str, name: str) -> str | None:
        """The name of the player's campaign called ``name`` (case ignored), if any."""
        row = sql(
            "SELECT c.name FROM server_campaign c JOIN server_campaign_member m ON m.campaign_id = c.id"
            " WHERE m.player_id = %s AND lower(c.name) = lower(%s)",
            (player_id, name),
        ).fetchone()
        return None if row is None else str(row[0])

    @staticmethod
    def find(sql: Sql, key: str, player_id: str | None, lock: bool = False) -> CampaignRow | None:
        """The campaign ``key`` names: its id; else the name of one of the player's campaigns;
        else the old name of a kept campaign nobody has taken yet (case ignored)."""
        held = sql.lock if lock else ""
        row = sql(f"SELECT {CAMPAIGN_COLUMNS} FROM server_campaign WHERE id = %s{held}", (key,)).fetchone()
        if row is None and player_id is not None:
            row = sql(
                f"SELECT {CAMPAIGN_COLUMNS} FROM server_campaign WHERE id IN (SELECT c.id FROM"
                " server_campaign c JOIN server_campaign_member m ON m.campaign_id = c.id"
                f" WHERE m.player_id = %s AND lower(c.name) = lower(%s)) ORDER BY created{held}",
                (player_id, key),
            ).fetchone()
        if row is None:
            row = sql(
                f"SELECT {CAMPAIGN_COLUMNS} FROM server_campaign WHERE kept IS NOT NULL"
                " AND lower(name) = lower(%s) AND NOT EXISTS (SELECT 1 FROM server_campaign_member m"
                f" WHERE m.campaign_id = server_campaign.id) ORDER BY created{held}",
                (key,),
            ).fetchone()
        return None if row is None else _campaign(row)

    @staticmethod
    def members(sql: Sql, campaign_id: str) -> list[str]:
        """The members' player ids, in the order they joined."""
        rows = sql(
            "SELECT player_id FROM server_campaign_member WHERE campaign_id = %s ORDER BY joined, player_id",
            (campaign_id,),
        ).fetchall()
        return [str(r[0]) for r in rows]

    @staticmethod
    def mine(sql: Sql, player_id: str) -> list[CampaignLine]:
        """The player's campaigns, the oldest first."""
        rows = sql(
            f"SELECT {', '.join('c.' + c for c in CAMPAIGN_COLUMNS.split(', '))},"
            " (SELECT count(*) FROM server_campaign_game g WHERE g.campaign_id = c.id),"
            " (SELECT max(total) FROM server_campaign_game g WHERE g.campaign_id = c.id),"
            " (SELECT max(played) FROM server_campaign_game g WHERE g.campaign_id = c.id),"
            " (SELECT count(*) FROM server_campaign_member o WHERE o.campaign_id = c.id)"
            " FROM server_campaign c JOIN server_campaign_member m ON m.campaign_id = c.id"
            " WHERE m.player_id = %s ORDER BY c.created, c.id",
            (player_id,),
        ).fetchall()
        return [
            CampaignLine(
                _campaign(r[:9]), int(r[9]), None if r[10] is None else int(r[10]), r[11], int(r[12])
            )
            for r in rows
        ]

    @staticmethod
    def load(sql: Sql, campaign: CampaignRow) -> CampaignRows:
        """Every row of ``campaign``."""
        cid = campaign.id
        rows = CampaignRows(campaign, CampaignTables.members(sql, cid))
        for r in sql(
            "SELECT number, played, source, players, breakdown, circles, recorded, game_ref"
            " FROM server_campaign_game WHERE campaign_id = %s ORDER BY number",
            (cid,),
        ).fetchall():
            players, breakdown = tuple(json.loads(r[3])), json.loads(r[4])
            rows.games.append(GameRow(int(r[0]), r[1], r[2], players, breakdown, int(r[5]), r[6], r[7]))
        rows.reached = [
            str(r[0])
            for r in sql(
                "SELECT node FROM server_campaign_step WHERE campaign_id = %s ORDER BY position", (cid,)
            ).fetchall()
        ]
        rows.choices = {
            str(r[0]): str(r[1])
            for r in sql(
                "SELECT fork, branch FROM server_campaign_choice WHERE campaign_id = %s", (cid,)
            ).fetchall()
        }
        rows.achieved = {
            str(r[0]): int(r[1])
            for r in sql(
                "SELECT achievement, game_number FROM server_campaign_achievement WHERE campaign_id = %s",
                (cid,),
            ).fetchall()
        }
        rows.unlocks = [
            UnlockRow(r[0], r[1], r[2], None if r[3] is None else int(r[3]), r[4])
            for r in sql(
                "SELECT item, source, ref, game_number, unlocked FROM server_campaign_unlock"
                " WHERE campaign_id = %s ORDER BY seq",
                (cid,),
            ).fetchall()
        ]
        if campaign.next_game is not None:
            rows.seats = CampaignTables.seats(sql, campaign.next_game)
        return rows

    @staticmethod
    def seen_game(sql: Sql, campaign_id: str, record_key: str, game_ref: str | None) -> int | None:
        """The number of the campaign's game with this key or id, if it holds one."""
        row = sql(
            "SELECT number FROM server_campaign_game WHERE campaign_id = %s"
            " AND (record_key = %s OR game_ref = %s)",
            (campaign_id, record_key, game_ref),
        ).fetchone()
        return None if row is None else int(row[0])

    @staticmethod
    def add_game(sql: Sql, campaign_id: str, game: NewGame) -> None:
        sql(
            "INSERT INTO server_campaign_game (campaign_id, number, played, source, players, breakdown,"
            f" total, circles, record, record_key, game_ref, recorded) VALUES ({sql.marks(12)})",
            (
                campaign_id,
                game.number,
                game.played,
                game.source,
                json.dumps(list(game.players)),
                json.dumps(game.breakdown),
                game.total,
                game.circles,
                game.record,
                game.record_key,
                game.game_ref,
                game.recorded,
            ),
        )

    @staticmethod
    def add_step(sql: Sql, campaign_id: str, position: int, node: str, number: int | None, when: str) -> None:
        sql(
            "INSERT INTO server_campaign_step (campaign_id, position, node, game_number, reached)"
            " VALUES (%s, %s, %s, %s, %s)",
            (campaign_id, position, node, number, when),
        )

    @staticmethod
    def add_choice(sql: Sql, campaign_id: str, fork: str, branch: str, number: int | None, when: str) -> None:
        sql(
            "INSERT INTO server_campaign_choice (campaign_id, fork, branch, game_number, made)"
            " VALUES (%s, %s, %s, %s, %s) ON CONFLICT DO NOTHING",
            (campaign_id, fork, branch, number, when),
        )

    @staticmethod
    def add_achievement(sql: Sql, campaign_id: str, achievement: str, number: int) -> None:
        sql(
            "INSERT INTO server_campaign_achievement (campaign_id, achievement, game_number)"
            " VALUES (%s, %s, %s)",
            (campaign_id, achievement, number),
        )

    @staticmethod
    def add_unlock(sql: Sql, campaign_id: str, unlock: UnlockRow) -> None:
        sql(
            "INSERT INTO server_campaign_unlock (campaign_id, seq, item, source, ref, game_number, unlocked)"
            " VALUES (%s, (SELECT coalesce(max(seq), 0) + 1 FROM server_campaign_unlock"
            " WHERE campaign_id = %s), %s, %s, %s, %s, %s)",
            (
                campaign_id,
                campaign_id,
                unlock.item,
                unlock.source,
                unlock.ref,
                unlock.game_number,
                unlock.unlocked,
            ),
        )

    @staticmethod
    def set_banked(sql: Sql, campaign_id: str, banked: int) -> None:
        sql("UPDATE server_campaign SET banked = %s WHERE id = %s", (banked, campaign_id))

    @staticmethod
    def rename(sql: Sql, campaign_id: str, name: str) -> None:
        sql("UPDATE server_campaign SET name = %s WHERE id = %s", (name, campaign_id))

    @staticmethod
    def archive(sql: Sql, campaign_id: str, archived: bool) -> None:
        sql("UPDATE server_campaign SET archived = %s WHERE id = %s", (int(archived), campaign_id))

    @staticmethod
    def start_next(sql: Sql, campaign_id: str, game_id: str, seats: list[SeatRow]) -> None:
        """The campaign's next game is ``game_id``, its seats the members'."""
        sql("UPDATE server_campaign SET next_game = %s WHERE id = %s", (game_id, campaign_id))
        sql.many(
            "INSERT INTO server_campaign_seat (campaign_id, game_id, seat, player_id, invite)"
            " VALUES (%s, %s, %s, %s, %s)",
            [(campaign_id, s.game_id, s.seat, s.player_id, s.invite) for s in seats],
        )

    @staticmethod
    def seats(sql: Sql, game_id: str) -> list[SeatRow]:
        return [
            SeatRow(r[0], int(r[1]), r[2], r[3])
            for r in sql(
                "SELECT game_id, seat, player_id, invite FROM server_campaign_seat WHERE game_id = %s"
                " ORDER BY seat",
                (game_id,),
            ).fetchall()
        ]

    @staticmethod
    def seat_taken(sql: Sql, game_id: str, seat: int) -> None:
        """A member took their seat: its invitation is forgotten."""
        sql("UPDATE server_campaign_seat SET invite = NULL WHERE game_id = %s AND seat = %s", (game_id, seat))

    @staticmethod
    def campaign_of_game(sql: Sql, game_id: str) -> str | None:
        """The campaign a game was started for by its "Next game" (None: none)."""
        row = sql("SELECT campaign_id FROM server_campaign_seat WHERE game_id = %s", (game_id,)).fetchone()
        return None if row is None else str(row[0])

    @staticmethod
    def was_imported(sql: Sql, source: str) -> bool:
        """Whether the old campaign file ``source`` was copied already."""
        return sql("SELECT 1 FROM server_campaign_import WHERE source = %s", (source,)).fetchone() is not None

    @staticmethod
    def imported(sql: Sql, source: str, at: str) -> bool:
        """Mark ``source`` (an old campaign file) imported: whether it was not before (then the
        caller copies its campaigns in the same transaction)."""
        sql.hold(f"campaign-import:{source}")
        return bool(
            sql(
                "INSERT INTO server_campaign_import (source, at) VALUES (%s, %s) ON CONFLICT DO NOTHING",
                (source, at),
            ).rowcount
            == 1
        )


__all__ = [
    "SCHEMA_STEP",
    "CampaignLine",
    "CampaignRow",
    "CampaignRows",
    "CampaignTables",
    "GameRow",
    "NewGame",
    "SeatRow",
    "UnlockRow",
]
