"""``dorf learn`` (JAX, the learn extra): a few training steps move the loss, checkpoints round-trip."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from dorf.players.learned import FEATURES, Policy, load_policy
from dorf.rl.learn import Decisions, first_policy, fit, load_checkpoint, play_and_label, train


@pytest.mark.parametrize("loss", ["values", "choice"])
@pytest.mark.slow
def test_a_few_training_steps_lower_the_loss(loss: str) -> None:
    found, scores = play_and_label(Policy.initial(), "planner:1", [1_000_123], max_moves=12)
    assert len(found.labels) >= 8 and len(scores) == 1
    x, valid, labels, targets = found.arrays()
    assert x.shape[2] == len(FEATURES) and np.allclose(targets.sum(axis=1), 1.0)
    assert all(valid[i, label] for i, label in enumerate(labels))
    policy = first_policy(found, seed=1)
    fitted, losses = fit(policy, found, seed=1, epochs=25, lr=0.05, loss=loss)
    assert losses[-1] < losses[0] - 1e-3, losses
    assert not np.allclose(fitted.lin, policy.lin)
    rows = found.rows[0]
    assert fitted.scores(rows) != policy.scores(rows)


@pytest.mark.slow  # two training runs
def test_a_run_checkpoints_resumes_and_its_policy_loads_without_numpy(tmp_path: Path) -> None:
    settings = {"seed": 2, "games": 1, "teacher": "planner:1", "epochs": 3, "max_moves": 6, "plot": False}
    policy_a, run_a = train(tmp_path / "a", rounds=2, progress=False, **settings)  # type: ignore[arg-type]
    train(tmp_path / "b", rounds=1, progress=False, **settings)  # type: ignore[arg-type]
    policy_b, run_b = train(tmp_path / "b", rounds=2, resume=True, progress=False, **settings)  # type: ignore[arg-type]
    assert run_a.round == run_b.round == 2
    assert run_a.decisions.labels == run_b.decisions.labels
    assert np.allclose(policy_a.lin, policy_b.lin) and np.allclose(policy_a.w, policy_b.w)
    loaded = load_policy(tmp_path / "a" / "policy.npz")  # the standard library's reader
    assert loaded.w == policy_a.w and loaded.a == policy_a.a and loaded.mean == policy_a.mean
    assert (tmp_path / "a" / "policy.npz").stat().st_size < 100_000
    restored, run = load_checkpoint(tmp_path / "a" / "checkpoint.npz")
    assert run.round == 2 and len(run.curve) == 2
    assert run.decisions.targets == [list(map(float, np.float32(t))) for t in run_a.decisions.targets]
    rows = run.decisions.rows[0]
    assert np.allclose(restored.scores(rows), policy_a.scores(rows))


def test_decisions_pad_to_the_most_candidates() -> None:
    found = Decisions()
    found.add([[1.0] * len(FEATURES)], 0, [1.0], [3.0])
    found.add([[2.0] * len(FEATURES)] * 3, 2, [0.0, 0.5, 0.5], [float("nan"), 1.0, 2.0])
    x, valid, labels, targets = found.arrays()
    assert x.shape == (2, 3, len(FEATURES)) and valid.sum() == 4 and labels.tolist() == [0, 2]
    assert targets[1].tolist() == [0.0, 0.5, 0.5]
    assert np.isnan(found.value_array(3)[1, 0]) and found.value_array(3)[1, 2] == 2.0


@pytest.mark.slow  # a training run and its curve (matplotlib)
def test_the_learn_command_writes_a_policy_a_curve_and_ships_it(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from dorf.cli import main

    out, ship = tmp_path / "run", tmp_path / "shipped.npz"
    argv = ["learn", "--rounds", "1", "--games", "1", "--teacher", "planner:0", "--epochs", "2"]
    assert main([*argv, "--out", str(out), "--ship", str(ship)]) == 0
    assert (out / "curve.png").read_bytes()[:4] == b"\x89PNG"
    assert load_policy(ship).about["command"]["teacher"] == "planner:0"
    assert "round 1/1: mean score" in capsys.readouterr().err
    # Resuming a finished run with other settings is refused in one line.
    assert main([*argv[:-1], "3", "--out", str(out), "--resume"]) == 2
    assert "other settings" in capsys.readouterr().err
