"""Rules notes 29 to 31: a laid tile stays, simultaneous placements stay unseen, who starts.

Held through the engine's views and the terminal; the server's side is in
``tests/test_server_integrity.py``.
"""

from __future__ import annotations

import io
import json
from pathlib import Path
from typing import Any

import pytest
from test_terminal import dorf_here, first_moves

from dorf.games.duel import DuelGame, DuelState
from dorf.games.headtohead import HeadToHeadGame, HeadToHeadView
from dorf.rules.area import PlayArea
from dorf.terminal.duel import DuelSession
from dorf.terminal.screen import Console


def fingerprint(area: PlayArea) -> tuple[Any, ...]:
    """Everything an area shows: its tiles, its tasks and their status, its longest river and track."""
    tiles = tuple((t.at, t.face, t.rot, t.flag) for t in area.placed)
    tasks = tuple((str(t.spec), t.status.value) for t in area.tasks)
    return tiles, tasks, area.longest_river, area.longest_track, area.lakes, area.mountains


def test_rule_29_a_laid_tile_stays_unless_the_game_is_practice(tmp_path: Path) -> None:
    moves, _ = first_moves(seed=6, limit=2)
    code, out, _ = dorf_here(["play", "--seed", "6"], "\n".join([*moves, "undo", "quit"]) + "\n")
    assert code == 1 and "a laid tile stays" in out and "Took back" not in out
    path = tmp_path / "practice.json"
    script = "\n".join([*moves, "undo", "quit"]) + "\n"
    code, out, _ = dorf_here(["play", "--seed", "6", "--practice", "--save", str(path)], script)
    assert "Took back turn 2" in out and "A practice game" in out
    record = json.loads(path.read_text())
    assert record["practice"] is True and len(record["decisions"]) == 1


def test_rule_29_a_record_made_through_the_library_after_undo_is_practice() -> None:
    """``undo()`` on a state, then its record: marked practice, and no campaign takes it."""
    from dorf.campaign import CampaignError
    from dorf.campaign.store import refuse_practice
    from dorf.formats.record import record_of
    from dorf.games.coop import CoopGame, CoopState
    from dorf.players.registry import make_player

    for state in (
        CoopGame(seed=3, players=1).new_state(),
        DuelGame(seed=3).new_state(),
        HeadToHeadGame(seed=3).new_state(),
    ):
        player = make_player("random", seed=1)
        for _ in range(3):
            if isinstance(state, CoopState):
                state.play(state.legal_placements()[0])
            elif isinstance(state, DuelState):
                seat = state.to_move()[0]
                state.play(state.view(seat).legal_placements()[0], seat)
            else:
                seat = state.to_move()[0]
                state.apply(player.choose(state.view(seat)), seat)
        assert "practice" not in record_of(state)
        state.undo()
        record = record_of(state)
        assert record["practice"] is True
        with pytest.raises(CampaignError, match="practice"):
            refuse_practice(record, "")


def test_rule_30_the_duel_views_keep_a_placement_from_the_other_until_both_placed() -> None:
    state = DuelGame(seed=5).new_state()
    for _ in range(6):
        state.play(state.legal_placements(0)[0], 0)
        state.play(state.legal_placements(1)[0], 1)
    before = fingerprint(state.view(1).areas[0])
    assert state.pending() == ()
    state.play(state.legal_placements(0)[-1], 0)
    assert state.pending() == (0,)
    hidden = state.view(1)
    assert fingerprint(hidden.areas[0]) == before  # the other's area as before the turn
    assert hidden.area is hidden.areas[1] and fingerprint(hidden.area) == fingerprint(state.areas[1])
    assert hidden.area is not state.areas[1]  # a copy: views are data (tests/test_views_are_data.py)
    assert fingerprint(state.view(0).areas[0]) != before  # the one who placed sees it
    state.play(state.legal_placements(1)[0], 1)
    assert state.pending() == () and fingerprint(state.view(1).areas[0]) == fingerprint(state.areas[0])
    assert fingerprint(hidden.areas[0]) == before  # a view made earlier stays as it was


def head_to_head_in_laying(seed: int) -> Any:
    state = HeadToHeadGame(seed=seed).new_state()
    while state.phase == "draft":
        state.pick(state.pool[0])
    return state


def other_seat(view: HeadToHeadView, player: int) -> tuple[Any, ...]:
    return (
        fingerprint(view.areas[player]),
        view.revealed[player],
        view.stacks_left[player],
        view.unseen[player],
    )


def test_rule_30_head_to_head_views_keep_a_placement_of_the_round_from_the_other() -> None:
    state = head_to_head_in_laying(seed=2)
    checked = 0
    for _ in range(12):
        if state.to_move() != (0, 1):
            break
        before = other_seat(state.view(1), 0)
        state.play(state.legal_placements(0)[-1], 0)
        assert state.pending() == (0,)
        assert other_seat(state.view(1), 0) == before  # tile, stacks, unseen tiles, area: as before
        assert state.view(0).revealed[0] != before[1] or state.is_over or state.seats[0].is_over
        state.play(state.legal_placements(1)[0], 1)
        assert state.pending() == ()
        assert fingerprint(state.view(1).areas[0]) == fingerprint(state.area(0))
        checked += 1
    assert checked >= 8


def test_rule_30_at_one_terminal_the_second_to_place_sees_the_area_as_before() -> None:
    out = io.StringIO()
    console = Console(io.StringIO(), out, io.StringIO(), color=False)
    session = DuelSession(DuelGame(seed=3).new_state(), ["Ann", "Bob"], console)
    placement = session.state.legal_placements(0)[0]
    assert session.handle(str(placement), 0) is True
    said = out.getvalue()
    assert "Ann has placed; Bob places now." in said and "Ann placed" not in said
    session.show(1)
    screen = out.getvalue()[len(said) :]
    assert "Ann: 0 tiles placed" in screen and "Ann's area (0 tiles)" in screen
    assert session.handle(str(session.state.legal_placements(1)[0]), 1) is True
    told = out.getvalue()[len(said) + len(screen) :]
    assert told.index("Ann placed") < told.index("Bob placed")  # both, once both have placed


def test_rule_31_the_players_choose_who_starts() -> None:
    code, out, _ = dorf_here(["play", "--names", "Ann,Bob", "--first", "2", "--seed", "3"], "quit\n")
    assert "Bob, turn 1>" in out and "Bob first" in out
    code, out, _ = dorf_here(["play", "--names", "Ann,Bob", "--first", "3"], "quit\n")
    assert code == 2
    args = ["play", "--mode", "head-to-head", "--opponent", "greedy", "--names", "Ann", "--first", "2"]
    code, out, _ = dorf_here([*args, "--seed", "4"], "quit\n")
    assert "Computer takes tile" in out.split("Ann, pick")[0]  # the computer picked first
    assert "pick 2>" in out
    code, out, _ = dorf_here(["play", "--mode", "duel", "--names", "Ann,Bob", "--first", "2"], "quit\n")
    assert "Bob, turn 1>" in out
