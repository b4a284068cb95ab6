"""``dorf play --mode head-to-head`` through piped input, and the session in-process."""

from __future__ import annotations

import io
import json
import random
import re
from pathlib import Path

import pytest
from test_terminal import dorf_here, run, script

from dorf.games.headtohead import HeadToHeadGame, HeadToHeadState, Pick
from dorf.players import RandomPlayer
from dorf.rules.area import Placement
from dorf.rules.scoring import HeadToHeadScorePad
from dorf.terminal.head_to_head import HeadToHeadSession
from dorf.terminal.screen import Console


def hot_seat_game(seed: int) -> tuple[list[str], HeadToHeadState]:
    """Seeded picks (typed ``pick N`` or just ``N``), then the first legal placement of whoever moves."""
    state = HeadToHeadGame(seed=seed).new_state()
    rng = random.Random(seed)
    lines = []
    while not state.is_over:
        player = state.to_move()[0]
        if state.phase == "draft":
            tile_id = rng.choice(state.pool)
            lines.append(f"pick {tile_id}" if len(lines) % 2 else str(tile_id))
            state.pick(tile_id, player)
        else:
            placement = state.legal_placements(player)[0]
            lines.append(str(placement))
            state.play(placement, player)
    return lines, state


def against_random(seed: int) -> tuple[list[str], HeadToHeadState]:
    """Player 1 picks the lowest open tile and places last-legal; player 2 is the computer."""
    state = HeadToHeadGame(seed=seed).new_state()
    computer = RandomPlayer(seed)
    lines = []
    while not state.is_over:
        player = state.to_move()[0]
        if player == 1:
            state.apply(computer.choose(state.view(1)), 1)
        elif state.phase == "draft":
            lines.append(f"pick {state.pool[0]}")
            state.pick(state.pool[0], 0)
        else:
            placement = state.legal_placements(0)[-1]
            lines.append(str(placement))
            state.play(placement, 0)
    return lines, state


def result_line(state: HeadToHeadState, names: tuple[str, str]) -> str:
    """The last line of the end: who won, and how."""
    winner = state.winner()
    a, b = (pad.total for pad in state.scores())
    if a != b:
        assert winner is not None
        return f"{names[winner]} wins, {max(a, b)} to {min(a, b)}."
    if winner is None:
        return "Level after every tie-breaker: a truly unique game, and a shared victory."
    return f"{names[winner]} wins on tie-breaker"


def session_for(
    seed: int, computer: bool = False, practice: bool = False
) -> tuple[HeadToHeadSession, io.StringIO]:
    out = io.StringIO()
    console = Console(io.StringIO(), out, io.StringIO(), color=False)
    state = HeadToHeadGame(seed=seed).new_state()
    player = RandomPlayer(seed) if computer else None
    return HeadToHeadSession(state, ["Ann", "Bob"], console, computer=player, practice=practice), out


def said_since(out: io.StringIO, mark: int) -> list[str]:
    return out.getvalue()[mark:].strip().splitlines()


def test_whole_hot_seat_game_through_a_pipe(tmp_path: Path) -> None:
    lines, state = hot_seat_game(seed=7)
    path = tmp_path / "h2h.json"
    args = ["play", "--mode", "head-to-head", "--seed", "7", "--names", "Ann,Bob", "--no-color"]
    result = run([*args, "--save", str(path)], script(lines))
    assert result.returncode == 0, result.stderr
    assert "Traceback" not in result.stderr
    out = result.stdout
    assert "== Head to Head draft, pick 1 of 58: Ann to pick" in out
    assert "== Head to Head draft, pick 58 of 58: Bob to pick" in out
    assert f"Ann, pick 1> {lines[0]}" in out and f"Bob, pick 2> {lines[1]}" in out
    assert "The draft is over: Ann has 31 tiles and Bob 32" in out
    # the laying: both areas, whose turn, the tile in each rotation, tasks, scores, stacks
    assert "== Head to Head, Ann's turn 1" in out and "== Head to Head, Bob's turn 1" in out
    assert "Ann's area: where the tile fits" in out and "Bob's area (1 tile)" in out
    assert "rot 0" in out and "Active tasks (" in out and "Score now " in out
    assert re.search(r"Bob: \d+ tiles placed, \d+ task and \d+ landscape tiles left; places after Ann", out)
    assert "game over, waiting for Bob to finish" in out  # Ann's game ended first
    # the end: both pads and the result
    assert "== Game over" in out and out.count("Score pad (Head to Head)") >= 2
    assert result_line(state, ("Ann", "Bob")) in out
    assert "Saved the game to" in out
    record = json.loads(path.read_text())
    assert record["mode"] == "head-to-head" and record["finished"] is True
    assert record["winner"] == state.winner()
    replay = run(["replay", str(path), "--no-color"])
    assert replay.returncode == 0, replay.stderr
    assert replay.stdout.startswith(f"Head to Head: Ann against Bob, seed 7, {len(lines)} decisions")
    assert f"Ann takes tile {lines[0]}: " in replay.stdout
    assert result_line(state, ("Ann", "Bob")) in replay.stdout
    assert "Note:" not in replay.stdout


def test_whole_game_against_the_computer() -> None:
    lines, state = against_random(seed=3)
    args = ["play", "--mode", "head-to-head", "--seed", "3", "--opponent", "random", "--no-color"]
    result = run(args, script(lines))
    assert result.returncode == 0, result.stderr
    out = result.stdout
    assert "Player 1 against the computer, which plays at random" in out
    assert "Computer takes tile " in out and "Computer's turn 1: placed " in out
    assert "Computer, pick" not in out and "Computer, turn" not in out
    assert result_line(state, ("Player 1", "Computer")) in out


def test_draft_pool_lists_every_open_tile() -> None:
    session, _ = session_for(seed=2)
    state = session.state
    for tile_id in (4, 50, 17):
        state.pick(tile_id)
    text = "\n".join(session.pool_lines())
    listed = [int(n) for n in re.findall(r"(?<![\d(])(\d+) [FGVMRLPX]{6}", text)]
    assert sorted(listed) == sorted(state.pool)
    tiles = state.game.tileset.tiles
    for tile_id in state.pool:
        tile = tiles[tile_id]
        entry = f"{tile_id:>2} {tile.face}" + (f" ({tile.value})" if tile.is_task else "")
        assert entry in text
    assert text.startswith(f"Open tiles ({len(state.pool)}):")
    screen = "\n".join(session.screen(state.player))
    assert "Ann has taken 2 landscape and 0 task tiles" in screen
    assert "Bob has taken 0 landscape and 1 task tile (" in screen
    assert "pick 4 of 58: Bob to pick" in screen


def test_bad_input_is_one_line_and_changes_nothing() -> None:
    session, out = session_for(seed=5)
    state = session.state
    assert session.handle("pick 10", 0) is True
    pool, owned = list(state.pool), [list(o) for o in state.owned]
    entries = (
        "pick 10",
        "pick 999",
        "pick x",
        "pick 1.5",
        "pick",
        "10 2",
        "1,2/3",
        "banana",
        "moves",
        "undo",
    )
    for entry in entries:
        mark = len(out.getvalue())
        assert session.handle(entry, 1) is False
        said = said_since(out, mark)
        assert len(said) == 1, (entry, said)
        assert state.pool == pool and [list(o) for o in state.owned] == owned
    text = out.getvalue()
    assert "cannot pick tile 10: tile 10 is not in the open pool" in text
    assert "cannot read tile number 'x'" in text and "pick needs a tile number" in text
    assert "the draft is on: take a tile with  pick N" in text
    # a pick out of turn
    mark = len(out.getvalue())
    assert session.decide(Pick(state.pool[0]), 0) is False
    assert said_since(out, mark) == [f"cannot pick tile {state.pool[0]}: it is player 2's pick"]
    assert state.pool == pool


def test_bad_input_while_laying() -> None:
    session, out = session_for(seed=5)
    state = session.state
    while state.phase == "draft":
        state.pick(state.pool[0], state.player)
    state.play(state.legal_placements(0)[0], 0)
    history = list(state.history)
    for entry in ("pick 3", "9 9 0", "5,5/1", "0 0 9", "2 x 1", "tiles", "score please", "save"):
        mark = len(out.getvalue())
        outcome = session.handle(entry, 1)
        if entry.startswith("score"):
            assert outcome is False and said_since(out, mark)[0] == "If the game ended now:"
            continue
        assert outcome is False
        assert len(said_since(out, mark)) == 1, entry
        assert state.history == history
    assert "cannot pick tile 3: the draft is over" in out.getvalue()
    # player 1 placed this round: player 1 may not place again yet
    mark = len(out.getvalue())
    assert session.decide(state.legal_placements(1)[0], 0) is False
    reason = "player 1 has placed this round; waiting for player 2"
    assert said_since(out, mark) == [f"cannot place at {state.legal_placements(1)[0]}: {reason}"]


def test_undo_against_the_computer_in_the_draft() -> None:
    session, out = session_for(seed=4, computer=True, practice=True)
    state = session.state
    assert session.decide(Pick(state.pool[0]), 0)
    assert session.computer is not None
    assert session.decide(session.computer.choose(state.view(1)), 1)
    assert len(state.history) == 2
    assert session.handle("undo", 0) is True
    assert "Took back your pick of tile 4 and the computer's reply." in out.getvalue()
    assert not state.history and len(state.pool) == 59


def test_undo_refused_between_two_people() -> None:
    session, out = session_for(seed=4, practice=True)
    session.handle("pick 4", 0)
    assert session.handle("undo", 1) is False
    assert out.getvalue().splitlines()[-1].startswith("undo is not offered when two people play")
    assert len(session.state.history) == 1


def pad(total_parts: tuple[int, int, int, int, int]) -> HeadToHeadScorePad:
    """A pad with the given tasks, river, flags, mountains and lakes."""
    tasks, river, flags, mountains, lakes = total_parts
    return HeadToHeadScorePad(
        {"forest": tasks, "grain": 0, "village": 0, "river": 0}, river, flags, mountains, lakes
    )


@pytest.mark.parametrize(
    ("pads", "expected"),
    [
        ((pad((5, 3, 0, 1, 0)), pad((2, 2, 0, 0, 0))), ["Ann wins, 11 to 4."]),
        (
            (pad((3, 4, 0, 1, 0)), pad((4, 3, 0, 1, 0))),
            [
                "Both total 10: the tie-breakers decide.",
                "  1. mountains and lakes formed: Ann 1, Bob 1",
                "  2. longest river: Ann 4, Bob 3",
                "Ann wins on tie-breaker 2, longest river.",
            ],
        ),
        (
            (pad((3, 4, 2, 0, 1)), pad((3, 4, 2, 1, 0))),
            [
                "Both total 12: the tie-breakers decide.",
                "  1. mountains and lakes formed: Ann 1, Bob 1",
                "  2. longest river: Ann 4, Bob 4",
                "  3. points from multicoloured flags: Ann 2, Bob 2",
                "  4. points from tasks: Ann 3, Bob 3",
                "Level after every tie-breaker: a truly unique game, and a shared victory.",
            ],
        ),
    ],
)
def test_result_names_the_tie_breakers_used(
    pads: tuple[HeadToHeadScorePad, HeadToHeadScorePad], expected: list[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    session, _ = session_for(seed=1)
    monkeypatch.setattr(session.state, "scores", lambda: pads)
    assert session.result_lines() == expected


def test_replay_of_an_unfinished_draft_and_step(tmp_path: Path) -> None:
    lines, _ = hot_seat_game(seed=9)
    part = tmp_path / "part.json"
    code, _, err = dorf_here(
        ["play", "--mode", "head-to-head", "--seed", "9", "--save", str(part)], script(lines[:20])
    )
    assert code == 1
    assert err.splitlines() == ["dorf play: input ended at pick 21 of the draft, before the game was over"]
    code, out, err = dorf_here(["replay", str(part)])
    assert code == 0, err
    assert "The record stops at pick 21 of the draft: the game was not finished." in out
    assert "Player 1 has taken " in out
    laid = tmp_path / "laid.json"
    dorf_here(
        ["play", "--mode", "head-to-head", "--seed", "9", "--save", str(laid)], script([*lines[:61], "quit"])
    )
    code, out, err = dorf_here(["replay", str(laid), "--step"], "\n\n")
    assert code == 0, err
    # no waits in the draft; one after the deal, then one per placement until the input ends
    assert out.count("Enter: next decision") == 3
    assert "Player 1's area (" in out


def test_flags_and_mountains_are_described() -> None:
    session, _ = session_for(seed=6)
    state = session.state
    while state.phase == "draft":
        state.pick(state.pool[0], state.player)
    described = set()
    while not state.is_over and len(described) < 2:
        player = state.to_move()[0]
        state.play(state.legal_placements(player)[0], player)
        text = "\n".join(session.player_lines(player))
        if "multicoloured flag at" in text:
            described.add("flag")
        if "mountains and lakes " in text:
            described.add("pairs")
    assert described == {"flag", "pairs"}


def test_placements_are_read_as_in_the_cooperative_game() -> None:
    session, _ = session_for(seed=8)
    state = session.state
    while state.phase == "draft":
        state.pick(state.pool[-1], state.player)
    first = state.legal_placements(0)[0]
    assert session.handle(f"{first.at.q} {first.at.r} {first.rot}", 0) is True
    assert state.area(0).placed[0].at == first.at
    assert isinstance(state.history[-1][1], Placement)


def test_colour_changes_nothing_but_escapes() -> None:
    lines, _ = hot_seat_game(seed=2)
    outputs = []
    for color in (False, True):
        out = io.StringIO()
        console = Console(io.StringIO(script(lines[:70])), out, io.StringIO(), color=color, width=100)
        session = HeadToHeadSession(HeadToHeadGame(seed=2).new_state(), ["Ann", "Bob"], console)
        assert session.run() == 1  # the input ends before the game does
        outputs.append(out.getvalue())
    plain, coloured = outputs
    assert "\033[" not in plain and "\033[" in coloured
    assert re.sub(r"\033\[[0-9;]*m", "", coloured) == plain
