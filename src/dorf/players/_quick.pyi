"""Types of the planner's compiled quick evaluation (dorf/players/_quick.c)."""

from dorf.rules.area import PlayArea

def quick(
    area: PlayArea,
    constants: tuple[float, ...],
    flags: list[tuple[int, str]],
    landscapes_left: int,
    tasks_left: int,
    supply: dict[str, int],
    done: int,
    open_tasks: list[tuple[int, int, str]],
) -> float: ...
