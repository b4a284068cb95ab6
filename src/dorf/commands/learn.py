"""``dorf learn``'s options (what runs them: :mod:`dorf.rl.cli`, imported only for a run, so that
no other command imports Gymnasium and numpy with :mod:`dorf.rl`)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from dorf.arguments import positive
from dorf.players.learned import DEFAULT_TEACHER, HIDDEN, LOSSES


def add_learn_parser(sub: Any) -> None:
    """The ``dorf learn`` command's options (``sub``: the command line's subparsers)."""
    parser = sub.add_parser(
        "learn",
        help="train a policy (JAX: the learn extra)",
        description="Train a policy in JAX (the learn extra): seeded, resumable, with a learning "
        "curve (docs/rl.md#dorf-learn). --method dagger (the default) trains the `learned` "
        "player's one-placement policy by distillation with DAgger; --method ppo trains a policy "
        "of the observation planes on the batched environments: distillation, then PPO.",
    )
    parser.add_argument(
        "--method", choices=("dagger", "ppo"), default="dagger", help="what to train (default dagger)"
    )
    parser.add_argument("--seed", type=int, default=1, help="the run's seed (default 1)")
    parser.add_argument(
        "--teacher", default=None, help=f"the player imitated (default {DEFAULT_TEACHER}; ppo: planner:0)"
    )
    parser.add_argument(
        "--epochs",
        type=positive,
        default=None,
        help="passes over the data a fit (default 40; ppo: 3 a rollout)",
    )
    parser.add_argument(
        "--lr", type=float, default=None, help="Adam's learning rate (default 0.01; ppo: 0.0003)"
    )
    parser.add_argument(
        "--hidden", type=positive, default=None, help=f"hidden units (default {HIDDEN}; ppo: 32)"
    )
    parser.add_argument(
        "--out", type=Path, default=Path("learn-run"), help="the run's folder (default learn-run)"
    )
    parser.add_argument("--resume", action="store_true", help="continue from the run's checkpoint in OUT")
    parser.add_argument("--ship", type=Path, default=None, help="copy the final policy there too")
    parser.add_argument("--no-plot", action="store_true", help="do not write the curve's PNG")
    dagger = parser.add_argument_group("dagger")
    dagger.add_argument("--rounds", type=positive, default=4, help="rounds of play, label, fit (default 4)")
    dagger.add_argument("--games", type=positive, default=20, help="games a round (default 20)")
    dagger.add_argument(
        "--loss",
        choices=LOSSES,
        default="values",
        help="fit the teacher's values or its choices (default values)",
    )
    ppo = parser.add_argument_group("ppo")
    ppo.add_argument("--envs", type=positive, default=64, help="games stepped together (default 64)")
    ppo.add_argument(
        "--horizon", type=positive, default=32, help="steps of every game a rollout (default 32)"
    )
    ppo.add_argument("--updates", type=positive, default=300, help="PPO updates, one a rollout (default 300)")
    ppo.add_argument("--minibatch", type=positive, default=256, help="rows a minibatch (default 256)")
    ppo.add_argument("--entropy", type=float, default=0.003, help="the entropy bonus (default 0.003)")
    ppo.add_argument(
        "--bc-games", type=int, default=512, help="the teacher's games to distil first (default 512; 0: none)"
    )
    ppo.add_argument("--bc-epochs", type=positive, default=10, help="passes over them (default 10)")
    ppo.add_argument(
        "--eval-games", type=positive, default=100, help="held-out games (seeds 1..N) a segment (default 100)"
    )
    ppo.add_argument("--eval-every", type=positive, default=25, help="updates a segment (default 25)")
