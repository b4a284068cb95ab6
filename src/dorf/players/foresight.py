"""What the sampled futures show: how often a placement leads to a task completed or a flag closed.

When what a placement does now and what the learned models read from the
area after it name no difference, the planner's preference comes from its
look-ahead.  :func:`foresee` plays the planner's own rollouts (the same policy,
the same depth) from a placement over sampled futures and tallies, at each
rollout's end, which tasks are completed, which flag territories closed, the
longest river and track, the mountains and lakes, and the score.
:func:`foresight_gains` compares two placements over the *same* futures and
says what the better one leads to more often: "is more likely to complete
village 4 in the next 8 tiles: 70% instead of 35%" (of the games the coach played out from each).
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field

from dorf.players.explain import FLAG_NAMES, weightiest
from dorf.players.planner import PlannerPlayer, Position, position_of
from dorf.players.registry import View
from dorf.rules.area import Placement, PlayArea
from dorf.rules.hexgrid import cell_of, hex_of
from dorf.rules.tasks import COMPLETED

#: Futures a comparison plays (each placement meets the same ones).
FUTURES = 24
#: A difference worth telling: this much of a task's value (or a flag territory's size) in
#: expected points, and at least this share of the futures.
TOLD_POINTS = 0.75
TOLD_SHARE = 0.125


@dataclass
class Tally:
    """Over the futures played from one placement: per task (by index) and flag (by cell) the share
    of futures where it ended completed or closed, and the means of the rest."""

    #: The tasks there are once the tile is placed (later ones differ from future to future), by
    #: index: their names ("forest 6", with the cell where two have the same name) and values.
    names: dict[int, str]
    values: dict[int, float]
    #: The tasks (by index) completed before the placement: not counted.
    done: frozenset[int]
    #: The flag tiles there are once the tile is placed (the first of a rollout's flags), by cell:
    #: their names ("the forest flag", with the cell where two show the same flag).
    flag_names: dict[int, str]
    #: Tiles each rollout played after the placement (at most; fewer where the game ends).
    depth: int
    futures: int = 0
    tasks: dict[int, float] = field(default_factory=dict)
    flags: dict[int, float] = field(default_factory=dict)
    flag_sizes: dict[int, float] = field(default_factory=dict)
    #: Per task type: the points of its completed tasks (the tasks of the futures too).
    kinds: dict[str, float] = field(default_factory=dict)
    river: float = 0.0
    track: float = 0.0
    pairs: float = 0.0

    def add(self, area: PlayArea, flags: list[tuple[int, str]]) -> None:
        self.futures += 1
        for i, task in enumerate(area.tasks):
            if i in self.done:
                continue
            completed = task.status is COMPLETED
            if completed:
                self.kinds[task.spec.type] = self.kinds.get(task.spec.type, 0.0) + task.spec.value
            if i in self.names:
                self.tasks[i] = self.tasks.get(i, 0.0) + completed
        for at, letter in flags[: len(self.flag_names)]:
            size, open_edges = area.figures(at, letter)
            self.flag_sizes[at] = self.flag_sizes.get(at, 0.0) + size
            self.flags[at] = self.flags.get(at, 0.0) + (open_edges == 0)
        self.river += area.longest_river
        self.track += area.longest_track
        self.pairs += area.mountains + area.lakes

    def share(self, count: float) -> float:
        return count / max(self.futures, 1)


def _named(items: list[tuple[int, int, str]]) -> dict[int, str]:
    """Per key, its name; where two items share a name, each gets its cell ("forest 6 at 2,-3")."""
    names = [name for _, _, name in items]
    out = {}
    for key, cell, name in items:
        if names.count(name) > 1:
            spot = hex_of(cell)
            name += f" at {spot.q},{spot.r}"
        out[key] = name
    return out


def foresee(player: PlannerPlayer, view: View, placement: Placement, futures: int, seed: int) -> Tally:
    """Play ``futures`` of the planner's rollouts from ``placement`` (futures drawn from ``seed``:
    the same seed gives the same futures for every placement); what they lead to."""
    position: Position = position_of(view)
    player.evaluator = player.evaluator_for(position.mode)
    cell = cell_of(*placement.at)
    tasks = [(task.cell, task.spec) for task in position.area.tasks]
    if position.task is not None:
        tasks.append((cell, position.task))
    flags = list(position.flags)
    if position.flag is not None:
        flags.append((cell, position.flag))
    tally = Tally(
        _named([(i, at, str(spec)) for i, (at, spec) in enumerate(tasks)]),
        {i: float(spec.value) for i, (_, spec) in enumerate(tasks)},
        frozenset(i for i, task in enumerate(position.area.tasks) if task.status is COMPLETED),
        _named([(at, at, f"the {FLAG_NAMES.get(letter, letter)} flag") for at, letter in flags]),
        player.depth_for(position.mode),
    )
    rng = random.Random(seed)
    for _ in range(futures):
        future = position.sample(rng)
        player.rollout(position, (cell, placement.rot), future, random.Random(rng.random()), tally.add)
    return tally


def foresight_gains(
    player: PlannerPlayer,
    view: View,
    better: Placement,
    worse: Placement,
    seed: int,
    futures: int = FUTURES,
    limit: int = 2,
) -> list[str]:
    """What ``better`` leads to more often than ``worse`` over the same sampled futures, in words,
    most points first."""
    mine = foresee(player, view, better, futures, seed)
    theirs = foresee(player, view, worse, futures, seed)
    within = f"in the next {mine.depth} tiles"
    found: list[tuple[float, str]] = []
    for i, count in mine.tasks.items():
        ours, other = mine.share(count), theirs.share(theirs.tasks.get(i, 0.0))
        points = (ours - other) * mine.values[i]
        if ours - other >= TOLD_SHARE and points >= TOLD_POINTS:
            found.append(
                (
                    points,
                    f"is more likely to complete {mine.names[i]} {within}: {ours:.0%} instead of {other:.0%}",
                )
            )
    for at, count in mine.flags.items():
        ours, other = mine.share(count), theirs.share(theirs.flags.get(at, 0.0))
        points = (ours - other) * mine.share(mine.flag_sizes[at])
        if ours - other >= TOLD_SHARE and points >= TOLD_POINTS:
            found.append(
                (
                    points,
                    f"is more likely to close {mine.flag_names[at]} {within}: "
                    f"{ours:.0%} instead of {other:.0%}",
                )
            )
    for name, ours, other in (
        ("river", mine.share(mine.river), theirs.share(theirs.river)),
        ("track", mine.share(mine.track), theirs.share(theirs.track)),
    ):
        if ours - other >= 1.0:
            found.append(
                (
                    ours - other,
                    f"makes the longest {name} {ours:.1f} tiles long {within} on average, "
                    f"instead of {other:.1f}",
                )
            )
    pairs = mine.share(mine.pairs) - theirs.share(theirs.pairs)
    if pairs * 3 >= TOLD_POINTS:
        found.append(
            (
                3 * pairs,
                f"completes {mine.share(mine.pairs):.1f} mountains and lakes {within} on average, "
                f"instead of {theirs.share(theirs.pairs):.1f}",
            )
        )
    if not found:
        # No single task or flag: the task points of a kind over all tasks, those to come included.
        for kind, points in mine.kinds.items():
            ours, other = mine.share(points), theirs.share(theirs.kinds.get(kind, 0.0))
            if ours - other >= TOLD_POINTS / 2:
                found.append(
                    (
                        ours - other,
                        f"completes more {kind} tasks {within}: {ours:.1f} points on average "
                        f"instead of {other:.1f}",
                    )
                )
    return weightiest(found, limit)


__all__ = ["FUTURES", "Tally", "foresee", "foresight_gains"]
