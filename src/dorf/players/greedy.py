"""The greedy player: one placement ahead, judged by a documented evaluation.

For every legal placement of the revealed tile the player places it (push),
evaluates the area, and takes it back (pop); it plays the best.  The value of
an area is its score as it stands plus a *potential* for what is under way;
a placement also earns a little for every edge it joins and loses for every
edge it puts against another terrain.  In full (weights in :class:`Weights`):

- **score now**: completed tasks, closed flag territories, longest river and
  track, mountains and lakes: the mode's total as it stands;
- **task progress and feasibility**: each open task adds ``task_progress x
  value x (size / target)^2``, and nothing once it has failed; a task whose
  group has fewer open edges than tiles still missing is discounted
  (``cramped``), and one whose group has many more open edges than tiles still
  missing is too (``sprawl``): those edges are hard to close;
- **flags that can still close**: an open flag territory adds
  ``flag_potential x size / (1 + open edges)``;
- **edges**: each edge the placement joins to the same terrain (or a flag edge
  to a territory) adds ``joined_edge``; each edge put against a different
  terrain or meadow costs ``mismatched_edge``: placements that ruin nothing.

In the Head to Head draft the greedy player takes the tile with the highest
:func:`draft_value`: a task tile is worth its value discounted for how hard it
is, a landscape tile the edges that score on it (lake and mountain halves,
river edges, territory edges), and a balance term keeps about one task tile in
three picks.
"""

from __future__ import annotations

from dataclasses import dataclass

from dorf.rules.area import Placement, PlayArea, placements_of
from dorf.rules.hexgrid import hex_of
from dorf.rules.tasks import COMPLETED, CONNECTION, OPEN, TaskSpec
from dorf.rules.tiles import Tile

#: Share of the draft's picks that should be task tiles.
TASK_SHARE = 1 / 3


@dataclass(frozen=True)
class Weights:
    """The evaluation's weights (see the module's documentation)."""

    task_progress: float = 0.6
    cramped: float = 0.5
    sprawl: float = 0.02
    flag_potential: float = 1.0
    joined_edge: float = 1.0
    mismatched_edge: float = 0.5


DEFAULT = Weights()


def area_total(area: PlayArea) -> int:
    """The area's score as it stands, for any mode: completed task values, closed flag
    territories, longest river and track, 3 points for each mountain or lake."""
    total = area.longest_river + area.longest_track + 3 * (area.mountains + area.lakes)
    for task in area.tasks:
        if task.status is COMPLETED:
            total += task.spec.value
    for size, open_edges in area.flag_figures():
        if open_edges == 0:
            total += size
    return total


def potential(area: PlayArea, weights: Weights = DEFAULT) -> float:
    """What the open tasks and flags promise (see the module's documentation)."""
    value = 0.0
    for task in area.tasks:
        if task.status is not OPEN:
            continue
        spec = task.spec
        if spec.type == CONNECTION:
            count = area.neighbours(hex_of(task.cell))
            value += weights.task_progress * spec.value * (count / spec.value) ** 2
            continue
        best = 0.0
        for letter in spec.letters:
            size, open_edges = area.figures(task.cell, letter)
            if size > spec.value or open_edges == 0:
                continue
            missing = spec.value - size
            share = weights.task_progress * spec.value * (size / spec.value) ** 2
            if open_edges < missing:
                share *= 1 - weights.cramped * (missing - open_edges) / spec.value
            share -= weights.sprawl * max(0, open_edges - 2 * missing) * spec.value
            if share > best:
                best = share
        value += best
    for size, open_edges in area.flag_figures():
        if open_edges:
            value += weights.flag_potential * size / (1 + open_edges)
    return value


def evaluate(area: PlayArea, weights: Weights = DEFAULT) -> float:
    """Score now plus potential."""
    return area_total(area) + potential(area, weights)


def ranked_moves(
    area: PlayArea, face: str, task: TaskSpec | None, flag: str | None, weights: Weights = DEFAULT
) -> list[tuple[float, tuple[int, int]]]:
    """Every legal move with its greedy value, best first (ties in cell, rotation order)."""
    scored = []
    for cell, k in sorted(area.legal_moves(face, task)):
        same, other = area.contacts(face, cell, k)
        area.push(face, cell, k, flag=flag, task=task)
        value = evaluate(area, weights)
        area.pop()
        scored.append((value + weights.joined_edge * same - weights.mismatched_edge * other, (cell, k)))
    scored.sort(key=lambda item: -item[0])
    return scored


def best_placement(
    area: PlayArea, face: str, task: TaskSpec | None, flag: str | None, weights: Weights = DEFAULT
) -> Placement:
    ranked = ranked_moves(area, face, task, flag, weights)
    if not ranked:
        raise ValueError("the tile fits nowhere")
    return placements_of([ranked[0][1]])[0]


def tile_worth(tile: Tile) -> float:
    """What a tile is worth in a Head to Head hand, before the balance of task and landscape tiles:
    a task tile its value discounted for how hard it is, a landscape tile the edges that score on it."""
    if tile.is_task:
        assert tile.value is not None
        return tile.value * (1.0 - 0.1 * (tile.value - 3))
    face = tile.face
    value = 1.5 * (face.count("P") + face.count("L")) + 0.4 * face.count("R")
    return value + 0.3 * sum(face.count(t) for t in "FGV") + 2.0 * ("X" in face)


def balance(is_task: bool, tasks_owned: int, owned: int) -> float:
    """The draft's balance term: task tiles gain while fewer than a third of a hand, landscapes after."""
    share = tasks_owned / owned if owned else TASK_SHARE
    return 8.0 * (TASK_SHARE - share) if is_task else 8.0 * (share - TASK_SHARE)


def draft_value(tile: Tile, owned: list[Tile]) -> float:
    """How much the greedy player wants a tile in the Head to Head draft."""
    tasks_owned = sum(1 for t in owned if t.is_task)
    return tile_worth(tile) + balance(tile.is_task, tasks_owned, len(owned))


__all__ = [
    "DEFAULT",
    "Weights",
    "area_total",
    "balance",
    "best_placement",
    "draft_value",
    "evaluate",
    "potential",
    "ranked_moves",
    "tile_worth",
]
