"""Reinforcement-learning adapters: Gymnasium, PettingZoo and OpenSpiel, outside the rules core.

They need numpy (the ``rl`` extra adds Gymnasium and PettingZoo, the
``openspiel`` extra OpenSpiel); the rules core stays standard library only,
and so does this package's ``__init__``.

- ``import dorf.rl`` registers ``dorf/Coop-v0`` with Gymnasium (when it is
  installed), so ``gymnasium.make("dorf/Coop-v0")`` works; without the import,
  ``gymnasium.make("dorf.rl:dorf/Coop-v0")`` imports it first.
- :mod:`dorf.rl.aec`: PettingZoo AEC environments ``duel_env()`` and ``head_to_head_env()``.
- :mod:`dorf.rl.openspiel`: the OpenSpiel game ``dorf_coop`` (explicit chance nodes).
- :mod:`dorf.rl.window`, :mod:`dorf.rl.planes`: the shared action window and observation planes.
- :mod:`dorf.rl.cli`: what runs ``dorf learn`` (its options: :mod:`dorf.commands.learn`); it
  trains by DAgger (:mod:`dorf.rl.learn`) or PPO (:mod:`dorf.rl.ppo`), both showing
  :mod:`dorf.rl.progress`'s bar.

See docs/rl.md.
"""

from __future__ import annotations

COOP_ENV_ID = "dorf/Coop-v0"

__all__ = ["COOP_ENV_ID", "register_envs"]


def register_envs() -> bool:
    """Register ``dorf/Coop-v0`` with Gymnasium; False if Gymnasium is not installed."""
    try:
        import gymnasium
    except ImportError:
        return False
    if COOP_ENV_ID not in gymnasium.registry:
        gymnasium.register(
            id=COOP_ENV_ID,
            entry_point="dorf.rl.coop_env:CoopEnv",
            vector_entry_point="dorf.rl.vector:make_vector",
        )
    return True


register_envs()
