"""The clairvoyant bound (``dorf.lab.clairvoyant``, a research tool): the future it is handed is
the game's real one, its rollouts end where the game ends with the game's own score, and its
command says what it measured."""

from __future__ import annotations

import json

import pytest

from dorf.games.coop import CoopGame, CoopState
from dorf.lab.clairvoyant import Clairvoyant, Job, main, play, true_future
from dorf.players.registry import GreedyPlayer


def test_the_future_it_is_told_is_the_order_the_game_reveals() -> None:
    """At every decision of a game, the next tile the game reveals is the top of the future's
    task stack or of its landscape stack, with the top marker of its kind."""
    state = CoopState(CoopGame(seed=11))
    player = GreedyPlayer(0)
    checked = 0
    while state.to_move():
        future = true_future(state)
        tops = [id(t) for t in (future.tasks[-1:] + future.landscapes[-1:])]
        markers = {kind: pile[-1] for kind, pile in future.markers.items() if pile}
        state.apply(player.choose(state.view(0)), 0)
        if not state.to_move():
            break
        revealed = state.turns[-1].revealed
        assert id(revealed.tile) in tops
        if revealed.task is not None and not revealed.tile.value:
            assert revealed.task.value == markers[revealed.task.type]
        checked += 1
    assert checked > 40


@pytest.mark.slow
def test_its_game_scores_exactly_the_best_rollout_it_found() -> None:
    """A rollout plays the real tiles to the end, so its exact score is a way to finish this very
    game: the game played, which follows the best one found, ends with that score."""
    result = play(Job(seed=5, width=2, tries=1))
    assert result["moves"] > 40
    assert result["score"] == result["best_rollout"]
    pad = result["pad"]
    assert (
        pad["total"]
        == result["score"]
        == sum(pad["tasks"].values())
        + sum(pad["flags"].values())
        + (pad["longest_river"] + pad["longest_track"])
    )
    done = [task for task in pad["task_list"] if task["status"] == "completed"]
    assert sum(task["value"] for task in done) == sum(pad["tasks"].values())


@pytest.mark.slow
def test_it_sees_more_than_a_planner_one_placement_ahead_on_the_same_seeds() -> None:
    """Knowing the tiles, even a small budget beats the greedy player on the same seed."""
    from dorf.commands.simulate import GameJob, play_game

    ahead = [play(Job(seed, 3, 2))["score"] for seed in (1, 2)]
    greedy = [play_game(GameJob(0, seed, "coop", ("greedy",)))["score"]["total"] for seed in (1, 2)]
    assert sum(ahead) > sum(greedy)


@pytest.mark.slow
def test_the_command_prints_each_game_and_the_means(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["--games", "2", "--seed", "3", "--width", "2", "--tries", "1", "--jsonl"]) == 0
    lines = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    assert [line["seed"] for line in lines[:2]] == [3, 4]
    summary = lines[-1]
    assert summary["games"] == 2 and summary["seeds"] == "3-4"
    assert summary["mean_score"] == sum(line["score"] for line in lines[:2]) / 2


def test_the_command_refuses_a_budget_of_nothing(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as stopped:
        main(["--tries", "0"])
    assert stopped.value.code == 2
    assert "must be at least 1" in capsys.readouterr().err


def test_it_is_never_a_seat() -> None:
    """A research tool: no player name makes it, so no game on the site or in a match has it."""
    from dorf.players.registry import make_player

    assert Clairvoyant(1).name == "clairvoyant"
    with pytest.raises(ValueError):
        make_player("clairvoyant")
