"""The ``learned`` player: a one-placement policy trained by ``dorf learn``, in plain Python.

The policy ranks the candidates the planner ranks one placement ahead (every legal placement by
the quick evaluation, the best :data:`~dorf.players.planner.RECHECK` of them valued in full: see
:meth:`dorf.players.planner.PlannerPlayer.ranked`) by a score learned from a stronger player's
choices (``dorf learn``, :mod:`dorf.rl.learn`).  Each candidate is described by
:data:`FEATURES` (the parts of the planner's evaluation after the placement: the score now, the
expected points of the open tasks and flag territories, the board terms, the edges joined and
mismatched, ...) and scored as

    score = a * base + lin . z + out . tanh(W z + b)

where ``base`` is the planner's one-placement value (its evaluation plus the rollout's edge
terms, what ``planner:0`` maximises) and ``z`` the features standardised by the means and
spreads stored with the weights.  With ``a = 1`` and the rest 0 the policy is ``planner:0``:
training starts there.  The player takes the candidate with the highest score (ties: the
planner's order); in the Head to Head draft it takes the greedy player's pick.

A policy file is a ``.npz`` of a few kilobytes (written by :mod:`dorf.rl.learn`, read here by
:func:`load_policy`); the one shipped is ``dorf/data/learned-policy.npz``.  Playing needs only
the standard library (the engine's rule): neither numpy nor the library that trained it.
"""

from __future__ import annotations

import ast
import io
import json
import math
import struct
import zipfile
from collections.abc import Sequence
from dataclasses import dataclass, field
from importlib import resources
from pathlib import Path
from typing import Any

from dorf.games.headtohead import Pick
from dorf.games.state import GameView
from dorf.players.greedy import draft_value
from dorf.players.planner import RECHECK, PlannerPlayer, Position, position_of
from dorf.players.search import drafting
from dorf.rules.area import Placement, placements_of

#: The checkpoint shipped with the package (in ``dorf/data``).
POLICY_FILE = "learned-policy.npz"
POLICY_FORMAT = "dorf-policy/1"
#: What describes a candidate placement, in order (the evaluation's parts after it is made).
FEATURES = (
    "base",
    "value",
    "quick",
    "joined",
    "mismatched",
    "now",
    "task_points",
    "open_tasks",
    "open_task_values",
    "task_chance_min",
    "flag_points",
    "open_flags",
    "landscapes",
    "free_slots",
    "stuck_tasks",
    "dead_cells",
    "tight_cells",
    "frontier",
    "river_ends",
    "track_ends",
    "pair_ends",
    "tasks_left",
    "turn",
)
#: Candidates a decision: the ones the planner values in full.
CANDIDATES = RECHECK
#: Hidden units of the policy's small network.
HIDDEN = 16
#: The player ``dorf learn`` imitates unless told (its training: :mod:`dorf.rl.learn`).
DEFAULT_TEACHER = "planner:16"
#: What the policy is fitted to: the teacher's values, or its choices (:mod:`dorf.rl.learn`'s ``fit``).
LOSSES = ("values", "choice")

Move = tuple[int, int]


def candidates(position: Position, evaluator_of: PlannerPlayer) -> tuple[list[Move], list[list[float]]]:
    """The planner's best :data:`CANDIDATES` moves one placement ahead and their :data:`FEATURES`
    (its ranking order; fewer when fewer placements are legal)."""
    ev = evaluator_of.evaluator_for(position.mode)
    area = position.area
    face, task, flag = position.face, position.task, position.flag
    flags = position.flags
    if flag is not None:
        flags = [*flags, (-1, flag)]
    left, tasks_left, supply, fits = (
        position.landscapes_left,
        position.tasks_left,
        position.supply,
        position.fits,
    )
    joined, mismatched = ev.joined_edge, ev.mismatched_edge

    def placed(cell: int, k: int) -> None:
        area.push(face, cell, k, flag=flag, task=task)
        if flag is not None:
            flags[-1] = (cell, flag)

    # As PlannerPlayer.ranked: every legal move by the quick evaluation, then the best few again
    # in full, best first (ties in cell, rotation order); their terms are kept for the features.
    quick_ranked = []
    for cell, k in sorted(area.legal_moves(face, task)):
        same, other = area.contacts(face, cell, k)
        placed(cell, k)
        quick = ev.quick(area, flags, left, tasks_left, supply)
        area.pop()
        quick_ranked.append((quick + joined * same - mismatched * other, (cell, k), quick, same, other))
    quick_ranked.sort(key=lambda item: -item[0])
    head = sorted(quick_ranked[:CANDIDATES], key=lambda item: item[1])
    full = []
    for _, (cell, k), quick, same, other in head:
        placed(cell, k)
        terms = ev.terms(area, flags, left, tasks_left, supply, fits)
        area.pop()
        value = ev.value_of(terms)
        full.append((value + joined * same - mismatched * other, (cell, k), value, quick, same, other, terms))
    full.sort(key=lambda item: -item[0])
    moves: list[Move] = []
    rows: list[list[float]] = []
    for base, move, value, quick, same, other, terms in full:
        chances = [ev.task_chance(features) for _, _, features in terms.tasks]
        task_points = sum(v * c for (_, v, _), c in zip(terms.tasks, chances, strict=True))
        flag_points = sum(
            ev.flag_points(size, edges) * ev.flag_chance(features) for _, size, edges, features in terms.flags
        )
        rows.append(
            [
                base,
                value,
                quick,
                float(same),
                float(other),
                terms.now,
                task_points,
                float(len(terms.tasks)),
                float(sum(v for _, v, _ in terms.tasks)),
                min(chances, default=1.0),
                flag_points,
                float(len(terms.flags)),
                *terms.board,
                float(tasks_left),
                float(position.turn),
            ]
        )
        moves.append(move)
    return moves, rows


@dataclass
class Policy:
    """The learned score of a candidate (see the module's documentation), in plain lists: the
    weights are small enough that the standard library scores a decision in about a millisecond."""

    mean: list[float]
    scale: list[float]
    a: float
    lin: list[float]
    #: ``W``: one row of hidden weights per feature.
    w: list[list[float]]
    b: list[float]
    out: list[float]
    about: dict[str, Any] = field(default_factory=dict)

    @classmethod
    def initial(cls, hidden: int = HIDDEN) -> Policy:
        """The policy that plays as ``planner:0``: the base value alone."""
        n = len(FEATURES)
        return cls(
            [0.0] * n,
            [1.0] * n,
            1.0,
            [0.0] * n,
            [[0.0] * hidden for _ in range(n)],
            [0.0] * hidden,
            [0.0] * hidden,
        )

    def scores(self, rows: Sequence[Sequence[float]]) -> list[float]:
        """The score of each candidate, one row of :data:`FEATURES` each."""
        out = []
        for row in rows:
            z = [(x - m) / s for x, m, s in zip(row, self.mean, self.scale, strict=True)]
            pre = list(self.b)
            for zi, weights in zip(z, self.w, strict=True):
                if zi:
                    pre = [p + zi * wij for p, wij in zip(pre, weights, strict=True)]
            total = self.a * row[0] + sum(zi * li for zi, li in zip(z, self.lin, strict=True))
            total += sum(math.tanh(p) * o for p, o in zip(pre, self.out, strict=True))
            out.append(total)
        return out


#: The arrays of a policy file, in its ``.npz``: name and shape (``F`` features, ``H`` hidden).
ARRAYS = ("mean", "scale", "a", "lin", "w", "b", "out")


def read_npy(data: bytes) -> tuple[tuple[int, ...], list[Any]]:
    """The shape and the values (flat, C order) of a ``.npy`` file of little-endian floats or
    integers or bytes, read with the standard library."""
    if data[:6] != b"\x93NUMPY":
        raise ValueError("not a .npy file")
    if data[6] == 1:
        (length,) = struct.unpack("<H", data[8:10])
        begin = 10
    else:
        (length,) = struct.unpack("<I", data[8:12])
        begin = 12
    header = ast.literal_eval(data[begin : begin + length].decode("latin1"))
    codes = {"<f8": "d", "<f4": "f", "<i8": "q", "<i4": "i", "|u1": "B", "|b1": "?"}
    if header.get("fortran_order") or header.get("descr") not in codes:
        raise ValueError(f"unsupported .npy array: {header}")
    shape = tuple(header["shape"])
    count = math.prod(shape)
    code = codes[header["descr"]]
    body = data[begin + length :]
    return shape, list(struct.unpack(f"<{count}{code}", body[: count * struct.calcsize(code)]))


def read_policy(arrays: dict[str, bytes]) -> Policy:
    """A policy from the ``.npy`` files of a policy ``.npz`` (name without ``.npy``: bytes)."""
    _, about_bytes = read_npy(arrays["about"])
    about = json.loads(bytes(about_bytes).decode("utf-8"))
    if about.get("format") != POLICY_FORMAT or about.get("features") != list(FEATURES):
        raise ValueError(f"not a {POLICY_FORMAT} policy with these features")
    del about["format"], about["features"]
    values = {name: read_npy(arrays[name]) for name in ARRAYS}
    (rows, cols), flat = values["w"]
    w = [[float(v) for v in flat[i * cols : (i + 1) * cols]] for i in range(rows)]

    def floats(name: str) -> list[float]:
        return [float(v) for v in values[name][1]]

    return Policy(
        floats("mean"), floats("scale"), floats("a")[0], floats("lin"), w, floats("b"), floats("out"), about
    )


def load_policy(path: str | Path | None = None) -> Policy:
    """A policy from a ``.npz`` file; without a path, the shipped one (else the initial policy)."""
    if path is None:
        shipped = resources.files("dorf.data").joinpath(POLICY_FILE)
        if not shipped.is_file():
            return Policy.initial()
        data = shipped.read_bytes()
    else:
        data = Path(path).read_bytes()
    with zipfile.ZipFile(io.BytesIO(data)) as archive:
        names = {name.removesuffix(".npy"): archive.read(name) for name in archive.namelist()}
    try:
        return read_policy(names)
    except (KeyError, ValueError, SyntaxError) as exc:
        raise ValueError(f"{path or POLICY_FILE}: not a policy file ({exc})") from None


class LearnedPlayer:
    """Plays the candidate the learned policy scores highest, one placement ahead."""

    name = "learned"

    def __init__(self, seed: int = 0, policy: Policy | None = None) -> None:
        self.policy = load_policy() if policy is None else policy
        self._planner = PlannerPlayer(seed, iterations=0)

    def choose(self, view: GameView) -> Placement | Pick:
        if drafting(view):
            mine = [view.tiles[i] for i in view.owned[view.player]]
            return Pick(max(view.pool, key=lambda i: (draft_value(view.tiles[i], mine), -i)))
        position = position_of(view)
        moves, rows = candidates(position, self._planner)
        if not moves:
            raise ValueError("there is no legal placement")
        scores = self.policy.scores(rows)
        best = max(range(len(moves)), key=lambda i: (scores[i], -i))
        return placements_of([moves[best]])[0]
