"""Tasks: a marker's demand on the territory, river or track through its tile.

A task is exact (rules notes 3 and 4): completed the moment its area has
exactly ``value`` tiles, failed when a later placement makes the area larger,
or closes it while smaller.  Completion is checked first.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import Enum
from typing import NamedTuple

from dorf.terrain import TASK_LETTER


class TaskStatus(Enum):
    OPEN = "open"
    COMPLETED = "completed"
    FAILED = "failed"


OPEN = TaskStatus.OPEN
COMPLETED = TaskStatus.COMPLETED
FAILED = TaskStatus.FAILED


class TaskSpec(NamedTuple):
    """What a task tile asks once its marker is on it: ``TaskSpec("forest", 5)``."""

    type: str
    value: int

    @property
    def letter(self) -> str:
        return TASK_LETTER[self.type]


def judge(size: int, open_edges: int, value: int) -> TaskStatus:
    """The status an open task takes for an area of ``size`` tiles.

    >>> judge(5, 0, 5), judge(6, 2, 5), judge(3, 0, 5), judge(3, 1, 5)
    (<TaskStatus.COMPLETED: 'completed'>, <TaskStatus.FAILED: 'failed'>, \
<TaskStatus.FAILED: 'failed'>, <TaskStatus.OPEN: 'open'>)
    """
    if size == value:
        return COMPLETED
    if size > value or open_edges == 0:
        return FAILED
    return OPEN


@dataclass(eq=False)
class Task:
    """A task in a play area: where it is, what it asks, how it stands."""

    cell: int
    spec: TaskSpec
    status: TaskStatus = OPEN

    @property
    def type(self) -> str:
        return self.spec.type

    @property
    def value(self) -> int:
        return self.spec.value

    @property
    def is_open(self) -> bool:
        return self.status is OPEN
