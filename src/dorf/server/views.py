"""What the browser sees of a game: play areas, tiles, tasks and score pads as JSON.

Everything here reads the engine's public state (a player's view holds the
same); nothing reads a stack, the removed tiles or a marker pile.

>>> from dorf.games.coop import CoopGame
>>> state = CoopGame(seed=2).new_state()
>>> state.play(state.legal_placements()[0])
>>> area = area_json(state.area)
>>> area["tiles"][0]["at"], len(area["tiles"][0]["edges"])
([0, 0], 6)
"""

from __future__ import annotations

from typing import Any

from dorf.formats.notation import task_document
from dorf.games.seat import Revealed
from dorf.rules.area import PlacedTile, PlayArea
from dorf.rules.hexgrid import Hex, hex_of
from dorf.rules.scoring import (
    DUEL_TASK_TYPES,
    FLAG_COLOURS,
    HEAD_TO_HEAD_TASK_TYPES,
    TASK_TYPES,
    DuelScorePad,
    HeadToHeadScorePad,
    ScorePad,
)
from dorf.rules.tasks import CONNECTION, OPEN, Task, TaskSpec
from dorf.rules.terrain import TERRAIN_NAMES
from dorf.rules.tiles import Tile, canonical_rotation, distinct_rotations

Json = dict[str, Any]
Pad = ScorePad | DuelScorePad | HeadToHeadScorePad


def hex_json(at: Hex) -> list[int]:
    return [at.q, at.r]


def task_label(spec: TaskSpec) -> str:
    """The short text on a task marker: ``F5``, ``C4`` (connection), ``FG6`` (double)."""
    letters = "C" if spec.type == CONNECTION else spec.letters
    return f"{letters}{spec.value}"


def spec_json(spec: TaskSpec) -> Json:
    out = task_document(spec)
    out["label"] = task_label(spec)
    out["name"] = spec.name
    return out


def task_figures(area: PlayArea, task: Task) -> list[tuple[int, int]]:
    """Per area the task watches: (size, open edges) now; for a connection task (tiles around, 0)."""
    if task.spec.type == CONNECTION:
        return [(area.neighbours(hex_of(task.cell)), 0)]
    return [area.figures(task.cell, letter) for letter in task.spec.letters]


def task_json(area: PlayArea, task: Task, index: int) -> Json:
    out = spec_json(task.spec)
    out["at"] = hex_json(hex_of(task.cell))
    out["status"] = task.status.value
    out["index"] = index
    if task.status is OPEN:
        figures = task_figures(area, task)
        out["sizes"] = [size for size, _ in figures]
        out["open_edges"] = [edges for _, edges in figures]
    return out


def tile_json(tile: PlacedTile, number: int, task_index: int | None) -> Json:
    out: Json = {
        "n": number,
        "at": hex_json(tile.at),
        "edges": tile.edges,
        "face": tile.face,
        "rot": tile.rot,
    }
    if tile.flag:
        out["flag"] = tile.flag
    if tile.task is not None:
        out["task"] = task_index
    return out


def area_json(area: PlayArea) -> Json:
    """The tiles in order of placement, every task with its status, open tasks with their figures."""
    index_of = {id(task): i for i, task in enumerate(area.tasks)}
    tiles = [
        tile_json(tile, n, None if tile.task is None else index_of[id(tile.task)])
        for n, tile in enumerate(area.placed, 1)
    ]
    flags = []
    for tile, group in area.flags():
        flags.append(
            {
                "at": hex_json(tile.at),
                "letter": tile.flag,
                "size": group.size,
                "closed": group.closed,
                "open_edges": group.open_edges,
            }
        )
    return {
        "tiles": tiles,
        "tasks": [task_json(area, task, i) for i, task in enumerate(area.tasks)],
        "flags": flags,
        "longest_river": area.longest_river,
        "longest_track": area.longest_track,
        "lakes": area.lakes,
        "mountains": area.mountains,
        "last": hex_json(area.placed[-1].at) if area.placed else None,
    }


def face_json(tile: Tile) -> Json:
    """A tile of the set as the draft and the revealed-tile card draw it."""
    out: Json = {"face": tile.face, "kind": tile.kind}
    if tile.flag:
        out["flag"] = tile.flag
    if tile.task:
        out["task_type"] = tile.task
    if tile.value is not None:
        out["value"] = tile.value
    return out


def revealed_json(revealed: Revealed | None) -> Json | None:
    """The tile on the table: its face, what it carries, and its rotations.

    ``canon[k]`` is the smallest rotation giving the same oriented tile as
    ``k``: the legal placements list only those.
    """
    if revealed is None:
        return None
    tile = revealed.tile
    out = face_json(tile)
    out["id"] = revealed.tile_id
    out["rotations"] = list(distinct_rotations(tile.face))
    out["canon"] = [canonical_rotation(tile.face, k) for k in range(6)]
    if revealed.task is not None:
        out["task"] = spec_json(revealed.task)
    return out


def _row(label: str, value: int, kind: str = "") -> list[Any]:
    return [label, value, kind]


def pad_rows(pad: Pad) -> list[list[Any]]:
    """The score pad as rows ``[label, value, kind]``; kind is ``sum`` for subtotals, ``total``."""
    rows: list[list[Any]] = []
    if isinstance(pad, HeadToHeadScorePad):
        rows += [_row(f"{name} tasks", pad.tasks[name]) for name in HEAD_TO_HEAD_TASK_TYPES]
        rows.append(_row("longest river", pad.longest_river))
        rows.append(_row("multicoloured flags", pad.flags))
        rows.append(_row(f"mountains {pad.mountains} + lakes {pad.lakes}", pad.mountains_lakes))
        rows.append(_row("total", pad.total, "total"))
        return rows
    types = TASK_TYPES if isinstance(pad, ScorePad) else DUEL_TASK_TYPES
    rows += [_row(f"{name} tasks", pad.tasks[name]) for name in types]
    if isinstance(pad, ScorePad):
        rows.append(_row("S1 tasks", pad.s1, "sum"))
    rows += [_row(f"{name} flags", pad.flags[name]) for name in FLAG_COLOURS.values()]
    rows.append(_row("longest track", pad.longest_track))
    rows.append(_row("longest river", pad.longest_river))
    if isinstance(pad, ScorePad):
        rows.append(_row("S2 flags and longest", pad.s2, "sum"))
        rows.append(_row("S3 unlocked", pad.s3, "sum"))
    rows.append(_row("total", pad.total, "total"))
    return rows


def pad_json(pad: Pad) -> Json:
    return {"total": pad.total, "rows": pad_rows(pad), "pad": pad.as_json()}


def describe_tile(tile: Tile, task: TaskSpec | None = None) -> str:
    """A tile in words for the log: ``FFGGMM`` with its task or flag."""
    text = tile.face
    if task is not None:
        text += f" ({task} task)"
    elif tile.task and tile.value is not None:
        text += f" ({tile.task} {tile.value} task)"
    if tile.flag:
        text += (
            " with a multicoloured flag" if tile.flag == "X" else f" with a {TERRAIN_NAMES[tile.flag]} flag"
        )
    return text
