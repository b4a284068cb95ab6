"""``dorf tune``: a tiny run end to end writes a weights file the planner loads, the same every time."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from dorf.cli import main
from dorf.commands.tune import shipped_path
from dorf.games.coop import CoopGame
from dorf.players.evaluation import read_weights
from dorf.players.planner import PlannerPlayer


def _tune(out: Path, *extra: str) -> int:
    return main(
        [
            "tune",
            "--games",
            "2",
            "--rounds",
            "2",
            "--futures",
            "1",
            "--workers",
            "1",
            "--out",
            str(out),
            *extra,
        ]
    )


@pytest.mark.slow
def test_a_tiny_tuning_run_writes_weights_the_planner_plays_with(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    first, second = tmp_path / "a.json", tmp_path / "b.json"
    assert _tune(first) == 0
    out = capsys.readouterr().out
    assert "round 1/2: 2 games of greedy" in out and "round 2/2: 2 games of planner:1" in out
    assert f"wrote {first}" in out
    weights = read_weights(first.read_text())
    document = json.loads(first.read_text())
    assert document["tuning"]["command"].startswith("dorf tune --mode coop --seed 1 --games 2 --rounds 2")
    assert [r["round"] for r in document["tuning"]["rounds"]] == [1, 2]
    assert _tune(second) == 0
    assert read_weights(second.read_text()) == weights  # the same run gives the same weights
    state = CoopGame(seed=2).new_state()
    decision = PlannerPlayer(1, iterations=1, weights=weights).choose(state.view())
    assert state.why_illegal(decision) is None  # type: ignore[arg-type]


def test_bad_tuning_set_ups_are_one_line(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["tune", "--start", "oracle", "--out", str(tmp_path / "w.json")]) == 2
    err = capsys.readouterr().err
    assert err.startswith("dorf tune: --start: unknown player 'oracle'") and err.count("\n") == 1
    assert (
        main(
            [
                "tune",
                "--games",
                "1",
                "--rounds",
                "1",
                "--workers",
                "1",
                "--out",
                str(tmp_path / "no" / "w.json"),
            ]
        )
        == 2
    )
    assert "cannot write" in capsys.readouterr().err


@pytest.mark.slow
def test_the_cross_entropy_stage_runs_from_a_seed_and_repeats(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    first, second = tmp_path / "a.json", tmp_path / "b.json"
    stage = ["--rounds", "1", "--cem-generations", "1", "--cem-population", "2", "--cem-elite", "1"]
    stage += ["--cem-games", "2"]
    assert _tune(first, *stage) == 0
    out = capsys.readouterr().out
    assert "cross-entropy generation 1/1: mean weights " in out
    document = json.loads(first.read_text())
    assert (
        "--cem-generations 1 --cem-population 2 --cem-elite 1 --cem-games 2" in document["tuning"]["command"]
    )
    assert [g["generation"] for g in document["tuning"]["cross_entropy"]] == [1]
    assert _tune(second, *stage) == 0
    assert read_weights(second.read_text()) == read_weights(first.read_text())


@pytest.mark.parametrize("mode", ["coop", "duel", "head-to-head"])
def test_the_shipped_weights_say_which_tune_command_wrote_them(mode: str) -> None:
    document = json.loads(shipped_path(mode).read_text(encoding="utf-8"))
    command = document["tuning"]["command"]
    assert command.startswith(f"dorf tune --mode {mode} --seed ")
    assert document["tuning"]["seconds"] > 0 and document["tuning"]["rounds"]
