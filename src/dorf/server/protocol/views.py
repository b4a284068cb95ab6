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

import functools
from dataclasses import dataclass, field
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
from dorf.rules.tasks import CONNECTION, DOUBLE, OPEN, Task, TaskSpec
from dorf.rules.terrain import TERRAIN_NAMES
from dorf.rules.tiles import Tile, areas, canonical_rotation, distinct_rotations

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


def areas_json(edges: str) -> list[list[Any]]:
    """The engine's areas of a tile, for drawing: ``[letter, [directions]]`` per area.

    Every area is drawn as one region (or one river, one track), joined across
    the tile however far apart its edges are.

    >>> areas_json("FMFRRM")
    [['F', [0, 2]], ['R', [3, 4]]]
    """
    return [[letter, list(edges)] for letter, edges in areas(edges)]


def tile_json(tile: PlacedTile, number: int, task_index: int | None) -> Json:
    out: Json = {
        "n": number,
        "at": hex_json(tile.at),
        "edges": tile.edges,
        "face": tile.face,
        "rot": tile.rot,
        "areas": areas_json(tile.edges),
    }
    if tile.flag:
        out["flag"] = tile.flag
    if tile.task is not None:
        out["task"] = task_index
    return out


@dataclass
class Made:
    """Descriptions of an area's parts that never change once made, kept between versions: the
    placed tiles (in order of placement), and the finished tasks and closed flag territories
    (by task index, by the flag tile's index), each with the number of tiles placed when it was
    found final (an area seen with fewer, as before a pending placement, does not use it).
    After an undo the caller starts a new one."""

    tiles: list[Json] = field(default_factory=list)
    tasks: dict[int, tuple[int, Json]] = field(default_factory=dict)
    flags: dict[int, tuple[int, Json]] = field(default_factory=dict)


def area_json(area: PlayArea, made: Made | None = None) -> Json:
    """The tiles in order of placement, every task with its status, open tasks with their figures,
    every flag with its territory's figures (and cells, once closed).

    ``made``, if given, holds what was described before and does not change: it is used again,
    and what is new and final is added to it."""
    made = Made() if made is None else made
    count = len(area.placed)
    tiles = made.tiles
    if len(tiles) < count:
        index_of = {id(task): i for i, task in enumerate(area.tasks)}
        for n in range(len(tiles), count):
            tile = area.placed[n]
            tiles.append(tile_json(tile, n + 1, None if tile.task is None else index_of[id(tile.task)]))
    tasks = []
    for i, task in enumerate(area.tasks):
        final = made.tasks.get(i)
        if final is not None and final[0] <= count:
            described = final[1]
        else:
            described = task_json(area, task, i)
            if task.status is not OPEN:
                made.tasks[i] = (count, described)
        tasks.append(described)
    flags = []
    flagged = [(n, tile) for n, tile in enumerate(area.placed) if tile.flag is not None]
    for (n, tile), (size, open_edges) in zip(flagged, area.flag_figures(), strict=True):
        final = made.flags.get(n)
        if final is not None and final[0] <= count:
            flag = final[1]
        else:
            flag = {
                "at": hex_json(tile.at),
                "letter": tile.flag,
                "size": size,
                "closed": open_edges == 0,
                "open_edges": open_edges,
            }
            if open_edges == 0:  # a closed territory is drawn whole, and never changes again
                group = area.group(tile.at, tile.flag or "")
                assert group is not None
                flag["cells"] = [hex_json(cell) for cell in group.cells]
                made.flags[n] = (count, flag)
        flags.append(flag)
    return {
        "tiles": tiles[:count],
        "tasks": tasks,
        "flags": flags,
        "longest_river": area.longest_river,
        "longest_track": area.longest_track,
        "lakes": area.lakes,
        "mountains": area.mountains,
        "last": hex_json(area.placed[-1].at) if area.placed else None,
    }


def face_json(tile: Tile) -> Json:
    """A tile of the set as the draft and the revealed-tile card draw it (areas unturned)."""
    out: Json = {"face": tile.face, "kind": tile.kind, "areas": areas_json(tile.face)}
    if tile.flag:
        out["flag"] = tile.flag
    if tile.task:
        out["task_type"] = tile.task
    if tile.value is not None:
        out["value"] = tile.value
    return out


def log_tile(tile: Tile) -> Json:
    """A tile as a log line draws it small and says it in words (the page's catalog): its face
    (the edges as drawn), its areas, its flag.

    >>> from dorf.rules.tiles import Tile
    >>> log_tile(Tile("landscape", "GGGGTT"))
    {'face': 'GGGGTT', 'areas': [['G', [0, 1, 2, 3]], ['T', [4, 5]]]}
    """
    out: Json = {"face": tile.face, "areas": areas_json(tile.face)}
    if tile.flag:
        out["flag"] = tile.flag
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


#: The task fields in the order the rulebooks' pads list them (the cooperative pad's B1 to B5).
PAD_TASK_ORDER = ("forest", "grain", "village", "track", "river", CONNECTION, DOUBLE)
#: The flags by the colour the pads name them: green forest, yellow grain, red village.
FLAG_WORDS = {"forest": "Green", "grain": "Yellow", "village": "Red"}


@functools.cache
def _task_labels(types: tuple[str, ...], fields: tuple[str, ...]) -> tuple[tuple[str, str], ...]:
    """(task type, the pad's label of its row) in the pads' order."""
    ordered = [name for name in PAD_TASK_ORDER if name in types]
    marks = [f" ({field})" for field in fields] or [""] * len(ordered)
    return tuple(
        (name, f"{name.capitalize()} tasks{mark}") for name, mark in zip(ordered, marks, strict=True)
    )


def _task_rows(pad: Pad, types: tuple[str, ...], fields: tuple[str, ...] = ()) -> list[list[Any]]:
    tasks = pad.tasks
    return [[label, tasks[name], ""] for name, label in _task_labels(types, fields)]


def pad_rows(pad: Pad) -> list[list[Any]]:
    """The score pad as rows ``[label, value, kind]`` in the rulebook's words; kind is ``sum`` for
    a subtotal, ``total`` for the result.

    >>> from dorf.rules.area import PlayArea
    >>> from dorf.rules.scoring import score_coop
    >>> [row[0] for row in pad_rows(score_coop(PlayArea()))][5:7]
    ['Completed tasks (S1)', 'Green flags (C1)']
    """
    if isinstance(pad, HeadToHeadScorePad):
        rows = _task_rows(pad, HEAD_TO_HEAD_TASK_TYPES)
        rows.append(_row("Longest river", pad.longest_river))
        rows.append(_row("Multicoloured flags", pad.flags))
        rows.append(_row("Mountains/lakes", pad.mountains_lakes))
        rows.append(_row("Result", pad.total, "total"))
        return rows
    flags = [(FLAG_WORDS[name], pad.flags[name]) for name in FLAG_COLOURS.values()]
    if isinstance(pad, ScorePad):
        rows = _task_rows(pad, TASK_TYPES, ("B1", "B2", "B3", "B4", "B5"))
        rows.append(_row("Completed tasks (S1)", pad.s1, "sum"))
        rows += [_row(f"{colour} flags (C{i})", points) for i, (colour, points) in enumerate(flags, 1)]
        rows.append(_row("Longest track (D1)", pad.longest_track))
        rows.append(_row("Longest river (D2)", pad.longest_river))
        rows.append(_row("Flags, longest track and longest river (S2)", pad.s2, "sum"))
        rows.append(_row("Unlocked components (S3)", pad.s3, "sum"))
        rows.append(_row("Grand total (H)", pad.total, "total"))
        return rows
    rows = _task_rows(pad, DUEL_TASK_TYPES)
    rows.append(_row("Subtotal: tasks", pad.s1, "sum"))
    rows += [
        _row(f"{colour} flags ({field})", points)
        for (colour, points), field in zip(flags, "ABC", strict=True)
    ]
    rows.append(_row("Longest track (D)", pad.longest_track))
    rows.append(_row("Longest river (E)", pad.longest_river))
    rows.append(_row("Subtotal F: flags, track and river", pad.s2, "sum"))
    rows.append(_row("Result", pad.total, "total"))
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
