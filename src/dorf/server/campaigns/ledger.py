"""A campaign's rules over its stored rows: each function here is one transaction's work
(``await storage.people(work, ...)``, run in the storage's thread), reading the rows with
:class:`~dorf.server.storage.campaigns.CampaignTables`, deciding with the campaign's sheet
(:mod:`dorf.campaign.sheet`, the same rules as the terminal's ``dorf campaign``) and writing what
changed.  Who may do what is checked here too, in the same transaction: only a member reads or
changes a campaign (:func:`member_campaign`).
"""

from __future__ import annotations

import hmac
import logging
from collections.abc import Sequence
from datetime import UTC, date, datetime

from dorf.campaign.pad import pad_from_json, pad_json
from dorf.campaign.sheet import Sheet, Walk, parse_sheet
from dorf.campaign.store import (
    CampaignError,
    CampaignInfo,
    CampaignView,
    Change,
    FinishedGame,
    GameEntry,
    Unlock,
    check_name,
    progress_of,
    wanted_branches,
)
from dorf.server.protocol.messages import ProtocolError
from dorf.server.storage.campaigns import (
    CampaignRow,
    CampaignRows,
    CampaignTables,
    NewGame,
    SeatRow,
    UnlockRow,
)
from dorf.server.storage.sql import Sql

log = logging.getLogger("dorf.server")

#: What a player who is not a member is told.
NOT_YOURS = "this campaign is not yours: its members invite others by its link"

_SHEETS: dict[str, Sheet] = {}


def now() -> str:
    return datetime.now(UTC).isoformat(timespec="seconds")


def joined_now() -> str:
    """When a member joins, to the microsecond: the members are listed (and seated) in the order
    they joined."""
    return datetime.now(UTC).isoformat(timespec="microseconds")


def sheet_of(text: str) -> Sheet:
    """A stored sheet, parsed once."""
    if text not in _SHEETS:
        _SHEETS[text] = parse_sheet(text, "stored sheet")
    return _SHEETS[text]


def refused(exc: ValueError) -> ProtocolError:
    return ProtocolError("campaign", str(exc))


def member_campaign(sql: Sql, key: str, player_id: str | None, lock: bool = False) -> CampaignRow:
    """The campaign ``key`` names, if ``player_id`` is one of its members: else ``no-campaign``
    (404) or ``not-a-member`` (403).  A campaign kept from before (no member yet) is taken by the
    first player who opens it."""
    row = CampaignTables.find(sql, key, player_id, lock)
    if row is None:
        raise ProtocolError("no-campaign", f"no campaign {key!r} among yours", 404)
    members = CampaignTables.members(sql, row.id)
    if player_id is not None and player_id in members:
        return row
    if player_id is not None and row.kept is not None and not members:
        CampaignTables.add_member(sql, row.id, player_id, joined_now())
        log.info("dorf: campaign %r kept from before is taken by its first visitor", row.name)
        return row
    raise ProtocolError("not-a-member", NOT_YOURS, 403)


def claimable(sql: Sql, key: str) -> bool:
    """Whether ``key`` names a campaign kept from before that nobody has taken yet."""
    row = CampaignTables.find(sql, key, None)
    return row is not None and row.kept is not None and not CampaignTables.members(sql, row.id)


def view_of(rows: CampaignRows) -> CampaignView:
    """The campaign as :mod:`dorf.campaign.store` shows one (its pictures are drawn from it)."""
    c = rows.campaign
    sheet = sheet_of(c.sheet)
    games = tuple(
        GameEntry(g.number, g.played, g.source, g.players, pad_from_json(g.breakdown), g.circles, g.recorded)
        for g in rows.games
    )
    info = CampaignInfo(
        0,
        c.name,
        sheet.name,
        c.created,
        c.archived,
        len(games),
        max((g.total for g in games), default=None),
        max((g.played for g in games), default=None),
    )
    unlocks = tuple(Unlock(u.item, u.source, u.ref, u.game_number, u.unlocked) for u in rows.unlocks)
    progress = progress_of(sheet, rows.reached, rows.choices, c.banked)
    return CampaignView(info, sheet, games, progress, unlocks, dict(rows.achieved))


def create(sql: Sql, row: CampaignRow, player_id: str) -> CampaignRow:
    """A new campaign of ``player_id`` (its name unique among the player's campaigns)."""
    try:
        name = check_name(row.name)
    except CampaignError as exc:
        raise refused(exc) from None
    clash = CampaignTables.named(sql, player_id, name)
    if clash is not None:
        raise ProtocolError("campaign", f"a campaign named {clash!r} already exists (names ignore case)")
    made = CampaignRow(row.id, name, row.sheet, row.created, False, 0, row.join_code, None, None)
    CampaignTables.create(sql, made, player_id, joined_now())
    return made


def load(sql: Sql, key: str, player_id: str | None) -> CampaignRows:
    """Everything of a campaign of the player's."""
    return CampaignTables.load(sql, member_campaign(sql, key, player_id))


def join(sql: Sql, key: str, code: str, player_id: str, most: int) -> tuple[CampaignRow, bool]:
    """``player_id`` joins the campaign ``key`` with its link's code: the campaign, and whether
    the player is new to it (at most ``most`` members: a cooperative game's seats)."""
    row = CampaignTables.find(sql, key, None, lock=True)
    if row is None or not hmac.compare_digest(row.join_code, code):
        raise ProtocolError("bad-code", "this campaign link is not valid (ask its members for theirs)", 403)
    members = CampaignTables.members(sql, row.id)
    if player_id in members:
        return row, False
    if len(members) >= most:
        raise ProtocolError("full", f"this campaign has {most} members already (a game's seats)", 409)
    return row, CampaignTables.add_member(sql, row.id, player_id, joined_now())


def rename(sql: Sql, key: str, player_id: str | None, name: str) -> CampaignRow:
    row = member_campaign(sql, key, player_id, lock=True)
    try:
        name = check_name(name, "the new name")
    except CampaignError as exc:
        raise refused(exc) from None
    clash = None if player_id is None else CampaignTables.named(sql, player_id, name)
    if clash is not None and clash.lower() != row.name.lower():
        raise ProtocolError("campaign", f"a campaign named {clash!r} already exists (names ignore case)")
    CampaignTables.rename(sql, row.id, name)
    return CampaignTables.find(sql, row.id, None) or row


def archive(sql: Sql, key: str, player_id: str | None, archived: bool) -> CampaignRow:
    row = member_campaign(sql, key, player_id, lock=True)
    if row.archived == archived:
        raise ProtocolError(
            "campaign", f"campaign {row.name!r} is {'already' if archived else 'not'} archived"
        )
    CampaignTables.archive(sql, row.id, archived)
    return CampaignTables.find(sql, row.id, None) or row


def record(
    sql: Sql, key: str, player_id: str | None, finished: FinishedGame, branches: Sequence[str]
) -> Change:
    """Record a finished game in a campaign (``player_id`` None: the server itself, for the
    campaign's own next game): its circles walk the track, its achievements are checked."""
    row = (
        member_campaign(sql, key, player_id, lock=True)
        if player_id is not None
        else CampaignTables.find(sql, key, None, lock=True)
    )
    if row is None:
        raise ProtocolError("no-campaign", f"no campaign {key!r}", 404)
    if row.archived:
        raise ProtocolError("campaign", f"campaign {row.name!r} is archived: unarchive it to record games")
    rows = CampaignTables.load(sql, row)
    sheet = sheet_of(row.sheet)
    pad = finished.pad
    try:
        sheet.limits.check(pad)
        dup = CampaignTables.seen_game(sql, row.id, finished.key, finished.game_id)
        if dup is not None:
            raise CampaignError(f"this game is already recorded in {row.name!r} as game {dup}")
        wanted = wanted_branches(sheet, rows.reached, rows.choices, branches)
        earned = sheet.circles_for(pad.total)
        walk = sheet.advance(rows.reached, earned + row.banked, {**rows.choices, **wanted})
        unused = [b for fork, b in wanted.items() if fork not in walk.taken]
        if unused:
            stop = (rows.reached + list(walk.reached) or ["the start"])[-1]
            raise CampaignError(
                f"branch {unused[0]} is not reached by this game's circles (they stop at {stop})"
            )
    except (CampaignError, ValueError) as exc:
        raise refused(exc) from None
    number = len(rows.games) + 1
    when, played = now(), date.today().isoformat()
    CampaignTables.add_game(
        sql,
        row.id,
        NewGame(
            number,
            played,
            "record",
            finished.players,
            pad_json(pad),
            pad.total,
            earned,
            finished.record,
            finished.key,
            finished.game_id,
            when,
        ),
    )
    unlocked = _walk(sql, sheet, row.id, len(rows.reached), walk, number, when)
    achieved = []
    for achievement in sheet.achievements:
        if achievement.id in rows.achieved or not achievement.condition.holds(pad):
            continue
        achieved.append(achievement.id)
        CampaignTables.add_achievement(sql, row.id, achievement.id, number)
        if achievement.unlocks:
            unlock = UnlockRow(achievement.unlocks, "achievement", achievement.id, number, when)
            CampaignTables.add_unlock(sql, row.id, unlock)
            unlocked.append(Unlock(unlock.item, unlock.source, unlock.ref, number, when))
    game = GameEntry(number, played, "record", finished.players, pad, earned, when)
    return _change(sheet, game, walk, unlocked, achieved)


def choose(sql: Sql, key: str, player_id: str | None, branch: str) -> Change:
    """Choose ``branch`` at the fork where the campaign waits; the circles banked there walk on."""
    row = member_campaign(sql, key, player_id, lock=True)
    if row.archived:
        raise ProtocolError("campaign", f"campaign {row.name!r} is archived: unarchive it to choose")
    rows = CampaignTables.load(sql, row)
    sheet = sheet_of(row.sheet)
    progress = progress_of(sheet, rows.reached, rows.choices, row.banked)
    if progress.waiting is None:
        where = progress.reached[-1] if progress.reached else "the start"
        raise ProtocolError(
            "campaign", f"no fork is waiting for a choice in {row.name!r} (the track is at {where})"
        )
    if branch not in progress.options:
        raise ProtocolError(
            "campaign",
            f"{branch!r} is not a branch of fork {progress.waiting}: choose {', '.join(progress.options)}",
        )
    walk = sheet.advance(progress.reached, row.banked, {**progress.choices, progress.waiting: branch})
    unlocked = _walk(sql, sheet, row.id, len(progress.reached), walk, None, now())
    return _change(sheet, None, walk, unlocked, [])


def _walk(
    sql: Sql, sheet: Sheet, campaign_id: str, before: int, walk: Walk, number: int | None, when: str
) -> list[Unlock]:
    for fork, branch in walk.taken.items():
        CampaignTables.add_choice(sql, campaign_id, fork, branch, number, when)
    unlocked = []
    for offset, node in enumerate(walk.reached, 1):
        CampaignTables.add_step(sql, campaign_id, before + offset, node, number, when)
        label = sheet.nodes[node].unlocks
        if label:
            CampaignTables.add_unlock(sql, campaign_id, UnlockRow(label, "track", node, number, when))
            unlocked.append(Unlock(label, "track", node, number, when))
    CampaignTables.set_banked(sql, campaign_id, walk.left if walk.waiting is not None else 0)
    return unlocked


def _change(
    sheet: Sheet, game: GameEntry | None, walk: Walk, unlocked: list[Unlock], achieved: list[str]
) -> Change:
    banked = walk.left if walk.waiting is not None else 0
    lost = walk.left if walk.at_end else 0
    options = sheet.successors[walk.waiting] if walk.waiting is not None else ()
    return Change(game, walk.reached, tuple(unlocked), tuple(achieved), walk.waiting, options, banked, lost)


def start_next(
    sql: Sql, key: str, player_id: str, game_id: str, seats: list[SeatRow], before: str | None
) -> None:
    """The campaign's next game is made: its seats the members'.  Only if its next game is still
    ``before`` (two members who press Next game at once: the second is refused)."""
    row = member_campaign(sql, key, player_id, lock=True)
    if row.next_game != before:
        raise ProtocolError("next-waiting", "another member has just started the campaign's next game", 409)
    CampaignTables.start_next(sql, row.id, game_id, seats)


def next_members(sql: Sql, key: str, player_id: str | None) -> tuple[CampaignRow, list[str]]:
    """The campaign and its members, for its next game (refused if archived, or if its next game
    waits for a member still)."""
    row = member_campaign(sql, key, player_id)
    if row.archived:
        raise ProtocolError("campaign", f"campaign {row.name!r} is archived: unarchive it to play")
    return row, CampaignTables.members(sql, row.id)
