"""``dorf learn`` (its command line: :mod:`dorf.rl.cli`): train the ``learned`` player's policy
by distillation with DAgger, in JAX.

Each round plays ``games`` solo games of the Board Game with the current policy
(:class:`dorf.players.learned.LearnedPlayer`; the first round's policy is ``planner:0``), asks a
stronger *teacher* (``planner:16`` by default: sampled futures) for its value of each candidate it
weighs at every decision the policy met, adds those decisions to the data set, and fits the
policy again to all of it (:func:`fit`: least squares against the teacher's values, or the
cross-entropy against its choices; Adam from optax, a little L2).  Playing the games with the
learner and labelling its own positions (DAgger) is the policy improvement: the data follow the
positions the policy reaches, not only the teacher's.

- **Seeded.** The games' seeds are derived from ``--seed`` and the round
  (:func:`game_seeds`, far from the seeds 1-400 that the figures use), the teacher is seeded by
  the game, the network's first weights and the minibatch order by ``--seed``: a run repeats
  itself on the same machine and versions.
- **Resumable.** After every round ``OUT/checkpoint.npz`` holds the policy, the data set, the
  round and the learning curve; ``--resume`` continues from it (the optimiser starts afresh every
  round, so a resumed run is the run that was not stopped).
- **Outputs.** ``OUT/policy.npz`` (the weights only: a few kilobytes, what ``learned`` loads with
  the standard library), ``OUT/curve.png`` (the learning curve: the policy's mean score in each round's games,
  the teacher's agreement and the loss) and, with ``--ship FILE``, a copy of the policy there.

JAX and optax are the ``learn`` extra; this module imports them only when it trains.
"""

from __future__ import annotations

import json
import math
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, TextIO

from dorf.games.coop import CoopGame
from dorf.players.learned import (
    ARRAYS,
    DEFAULT_TEACHER,
    FEATURES,
    HIDDEN,
    LOSSES,
    POLICY_FORMAT,
    LearnedPlayer,
    Policy,
    candidates,
    load_policy,
)
from dorf.players.planner import PlannerPlayer, position_of
from dorf.players.registry import make_player
from dorf.rl.progress import Bar
from dorf.rules.area import Placement
from dorf.rules.hexgrid import cell_of
from dorf.rules.tiles import rotate

if TYPE_CHECKING:
    import numpy as np
    import numpy.typing as npt

#: Training games' seeds start here (the figures use seeds 1 to 400).
SEED_BASE = 1_000_000
#: The teacher's values (points) become shares of a decision by a softmax at this temperature.
TEMPERATURE = 2.0


def game_seeds(seed: int, round_: int, games: int) -> list[int]:
    """The seeds of one round's games: distinct per run seed and round, far from 1-400.

    >>> game_seeds(1, 0, 3), game_seeds(1, 1, 2)
    ([1100000, 1100001, 1100002], [1101000, 1101001])
    """
    return [SEED_BASE + seed * 100_000 + round_ * 1_000 + i for i in range(games)]


def policy_arrays(policy: Policy) -> dict[str, npt.NDArray[np.float64]]:
    """A policy's weights as numpy arrays, by the names of :data:`~dorf.players.learned.ARRAYS`."""
    import numpy as np

    return {name: np.asarray(getattr(policy, name), dtype=np.float64) for name in ARRAYS}


def policy_of(arrays: dict[str, Any], about: dict[str, Any] | None = None) -> Policy:
    """A policy from numpy arrays (as :func:`policy_arrays` gives them)."""
    import numpy as np

    def floats(name: str) -> list[float]:
        return [float(v) for v in np.asarray(arrays[name], dtype=np.float64).ravel()]

    w = np.asarray(arrays["w"], dtype=np.float64)
    return Policy(
        floats("mean"),
        floats("scale"),
        floats("a")[0],
        floats("lin"),
        w.tolist(),
        floats("b"),
        floats("out"),
        dict(about or {}),
    )


def _text(value: dict[str, Any]) -> npt.NDArray[np.uint8]:
    import numpy as np

    return np.frombuffer(json.dumps(value).encode("utf-8"), dtype=np.uint8)


def save_policy(policy: Policy, path: str | Path, extra: dict[str, Any] | None = None) -> None:
    """Write a policy file (:func:`dorf.players.learned.load_policy` reads it without numpy), with
    any ``extra`` arrays (a training checkpoint's)."""
    import io

    import numpy as np

    about = _text({"format": POLICY_FORMAT, "features": list(FEATURES), **policy.about})
    buffer = io.BytesIO()
    arrays: dict[str, Any] = {"about": about, **policy_arrays(policy), **(extra or {})}
    np.savez_compressed(buffer, **arrays)
    Path(path).write_bytes(buffer.getvalue())


@dataclass
class Decisions:
    """Decisions with their candidates' features (padded to the most candidates) and the teacher's
    choice among them."""

    rows: list[list[list[float]]] = field(default_factory=list)
    labels: list[int] = field(default_factory=list)
    #: Per decision, the teacher's share for each candidate (its choice 1 and the rest 0 when it
    #: gives no values; else the softmax of its values over :data:`TEMPERATURE`).
    targets: list[list[float]] = field(default_factory=list)
    #: Per decision, the teacher's value of each candidate it weighed (NaN for the others).
    values: list[list[float]] = field(default_factory=list)

    def add(self, rows: list[list[float]], label: int, target: list[float], values: list[float]) -> None:
        self.rows.append(rows)
        self.labels.append(label)
        self.targets.append(target)
        self.values.append(values)

    def extend(self, other: Decisions) -> None:
        self.rows += other.rows
        self.labels += other.labels
        self.targets += other.targets
        self.values += other.values

    def value_array(self, k: int) -> npt.NDArray[np.float32]:
        """The teacher's values ``(D, K)``, NaN where it gave none."""
        import numpy as np

        out = np.full((len(self.rows), k), np.nan, dtype=np.float32)
        for i, v in enumerate(self.values):
            out[i, : len(v)] = v
        return out

    def arrays(
        self,
    ) -> tuple[
        npt.NDArray[np.float32], npt.NDArray[np.bool_], npt.NDArray[np.int32], npt.NDArray[np.float32]
    ]:
        """Features ``(D, K, F)``, which candidates are real ``(D, K)``, the teacher's choices
        ``(D,)`` and its shares ``(D, K)``, padded to the most candidates ``K``."""
        import numpy as np

        k = max((len(r) for r in self.rows), default=1)
        x = np.zeros((len(self.rows), k, len(FEATURES)), dtype=np.float32)
        valid = np.zeros((len(self.rows), k), dtype=np.bool_)
        target = np.zeros((len(self.rows), k), dtype=np.float32)
        for i, r in enumerate(self.rows):
            x[i, : len(r)] = r
            valid[i, : len(r)] = True
            target[i, : len(r)] = self.targets[i]
        return x, valid, np.asarray(self.labels, dtype=np.int32), target


def play_and_label(
    policy: Policy, teacher: str, seeds: list[int], max_moves: int | None = None, step: Any = None
) -> tuple[Decisions, list[int]]:
    """Play one game per seed with ``policy``, labelling every decision by ``teacher``: the
    decisions whose teacher's choice is among the candidates, and the games' final scores."""
    found = Decisions()
    scores = []
    for seed in seeds:
        state = CoopGame(seed=seed).new_state()
        learner = LearnedPlayer(seed, policy)
        planner = PlannerPlayer(seed, iterations=0)
        expert = make_player(teacher, seed)
        moves_made = 0
        while not state.is_over and (max_moves is None or moves_made < max_moves):
            view = state.view()
            position = position_of(view)
            moves, rows = candidates(position, planner)
            face = position.face
            index = {(cell, rotate(face, k)): i for i, (cell, k) in enumerate(moves)}
            if isinstance(expert, PlannerPlayer):
                valued = expert.analyse(view)
            else:
                decision = expert.choose(view)
                assert isinstance(decision, Placement)
                valued = [(0.0, decision)]
            shares = [0.0] * len(moves)
            values = [math.nan] * len(moves)
            best = valued[0][0]
            for value, placement in valued:
                i = index.get((cell_of(*placement.at), rotate(face, placement.rot)), -1)
                if i >= 0:
                    shares[i] = math.exp((value - best) / TEMPERATURE)
                    values[i] = value
            label = index.get((cell_of(*valued[0][1].at), rotate(face, valued[0][1].rot)), -1)
            if label >= 0:
                total = sum(shares)
                found.add(rows, label, [v / total for v in shares], values)
            decision = learner.choose(view)
            assert isinstance(decision, Placement)
            state.play(decision)
            moves_made += 1
        scores.append(state.score().total)
        if step is not None:
            step()
    return found, scores


def fit(
    policy: Policy,
    decisions: Decisions,
    seed: int,
    epochs: int = 30,
    lr: float = 0.01,
    batch: int = 256,
    l2: float = 1e-3,
    loss: str = "values",
) -> tuple[Policy, list[float]]:
    """Fit the policy to the decisions; returns the new policy and the mean loss of each epoch.

    ``loss="values"``: least squares between the policy's scores and the teacher's values of
    the candidates it weighed, both taken relative to their mean over those candidates (the
    teacher's noise averages out); ``loss="choice"``: the cross-entropy of the softmax of the
    scores over the candidates against the teacher's shares."""
    if loss not in LOSSES:
        raise ValueError(f"loss must be one of {LOSSES}, not {loss!r}")
    import jax
    import jax.numpy as jnp
    import numpy as np
    import optax

    x, valid, _, target = decisions.arrays()
    teacher = decisions.value_array(x.shape[1])
    weighed = ~np.isnan(teacher)
    teacher = np.nan_to_num(teacher)
    z = (x - np.asarray(policy.mean, dtype=np.float32)) / np.asarray(policy.scale, dtype=np.float32)
    params = {k: jnp.asarray(v, dtype=jnp.float32) for k, v in policy_arrays(policy).items()}
    fixed = {k: params.pop(k) for k in ("mean", "scale")}
    del fixed

    def loss_fn(p: Any, xb: Any, zb: Any, vb: Any, tb: Any, wb: Any, ub: Any) -> Any:
        hidden = jnp.tanh(zb @ p["w"] + p["b"])
        scores = p["a"] * xb[..., 0] + zb @ p["lin"] + hidden @ p["out"]
        if loss == "choice":
            logits = jnp.where(vb, scores, -1e9)
            ce = optax.softmax_cross_entropy(logits, tb).mean()
        else:
            count = jnp.maximum(wb.sum(axis=1, keepdims=True), 1)
            centred = scores - jnp.where(wb, scores, 0.0).sum(axis=1, keepdims=True) / count
            wanted = ub - jnp.where(wb, ub, 0.0).sum(axis=1, keepdims=True) / count
            ce = (jnp.where(wb, centred - wanted, 0.0) ** 2).sum() / jnp.maximum(wb.sum(), 1)
        reg = l2 * (jnp.sum(p["lin"] ** 2) + jnp.sum(p["w"] ** 2) + jnp.sum(p["out"] ** 2))
        return ce + reg

    optimiser = optax.adam(lr)
    state = optimiser.init(params)

    @jax.jit
    def update(p: Any, s: Any, xb: Any, zb: Any, vb: Any, tb: Any, wb: Any, ub: Any) -> Any:
        value, grads = jax.value_and_grad(loss_fn)(p, xb, zb, vb, tb, wb, ub)
        updates, s = optimiser.update(grads, s, p)
        return optax.apply_updates(p, updates), s, value

    rng = np.random.default_rng(seed)
    losses = []
    n = len(target)
    for _ in range(epochs):
        order = rng.permutation(n)
        total = 0.0
        for start in range(0, n, batch):
            idx = order[start : start + batch]
            params, state, value = update(
                params, state, x[idx], z[idx], valid[idx], target[idx], weighed[idx], teacher[idx]
            )
            total += float(value) * len(idx)
        losses.append(total / max(n, 1))
    fitted = {k: np.asarray(v, dtype=np.float64) for k, v in params.items()}
    fitted["mean"], fitted["scale"] = np.asarray(policy.mean), np.asarray(policy.scale)
    return policy_of(fitted, policy.about), losses


def agreement(policy: Policy, decisions: Decisions) -> float:
    """The share of decisions where the policy's best candidate is the teacher's choice."""
    hits = 0
    for rows, label in zip(decisions.rows, decisions.labels, strict=True):
        scores = policy.scores(rows)
        best = max(range(len(rows)), key=lambda i: (scores[i], -i))
        hits += best == label
    return hits / max(len(decisions.labels), 1)


def first_policy(decisions: Decisions, seed: int, hidden: int = HIDDEN) -> Policy:
    """The policy that plays as ``planner:0``, its standardisation read from the first data and
    its hidden weights small and random (their output weights 0)."""
    import numpy as np

    x, valid, _, _ = decisions.arrays()
    seen = x[valid] if valid.any() else np.zeros((1, len(FEATURES)))
    policy = Policy.initial(hidden)
    policy.mean = seen.mean(axis=0).astype(np.float64).tolist()
    policy.scale = np.maximum(seen.std(axis=0), 1e-3).astype(np.float64).tolist()
    policy.w = np.random.default_rng(seed).normal(0.0, 0.3, size=(len(FEATURES), hidden)).tolist()
    return policy


@dataclass
class Run:
    """What a checkpoint holds besides the policy."""

    round: int
    decisions: Decisions
    curve: list[dict[str, float]]
    settings: dict[str, Any]


def save_checkpoint(path: Path, policy: Policy, run: Run) -> None:
    """A policy file with the run besides: its round, curve, settings and data set."""
    x, valid, y, target = run.decisions.arrays()
    meta = _text({"round": run.round, "curve": run.curve, "settings": run.settings})
    values = run.decisions.value_array(x.shape[1])
    save_policy(
        policy, path, {"run": meta, "x": x, "valid": valid, "y": y, "target": target, "values": values}
    )


def load_checkpoint(path: Path) -> tuple[Policy, Run]:
    """What :func:`save_checkpoint` wrote."""
    import numpy as np

    policy = load_policy(path)
    with np.load(path) as data:
        meta = json.loads(data["run"].tobytes().decode("utf-8"))
        x, valid, y, target, values = data["x"], data["valid"], data["y"], data["target"], data["values"]
        decisions = Decisions()
        for xi, vi, yi, ti, ui in zip(x, valid, y, target, values, strict=True):
            n = int(vi.sum())
            decisions.add(
                xi[:n].astype(float).tolist(),
                int(yi),
                ti[:n].astype(float).tolist(),
                ui[:n].astype(float).tolist(),
            )
    return policy, Run(int(meta["round"]), decisions, meta["curve"], meta["settings"])


def plot_curve(curve: list[dict[str, float]], path: Path, title: str) -> None:
    """The learning curve as a PNG: mean score a round, and the teacher's agreement."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    rounds = [int(c["round"]) for c in curve]
    fig, left = plt.subplots(figsize=(7, 4))
    left.plot(rounds, [c["mean_score"] for c in curve], "o-", color="tab:green", label="policy's mean score")
    left.set_xlabel("round (its games are played by the policy fitted in the rounds before)")
    left.set_xticks(rounds)
    left.set_ylabel("mean final score")
    right = left.twinx()
    right.plot(rounds, [c["agreement"] for c in curve], "s--", color="tab:blue", label="agrees with teacher")
    right.set_ylabel("share of decisions as the teacher")
    right.set_ylim(0, 1)
    fig.legend(loc="upper right", bbox_to_anchor=(0.88, 0.88), fontsize="small")
    left.set_title(title)
    fig.tight_layout()
    fig.savefig(path, dpi=100)
    plt.close(fig)


def train(
    out: Path,
    *,
    seed: int = 1,
    rounds: int = 4,
    games: int = 20,
    teacher: str = DEFAULT_TEACHER,
    epochs: int = 40,
    lr: float = 0.01,
    hidden: int = HIDDEN,
    loss: str = "values",
    resume: bool = False,
    max_moves: int | None = None,
    stream: TextIO | None = None,
    progress: bool | None = None,
    plot: bool = True,
) -> tuple[Policy, Run]:
    """Run (or continue) a training run in folder ``out``; see the module's documentation.  The
    progress bar (on a terminal, unless ``progress`` says) and a line a round go to ``stream``
    (standard error by default)."""
    if stream is None:
        stream = sys.stderr
    out.mkdir(parents=True, exist_ok=True)
    checkpoint = out / "checkpoint.npz"
    settings = {
        "seed": seed,
        "games": games,
        "teacher": teacher,
        "epochs": epochs,
        "lr": lr,
        "hidden": hidden,
        "loss": loss,
    }
    if resume and checkpoint.exists():
        policy, run = load_checkpoint(checkpoint)
        if run.settings != settings:
            raise ValueError(f"the checkpoint was made with other settings: {run.settings}")
    else:
        policy, run = Policy.initial(hidden), Run(0, Decisions(), [], settings)
    show = stream.isatty() if progress is None else progress
    started = time.perf_counter() - (run.curve[-1]["seconds"] if run.curve else 0.0)
    while run.round < rounds:
        bar = Bar(games, stream, show)
        found, scores = play_and_label(
            policy, teacher, game_seeds(seed, run.round, games), max_moves, bar.step
        )
        bar.close()
        if run.round == 0:
            policy = first_policy(found, seed, hidden)
        agree = agreement(policy, found)
        run.decisions.extend(found)
        policy, losses = fit(policy, run.decisions, seed * 1_000 + run.round, epochs, lr, loss=loss)
        entry = {
            "round": float(run.round),
            "mean_score": sum(scores) / len(scores),
            "agreement": agree,
            "loss_first": losses[0],
            "loss_last": losses[-1],
            "decisions": float(len(run.decisions.labels)),
            "seconds": time.perf_counter() - started,
        }
        run.curve.append(entry)
        run.round += 1
        policy.about = {"command": settings, "curve": run.curve}
        save_checkpoint(checkpoint, policy, run)
        save_policy(policy, out / "policy.npz")
        stream.write(
            f"round {run.round}/{rounds}: mean score {entry['mean_score']:.1f} over {games} games, "
            f"agreement {agree:.2f}, loss {losses[0]:.3f} -> {losses[-1]:.3f}, "
            f"{len(run.decisions.labels)} decisions, {entry['seconds']:.0f} s\n"
        )
        stream.flush()
    if plot and run.curve:
        plot_curve(run.curve, out / "curve.png", f"dorf learn: teacher {teacher}, {games} games a round")
    return policy, run
