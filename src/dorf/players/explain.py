"""What a placement does, in words a player uses: "completes grain 5", "keeps the forest flag closable".

:func:`effects` places the tile (push), reads what changed against the area
before, and takes the tile back (pop).  An effect is a short phrase with a
weight (how much it usually matters, roughly in points) and, for comparisons,
the phrase that says the opposite.  :func:`gains` names what a better
placement achieves that another does not: the coach's verdicts and the hint
use it.

>>> from dorf.games.coop import CoopGame
>>> from dorf.players import make_player
>>> state, greedy = CoopGame(seed=5).new_state(), make_player("greedy")
>>> for _ in range(27):
...     state.play(greedy.choose(state.view()))
>>> view = state.view()
>>> tile, task = view.revealed.tile, view.revealed.task
>>> tile.face, task
('VVVVVV', TaskSpec(type='village', value=5, types=()))
>>> best, worst = greedy.choose(view), view.legal_placements()[0]
>>> summary(effects(view.area, tile.face, task, tile.flag, best))
['completes village 5 at once']
>>> gains(effects(view.area, tile.face, task, tile.flag, best),
...       effects(view.area, tile.face, task, tile.flag, worst))
['completes village 5 at once']
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from dorf.players.outlook import Fits
from dorf.rules.area import Placement, PlayArea
from dorf.rules.hexgrid import cell_of, hex_of
from dorf.rules.tasks import COMPLETED, CONNECTION, FAILED, OPEN, Task, TaskSpec

FLAG_NAMES = {"F": "forest", "G": "grain", "V": "village", "X": "multicoloured"}


@dataclass(frozen=True)
class Effect:
    """One thing a placement does: its words, how much it matters, and its opposite's words."""

    key: str
    text: str
    weight: float
    opposite: str = ""


def _task_name(task: Task | TaskSpec) -> str:
    spec = task.spec if isinstance(task, Task) else task
    return str(spec)


def _task_size(area: PlayArea, task: Task) -> tuple[int, int]:
    """The best size and open edges of the group a task counts (a connection task: its neighbours)."""
    if task.spec.type == CONNECTION:
        return area.neighbours(hex_of(task.cell)), 1
    best = (0, 0)
    for letter in task.spec.letters:
        size, open_edges = area.figures(task.cell, letter)
        if size <= task.spec.value and size > best[0]:
            best = (size, open_edges)
    return best


def _flag_state(area: PlayArea, fits: Fits | None) -> dict[int, tuple[str, int, int, bool]]:
    """Per flag tile cell: its letter, territory size, open edges, and whether it can still close."""
    out = {}
    for tile in area.placed:
        if tile.flag is None:
            continue
        cell = cell_of(*tile.at)
        size, open_edges = area.figures(cell, tile.flag)
        closable = True
        if open_edges and fits is not None:
            surroundings = area.surroundings
            closable = all(fits.takers(surroundings(near)) for near in area.open_cells(cell, tile.flag))
        out[cell] = (tile.flag, size, open_edges, closable)
    return out


def _enterable(area: PlayArea, task: Task, fits: Fits | None) -> bool:
    if fits is None or task.spec.type == CONNECTION:
        return True
    surroundings = area.surroundings
    for letter in task.spec.letters:
        size, open_edges = area.figures(task.cell, letter)
        if size > task.spec.value or open_edges == 0:
            continue
        for near, d in area.open_cells(task.cell, letter).items():
            if fits.showing(surroundings(near), d, letter):
                return True
    return False


def effects(
    area: PlayArea,
    face: str,
    task: TaskSpec | None,
    flag: str | None,
    placement: Placement,
    fits: Fits | None = None,
) -> list[Effect]:
    """What placing ``face`` (with its task and flag) at ``placement`` does, most important first.

    The area is left as it was.
    """
    cell = cell_of(*placement.at)
    k = placement.rot
    open_before = {t: _task_size(area, t) for t in area.tasks if t.status is OPEN}
    enterable_before = {t: _enterable(area, t, fits) for t in open_before}
    flags_before = _flag_state(area, fits)
    river, track = area.longest_river, area.longest_track
    pairs = area.mountains + area.lakes
    same, other = area.contacts(face, cell, k)
    area.push(face, cell, k, flag=flag, task=task)
    try:
        found = _read_effects(
            area, open_before, enterable_before, flags_before, river, track, pairs, fits, cell, flag, task
        )
    finally:
        area.pop()
    if same:
        found.append(Effect("joined", f"joins {same} edge{'s' * (same != 1)}", 0.5 * same))
    if other:
        found.append(
            Effect(
                "mismatched", f"puts {other} edge{'s' * (other != 1)} against another terrain", -0.4 * other
            )
        )
    found.sort(key=lambda e: -abs(e.weight))
    return found


def _read_effects(
    area: PlayArea,
    open_before: dict[Task, tuple[int, int]],
    enterable_before: dict[Task, bool],
    flags_before: dict[int, tuple[str, int, int, bool]],
    river: int,
    track: int,
    pairs: int,
    fits: Fits | None,
    cell: int,
    flag: str | None,
    task: TaskSpec | None,
) -> list[Effect]:
    found = []
    new_task = area.tasks[-1] if task is not None else None
    for t in area.tasks:
        name = _task_name(t)
        key = f"task@{t.cell}"
        if t is new_task:
            if t.status is COMPLETED:
                found.append(Effect(key + "done", f"completes {name} at once", t.spec.value + 1))
            else:
                size, _ = _task_size(area, t)
                found.append(
                    Effect(key + "new", f"starts {name}" + (f" at {size} tiles" if size > 1 else ""), 0)
                )
            continue
        if t not in open_before:
            continue
        if t.status is COMPLETED:
            found.append(Effect(key + "done", f"completes {name}", t.spec.value, f"leaves {name} open"))
        elif t.status is FAILED:
            found.append(
                Effect(key + "fail", f"gives up {name}", -t.spec.value / 2, f"keeps {name} possible")
            )
        else:
            size, _ = _task_size(area, t)
            if size > open_before[t][0]:
                missing = t.spec.value - size
                found.append(
                    Effect(
                        key + "grow",
                        f"brings {name} to {size} of {t.spec.value}"
                        + (f" ({missing} to go)" if missing > 1 else " (one to go)"),
                        1.0 / max(missing, 1),
                    )
                )
            if enterable_before[t] and not _enterable(area, t, fits):
                found.append(
                    Effect(
                        key + "stuck",
                        f"leaves {name} where no tile can reach it",
                        -t.spec.value / 2,
                        f"keeps {name} reachable",
                    )
                )
    flags_after = _flag_state(area, fits)
    for at, (letter, size, open_edges, closable) in flags_after.items():
        name = FLAG_NAMES.get(letter, letter)
        key = f"flag@{at}"
        before = flags_before.get(at)
        if before is None:
            if open_edges == 0:
                found.append(Effect(key + "closed", f"closes the {name} flag at {size} tiles", size))
            continue
        _, size_before, open_before_flag, closable_before = before
        if open_before_flag and open_edges == 0:
            found.append(
                Effect(
                    key + "closed",
                    f"closes the {name} flag at {size} tiles",
                    size,
                    f"leaves the {name} flag open",
                )
            )
        elif closable_before and not closable:
            found.append(
                Effect(
                    key + "unclosable",
                    f"leaves the {name} flag with a gap no tile can close",
                    -size / 2,
                    f"keeps the {name} flag closable",
                )
            )
        elif size > size_before and open_edges:
            found.append(Effect(key + "grow", f"grows the {name} flag territory to {size}", 0.3))
    if area.longest_river > river:
        found.append(
            Effect(
                "river", f"lengthens the longest river to {area.longest_river}", area.longest_river - river
            )
        )
    if area.longest_track > track:
        found.append(
            Effect(
                "track", f"lengthens the longest track to {area.longest_track}", area.longest_track - track
            )
        )
    made = area.mountains + area.lakes - pairs
    if made:
        found.append(
            Effect(
                "pairs", f"completes {made} mountain{'s' * (made != 1)} or lake{'s' * (made != 1)}", 3 * made
            )
        )
    return found


def gains(
    better: Sequence[Effect], worse: Sequence[Effect], limit: int = 3, versus: str = "the other placement"
) -> list[str]:
    """What ``better`` achieves that ``worse`` does not, in words, most important first: its own
    effects that ``worse`` lacks or has less of (a task brought nearer its target), the opposite of
    ``worse``'s harmful effects it avoids, and edges joined or kept off other terrain (counted
    beside ``worse``'s, named ``versus``: "the other placement", or "yours" in the coach's
    lessons)."""
    mine = {e.key: e for e in better}
    theirs = {e.key: e for e in worse}
    found: list[tuple[float, str]] = []
    for e in better:
        if e.key in ("joined", "mismatched") or e.weight <= 0:
            continue
        other = theirs.get(e.key)
        if other is None or (e.weight > other.weight and e.text != other.text):
            found.append((e.weight, e.text))
    for e in worse:
        if e.key not in mine and e.weight < 0 and e.opposite:
            found.append((-e.weight, e.opposite))
    joined = [_count(mine.get("joined")), _count(theirs.get("joined"))]
    if joined[0] > joined[1]:
        found.append(
            (
                0.5 * (joined[0] - joined[1]),
                f"joins {joined[0]} edge{'s' * (joined[0] != 1)} ({versus} {joined[1]})",
            )
        )
    against = [_count(mine.get("mismatched")), _count(theirs.get("mismatched"))]
    if against[0] < against[1]:
        found.append(
            (
                0.4 * (against[1] - against[0]),
                f"puts {against[0] or 'no'} edge{'s' * (against[0] > 1)} against another terrain "
                f"({versus} {against[1]})",
            )
        )
    found.sort(key=lambda item: -item[0])
    return [text for _, text in found[:limit]]


def weightiest(found: Sequence[tuple[float, str]], limit: int) -> list[str]:
    """The phrases of (weight, phrase) pairs, heaviest first, each once, at most ``limit``."""
    told: list[str] = []
    for _, text in sorted(found, key=lambda item: -item[0]):
        if text not in told:
            told.append(text)
    return told[:limit]


def _count(effect: Effect | None) -> int:
    """The number of edges an edge effect ("joins 3 edges") counts (0 for none)."""
    return 0 if effect is None else int(effect.text.split()[1])


def summary(found: Sequence[Effect], limit: int = 3) -> list[str]:
    """The effects worth telling a player, most important first (at least one)."""
    told = [e.text for e in found if abs(e.weight) >= 1][:limit]
    return told or [e.text for e in found[:1]]


__all__ = ["Effect", "effects", "gains", "summary", "weightiest"]
