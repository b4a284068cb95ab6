"""Small helpers to build play areas, board documents and tile sets by hand.

A tile is written ``(face, q, r)`` or ``(face, q, r, rot)``, optionally with
``flag="forest"`` / ``task=("forest", 5)`` through :func:`tile`.  Most boards in
the rule tests use rotation 0, so that the face *is* the edges by direction:
``"FMMRMM"`` at rot 0 has forest to the north (d=0) and river to the south (d=3).

Directions (axial, flat-topped, clockwise from north)::

    d=0 N (q, r-1)   d=1 NE (q+1, r-1)   d=2 SE (q+1, r)
    d=3 S (q, r+1)   d=4 SW (q-1, r+1)   d=5 NW (q-1, r)
"""

from __future__ import annotations

import json
from typing import Any

from dorf.rules.area import Placement, PlayArea
from dorf.rules.hexgrid import Hex
from dorf.rules.tasks import TaskSpec
from dorf.rules.tiles import TileSet

FLAG_LETTER = {"forest": "F", "grain": "G", "village": "V"}


def tile(
    face: str, q: int, r: int, rot: int = 0, *, flag: str | None = None, task: tuple[str, int] | None = None
) -> dict[str, Any]:
    """One placement in the ``dorf-board/1`` form."""
    entry: dict[str, Any] = {"tile": face, "at": [q, r], "rot": rot}
    if flag is not None:
        entry["flag"] = flag
    if task is not None:
        entry["task"] = {"type": task[0], "value": task[1]}
    return entry


def _entry(item: Any) -> dict[str, Any]:
    if isinstance(item, dict):
        return item
    return tile(*item)


def at(q: int, r: int, rot: int = 0) -> Placement:
    return Placement(Hex(q, r), rot)


def play(area: PlayArea, item: Any) -> None:
    """Play one placement (tuple or :func:`tile` dict) with PlayArea.play."""
    e = _entry(item)
    flag = FLAG_LETTER[e["flag"]] if "flag" in e else None
    task = TaskSpec(e["task"]["type"], e["task"]["value"]) if "task" in e else None
    area.play(e["tile"], at(e["at"][0], e["at"][1], e["rot"]), flag=flag, task=task)


def build(*items: Any) -> PlayArea:
    """A play area with the placements played in order (each checked by the rules)."""
    area = PlayArea()
    for item in items:
        play(area, item)
    return area


def document(*items: Any) -> dict[str, Any]:
    """A ``dorf-board/1`` document (coop) with these placements."""
    return {"format": "dorf-board/1", "mode": "coop", "placements": [_entry(i) for i in items]}


def document_text(*items: Any) -> str:
    return json.dumps(document(*items))


def oriented(face: str, rot: int) -> str:
    """Edges by direction of ``face`` turned ``rot``: face edge i points to (i + rot) % 6.

    Written out from the notation, independently of dorf.rules.tiles.rotate.
    """
    out = [""] * 6
    for i, letter in enumerate(face):
        out[(i + rot) % 6] = letter
    return "".join(out)


def status(area: PlayArea, q: int, r: int) -> str:
    """The status ('open', 'completed', 'failed') of the task on the tile at [q, r]."""
    found = [t for t in area.placed if t.at == Hex(q, r)]
    assert found and found[0].task is not None, f"no task at [{q}, {r}]"
    return found[0].task.status.value


def group_of(area: PlayArea, q: int, r: int, letter: str) -> tuple[int, bool]:
    """(size in tiles, closed) of the group through ``letter`` on the tile at [q, r]."""
    g = area.group(Hex(q, r), letter)
    assert g is not None
    return g.size, g.closed


def tileset(
    landscapes: list[str],
    tasks: list[str],
    markers: dict[str, list[int]],
    name: str = "custom",
) -> TileSet:
    """A tile set from lines: landscapes ``"FFFFFF"`` / ``"MFFFFF flag=forest"``,
    tasks ``"FMMMMM forest"``, markers ``{"forest": [4, 4]}``."""
    lines = []
    for kind, values in markers.items():
        lines.append(f"markers\t{kind}\t{','.join(str(v) for v in values)}")
    for text in landscapes:
        face, _, extra = text.partition(" ")
        lines.append(f"landscape\t{face}\t{extra}")
    for text in tasks:
        face, kind = text.split()
        lines.append(f"task\t{face}\ttask={kind}")
    return TileSet.from_tsv(name, "\n".join(lines) + "\n")


#: The guide's end-of-game example (31 + 6 + 9 + 7 = 53) as a board:
#: completed markers river 5 + 6, track 6 + 5, forest 4 + 5 = 31; a closed forest of
#: six tiles with a flag = 6; an open grain field with a flag = 0; longest track 9
#: tiles, longest river 7 tiles; an active grain task and a short track score nothing.
END_GAME = [
    # River, column q=0, rows 0..6 (open at both ends): 7 tiles.
    tile("RMMRMM", 0, 0, task=("river", 5)),
    tile("RMMRMM", 0, 1, task=("river", 6)),
    ("RMMRMM", 0, 2),
    ("RMMRMM", 0, 3),
    ("RMMRMM", 0, 4),  # river has 5 tiles: river 5 completed
    ("RMMRMM", 0, 5),  # 6 tiles: river 6 completed
    ("RMMRMM", 0, 6),  # 7 tiles
    # Track, column q=1, rows 0..8 (open at both ends): 9 tiles.
    tile("TMMTMM", 1, 0, task=("track", 6)),
    tile("TMMTMM", 1, 1, task=("track", 5)),
    ("TMMTMM", 1, 2),
    ("TMMTMM", 1, 3),
    ("TMMTMM", 1, 4),  # 5 tiles: track 5 completed
    ("TMMTMM", 1, 5),  # 6 tiles: track 6 completed
    ("TMMTMM", 1, 6),
    ("TMMTMM", 1, 7),
    ("TMMTMM", 1, 8),  # 9 tiles
    # Forest, column q=-1, rows 0..5, closed at both ends: 6 tiles with a flag.
    tile("MMMFMM", -1, 0, flag="forest"),
    tile("FMMFMM", -1, 1, task=("forest", 4)),
    tile("FMMFMM", -1, 2, task=("forest", 5)),
    ("FMMFMM", -1, 3),  # 4 tiles: forest 4 completed
    ("FMMFMM", -1, 4),  # 5 tiles: forest 5 completed
    ("FMMMMM", -1, 5),  # 6 tiles, closed
    # An open grain field with a flag, and an active grain task on it (2 of 6 tiles).
    tile("GGGGGM", 2, 0, flag="grain"),
    tile("GGGGGG", 2, 1, task=("grain", 6)),
    # A separate closed track of two tiles: not added to the longest.
    ("MMMTMM", 2, 3),
    ("TMMMMM", 2, 4),
]

END_GAME_TASK_LIST = [
    {"at": [0, 0], "type": "river", "value": 5, "status": "completed"},
    {"at": [0, 1], "type": "river", "value": 6, "status": "completed"},
    {"at": [1, 0], "type": "track", "value": 6, "status": "completed"},
    {"at": [1, 1], "type": "track", "value": 5, "status": "completed"},
    {"at": [-1, 1], "type": "forest", "value": 4, "status": "completed"},
    {"at": [-1, 2], "type": "forest", "value": 5, "status": "completed"},
    {"at": [2, 1], "type": "grain", "value": 6, "status": "open"},
]

END_GAME_SCORE = {
    "tasks": {"forest": 9, "grain": 0, "village": 0, "river": 11, "track": 11},
    "flags": {"forest": 6, "grain": 0, "village": 0},
    "longest_river": 7,
    "longest_track": 9,
    "total": 53,
    "task_list": END_GAME_TASK_LIST,
}


def by_place(task_list) -> list:
    """A task list in a fixed order (notation.md does not fix one)."""
    return sorted(task_list, key=lambda e: (e["at"], e["type"], e["value"]))
