"""What runs ``dorf learn`` (its options: :mod:`dorf.commands.learn`), for both methods (DAgger,
:mod:`dorf.rl.learn`; PPO, :mod:`dorf.rl.ppo`). :mod:`dorf.cli` imports it only for a ``dorf
learn`` run: importing :mod:`dorf.rl` registers the environments with Gymnasium (half a second),
which no other command should pay."""

from __future__ import annotations

import argparse
import shutil
import sys

from dorf.players.learned import DEFAULT_TEACHER, HIDDEN
from dorf.players.registry import make_player
from dorf.rl.learn import train


def learn_main(args: argparse.Namespace) -> int:
    try:
        import jax  # noqa: F401
        import optax  # noqa: F401
    except ImportError:
        print("dorf learn: needs JAX and optax: pip install -e '.[learn]'", file=sys.stderr)
        return 2
    try:
        if args.method == "ppo":
            return _learn_ppo(args)
        train(
            args.out,
            seed=args.seed,
            rounds=args.rounds,
            games=args.games,
            teacher=args.teacher or DEFAULT_TEACHER,
            epochs=args.epochs or 40,
            lr=0.01 if args.lr is None else args.lr,
            hidden=args.hidden or HIDDEN,
            loss=args.loss,
            resume=args.resume,
            plot=not args.no_plot,
        )
    except ValueError as exc:
        print(f"dorf learn: {exc}", file=sys.stderr)
        return 2
    if args.ship is not None:
        shutil.copyfile(args.out / "policy.npz", args.ship)
    print(args.out / "policy.npz")
    return 0


def _learn_ppo(args: argparse.Namespace) -> int:
    from dorf.rl.ppo import Settings, train_ppo  # numpy: only for a PPO run

    if args.bc_games < 0:
        raise ValueError(f"--bc-games must be 0 or more, not {args.bc_games}")
    default = Settings()  # the options the two methods share default to PPO's own values here
    settings = Settings(
        seed=args.seed,
        envs=args.envs,
        horizon=args.horizon,
        updates=args.updates,
        epochs=args.epochs or default.epochs,
        minibatch=args.minibatch,
        lr=default.lr if args.lr is None else args.lr,
        hidden=args.hidden or default.hidden,
        entropy=args.entropy,
        bc_games=args.bc_games,
        bc_epochs=args.bc_epochs,
        teacher=args.teacher or default.teacher,
        eval_games=args.eval_games,
        eval_every=args.eval_every,
    )
    make_player(settings.teacher)  # an unknown teacher is refused before any work
    train_ppo(args.out, settings, resume=args.resume, plot=not args.no_plot)
    if args.ship is not None:
        shutil.copyfile(args.out / "ppo-policy.npz", args.ship)
    print(args.out / "ppo-policy.npz")
    return 0
