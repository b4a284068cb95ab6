"""The public board notation dorf-board/1: reading, replaying under the rules, writing."""

from __future__ import annotations

import copy
import json
import re

import pytest

from boards import END_GAME, END_GAME_SCORE, build, by_place, document, document_text, tile
from dorf.formats.notation import BoardError, board_document, load_board, read_board, write_board
from dorf.rules.hexgrid import Hex
from dorf.rules.scoring import score_coop

#: The example of notation.md, verbatim.  It is not a legal board: RMMRMM at [1, 0]
#: rot 2 points its river NW, against the forest (SE edge) of MFFFFF at [0, 0].
NOTATION_EXAMPLE = """{
  "format": "dorf-board/1",
  "mode": "coop",
  "placements": [
    {"tile": "MFFFFF", "at": [0, 0], "rot": 0, "flag": "forest"},
    {"tile": "FFFFFF", "at": [0, 1], "rot": 0, "task": {"type": "forest", "value": 5}},
    {"tile": "RMMRMM", "at": [1, 0], "rot": 2}
  ]
}"""


def _error(text: str) -> str:
    with pytest.raises(BoardError) as info:
        read_board(text)
    message = str(info.value)
    assert "\n" not in message
    return message


def _names_placement(message: str, number: int) -> bool:
    return re.search(rf"\bplacement {number}\b", message) is not None


# --- reading and replaying ------------------------------------------------------------------


def test_read_board_replays_placements_in_order():
    area = read_board(document_text(*END_GAME))
    assert len(area) == len(END_GAME)
    first = area.placed[0]
    assert (first.face, first.at, first.rot) == ("RMMRMM", Hex(0, 0), 0)
    assert first.task.type == "river" and first.task.value == 5
    flagged = [t for t in area.placed if t.flag]
    assert [(t.at, t.flag) for t in flagged] == [(Hex(-1, 0), "F"), (Hex(2, 0), "G")]
    out = score_coop(area).as_json()
    assert by_place(out.pop("task_list")) == by_place(END_GAME_SCORE["task_list"])
    assert out == {k: v for k, v in END_GAME_SCORE.items() if k != "task_list"}


def test_rot_turns_the_printed_face_clockwise():
    # FMMMMM rot 2: the forest points SE; a forest tile at [1, 0] facing NW joins it.
    area = read_board(document_text(("FMMMMM", 0, 0, 2), ("MMMMMF", 1, 0, 0)))
    assert area.edges_at(Hex(0, 0)) == "MMFMMM"
    assert area.group(Hex(0, 0), "F").size == 2
    assert area.group(Hex(0, 0), "F").closed


def test_notation_example_first_two_placements_are_legal():
    data = json.loads(NOTATION_EXAMPLE)
    data["placements"] = data["placements"][:2]
    mode, area = load_board(data)
    assert mode == "coop"
    assert area.tasks[0].status.value == "open"  # a forest of 2 tiles, goal 5
    assert area.group(Hex(0, 0), "F").size == 2
    assert score_coop(area).total == 0  # open forest: the flag scores nothing


def test_notation_example_is_an_illegal_board():
    message = _error(NOTATION_EXAMPLE)
    assert _names_placement(message, 3)
    assert "river" in message and "forest" in message


def test_board_document_round_trip():
    area = build(*END_GAME)
    doc = board_document(area)
    assert doc == document(*END_GAME)
    again = read_board(write_board(area))
    assert board_document(again) == doc
    assert score_coop(again) == score_coop(area)


def test_any_face_any_flag_any_number_of_markers():
    # A board does not check the box: six forest 4 markers, a flag on a plain tile.
    items = [tile("FFFFFF", 0, 0, flag="forest", task=("forest", 6))]
    items += [tile("FMMMMM", 0, r, 3, task=("forest", 4)) for r in range(1, 6)]
    area = read_board(document_text(*items))
    assert len(area.tasks) == 6


def test_placements_may_be_empty():
    area = read_board(document_text())
    assert len(area) == 0
    assert score_coop(area).total == 0


# --- errors: malformed files -----------------------------------------------------------------


@pytest.mark.parametrize(
    "text",
    [
        "",
        "{",
        "not json",
        '{"format": "dorf-board/1", "mode": "coop", "placements": [}',
        "[" * 100000,
    ],
)
def test_invalid_json_is_a_board_error(text):
    assert "JSON" in _error(text)


def test_integer_too_long_for_python_is_a_board_error():
    text = document_text(("FFFFFF", 0, 0)).replace("[0, 0]", "[%s, 0]" % ("1" * 5000))
    _error(text)


@pytest.mark.parametrize(
    ("change", "words"),
    [
        (lambda d: d.pop("format"), "format"),
        (lambda d: d.pop("mode"), "mode"),
        (lambda d: d.pop("placements"), "placements"),
        (lambda d: d.update(format="dorf-board/2"), "format"),
        (lambda d: d.update(mode="chess"), "mode"),
        (lambda d: d.update(placements={"tile": "FFFFFF"}), "placements"),
    ],
)
def test_malformed_document(change, words):
    doc = document(("FFFFFF", 0, 0))
    change(doc)
    assert words in _error(json.dumps(doc))


def test_top_level_must_be_an_object():
    _error("[]")
    _error('"dorf-board/1"')
    _error("null")


BAD_PLACEMENTS = {
    "not an object": ["FFFFFF", 0, 0],
    "missing tile": {"at": [0, 1], "rot": 0},
    "missing at": {"tile": "FFFFFF", "rot": 0},
    "missing rot": {"tile": "FFFFFF", "at": [0, 1]},
    "unknown field": {"tile": "FFFFFF", "at": [0, 1], "rot": 0, "colour": "green"},
    "five letters": {"tile": "FFFFF", "at": [0, 1], "rot": 0},
    "unknown letter": {"tile": "FFFFFQ", "at": [0, 1], "rot": 0},
    "lower case": {"tile": "ffffff", "at": [0, 1], "rot": 0},
    "head-to-head letter in coop": {"tile": "LFFFFF", "at": [0, 1], "rot": 0},
    "tile not a string": {"tile": 7, "at": [0, 1], "rot": 0},
    "at one number": {"tile": "FFFFFF", "at": [0], "rot": 0},
    "at three numbers": {"tile": "FFFFFF", "at": [0, 1, 2], "rot": 0},
    "at strings": {"tile": "FFFFFF", "at": ["0", "1"], "rot": 0},
    "at fractions": {"tile": "FFFFFF", "at": [0.5, 1], "rot": 0},
    "at booleans": {"tile": "FFFFFF", "at": [False, True], "rot": 0},
    "rot 6": {"tile": "FFFFFF", "at": [0, 1], "rot": 6},
    "rot -1": {"tile": "FFFFFF", "at": [0, 1], "rot": -1},
    "rot string": {"tile": "FFFFFF", "at": [0, 1], "rot": "1"},
    "rot boolean": {"tile": "FFFFFF", "at": [0, 1], "rot": True},
    "flag meadow": {"tile": "MFFFFF", "at": [0, 1], "rot": 0, "flag": "meadow"},
    "flag river": {"tile": "RFFRFF", "at": [0, 1], "rot": 0, "flag": "river"},
    "flag not on the tile": {"tile": "FFFFFF", "at": [0, 1], "rot": 0, "flag": "grain"},
    "flag not a name": {"tile": "FFFFFF", "at": [0, 1], "rot": 0, "flag": 1},
    "task not an object": {"tile": "FFFFFF", "at": [0, 1], "rot": 0, "task": "forest"},
    "task unknown type": {"tile": "FFFFFF", "at": [0, 1], "rot": 0, "task": {"type": "castle", "value": 5}},
    "task connection in coop": {
        "tile": "FFFFFF",
        "at": [0, 1],
        "rot": 0,
        "task": {"type": "connection", "value": 5},
    },
    "task value 3": {"tile": "FFFFFF", "at": [0, 1], "rot": 0, "task": {"type": "forest", "value": 3}},
    "task value 7": {"tile": "FFFFFF", "at": [0, 1], "rot": 0, "task": {"type": "forest", "value": 7}},
    "task value string": {"tile": "FFFFFF", "at": [0, 1], "rot": 0, "task": {"type": "forest", "value": "5"}},
    "task value boolean": {
        "tile": "FFFFFF",
        "at": [0, 1],
        "rot": 0,
        "task": {"type": "forest", "value": True},
    },
    "task misses value": {"tile": "FFFFFF", "at": [0, 1], "rot": 0, "task": {"type": "forest"}},
    "task misses type": {"tile": "FFFFFF", "at": [0, 1], "rot": 0, "task": {"value": 5}},
    "task extra field": {
        "tile": "FFFFFF",
        "at": [0, 1],
        "rot": 0,
        "task": {"type": "forest", "value": 5, "bonus": 1},
    },
    "task terrain not on the tile": {
        "tile": "FFFFFF",
        "at": [0, 1],
        "rot": 0,
        "task": {"type": "river", "value": 5},
    },
}


@pytest.mark.parametrize("name", sorted(BAD_PLACEMENTS))
def test_malformed_placement_names_its_number(name):
    doc = document(("FFFFFF", 0, 0), BAD_PLACEMENTS[name])
    message = _error(json.dumps(doc))
    assert _names_placement(message, 2), message


# --- errors: placements against the rules ---------------------------------------------------------

RULE_BREAKS = {
    # name: (placements, number of the bad one, words the message must contain)
    "first tile away from the origin": ([("FFFFFF", 1, 1)], 1, "[0, 0]"),
    "not touching": ([("FFFFFF", 0, 0), ("FFFFFF", 0, 2)], 2, "touch"),
    "two steps away": ([("FFFFFF", 0, 0), ("FFFFFF", 1, 1)], 2, "touch"),
    "cell taken": ([("FFFFFF", 0, 0), ("FFFFFF", 0, 1), ("GGGGGG", 0, 1)], 3, "taken"),
    "river against forest": ([("FFFFFF", 0, 0), ("MMMRMM", 0, -1)], 2, "river"),
    "track against river": ([("RMMMMM", 0, 0), ("MMMTMM", 0, -1)], 2, "track"),
    "river against meadow": ([("MMMMMM", 0, 0), ("RMMMMM", 0, 1)], 2, "river"),
    "new task closes its forest short": (
        [
            ("MMMFMM", 0, 0),
            ("FMMFMM", 0, 1),
            ("FMMFMM", 0, 2),
            ("MMMMMM", 1, 2),
            tile("FFMMMM", 0, 3, 0, task=("forest", 6)),
        ],
        5,
        "forest",
    ),
    "new task already too large": (
        [
            ("FFFFFF", 0, 0),
            ("FFFFFF", 0, 1),
            ("FFFFFF", 0, 2),
            ("FFFFFF", 0, 3),
            tile("FFFFFF", 0, 4, task=("forest", 4)),
        ],
        5,
        "forest",
    ),
    "too far away": ([("FFFFFF", 0, 0), ("FFFFFF", 10**6, 0)], 2, ""),
}


@pytest.mark.parametrize("name", sorted(RULE_BREAKS))
def test_illegal_placement_names_its_number_and_the_rule(name):
    items, number, words = RULE_BREAKS[name]
    message = _error(document_text(*items))
    assert _names_placement(message, number), message
    assert words in message


def test_legal_versions_of_the_rule_breaks_replay():
    # The same boards with the bad placement mended are accepted.
    read_board(document_text(("FFFFFF", 0, 0), ("FFFFFF", 0, 1)))
    read_board(document_text(("RMMMMM", 0, 0), ("MMMRMM", 0, -1)))
    read_board(
        document_text(
            ("MMMFMM", 0, 0),
            ("FMMFMM", 0, 1),
            ("FMMFMM", 0, 2),
            ("MMMMMM", 1, 2),
            tile("FFMMMM", 0, 3, 5, task=("forest", 6)),
        )
    )


def test_errors_do_not_change_the_caller_document():
    doc = document(*END_GAME)
    kept = copy.deepcopy(doc)
    load_board(doc)
    assert doc == kept
