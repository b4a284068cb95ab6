"""``dorf play`` and ``dorf replay`` with piped input: the whole command in the test's process
(``in_process``), and as a real process of its own through a pipe for a whole game and for the
colours a pipe must not get; the play session in-process for the finer points."""

from __future__ import annotations

import argparse
import io
import json
import os
import subprocess
from pathlib import Path

import pytest
from in_process import dorf

from dorf.formats.record import record_of
from dorf.games.coop import CoopGame
from dorf.games.seat import Turn
from dorf.terminal.play import Console, Session, play_main, wants_color

ESC = "\033"


Env = dict[str, str]


def run(
    args: list[str], stdin: str = "", env: Env | None = None, process: bool = False
) -> subprocess.CompletedProcess[str]:
    """``dorf ARGS`` with ``stdin`` piped in (in a process of its own with ``process``)."""
    environ = env or {k: v for k, v in os.environ.items() if k != "NO_COLOR"}
    return dorf(*args, stdin=stdin, env=environ, process=process)


def dorf_here(args: list[str], stdin: str = "") -> tuple[int, str, str]:
    """``dorf play`` or ``dorf replay`` in this process: exit code, output and errors."""
    from dorf.cli import build_parser
    from dorf.terminal.play import replay_main

    out, err = io.StringIO(), io.StringIO()
    console = Console(io.StringIO(stdin), out, err, color=False)
    try:
        parsed = build_parser().parse_args(args)
    except SystemExit as exc:
        return int(exc.code or 0), "", ""
    main = play_main if parsed.command == "play" else replay_main
    return main(parsed, console), out.getvalue(), err.getvalue()


def first_moves(seed: int, players: int = 1, limit: int | None = None) -> tuple[list[str], int]:
    """The placements of a game that always takes the first legal placement, and its score."""
    state = CoopGame(seed=seed, players=players).new_state()
    moves: list[str] = []
    while not state.is_over and (limit is None or len(moves) < limit):
        placement = state.legal_placements()[0]
        moves.append(str(placement))
        state.play(placement)
    return moves, state.score().total


def script(lines: list[str]) -> str:
    return "".join(line + "\n" for line in lines)


def total_of(output: str) -> int:
    totals = [line.split()[-1] for line in output.splitlines() if line.strip().startswith("total ")]
    assert totals, output[-2000:]
    return int(totals[-1])


@pytest.mark.slow
def test_whole_solo_game_through_a_pipe() -> None:
    moves, score = first_moves(seed=4)
    result = run(["play", "--seed", "4", "--no-color"], script(moves), process=True)
    assert result.returncode == 0, result.stderr
    assert "Traceback" not in result.stderr
    out = result.stdout
    assert "Seed 4" in out
    assert "Score pad" in out and "Game over" in out
    assert total_of(out) == score
    # each turn showed whose turn it was, the tile, tasks and tiles left
    assert "Player 1, turn 1> " + moves[0] in out
    assert "Tiles left: " in out and "Tile to place: " in out and "Active tasks" in out
    assert ESC not in out


def test_two_players_alternate() -> None:
    moves, _ = first_moves(seed=9, players=2, limit=4)
    result = run(["play", "--seed", "9", "--names", "Ann,Bob", "--no-color"], script([*moves, "quit"]))
    out = result.stdout
    prompts = [line.split(",")[0] for line in out.splitlines() if ", turn " in line and ">" in line]
    assert prompts[:5] == ["Ann", "Bob", "Ann", "Bob", "Ann"]
    assert "Turn 2: Bob placed" in out and "Turn 3: Ann placed" in out
    assert "== Turn 4: Bob to play (2 of 2)" in out
    assert result.returncode == 1  # left unfinished


def test_illegal_placement_is_one_line_and_changes_nothing() -> None:
    moves, score = first_moves(seed=2)
    entries = [moves[0], "9 9 0", "0,0/1", "1 2", "0 0 7", "banana", moves[1], *moves[2:]]
    result = run(["play", "--seed", "2", "--no-color"], script(entries))
    assert result.returncode == 0, result.stderr
    lines = result.stdout.splitlines()
    for entry in ("9 9 0", "0,0/1", "1 2", "0 0 7", "banana"):
        at = lines.index(f"Player 1, turn 2> {entry}")
        assert lines[at + 1] and not lines[at + 1].startswith("Player 1")
        assert lines[at + 2].startswith("Player 1, turn 2> ")  # one line, then the same turn again
    at = lines.index("Player 1, turn 2> 0,0/1")
    assert "already taken" in lines[at + 1]
    at = lines.index("Player 1, turn 2> banana")
    assert "unknown command" in lines[at + 1]
    assert total_of(result.stdout) == score


def test_undo_takes_back_a_placement_in_a_practice_game() -> None:
    moves, score = first_moves(seed=6)
    entries = [moves[0], moves[1], "undo", moves[1], *moves[2:]]
    result = run(["play", "--seed", "6", "--no-color", "--practice"], script(entries))
    assert result.returncode == 0, result.stderr
    assert "Took back turn 2" in result.stdout
    assert total_of(result.stdout) == score
    result = run(["play", "--seed", "6", "--no-color", "--practice"], script(["undo", "quit"]))
    assert "nothing to undo" in result.stdout


def test_save_then_replay_gives_the_same_score(tmp_path: Path) -> None:
    moves, score = first_moves(seed=8, players=3)
    path = tmp_path / "game.json"
    args = ["play", "--seed", "8", "--names", "A,B,C", "--save", str(path), "--no-color"]
    result = run(args, script(moves))
    assert result.returncode == 0, result.stderr
    record = json.loads(path.read_text())
    assert record["format"] == "dorf-record/1" and record["finished"] is True
    assert record["players"] == ["A", "B", "C"]
    replay = run(["replay", str(path), "--no-color"])
    assert replay.returncode == 0, replay.stderr
    assert total_of(replay.stdout) == score
    assert "Turn   1  A " in replay.stdout and "Turn   2  B " in replay.stdout
    assert "Game over" in replay.stdout


def test_save_command_mid_game_and_after_the_end(tmp_path: Path) -> None:
    moves, score = first_moves(seed=3)
    part, whole = tmp_path / "part.json", tmp_path / "whole.json"
    entries = [*moves[:5], f"save {part}", *moves[5:], f"save {whole}"]
    result = run(["play", "--seed", "3", "--no-color"], script(entries))
    assert result.returncode == 0, result.stderr
    assert json.loads(part.read_text())["finished"] is False
    assert len(json.loads(part.read_text())["decisions"]) == 5
    replay = run(["replay", str(part), "--no-color"])
    assert replay.returncode == 0 and "not finished" in replay.stdout
    replay = run(["replay", str(whole), "--no-color"])
    assert total_of(replay.stdout) == score


def test_end_of_input_mid_game_exits_nonzero_without_traceback(tmp_path: Path) -> None:
    moves, _ = first_moves(seed=5, limit=3)
    path = tmp_path / "unfinished.json"
    result = run(["play", "--seed", "5", "--save", str(path)], script(moves))
    assert result.returncode == 1
    assert "Traceback" not in result.stderr
    assert result.stderr.splitlines() == ["dorf play: input ended at turn 4, before the game was over"]
    assert len(json.loads(path.read_text())["decisions"]) == 3


@pytest.mark.slow
def test_no_color_and_pipes_have_no_escapes() -> None:
    moves, _ = first_moves(seed=1, limit=2)
    env = {k: v for k, v in os.environ.items() if k != "NO_COLOR"}
    for args in (["--no-color"], []):
        result = run(
            ["play", "--seed", "1", *args], script([*moves, "moves", "map", "help", "quit"]), env, True
        )
        assert ESC not in result.stdout
        assert "legal placements in" in result.stdout


def test_colour_rules(monkeypatch: pytest.MonkeyPatch) -> None:
    class Tty(io.StringIO):
        def isatty(self) -> bool:
            return True

    monkeypatch.delenv("NO_COLOR", raising=False)
    monkeypatch.delenv("TERM", raising=False)
    assert wants_color(False, Tty())
    assert not wants_color(True, Tty())
    assert not wants_color(False, io.StringIO())
    monkeypatch.setenv("NO_COLOR", "1")
    assert not wants_color(False, Tty())


def test_usage_errors_are_one_line() -> None:
    for args in (["--players", "2", "--names", "A,B,C"], ["--names", "A,,B"], ["--players", "7"]):
        result = run(["play", *args])
        assert result.returncode == 2
        assert len(result.stderr.strip().splitlines()) == 1 and result.stderr.startswith("dorf play: ")


def test_replay_bad_files(tmp_path: Path) -> None:
    bad_json = tmp_path / "bad.json"
    bad_json.write_text("{not json")
    missing = tmp_path / "missing.json"
    wrong = tmp_path / "wrong.json"
    state = CoopGame(seed=4).new_state()
    state.play(state.legal_placements()[0])
    record = record_of(state)
    record["decisions"][0]["at"] = [5, 5]
    wrong.write_text(json.dumps(record))
    for path in (bad_json, missing, wrong):
        result = run(["replay", str(path)])
        assert result.returncode == 2
        lines = result.stderr.strip().splitlines()
        assert len(lines) == 1 and lines[0].startswith("dorf replay: "), result.stderr
    assert "decision 1" in run(["replay", str(wrong)]).stderr


def test_replay_step_waits_and_draws(tmp_path: Path) -> None:
    moves, _ = first_moves(seed=7, limit=3)
    path = tmp_path / "short.json"
    run(["play", "--seed", "7", "--save", str(path)], script([*moves, "quit"]))
    result = run(["replay", str(path), "--step", "--no-color"], "\n\n")
    assert result.returncode == 0, result.stderr
    assert result.stdout.count("Enter: next turn") == 3  # the third wait meets the end of input
    assert result.stdout.count("/  ") >= 3  # maps drawn


# --- in-process -------------------------------------------------------------------


def session_for(seed: int, lines: str = "") -> tuple[Session, io.StringIO]:
    out = io.StringIO()
    console = Console(io.StringIO(lines), out, io.StringIO(), color=False)
    state = CoopGame(seed=seed).new_state()
    return Session(state, ["Solo"], console), out


def test_illegal_entry_leaves_the_state_alone() -> None:
    session, out = session_for(seed=12)
    first = session.state.legal_placements()[0]
    assert session.handle(str(first)) is True
    turns = len(session.state.turns)
    for entry in ("0 0 0", "3 3 3", "0,-1/x", "0 1 2 3"):
        before = out.tell()
        assert session.handle(entry) is False
        assert len(out.getvalue()[before:].strip().splitlines()) == 1
        assert len(session.state.turns) == turns and session.state.decisions == [first]
    assert session.handle("quit") is None


def test_cell_alone_places_when_one_rotation_fits() -> None:
    session, out = session_for(seed=14)  # its second tile fits two cells one way, two several ways
    session.handle(str(session.state.legal_placements()[0]))
    cells: dict[tuple[int, int], list[int]] = {}
    for p in session.state.legal_placements():
        cells.setdefault((p.at.q, p.at.r), []).append(p.rot)
    single = next((q, r) for (q, r), rots in cells.items() if len(rots) == 1)
    several = next((q, r) for (q, r), rots in cells.items() if len(rots) > 1)
    assert session.handle(f"{several[0]},{several[1]}") is False
    assert "give a rotation too" in out.getvalue().splitlines()[-1]
    assert session.handle(f"{single[0]},{single[1]}") is True
    assert session.state.area.placed[-1].at == (single[0], single[1])


def test_play_main_in_process() -> None:
    moves, score = first_moves(seed=13)
    out = io.StringIO()
    console = Console(io.StringIO(script(moves)), out, io.StringIO())
    args = argparse.Namespace(players=None, names=None, seed=13, save=None, no_color=True)
    assert play_main(args, console) == 0
    assert total_of(out.getvalue()) == score


def test_set_aside_turn_is_reported() -> None:
    session, _ = session_for(seed=1)
    turn = Turn(5, 0, session.state.turns[0].revealed, set_aside=True)
    assert session.turn_report(turn).startswith("Turn 5: ")
    assert session.turn_report(turn).endswith("fits nowhere and is set aside.")


def test_quit_saves_the_unfinished_game(tmp_path: Path) -> None:
    moves, _ = first_moves(seed=15, limit=2)
    path = tmp_path / "left.json"
    result = run(["play", "--seed", "15", "--save", str(path)], script([*moves, "quit"]))
    assert result.returncode == 1
    assert "Game left at turn 3." in result.stdout
    assert json.loads(path.read_text())["finished"] is False
