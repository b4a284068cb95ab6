"""Bad input to a Head to Head game and to `dorf score` with head-to-head boards.

Every refused decision raises :class:`IllegalDecision` (not allowed now: wrong
phase, wrong player, not in the pool) or :class:`IllegalPlacement` (the
player's own tile does not go there), with a one-line reason, and leaves the
state exactly as it was.  A malformed head-to-head board file ends `dorf score`
with exit 2 and one stderr line naming the placement.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from test_property_head_to_head import snapshot

from boards import tile
from dorf.cli import main
from dorf.games.headtohead import DRAFT, HeadToHeadGame, HeadToHeadState, IllegalDecision, Pick
from dorf.games.state import GameOver, OutOfTurn, WrongKind
from dorf.rules.area import IllegalPlacement, Placement
from dorf.rules.hexgrid import Hex
from dorf.rules.tiles import LANDSCAPE, Tile, TileSet


def drafted(seed: int = 2) -> HeadToHeadState:
    """A real-box game just after the draft (player 1 took the lowest ids, player 2 the next)."""
    state = HeadToHeadGame(seed=seed).new_state()
    while state.phase == DRAFT:
        state.pick(state.pool[0])
    return state


def refused(state: HeadToHeadState, error: type[Exception], decision: Pick | Placement, player: int | None):
    """Apply ``decision``; it must raise ``error`` with a one-line reason and change nothing."""
    before = snapshot(state)
    expected = state.why_illegal(decision, player)
    assert expected is not None
    with pytest.raises(error) as caught:
        state.apply(decision, player)
    assert type(caught.value) is error
    reason = str(caught.value)
    assert reason == expected and reason.strip() and "\n" not in reason
    assert snapshot(state) == before, "a refused decision changed the state"
    return reason


def some_placement(state: HeadToHeadState, player: int) -> Placement:
    """A placement that would be legal for ``player``'s revealed tile if it were their move."""
    assert state.seats is not None
    return state.seats[player].legal_placements()[0]


# --- the draft ---------------------------------------------------------------------------------


def test_a_pick_of_a_tile_not_in_the_pool_is_refused():
    state = HeadToHeadGame(seed=1).new_state()
    flag = state.flags[0][0]
    assert refused(state, IllegalDecision, Pick(flag), 0) == f"tile {flag} is not in the open pool"
    taken = state.pool[0]
    state.pick(taken)
    assert refused(state, IllegalDecision, Pick(taken), 1) == f"tile {taken} is not in the open pool"
    for bad in (-1, 63, 1000):
        refused(state, IllegalDecision, Pick(bad), 1)
    with pytest.raises(IllegalDecision):
        state.pick(taken)  # the same through pick(), default player


def test_a_pick_by_the_wrong_player_is_refused():
    state = HeadToHeadGame(seed=1).new_state()
    assert refused(state, OutOfTurn, Pick(state.pool[0]), 1) == "it is player 1's pick"
    state.pick(state.pool[0], 0)
    assert refused(state, OutOfTurn, Pick(state.pool[0]), 0) == "it is player 2's pick"
    assert refused(state, OutOfTurn, Pick(state.pool[0]), 2) == "there is no player 3"


def test_a_placement_in_the_draft_is_refused():
    state = HeadToHeadGame(seed=1).new_state()
    reason = refused(state, WrongKind, Placement(Hex(0, 0), 0), 0)
    assert reason == "the draft is still on: pick a tile"
    assert state.legal_placements(0) == state.legal_placements(1) == []
    assert state.legal_moves(0) == []


def test_a_pick_after_the_draft_is_refused():
    state = drafted()
    assert refused(state, WrongKind, Pick(0), 0) == "the draft is over"
    assert state.legal_picks() == [] and state.view(0).legal_picks() == []


# --- laying ------------------------------------------------------------------------------------


def test_a_placement_by_a_player_who_placed_this_round_is_refused():
    state = drafted()
    state.play(state.legal_placements(0)[0], 0)
    assert state.to_move() == (1,)
    reason = refused(state, OutOfTurn, some_placement(state, 0), 0)
    assert reason == "player 1 has placed this round; waiting for player 2"
    state.play(state.legal_placements(1)[0], 1)
    state.play(state.legal_placements(1)[0], 1)  # player 2 first in the next round
    reason = refused(state, OutOfTurn, some_placement(state, 1), 1)
    assert reason == "player 2 has placed this round; waiting for player 1"


def test_a_placement_by_a_finished_player_is_refused():
    for seed in range(2, 30):  # a game where one player finishes a round before the other
        state = drafted(seed)
        while not any(seat.is_over for seat in state.seats):
            for p in state.to_move():
                state.play(state.legal_placements(p)[0], p)
        done = [p for p in (0, 1) if state.seats[p].is_over]
        if len(done) == 1:
            break
    else:
        pytest.fail("no seed where one player finishes first")
    finished, other = done[0], 1 - done[0]
    assert state.revealed(finished) is None and state.to_move() == (other,)
    reason = refused(state, OutOfTurn, Placement(Hex(9, 9), 0), finished)
    assert reason == f"player {finished + 1}'s game is over"
    while not state.is_over:
        state.play(state.legal_placements(other)[0], other)
    for p in (0, 1):
        assert refused(state, GameOver, Placement(Hex(9, 9), 0), p) == "the game is over"
    assert refused(state, GameOver, Pick(5), 1) == "the game is over"


def test_an_illegal_placement_is_refused_with_the_rule_it_breaks():
    state = drafted()
    # Turn 1: anything but [0, 0] is refused.
    reason = refused(state, IllegalPlacement, Placement(Hex(1, 0), 0), 0)
    assert reason == "the first tile goes at [0, 0]"
    state.play(state.legal_placements(0)[0], 0)
    state.play(state.legal_placements(1)[0], 1)
    assert refused(state, IllegalPlacement, Placement(Hex(0, 0), 0), 0) == "[0, 0] is already taken"
    assert (
        refused(state, IllegalPlacement, Placement(Hex(5, 0), 0), 1) == "[5, 0] does not touch the play area"
    )
    assert refused(state, IllegalPlacement, Placement(Hex(0, 1), 6), 0) == "rotation 6 is not 0 to 5"
    assert "too far" in refused(state, IllegalPlacement, Placement(Hex(500, 0), 0), 0)
    # A placement that breaks a matching or task rule, if one exists on the frontier.
    for p in (0, 1):
        revealed = state.revealed(p)
        legal = set(state.legal_placements(p))
        bad = [
            Placement(cell, k)
            for cell in state.area(p).frontier()
            for k in range(6)
            if Placement(cell, k) not in legal
            and state.area(p).why_illegal(revealed.tile.face, Placement(cell, k), revealed.task) is not None
        ]
        if bad:
            reason = refused(state, IllegalPlacement, bad[0], p)
            assert "edge would face" in reason or "tiles" in reason


def test_an_illegal_placement_next_to_a_mountain_or_lake_half_names_the_rule():
    # No task tiles: turn 1 reveals a landscape tile, and every landscape tile here shows a
    # mountain or lake half, so after one tile some cell and turn break the matching rule.
    tiles = (
        Tile(LANDSCAPE, "XMMPPM", "X"),
        Tile(LANDSCAPE, "XMMPPM", "X"),
        Tile(LANDSCAPE, "XMMLLM", "X"),
        Tile(LANDSCAPE, "XMMLLM", "X"),
        Tile(LANDSCAPE, "PMMMMM"),
        Tile(LANDSCAPE, "LMMMMM"),
    )
    state = HeadToHeadGame(seed=0, tileset=TileSet("hand-built", tiles)).new_state()
    state.pick(4)  # player 1 takes PMMMMM; LMMMMM goes to player 2
    for p in (0, 1):
        assert not state.revealed(p).tile.is_task
        state.play(Placement(Hex(0, 0), 0), p)
    for p in (0, 1):
        revealed = state.revealed(p)
        area = state.area(p)
        found = [
            (Placement(cell, k), reason)
            for cell in area.frontier()
            for k in range(6)
            if (reason := area.why_illegal(revealed.tile.face, Placement(cell, k), revealed.task))
        ]
        assert found
        placement, reason = found[0]
        assert "must meet their own kind" in reason
        assert refused(state, IllegalPlacement, placement, p) == reason


def test_a_decision_after_the_end_without_a_player_says_the_game_is_over():
    state = drafted()
    while not state.is_over:
        p = state.to_move()[0]
        state.play(state.legal_placements(p)[0], p)
    assert state.player == -1
    assert state.why_illegal(Placement(Hex(9, 9), 0)) == "the game is over"


# --- dorf score with malformed head-to-head boards ---------------------------------------------


def board(*items) -> dict:
    return {"format": "dorf-board/1", "mode": "head-to-head", "placements": [dict(i) for i in items]}


GOOD = (tile("FFFFFF", 0, 0), tile("MMMMMM", 0, -1))


@pytest.mark.parametrize(
    ("bad", "words"),
    [
        (tile("XFMMMM", 1, -1), "one X edge and no forest, grain or village edge"),
        (tile("XMMXMM", 1, -1), "one X edge"),
        (tile("TMMTMM", 1, -1), "is not six edge letters of FGVMRLPX"),
        (tile("FFFFFF", 1, -1, task=("track", 4)), "task type 'track' is not one of"),
        (
            tile("RMMRMM", 1, -1, task=("river", 7)),
            "task value 7 is not a head-to-head river marker (3 to 6)",
        ),
        (
            tile("FFFFFF", 1, -1, task=("forest", 8)),
            "task value 8 is not a head-to-head forest marker (3 to 7)",
        ),
        (tile("FFFFFF", 1, -1, task=("forest", 2)), "task value 2"),
        (tile("FFFFFF", 1, -1, flag="forest"), "head-to-head tiles carry no flag field"),
        (tile("XMMPPM", 1, -1, flag="forest"), "no flag field"),
        (tile("MMMMPM", 1, -1), "mountain edge would face a forest edge"),
        (tile("LMMMMM", 1, -1, rot=4), "lake edge would face a forest edge"),
        ({"tile": "FFFFFF", "at": [1, -1], "rot": 0, "connection": 3}, "unknown field 'connection'"),
        (
            {"tile": "FFFFFF", "at": [1, -1], "rot": 0, "task": {"type": "double", "value": 6}},
            "task type 'double' is not one of",
        ),
    ],
)
def test_dorf_score_refuses_a_malformed_head_to_head_board(tmp_path: Path, capsys, bad, words):
    path = tmp_path / "board.json"
    path.write_text(json.dumps(board(*GOOD, bad)), encoding="utf-8")
    assert main(["score", str(path), "--json"]) == 2
    out, err = capsys.readouterr()
    assert out == ""
    lines = err.splitlines()
    assert len(lines) == 1 and "Traceback" not in err, err
    assert lines[0].startswith("dorf score: placement 3: "), lines[0]
    assert words in lines[0]


def test_dorf_score_names_the_first_bad_placement(tmp_path: Path, capsys):
    path = tmp_path / "board.json"
    path.write_text(json.dumps(board(tile("XFMMMM", 0, 0), tile("TTTTTT", 0, -1))), encoding="utf-8")
    assert main(["score", str(path)]) == 2
    out, err = capsys.readouterr()
    assert out == "" and err.count("\n") == 1
    assert err.startswith("dorf score: placement 1: tile 'XFMMMM': a multicoloured flag tile")


def test_dorf_score_accepts_the_same_board_without_the_bad_placement(tmp_path: Path, capsys):
    path = tmp_path / "board.json"
    path.write_text(json.dumps(board(*GOOD)), encoding="utf-8")
    assert main(["score", str(path), "--json"]) == 0
    out, err = capsys.readouterr()
    assert err == ""
    assert json.loads(out)["total"] == 0
