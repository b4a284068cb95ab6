"""``dorf play --mode duel`` through piped input, and the Duel session in-process."""

from __future__ import annotations

import io
import json
from pathlib import Path

import pytest
from test_terminal import dorf_here, run, script

from dorf.games.duel import DuelGame, DuelState, DuelTurn
from dorf.games.seat import Revealed
from dorf.players import RandomPlayer
from dorf.rules.area import Placement, PlayArea
from dorf.rules.hexgrid import Hex
from dorf.rules.tasks import TaskSpec
from dorf.terminal.duel import DuelSession
from dorf.terminal.screen import Console, task_lines


def hot_seat_game(seed: int) -> tuple[list[str], DuelState]:
    """Both players always take their first legal placement: the lines to type, and the game."""
    state = DuelGame(seed=seed).new_state()
    lines = []
    while not state.is_over:
        player = state.to_move()[0]
        placement = state.legal_placements(player)[0]
        lines.append(str(placement))
        state.play(placement, player)
    return lines, state


def against_random(seed: int) -> tuple[list[str], DuelState]:
    """Player 1 takes the last legal placement; player 2 is the computer, as the session plays it."""
    state = DuelGame(seed=seed).new_state()
    computer = RandomPlayer(seed)
    lines = []
    while not state.is_over:
        player = state.to_move()[0]
        if player == 1:
            decision = computer.choose(state.view(1))
            assert isinstance(decision, Placement)
            state.play(decision, 1)
            continue
        placement = state.legal_placements(0)[-1]
        lines.append(str(placement))
        state.play(placement, 0)
    return lines, state


def result_line(state: DuelState, names: tuple[str, str]) -> str:
    totals = [pad.total for pad in state.scores()]
    winner = state.winner()
    if winner is None:
        return f"Both score {totals[0]}: a shared win."
    return f"{names[winner]} wins, {totals[winner]} to {totals[1 - winner]}."


def session_for(seed: int, computer: bool = False, practice: bool = False) -> tuple[DuelSession, io.StringIO]:
    out = io.StringIO()
    console = Console(io.StringIO(), out, io.StringIO(), color=False)
    state = DuelGame(seed=seed).new_state()
    player = RandomPlayer(seed) if computer else None
    return DuelSession(state, ["Ann", "Bob"], console, computer=player, practice=practice), out


@pytest.mark.slow
def test_whole_hot_seat_duel_through_a_pipe(tmp_path: Path) -> None:
    lines, state = hot_seat_game(seed=4)
    path = tmp_path / "duel.json"
    args = ["play", "--mode", "duel", "--seed", "4", "--names", "Ann,Bob", "--no-color", "--save", str(path)]
    result = run(args, script(lines))
    assert result.returncode == 0, result.stderr
    out = result.stdout
    assert "Traceback" not in result.stderr
    assert out.startswith("Dorfromantik: The Duel (Ann against Bob at one terminal).")
    # each turn: player 1 places, then player 2, the same tile
    assert f"Ann, turn 1> {lines[0]}" in out and f"Bob, turn 1> {lines[1]}" in out
    assert "Bob places the same tile next." in out and "Ann has placed it." in out
    assert "Ann's area: where the tile fits" in out and "Bob's area: where the tile fits" in out
    # the end: both pads and the winner
    assert "== Game over" in out and out.count("Score pad (Duel)") >= 2
    assert result_line(state, ("Ann", "Bob")) in out
    record = json.loads(path.read_text())
    assert record["mode"] == "duel" and record["finished"] is True
    assert len(record["decisions"]) == len(lines)
    replay = run(["replay", str(path), "--no-color"])
    assert replay.returncode == 0, replay.stderr
    assert replay.stdout.startswith("The Duel: Ann against Bob, seed 4,")
    assert "Turn 1: Ann placed " in replay.stdout
    assert result_line(state, ("Ann", "Bob")) in replay.stdout
    assert "Note:" not in replay.stdout  # the recorded totals agree


def test_whole_duel_against_the_computer() -> None:
    lines, state = against_random(seed=6)
    result = run(
        ["play", "--mode", "duel", "--seed", "6", "--opponent", "random", "--names", "Zoe"], script(lines)
    )
    assert result.returncode == 0, result.stderr
    out = result.stdout
    assert "Zoe against the computer, which plays at random" in out
    assert "Computer, turn" not in out  # the computer never gets a prompt
    assert "Turn 1: Computer placed " in out
    assert result_line(state, ("Zoe", "Computer")) in out


def test_bad_input_is_one_line_and_changes_nothing() -> None:
    session, out = session_for(seed=3)
    first = session.state.legal_placements(0)[0]
    assert session.handle(str(first), 0) is True
    assert session.state.to_move() == (1,)
    history = list(session.state.history)
    for entry in ("banana", "9 9 0", "5,5/1", "0 0 7", "1 x 2", "0 1 2 3", "pick 3", "undo", "save"):
        before = len(out.getvalue())
        assert session.handle(entry, 1) is False
        said = out.getvalue()[before:].strip().splitlines()
        assert len(said) == 1, (entry, said)
        assert session.state.history == history and session.state.to_move() == (1,)
    assert "a laid tile stays: undo is only for practice games" in out.getvalue()
    # player 1 has placed this tile: a placement for them now is refused
    assert session.decide(first, 0) is False
    assert "has placed this tile" in out.getvalue().splitlines()[-1]
    assert session.handle("quit", 1) is None


def test_undo_against_the_computer_takes_back_both_placements() -> None:
    session, out = session_for(seed=5, computer=True, practice=True)
    state = session.state
    placement = state.legal_placements(0)[0]
    assert session.decide(placement, 0)
    assert session.computer is not None
    assert session.decide(session.computer.choose(state.view(1)), 1)
    assert state.turn == 2
    assert session.handle("undo", 0) is True
    assert "Took back your placement at" in out.getvalue() and "the computer's reply" in out.getvalue()
    assert state.turn == 1 and not state.history and state.to_move() == (0, 1)
    assert session.handle("undo", 0) is False
    assert out.getvalue().splitlines()[-1] == "nothing to undo"


def test_set_aside_tiles_are_announced() -> None:
    session, _ = session_for(seed=2)
    revealed: Revealed = session.state.turns[0].revealed
    one = DuelTurn(7, revealed, set_aside=[False, True])
    (line,) = session.set_aside_lines(one)
    assert line.startswith(f"Turn 7: {revealed.tile.face} ")
    assert line.endswith("fits nowhere in Bob's area: set aside for Bob; Ann places it.")
    both = DuelTurn(8, revealed, set_aside=[True, True])
    assert session.set_aside_lines(both)[0].endswith("fits in neither area and is set aside.")


def test_tasks_show_connection_neighbours_and_double_territories() -> None:
    area = PlayArea()
    area.play("MFMGMV", Placement(Hex(0, 0), 0), task=TaskSpec("connection", 3))
    area.play("MMMMMM", Placement(Hex(0, -1), 0))
    area.play("FFGGVV", Placement(Hex(1, 0), 0), task=TaskSpec("double", 6, ("forest", "grain")))
    assert task_lines(area) == [
        "Active tasks (2):",
        "  connection 3 at 0,0: 2 of 3 neighbouring tiles",
        "  forest/grain 6 at 1,0: forest 1 (2 open edges), grain 1 (2 open edges); either must reach 6",
    ]


def test_end_of_input_and_quit() -> None:
    lines, _ = hot_seat_game(seed=8)
    code, _, err = dorf_here(["play", "--mode", "duel", "--seed", "8"], script(lines[:3]))
    assert code == 1
    assert err.splitlines() == ["dorf play: input ended at turn 2, before the game was over"]
    code, out, _ = dorf_here(["play", "--mode", "duel", "--seed", "8"], script([lines[0], "quit"]))
    assert code == 1 and "Game left at turn 1." in out


def test_usage_errors_are_one_line() -> None:
    for args in (
        ["--mode", "duel", "--players", "3"],
        ["--mode", "duel", "--names", "A,B,C"],
        ["--mode", "duel", "--names", "A,A"],
        ["--mode", "head-to-head", "--opponent", "random", "--names", "A,B,C"],
        ["--opponent", "random"],
    ):
        code, out, err = dorf_here(["play", *args])
        assert code == 2 and not out
        assert len(err.strip().splitlines()) == 1 and err.startswith("dorf play: "), err


# --- two people at one screen (issue 26, part 3) ---------------------------------------------------


def test_hot_seat_the_first_placement_of_a_round_is_wiped_from_the_screen() -> None:
    """Ann types her placement; the screen is cleared (and its scrollback) before Bob's prompt,
    so what she typed is not above it."""
    lines, _ = hot_seat_game(seed=4)
    out = io.StringIO()
    console = Console(io.StringIO(script(lines[:3])), out, io.StringIO(), color=False, screen=True)
    session = DuelSession(DuelGame(seed=4).new_state(), ["Ann", "Bob"], console)
    session.run()
    text = out.getvalue()
    typed = text.index(f"Ann, turn 1> {lines[0]}")
    wiped = text.index("\x1b[H\x1b[2J\x1b[3J", typed)
    assert text.index("Bob, turn 1>", wiped) > wiped
    assert lines[0] not in text[wiped : text.index("Bob, turn 1>")]
    # through a pipe the clearing is said, not done
    piped = run(
        ["play", "--mode", "duel", "--seed", "4", "--names", "Ann,Bob", "--no-color"], script(lines[:1])
    )
    assert "(the screen is cleared here)" in piped.stdout and "\x1b[2J" not in piped.stdout


def test_hot_seat_save_before_placing_keeps_the_other_placement_hidden(tmp_path: Path) -> None:
    """Bob types save before placing: the file has the rounds both finished, not Ann's pending
    placement, and the game goes on from it."""
    lines, _ = hot_seat_game(seed=4)
    path = tmp_path / "mid.json"
    result = run(
        ["play", "--mode", "duel", "--seed", "4", "--names", "Ann,Bob", "--no-color"],
        script([*lines[:3], f"save {path}", "quit"]),
    )
    assert result.returncode == 1
    record = json.loads(path.read_text())
    assert len(record["decisions"]) == 2  # turn 1 of both; Ann's turn 2 is left out
    assert "Ann's placement of this round is left out." in result.stdout
    assert "keep it from the players" in result.stdout
    again = run(["replay", str(path), "--no-color"])
    assert again.returncode == 0, again.stderr


@pytest.mark.slow
def test_hot_seat_seed_is_told_at_the_end_unless_chosen() -> None:
    """A drawn seed (from secrets, 63 bits) is not printed at the start, where it would tell
    every tile to come, but once the game is over; a chosen one is printed at the start."""
    out = io.StringIO()
    console = Console(io.StringIO(""), out, io.StringIO(), color=False)
    from dorf.cli import build_parser
    from dorf.terminal.play import play_main

    args = build_parser().parse_args(["play", "--mode", "duel", "--names", "Ann,Bob", "--no-color"])
    assert play_main(args, console) == 1  # input ended at once
    start = out.getvalue()
    assert "Seed " not in start and "its seed is told once it is over" in start
    lines, _ = hot_seat_game(seed=4)
    session, text = session_for(4)
    session.seed_line = "Seed 4: play this very game again with  dorf play --mode duel --seed 4"
    session.console = Console(io.StringIO(script(lines)), text, io.StringIO(), color=False)
    session.run()
    shown = text.getvalue()
    assert shown.count("Seed 4") == 1 and shown.index("Seed 4") > shown.index("== Game over")
    chosen = run(["play", "--mode", "duel", "--seed", "4", "--names", "Ann,Bob", "--no-color"], "")
    assert "Seed 4: play this very game again" in chosen.stdout.split("\n", 3)[1]
