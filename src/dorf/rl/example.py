"""Train a small masked policy on ``dorf/Coop-v0`` and compare it with the random player.

Run ``python -m dorf.rl.example`` (options: ``--steps``, ``--games``, ``--seed``).

The policy sees only what the environment gives an agent: the observation
planes and the action mask.  For each legal action it computes a few features
from the planes (the revealed tile turned by the action's rotation against the
edges of the tiles around the action's cell, groups it would close, tasks it
would complete) and scores them linearly: the greedy policy plays the best
score, the softmax over the scores samples.  The weights are trained with the
cross-entropy method: each round draws a population of weight vectors, plays
one game greedily with each (the same shuffle for all, to compare like with
like) and refits the sampling distribution to the best quarter.  numpy only.

Afterwards the greedy policy, a uniformly random masked policy and the engine's
:class:`dorf.players.RandomPlayer` play the same evaluation shuffles, and their
mean scores are printed.
"""

from __future__ import annotations

import argparse
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from dorf.games.coop import CoopGame
from dorf.players import RandomPlayer
from dorf.rl.coop_env import CoopEnv
from dorf.rl.planes import GROUP_LETTERS, SCALE, Encoder, Planes
from dorf.rules.hexgrid import Hex
from dorf.rules.terrain import LETTERS, TASK_LETTER

FloatArray = npt.NDArray[np.float64]
IntArray = npt.NDArray[np.intp]

FEATURES = (
    "neighbours",
    "same territory",
    "same river or track",
    "meadow on meadow",
    "other contacts",
    "closes a group",
    "completes a neighbour's task",
    "completes its own task",
    "distance from [0, 0]",
)
_TERRITORY = [LETTERS.index(x) for x in "FGV"]
_NETWORK = [LETTERS.index(x) for x in "RT"]
_MEADOW = LETTERS.index("M")
#: Maps an edge letter to its group plane (zero row for meadow, lake and mountain).
_GROUP_OF = np.zeros((len(LETTERS), len(GROUP_LETTERS)))
for _g, _letter in enumerate(GROUP_LETTERS):
    _GROUP_OF[LETTERS.index(_letter), _g] = 1.0
_TASK_TYPES = tuple(TASK_LETTER)  # forest, grain, village, river, track: one letter each
_TASK_LETTER_OF = np.zeros((len(_TASK_TYPES), len(LETTERS)))
for _t, _name in enumerate(_TASK_TYPES):
    _TASK_LETTER_OF[_t, LETTERS.index(TASK_LETTER[_name])] = 1.0


class Features:
    """Per legal action, the features of :data:`FEATURES`, read from the coop planes alone."""

    def __init__(self, encoder: Encoder) -> None:
        window = encoder.window
        at = encoder.offset
        self.size = window.size
        self.rows, self.cols = window.rows, window.cols
        neighbours = window.neighbours.copy()
        neighbours[neighbours < 0] = window.size  # a zero row stands for cells outside the window
        self.neighbours = neighbours
        self.distance = np.array([h.distance(Hex(0, 0)) for h in window.hexes]) / max(1, window.radius)
        self.edge0 = at["edge:0:F"]
        self.next0 = at["next:edge:0:F"]
        self.group0 = at[f"group:{GROUP_LETTERS[0]}"]
        self.gopen0 = at[f"group-open:{GROUP_LETTERS[0]}"]
        self.task0 = at[f"task:{_TASK_TYPES[0]}"]
        self.task_size = at["task:size"]
        self.next_task0 = at[f"next:task:{_TASK_TYPES[0]}"]
        self.next_value = at["next:value"]

    def _cells(self, obs: Planes, first: int, count: int) -> FloatArray:
        """``count`` planes from ``first`` at each window cell, and a zero row: shape (size + 1, count)."""
        values = obs[first : first + count][:, self.rows, self.cols].T
        return np.vstack([values, np.zeros((1, count))])

    def __call__(self, obs: Planes, legal: IntArray) -> FloatArray:
        cells, rots = np.divmod(legal, 6)
        n_letters = len(LETTERS)
        board = self._cells(obs, self.edge0, 6 * n_letters).reshape(self.size + 1, 6, n_letters)
        tile = obs[self.next0 : self.next0 + 6 * n_letters, 0, 0].reshape(6, n_letters)
        d = np.arange(6)
        own = tile[(d[None, :] - rots[:, None]) % 6]  # (n, 6, letters): the turned tile's edges
        near = self.neighbours[cells]  # (n, 6)
        other = board[near, (d[None, :] + 3) % 6]  # (n, 6, letters): the facing edges
        occupied = other.sum(-1)
        contact = own * other  # one-hot of the letter where both edges agree
        same = contact.sum(-1)
        groups_open = self._cells(obs, self.gopen0, len(GROUP_LETTERS))[near]  # (n, 6, groups)
        closes = (contact @ _GROUP_OF * np.isclose(groups_open * SCALE, 1.0)).sum((-1, -2))
        # A neighbour's open task whose group this contact would bring to its value.
        tasks = self._cells(obs, self.task0, len(_TASK_TYPES))[near]  # (n, 6, types): value / 10
        task_size = self._cells(obs, self.task_size, 1)[near][..., 0]  # (n, 6)
        task_letters = (tasks > 0) @ _TASK_LETTER_OF  # (n, 6, letters)
        value = tasks.max(-1)
        completes = ((contact * task_letters).sum(-1) > 0) & np.isclose(task_size * SCALE + 1, value * SCALE)
        # The revealed tile's own task: its group after placing, counted roughly through the contacts.
        next_task = obs[self.next_task0 : self.next_task0 + len(_TASK_TYPES), 0, 0] @ _TASK_LETTER_OF
        sizes = self._cells(obs, self.group0, len(GROUP_LETTERS))[near]  # (n, 6, groups)
        joined = ((contact * next_task).sum(-1) * (sizes @ _GROUP_OF.T * next_task).sum(-1)).sum(-1)
        own_value = obs[self.next_value, 0, 0] * SCALE
        own_completes = (own_value > 0) & np.isclose(joined * SCALE + 1, own_value)
        return np.stack(
            [
                occupied.sum(-1) / 6,
                contact[..., _TERRITORY].sum((-1, -2)) / 6,
                contact[..., _NETWORK].sum((-1, -2)) / 6,
                contact[..., _MEADOW].sum(-1) / 6,
                (occupied - same).sum(-1) / 6,
                closes,
                completes.sum(-1),
                own_completes.astype(float),
                self.distance[cells],
            ],
            axis=1,
        )


@dataclass
class LinearPolicy:
    """Softmax over the legal actions of ``features @ weights``; greedy picks the best."""

    features: Features
    weights: FloatArray
    greedy: bool = False

    def __call__(self, obs: Planes, mask: npt.NDArray[np.int8], rng: np.random.Generator) -> int:
        legal = np.flatnonzero(mask)
        logits = self.features(obs, legal) @ self.weights
        if self.greedy:
            best = np.flatnonzero(logits >= logits.max() - 1e-9)
            return int(legal[rng.choice(best)])
        p = np.exp(logits - logits.max())
        return int(rng.choice(legal, p=p / p.sum()))


Policy = Callable[[Planes, npt.NDArray[np.int8], np.random.Generator], int]


def random_policy(obs: Planes, mask: npt.NDArray[np.int8], rng: np.random.Generator) -> int:
    """Uniform among the legal actions."""
    return int(rng.choice(np.flatnonzero(mask)))


def play(env: CoopEnv, policy: Policy, game_seed: int, rng: np.random.Generator) -> tuple[float, int]:
    """One episode on the shuffle ``game_seed``: its return (the final score) and its steps."""
    obs, info = env.reset(options={"game_seed": game_seed})
    total, steps, done = 0.0, 0, False
    while not done:
        obs, reward, terminated, truncated, info = env.step(policy(obs, info["action_mask"], rng))
        total += float(reward)
        steps += 1
        done = terminated or truncated
    return total, steps


def train(
    env: CoopEnv,
    steps: int,
    seed: int = 0,
    population: int = 8,
    greedy: bool = True,
    log: Callable[[str], None] | None = None,
) -> tuple[FloatArray, int]:
    """Cross-entropy method over the weights for about ``steps`` environment steps.

    Returns the mean weights and the steps taken.
    """
    rng = np.random.default_rng(seed)
    features = Features(env.encoder)
    mean = np.zeros(len(FEATURES))
    std = np.full(len(FEATURES), 2.0)
    elite = max(2, population // 4)
    taken = 0
    round_ = 0
    while taken < steps:
        round_ += 1
        game_seed = int(rng.integers(2**31))
        candidates = mean + std * rng.standard_normal((population, len(FEATURES)))
        scores = []
        for weights in candidates:
            score, n = play(env, LinearPolicy(features, weights, greedy), game_seed, rng)
            scores.append(score)
            taken += n
        best = candidates[np.argsort(scores)[-elite:]]
        mean = best.mean(axis=0)
        std = best.std(axis=0) + 0.1
        if log is not None:
            mean_score, best_score = np.mean(scores), max(scores)
            log(f"round {round_:2d}: steps {taken:5d}, mean score {mean_score:5.1f}, best {best_score:3.0f}")
    return mean, taken


def evaluate(env: CoopEnv, policy: Policy, seeds: Sequence[int], seed: int = 0) -> float:
    rng = np.random.default_rng(seed)
    return float(np.mean([play(env, policy, s, rng)[0] for s in seeds]))


def engine_random(seeds: Sequence[int], seed: int = 0) -> float:
    """The mean score of :class:`dorf.players.RandomPlayer` (every legal placement, no window)."""
    player = RandomPlayer(seed)
    scores = []
    for s in seeds:
        state = CoopGame(seed=s).new_state()
        while not state.is_over:
            state.apply(player.choose(state.view()))
        scores.append(state.score().total)
    return float(np.mean(scores))


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m dorf.rl.example", description=__doc__.split("\n")[0])
    parser.add_argument("--steps", type=int, default=4000, help="training steps (default 4000)")
    parser.add_argument("--games", type=int, default=100, help="evaluation games (default 100)")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--radius", type=int, default=10)
    args = parser.parse_args(argv)
    env = CoopEnv(radius=args.radius)
    start = time.perf_counter()
    weights, taken = train(env, args.steps, seed=args.seed, log=print)
    trained = time.perf_counter() - start
    print("weights:", ", ".join(f"{name} {w:+.2f}" for name, w in zip(FEATURES, weights, strict=True)))
    seeds = [1_000_000 + i for i in range(args.games)]  # evaluation shuffles, apart from training's
    policy = LinearPolicy(Features(env.encoder), weights, greedy=True)
    ours = evaluate(env, policy, seeds, args.seed)
    masked = evaluate(env, random_policy, seeds, args.seed)
    engine = engine_random(seeds, args.seed)
    print(f"trained on {taken} steps in {trained:.1f} s")
    print(f"mean score over {args.games} games: trained policy {ours:.2f}, ", end="")
    print(f"random masked policy {masked:.2f}, RandomPlayer {engine:.2f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
