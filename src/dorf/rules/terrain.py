"""Terrains and the edge-matching rule, as the board notation writes them.

>>> TERRAIN_NAMES["F"]
'forest'
>>> edges_may_meet("R", "R"), edges_may_meet("R", "F"), edges_may_meet("F", "V")
(True, False, True)
"""

from __future__ import annotations

TERRAIN_NAMES: dict[str, str] = {
    "F": "forest",
    "G": "grain",
    "V": "village",
    "M": "meadow",
    "R": "river",
    "T": "track",
    "L": "lake",
    "P": "mountain",
    "X": "multicoloured flag",
}
LETTERS: str = "FGVMRTLPX"

#: Letters whose edges must meet an edge of the same letter (rule 7).
MUST_MEET: str = "RTLP"
#: Letters that form areas: territories, rivers, tracks, lakes, mountains, flag edges.
AREA_LETTERS: str = "FGVRTLPX"
#: Index of each area letter; a play area keeps one node per (cell, area letter).
AREA_INDEX: dict[str, int] = {letter: i for i, letter in enumerate(AREA_LETTERS)}
#: The territory terrains that a flag or a territory task can name.
TERRITORY_LETTERS: str = "FGV"

#: Task type names and the letter they count.
TASK_LETTER: dict[str, str] = {
    "forest": "F",
    "grain": "G",
    "village": "V",
    "river": "R",
    "track": "T",
}
LETTER_OF_NAME: dict[str, str] = {name: letter for letter, name in TERRAIN_NAMES.items()}

#: What an edge demands of the edge it faces: a must-meet letter its own code,
#: every other letter the code "anything that is not a must-meet letter".
OTHER_CODE = 5
MATCH_CODE: dict[str, int] = {letter: OTHER_CODE for letter in LETTERS}
MATCH_CODE.update({"R": 1, "T": 2, "L": 3, "P": 4})


def edges_may_meet(a: str, b: str) -> bool:
    """Whether edge letters ``a`` and ``b`` may face each other."""
    return MATCH_CODE[a] == MATCH_CODE[b]
