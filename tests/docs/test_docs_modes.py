"""The two-player modes' documentation examples do what the docs say."""

from __future__ import annotations

import json
import re

from dorf.formats.notation import load_board
from dorf.rules.scoring import SCORERS
from repo import DOCS


def _json_blocks(name: str) -> list[str]:
    return re.findall(r"```json\n(.*?)\n```", (DOCS / name).read_text(encoding="utf-8"), re.S)


def _scored(board: str) -> dict[str, object]:
    mode, area = load_board(json.loads(board))
    return SCORERS[mode](area).as_json()


def test_notation_doc_head_to_head_board_scores_as_documented() -> None:
    blocks = _json_blocks("notation.md")
    board, expected = blocks[2:4]
    assert json.loads(board)["mode"] == "head-to-head"
    assert _scored(board) == json.loads(expected)


def test_notation_doc_duel_board_scores_as_documented() -> None:
    blocks = _json_blocks("notation.md")
    board, expected = blocks[4:6]
    assert json.loads(board)["mode"] == "duel"
    assert _scored(board) == json.loads(expected)
