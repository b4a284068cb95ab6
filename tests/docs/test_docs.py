"""The documentation's examples do what the documentation says."""

from __future__ import annotations

import json
import re

import pytest

from dorf.formats.notation import read_board
from dorf.formats.record import replay_record
from dorf.rules.scoring import score_coop
from repo import DOCS, ROOT


def _json_blocks(name: str) -> list[str]:
    return re.findall(r"```json\n(.*?)\n```", (DOCS / name).read_text(encoding="utf-8"), re.S)


def test_notation_doc_board_scores_as_its_json_example_says() -> None:
    board, expected = _json_blocks("notation.md")[:2]
    assert score_coop(read_board(board)).as_json() == json.loads(expected)


def test_records_doc_example_replays() -> None:
    record = json.loads(_json_blocks("records.md")[0])
    state = replay_record(record)
    assert [[p.at.q, p.at.r, p.rot] for p in state.decisions] == [
        [d["at"][0], d["at"][1], d["rot"]] for d in record["decisions"]
    ]
    assert not state.is_over


@pytest.mark.parametrize("number", range(1, 32))
def test_every_rules_note_has_its_named_test(number: int) -> None:
    files = sorted((ROOT / "tests" / "engine").glob("test_rules*.py"))
    rules_tests = "\n".join(path.read_text(encoding="utf-8") for path in files)
    assert f"def test_rule_{number:02d}_" in rules_tests
    assert re.search(rf"^{number}\. \*\*", (DOCS / "rules-notes.md").read_text(encoding="utf-8"), re.M)


def test_the_command_table_matches_the_commands() -> None:
    """docs/commands.md's table (once the README's): every option a row shows exists; a row
    without "..." shows them all; one outside brackets is required."""
    import argparse

    from dorf.cli import build_parser

    readme = (DOCS / "commands.md").read_text(encoding="utf-8")
    parser = build_parser()
    commands = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction)).choices
    rows = re.findall(r"^\| `dorf ([a-z]+) ([^`]*)`", readme, re.M)
    assert {command for command, _ in rows} >= {"serve", "play", "simulate", "bench", "score", "replay"}
    for command, usage in rows:
        actions = [a for a in commands[command]._actions if a.option_strings != ["-h", "--help"]]
        options = {o for a in actions for o in a.option_strings}
        shown = set(re.findall(r"--[a-z-]+", usage))
        assert shown <= options, (command, shown - options)
        if "..." not in usage:
            assert {a.option_strings[-1] for a in actions if a.option_strings} <= shown, command
        bare = set(re.findall(r"--[a-z-]+", re.sub(r"\[[^]]*\]", "", usage)))
        required = {o for a in actions if a.required for o in a.option_strings}
        assert bare <= required, (command, bare - required)
