"""The cooperative score pad: S1 tasks by type, S2 flags by colour plus the
longest track and river, S3 for unlocked components (none yet), and the total."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from dorf.area import PlayArea
from dorf.hexgrid import hex_of
from dorf.tasks import COMPLETED
from dorf.terrain import TASK_LETTER

TASK_TYPES: tuple[str, ...] = tuple(TASK_LETTER)
FLAG_COLOURS: dict[str, str] = {"F": "forest", "G": "grain", "V": "village"}


@dataclass(frozen=True)
class ScorePad:
    """The score pad of one cooperative game, field by field."""

    tasks: dict[str, int]
    flags: dict[str, int]
    longest_track: int
    longest_river: int
    unlocked: int = 0
    task_list: tuple[dict[str, Any], ...] = field(default=(), compare=False)

    @property
    def s1(self) -> int:
        return sum(self.tasks.values())

    @property
    def s2(self) -> int:
        return sum(self.flags.values()) + self.longest_track + self.longest_river

    @property
    def s3(self) -> int:
        return self.unlocked

    @property
    def total(self) -> int:
        return self.s1 + self.s2 + self.s3

    def as_json(self) -> dict[str, Any]:
        """The ``dorf score --json`` object for a coop board."""
        return {
            "tasks": dict(self.tasks),
            "flags": dict(self.flags),
            "longest_river": self.longest_river,
            "longest_track": self.longest_track,
            "total": self.total,
            "task_list": list(self.task_list),
        }

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


def task_list(area: PlayArea) -> tuple[dict[str, Any], ...]:
    """One entry per task, in placement order, as ``dorf score --json`` lists them."""
    out = []
    for task in area.tasks:
        at = hex_of(task.cell)
        out.append({"at": [at.q, at.r], "type": task.type, "value": task.value, "status": task.status.value})
    return tuple(out)


def score_coop(area: PlayArea) -> ScorePad:
    """Score a play area as at the end of a cooperative game."""
    tasks = dict.fromkeys(TASK_TYPES, 0)
    for task in area.tasks:
        if task.status is COMPLETED:
            tasks[task.type] += task.value
    flags = dict.fromkeys(FLAG_COLOURS.values(), 0)
    for tile, group in area.flags():
        if group.closed:
            assert tile.flag is not None
            flags[FLAG_COLOURS[tile.flag]] += group.size
    return ScorePad(tasks, flags, area.longest_track, area.longest_river, 0, task_list(area))


__all__ = ["FLAG_COLOURS", "TASK_TYPES", "ScorePad", "score_coop", "task_list"]
