"""``dorf learn --method ppo``: a planes policy trained on the batched environments, in JAX.

The policy is :class:`dorf.rl.policy_net.PlanesNet` (it reads the observation planes and the mask
only). Training has two parts, both on :class:`dorf.rl.vector.CoopVectorEnv` (compact layout):

1. **Distillation** (``--bc-games``, 0 to skip): a teacher (``--teacher``, by default
   ``planner:0``, the planner one placement ahead) plays that many games in the batched
   environment (its Python loop, which keeps the engine's states for the teacher's views); the
   network is fitted to its choices (cross-entropy) and its value head to the returns that
   followed (``--bc-epochs`` passes).
2. **Policy improvement by PPO** with masked actions (``--updates``): ``--envs`` games stepped
   together by the compiled loop, ``--horizon`` steps a rollout, generalised advantage estimates,
   the clipped objective, an entropy bonus, Adam with gradient clipping.  The logits cover the
   legal actions only, so the mask is exact; the step that deals a new game after an end
   (Gymnasium's next-step autoreset) is left out of the loss.

Every ``--eval-every`` updates (a *segment*) the greedy policy plays ``--eval-games`` held-out
shuffles (game seeds 1, 2, ...: the seeds ``dorf simulate --seed 1`` plays; training draws its
shuffles from generators seeded far from them), and the run is checkpointed.

- **Seeded**: the environments of segment ``s`` are reset with a seed from ``--seed`` and ``s``,
  the actions are drawn from a generator seeded by both, the first weights by ``--seed``.
- **Resumable**: ``OUT/ppo-checkpoint.npz`` holds the weights, Adam's state, the segment and the
  curve; ``--resume`` continues at the next segment, which is the segment the run that was not
  stopped plays (the environments start afresh at every segment, so nothing else is needed).
- **Outputs**: ``OUT/ppo-policy.npz`` (the weights, float32: 55 KB at 32 hidden units, played
  with numpy by :class:`~dorf.rl.policy_net.PlanesPlayer`), ``OUT/ppo-curve.png``, a line a
  segment.
"""

from __future__ import annotations

import functools
import json
import sys
import time
from dataclasses import asdict, dataclass, replace
from pathlib import Path
from typing import Any, TextIO

import numpy as np
import numpy.typing as npt

from dorf.players.registry import make_player
from dorf.rl.policy_net import (
    BUCKET,
    PARAMS,
    Legal,
    Params,
    PlanesNet,
    best_of_each,
    flat_list,
    legal_lists,
    save_params,
    segment_log_softmax,
    select,
)
from dorf.rl.progress import Bar
from dorf.rl.vector import CoopVectorEnv
from dorf.rules.area import Placement
from dorf.rules.hexgrid import cell_of

#: Training seeds start here (the held-out evaluation plays game seeds 1, 2, ...).
SEED_BASE = 3_000_000
#: Rewards and values are in units of 50 points (a game scores 0 to about 3).
REWARD_SCALE = 0.02
#: Distillation's learning rate (Adam).
BC_LR = 1e-3


@dataclass(frozen=True)
class Settings:
    """One run's settings (a resumed run must be given the same)."""

    seed: int = 1
    envs: int = 64
    horizon: int = 32
    updates: int = 300
    epochs: int = 3
    minibatch: int = 256
    lr: float = 3e-4
    hidden: int = 32
    clip: float = 0.2
    entropy: float = 0.003
    value_coef: float = 0.5
    gamma: float = 1.0
    lam: float = 0.95
    bc_games: int = 512
    bc_epochs: int = 10
    teacher: str = "planner:0"
    eval_games: int = 100
    eval_every: int = 25
    radius: int = 10


@dataclass
class Rollout:
    """Rows of decisions (a rollout of ``T`` steps of ``N`` games is ``T * N`` rows): the
    observations, every row's legal actions, the place chosen in its list, and what PPO needs."""

    grid: npt.NDArray[Any]  # float32, or bytes (:func:`packed`)
    table: npt.NDArray[np.float32]
    legal: Legal
    place: npt.NDArray[np.int64]
    logp: npt.NDArray[np.float32]
    weight: npt.NDArray[np.float32]
    advantage: npt.NDArray[np.float32]
    ret: npt.NDArray[np.float32]


def join(lists: list[Legal]) -> Legal:
    """Several steps' action lists as one, the rows of each after the last."""
    owners, actions, counts = [], [], []
    rows = 0
    for legal in lists:
        real = legal.valid
        owners.append(legal.owner[real] + rows)
        actions.append(legal.actions[real])
        counts.append(legal.counts)
        rows += len(legal.counts)
    return flat_list(np.concatenate(owners), np.concatenate(actions), np.concatenate(counts), BUCKET)


class Learner:
    """The network, its jitted functions and Adam (JAX and optax: the learn extra)."""

    def __init__(self, settings: Settings, net: PlanesNet) -> None:
        import jax
        import jax.numpy as jnp
        import optax

        self.settings = s = settings
        self.net = net
        self.jnp = jnp
        self.optimiser = optax.chain(optax.clip_by_global_norm(0.5), optax.adam(s.lr))
        #: Distillation has its own, faster optimiser; PPO's starts afresh after it.
        self.bc_optimiser = optax.chain(optax.clip_by_global_norm(1.0), optax.adam(BC_LR))

        def forward(params: Any, grid: Any, table: Any, owner: Any, actions: Any) -> Any:
            return net.forward(params, jnp, grid, table, owner, actions)

        def log_softmax(logits: Any, owner: Any, games: int) -> Any:
            top = jax.ops.segment_max(logits, owner, num_segments=games + 1)
            top = jax.lax.stop_gradient(top)
            total = jax.ops.segment_sum(jnp.exp(logits - top[owner]), owner, num_segments=games + 1)
            return logits - top[owner] - jnp.log(total[owner])

        def ppo_loss(
            params: Any,
            grid: Any,
            table: Any,
            owner: Any,
            actions: Any,
            chosen: Any,
            old: Any,
            adv: Any,
            ret: Any,
            w: Any,
        ) -> Any:
            games = grid.shape[0]
            logits, values = forward(params, grid, table, owner, actions)
            logp_all = log_softmax(logits, owner, games)
            logp = logp_all[chosen]
            # Rows left out (weight 0: a deal, or no legal move) must not reach the loss at all:
            # their ratio may overflow, and inf * 0 is NaN.
            ratio = jnp.exp(jnp.clip(jnp.where(w > 0, logp - old, 0.0), -20.0, 20.0))
            clipped = jnp.clip(ratio, 1 - s.clip, 1 + s.clip)
            total = jnp.maximum(w.sum(), 1.0)
            policy = -(jnp.minimum(ratio * adv, clipped * adv) * w).sum() / total
            terms = jnp.where(owner < games, jnp.exp(logp_all) * logp_all, 0.0)
            entropy = -jax.ops.segment_sum(terms, owner, num_segments=games + 1)[:games]
            entropy = (entropy * w).sum() / total
            value = (((values - ret) ** 2) * w).sum() / total
            loss = policy + s.value_coef * value - s.entropy * entropy
            return loss, (policy, value, entropy)

        def bc_loss(
            params: Any, grid: Any, table: Any, owner: Any, actions: Any, chosen: Any, ret: Any
        ) -> Any:
            games = grid.shape[0]
            logits, values = forward(params, grid, table, owner, actions)
            logp = log_softmax(logits, owner, games)[chosen]
            value = ((values - ret) ** 2).mean()
            return -logp.mean() + s.value_coef * value, (-logp.mean(), value, 0.0)

        def stepper(loss_fn: Any, optimiser: Any) -> Any:
            def step(params: Any, opt: Any, *batch: Any) -> Any:
                (loss, parts), grads = jax.value_and_grad(loss_fn, has_aux=True)(params, *batch)
                updates, opt = optimiser.update(grads, opt, params)
                return optax.apply_updates(params, updates), opt, loss, parts

            return jax.jit(step)

        self.forward = jax.jit(forward)
        self.ppo_step = stepper(ppo_loss, self.optimiser)
        self.bc_step = stepper(bc_loss, self.bc_optimiser)

    def start(self, params: Params) -> tuple[Any, Any]:
        jp = {k: self.jnp.asarray(v) for k, v in params.items()}
        return jp, self.optimiser.init(jp)

    def act(
        self, params: Any, obs: dict[str, Any], masks: npt.NDArray[np.int8], rng: np.random.Generator | None
    ) -> tuple[Legal, npt.NDArray[np.int64], npt.NDArray[np.float32], npt.NDArray[np.float32]]:
        """Each game's action list, the entry drawn (``rng``; the best without), its
        log-probability, and the values."""
        legal = legal_lists(masks)
        logits, values = self.forward(params, obs["grid"], obs["table"], legal.owner, legal.actions)
        logits = np.asarray(logits, dtype=np.float64)
        logp_all = segment_log_softmax(logits, legal)
        scores = logits if rng is None else logits + rng.gumbel(size=len(logits))
        best = best_of_each(scores, legal)
        return legal, best, logp_all[best].astype(np.float32), np.asarray(values, dtype=np.float32)


Compact = dict[str, npt.NDArray[np.float32]]


def _reset(envs: CoopVectorEnv, **kwargs: Any) -> tuple[Compact, dict[str, Any]]:
    obs, infos = envs.reset(**kwargs)
    assert isinstance(obs, dict)  # the compact layout
    return obs, infos


def _step(envs: CoopVectorEnv, actions: Any) -> tuple[Compact, Any, Any, Any, dict[str, Any]]:
    obs, rewards, terminated, truncated, infos = envs.step(actions)
    assert isinstance(obs, dict)
    return obs, rewards, terminated, truncated, infos


def learner_for(settings: Settings) -> Learner:
    """One learner a setting (its jitted functions compile once a process); the number of updates
    is not one, so a run resumed with more updates goes on with the programs already compiled."""
    return _learner(replace(settings, updates=0))


@functools.cache
def _learner(settings: Settings) -> Learner:
    envs = CoopVectorEnv(1, radius=settings.radius, layout="compact")
    return Learner(settings, PlanesNet(envs.window, envs.encoder))


def evaluate(learner: Learner, params: Any, games: int, radius: int) -> list[int]:
    """The greedy policy's final scores on game seeds 1 .. ``games`` (held out from training)."""
    envs = CoopVectorEnv(games, radius=radius, layout="compact")
    obs, infos = _reset(envs, seed=0, options={"game_seeds": list(range(1, games + 1))})
    scores: list[int | None] = [None] * games
    while any(s is None for s in scores):
        legal, best, _, _ = learner.act(params, obs, infos["action_mask"], None)
        obs, _, terminated, truncated, infos = _step(envs, legal.actions[best])
        for i in np.flatnonzero(terminated | truncated).tolist():
            if scores[i] is None:
                scores[i] = int(infos["score"][i])
    return [int(s) for s in scores if s is not None]


#: A grid value is a multiple of 1/10 from 0 to 25.5: kept as a byte, read back through this table
#: (each entry the float32 the encoder writes for it).
UNPACK = np.array([k / 10 for k in range(256)], dtype=np.float32)


def packed(grid: npt.NDArray[np.float32]) -> npt.NDArray[np.uint8]:
    """A grid as bytes (a quarter of the memory): ``UNPACK[packed(grid)]`` is ``grid`` again."""
    tenths = np.rint(grid * 10.0)
    if tenths.max(initial=0) > 255 or tenths.min(initial=0) < 0:
        raise ValueError("a grid value past 25.5 cannot be packed")
    return np.asarray(tenths, dtype=np.uint8)


def teacher_games(settings: Settings) -> Rollout:
    """``bc_games`` games of the teacher in the batched environment (its Python loop, which keeps
    the engine's states the teacher's views come from), as rows with the returns that followed."""
    s = settings
    n = min(s.bc_games, 64)
    envs = CoopVectorEnv(n, radius=s.radius, layout="compact", loop="python")
    window = envs.window
    grids: list[npt.NDArray[np.uint8]] = []
    tables: list[npt.NDArray[np.float32]] = []
    lists: list[Legal] = []
    places: list[int] = []
    rewards: list[float] = []
    episodes: list[list[int]] = [[] for _ in range(n)]
    finished: list[list[int]] = []
    obs, infos = _reset(envs, seed=SEED_BASE + s.seed * 10_000)
    teachers = [make_player(s.teacher, seed=s.seed * 1000 + i) for i in range(n)]
    rng = np.random.default_rng([s.seed, 0])
    started = n
    active = np.ones(n, dtype=np.bool_)
    resetting = np.zeros(n, dtype=np.bool_)  # ended at the last step: this step deals anew
    while active.any():
        legal = legal_lists(infos["action_mask"], bucket=1)
        step = np.zeros(n, dtype=np.int64)
        row = np.full(n, -1)
        for i in np.flatnonzero(active & ~resetting).tolist():
            state = envs.game_states[i]
            decision = teachers[i].choose(state.view())
            assert isinstance(decision, Placement)
            first, count = int(legal.starts[i]), int(legal.counts[i])
            mine = legal.actions[first : first + count]
            at = window.index.get(cell_of(*decision.at), -1)
            where = np.flatnonzero(mine == at * 6 + decision.rot) if at >= 0 else np.zeros(0, dtype=np.intp)
            if len(where):
                step[i] = at * 6 + decision.rot
                row[i] = len(rewards)
                grids.append(packed(obs["grid"][i]))
                tables.append(obs["table"][i].copy())
                lists.append(flat_list(np.zeros(count, dtype=np.int32), mine, np.array([count]), 1))
                places.append(int(where[0]))
                episodes[i].append(len(rewards))
                rewards.append(0.0)
            elif count:  # outside the window (rare): a random legal action, not learned from
                step[i] = mine[int(rng.integers(count))]
        obs, r, terminated, truncated, infos = _step(envs, step)
        for i in np.flatnonzero(row >= 0).tolist():
            rewards[row[i]] += float(r[i])
        ended = (terminated | truncated) & active & ~resetting
        for i in np.flatnonzero(ended).tolist():
            finished.append(episodes[i])
            episodes[i] = []
            if started < s.bc_games:
                started += 1
            else:
                active[i] = False
        resetting = terminated | truncated
    ret = np.zeros(len(rewards), dtype=np.float32)
    for rows in finished:
        total = 0.0
        for k in reversed(rows):
            total += rewards[k]
            ret[k] = total * REWARD_SCALE
    count = len(rewards)
    return Rollout(
        np.array(grids),
        np.array(tables),
        join(lists),
        np.array(places, dtype=np.int64),
        np.zeros(count, dtype=np.float32),
        np.ones(count, dtype=np.float32),
        np.zeros(count, dtype=np.float32),
        ret,
    )


def collect(
    learner: Learner, params: Any, envs: CoopVectorEnv, state: dict[str, Any], rng: np.random.Generator
) -> tuple[Rollout, list[int]]:
    """One rollout of ``horizon`` steps of every game, with its advantages; also the final
    scores of the games that ended in it.  ``state`` carries the observation between rollouts."""
    s = learner.settings
    n, t_max = envs.num_envs, s.horizon
    obs, infos, resetting = state["obs"], state["infos"], state["resetting"]
    grids = np.zeros((t_max, n, *obs["grid"].shape[1:]), dtype=np.float32)
    tables = np.zeros((t_max, n, obs["table"].shape[1]), dtype=np.float32)
    lists: list[Legal] = []
    place = np.zeros((t_max, n), dtype=np.int64)
    logp = np.zeros((t_max, n), dtype=np.float32)
    values = np.zeros((t_max + 1, n), dtype=np.float32)
    rewards = np.zeros((t_max, n), dtype=np.float32)
    done = np.zeros((t_max, n), dtype=np.float32)
    weight = np.zeros((t_max, n), dtype=np.float32)
    scores: list[int] = []
    for t in range(t_max):
        grids[t], tables[t] = obs["grid"], obs["table"]
        legal, best, lp, v = learner.act(params, obs, infos["action_mask"], rng)
        lists.append(legal)
        place[t] = np.where(legal.counts > 0, best - legal.starts, 0)  # a game without a move: 0
        logp[t], values[t] = lp, v
        weight[t] = ~resetting & (legal.counts > 0)
        obs, r, terminated, truncated, infos = _step(envs, legal.actions[best])
        ended = terminated | truncated
        rewards[t] = np.where(resetting, 0.0, r) * REWARD_SCALE
        done[t] = ended
        scores += [int(x) for x in infos["score"][ended & ~resetting]]
        resetting = ended.copy()
    *_, last = learner.act(params, obs, infos["action_mask"], None)
    values[t_max] = last
    advantage = np.zeros((t_max, n), dtype=np.float32)
    running = np.zeros(n, dtype=np.float32)
    for t in range(t_max - 1, -1, -1):
        going = 1.0 - done[t]
        delta = rewards[t] + s.gamma * values[t + 1] * going - values[t]
        running = delta + s.gamma * s.lam * going * running
        advantage[t] = running
    state.update(obs=obs, infos=infos, resetting=resetting)
    side = grids.shape[2:]
    return (
        Rollout(
            grids.reshape(t_max * n, *side),
            tables.reshape(t_max * n, -1),
            join(lists),
            place.reshape(-1),
            logp.reshape(-1),
            weight.reshape(-1),
            advantage.reshape(-1),
            (advantage + values[:-1]).reshape(-1),
        ),
        scores,
    )


def fit_rollout(
    learner: Learner, params: Any, opt: Any, data: Rollout, rng: np.random.Generator, epochs: int, ppo: bool
) -> tuple[Any, Any, list[float]]:
    """Passes of minibatch steps over rows of decisions (PPO's loss, or the teacher's for
    ``ppo=False``); the mean loss of each pass."""
    s = learner.settings
    adv = data.advantage
    if ppo:
        w = data.weight
        mean = (adv * w).sum() / max(w.sum(), 1.0)
        spread = np.sqrt((((adv - mean) ** 2) * w).sum() / max(w.sum(), 1.0)) + 1e-8
        adv = ((adv - mean) / spread).astype(np.float32)
    count = len(data.place)
    size = min(s.minibatch, count)
    losses = []
    for _ in range(epochs):
        order = rng.permutation(count)
        total, steps = 0.0, 0
        for first in range(0, count - size + 1, size):
            idx = np.sort(order[first : first + size])
            legal, _ = select(data.legal, idx)
            chosen = np.minimum(legal.starts + data.place[idx], len(legal.owner) - 1)
            grid = data.grid[idx]
            if grid.dtype == np.uint8:
                grid = UNPACK[grid]
            common = (grid, data.table[idx], legal.owner, legal.actions, chosen)
            if ppo:
                params, opt, loss, _ = learner.ppo_step(
                    params, opt, *common, data.logp[idx], adv[idx], data.ret[idx], data.weight[idx]
                )
            else:
                params, opt, loss, _ = learner.bc_step(params, opt, *common, data.ret[idx])
            total += float(loss)
            steps += 1
        losses.append(total / max(steps, 1))
    return params, opt, losses


def _host(params: Any) -> Params:
    return {k: np.asarray(v, dtype=np.float32) for k, v in params.items()}


def save_checkpoint(
    path: Path, params: Any, opt: Any, segment: int, curve: list[dict[str, float]], settings: Settings
) -> None:
    """The run after a segment: weights, Adam's state (its leaves, in order), segment, curve."""
    import jax

    leaves = jax.tree_util.tree_leaves(opt)
    about = {"segment": segment, "curve": curve, "settings": asdict(settings), "opt_leaves": len(leaves)}
    arrays: dict[str, Any] = {f"p_{k}": np.asarray(v) for k, v in params.items()}
    arrays.update({f"o_{i}": np.asarray(leaf) for i, leaf in enumerate(leaves)})
    text = np.frombuffer(json.dumps(about).encode(), dtype=np.uint8)
    tmp = path.with_suffix(".tmp")
    with open(tmp, "wb") as f:
        np.savez(f, about=text, **arrays)
    tmp.replace(path)


def load_checkpoint(
    path: Path, learner: Learner
) -> tuple[Any, Any, int, list[dict[str, float]], dict[str, Any]]:
    """:func:`save_checkpoint`'s run; ``ValueError`` (one line) for a file that is not one."""
    import zipfile

    import jax

    try:
        # Opened here and closed here: numpy leaves its own handle open when a file is no archive.
        with open(path, "rb") as handle, np.load(handle, allow_pickle=False) as data:
            about = json.loads(bytes(data["about"]).decode())
            params = {k: np.asarray(data[f"p_{k}"]) for k in PARAMS}
            leaves = [np.asarray(data[f"o_{i}"]) for i in range(about["opt_leaves"])]
        segment, curve, settings = int(about["segment"]), about["curve"], about["settings"]
        jp, opt = learner.start(params)
        treedef = jax.tree_util.tree_structure(opt)
        opt = jax.tree_util.tree_unflatten(treedef, [learner.jnp.asarray(x) for x in leaves])
    except (OSError, KeyError, TypeError, ValueError, zipfile.BadZipFile) as exc:
        raise ValueError(f"{path} is not a checkpoint of dorf learn --method ppo ({exc})") from None
    return jp, opt, segment, curve, settings


def plot_curve(curve: list[dict[str, float]], path: Path, title: str) -> None:
    """The learning curve: held-out greedy score and training games' score against steps."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    steps = [c["steps"] / 1e6 for c in curve]
    fig, ax = plt.subplots(figsize=(7, 4))
    ax.plot(
        steps, [c["eval_mean"] for c in curve], "o-", color="tab:green", label="greedy policy, held-out seeds"
    )
    ax.plot(
        steps,
        [c["train_mean"] for c in curve],
        "s--",
        color="tab:blue",
        label="sampling policy, training games",
    )
    ax.set_xlabel("environment steps of PPO (millions)")
    ax.set_ylabel("mean final score")
    ax.set_title(title)
    ax.grid(alpha=0.3)
    ax.legend(loc="lower right", fontsize="small")
    fig.tight_layout()
    fig.savefig(path, dpi=100)
    plt.close(fig)


def extends(stored: dict[str, Any], settings: Settings) -> bool:
    """Whether a run with ``stored`` settings may go on as ``settings``: the same, or more updates
    after whole segments (segment ``k`` plays the same games whatever the total)."""
    now = asdict(settings)
    if stored == now:
        return True
    same = {k: v for k, v in stored.items() if k != "updates"} == {
        k: v for k, v in now.items() if k != "updates"
    }
    return same and now["updates"] > stored["updates"] and stored["updates"] % settings.eval_every == 0


def train_ppo(
    out: Path,
    settings: Settings,
    *,
    resume: bool = False,
    stream: TextIO | None = None,
    progress: bool | None = None,
    plot: bool = True,
    stop_after: int | None = None,
) -> tuple[Params, list[dict[str, float]]]:
    """Run (or continue) a run in folder ``out``; see the module's documentation.  With
    ``stop_after`` it stops after that many segments (as a run that is interrupted would)."""
    if stream is None:
        stream = sys.stderr
    s = settings
    if s.envs < 1 or s.horizon < 1 or s.eval_every < 1 or s.eval_games < 1:
        raise ValueError("envs, horizon, eval-every and eval-games must be 1 or more")
    out.mkdir(parents=True, exist_ok=True)
    checkpoint = out / "ppo-checkpoint.npz"
    envs = CoopVectorEnv(s.envs, radius=s.radius, layout="compact")
    learner = learner_for(s)
    net = learner.net
    show = stream.isatty() if progress is None else progress
    segments = -(-s.updates // s.eval_every)
    if resume and checkpoint.exists():
        params, opt, segment, curve, stored = load_checkpoint(checkpoint, learner)
        if not extends(stored, s):
            raise ValueError(f"the checkpoint was made with other settings: {stored}")
    else:
        params, opt = learner.start(net.init(np.random.default_rng(s.seed), s.hidden))
        segment, curve = 0, []
        started = time.perf_counter()
        if s.bc_games:
            data = teacher_games(s)
            bc_opt = learner.bc_optimiser.init(params)
            params, _, losses = fit_rollout(
                learner, params, bc_opt, data, np.random.default_rng([s.seed, 1]), s.bc_epochs, ppo=False
            )
            opt = learner.optimiser.init(params)
            stream.write(
                f"distilled {s.teacher}: {len(data.place)} decisions of {s.bc_games} games, "
                f"loss {losses[0]:.3f} -> {losses[-1]:.3f}\n"
            )
        scores = evaluate(learner, params, s.eval_games, s.radius)
        curve.append(
            {
                "segment": 0.0,
                "steps": 0.0,
                "eval_mean": float(np.mean(scores)),
                "train_mean": float("nan"),
                "seconds": time.perf_counter() - started,
            }
        )
        stream.write(
            f"segment 0/{segments}: held-out mean {curve[-1]['eval_mean']:.1f} over {s.eval_games} games\n"
        )
        save_checkpoint(checkpoint, params, opt, 0, curve, s)
    offset = curve[-1]["seconds"]
    clock = time.perf_counter()
    done_here = 0
    while segment < segments and (stop_after is None or done_here < stop_after):
        done_here += 1
        rng = np.random.default_rng([s.seed, 2, segment])
        obs, infos = _reset(envs, seed=SEED_BASE + s.seed * 10_000 + 1_000 * (segment + 1))
        state: dict[str, Any] = {"obs": obs, "infos": infos, "resetting": np.zeros(s.envs, dtype=np.bool_)}
        first = segment * s.eval_every
        last = min(s.updates, first + s.eval_every)
        bar = Bar(last - first, stream, show)
        played: list[int] = []
        for _ in range(first, last):
            data, scores = collect(learner, params, envs, state, rng)
            played += scores
            params, opt, _ = fit_rollout(learner, params, opt, data, rng, s.epochs, ppo=True)
            bar.step("updates")
        bar.close()
        segment += 1
        scores = evaluate(learner, params, s.eval_games, s.radius)
        entry = {
            "segment": float(segment),
            "steps": float(last * s.envs * s.horizon),
            "eval_mean": float(np.mean(scores)),
            "train_mean": float(np.mean(played)) if played else float("nan"),
            "seconds": offset + time.perf_counter() - clock,
        }
        curve.append(entry)
        save_checkpoint(checkpoint, params, opt, segment, curve, s)
        save_params(_host(params), out / "ppo-policy.npz", {"settings": asdict(s), "curve": curve})
        stream.write(
            f"segment {segment}/{segments}: {int(entry['steps'])} steps, "
            f"training games {entry['train_mean']:.1f} ({len(played)}), "
            f"held-out mean {entry['eval_mean']:.1f}, {entry['seconds']:.0f} s\n"
        )
        stream.flush()
    if not (out / "ppo-policy.npz").exists():
        save_params(_host(params), out / "ppo-policy.npz", {"settings": asdict(s), "curve": curve})
    if plot and curve:
        plot_curve(
            curve,
            out / "ppo-curve.png",
            f"dorf learn --method ppo: {s.envs} games, distilled from {s.teacher}"
            if s.bc_games
            else f"dorf learn --method ppo: {s.envs} games",
        )
    return _host(params), curve
