"""The campaigns of before, kept: until issue 63 the server kept its campaigns in the tables of
:mod:`dorf.campaign.store` in its SQLite file (with PostgreSQL, in the SQLite file of ``$DORF_DB``
or the default one), visible to everyone.  When a server starts, it copies the campaigns of that
file into its own tables once (the file is marked copied in ``server_campaign_import``; the old
tables stay as they are, for ``dorf campaign`` in the terminal).  Nobody is known to own them:
each kept campaign has no member until the first player who opens it by its old address
(``/campaigns/NAME``) takes it; then it is theirs as if they had made it, and they invite the
others by its link.  The log names each one kept.
"""

from __future__ import annotations

import json
import logging
import secrets
import sqlite3
from pathlib import Path
from typing import Any
from urllib.parse import quote

from dorf.server.campaigns import ledger
from dorf.server.storage.campaigns import CampaignRow, CampaignTables, NewGame, UnlockRow
from dorf.server.storage.sql import Sql

log = logging.getLogger("dorf.server")


def read_old(path: Path) -> list[dict[str, Any]]:
    """The campaigns in the old tables of a SQLite file (none if it has none); the file is opened
    read-only, never created."""
    if not path.is_file():
        return []
    try:
        conn = sqlite3.connect(f"{path.resolve().as_uri()}?mode=ro", uri=True)
    except sqlite3.Error:
        return []
    try:
        conn.row_factory = sqlite3.Row
        if (
            conn.execute("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'campaign'").fetchone()
            is None
        ):
            return []
        campaigns = []
        for c in conn.execute("SELECT * FROM campaign ORDER BY id").fetchall():
            cid = c["id"]
            games = conn.execute(
                "SELECT * FROM campaign_game WHERE campaign_id = ? ORDER BY number", (cid,)
            ).fetchall()
            numbers = {g["id"]: g["number"] for g in games}
            campaigns.append(
                {
                    "row": dict(c),
                    "games": [dict(g) for g in games],
                    "steps": [
                        (r["position"], r["node"], numbers.get(r["game_id"]), r["reached"])
                        for r in conn.execute(
                            "SELECT * FROM campaign_progress WHERE campaign_id = ? ORDER BY position", (cid,)
                        )
                    ],
                    "choices": [
                        (r["fork"], r["branch"], numbers.get(r["game_id"]), r["made"])
                        for r in conn.execute("SELECT * FROM campaign_choice WHERE campaign_id = ?", (cid,))
                    ],
                    "achievements": [
                        (r["achievement"], numbers[r["game_id"]])
                        for r in conn.execute(
                            "SELECT * FROM campaign_achievement WHERE campaign_id = ?", (cid,)
                        )
                        if r["game_id"] in numbers
                    ],
                    "unlocks": [
                        UnlockRow(r["item"], r["source"], r["ref"], numbers.get(r["game_id"]), r["unlocked"])
                        for r in conn.execute(
                            "SELECT * FROM campaign_unlock WHERE campaign_id = ? ORDER BY unlocked, rowid",
                            (cid,),
                        )
                    ],
                }
            )
        return campaigns
    except sqlite3.Error as exc:
        log.warning("dorf: the campaigns of %s cannot be read (%s): none kept", path, exc)
        return []
    finally:
        conn.close()


def keep(sql: Sql, source: str, campaigns: list[dict[str, Any]]) -> list[CampaignRow]:
    """Copy ``campaigns`` (of :func:`read_old`) into the server's tables, once for ``source``:
    the campaigns kept (none if ``source`` was copied before)."""
    if not CampaignTables.imported(sql, source, ledger.now()):
        return []
    kept = []
    for old in campaigns:
        c = old["row"]
        row = CampaignRow(
            secrets.token_urlsafe(8),
            c["name"],
            c["sheet"],
            c["created"],
            bool(c["archived"]),
            int(c["banked"]),
            secrets.token_urlsafe(12),
            None,
            f"{source}#{c['id']}",
        )
        CampaignTables.create(sql, row, None, row.created)
        for g in old["games"]:
            CampaignTables.add_game(
                sql,
                row.id,
                NewGame(
                    g["number"],
                    g["played"],
                    g["source"],
                    tuple(json.loads(g["players"])),
                    json.loads(g["breakdown"]),
                    g["total"],
                    g["circles"],
                    g["record"],
                    g["record_key"],
                    g.get("game_ref"),
                    g["recorded"],
                ),
            )
        for position, node, number, reached in old["steps"]:
            CampaignTables.add_step(sql, row.id, position, node, number, reached)
        for fork, branch, number, made in old["choices"]:
            CampaignTables.add_choice(sql, row.id, fork, branch, number, made)
        for achievement, number in old["achievements"]:
            CampaignTables.add_achievement(sql, row.id, achievement, number)
        for unlock in old["unlocks"]:
            CampaignTables.add_unlock(sql, row.id, unlock)
        kept.append(row)
    return kept


def announce(kept: list[CampaignRow], source: str) -> None:
    for row in kept:
        log.warning(
            "dorf: campaign %r kept from %s; it is nobody's yet: the first player to open"
            " /campaigns/%s (or /campaigns/%s) takes it",
            row.name,
            source,
            quote(row.name),
            row.id,
        )


__all__ = ["announce", "keep", "read_old"]
