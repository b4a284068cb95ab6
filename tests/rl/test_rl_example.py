"""The example of docs/rl.md: its features read the planes right, and a short run works."""

from __future__ import annotations

import gymnasium  # noqa: F401
import numpy as np
import pytest

from dorf.rl.coop_env import CoopEnv
from dorf.rl.example import FEATURES, Features, LinearPolicy, main, random_policy, train

pytestmark = pytest.mark.slow


def test_contact_features_agree_with_the_engine() -> None:
    """From the planes alone, the example counts the same contacts as PlayArea.contacts."""
    env = CoopEnv()
    features = Features(env.encoder)
    rng = np.random.default_rng(1)
    obs, info = env.reset(seed=1)
    for _ in range(25):
        legal = np.flatnonzero(info["action_mask"])
        table = features(obs, legal)
        assert table.shape == (len(legal), len(FEATURES))
        state = env.game_state
        revealed = state.revealed
        assert revealed is not None
        for action, row in zip(legal, table, strict=True):
            cell, rot = env.window.decode(int(action))
            same, other = state.area.contacts(revealed.tile.face, cell, rot)
            assert row[1] + row[2] == pytest.approx(same / 6)
            assert row[4] == pytest.approx(other / 6)
        obs, _, terminated, truncated, info = env.step(int(rng.choice(legal)))
        assert not (terminated or truncated)


def test_short_training_run(capsys: pytest.CaptureFixture[str]) -> None:
    env = CoopEnv()
    weights, steps = train(env, 200, seed=1, population=4)
    assert weights.shape == (len(FEATURES),) and steps >= 200
    rng = np.random.default_rng(0)
    obs, info = env.reset(seed=0)
    assert info["action_mask"][LinearPolicy(Features(env.encoder), weights)(obs, info["action_mask"], rng)]
    assert info["action_mask"][random_policy(obs, info["action_mask"], rng)]
    assert main(["--steps", "60", "--games", "1"]) == 0
    out = capsys.readouterr().out
    assert "mean score over 1 games: trained policy" in out and "RandomPlayer" in out
