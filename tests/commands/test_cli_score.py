"""`dorf score FILE [--json]`, as notation.md describes it: in the test's process (``in_process``),
and as a real command in a process of its own for one success and one error."""

from __future__ import annotations

import json
import re
import subprocess
from pathlib import Path

import pytest
from in_process import dorf as run_dorf

from boards import END_GAME, END_GAME_SCORE, by_place, document, document_text, tile


def dorf(*args: str, cwd: Path, process: bool = False) -> subprocess.CompletedProcess[str]:
    return run_dorf(*args, cwd=cwd, process=process)


def score_file(
    tmp_path: Path, content: str | bytes, *flags: str, process: bool = False
) -> subprocess.CompletedProcess[str]:
    path = tmp_path / "board.json"
    if isinstance(content, bytes):
        path.write_bytes(content)
    else:
        path.write_text(content, encoding="utf-8")
    return dorf("score", str(path), *flags, cwd=tmp_path, process=process)


def assert_user_error(result: subprocess.CompletedProcess[str]) -> str:
    """Exit 2, nothing on stdout, exactly one line on stderr, no traceback."""
    assert result.returncode == 2, result
    assert result.stdout == ""
    assert "Traceback" not in result.stderr
    lines = result.stderr.splitlines()
    assert len(lines) == 1, result.stderr
    assert lines[0].strip()
    return lines[0]


# --- success -------------------------------------------------------------------------------------


def test_score_json_prints_one_object_with_the_documented_keys(tmp_path):
    result = score_file(tmp_path, document_text(*END_GAME), "--json", process=True)  # the real command
    assert result.returncode == 0, result.stderr
    assert result.stderr == ""
    out = json.loads(result.stdout)  # one JSON object, nothing else
    assert isinstance(out, dict)
    assert set(out) == {"tasks", "flags", "longest_river", "longest_track", "total", "task_list"}
    assert set(out["tasks"]) == {"forest", "grain", "village", "river", "track"}
    assert set(out["flags"]) == {"forest", "grain", "village"}
    for entry in out["task_list"]:
        assert set(entry) == {"at", "type", "value", "status"}
        assert entry["status"] in ("completed", "failed", "open")
    assert by_place(out.pop("task_list")) == by_place(END_GAME_SCORE["task_list"])
    assert out == {k: v for k, v in END_GAME_SCORE.items() if k != "task_list"}
    assert out["total"] == 31 + 6 + 9 + 7 == 53  # the guide's example


def test_score_json_task_list_has_failed_tasks_too(tmp_path):
    board = document_text(tile("FMMMMM", 0, 0, task=("forest", 4)), ("MMMMMM", 0, -1))
    result = score_file(tmp_path, board, "--json")
    assert result.returncode == 0
    out = json.loads(result.stdout)
    assert out["task_list"] == [{"at": [0, 0], "type": "forest", "value": 4, "status": "failed"}]
    assert out["total"] == 0


def test_score_text_prints_the_score_pad(tmp_path):
    result = score_file(tmp_path, document_text(*END_GAME))
    assert result.returncode == 0, result.stderr
    assert result.stderr == ""
    assert "53" in result.stdout
    assert result.stdout.strip()


def test_score_of_an_empty_board(tmp_path):
    result = score_file(tmp_path, document_text(), "--json")
    assert result.returncode == 0
    out = json.loads(result.stdout)
    assert out["total"] == 0 and out["task_list"] == []


# --- errors ----------------------------------------------------------------------------------------


@pytest.mark.parametrize("flags", [(), ("--json",)])
def test_invalid_json(tmp_path, flags):
    assert_user_error(score_file(tmp_path, '{"format": "dorf-board/1", ', *flags))


def test_deeply_nested_json_is_no_traceback(tmp_path):
    for process in (True, False):  # a real process's stack, and this one's, deeper already
        assert_user_error(score_file(tmp_path, "[" * 200000, "--json", process=process))


def test_integer_too_long_for_python_is_no_traceback(tmp_path):
    board = document(("FFFFFF", 0, 0))
    text = json.dumps(board).replace("[0, 0]", "[%s, 0]" % ("1" * 5000))
    assert_user_error(score_file(tmp_path, text, "--json"))


def test_file_that_is_not_utf8(tmp_path):
    assert_user_error(score_file(tmp_path, b'{"format": "\xff\xfe"}', "--json"))


def test_missing_top_level_field(tmp_path):
    doc = document(("FFFFFF", 0, 0))
    del doc["placements"]
    line = assert_user_error(score_file(tmp_path, json.dumps(doc), "--json"))
    assert "placements" in line


def test_missing_placement_field_names_the_placement(tmp_path):
    doc = document(("FFFFFF", 0, 0), ("FFFFFF", 0, 1))
    del doc["placements"][1]["rot"]
    line = assert_user_error(score_file(tmp_path, json.dumps(doc), "--json"))
    assert re.search(r"\bplacement 2\b", line)
    assert "rot" in line


def test_illegal_placement_names_the_placement_and_the_rule(tmp_path):
    # notation.md's own example: RMMRMM at [1, 0] rot 2 puts a river against a forest.
    doc = {
        "format": "dorf-board/1",
        "mode": "coop",
        "placements": [
            {"tile": "MFFFFF", "at": [0, 0], "rot": 0, "flag": "forest"},
            {"tile": "FFFFFF", "at": [0, 1], "rot": 0, "task": {"type": "forest", "value": 5}},
            {"tile": "RMMRMM", "at": [1, 0], "rot": 2},
        ],
    }
    for flags in ((), ("--json",)):
        line = assert_user_error(score_file(tmp_path, json.dumps(doc), *flags))
        assert re.search(r"\bplacement 3\b", line)
        assert "river" in line


def test_impossible_new_task_names_the_placement_and_the_rule(tmp_path):
    board = document_text(
        ("MMMFMM", 0, 0),
        ("FMMFMM", 0, 1),
        ("FMMFMM", 0, 2),
        ("MMMMMM", 1, 2),
        ("MMMMMM", 1, 1),
        ("MMMMMM", 1, 0),
        tile("FFMMMM", 0, 3, 0, task=("forest", 6)),  # would close its forest at 4 < 6
    )
    line = assert_user_error(score_file(tmp_path, board, "--json"))
    assert re.search(r"\bplacement 7\b", line)
    assert "forest" in line and "4" in line and "6" in line


def test_placement_that_does_not_touch(tmp_path):
    line = assert_user_error(score_file(tmp_path, document_text(("FFFFFF", 0, 0), ("FFFFFF", 3, 3))))
    assert re.search(r"\bplacement 2\b", line)


def test_missing_file(tmp_path):
    result = dorf("score", str(tmp_path / "nowhere.json"), "--json", cwd=tmp_path)
    assert_user_error(result)


def test_directory_instead_of_a_file(tmp_path):
    assert_user_error(dorf("score", str(tmp_path), cwd=tmp_path))


@pytest.mark.parametrize("args", [("score",), ("score", "--bogus", "x.json"), ("score", "a.json", "b.json")])
def test_bad_command_line_is_one_line_and_no_traceback(tmp_path, args):
    result = dorf(*args, cwd=tmp_path)
    assert result.returncode != 0
    assert result.stdout == ""
    assert "Traceback" not in result.stderr
    assert len(result.stderr.splitlines()) == 1


# --- the wrong kind of file (issue 13) ---------------------------------------------------------------


def test_a_game_record_is_named_and_sent_to_replay(tmp_path: Path) -> None:
    from dorf.formats.record import record_of
    from dorf.games.coop import CoopGame

    state = CoopGame(seed=3).new_state()
    state.play(state.legal_placements()[0])
    line = assert_user_error(score_file(tmp_path, json.dumps(record_of(state))))
    assert "is a dorf-record/1 file (a game record); use dorf replay" in line


def test_a_board_is_named_and_sent_to_score(tmp_path: Path) -> None:
    path = tmp_path / "board.json"
    path.write_text(document_text(*END_GAME), encoding="utf-8")
    line = assert_user_error(dorf("replay", str(path), cwd=tmp_path))
    assert "is a dorf-board/1 file (a board); use dorf score" in line
