"""Campaigns kept in the shared SQLite database (:mod:`dorf.db`).

:class:`Campaigns` is the whole API, for the terminal and for a future web
page alike: plain methods that take names and pads and return frozen data
with an ``as_json()``.  Every change runs in one transaction, so a bad input
(:class:`CampaignError`, :class:`~dorf.campaign.pad.PadError`,
:class:`~dorf.campaign.sheet.SheetError`) records nothing.

>>> campaigns = Campaigns.open(":memory:")
>>> _ = campaigns.create("Family")
>>> pad = read_pad({"tasks": {"forest": 15, "river": 11}, "longest_river": 9}, Limits.base())
>>> result = campaigns.record("Family", pad, played=date(2026, 11, 1))
>>> result.game.number, result.game.total, result.game.circles, result.reached
(1, 35, 1, ('c1',))
"""

from __future__ import annotations

import hashlib
import json
import sqlite3
import unicodedata
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from datetime import UTC, date, datetime
from pathlib import Path
from typing import Any

from dorf.campaign.pad import Limits, pad_from_json, pad_json, read_pad  # noqa: F401 (doctest)
from dorf.campaign.sheet import FORK, Achievement, Sheet, Walk, default_sheet, parse_sheet
from dorf.db import connect, migrate, transaction
from dorf.rules.scoring import ScorePad

#: The campaign tables, one step per schema version (see :func:`dorf.db.migrate`).
SCHEMA: tuple[str, ...] = (
    """
    CREATE TABLE campaign (
        id INTEGER PRIMARY KEY,
        name TEXT NOT NULL UNIQUE COLLATE NOCASE,
        sheet TEXT NOT NULL,
        created TEXT NOT NULL,
        archived INTEGER NOT NULL DEFAULT 0 CHECK (archived IN (0, 1)),
        banked INTEGER NOT NULL DEFAULT 0 CHECK (banked >= 0)
    );
    CREATE TABLE campaign_game (
        id INTEGER PRIMARY KEY,
        campaign_id INTEGER NOT NULL REFERENCES campaign (id) ON DELETE CASCADE,
        number INTEGER NOT NULL CHECK (number >= 1),
        played TEXT NOT NULL,
        source TEXT NOT NULL CHECK (source IN ('pad', 'record')),
        players TEXT NOT NULL,
        breakdown TEXT NOT NULL,
        total INTEGER NOT NULL CHECK (total >= 0),
        circles INTEGER NOT NULL CHECK (circles >= 0),
        record TEXT,
        record_key TEXT,
        recorded TEXT NOT NULL,
        UNIQUE (campaign_id, number),
        UNIQUE (campaign_id, record_key)
    );
    CREATE TABLE campaign_progress (
        campaign_id INTEGER NOT NULL REFERENCES campaign (id) ON DELETE CASCADE,
        position INTEGER NOT NULL CHECK (position >= 1),
        node TEXT NOT NULL,
        game_id INTEGER REFERENCES campaign_game (id) ON DELETE CASCADE,
        reached TEXT NOT NULL,
        PRIMARY KEY (campaign_id, position),
        UNIQUE (campaign_id, node)
    );
    CREATE TABLE campaign_choice (
        campaign_id INTEGER NOT NULL REFERENCES campaign (id) ON DELETE CASCADE,
        fork TEXT NOT NULL,
        branch TEXT NOT NULL,
        game_id INTEGER REFERENCES campaign_game (id) ON DELETE CASCADE,
        made TEXT NOT NULL,
        PRIMARY KEY (campaign_id, fork)
    );
    CREATE TABLE campaign_achievement (
        campaign_id INTEGER NOT NULL REFERENCES campaign (id) ON DELETE CASCADE,
        achievement TEXT NOT NULL,
        game_id INTEGER NOT NULL REFERENCES campaign_game (id) ON DELETE CASCADE,
        PRIMARY KEY (campaign_id, achievement)
    );
    CREATE TABLE campaign_unlock (
        campaign_id INTEGER NOT NULL REFERENCES campaign (id) ON DELETE CASCADE,
        item TEXT NOT NULL,
        source TEXT NOT NULL CHECK (source IN ('track', 'achievement')),
        ref TEXT NOT NULL,
        game_id INTEGER REFERENCES campaign_game (id) ON DELETE CASCADE,
        unlocked TEXT NOT NULL,
        PRIMARY KEY (campaign_id, source, ref)
    );
    CREATE INDEX campaign_game_by_campaign ON campaign_game (campaign_id, number)
    """,
    """
    ALTER TABLE campaign_game ADD COLUMN game_ref TEXT;
    CREATE UNIQUE INDEX campaign_game_by_ref ON campaign_game (campaign_id, game_ref)
    """,
)
MAX_NAME = 60
MAX_PLAYERS = 6
MAX_PLAYER_NAME = 40


class CampaignError(ValueError):
    """A campaign request that cannot be carried out; the message is one line."""


def _now() -> str:
    return datetime.now(UTC).isoformat(timespec="seconds")


def check_name(name: str, what: str = "a campaign name") -> str:
    """A campaign name: 1 to 60 printable characters, not starting with '-'; trimmed."""
    name = name.strip()
    if not name:
        raise CampaignError(f"{what} cannot be empty")
    if len(name) > MAX_NAME:
        raise CampaignError(f"{what} is at most {MAX_NAME} characters")
    if any(unicodedata.category(ch).startswith("C") for ch in name):
        raise CampaignError(f"{what} cannot hold control characters")
    if name.startswith("-"):
        raise CampaignError(f"{what} cannot start with '-'")
    return name


def check_players(players: Iterable[str]) -> tuple[str, ...]:
    names = tuple(p.strip() for p in players)
    if len(names) > MAX_PLAYERS:
        raise CampaignError(f"the cooperative game is for 1 to {MAX_PLAYERS} players, not {len(names)}")
    for name in names:
        if (
            not name
            or len(name) > MAX_PLAYER_NAME
            or any(unicodedata.category(c).startswith("C") for c in name)
        ):
            raise CampaignError(f"player name {name!r}: 1 to {MAX_PLAYER_NAME} printable characters")
    return names


@dataclass(frozen=True)
class CampaignInfo:
    """One campaign as ``dorf campaign list`` shows it."""

    id: int
    name: str
    sheet_name: str
    created: str
    archived: bool
    games: int
    best: int | None
    last_played: str | None

    def as_json(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "sheet": self.sheet_name,
            "created": self.created,
            "archived": self.archived,
            "games": self.games,
            "best": self.best,
            "last_played": self.last_played,
        }


@dataclass(frozen=True)
class GameEntry:
    """A recorded game: its number in the campaign, date, pad and the circles it earned."""

    number: int
    played: str
    source: str
    players: tuple[str, ...]
    pad: ScorePad
    circles: int
    recorded: str

    @property
    def total(self) -> int:
        return self.pad.total

    def as_json(self) -> dict[str, Any]:
        return {
            "number": self.number,
            "played": self.played,
            "source": self.source,
            "players": list(self.players),
            "pad": pad_json(self.pad),
            "circles": self.circles,
            "recorded": self.recorded,
        }


@dataclass(frozen=True)
class Unlock:
    """Something unlocked: by reaching a track node or by an achievement, in game ``game``
    (None: by a fork choice made between games)."""

    item: str
    source: str
    ref: str
    game: int | None
    unlocked: str

    def as_json(self) -> dict[str, Any]:
        return {"item": self.item, "source": self.source, "ref": self.ref, "game": self.game}


@dataclass(frozen=True)
class Progress:
    """Where a campaign stands on its track.

    ``reached``: every node checked or reached, in order; ``waiting``: the fork
    that needs a choice now (``options`` its branches), with ``banked``
    circles waiting there; ``at_end``: the track is complete.
    """

    reached: tuple[str, ...]
    checked: int
    track_circles: int
    banked: int
    waiting: str | None
    options: tuple[str, ...]
    next: str | None
    at_end: bool
    choices: dict[str, str] = field(default_factory=dict)

    def as_json(self) -> dict[str, Any]:
        return {
            "reached": list(self.reached),
            "checked": self.checked,
            "track_circles": self.track_circles,
            "banked": self.banked,
            "waiting": self.waiting,
            "options": list(self.options),
            "next": self.next,
            "at_end": self.at_end,
            "choices": dict(self.choices),
        }


@dataclass(frozen=True)
class CampaignView:
    """Everything ``dorf campaign show`` prints (and a web page would draw)."""

    info: CampaignInfo
    sheet: Sheet
    games: tuple[GameEntry, ...]
    progress: Progress
    unlocks: tuple[Unlock, ...]
    achieved: dict[str, int]

    @property
    def achievements(self) -> tuple[tuple[Achievement, int | None], ...]:
        """Each achievement of the sheet with the game that first met it (None: not yet)."""
        return tuple((a, self.achieved.get(a.id)) for a in self.sheet.achievements)

    def as_json(self) -> dict[str, Any]:
        totals = [g.total for g in self.games]
        return {
            **self.info.as_json(),
            "bands": [[b.min_score, b.circles] for b in self.sheet.bands],
            "games": [g.as_json() for g in self.games],
            "totals": {
                "games": len(totals),
                "best": max(totals, default=None),
                "mean": round(sum(totals) / len(totals), 1) if totals else None,
                "circles": sum(g.circles for g in self.games),
            },
            "progress": self.progress.as_json(),
            "unlocked": [u.as_json() for u in self.unlocks],
            "achievements": [
                {
                    "id": a.id,
                    "name": a.name,
                    "condition": a.condition.text,
                    "words": a.condition.words,
                    "unlocks": a.unlocks,
                    "game": game,
                }
                for a, game in self.achievements
            ],
        }


@dataclass(frozen=True)
class Change:
    """What one ``record`` or ``choose`` did to a campaign."""

    game: GameEntry | None
    reached: tuple[str, ...]
    unlocked: tuple[Unlock, ...]
    achieved: tuple[str, ...]
    waiting: str | None
    options: tuple[str, ...]
    banked: int
    lost: int

    def as_json(self) -> dict[str, Any]:
        return {
            "game": None if self.game is None else self.game.as_json(),
            "reached": list(self.reached),
            "unlocked": [u.as_json() for u in self.unlocked],
            "achieved": list(self.achieved),
            "waiting": self.waiting,
            "options": list(self.options),
            "banked": self.banked,
            "lost": self.lost,
        }


@dataclass(frozen=True)
class FinishedGame:
    """A finished cooperative game read from a ``dorf-record/1`` file.

    ``key`` names the game by its seed and decisions, ``game_id`` by the id the server gave
    it (if it came from a server): a campaign holds a game once, whichever way it comes.
    """

    pad: ScorePad
    players: tuple[str, ...]
    record: str
    key: str
    game_id: str | None = None


def game_key(tileset: str, seed: int, moves: list[list[int]]) -> str:
    """The key of a cooperative game: its tile set, seed and placements (``[q, r, rot]``)."""
    text = json.dumps({"tileset": tileset, "seed": seed, "moves": moves}, sort_keys=True)
    return hashlib.sha256(text.encode()).hexdigest()


def refuse_practice(record: dict[str, Any], where: str) -> None:
    """A practice game (undo allowed) never goes into a campaign."""
    if record.get("practice") is True:
        raise CampaignError(f"{where}a practice game (undo was allowed): it cannot go into a campaign")


def refuse_chosen_seed(record: dict[str, Any], where: str) -> None:
    """A game whose creator chose its seed (and so could know every tile) never goes into a
    campaign: the server's records say ``"seed_chosen": true``."""
    if record.get("seed_chosen") is True:
        raise CampaignError(
            f"{where}this game's seed was chosen by whoever created it (who could know every tile):"
            " it cannot go into a campaign"
        )


def read_finished_record(path: str | Path) -> FinishedGame:
    """Replay a record file; it must be a finished cooperative game."""
    from dorf.formats.record import RecordError, load_record, replay_record
    from dorf.games.coop import CoopState
    from dorf.games.modes import MODES

    try:
        data = load_record(path)
        refuse_practice(data, f"{path}: ")
        refuse_chosen_seed(data, f"{path}: ")
        mode = data.get("mode")
        if not (isinstance(mode, str) and mode in MODES and MODES[mode].campaign):
            raise CampaignError(
                f"{path}: only cooperative games go into a campaign (this record is {data.get('mode')!r})"
            )
        state = replay_record(data)
    except RecordError as exc:
        raise CampaignError(f"{path}: {exc}") from None
    # Only the cooperative game has a campaign (its mode was checked above): it keeps that game's
    # own score pad and placements.
    assert isinstance(state, CoopState)
    if not state.is_over:
        raise CampaignError(f"{path}: the game is not finished ({len(state.decisions)} tiles placed)")
    game = state.game
    moves = [[p.at.q, p.at.r, p.rot] for p in state.decisions]
    players = check_players(str(p) for p in data["players"])
    game_id = data.get("game_id")
    return FinishedGame(
        state.score(),
        players,
        json.dumps(data, sort_keys=True),
        game_key(game.tileset.name, game.seed, moves),
        game_id if isinstance(game_id, str) and game_id else None,
    )


def parse_date(text: str) -> date:
    """``YYYY-MM-DD``, or :class:`CampaignError`."""
    try:
        if len(text) != 10:
            raise ValueError
        return date.fromisoformat(text)
    except ValueError:
        raise CampaignError(f"date {text!r} is not a date YYYY-MM-DD") from None


def progress_of(sheet: Sheet, reached: Sequence[str], choices: dict[str, str], banked: int) -> Progress:
    """Where a campaign on ``sheet`` stands, from the nodes it reached (in order), the branches
    chosen at its forks and the circles banked at a fork (the terminal's store and the
    server's read their rows and ask this)."""
    reached = list(reached)
    cursor = reached[-1] if reached else None
    nexts = (sheet.start,) if cursor is None else sheet.successors[cursor]
    waiting = None
    options: tuple[str, ...] = ()
    upcoming: str | None = nexts[0] if len(nexts) == 1 else None
    if cursor is not None and sheet.nodes[cursor].kind == FORK:
        if cursor in choices:
            upcoming = choices[cursor]
        else:
            waiting, options = cursor, nexts
    checked = sum(sheet.nodes[n].cost for n in reached)
    return Progress(
        tuple(reached),
        checked,
        sheet.track_circles,
        banked,
        waiting,
        options,
        upcoming,
        not nexts,
        choices,
    )


class Campaigns:
    """The campaigns in one database file; open with :meth:`open`, close with :meth:`close`."""

    def __init__(self, conn: sqlite3.Connection) -> None:
        self.conn = conn
        conn.row_factory = sqlite3.Row
        migrate(conn, "campaign", SCHEMA)
        self._sheets: dict[str, Sheet] = {}

    @classmethod
    def open(cls, path: str | Path | None = None) -> Campaigns:
        """Open the database at ``path`` (default: :func:`dorf.db.default_path`)."""
        return cls(connect(path))

    def close(self) -> None:
        self.conn.close()

    def __enter__(self) -> Campaigns:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # --- reading -----------------------------------------------------------------------

    def _sheet(self, text: str) -> Sheet:
        if text not in self._sheets:
            self._sheets[text] = parse_sheet(text, "stored sheet")
        return self._sheets[text]

    def _row(self, name: str) -> sqlite3.Row:
        row = self.conn.execute("SELECT * FROM campaign WHERE name = ?", (name.strip(),)).fetchone()
        if row is None:
            known = [r[0] for r in self.conn.execute("SELECT name FROM campaign ORDER BY id")]
            hint = f" (campaigns: {', '.join(known)})" if known else " (there are no campaigns yet)"
            raise CampaignError(f"no campaign named {name!r}{hint}")
        assert isinstance(row, sqlite3.Row)
        return row

    def _info(self, row: sqlite3.Row) -> CampaignInfo:
        games, best, last = self.conn.execute(
            "SELECT count(*), max(total), max(played) FROM campaign_game WHERE campaign_id = ?", (row["id"],)
        ).fetchone()
        return CampaignInfo(
            row["id"],
            row["name"],
            self._sheet(row["sheet"]).name,
            row["created"],
            bool(row["archived"]),
            games,
            best,
            last,
        )

    def info(self, name: str) -> CampaignInfo:
        return self._info(self._row(name))

    def listing(self, include_archived: bool = False) -> list[CampaignInfo]:
        """The campaigns, oldest first; archived ones only with ``include_archived``."""
        rows = self.conn.execute("SELECT * FROM campaign ORDER BY id").fetchall()
        return [self._info(r) for r in rows if include_archived or not r["archived"]]

    def sheet(self, name: str) -> Sheet:
        return self._sheet(self._row(name)["sheet"])

    def games(self, name: str) -> tuple[GameEntry, ...]:
        return self._games(self._row(name)["id"])

    def _games(self, campaign_id: int) -> tuple[GameEntry, ...]:
        rows = self.conn.execute(
            "SELECT number, played, source, players, breakdown, circles, recorded FROM campaign_game"
            " WHERE campaign_id = ? ORDER BY number",
            (campaign_id,),
        ).fetchall()
        return tuple(
            GameEntry(r[0], r[1], r[2], tuple(json.loads(r[3])), pad_from_json(json.loads(r[4])), r[5], r[6])
            for r in rows
        )

    def _reached(self, campaign_id: int) -> list[str]:
        rows = self.conn.execute(
            "SELECT node FROM campaign_progress WHERE campaign_id = ? ORDER BY position", (campaign_id,)
        )
        return [r[0] for r in rows]

    def _choices(self, campaign_id: int) -> dict[str, str]:
        rows = self.conn.execute(
            "SELECT fork, branch FROM campaign_choice WHERE campaign_id = ?", (campaign_id,)
        )
        return {r[0]: r[1] for r in rows}

    def _progress(self, sheet: Sheet, campaign_id: int, banked: int) -> Progress:
        return progress_of(sheet, self._reached(campaign_id), self._choices(campaign_id), banked)

    def progress(self, name: str) -> Progress:
        row = self._row(name)
        return self._progress(self._sheet(row["sheet"]), row["id"], row["banked"])

    def view(self, name: str) -> CampaignView:
        row = self._row(name)
        sheet = self._sheet(row["sheet"])
        campaign_id = row["id"]
        numbers = dict(
            self.conn.execute("SELECT id, number FROM campaign_game WHERE campaign_id = ?", (campaign_id,))
        )
        unlocks = tuple(
            Unlock(r[0], r[1], r[2], numbers.get(r[3]), r[4])
            for r in self.conn.execute(
                "SELECT item, source, ref, game_id, unlocked FROM campaign_unlock WHERE campaign_id = ?"
                " ORDER BY unlocked, rowid",
                (campaign_id,),
            )
        )
        achieved = {
            r[0]: numbers[r[1]]
            for r in self.conn.execute(
                "SELECT achievement, game_id FROM campaign_achievement WHERE campaign_id = ?", (campaign_id,)
            )
        }
        return CampaignView(
            self._info(row),
            sheet,
            self._games(campaign_id),
            self._progress(sheet, campaign_id, row["banked"]),
            unlocks,
            achieved,
        )

    # --- changing ----------------------------------------------------------------------

    def create(self, name: str, sheet: Sheet | None = None) -> CampaignInfo:
        """A new campaign on ``sheet`` (default: the shipped sheet); its text is stored with it."""
        name = check_name(name)
        sheet = sheet or default_sheet()
        with transaction(self.conn):
            clash = self.conn.execute("SELECT name FROM campaign WHERE name = ?", (name,)).fetchone()
            if clash is not None:
                raise CampaignError(f"a campaign named {clash[0]!r} already exists (names ignore case)")
            self.conn.execute(
                "INSERT INTO campaign (name, sheet, created) VALUES (?, ?, ?)", (name, sheet.text, _now())
            )
        return self.info(name)

    def rename(self, old: str, new: str) -> CampaignInfo:
        new = check_name(new, "the new name")
        with transaction(self.conn):
            row = self._row(old)
            clash = self.conn.execute("SELECT id, name FROM campaign WHERE name = ?", (new,)).fetchone()
            if clash is not None and clash[0] != row["id"]:
                raise CampaignError(f"a campaign named {clash[1]!r} already exists (names ignore case)")
            self.conn.execute("UPDATE campaign SET name = ? WHERE id = ?", (new, row["id"]))
        return self.info(new)

    def archive(self, name: str, archived: bool = True) -> CampaignInfo:
        """Set a campaign aside (hidden from ``list``, closed to new games), or bring it back."""
        with transaction(self.conn):
            row = self._row(name)
            if bool(row["archived"]) == archived:
                raise CampaignError(
                    f"campaign {row['name']!r} is {'already' if archived else 'not'} archived"
                )
            self.conn.execute("UPDATE campaign SET archived = ? WHERE id = ?", (int(archived), row["id"]))
        return self.info(name)

    def record(
        self,
        name: str,
        pad: ScorePad,
        *,
        played: date | None = None,
        players: Sequence[str] = (),
        branches: Sequence[str] = (),
        finished: FinishedGame | None = None,
    ) -> Change:
        """Record a finished game and spend its circles on the track.

        ``branches`` name the branch to take at each fork this game's circles
        reach (a fork without one stops the walk; its circles wait for
        :meth:`choose`).  ``finished`` is the record the pad came from, if any.
        """
        when = (played or date.today()).isoformat()
        players = check_players(players)
        with transaction(self.conn):
            row = self._row(name)
            if row["archived"]:
                raise CampaignError(f"campaign {row['name']!r} is archived: unarchive it to record games")
            sheet = self._sheet(row["sheet"])
            sheet.limits.check(pad)  # a sheet may raise the base box's limits
            campaign_id = row["id"]
            if finished is not None:
                dup = self.conn.execute(
                    "SELECT number FROM campaign_game WHERE campaign_id = ? AND record_key = ?",
                    (campaign_id, finished.key),
                ).fetchone()
                if dup is None and finished.game_id is not None:
                    dup = self.conn.execute(
                        "SELECT number FROM campaign_game WHERE campaign_id = ? AND game_ref = ?",
                        (campaign_id, finished.game_id),
                    ).fetchone()
                if dup is not None:
                    raise CampaignError(f"this game is already recorded in {row['name']!r} as game {dup[0]}")
            reached = self._reached(campaign_id)
            choices = self._choices(campaign_id)
            wanted = self._branches(sheet, reached, choices, branches)
            earned = sheet.circles_for(pad.total)
            walk = sheet.advance(reached, earned + row["banked"], {**choices, **wanted})
            unused = [b for fork, b in wanted.items() if fork not in walk.taken]
            if unused:
                stop = (list(reached) + list(walk.reached) or ["the start"])[-1]
                raise CampaignError(
                    f"branch {unused[0]} is not reached by this game's circles (they stop at {stop})"
                )
            number = (
                1
                + self.conn.execute(
                    "SELECT count(*) FROM campaign_game WHERE campaign_id = ?", (campaign_id,)
                ).fetchone()[0]
            )
            recorded = _now()
            cursor = self.conn.execute(
                "INSERT INTO campaign_game (campaign_id, number, played, source, players, breakdown, total,"
                " circles, record, record_key, game_ref, recorded)"
                " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                (
                    campaign_id,
                    number,
                    when,
                    "pad" if finished is None else "record",
                    json.dumps(list(players)),
                    json.dumps(pad_json(pad)),
                    pad.total,
                    earned,
                    None if finished is None else finished.record,
                    None if finished is None else finished.key,
                    None if finished is None else finished.game_id,
                    recorded,
                ),
            )
            game_id = cursor.lastrowid
            assert game_id is not None
            unlocked = self._apply_walk(sheet, campaign_id, len(reached), walk, game_id, number, recorded)
            done = {
                r[0]
                for r in self.conn.execute(
                    "SELECT achievement FROM campaign_achievement WHERE campaign_id = ?", (campaign_id,)
                )
            }
            achieved = []
            for achievement in sheet.achievements:
                if achievement.id in done or not achievement.condition.holds(pad):
                    continue
                achieved.append(achievement.id)
                self.conn.execute(
                    "INSERT INTO campaign_achievement (campaign_id, achievement, game_id) VALUES (?, ?, ?)",
                    (campaign_id, achievement.id, game_id),
                )
                if achievement.unlocks:
                    unlocked.append(
                        self._unlock(
                            campaign_id,
                            achievement.unlocks,
                            "achievement",
                            achievement.id,
                            game_id,
                            number,
                            recorded,
                        )
                    )
            game = GameEntry(
                number, when, "pad" if finished is None else "record", players, pad, earned, recorded
            )
            return self._change(sheet, campaign_id, game, walk, unlocked, achieved)

    def choose(self, name: str, branch: str) -> Change:
        """Choose ``branch`` at the fork where the campaign waits, and spend the circles banked there."""
        with transaction(self.conn):
            row = self._row(name)
            if row["archived"]:
                raise CampaignError(f"campaign {row['name']!r} is archived: unarchive it to choose")
            sheet = self._sheet(row["sheet"])
            campaign_id = row["id"]
            progress = self._progress(sheet, campaign_id, row["banked"])
            if progress.waiting is None:
                where = progress.reached[-1] if progress.reached else "the start"
                raise CampaignError(
                    f"no fork is waiting for a choice in {row['name']!r} (the track is at {where})"
                )
            if branch not in progress.options:
                raise CampaignError(
                    f"{branch!r} is not a branch of fork {progress.waiting}: choose {_or(progress.options)}"
                )
            walk = sheet.advance(
                progress.reached, row["banked"], {**progress.choices, progress.waiting: branch}
            )
            recorded = _now()
            unlocked = self._apply_walk(sheet, campaign_id, len(progress.reached), walk, None, None, recorded)
            return self._change(sheet, campaign_id, None, walk, unlocked, [])

    @staticmethod
    def _branches(
        sheet: Sheet, reached: Sequence[str], choices: dict[str, str], branches: Sequence[str]
    ) -> dict[str, str]:
        wanted: dict[str, str] = {}
        for branch in branches:
            if branch not in sheet.nodes:
                raise CampaignError(f"branch {branch!r}: the track has no node {branch!r}")
            fork = sheet.fork_of(branch)
            if fork is None:
                raise CampaignError(f"{branch!r} does not start a fork's branch")
            if fork in wanted:
                raise CampaignError(f"two branches given for fork {fork}: {wanted[fork]} and {branch}")
            if fork in choices:
                raise CampaignError(
                    f"fork {fork} is already decided: the campaign took branch {choices[fork]}"
                )
            if fork in reached[:-1]:
                raise CampaignError(f"fork {fork} is already behind the campaign")
            wanted[fork] = branch
        return wanted

    def _unlock(
        self,
        campaign_id: int,
        item: str,
        source: str,
        ref: str,
        game_id: int | None,
        number: int | None,
        when: str,
    ) -> Unlock:
        self.conn.execute(
            "INSERT INTO campaign_unlock (campaign_id, item, source, ref, game_id, unlocked)"
            " VALUES (?, ?, ?, ?, ?, ?)",
            (campaign_id, item, source, ref, game_id, when),
        )
        return Unlock(item, source, ref, number, when)

    def _apply_walk(
        self,
        sheet: Sheet,
        campaign_id: int,
        before: int,
        walk: Walk,
        game_id: int | None,
        number: int | None,
        when: str,
    ) -> list[Unlock]:
        for fork, branch in walk.taken.items():
            self.conn.execute(
                "INSERT INTO campaign_choice (campaign_id, fork, branch, game_id, made)"
                " VALUES (?, ?, ?, ?, ?) ON CONFLICT DO NOTHING",
                (campaign_id, fork, branch, game_id, when),
            )
        unlocked = []
        for offset, node in enumerate(walk.reached, 1):
            self.conn.execute(
                "INSERT INTO campaign_progress (campaign_id, position, node, game_id, reached)"
                " VALUES (?, ?, ?, ?, ?)",
                (campaign_id, before + offset, node, game_id, when),
            )
            label = sheet.nodes[node].unlocks
            if label:
                unlocked.append(self._unlock(campaign_id, label, "track", node, game_id, number, when))
        banked = walk.left if walk.waiting is not None else 0
        self.conn.execute("UPDATE campaign SET banked = ? WHERE id = ?", (banked, campaign_id))
        return unlocked

    def _change(
        self,
        sheet: Sheet,
        campaign_id: int,
        game: GameEntry | None,
        walk: Walk,
        unlocked: list[Unlock],
        achieved: list[str],
    ) -> Change:
        banked = walk.left if walk.waiting is not None else 0
        lost = walk.left if walk.at_end else 0
        options = sheet.successors[walk.waiting] if walk.waiting is not None else ()
        return Change(
            game, walk.reached, tuple(unlocked), tuple(achieved), walk.waiting, options, banked, lost
        )


def wanted_branches(
    sheet: Sheet, reached: Sequence[str], choices: dict[str, str], branches: Sequence[str]
) -> dict[str, str]:
    """The branch to take at each fork that ``branches`` name (:class:`CampaignError` if one is
    not a branch, or its fork is decided or behind the campaign)."""
    return Campaigns._branches(sheet, reached, choices, branches)


def _or(names: Sequence[str]) -> str:
    names = list(names)
    return names[0] if len(names) == 1 else ", ".join(names[:-1]) + " or " + names[-1]


__all__ = [
    "SCHEMA",
    "CampaignError",
    "CampaignInfo",
    "CampaignView",
    "Campaigns",
    "Change",
    "FinishedGame",
    "GameEntry",
    "Progress",
    "Unlock",
    "check_name",
    "parse_date",
    "progress_of",
    "read_finished_record",
    "wanted_branches",
]
