"""The planner's evaluation: what a play area is worth, learned from self-play.

The value of a position estimates the game's final score:

- **score now**: completed tasks, closed flag territories, the longest river
  and track, 3 points for each mountain or lake (the mode's total if the game
  ended now);
- **open tasks**: each open task adds its value times the chance that it will
  be completed, a logistic model of its features (:data:`TASK_FEATURES`):
  how many tiles it still misses, how many empty cells next to its group a
  tile of the box can enter showing its terrain (none: it is stuck for good),
  its open edges, whether it is a river or track, how many landscape tiles
  are left and how many of them show its terrain;
- **flags**: each open flag territory adds the chance that it will be closed,
  another logistic model (:data:`FLAG_FEATURES`: its open edges, whether an
  empty cell next to it can take no tile at all, then it never closes, how
  tight those cells are, the landscape tiles left), times what it will then
  score (:data:`FLAG_POINTS`: a territory grows before it closes);
- **the rest of the game** (:data:`VALUE_FEATURES`): a linear term in the
  landscape tiles left, the free task slots (a free slot brings a new task
  tile, one more tile to lay), the stuck tasks, the cells of the frontier no
  tile can fill or few tiles can, the frontier's size, and the empty cells a
  river, a track, or a lake or mountain half faces.

The weights are data (``dorf/data/planner-weights.json``), fitted by
``dorf tune`` (:mod:`dorf.commands.tune`) to the outcomes of self-play games:
logistic regressions for the chances, least squares for the rest.
:func:`load_weights` reads them.
"""

from __future__ import annotations

import json
import math
import os
from collections.abc import Sequence
from dataclasses import dataclass, field
from importlib import resources
from types import ModuleType
from typing import Any

from dorf.games.seat import ACTIVE_TASKS
from dorf.players.outlook import Fits
from dorf.rules.area import PlayArea
from dorf.rules.hexgrid import cell_of, hex_of
from dorf.rules.tasks import COMPLETED, CONNECTION, OPEN
from dorf.rules.terrain import TASK_LETTER

#: The weights file shipped with the package (in ``dorf/data``): the cooperative game's.
WEIGHTS_FILE = "planner-weights.json"
#: The weights file shipped for each game (in ``dorf/data``): each game has its own evaluation.
WEIGHTS_FILES = {
    "coop": WEIGHTS_FILE,
    "duel": "planner-weights-duel.json",
    "head-to-head": "planner-weights-head-to-head.json",
}
#: The weights files of the frozen planners, ``planner-v5`` and before: the cooperative game's as
#: ``dorf tune`` wrote it, its open tasks counted 1.96 times (the shipped file counts them 1.25
#: times since 2026-12-05, docs/players.md), the other games' as shipped.
V5_WEIGHTS_FILES = {**WEIGHTS_FILES, "coop": "planner-weights-v5.json"}
WEIGHTS_FORMAT = "dorf-weights/1"
#: Task types whose edges must meet their own kind.
NETWORK_LETTERS = "RT"
#: A frontier cell that fewer faces of the box fit than this is *tight*.
TIGHT = 20

TASK_FEATURES = (
    "bias",
    "missing_2",
    "missing_3",
    "missing_4",
    "missing_5_plus",
    "no_entrance",
    "one_entrance",
    "two_entrances",
    "open_edges",
    "cramped",
    "network",
    "network_missing",
    "missing_per_landscape",
    "landscapes",
    "missing_per_supply",
    "supply",
    "active",
)
FLAG_FEATURES = (
    "bias",
    "open_edges",
    "one_edge",
    "two_edges",
    "dead_cell",
    "tight_share",
    "landscapes",
    "edges_per_landscape",
    "size",
)
VALUE_FEATURES = (
    "landscapes",
    "free_slots",
    "stuck_tasks",
    "dead_cells",
    "tight_cells",
    "frontier",
    "river_ends",
    "track_ends",
    "pair_ends",
    "tasks",
    "flags",
)
#: The value features that :class:`Terms` holds as they are (the others are expected points).
BOARD_FEATURES = VALUE_FEATURES[:-2]
#: What a closed flag territory is expected to score, from its size and open edges now.
FLAG_POINTS = ("size", "open_edges", "bias")
ROLLOUT_WEIGHTS = ("joined_edge", "mismatched_edge")


class WeightsError(ValueError):
    """A weights file that cannot be read; the message says why, in one line."""


def _zeros(names: Sequence[str]) -> dict[str, float]:
    return dict.fromkeys(names, 0.0)


@dataclass(frozen=True)
class Weights:
    """The evaluation's weights: two logistic models, a linear one, and the rollout's edge weights."""

    task: dict[str, float] = field(default_factory=lambda: _zeros(TASK_FEATURES))
    flag: dict[str, float] = field(default_factory=lambda: _zeros(FLAG_FEATURES))
    value: dict[str, float] = field(
        default_factory=lambda: {**_zeros(VALUE_FEATURES), "tasks": 1.0, "flags": 1.0}
    )
    rollout: dict[str, float] = field(default_factory=lambda: {"joined_edge": 1.0, "mismatched_edge": 0.5})
    flag_points: dict[str, float] = field(
        default_factory=lambda: {"size": 1.0, "open_edges": 0.0, "bias": 0.0}
    )

    def as_dict(self) -> dict[str, dict[str, float]]:
        return {
            "task": self.task,
            "flag": self.flag,
            "flag_points": self.flag_points,
            "value": self.value,
            "rollout": self.rollout,
        }

    @classmethod
    def from_dict(cls, data: Any) -> Weights:
        """Weights from their JSON object; every group and name must be known, missing names are 0."""
        if not isinstance(data, dict):
            raise WeightsError("weights must be an object of groups")
        groups = {
            "task": TASK_FEATURES,
            "flag": FLAG_FEATURES,
            "flag_points": FLAG_POINTS,
            "value": VALUE_FEATURES,
            "rollout": ROLLOUT_WEIGHTS,
        }
        unknown = sorted(set(data) - set(groups))
        if unknown:
            raise WeightsError(f"unknown group of weights {unknown[0]!r}")
        out: dict[str, dict[str, float]] = {}
        defaults = cls().as_dict()
        for group, names in groups.items():
            if group not in data:
                out[group] = dict(defaults[group])
                continue
            raw = data[group]
            if not isinstance(raw, dict):
                raise WeightsError(f"weights {group!r} must be an object of name: number")
            extra = sorted(set(raw) - set(names))
            if extra:
                raise WeightsError(f"unknown {group} weight {extra[0]!r}")
            values = _zeros(names)
            for name, value in raw.items():
                if isinstance(value, bool) or not isinstance(value, int | float) or not math.isfinite(value):
                    raise WeightsError(f"{group} weight {name!r} must be a finite number")
                values[name] = float(value)
            out[group] = values
        return cls(out["task"], out["flag"], out["value"], out["rollout"], out["flag_points"])


def weights_document(weights: Weights, about: dict[str, Any] | None = None) -> dict[str, Any]:
    """The JSON document of a weights file: format, how it was made, the weights."""
    return {"format": WEIGHTS_FORMAT, "tuning": about or {}, "weights": weights.as_dict()}


def read_weights(text: str) -> Weights:
    """Weights from the text of a weights file (raises :class:`WeightsError`)."""
    try:
        document = json.loads(text)
    except ValueError as exc:
        raise WeightsError(f"not JSON: {exc}") from None
    if not isinstance(document, dict) or document.get("format") != WEIGHTS_FORMAT:
        raise WeightsError(f"not a {WEIGHTS_FORMAT} file")
    return Weights.from_dict(document.get("weights"))


#: The weights files read so far, by name.
_SHIPPED: dict[str, Weights] = {}


def weights_file(mode: str = "coop") -> str:
    """The name of the weights file shipped for a mode (in ``dorf/data``): :data:`WEIGHTS_FILES`."""
    return WEIGHTS_FILES[mode]


def load_weights(mode: str = "coop", file: str | None = None) -> Weights:
    """The weights shipped with the package for ``mode``, or those of the shipped ``file`` (in
    ``dorf/data``; each file read once)."""
    name = weights_file(mode) if file is None else file
    if name not in _SHIPPED:
        text = resources.files("dorf.data").joinpath(name).read_text(encoding="utf-8")
        _SHIPPED[name] = read_weights(text)
    return _SHIPPED[name]


# --- features ---------------------------------------------------------------------------


def task_features(
    value: int,
    missing: int,
    open_edges: int,
    entrances: int,
    network: bool,
    landscapes: int,
    supply: int,
    active: int,
) -> tuple[float, ...]:
    """The features of an open task, in the order of :data:`TASK_FEATURES`."""
    return (
        1.0,
        float(missing == 2),
        float(missing == 3),
        float(missing == 4),
        float(missing >= 5),
        float(entrances == 0),
        float(entrances == 1),
        float(entrances == 2),
        min(open_edges, 8) / 8,
        float(open_edges < missing),
        float(network),
        missing * float(network),
        missing / (landscapes + 1),
        math.log1p(landscapes) / 4,
        missing / (supply + 1),
        math.log1p(supply) / 3,
        active / 3,
    )


def flag_features(
    size: int, open_edges: int, cells: int, dead: int, tight: int, landscapes: int
) -> tuple[float, ...]:
    """The features of an open flag territory, in the order of :data:`FLAG_FEATURES`."""
    return (
        1.0,
        min(open_edges, 10) / 10,
        float(open_edges == 1),
        float(open_edges == 2),
        float(dead > 0),
        tight / max(cells, 1),
        math.log1p(landscapes) / 4,
        open_edges / (landscapes + 1),
        min(size, 15) / 15,
    )


@dataclass
class Terms:
    """What a position is made of, before the weights: the parts :meth:`Evaluator.value` adds up."""

    now: float
    #: Per open task: its index in ``area.tasks``, its value and its features.
    tasks: list[tuple[int, int, tuple[float, ...]]]
    #: Per open flag territory: the flag tile's cell, the territory's size, open edges and features.
    flags: list[tuple[int, int, int, tuple[float, ...]]]
    #: The features of :data:`BOARD_FEATURES`, in order.
    board: tuple[float, ...]


def _sigmoid(x: float) -> float:
    if x < -30:
        return 0.0
    return 1.0 / (1.0 + math.exp(-x))


def _logistic(weights: Sequence[float], features: Sequence[float]) -> float:
    return _sigmoid(sum(w * f for w, f in zip(weights, features, strict=True)))


_LOG1P = tuple(math.log1p(n) for n in range(256))

#: What :meth:`Evaluator.quick` reads of an area's tasks (:meth:`Evaluator.task_ledger`): the points
#: of its completed tasks and the (cell, value, letters) of its open tasks that count a group.
Ledger = tuple[int, list[tuple[int, int, str]]]


def _load_compiled() -> ModuleType | None:
    """The compiled quick evaluation (``dorf.players._quick``), or None where it is not built or
    DORF_PURE is set (as for the play area's compiled core)."""
    if os.environ.get("DORF_PURE", "") not in ("", "0"):
        return None
    try:
        from dorf.players import _quick
    except ImportError:
        return None
    return _quick


_compiled = _load_compiled()


def _log1p(n: int) -> float:
    return _LOG1P[n] if 0 <= n < 256 else math.log1p(n)


class Evaluator:
    """Values play areas with one set of weights (unpacked for speed)."""

    def __init__(self, weights: Weights) -> None:
        self.weights = weights
        self._task = tuple(weights.task[name] for name in TASK_FEATURES)
        self._flag = tuple(weights.flag[name] for name in FLAG_FEATURES)
        self._value = tuple(weights.value[name] for name in VALUE_FEATURES)
        self._board = self._value[: len(BOARD_FEATURES)]
        t = self._task
        #: The missing-tiles and entrances parts of the task logit, by count.
        self._missing = (0.0, 0.0, t[1], t[2], t[3], t[4])
        self._entrances = (t[5], t[6], t[7], 0.0)
        self._points = tuple(weights.flag_points[name] for name in FLAG_POINTS)
        self.joined_edge = weights.rollout["joined_edge"]
        self.mismatched_edge = weights.rollout["mismatched_edge"]
        #: What the compiled :meth:`quick` reads of the weights, in its order (``_quick.c``).
        self.quick_constants = (
            self._value[0],
            self._value[1],
            self._value[-2],
            self._value[-1],
            *(self._flag[i] for i in (0, 1, 2, 3, 6, 7, 8)),
            *self._points,
            t[0],
            *self._missing,
            *self._entrances,
            *t[8:17],
        )

    def terms(
        self,
        area: PlayArea,
        flags: list[tuple[int, str]],
        landscapes_left: int,
        tasks_left: int,
        supply: dict[str, int],
        fits: Fits,
        frontier: bool = True,
    ) -> Terms:
        """The unweighted parts of a position's value.

        ``flags`` lists the (cell, flag letter) of every flag tile in the area;
        ``landscapes_left`` how many landscape tiles may still come and
        ``supply`` how many of them show each terrain letter.
        """
        now = float(area.longest_river + area.longest_track + 3 * (area.mountains + area.lakes))
        surroundings = area.surroundings
        flag_terms = []
        for cell, letter in flags:
            size, open_edges = area.figures(cell, letter)
            if open_edges == 0:
                now += size
                continue
            cells = area.open_cells(cell, letter)
            dead = tight = 0
            for near in cells:
                takers = fits.takers(surroundings(near))
                dead += takers == 0
                tight += takers < TIGHT
            flag_terms.append(
                (
                    cell,
                    size,
                    open_edges,
                    flag_features(size, open_edges, len(cells), dead, tight, landscapes_left),
                )
            )
        task_terms = []
        active = area.active_count
        stuck = 0
        for index, task in enumerate(area.tasks):
            status = task.status
            spec = task.spec
            if status is COMPLETED:
                now += spec.value
                continue
            if status is not OPEN:
                continue
            value = spec.value
            if spec.type == CONNECTION:
                missing = value - area.neighbours(hex_of(task.cell))
                if missing > 0:
                    features = task_features(
                        value, missing, 6, 2, False, landscapes_left, landscapes_left, active
                    )
                    task_terms.append((index, value, features))
                continue
            best: tuple[float, ...] | None = None
            best_entrances = -1
            for letter in spec.letters:
                size, open_edges = area.figures(task.cell, letter)
                if size > value or open_edges == 0:
                    continue
                entrances = 0
                for near, d in area.open_cells(task.cell, letter).items():
                    if fits.showing(surroundings(near), d, letter):
                        entrances += 1
                if entrances > best_entrances:
                    best_entrances = entrances
                    best = task_features(
                        value,
                        value - size,
                        open_edges,
                        entrances,
                        letter in NETWORK_LETTERS,
                        landscapes_left,
                        supply.get(letter, 0),
                        active,
                    )
            if best is None or best_entrances == 0:
                stuck += 1
            if best is not None:
                task_terms.append((index, value, best))
        dead = tight = frontier_size = river_ends = track_ends = pair_ends = 0
        if frontier:
            for at in area.frontier():
                around = surroundings(cell_of(*at))
                takers = fits.takers(around)
                frontier_size += 1
                dead += takers == 0
                tight += takers < TIGHT
                river_ends += "R" in around
                track_ends += "T" in around
                pair_ends += "P" in around or "L" in around
        free = ACTIVE_TASKS - active if tasks_left > 0 else 0
        board = (landscapes_left, free, stuck, dead, tight, frontier_size, river_ends, track_ends, pair_ends)
        return Terms(now, task_terms, flag_terms, tuple(float(x) for x in board))

    def task_chance(self, features: Sequence[float]) -> float:
        """The chance the model gives an open task with these features of being completed."""
        return _logistic(self._task, features)

    def flag_chance(self, features: Sequence[float]) -> float:
        """The chance the model gives an open flag territory with these features of closing."""
        return _logistic(self._flag, features)

    def value_of(self, terms: Terms) -> float:
        """The weighted sum of a position's terms: the estimated final score."""
        task_w = self._task
        flag_w = self._flag
        tasks = sum(value * _logistic(task_w, features) for _, value, features in terms.tasks)
        points = self.flag_points
        flags = sum(
            points(size, edges) * _logistic(flag_w, features) for _, size, edges, features in terms.flags
        )
        w = self._value
        board = sum(weight * x for weight, x in zip(self._board, terms.board, strict=True))
        return terms.now + board + w[-2] * tasks + w[-1] * flags

    def score_now(self, area: PlayArea, flags: list[tuple[int, str]]) -> float:
        """The area's score as it stands: completed tasks, closed flag territories, the longest river
        and track, 3 points for each mountain or lake."""
        total = float(area.longest_river + area.longest_track + 3 * (area.mountains + area.lakes))
        figures = area.figures
        for cell, letter in flags:
            size, open_edges = figures(cell, letter)
            if open_edges == 0:
                total += size
        for task in area.tasks:
            if task.status is COMPLETED:
                total += task.spec.value
        return total

    def quick(
        self,
        area: PlayArea,
        flags: list[tuple[int, str]],
        landscapes_left: int,
        tasks_left: int,
        supply: dict[str, int],
        ledger: Ledger | None = None,
    ) -> float:
        """A cheaper estimate for the rollouts' moves: the same models, with each group's open edges
        standing in for the cells a tile can enter (:meth:`task_logit`), and no frontier.

        ``ledger`` is the area's :meth:`task_ledger` if the caller knows it (no task has changed
        since it was read); else it is read here.  Computed by the compiled ``_quick`` where it is
        built, else by :meth:`quick_in_python`: the same value to the last bit."""
        done, open_tasks = self.task_ledger(area) if ledger is None else ledger
        if _compiled is None:
            return self.quick_in_python(area, flags, landscapes_left, tasks_left, supply, (done, open_tasks))
        value: float = _compiled.quick(
            area, self.quick_constants, flags, landscapes_left, tasks_left, supply, done, open_tasks
        )
        return value

    def quick_in_python(
        self,
        area: PlayArea,
        flags: list[tuple[int, str]],
        landscapes_left: int,
        tasks_left: int,
        supply: dict[str, int],
        ledger: Ledger | None = None,
    ) -> float:
        """:meth:`quick` in Python, for where the compiled one is not built."""
        total = float(area.longest_river + area.longest_track + 3 * (area.mountains + area.lakes))
        figures = area.figures
        w = self._value
        flags_value = 0.0
        exp = math.exp
        if flags:
            # flag_logit, flag_points and _sigmoid inlined: the same operations in the same order.
            f = self._flag
            f0, f1, f2, f3, f7, f8 = f[0], f[1], f[2], f[3], f[7], f[8]
            flag_later = f[6] * _log1p(landscapes_left) / 4
            later = landscapes_left + 1
            pa, pb, pc = self._points
            for cell, letter in flags:
                size, open_edges = figures(cell, letter)
                if open_edges == 0:
                    total += size
                    continue
                logit = (
                    f0
                    + f1 * (open_edges if open_edges < 10 else 10) / 10
                    + f2 * (open_edges == 1)
                    + f3 * (open_edges == 2)
                )
                logit += flag_later + f7 * open_edges / later + f8 * (size if size < 15 else 15) / 15
                chance = 0.0 if logit < -30 else 1.0 / (1.0 + exp(-logit))
                flags_value += (pa * size + pb * open_edges + pc) * chance
        active = area.active_count
        tasks_value = 0.0
        # task_logit inlined, its parts that do not change from task to task computed once: the
        # same operations in the same order, so the same values to the last bit.
        t = self._task
        missing_part, entrances_part = self._missing, self._entrances
        t0, t8, t9, t10, t11, t12, t14 = t[0], t[8], t[9], t[10], t[11], t[12], t[14]
        later = landscapes_left + 1
        landscapes_part = t[13] * _log1p(landscapes_left) / 4
        active_part = t[16] * active / 3
        supply_parts: dict[str, tuple[int, float]] = {}
        done, open_tasks = self.task_ledger(area) if ledger is None else ledger
        total += done  # whole points: the same sum in any order
        for cell, value, letters in open_tasks:
            best = 0.0
            for letter in letters:
                size, open_edges = figures(cell, letter)
                if size > value or open_edges == 0:
                    continue
                missing = value - size
                part = supply_parts.get(letter)
                if part is None:
                    count = supply.get(letter, 0)
                    part = supply_parts[letter] = (count + 1, t[15] * _log1p(count) / 3)
                logit = (
                    t0
                    + missing_part[missing if missing < 5 else 5]
                    + entrances_part[open_edges if open_edges < 3 else 3]
                )
                logit += t8 * (open_edges if open_edges < 8 else 8) / 8 + t9 * (open_edges < missing)
                if letter in NETWORK_LETTERS:
                    logit += t10 + t11 * missing
                logit += t12 * missing / later + landscapes_part
                logit += t14 * missing / part[0] + part[1] + active_part
                chance = 0.0 if logit < -30 else 1.0 / (1.0 + exp(-logit))
                if value * chance > best:
                    best = value * chance
            tasks_value += best
        free = ACTIVE_TASKS - active if tasks_left > 0 else 0
        return total + w[0] * landscapes_left + w[1] * free + w[-2] * tasks_value + w[-1] * flags_value

    @staticmethod
    def task_ledger(area: PlayArea) -> Ledger:
        """What :meth:`quick` reads of an area's tasks: the points of its completed tasks, and the
        (cell, value, letters) of its open tasks that count a group (not a connection task), in
        order. Read by the compiled ``_quick`` where it is built, else by
        :meth:`task_ledger_in_python`: the same ledger."""
        if _compiled is None:
            return Evaluator.task_ledger_in_python(area)
        ledger: Ledger = _compiled.ledger(area.tasks, OPEN, COMPLETED, TASK_LETTER)
        return ledger

    @staticmethod
    def task_ledger_in_python(area: PlayArea) -> Ledger:
        """:meth:`task_ledger` in Python, for where the compiled one is not built."""
        done = 0
        open_tasks = []
        for task in area.tasks:
            status = task.status
            spec = task.spec
            if status is COMPLETED:
                done += spec.value
            elif status is OPEN and spec.type != CONNECTION:
                open_tasks.append((task.cell, spec.value, spec.letters))
        return done, open_tasks

    def task_logit(
        self, missing: int, open_edges: int, network: bool, landscapes: int, supply: int, active: int
    ) -> float:
        """The task model's logit with ``min(open_edges, 3)`` entrances, computed without building
        the features (equal to the weights times :func:`task_features`)."""
        w = self._task
        entrances = min(open_edges, 3)
        logit = w[0] + self._missing[min(missing, 5)] + self._entrances[entrances]
        logit += w[8] * min(open_edges, 8) / 8 + w[9] * (open_edges < missing)
        if network:
            logit += w[10] + w[11] * missing
        logit += w[12] * missing / (landscapes + 1) + w[13] * _log1p(landscapes) / 4
        logit += w[14] * missing / (supply + 1) + w[15] * _log1p(supply) / 3 + w[16] * active / 3
        return logit

    def flag_points(self, size: int, open_edges: int) -> float:
        """What an open flag territory is expected to score if it gets closed."""
        a, b, c = self._points
        return a * size + b * open_edges + c

    def flag_logit(self, size: int, open_edges: int, landscapes: int) -> float:
        """The flag model's logit with no dead or tight cell known (equal to the weights times
        :func:`flag_features` with ``cells = open_edges``, ``dead = tight = 0``)."""
        w = self._flag
        logit = w[0] + w[1] * min(open_edges, 10) / 10 + w[2] * (open_edges == 1) + w[3] * (open_edges == 2)
        logit += (
            w[6] * _log1p(landscapes) / 4 + w[7] * open_edges / (landscapes + 1) + w[8] * min(size, 15) / 15
        )
        return logit

    def value(
        self,
        area: PlayArea,
        flags: list[tuple[int, str]],
        landscapes_left: int,
        tasks_left: int,
        supply: dict[str, int],
        fits: Fits,
        frontier: bool = True,
    ) -> float:
        """The estimated final score of the area (see the module's documentation)."""
        terms = self.terms(area, flags, landscapes_left, tasks_left, supply, fits, frontier)
        return self.value_of(terms)


__all__ = [
    "BOARD_FEATURES",
    "FLAG_FEATURES",
    "FLAG_POINTS",
    "TASK_FEATURES",
    "V5_WEIGHTS_FILES",
    "VALUE_FEATURES",
    "WEIGHTS_FILE",
    "WEIGHTS_FILES",
    "WEIGHTS_FORMAT",
    "Evaluator",
    "Terms",
    "Weights",
    "WeightsError",
    "flag_features",
    "load_weights",
    "read_weights",
    "task_features",
    "weights_document",
    "weights_file",
]
