"""The public board notation ``dorf-board/1``: read, replay, write.

A board file lists placements in order; replaying them under the placement
and task rules of the mode rebuilds the play area.  Every problem is a
:class:`BoardError` whose message names the placement (1-based) and the rule.

>>> area = read_board('{"format": "dorf-board/1", "mode": "coop", "placements": ['
...     '{"tile": "FFFFFF", "at": [0, 0], "rot": 0, "task": {"type": "forest", "value": 4}}]}')
>>> area.tasks[0].status.value
'open'
"""

from __future__ import annotations

import json
from typing import Any

from dorf.rules.area import IllegalPlacement, Placement, PlayArea
from dorf.rules.hexgrid import Hex
from dorf.rules.tasks import TaskSpec
from dorf.rules.terrain import LETTER_OF_NAME, TERRAIN_NAMES
from dorf.rules.tiles import check_face

FORMAT = "dorf-board/1"
MODES = ("coop", "duel", "head-to-head")
SUPPORTED_MODES = MODES

#: Edge letters each mode's tiles may show.
MODE_LETTERS = {"coop": "FGVMRT", "duel": "FGVMRT", "head-to-head": "FGVMRLPX"}
#: Task types and marker values each mode allows.
MODE_TASKS: dict[str, dict[str, tuple[int, ...]]] = {
    "coop": {t: (4, 5, 6) for t in ("forest", "grain", "village", "river", "track")},
    "duel": {
        **{t: (3, 4, 5, 6) for t in ("forest", "grain", "village", "river", "track", "connection")},
        "double": (6,),
    },
    "head-to-head": {
        **{t: (3, 4, 5, 6, 7) for t in ("forest", "grain", "village")},
        "river": (3, 4, 5, 6),
    },
}
_FIELDS = {"tile", "at", "rot", "flag", "task"}


class BoardError(ValueError):
    """A board file that cannot be read or replayed; the message is one line."""


def is_int(value: Any) -> bool:
    """A JSON integer (not a boolean)."""
    return isinstance(value, int) and not isinstance(value, bool)


def parse_at_rot(at: Any, rot: Any) -> Placement:
    """Read the ``at`` and ``rot`` fields of a placement or a recorded decision."""
    if not (isinstance(at, list) and len(at) == 2 and all(is_int(v) for v in at)):
        raise ValueError(f"at {at!r} is not [q, r] with two integers")
    if not is_int(rot) or not 0 <= rot <= 5:
        raise ValueError(f"rot {rot!r} is not 0 to 5")
    return Placement(Hex(at[0], at[1]), rot)


def parse_task(raw: Any, mode: str) -> TaskSpec:
    """Read a ``{"type": T, "value": N}`` task of the mode, or raise ValueError."""
    if not isinstance(raw, dict):
        raise ValueError('task must be an object like {"type": "forest", "value": 5}')
    unknown = set(raw) - {"type", "value", "types"}
    if unknown:
        raise ValueError(f"task has unknown field {sorted(unknown)[0]!r}")
    for key in ("type", "value"):
        if key not in raw:
            raise ValueError(f"task misses field {key!r}")
    kind, value = raw["type"], raw["value"]
    allowed = MODE_TASKS[mode]
    if not isinstance(kind, str) or kind not in allowed:
        raise ValueError(f"task type {kind!r} is not one of {', '.join(allowed)}")
    if not is_int(value) or value not in allowed[kind]:
        values = allowed[kind]
        span = f"{values[0]} to {values[-1]}" if len(values) > 1 else str(values[0])
        raise ValueError(f"task value {value!r} is not a {mode} {kind} marker ({span})")
    types: tuple[str, ...] = ()
    if kind == "double":
        raw_types = raw.get("types")
        if not (isinstance(raw_types, list) and all(isinstance(t, str) for t in raw_types)):
            raise ValueError('a double task needs "types": two of forest, grain, village')
        types = tuple(raw_types)
    elif "types" in raw:
        raise ValueError(f"a {kind} task has no types field")
    return TaskSpec(kind, value, types).check()


def parse_placement(raw: Any, mode: str) -> tuple[str, Placement, str | None, TaskSpec | None]:
    """Read one placement object: face, placement, flag letter, task; ValueError if malformed."""
    if not isinstance(raw, dict):
        raise ValueError("a placement must be a JSON object")
    unknown = set(raw) - _FIELDS
    if unknown:
        raise ValueError(f"unknown field {sorted(unknown)[0]!r}")
    for key in ("tile", "at", "rot"):
        if key not in raw:
            raise ValueError(f"missing field {key!r}")
    face = raw["tile"]
    letters = MODE_LETTERS[mode]
    if not isinstance(face, str) or len(face) != 6 or any(c not in letters for c in face):
        raise ValueError(f"tile {face!r} is not six edge letters of {letters}")
    check_face(face)
    placement = parse_at_rot(raw["at"], raw["rot"])
    flag = None
    if "flag" in raw:
        if mode == "head-to-head":
            raise ValueError("head-to-head tiles carry no flag field (their flags are X edges)")
        name = raw["flag"]
        flag = LETTER_OF_NAME.get(name) if isinstance(name, str) else None
        if flag not in ("F", "G", "V"):
            raise ValueError(f"flag {name!r} is not forest, grain or village")
        if flag not in face:
            raise ValueError(f"flag {name} is not on tile {face}")
    task = parse_task(raw["task"], mode) if "task" in raw else None
    if task is not None:
        missing = [TERRAIN_NAMES[letter] for letter in task.letters if letter not in face]
        if missing:
            raise ValueError(f"a {task.name} task needs {' and '.join(missing)} edges on tile {face}")
    return face, placement, flag, task


def load_board(data: Any) -> tuple[str, PlayArea]:
    """Replay a parsed board document; returns its mode and play area."""
    if not isinstance(data, dict):
        raise BoardError("a board file must be a JSON object")
    if "format" not in data:
        raise BoardError("missing field 'format'")
    if data["format"] != FORMAT:
        raise BoardError(f"format {data['format']!r} is not {FORMAT!r}")
    for key in ("mode", "placements"):
        if key not in data:
            raise BoardError(f"missing field {key!r}")
    mode = data["mode"]
    if mode not in MODES:
        raise BoardError(f"mode {mode!r} is not one of {', '.join(MODES)}")
    if mode not in SUPPORTED_MODES:
        raise BoardError(f"mode {mode!r} is not supported by this version of dorf yet")
    placements = data["placements"]
    if not isinstance(placements, list):
        raise BoardError("placements must be a list")
    area = PlayArea()
    for number, raw in enumerate(placements, 1):
        try:
            face, placement, flag, task = parse_placement(raw, mode)
            area.play(face, placement, flag=flag, task=task)
        except (IllegalPlacement, ValueError) as exc:
            raise BoardError(f"placement {number}: {exc}") from None
    return mode, area


def read_board(text: str) -> PlayArea:
    """Parse and replay a board file's text; raises :class:`BoardError`."""
    try:
        data = json.loads(text)
    except (ValueError, RecursionError) as exc:
        raise BoardError(f"not valid JSON: {exc}") from None
    return load_board(data)[1]


def board_document(area: PlayArea, mode: str = "coop") -> dict[str, Any]:
    """The ``dorf-board/1`` document of a play area, placements in order."""
    out = []
    for tile in area.placed:
        entry: dict[str, Any] = {"tile": tile.face, "at": [tile.at.q, tile.at.r], "rot": tile.rot}
        if tile.flag and mode != "head-to-head":
            entry["flag"] = TERRAIN_NAMES[tile.flag]
        if tile.task is not None:
            entry["task"] = task_document(tile.task.spec)
        out.append(entry)
    return {"format": FORMAT, "mode": mode, "placements": out}


def task_document(task: TaskSpec) -> dict[str, Any]:
    """A task as board files and records write it."""
    out: dict[str, Any] = {"type": task.type, "value": task.value}
    if task.types:
        out["types"] = list(task.types)
    return out


def write_board(area: PlayArea, mode: str = "coop") -> str:
    return json.dumps(board_document(area, mode), indent=1)
