"""`hint` inside `dorf play`, and computer opponents of any strength."""

from __future__ import annotations

import subprocess
import sys

import pytest


def play(*args: str, stdin: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "dorf.cli", "play", "--no-color", *args],
        input=stdin,
        capture_output=True,
        text=True,
        check=False,
        timeout=120,
    )


@pytest.mark.slow
def test_hint_in_the_cooperative_game_names_a_legal_placement_and_what_others_lose() -> None:
    done = play("--seed", "3", stdin="hint\nquit\n")
    assert "Traceback" not in done.stderr
    lines = [line for line in done.stdout.splitlines() if "hint" in line.lower() or "expected" in line]
    assert any(line.startswith("Hint: Place at 0,0 turned ") for line in lines), lines
    weighed = [line for line in lines if "expected" in line]
    values = [float(line.split("expected")[1].split()[0]) for line in weighed]
    assert len(values) >= 2 and weighed[0].endswith("best") and values[1:] == sorted(values[1:], reverse=True)
    # The coach halves its candidates: one dropped early may show more than the best, on fewer futures.
    for value, line in zip(values[1:], weighed[1:], strict=True):
        assert ("points worse" in line and value < values[0]) or (
            line.endswith("as good, on fewer futures") and value >= values[0]
        ), line


def test_hint_in_the_head_to_head_draft_suggests_a_pick() -> None:
    done = play("--mode", "head-to-head", "--seed", "3", stdin="hint\nquit\n")
    assert "Traceback" not in done.stderr
    assert "Hint: Take tile " in done.stdout


@pytest.mark.slow
def test_a_greedy_computer_opponent_plays_a_whole_duel() -> None:
    from dorf.games.duel import DuelGame

    # Player 1 always takes the first listed placement; the computer (greedy) answers.
    state = DuelGame(seed=8).new_state()
    from dorf.players.greedy import best_placement

    lines = []
    while not state.is_over:
        player = state.to_move()[0]
        if player == 0:
            placement = state.legal_placements(0)[0]
            lines.append(str(placement))
        else:
            revealed = state.revealed
            assert revealed is not None
            placement = best_placement(state.areas[1], revealed.tile.face, revealed.task, revealed.tile.flag)
        state.play(placement, player)
    done = play("--mode", "duel", "--opponent", "greedy", "--seed", "8", stdin="\n".join(lines) + "\n")
    assert "Traceback" not in done.stderr
    assert done.returncode == 0, done.stderr
    total = state.scores()[1].total
    assert f"{total}" in done.stdout
    assert "plays greedily" in done.stdout


def test_an_unknown_opponent_is_one_line_and_exit_2() -> None:
    done = play("--mode", "duel", "--opponent", "genius", stdin="")
    assert done.returncode == 2
    assert len(done.stderr.strip().splitlines()) == 1
    assert "unknown player 'genius'" in done.stderr
