"""Tasks: a marker's demand on the territory, river or track through its tile.

A task is exact (rules notes 3 and 4): completed the moment its area has
exactly ``value`` tiles, failed when a later placement makes the area larger,
or closes it while smaller.  Completion is checked first.

The Duel adds two kinds (rules notes 25 and 26): a *connection* task asks for
exactly ``value`` tiles around its tile and never fails; a *double* task names
two territories and is completed when either, through its tile, has exactly
``value`` tiles, failing only when both have become impossible.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import Enum
from typing import NamedTuple

from dorf.rules.terrain import TASK_LETTER, TERRITORY_LETTERS

CONNECTION = "connection"
DOUBLE = "double"
#: The Double markers of the Duel: the two territories each names.
DOUBLE_PAIRS: tuple[tuple[str, str], ...] = (("forest", "grain"), ("village", "forest"), ("grain", "village"))


class TaskStatus(Enum):
    OPEN = "open"
    COMPLETED = "completed"
    FAILED = "failed"


OPEN = TaskStatus.OPEN
COMPLETED = TaskStatus.COMPLETED
FAILED = TaskStatus.FAILED


class TaskSpec(NamedTuple):
    """What a task tile asks once its marker is on it: ``TaskSpec("forest", 5)``.

    A double task also names its two territories:
    ``TaskSpec("double", 6, ("forest", "grain"))``.

    >>> TaskSpec("double", 6, ("forest", "grain")).letters, TaskSpec("connection", 4).letters
    ('FG', '')
    >>> str(TaskSpec("river", 5)), str(TaskSpec("double", 6, ("forest", "grain")))
    ('river 5', 'forest/grain 6')
    """

    type: str
    value: int
    types: tuple[str, ...] = ()

    @property
    def letter(self) -> str:
        """The letter a territory, river or track task counts."""
        return TASK_LETTER[self.type]

    @property
    def letters(self) -> str:
        """Every letter whose area the task looks at: one, two (double) or none (connection)."""
        if self.type == DOUBLE:
            return "".join(TASK_LETTER[t] for t in self.types)
        if self.type == CONNECTION:
            return ""
        return TASK_LETTER[self.type]

    @property
    def name(self) -> str:
        """The type as a player reads it: ``forest``, ``connection``, ``forest/grain``."""
        return "/".join(self.types) if self.type == DOUBLE else self.type

    def __str__(self) -> str:
        return f"{self.name} {self.value}"

    def check(self) -> TaskSpec:
        """Return the spec if it is well formed, else raise ValueError."""
        if self.type == DOUBLE:
            if (
                len(self.types) != 2
                or len(set(self.types)) != 2
                or not all(TASK_LETTER.get(t, "") in TERRITORY_LETTERS for t in self.types)
            ):
                raise ValueError("a double task names two different territories: forest, grain or village")
        elif self.types:
            raise ValueError(f"only a double task names territories, not a {self.type} task")
        elif self.type != CONNECTION and self.type not in TASK_LETTER:
            raise ValueError(f"unknown task type {self.type!r}")
        return self


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
    def name(self) -> str:
        return self.spec.name

    @property
    def is_open(self) -> bool:
        return self.status is OPEN
