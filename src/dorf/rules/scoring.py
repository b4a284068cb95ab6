"""Score pads.

- The cooperative game: S1 tasks by type, S2 flags by colour plus the longest
  track and river, S3 for unlocked components (none yet), and the total.
- The Duel: tasks for seven types (connection and double added), flags by
  colour, longest track and river, total.
- Head to Head: tasks for four types, longest river, multicoloured flags,
  mountains and lakes (3 points each), total; and the tie-breakers.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from dorf.rules.area import PlayArea
from dorf.rules.hexgrid import cell_of, hex_of
from dorf.rules.tasks import COMPLETED, CONNECTION, DOUBLE
from dorf.rules.terrain import TASK_LETTER

TASK_TYPES: tuple[str, ...] = tuple(TASK_LETTER)
DUEL_TASK_TYPES: tuple[str, ...] = (*TASK_TYPES, CONNECTION, DOUBLE)
HEAD_TO_HEAD_TASK_TYPES: tuple[str, ...] = ("forest", "grain", "village", "river")
#: Points for each completed mountain or lake (rule 20).
PAIR_POINTS = 3
FLAG_COLOURS: dict[str, str] = {"F": "forest", "G": "grain", "V": "village"}


@dataclass(frozen=True)
class TerritoryPad:
    """What the cooperative and the Duel pads share: tasks by type, flags by colour, the longest
    track and river (S1 and S2 in the cooperative game's words)."""

    tasks: dict[str, int]
    flags: dict[str, int]
    longest_track: int
    longest_river: int

    @property
    def s1(self) -> int:
        return sum(self.tasks.values())

    @property
    def s2(self) -> int:
        return sum(self.flags.values()) + self.longest_track + self.longest_river

    @property
    def total(self) -> int:
        return self.s1 + self.s2

    def as_json(self) -> dict[str, Any]:
        """The ``dorf score --json`` object for a coop or duel board."""
        return {
            "tasks": dict(self.tasks),
            "flags": dict(self.flags),
            "longest_river": self.longest_river,
            "longest_track": self.longest_track,
            "total": self.total,
            "task_list": list(self.task_list),
        }

    @property
    def task_list(self) -> tuple[dict[str, Any], ...]:
        return ()


@dataclass(frozen=True)
class ScorePad(TerritoryPad):
    """The score pad of one cooperative game, field by field."""

    unlocked: int = 0
    task_list: tuple[dict[str, Any], ...] = field(default=(), compare=False)

    @property
    def s3(self) -> int:
        return self.unlocked

    @property
    def total(self) -> int:
        return self.s1 + self.s2 + self.s3

    def lines(self) -> list[str]:
        """The pad as text, one field a line."""
        out = ["Score pad"]
        for name in TASK_TYPES:
            out.append(f"  {name + ' tasks':<16}{self.tasks[name]:>4}")
        out.append(f"  {'S1 tasks':<16}{self.s1:>4}")
        for name in FLAG_COLOURS.values():
            out.append(f"  {name + ' flags':<16}{self.flags[name]:>4}")
        out.append(f"  {'longest track':<16}{self.longest_track:>4}")
        out.append(f"  {'longest river':<16}{self.longest_river:>4}")
        out.append(f"  {'S2':<16}{self.s2:>4}")
        out.append(f"  {'S3 unlocked':<16}{self.s3:>4}")
        out.append(f"  {'total':<16}{self.total:>4}")
        return out


@dataclass(frozen=True)
class DuelScorePad(TerritoryPad):
    """One player's Duel score pad: tasks for seven types, flags by colour, longest track and river."""

    task_list: tuple[dict[str, Any], ...] = field(default=(), compare=False)

    def lines(self) -> list[str]:
        out = ["Score pad (Duel)"]
        for name in DUEL_TASK_TYPES:
            out.append(f"  {name + ' tasks':<18}{self.tasks[name]:>4}")
        for name in FLAG_COLOURS.values():
            out.append(f"  {name + ' flags':<18}{self.flags[name]:>4}")
        out.append(f"  {'longest track':<18}{self.longest_track:>4}")
        out.append(f"  {'longest river':<18}{self.longest_river:>4}")
        out.append(f"  {'total':<18}{self.total:>4}")
        return out


@dataclass(frozen=True)
class HeadToHeadScorePad:
    """One player's Head to Head score pad: the seven categories and the total."""

    tasks: dict[str, int]
    longest_river: int
    flags: int
    mountains: int
    lakes: int
    task_list: tuple[dict[str, Any], ...] = field(default=(), compare=False)

    @property
    def mountains_lakes(self) -> int:
        """Points for mountains and lakes, 3 each."""
        return PAIR_POINTS * (self.mountains + self.lakes)

    @property
    def total(self) -> int:
        return sum(self.tasks.values()) + self.longest_river + self.flags + self.mountains_lakes

    def tie_breakers(self) -> tuple[int, int, int, int, int]:
        """What decides between two pads (rule 21): total, then mountains and lakes
        formed, longest river, flag points, task points."""
        return (
            self.total,
            self.mountains + self.lakes,
            self.longest_river,
            self.flags,
            sum(self.tasks.values()),
        )

    def as_json(self) -> dict[str, Any]:
        """The ``dorf score --json`` object for a head-to-head board."""
        return {
            "tasks": dict(self.tasks),
            "longest_river": self.longest_river,
            "flags": self.flags,
            "mountains_lakes": self.mountains_lakes,
            "total": self.total,
            "task_list": list(self.task_list),
        }

    def lines(self) -> list[str]:
        out = ["Score pad (Head to Head)"]
        for name in HEAD_TO_HEAD_TASK_TYPES:
            out.append(f"  {name + ' tasks':<20}{self.tasks[name]:>4}")
        out.append(f"  {'longest river':<20}{self.longest_river:>4}")
        out.append(f"  {'multicoloured flags':<20}{self.flags:>4}")
        pairs = f"{self.mountains}+{self.lakes}"
        out.append(f"  {'mountains/lakes ' + pairs:<20}{self.mountains_lakes:>4}")
        out.append(f"  {'total':<20}{self.total:>4}")
        return out


def task_list(area: PlayArea) -> tuple[dict[str, Any], ...]:
    """One entry per task, in placement order, as ``dorf score --json`` lists them.

    A double task's entry also has ``types``, its two territories.
    """
    out = []
    for task in area.tasks:
        at = hex_of(task.cell)
        entry: dict[str, Any] = {"at": [at.q, at.r], "type": task.type, "value": task.value}
        if task.spec.types:
            entry["types"] = list(task.spec.types)
        entry["status"] = task.status.value
        out.append(entry)
    return tuple(out)


def _task_points(area: PlayArea, types: tuple[str, ...]) -> dict[str, int]:
    tasks = dict.fromkeys(types, 0)
    for task in area.tasks:
        if task.status is COMPLETED and task.type in tasks:
            tasks[task.type] += task.value
    return tasks


def _flags_by_colour(area: PlayArea) -> dict[str, int]:
    """Per colour, the sizes of the closed territories flags stand in (as :meth:`PlayArea.flags`
    gives them, read through :meth:`PlayArea.figures`, which needs no cell lists)."""
    flags = dict.fromkeys(FLAG_COLOURS.values(), 0)
    for tile in area.placed:
        if tile.flag:
            size, open_edges = area.figures(cell_of(*tile.at), tile.flag)
            if open_edges == 0:
                flags[FLAG_COLOURS[tile.flag]] += size
    return flags


def score_coop(area: PlayArea, *, with_task_list: bool = True) -> ScorePad:
    """Score a play area as at the end of a cooperative game (``with_task_list=False``: the
    same pad without its list of tasks, for callers that only want the figures)."""
    tasks = _task_points(area, TASK_TYPES)
    flags = _flags_by_colour(area)
    listed = task_list(area) if with_task_list else ()
    return ScorePad(tasks, flags, area.longest_track, area.longest_river, 0, listed)


def score_duel(area: PlayArea) -> DuelScorePad:
    """Score one player's area as at the end of a Duel."""
    tasks = _task_points(area, DUEL_TASK_TYPES)
    flags = _flags_by_colour(area)
    return DuelScorePad(tasks, flags, area.longest_track, area.longest_river, task_list=task_list(area))


def score_head_to_head(area: PlayArea) -> HeadToHeadScorePad:
    """Score one player's area as at the end of a Head to Head game.

    Every multicoloured flag edge is a flag: it scores the size of its
    territory if that is closed (one tile against meadow or another flag).
    """
    tasks = _task_points(area, HEAD_TO_HEAD_TASK_TYPES)
    flags = 0
    for tile in area.placed:
        if "X" in tile.face:
            size, open_edges = area.figures(cell_of(*tile.at), "X")
            if open_edges == 0:
                flags += size
    return HeadToHeadScorePad(tasks, area.longest_river, flags, area.mountains, area.lakes, task_list(area))


#: How each mode scores one play area.
SCORERS: dict[str, Callable[[PlayArea], ScorePad | DuelScorePad | HeadToHeadScorePad]] = {
    "coop": score_coop,
    "duel": score_duel,
    "head-to-head": score_head_to_head,
}

__all__ = [
    "DUEL_TASK_TYPES",
    "FLAG_COLOURS",
    "HEAD_TO_HEAD_TASK_TYPES",
    "SCORERS",
    "TASK_TYPES",
    "DuelScorePad",
    "HeadToHeadScorePad",
    "ScorePad",
    "score_coop",
    "score_duel",
    "score_head_to_head",
    "task_list",
]
