"""``dorf simulate``: game lines, the summary table, parallel runs, the plot and its one-line errors.

The process pool, the plot (matplotlib), Ray and the search player's games are in the slow tier."""

from __future__ import annotations

import importlib
import io
import json
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from dorf.cli import main
from dorf.commands.simulate import (
    GameJob,
    InOrderWriter,
    Progress,
    Simulation,
    categories,
    play_game,
    run_games,
    summarise,
    summary_lines,
    wilson,
)
from repo import DOCS

COOP_KEYS = ["game", "seed", "mode", "players", "moves", "score", "seconds"]
TWO_PLAYER_KEYS = ["game", "seed", "mode", "players", "moves", "score", "winner", "seconds"]
PAD_KEYS = {
    "coop": ["tasks", "flags", "longest_river", "longest_track", "total"],
    "duel": ["tasks", "flags", "longest_river", "longest_track", "total"],
    "head-to-head": ["tasks", "longest_river", "flags", "mountains_lakes", "total"],
}
PNG = b"\x89PNG\r\n\x1a\n"


def _run(capsys: pytest.CaptureFixture[str], command: str, *more: str) -> tuple[int, str, str]:
    """Run ``dorf COMMAND MORE...`` in this process: exit code, stdout, stderr."""
    try:
        code = main([*command.split(), *more])
    except SystemExit as exc:  # argparse's errors
        code = int(exc.code or 0)
    out, err = capsys.readouterr()
    return code, out, err


def _without_seconds(results: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [{k: v for k, v in r.items() if k != "seconds"} for r in results]


def _needs(module: str) -> None:
    """An optional extra the test command installs: its absence is a failure, not a skip."""
    importlib.import_module(module)


@pytest.mark.parametrize("mode", ["coop", "duel", "head-to-head"])
def test_a_game_line_has_every_score_category_and_the_winner(mode: str) -> None:
    seats = ("random",) if mode == "coop" else ("greedy", "random")
    line = play_game(GameJob(index=2, seed=40, mode=mode, seats=seats))
    assert list(line) == (COOP_KEYS if mode == "coop" else TWO_PLAYER_KEYS)
    assert (line["game"], line["seed"], line["mode"], line["players"]) == (2, 40, mode, list(seats))
    pads = [line["score"]] if mode == "coop" else line["score"]
    for pad in pads:
        assert list(pad) == PAD_KEYS[mode]  # the record's pad without its task list
    if mode != "coop":
        assert line["winner"] == 0  # greedy against random
        assert len(line["moves"]) == 2 and min(line["moves"]) > 20
    json.dumps(line)


@pytest.mark.slow
def test_a_game_is_determined_by_its_seed_and_the_players() -> None:
    first = play_game(GameJob(0, 17, "head-to-head", ("random", "greedy")))  # seeded by the job
    other = play_game(GameJob(5, 17, "head-to-head", ("random", "greedy")))
    # The same game played again, though as another index: the seed decides it, the index does not.
    assert other["game"] == 5
    assert _without_seconds([{**first, "game": 5}]) == _without_seconds([other])


def test_hot_seat_coop_deals_for_the_number_of_players() -> None:
    simulation = Simulation("coop", "greedy", games=2, seed=3, players=3)
    assert simulation.seats == ("greedy", "greedy", "greedy")
    lines = run_games(simulation.jobs())
    assert [line["players"] for line in lines] == [["greedy"] * 3] * 2


@pytest.mark.slow  # a process pool
def test_one_worker_and_two_workers_give_the_same_results() -> None:
    jobs = Simulation("duel", "greedy", "random", games=4, seed=30).jobs()
    alone = run_games(jobs, workers=1)
    pooled = run_games(jobs, workers=2)
    assert [r["game"] for r in pooled] == [0, 1, 2, 3]
    assert _without_seconds(alone) == _without_seconds(pooled)


def test_results_are_written_in_game_order_whatever_order_they_finish() -> None:
    stream = io.StringIO()
    writer = InOrderWriter(stream)
    for index in (2, 0, 3, 1):
        writer({"game": index})
        if index == 2:
            assert stream.getvalue() == ""
    assert [json.loads(line)["game"] for line in stream.getvalue().splitlines()] == [0, 1, 2, 3]


def test_the_progress_bar_draws_on_a_terminal_only() -> None:
    shown, hidden = io.StringIO(), io.StringIO()
    for stream, enabled in ((shown, True), (hidden, False)):
        progress = Progress(3, stream, enabled)
        for _ in range(3):
            progress.step()
        progress.close()
    assert "\r[" in shown.getvalue() and "3/3 games" in shown.getvalue()
    assert hidden.getvalue() == ""


def test_statistics_of_a_known_sample() -> None:
    results = [
        {"mode": "duel", "players": ["a", "b"], "winner": w, "score": [{"total": t1}, {"total": t2}]}
        for w, t1, t2 in [(0, 10, 5), (0, 20, 5), (None, 7, 7), (1, 0, 9)]
    ]
    summary = summarise(results)
    total = summary["seats"][0]["total"]
    assert (total["mean"], total["p50"], total["min"], total["max"]) == (9.25, 8.5, 0, 20)
    assert total["sd"] == pytest.approx(8.302, abs=1e-3)  # sample standard deviation
    assert summary["margin"]["mean"] == pytest.approx(2.75)
    outcomes = summary["outcomes"]
    assert [outcomes[k]["count"] for k in ("player 1", "player 2", "shared")] == [2, 1, 1]
    assert outcomes["player 1"]["ci95"] == [round(x, 4) for x in wilson(2, 4)]
    low, high = wilson(2, 4)
    assert low < 0.5 < high and low == pytest.approx(0.15, abs=0.01)
    assert categories({"tasks": {"x": 1}, "flags": 3, "total": 4}) == {"total": 4, "tasks.x": 1, "flags": 3}


def test_the_summary_table_has_a_line_per_category_and_the_outcomes() -> None:
    results = run_games(Simulation("head-to-head", "greedy", "random", games=3, seed=1).jobs())
    lines = summary_lines(summarise(results), "HEADER")
    assert lines[0] == "HEADER"
    assert lines[1] == "player 1: greedy"
    assert lines[2].split() == ["category", "mean", "sd", "p10", "p50", "p90", "min", "max"]
    names = [line.split()[0] for line in lines[3:10]]
    assert names == [
        "total",
        "tasks.forest",
        "tasks.grain",
        "tasks.village",
        "tasks.river",
        "longest_river",
        "flags",
    ]
    assert "player 2: random" in lines
    assert "outcomes (Wilson 95% interval)" in lines
    win = next(line for line in lines if "player 1 wins (greedy)" in line)
    assert "3/3" in win.replace(" ", "") and "100.0%" in win and "[43.9%, 100.0%]" in win


def test_simulate_writes_json_lines_and_prints_the_summary(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "games.jsonl"
    code, stdout, stderr = _run(
        capsys, "simulate --mode coop --player random --games 3 --seed 7 --workers 1 --out", str(out)
    )
    assert code == 0, stderr
    assert stderr == ""  # no progress bar when stderr is not a terminal
    lines = [json.loads(line) for line in out.read_text().splitlines()]
    assert [(line["game"], line["seed"]) for line in lines] == [(0, 7), (1, 8), (2, 9)]
    assert all(list(line) == COOP_KEYS for line in lines)
    table = stdout.splitlines()
    assert table[0].startswith("coop: 3 games, seeds 7-9, local, 1 worker, ")
    assert table[1] == "team: random"
    assert table[3].split()[0] == "total"
    assert len(table) == 3 + 11 + 1  # header, team, column names, total and ten categories, time
    assert table[-1].startswith("time a move: ") and table[-1].split()[4] == "ms"


def test_simulate_out_dash_puts_json_lines_on_stdout_and_the_summary_on_stderr(
    capsys: pytest.CaptureFixture[str],
) -> None:
    code, stdout, stderr = _run(capsys, "simulate --mode duel --player random --games 2 --workers 1 --out -")
    assert code == 0
    assert [json.loads(line)["game"] for line in stdout.splitlines()] == [0, 1]
    assert stderr.startswith("duel: 2 games, seeds 1-2")
    assert "player 2: random" in stderr


@pytest.mark.slow  # matplotlib
def test_plot_writes_a_png(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    _needs("matplotlib")
    for mode, extra in (("coop", "--player greedy"), ("duel", "--player greedy --opponent random")):
        plot = tmp_path / f"{mode}.png"
        code, _, stderr = _run(
            capsys, f"simulate --mode {mode} {extra} --games 3 --workers 1 --plot", str(plot)
        )
        assert code == 0, stderr
        assert plot.read_bytes()[:8] == PNG


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--mode", "chess"], "invalid choice: 'chess'"),
        (["--player", "oracle"], "unknown player 'oracle'"),
        (["--player", "search:0"], "not a positive number"),
        (["--games", "0"], "'0' must be at least 1"),
        (["--workers", "0"], "'0' must be at least 1"),
        (["--games", "many"], "is not a whole number"),
        (["--opponent", "random"], "the cooperative game has no opponent"),
        (["--players", "7"], "1 to 6 players"),
        (["--mode", "duel", "--players", "2"], "--players is for the cooperative game"),
        (["--backend", "local", "--address", "auto"], "--address is for the ray backend"),
        (["--backend", "spark"], "invalid choice: 'spark'"),
        (["--out", "/nonexistent-dir/games.jsonl"], "cannot write /nonexistent-dir/games.jsonl"),
        (["--plot", "/nonexistent-dir/plot.png"], "cannot write /nonexistent-dir/plot.png"),
    ],
)
@pytest.mark.slow
def test_bad_input_is_one_line_and_exit_2(
    args: list[str], message: str, capsys: pytest.CaptureFixture[str]
) -> None:
    if args[0] == "--plot":
        _needs("matplotlib")
    code, stdout, stderr = _run(capsys, "simulate --games 1 --workers 1", *args)
    assert code == 2
    assert stdout == ""
    assert stderr.count("\n") == 1 and message in stderr, stderr
    assert stderr.startswith("dorf simulate: ")


def test_missing_optional_dependencies_are_one_line_errors(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    monkeypatch.setitem(sys.modules, "ray", None)  # import ray now fails as if not installed
    monkeypatch.setitem(sys.modules, "matplotlib", None)
    code, _, stderr = _run(capsys, "simulate --games 1 --backend ray")
    assert code == 2 and stderr == "dorf simulate: the ray backend needs Ray, which is not installed: " + (
        "pip install 'dorf-games[ray]'\n"
    )
    code, _, stderr = _run(capsys, "simulate --games 1 --plot", str(tmp_path / "p.png"))
    assert code == 2 and "--plot needs matplotlib" in stderr and stderr.count("\n") == 1
    assert not (tmp_path / "p.png").exists()


@pytest.mark.slow  # Ray
def test_an_unreachable_ray_cluster_is_a_quick_one_line_error(capsys: pytest.CaptureFixture[str]) -> None:
    _needs("ray")
    code, _, stderr = _run(capsys, "simulate --games 1 --address 127.0.0.1:9")
    assert code == 2
    assert stderr.startswith("dorf simulate: the Ray cluster at 127.0.0.1:9 does not answer")


def test_the_command_line_never_shows_a_traceback() -> None:
    done = subprocess.run(
        [sys.executable, "-m", "dorf.cli", "simulate", "--games", "-3"],
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 2
    assert "Traceback" not in done.stderr and done.stderr.count("\n") == 1


def test_the_documented_game_lines_have_the_documented_keys() -> None:
    text = (DOCS / "simulate.md").read_text(encoding="utf-8")
    blocks = [json.loads(block) for block in re.findall(r"```json\n(.*?)\n```", text, re.S)]
    coop, head_to_head = blocks[0], blocks[1]
    assert list(coop) == COOP_KEYS and list(coop["score"]) == PAD_KEYS["coop"]
    assert list(head_to_head) == TWO_PLAYER_KEYS
    assert [list(pad) for pad in head_to_head["score"]] == [PAD_KEYS["head-to-head"]] * 2
    line = play_game(GameJob(0, 1, "coop", ("greedy",)))
    assert {k: v for k, v in line.items() if k != "seconds"} == {
        k: v for k, v in coop.items() if k != "seconds"
    }  # the documented line is game 0 of seed 1


@pytest.mark.slow
def test_summarise_reads_runs_back_and_joins_them_as_one_run(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Seeds 1-2 and 3-4 saved by two runs summarise exactly as one run of seeds 1-4."""
    spec = "simulate --mode duel --player greedy --opponent random --alternate --workers 1"
    first, second, whole = tmp_path / "a.jsonl", tmp_path / "b.jsonl", tmp_path / "all.jsonl"
    assert _run(capsys, spec, "--games", "2", "--seed", "1", "--out", str(first))[0] == 0
    assert _run(capsys, spec, "--games", "2", "--seed", "3", "--out", str(second))[0] == 0
    code, one_run, _ = _run(capsys, spec, "--games", "4", "--seed", "1", "--out", str(whole))
    assert code == 0
    code, joined, stderr = _run(capsys, "simulate --summarise", str(second), str(first))
    assert code == 0, stderr
    assert joined.splitlines()[0] == f"duel: 4 games, seeds 1-4, read from {second}, {first}"
    assert joined.splitlines()[1:] == one_run.splitlines()[1:]
    assert "greedy wins" in joined


@pytest.mark.parametrize(
    ("lines", "message"),
    [
        (["{}"], "line 1: not a game written by dorf simulate --out"),
        (["not json"], "line 1: not a game written by dorf simulate --out"),
        ([], "no games in"),
        (["SAME", "SAME"], "line 2: seed 1 again (first in"),
        (["SAME", "OTHER_MODE"], "line 2: a coop game among duel games"),
    ],
)
def test_summarise_refuses_what_it_cannot_join_in_one_line(
    lines: list[str], message: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    game = {"game": 0, "seed": 1, "mode": "duel", "players": ["greedy", "random"], "moves": [1, 1]}
    game |= {"score": [{"total": 3}, {"total": 2}], "winner": 0, "seconds": 0.1}
    coop = {"game": 0, "seed": 2, "mode": "coop", "players": ["greedy"], "moves": 3}
    coop |= {"score": {"total": 5}, "seconds": 0.1}
    known = {"SAME": json.dumps(game), "OTHER_MODE": json.dumps(coop)}
    path = tmp_path / "games.jsonl"
    path.write_text("".join(known.get(line, line) + "\n" for line in lines))
    code, stdout, stderr = _run(capsys, "simulate --summarise", str(path))
    assert code == 2 and stdout == ""
    assert stderr.startswith("dorf simulate: ") and stderr.count("\n") == 1 and message in stderr, stderr
    code, _, stderr = _run(capsys, "simulate --summarise", str(tmp_path / "missing.jsonl"))
    assert code == 2 and "cannot read" in stderr and stderr.count("\n") == 1
