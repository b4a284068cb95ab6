"""``dorf campaign``: whole flows on a real SQLite file; every bad input is one line, exit 2,
and records nothing."""

from __future__ import annotations

import json
import sqlite3
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

from dorf.cli import main
from dorf.formats.record import record_of
from dorf.games.coop import CoopGame

STRONG = [
    "--forest", "26", "--grain", "26", "--village", "26", "--track", "20", "--river", "20",
    "--flags-forest", "12", "--longest-track", "14", "--longest-river", "12",
]  # fmt: skip
WEAK_PAD = {"tasks": {"forest": 15, "river": 11}, "longest_river": 9, "longest_track": 10}


class Dorf:
    """Runs ``dorf`` in-process against one database file."""

    def __init__(self, db: Path, capsys: pytest.CaptureFixture[str]) -> None:
        self.db = db
        self.capsys = capsys

    def __call__(self, *argv: str) -> tuple[int, str, str]:
        try:
            code = main(["campaign", *argv, "--db", str(self.db)])
        except SystemExit as exc:
            code = int(exc.code or 0)
        out, err = self.capsys.readouterr()
        return code, out, err

    def ok(self, *argv: str) -> str:
        code, out, err = self(*argv)
        assert (code, err) == (0, ""), err
        return out

    def fails(self, *argv: str) -> str:
        """Runs a command that must fail: exit 2, one line on stderr, no change to the database."""
        before = self.rows()
        code, out, err = self(*argv)
        assert code == 2
        assert out == ""
        assert err.count("\n") == 1 and err.startswith("dorf campaign"), err
        assert self.rows() == before
        return err.strip()

    def rows(self) -> dict[str, list[tuple]]:
        if not self.db.exists():
            return {}
        conn = sqlite3.connect(self.db)
        try:
            tables = [r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type = 'table'")]
            return {t: conn.execute(f"SELECT * FROM {t} ORDER BY rowid").fetchall() for t in sorted(tables)}
        finally:
            conn.close()


@pytest.fixture
def dorf(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> Dorf:
    (tmp_path / "data").mkdir()
    return Dorf(tmp_path / "data" / "dorf.sqlite3", capsys)


def finished_record_file(path: Path, seed: int = 4) -> Path:
    state = CoopGame(seed=seed, players=3).new_state()
    while not state.is_over:
        state.play(state.legal_placements()[-1])
    path.write_text(json.dumps(record_of(state, ["Ann", "Bob", "Cem"])), encoding="utf-8")
    return path


def test_a_whole_campaign(dorf: Dorf, tmp_path: Path) -> None:
    assert "no campaigns yet" in dorf.ok("list")
    assert "new campaign 'Family'" in dorf.ok("new", "Family")
    out = dorf.ok("record", "Family", *STRONG, "--date", "2026-11-01", "--players", "Ann,Bob")
    assert out.splitlines()[0] == "recorded game 1 of Family (2026-11-01): 156 points, 6 circles"
    assert "  track: c1 c2 c3 c4 c5 c6 g1" in out
    assert "  unlocked: box 1 (track g1)" in out
    assert "  achievement: Tasks of all five types completed in one game" in out
    out = dorf.ok("record", "Family", "--pad", json.dumps(WEAK_PAD), "--date", "2026-11-02")
    assert "45 points, 1 circle" in out
    pad_file = tmp_path / "pad.json"
    pad_file.write_text(json.dumps({**WEAK_PAD, "total": 45}), encoding="utf-8")
    dorf.ok("record", "Family", "--pad", f"@{pad_file}")
    record = finished_record_file(tmp_path / "game.json")
    out = dorf.ok("record", "Family", "--from-record", str(record), "--date", "2026-11-05", "--json")
    change = json.loads(out)
    assert change["game"]["source"] == "record" and change["game"]["players"] == ["Ann", "Bob", "Cem"]
    assert change["game"]["number"] == 4
    shown = dorf.ok("show", "Family")
    assert "Campaign Family" in shown
    assert "    1  2026-11-01   156  118   38    0       6  pad" in shown
    assert "record" in shown.splitlines()[shown.splitlines().index("Games") + 5]
    assert "box 1" in shown and "Achievements (" in shown
    data = json.loads(dorf.ok("show", "Family", "--json"))
    assert [g["played"] for g in data["games"]][:2] == ["2026-11-01", "2026-11-02"]
    assert data["progress"]["checked"] == sum(g["circles"] for g in data["games"])


def test_fork_choice_from_the_terminal(dorf: Dorf) -> None:
    dorf.ok("new", "C")
    for _ in range(3):
        out = dorf.ok("record", "C", *STRONG)
    assert "the track forks at f1: choose a1 or b1 with `dorf campaign choose C BRANCH`" in out
    shown = dorf.ok("show", "C")
    assert "    a1: 4 circles, unlocks achievement card 1 (box 3)" in shown
    assert "wait there" not in shown  # no circles banked yet
    out = dorf.ok("record", "C", "--pad", json.dumps(WEAK_PAD))
    assert "(1 circle wait there)" in out
    err = dorf.fails("choose", "C", "c18")
    assert err == "dorf campaign choose: 'c18' is not a branch of fork f1: choose a1 or b1"
    out = dorf.ok("choose", "C", "b1")
    assert out.splitlines()[:2] == ["C: took branch b1 at fork f1", "  track: b1"]
    err = dorf.fails("choose", "C", "a1")
    assert "no fork is waiting" in err
    out = dorf.ok("record", "C", *STRONG)
    assert "unlocked: achievement card 2 (box 3)" in out


def test_branch_with_the_game(dorf: Dorf) -> None:
    dorf.ok("new", "C")
    dorf.ok("record", "C", *STRONG)
    dorf.ok("record", "C", *STRONG)
    err = dorf.fails("record", "C", *STRONG, "--branch", "e1")
    assert "branch e1 is not reached by this game's circles" in err
    out = dorf.ok("record", "C", *STRONG[:-1], "18", "--branch", "a1")  # 162: 7 circles
    assert out.splitlines()[1].endswith("c17 f1 a1")


def test_rename_archive_list(dorf: Dorf) -> None:
    dorf.ok("new", "One")
    dorf.ok("new", "Two")
    assert "renamed to 'Uno'" in dorf.ok("rename", "one", "Uno")
    dorf.ok("archive", "Uno")
    listed = dorf.ok("list")
    assert "Two" in listed and "Uno" not in listed
    assert "(archived)" in dorf.ok("list", "--all")
    assert [c["name"] for c in json.loads(dorf.ok("list", "--all", "--json"))] == ["Uno", "Two"]
    err = dorf.fails("record", "Uno", *STRONG)
    assert "archived" in err
    dorf.ok("unarchive", "Uno")
    dorf.ok("record", "Uno", *STRONG)


def test_pictures(dorf: Dorf, tmp_path: Path) -> None:
    dorf.ok("new", "C")
    dorf.ok("record", "C", *STRONG)
    dorf.ok("record", "C", "--pad", json.dumps(WEAK_PAD))
    dorf.ok("plot", "C", "--out", str(tmp_path / "scores.svg"))
    dorf.ok("track", "C", "--out", str(tmp_path / "track.svg"))
    plot = ET.parse(tmp_path / "scores.svg").getroot()
    track = ET.parse(tmp_path / "track.svg").getroot()
    assert plot.tag == track.tag == "{http://www.w3.org/2000/svg}svg"
    assert ET.fromstring(dorf.ok("track", "C", "--out", "-")).tag.endswith("svg")
    err = dorf.fails("plot", "C", "--out", str(tmp_path / "no" / "such" / "dir.svg"))
    assert "cannot write" in err


def test_sheets(dorf: Dorf, tmp_path: Path) -> None:
    default = dorf.ok("sheet")
    assert default.startswith("# The default campaign sheet of dorf: an APPROXIMATION")
    mine = tmp_path / "mine.tsv"
    mine.write_text(
        default.replace("band\t60\t2", "band\t50\t2").replace("name\tdorf default sheet", "name\tour sheet"),
        encoding="utf-8",
    )
    assert "'our sheet" in dorf.ok("new", "Ours", "--sheet", str(mine))
    assert "band\t50\t2" in dorf.ok("sheet", "Ours")
    out = dorf.ok("record", "Ours", "--forest", "26", "--grain", "26")  # 52: two circles on our sheet
    assert "52 points, 2 circles" in out
    broken = tmp_path / "broken.tsv"
    broken.write_text(default.replace("node\tg1\tgreen\tbox 1", "node\tg1\tgreen"), encoding="utf-8")
    err = dorf.fails("new", "Broken", "--sheet", str(broken))
    assert "line" in err and "a green node must name what it unlocks" in err
    err = dorf.fails("new", "Gone", "--sheet", str(tmp_path / "missing.tsv"))
    assert "cannot read sheet" in err


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["record", "C", "--forest", "-4"], "forest tasks -4 is negative"),
        (["record", "C", "--forest", "7"], "no set of forest markers (4, 5, 5, 6, 6) adds up to 7"),
        (["record", "C", "--flags-grain", "400"], "grain flags 400: more than the box allows"),
        (["record", "C", "--longest-river", "90"], "longest river 90: more than the"),
        (["record", "C", "--forest", "4", "--total", "5"], "total 5 does not add up"),
        (["record", "C", "--pad", "{"], "--pad is not valid JSON"),
        (["record", "C", "--pad", '{"tasks": {"forest": 3}}'], "forest tasks 3"),
        (["record", "C", "--pad", "@/no/such/file.json"], "cannot read /no/such/file.json"),
        (["record", "C"], "give the score: --from-record FILE, --pad JSON, or the pad's fields"),
        (
            ["record", "C", "--pad", "{}", "--forest", "4"],
            "give the score one way, not --pad and the pad's fields",
        ),
        (
            ["record", "C", "--forest", "4", "--date", "2026-13-01"],
            "date '2026-13-01' is not a date YYYY-MM-DD",
        ),
        (["record", "C", "--forest", "4", "--date", "1.1.2026"], "is not a date"),
        (["record", "C", "--forest", "4", "--branch", "c3"], "'c3' does not start a fork's branch"),
        (["record", "C", "--forest", "4", "--players", "a,,b"], "player name ''"),
        (["record", "Nope", "--forest", "4"], "no campaign named 'Nope' (campaigns: C)"),
        (["record", "C", "--from-record", "/no/such/game.json"], "cannot read /no/such/game.json"),
        (["show", "Nope"], "no campaign named 'Nope'"),
        (["new", "c"], "a campaign named 'C' already exists"),
        (["new", "  "], "a campaign name cannot be empty"),
        (["rename", "C", ""], "the new name cannot be empty"),
        (["rename", "Nope", "X"], "no campaign named 'Nope'"),
        (["archive", "Nope"], "no campaign named 'Nope'"),
        (["choose", "C", "a1"], "no fork is waiting for a choice in 'C' (the track is at the start)"),
        (["choose", "Nope", "a1"], "no campaign named 'Nope'"),
        (["track", "Nope", "--out", "-"], "no campaign named 'Nope'"),
        (["sheet", "Nope"], "no campaign named 'Nope'"),
    ],
)
def test_bad_input_is_one_line_and_records_nothing(dorf: Dorf, argv: list[str], message: str) -> None:
    dorf.ok("new", "C")
    err = dorf.fails(*argv)
    assert message in err


def test_records_that_do_not_fit(dorf: Dorf, tmp_path: Path) -> None:
    dorf.ok("new", "C")
    state = CoopGame(seed=1).new_state()
    state.play(state.legal_placements()[0])
    (tmp_path / "half.json").write_text(json.dumps(record_of(state)), encoding="utf-8")
    assert "the game is not finished" in dorf.fails(
        "record", "C", "--from-record", str(tmp_path / "half.json")
    )
    (tmp_path / "duel.json").write_text(json.dumps({**record_of(state), "mode": "duel"}), encoding="utf-8")
    assert "only cooperative games" in dorf.fails("record", "C", "--from-record", str(tmp_path / "duel.json"))
    game = finished_record_file(tmp_path / "game.json")
    err = dorf.fails("record", "C", "--from-record", str(game), "--players", "X")
    assert "--players comes from the record" in err
    err = dorf.fails("record", "C", "--from-record", str(game), "--forest", "4")
    assert "give the score one way, not --from-record and the pad's fields" in err
    dorf.ok("record", "C", "--from-record", str(game))
    assert "already recorded in 'C' as game 1" in dorf.fails("record", "C", "--from-record", str(game))


def test_argument_errors_are_one_line(dorf: Dorf) -> None:
    dorf.ok("new", "C")
    before = dorf.rows()
    code, _, err = dorf("record", "C", "--forest", "four")
    assert code == 2 and err.count("\n") == 1 and "'four' is not a whole number" in err
    assert dorf.rows() == before
    assert main(["campaign"]) == 2
    assert "give an action" in dorf.capsys.readouterr().err


def test_the_database_follows_dorf_db(monkeypatch: pytest.MonkeyPatch, tmp_path: Path, capsys) -> None:
    monkeypatch.setenv("DORF_DB", str(tmp_path / "env" / "dorf.sqlite3"))
    assert main(["campaign", "new", "Env"]) == 0
    assert (tmp_path / "env" / "dorf.sqlite3").exists()
    capsys.readouterr()
    assert main(["campaign", "list"]) == 0
    assert "Env" in capsys.readouterr().out


def test_a_database_that_is_not_one(tmp_path: Path, capsys) -> None:
    junk = tmp_path / "junk.sqlite3"
    junk.write_bytes(b"not a database" * 200)
    assert main(["campaign", "list", "--db", str(junk)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "cannot" in err


def test_list_says_how_many_campaigns_are_archived(dorf: Dorf) -> None:
    dorf.ok("new", "One")
    dorf.ok("archive", "One")
    listed = dorf.ok("list")
    assert "no campaigns to list: 1 archived" in listed and "--all" in listed
    assert "no campaigns yet" not in listed


def test_a_database_in_a_missing_folder_is_refused(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    missing = tmp_path / "nope" / "dorf.sqlite3"
    assert main(["campaign", "list", "--db", str(missing)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "no folder" in err
    assert not missing.parent.exists()
