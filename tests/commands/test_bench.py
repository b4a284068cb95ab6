"""`dorf bench`: the output line's format and its determinism (never its speed)."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest
from in_process import dorf

from dorf.commands.bench import compare, run_bench, run_search_bench
from dorf.rules.area import COMPILED

KEYS = ["mode", "backend", "games", "placements", "seconds", "placements_per_s", "games_per_s", "mean_score"]


def test_bench_prints_one_json_line_with_the_documented_keys() -> None:
    done = subprocess.run(
        [sys.executable, "-m", "dorf.cli", "bench", "--games", "3", "--seed", "4"],
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    assert len(lines) == 1
    figures = json.loads(lines[0])
    assert list(figures) == KEYS
    assert figures["backend"] in ("compiled", "pure")
    assert figures["games"] == 3
    assert figures["placements"] > 3 * 45  # every landscape that is played, and task tiles


@pytest.mark.parametrize("mode", ["coop", "duel", "head-to-head"])
def test_bench_games_are_determined_by_the_seed(mode: str) -> None:
    first, second = run_bench(4, seed=11, mode=mode), run_bench(4, seed=11, mode=mode)
    assert first["mode"] == mode
    assert (first["placements"], first["mean_score"]) == (second["placements"], second["mean_score"])
    assert first["placements"] > 4 * 30


def test_bench_rejects_a_bad_count_in_one_line() -> None:
    done = dorf("bench", "--games", "0")
    assert done.returncode == 2
    assert done.stdout == ""
    assert len(done.stderr.strip().splitlines()) == 1
    assert "Traceback" not in done.stderr


@pytest.mark.slow
def test_the_planner_bench_makes_the_same_choices_on_both_backends() -> None:
    figures = run_search_bench(2, 1, player="planner")
    assert figures["decisions"] == 2 and figures["futures"] == 24 and len(figures["chosen"]) == 2
    if COMPILED is not None:
        compared = compare("planner", 1, 1, "coop", rounds=1)  # a position: the pure planner is slow
        assert compared["measure"] == "planner" and compared["same_choices"] is True


@pytest.mark.parametrize("mode", ["coop", "duel", "head-to-head"])
@pytest.mark.slow
def test_the_vector_bench_times_the_batch_of_the_mode_then_one_environment(mode: str) -> None:
    from dorf.rl.bench import run_vector_bench

    figures = run_vector_bench(envs=(2,), steps=20, single_steps=20, mode=mode)
    assert figures["measure"] == "vector" and figures["mode"] == mode
    kinds = [(row["env"], row["envs"], row["layout"]) for row in figures["rows"]]
    if mode == "coop":
        assert kinds == [("vector", 2, "compact"), ("vector", 2, "full"), ("single", 1, "full")]
    else:  # the two-seat batch has the full planes only
        assert kinds == [("self-play", 2, "full"), ("single", 1, "full")]
        from dorf.rl.vector import _compiled

        # the two-player batches are stepped in C where dorf.rl._vector is built
        assert figures["loop"] == ("python" if _compiled is None else "compiled")
    assert all(row["steps"] >= 20 and row["steps_per_cpu_s"] > 0 for row in figures["rows"])


@pytest.mark.slow  # a dorf process (run_vector_bench's own test above stays in the quick tier)
def test_dorf_bench_vector_reads_the_mode() -> None:
    done = dorf("bench", "--measure", "vector", "--mode", "duel", "--envs", "2", "--steps", "20")
    assert done.returncode == 0, done.stderr
    first, *table = done.stdout.splitlines()
    assert json.loads(first)["mode"] == "duel"
    assert [line.split()[1] for line in table] == ["self-play", "single"]
