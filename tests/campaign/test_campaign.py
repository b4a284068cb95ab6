"""The campaign: pads, the sheet as data, progress along the track, the database, the pictures."""

from __future__ import annotations

import json
import sqlite3
import xml.etree.ElementTree as ET
from datetime import date
from pathlib import Path

import pytest

from dorf.campaign.pad import Limits, PadError, pad_fields, read_pad, sums_of
from dorf.campaign.sheet import (
    Condition,
    SheetError,
    default_sheet,
    default_sheet_text,
    load_sheet,
    parse_sheet,
)
from dorf.campaign.store import CampaignError, Campaigns, read_finished_record
from dorf.campaign.svg import campaign_score_svg, campaign_track_svg
from dorf.db import DatabaseError, connect, default_path, migrate, schema_versions, transaction
from dorf.formats.record import record_of
from dorf.games.coop import CoopGame
from dorf.rules.scoring import ScorePad
from dorf.rules.tiles import load_tileset

SVG = "{http://www.w3.org/2000/svg}"
BASE = Limits.base()
#: A strong game: 156 points, 6 circles on the default sheet.
STRONG = {
    "tasks": {"forest": 26, "grain": 26, "village": 26, "track": 20, "river": 20},
    "flags": {"forest": 12},
    "longest_track": 14,
    "longest_river": 12,
}
#: 45 points: 1 circle.
WEAK = {"tasks": {"forest": 15, "river": 11}, "longest_river": 9, "longest_track": 10}


def pad(data: dict) -> ScorePad:
    return read_pad(data, BASE)


def points(total_tasks: int) -> dict:
    """A pad of exactly ``total_tasks`` forest task points plus nothing else (if possible)."""
    return {"tasks": {"forest": total_tasks}}


def snapshot(campaigns: Campaigns) -> dict[str, list[tuple]]:
    """Every row of every campaign table: to check that a failed request recorded nothing."""
    tables = [
        r[0]
        for r in campaigns.conn.execute(
            "SELECT name FROM sqlite_master WHERE type = 'table' AND name LIKE 'campaign%' ORDER BY name"
        )
    ]
    return {
        t: [tuple(r) for r in campaigns.conn.execute(f"SELECT * FROM {t} ORDER BY rowid")] for t in tables
    }


@pytest.fixture
def campaigns(tmp_path: Path):
    store = Campaigns.open(tmp_path / "dorf.sqlite3")
    yield store
    store.close()


def finished_record(seed: int = 1, players: int = 2) -> dict:
    state = CoopGame(seed=seed, players=players).new_state()
    while not state.is_over:
        state.play(state.legal_placements()[0])
    return record_of(state, [f"P{i + 1}" for i in range(players)])


def walk_to_fork(campaigns: Campaigns, name: str = "C") -> None:
    """Three strong games: 18 circles reach fork f1 with none left over."""
    for _ in range(3):
        campaigns.record(name, pad(STRONG))


# --- the score pad ----------------------------------------------------------------------


def test_marker_sums_of_the_base_box() -> None:
    assert sorted(sums_of([4, 5, 5, 6, 6])) == [0, 4, 5, 6, 9, 10, 11, 12, 14, 15, 16, 17, 20, 21, 22, 26]
    assert BASE.markers["forest"] == (4, 5, 5, 6, 6)


def test_base_limits_count_the_tiles_of_the_box() -> None:
    tiles = load_tileset("base").tiles
    assert BASE.longest_river == sum("R" in t.face for t in tiles)
    assert BASE.longest_track == sum("T" in t.face for t in tiles)
    assert BASE.flags["forest"] == sum("F" in t.face for t in tiles)  # one forest flag tile


def test_a_pad_adds_up() -> None:
    p = pad({**STRONG, "total": 156})
    assert (p.s1, p.s2, p.s3, p.total) == (118, 38, 0, 156)
    assert pad_fields(p)["task_types"] == 5
    assert pad_fields(p)["flag_colours"] == 1


def test_a_pad_from_dorf_score_json_is_accepted() -> None:
    record = finished_record(3)
    expected = record["score"]
    p = read_pad(expected, BASE)
    assert p.total == expected["total"]


@pytest.mark.parametrize(
    ("data", "message"),
    [
        ({"tasks": {"forest": -4}}, "forest tasks -4 is negative"),
        ({"tasks": {"forest": 7}}, "no set of forest markers (4, 5, 5, 6, 6) adds up to 7"),
        ({"tasks": {"river": 27}}, "adds up to 27"),
        ({"tasks": {"grain": 3}}, "adds up to 3"),
        ({"tasks": {"forest": 4.0}}, "must be a whole number"),
        ({"tasks": {"forest": True}}, "must be a whole number"),
        ({"tasks": {"forest": "4"}}, "must be a whole number"),
        ({"tasks": {"lake": 4}}, "unknown 'lake'"),
        ({"tasks": [4]}, "tasks must be an object"),
        ({"flags": {"forest": 500}}, "forest flags 500: more than the box allows"),
        ({"flags": {"grain": -1}}, "negative"),
        ({"longest_river": 99}, "longest river 99: more than the"),
        ({"longest_track": 99}, "longest track 99: more than the"),
        ({"unlocked": -2}, "unlocked (S3) -2 is negative"),
        ({**STRONG, "total": 150}, "total 150 does not add up: S1 118 + S2 38 + S3 0 = 156"),
        ({"score": 3}, "unknown field 'score'"),
        ([1, 2], "must be a JSON object"),
    ],
)
def test_impossible_pads_are_refused(data: object, message: str) -> None:
    with pytest.raises(PadError) as caught:
        read_pad(data, BASE)
    assert message in str(caught.value)
    assert "\n" not in str(caught.value)


# --- the sheet --------------------------------------------------------------------------


def test_default_sheet_reads_and_says_it_is_an_approximation() -> None:
    sheet = default_sheet()
    assert "approximation" in sheet.name
    assert sheet.start == "c1"
    assert [n.unlocks for n in sheet.nodes.values() if n.kind == "green"][:2] == ["box 1", "box 2"]
    assert sum(n.kind == "heart" for n in sheet.nodes.values()) == 3
    assert sum(n.kind == "fork" for n in sheet.nodes.values()) == 2
    assert sheet.track_circles == 51
    assert len(sheet.places) == len(sheet.nodes)


@pytest.mark.parametrize(
    ("score", "circles"), [(0, 1), (59, 1), (60, 2), (99, 3), (100, 4), (156, 6), (999, 12)]
)
def test_score_bands_round_down(score: int, circles: int) -> None:
    assert default_sheet().circles_for(score) == circles


def test_walk_checks_circles_in_order_and_green_hexes_are_free() -> None:
    sheet = default_sheet()
    walk = sheet.advance((), 6)
    assert walk.reached == ("c1", "c2", "c3", "c4", "c5", "c6", "g1")  # g1 right after c6: free
    assert walk.left == 0
    walk = sheet.advance(walk.reached, 1)
    assert walk.reached == ("c7",)


def test_walk_stops_at_a_fork_and_keeps_the_circles() -> None:
    sheet = default_sheet()
    walk = sheet.advance((), 18)  # 17 white circles and a heart; the fork after them is free
    assert walk.reached[-2:] == ("c17", "f1")
    assert (walk.waiting, walk.left) == ("f1", 0)
    walk = sheet.advance(walk.reached, 3)
    assert walk.reached == ()
    assert (walk.waiting, walk.left) == ("f1", 3)
    before = sheet.advance((), 18).reached
    walk = sheet.advance(before, 3, {"f1": "b1"})
    assert walk.reached == ("b1", "b2", "b3", "gb")
    assert walk.taken == {"f1": "b1"}
    with pytest.raises(SheetError, match="c18 is not a branch of fork f1: choose a1 or b1"):
        sheet.advance(before, 3, {"f1": "c18"})


def test_walk_past_the_end_leaves_circles_over() -> None:
    sheet = default_sheet()
    walk = sheet.advance((), 500, {"f1": "a1", "f2": "e1"})
    assert walk.at_end and walk.reached[-1] == "g5"
    assert walk.left == 500 - sheet.track_circles


def test_conditions() -> None:
    condition = Condition.parse("task_types >= 5 and total>=100")
    assert condition.text == "task_types >= 5 and total >= 100"
    assert condition.holds(pad(STRONG))
    assert not condition.holds(pad(WEAK))
    assert Condition.parse("flags.forest == 12").holds(pad(STRONG))
    assert Condition.parse("longest_river < 13 and flags.grain != 1").holds(pad(STRONG))


SMALL = """format\tdorf-campaign-sheet/1
name\tsmall
band\t0\t1
band\t100\t2
node\ts\tcircle
node\tf\tfork
node\tl\tgreen\tbox L
node\tr\theart\ta heart
node\tend\tcircle
path\ts\tf\tl\tend
path\tf\tr\tend
achievement\tbig\ttotal >= 100\tA big game\tthe big prize
"""


def test_a_sheet_without_places_is_laid_out() -> None:
    sheet = parse_sheet(SMALL)
    assert sheet.places == {"s": (0, 0), "f": (1, 0), "l": (2, 0), "r": (2, 1), "end": (3, 0)}
    assert sheet.track_circles == 3


def _broken(old: str, new: str) -> str:
    assert old in SMALL
    return SMALL.replace(old, new)


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("", "empty sheet"),
        (SMALL.replace("format\tdorf-campaign-sheet/1\n", ""), "the first row must be: format"),
        (_broken("dorf-campaign-sheet/1", "dorf-campaign-sheet/2"), "the first row must be"),
        (_broken("name\tsmall\n", ""), "no name row"),
        (_broken("band\t0\t1\nband\t100\t2\n", ""), "no band rows"),
        (_broken("band\t0\t1", "band\t10\t1"), "the first band must start at score 0"),
        (_broken("band\t100\t2", "band\t0\t2"), "bands must go up"),
        (_broken("band\t100\t2", "band\t100\t-2"), "cannot be negative"),
        (_broken("band\t100\t2", "band\tlots\t2"), "'lots' is not a whole number"),
        (_broken("node\ts\tcircle", "node\ts\tsquare"), "unknown kind 'square'"),
        (_broken("node\tl\tgreen\tbox L", "node\tl\tgreen"), "a green node must name what it unlocks"),
        (_broken("node\tend\tcircle", "node\tend\tcircle\nnode\tend\tcircle"), "node end given twice"),
        (_broken("node\ts\tcircle", "node\ts s\tcircle"), "is not an id"),
        (_broken("path\ts\tf\tl\tend", "path\ts\tf\tl\tnowhere"), "unknown node nowhere"),
        (_broken("path\tf\tr\tend", "path\tf\tr\tend\nnode\tx\tcircle"), "node x follows no node"),
        (SMALL + "node\tx\tcircle\npath\tend\tx\tend\n", "the track goes round in a loop"),
        (SMALL + "path\tend\tend\n", "is a loop or given twice"),
        (SMALL + "path\ts\tf\n", "is a loop or given twice"),
        (_broken("path\tf\tr\tend", "path\tf\tr\tend\npath\ts\tr"), "node s leads to 2 nodes"),
        (_broken("path\tf\tr\tend", "path\tl\tr\tend"), "fork f needs at least two branches"),
        (
            _broken("achievement\tbig\ttotal >= 100", "achievement\tbig\tscore >= 100"),
            "unknown field 'score'",
        ),
        (
            _broken("achievement\tbig\ttotal >= 100", "achievement\tbig\ttotal is big"),
            "cannot read condition",
        ),
        (
            _broken("achievement\tbig\ttotal >= 100\tA big game\tthe big prize", "achievement\tbig"),
            "expected: ach",
        ),
        (SMALL + "achievement\tbig\ttotal >= 1\tagain\n", "achievement big given twice"),
        (SMALL + "limit\tlongest_lake\t3\n", "unknown limit 'longest_lake'"),
        (SMALL + "markers\tforest\t4,x\n", "'x' is not a whole number"),
        (SMALL + "markers\tlake\t4\n", "unknown task type 'lake'"),
        (SMALL + "place\ts\t0\t0\n", "node f has no place row"),
        (
            SMALL + "".join(f"place\t{n}\t0\t{i}\n" for i, n in enumerate("sflr")) + "place\tend\t0\t0\n",
            "same place",
        ),
        (SMALL + "colour\tblue\n", "unknown row 'colour'"),
        (SMALL + "name\tagain\n", "name given twice"),
    ],
)
def test_malformed_sheets_are_refused_with_the_line(text: str, message: str) -> None:
    with pytest.raises(SheetError) as caught:
        parse_sheet(text, "my.tsv")
    assert message in str(caught.value)
    assert str(caught.value).startswith("my.tsv")
    assert "\n" not in str(caught.value)


def test_a_branch_must_follow_only_its_fork() -> None:
    text = SMALL.replace("path\tf\tr\tend", "path\tf\tr\tend\nnode\tq\tcircle\npath\ts\tq\tr").replace(
        "path\ts\tf\tl\tend", "path\tf\tl\tend"
    )
    with pytest.raises(SheetError):
        parse_sheet(text)


def test_sheet_files(tmp_path: Path) -> None:
    (tmp_path / "ok.tsv").write_text(SMALL, encoding="utf-8")
    assert load_sheet(tmp_path / "ok.tsv").name == "small"
    (tmp_path / "latin.tsv").write_bytes(SMALL.encode("utf-8") + b"\xff")
    with pytest.raises(SheetError, match="not UTF-8"):
        load_sheet(tmp_path / "latin.tsv")
    with pytest.raises(SheetError, match="cannot read sheet"):
        load_sheet(tmp_path / "missing.tsv")
    (tmp_path / "big.tsv").write_text(SMALL + "#" * 300_000, encoding="utf-8")
    with pytest.raises(SheetError, match="larger than"):
        load_sheet(tmp_path / "big.tsv")


def test_the_default_sheet_text_round_trips() -> None:
    assert parse_sheet(default_sheet_text()).text == default_sheet_text()


# --- the database -----------------------------------------------------------------------


def test_default_path_follows_the_environment(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv("DORF_DB", str(tmp_path / "x.sqlite3"))
    assert default_path() == tmp_path / "x.sqlite3"
    monkeypatch.delenv("DORF_DB")
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "data"))
    assert default_path() == tmp_path / "data" / "dorf" / "dorf.sqlite3"
    monkeypatch.delenv("XDG_DATA_HOME")
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    assert default_path() == tmp_path / "home" / ".local" / "share" / "dorf" / "dorf.sqlite3"


def test_connect_makes_the_default_folder_and_sets_the_file_up(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / "deep" / "er" / "dorf.sqlite3"
    with pytest.raises(DatabaseError, match="no folder"):  # a path given explicitly: no folder made
        connect(path)
    assert not path.parent.exists()
    monkeypatch.setenv("DORF_DB", str(path))  # the default path: its folder is made
    conn = connect()
    assert path.exists()
    assert conn.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    assert conn.execute("PRAGMA foreign_keys").fetchone()[0] == 1
    assert conn.execute("PRAGMA user_version").fetchone()[0] == 1
    conn.close()


def test_components_migrate_independently(tmp_path: Path) -> None:
    conn = connect(tmp_path / "db")
    Campaigns(conn)
    steps = [
        "CREATE TABLE server_session (id INTEGER PRIMARY KEY)",
        "ALTER TABLE server_session ADD COLUMN who TEXT",
    ]
    assert migrate(conn, "server", steps[:1]) == 1
    assert migrate(conn, "server", steps) == 2
    assert schema_versions(conn) == {"campaign": 2, "server": 2}
    with pytest.raises(DatabaseError, match="newer dorf"):
        migrate(conn, "server", steps[:1])
    conn.close()


def test_a_failed_step_leaves_the_version(tmp_path: Path) -> None:
    conn = connect(tmp_path / "db")
    with pytest.raises(sqlite3.Error):
        migrate(conn, "x", ["CREATE TABLE x_a (id INTEGER); CREATE TABLE x_a (id INTEGER)"])
    assert "x" not in schema_versions(conn)
    assert conn.execute("SELECT count(*) FROM sqlite_master WHERE name = 'x_a'").fetchone()[0] == 0
    conn.close()


def test_transaction_rolls_back(tmp_path: Path) -> None:
    conn = connect(tmp_path / "db")
    conn.execute("CREATE TABLE t (v INTEGER)")
    with pytest.raises(RuntimeError), transaction(conn):
        conn.execute("INSERT INTO t VALUES (1)")
        raise RuntimeError
    assert conn.execute("SELECT count(*) FROM t").fetchone()[0] == 0


def test_a_newer_campaign_schema_is_refused(tmp_path: Path) -> None:
    conn = connect(tmp_path / "db")
    conn.execute("INSERT INTO schema_version VALUES ('campaign', 99)")
    with pytest.raises(DatabaseError, match="newer dorf"):
        Campaigns(conn)


def test_a_file_that_is_not_a_database_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "junk.sqlite3"
    path.write_bytes(b"this is not sqlite at all" * 100)
    with pytest.raises(DatabaseError, match="cannot"):
        Campaigns.open(path)


# --- campaigns --------------------------------------------------------------------------


def test_create_list_rename_archive(campaigns: Campaigns) -> None:
    campaigns.create("Family")
    campaigns.create("  Club  ")
    assert [c.name for c in campaigns.listing()] == ["Family", "Club"]
    with pytest.raises(CampaignError, match="a campaign named 'Family' already exists"):
        campaigns.create("FAMILY")
    campaigns.rename("family", "Home")
    campaigns.rename("home", "HOME")  # only the case changes
    with pytest.raises(CampaignError, match="already exists"):
        campaigns.rename("HOME", "club")
    campaigns.archive("HOME")
    assert [c.name for c in campaigns.listing()] == ["Club"]
    assert [(c.name, c.archived) for c in campaigns.listing(include_archived=True)] == [
        ("HOME", True),
        ("Club", False),
    ]
    with pytest.raises(CampaignError, match="already archived"):
        campaigns.archive("HOME")
    campaigns.archive("HOME", archived=False)
    with pytest.raises(CampaignError, match="not archived"):
        campaigns.archive("HOME", archived=False)


@pytest.mark.parametrize(
    ("name", "message"), [("", "empty"), ("x" * 61, "at most 60"), ("a\tb", "control"), ("-x", "'-'")]
)
def test_bad_names(campaigns: Campaigns, name: str, message: str) -> None:
    with pytest.raises(CampaignError, match=message):
        campaigns.create(name)
    assert campaigns.listing(include_archived=True) == []


def test_unknown_campaign(campaigns: Campaigns) -> None:
    with pytest.raises(CampaignError, match="no campaign named 'Nope' \\(there are no campaigns yet\\)"):
        campaigns.view("Nope")
    campaigns.create("Family")
    before = snapshot(campaigns)
    with pytest.raises(CampaignError, match="campaigns: Family"):
        campaigns.record("Nope", pad(STRONG))
    assert snapshot(campaigns) == before


def test_record_spends_circles_and_unlocks(campaigns: Campaigns) -> None:
    campaigns.create("C")
    first = campaigns.record("C", pad(STRONG), played=date(2026, 11, 1), players=["Ann", "Bob"])
    assert first.game is not None
    assert (first.game.number, first.game.total, first.game.circles) == (1, 156, 6)
    assert first.reached == ("c1", "c2", "c3", "c4", "c5", "c6", "g1")
    assert [u.item for u in first.unlocked] == ["box 1"]
    assert (
        "all-types" in first.achieved and "score-150" in first.achieved and "score-200" not in first.achieved
    )
    second = campaigns.record("C", pad(STRONG), played=date(2026, 11, 8))
    assert second.achieved == ()  # each achievement once
    assert [u.item for u in second.unlocked] == ["red heart 1 (box 3)"]
    view = campaigns.view("C")
    assert [g.played for g in view.games] == ["2026-11-01", "2026-11-08"]
    assert view.games[0].players == ("Ann", "Bob")
    assert view.progress.checked == 12 and view.progress.next == "c12"
    assert [(u.item, u.game) for u in view.unlocks] == [("box 1", 1), ("red heart 1 (box 3)", 2)]
    assert dict(view.achieved)["score-100"] == 1
    data = view.as_json()
    assert data["totals"] == {"games": 2, "best": 156, "mean": 156.0, "circles": 12}
    json.dumps(data)


def test_progress_persists_across_connections(tmp_path: Path) -> None:
    path = tmp_path / "dorf.sqlite3"
    with Campaigns.open(path) as campaigns:
        campaigns.create("C")
        walk_to_fork(campaigns)
        campaigns.choose("C", "b1")
        campaigns.record("C", pad(WEAK))
        before = campaigns.view("C").as_json()
    with Campaigns.open(path) as campaigns:
        assert campaigns.view("C").as_json() == before
        assert campaigns.view("C").progress.reached[-2:] == ("f1", "b1")


def test_a_fork_waits_for_a_choice_and_banks_the_circles(campaigns: Campaigns) -> None:
    campaigns.create("C")
    walk_to_fork(campaigns)
    progress = campaigns.progress("C")
    assert (progress.waiting, progress.options, progress.banked) == ("f1", ("a1", "b1"), 0)
    change = campaigns.record("C", pad(WEAK))  # 1 circle: waits at the fork
    assert change.reached == () and change.waiting == "f1" and change.banked == 1
    change = campaigns.record("C", pad(STRONG))  # 6 more: 7 wait
    assert change.banked == 7
    before = snapshot(campaigns)
    with pytest.raises(CampaignError, match="'c18' is not a branch of fork f1: choose a1 or b1"):
        campaigns.choose("C", "c18")
    assert snapshot(campaigns) == before
    change = campaigns.choose("C", "a1")
    assert change.game is None
    assert change.reached == ("a1", "a2", "ga", "a3", "a4", "c18", "c19", "c20")  # 7 circles, ga free
    assert [u.item for u in change.unlocked] == ["achievement card 1 (box 3)"]
    assert campaigns.progress("C").banked == 0
    assert campaigns.view("C").unlocks[-1].game is None
    before = snapshot(campaigns)
    with pytest.raises(
        CampaignError, match="no fork is waiting for a choice in 'C' \\(the track is at c20\\)"
    ):
        campaigns.choose("C", "b1")
    assert snapshot(campaigns) == before


def test_a_choice_at_a_fork_with_no_circles_left(campaigns: Campaigns) -> None:
    campaigns.create("C")
    walk_to_fork(campaigns)
    change = campaigns.choose("C", "b1")
    assert change.reached == ()
    progress = campaigns.progress("C")
    assert progress.waiting is None and progress.next == "b1" and progress.choices == {"f1": "b1"}
    assert campaigns.record("C", pad(WEAK)).reached == ("b1",)


def test_a_branch_given_with_the_game(campaigns: Campaigns) -> None:
    campaigns.create("C")
    for _ in range(2):
        campaigns.record("C", pad(STRONG))
    change = campaigns.record("C", pad({**STRONG, "longest_river": 18}), branches=["b1"])  # 162: 7 circles
    assert change.reached[-3:] == ("c17", "f1", "b1")
    assert change.waiting is None
    assert campaigns.progress("C").choices == {"f1": "b1"}


@pytest.mark.parametrize(
    ("branches", "message"),
    [
        (["zz"], "the track has no node 'zz'"),
        (["c5"], "'c5' does not start a fork's branch"),
        (["a1", "b1"], "two branches given for fork f1"),
        (["d1"], "branch d1 is not reached by this game's circles (they stop at c12)"),
    ],
)
def test_branches_that_are_not_allowed(campaigns: Campaigns, branches: list[str], message: str) -> None:
    campaigns.create("C")
    campaigns.record("C", pad(STRONG))
    campaigns.record("C", pad(STRONG))
    before = snapshot(campaigns)
    with pytest.raises(CampaignError) as caught:
        campaigns.record("C", pad(WEAK), branches=branches)
    assert message in str(caught.value)
    assert snapshot(campaigns) == before


def test_a_decided_fork_cannot_be_chosen_again(campaigns: Campaigns) -> None:
    campaigns.create("C")
    walk_to_fork(campaigns)
    campaigns.choose("C", "a1")
    before = snapshot(campaigns)
    with pytest.raises(CampaignError, match="fork f1 is already decided: the campaign took branch a1"):
        campaigns.record("C", pad(STRONG), branches=["b1"])
    assert snapshot(campaigns) == before


def test_the_end_of_the_track(campaigns: Campaigns) -> None:
    sheet = parse_sheet(SMALL)
    campaigns.create("S", sheet)
    big = pad({**STRONG, "unlocked": 0})
    first = campaigns.record("S", big, branches=["l"])  # 156: 2 circles: s, f, l (free), end
    assert first.reached == ("s", "f", "l", "end")
    assert first.lost == 0 and campaigns.progress("S").at_end
    assert [u.item for u in first.unlocked] == ["box L", "the big prize"]
    again = campaigns.record("S", big)
    assert again.reached == () and again.lost == 2


def test_a_sheet_can_raise_the_limits(campaigns: Campaigns) -> None:
    campaigns.create("Base")
    campaigns.create("Boxes", parse_sheet(SMALL + "limit\tlongest_river\t80\nmarkers\tforest\t4,5,5,6,6,7\n"))
    big = ScorePad({"forest": 33, "grain": 0, "village": 0, "track": 0, "river": 0}, {}, 0, 60)
    big = ScorePad(big.tasks, {"forest": 0, "grain": 0, "village": 0}, 0, 60)
    before = snapshot(campaigns)
    with pytest.raises(PadError, match="forest tasks 33"):
        campaigns.record("Base", big)
    assert snapshot(campaigns) == before
    assert campaigns.record("Boxes", big).game is not None


def test_archived_campaigns_take_no_games(campaigns: Campaigns) -> None:
    campaigns.create("C")
    walk_to_fork(campaigns)
    campaigns.archive("C")
    before = snapshot(campaigns)
    with pytest.raises(CampaignError, match="archived"):
        campaigns.record("C", pad(STRONG))
    with pytest.raises(CampaignError, match="archived"):
        campaigns.choose("C", "a1")
    assert snapshot(campaigns) == before


def test_too_many_players(campaigns: Campaigns) -> None:
    campaigns.create("C")
    with pytest.raises(CampaignError, match="1 to 6 players, not 7"):
        campaigns.record("C", pad(STRONG), players=list("abcdefg"))
    with pytest.raises(CampaignError, match="player name"):
        campaigns.record("C", pad(STRONG), players=["Ann", ""])
    assert campaigns.view("C").games == ()


# --- games from records -----------------------------------------------------------------


def test_a_finished_record_goes_in_with_its_breakdown(campaigns: Campaigns, tmp_path: Path) -> None:
    record = finished_record(5)
    path = tmp_path / "game.json"
    path.write_text(json.dumps(record), encoding="utf-8")
    finished = read_finished_record(path)
    assert finished.players == ("P1", "P2")
    assert finished.pad.total == record["score"]["total"]
    assert finished.pad.tasks == record["score"]["tasks"]
    campaigns.create("C")
    change = campaigns.record("C", finished.pad, players=finished.players, finished=finished)
    assert change.game is not None and change.game.source == "record"
    tasks = campaigns.view("C").games[0].pad.task_list
    assert tasks and list(tasks) == record["score"]["task_list"]
    stored = campaigns.conn.execute("SELECT record FROM campaign_game").fetchone()[0]
    assert json.loads(stored)["seed"] == 5
    before = snapshot(campaigns)
    with pytest.raises(CampaignError, match="already recorded in 'C' as game 1"):
        campaigns.record("C", finished.pad, finished=read_finished_record(path))
    assert snapshot(campaigns) == before


def test_records_that_cannot_go_into_a_campaign(tmp_path: Path) -> None:
    unfinished = CoopGame(seed=2).new_state()
    unfinished.play(unfinished.legal_placements()[0])
    cases = {
        "unfinished.json": (json.dumps(record_of(unfinished)), "the game is not finished"),
        "duel.json": (json.dumps({**record_of(unfinished), "mode": "duel"}), "only cooperative games"),
        "broken.json": ("{", "not valid JSON"),
        "bad.json": (json.dumps({**finished_record(1), "seed": 2}), "decision 1"),
    }
    for name, (text, message) in cases.items():
        (tmp_path / name).write_text(text, encoding="utf-8")
        with pytest.raises(CampaignError) as caught:
            read_finished_record(tmp_path / name)
        assert message in str(caught.value), name
    with pytest.raises(CampaignError, match="cannot read"):
        read_finished_record(tmp_path / "missing.json")


# --- pictures ---------------------------------------------------------------------------


def test_score_plot_is_well_formed_svg(campaigns: Campaigns) -> None:
    campaigns.create("A <&> 'B'")
    empty = ET.fromstring(campaign_score_svg(campaigns.view("A <&> 'B'")))
    assert empty.tag == f"{SVG}svg"
    assert "no games recorded yet" in "".join(empty.itertext())
    for data in (STRONG, WEAK, STRONG):
        campaigns.record("A <&> 'B'", pad(data))
    root = ET.fromstring(campaign_score_svg(campaigns.view("A <&> 'B'")))
    points = root.findall(f"{SVG}circle")
    assert len(points) == 3
    tips = [p.find(f"{SVG}title").text.split(": ")[1] for p in points]
    assert tips == ["156 (6 circles)", "45 (1 circle)", "156 (6 circles)"]
    assert "A <&> 'B': scores" in "".join(root.itertext())


def test_track_svg_shows_what_is_unlocked(campaigns: Campaigns) -> None:
    campaigns.create("C")
    walk_to_fork(campaigns)
    root = ET.fromstring(campaign_track_svg(campaigns.view("C")))
    text = "".join(root.itertext())
    assert "18 of 51 circles checked, waiting at fork f1" in text
    titles = [t.text for t in root.iter(f"{SVG}title")]
    assert "g1: green, unlocks box 1 (reached)" in titles
    assert "ga: green, unlocks achievement card 1 (box 3)" in titles
    assert "c18: circle" in titles
    green = [p for p in root.iter(f"{SVG}polygon") if p.find(f"{SVG}title") is not None]
    filled = {p.find(f"{SVG}title").text.split(":")[0]: p.get("fill") for p in green}
    assert filled["g1"] != filled["ga"]


def test_track_svg_of_an_auto_laid_out_sheet(campaigns: Campaigns) -> None:
    campaigns.create("S", parse_sheet(SMALL))
    root = ET.fromstring(campaign_track_svg(campaigns.view("S")))
    assert root.get("width") is not None
