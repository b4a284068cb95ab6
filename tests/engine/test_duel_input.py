"""Bad input to the Duel: refused placements leave the game unchanged and say why in one line;
Duel board files through ``dorf score --json`` (notation.md, mode ``duel``)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from boards import at
from dorf.cli import main
from dorf.formats.record import RecordError, record_of, replay_record
from dorf.games.duel import DuelGame, DuelState
from dorf.games.state import GameOver, OutOfTurn
from dorf.rules.area import IllegalPlacement, Placement
from dorf.rules.hexgrid import Hex
from dorf.rules.tiles import LANDSCAPE, TASK, Tile, TileSet

# --- the game refuses, and nothing changes ----------------------------------------------------


def snapshot(state: DuelState) -> tuple[Any, ...]:
    """What a refused placement must leave as it was."""
    return (
        [[(t.face, t.at, t.rot, t.flag) for t in area.placed] for area in state.areas],
        [[(t.at, t.task.status) for t in area.placed if t.task is not None] for area in state.areas],
        [(t.number, t.revealed, list(t.placements), list(t.set_aside)) for t in state.turns],
        list(state.history),
        state.to_move(),
        state.revealed,
        [state.legal_placements(p) for p in (0, 1)],
        state.landscapes_left(),
        state.task_tiles_left(),
        [pad.as_json() for pad in state.scores()],
        state.view(0).doubles_unseen,
        state.view(0).markers_unseen,
    )


def refused(state: DuelState, placement: Placement, player: int | None, error: type[Exception]) -> str:
    """Play must raise ``error`` with a one-line reason and change nothing; returns the reason."""
    before = snapshot(state)
    with pytest.raises(error) as info:
        state.play(placement, player)
    reason = str(info.value)
    assert reason.strip() and "\n" not in reason
    if player is not None:
        assert state.why_illegal(placement, player) == reason
    assert snapshot(state) == before
    return reason


def started(seed: int = 3, turns: int = 4) -> DuelState:
    state = DuelGame(seed=seed).new_state()
    for _ in range(turns):
        for player in (0, 1):
            state.play(state.legal_placements(player)[0], player)
    return state


def finished(seed: int = 3) -> DuelState:
    state = DuelGame(seed=seed).new_state()
    while not state.is_over:
        for player in state.to_move():
            state.play(state.legal_placements(player)[0], player)
    return state


def test_a_player_who_has_placed_the_tile_may_not_place_it_again():
    state = started()
    state.play(state.legal_placements(0)[0], 0)
    free = state.legal_placements(1)[0]  # a cell that would be legal in player 1's area
    reason = refused(state, free, 0, OutOfTurn)
    assert reason == "player 1 has placed this tile; waiting for player 2"
    state.play(free, 1)  # player 2 may
    assert state.to_move() == (0, 1)


def test_the_second_player_may_not_place_twice_either():
    state = started()
    placement = state.legal_placements(1)[0]
    state.play(placement, 1)
    reason = refused(state, placement, 1, OutOfTurn)
    assert reason == "player 2 has placed this tile; waiting for player 1"


def test_no_placement_after_the_game_is_over():
    state = finished()
    assert state.is_over
    for player in (0, 1):
        assert refused(state, at(0, 1), player, GameOver) == "the game is over"
    assert state.legal_placements(0) == state.legal_placements(1) == []


def test_no_placement_after_the_game_is_over_without_naming_a_player():
    assert refused(finished(), at(0, 1), None, GameOver) == "the game is over"


@pytest.mark.parametrize("player", [2, -1, 7])
def test_a_player_who_does_not_exist(player):
    state = started()
    reason = refused(state, state.legal_placements(0)[0], player, OutOfTurn)
    assert reason.startswith("there is no player")


def illegal_cases(state: DuelState, player: int) -> list[tuple[Placement, str]]:
    """Placements that break a placement rule in ``player``'s area, with a word of the reason."""
    area = state.areas[player]
    taken = area.placed[-1].at
    far = Hex(40, 40)
    cases = [
        (Placement(taken, 0), "already taken"),
        (Placement(far, 0), "does not touch"),
        (Placement(Hex(500, 0), 0), "too far"),
    ]
    revealed = state.revealed
    assert revealed is not None
    legal = set(state.legal_placements(player))
    for cell in area.frontier():
        for rot in range(6):
            placement = Placement(cell, rot)
            reason = area.why_illegal(revealed.tile.face, placement, revealed.task)
            if placement not in legal and reason is not None and "edge would face" in reason:
                cases.append((placement, "must meet their own kind"))
                return cases
    return cases


@pytest.mark.parametrize("seed", [1, 2, 3, 4])
def test_illegal_placements_are_refused_with_their_rule(seed):
    state = started(seed)
    for player in (0, 1):
        for placement, words in illegal_cases(state, player):
            assert words in refused(state, placement, player, IllegalPlacement)


def test_a_rotation_outside_0_to_5_is_refused():
    state = started()
    assert "rotation 6" in refused(state, Placement(Hex(0, 1), 6), 0, IllegalPlacement)


def test_the_first_tile_goes_at_the_origin():
    state = DuelGame(seed=1).new_state()
    assert "[0, 0]" in refused(state, at(1, 0), 1, IllegalPlacement)


def test_a_task_tile_may_not_be_placed_where_its_task_is_impossible():
    # Three connection 1 task tiles: the third may not go where two tiles touch it.
    ts = TileSet(
        "custom",
        (*[Tile(TASK, "MMMMMM", task="connection")] * 3, *[Tile(LANDSCAPE, "MMMMMM")] * 4),
        {"connection": (1, 1, 1)},
    )
    state = DuelGame(seed=1, tileset=ts).new_state()
    for cell in [(0, 0), (1, -1)]:
        for player in (0, 1):
            state.play(at(*cell), player)
    assert state.areas[0].neighbours(Hex(0, -1)) == 2
    reason = refused(state, at(0, -1), 0, IllegalPlacement)
    assert reason == "2 tiles would already touch its connection task, more than 1"
    state.play(at(2, -2), 0)  # one neighbour: fine


def test_a_player_whose_tile_was_set_aside_is_told_so():
    ts = TileSet(
        "custom",
        (*[Tile(TASK, "TTTTTM", task="connection")] * 2, *[Tile(LANDSCAPE, "MMMMMM")] * 4),
        {"connection": (6, 6)},
    )
    state = DuelGame(seed=1, tileset=ts).new_state()
    for first, second in [((0, 0, 0), (0, 0, 0)), ((-1, 0, 3), (1, 0, 1))]:
        state.play(at(*first), 0)
        state.play(at(*second), 1)
    assert state.turns[-1].set_aside == [True, False]
    assert "set aside" in refused(state, at(-2, 0), 0, OutOfTurn)


def test_undo_with_nothing_to_undo():
    with pytest.raises(IndexError):
        DuelGame(seed=1).new_state().undo()


def test_a_record_with_a_second_placement_by_the_same_player_does_not_replay():
    state = started(turns=1)
    record = record_of(state)
    record["decisions"].insert(1, dict(record["decisions"][0]))
    with pytest.raises(RecordError, match=r"^decision 2: player 1 has placed this tile"):
        replay_record(record)


def test_a_record_with_a_bad_player_does_not_replay():
    record = record_of(started(turns=1))
    record["decisions"][0]["player"] = 2
    with pytest.raises(RecordError, match=r"^decision 1: player must be 0 or 1$"):
        replay_record(record)


# --- dorf score --json on duel boards -------------------------------------------------------


def duel_board(*placements: dict[str, Any]) -> dict[str, Any]:
    return {"format": "dorf-board/1", "mode": "duel", "placements": list(placements)}


def p(face: str, q: int, r: int, rot: int = 0, **extra: Any) -> dict[str, Any]:
    return {"tile": face, "at": [q, r], "rot": rot, **extra}


def score(tmp_path: Path, capsys: pytest.CaptureFixture[str], board: Any) -> tuple[int, str, str]:
    path = tmp_path / "board.json"
    path.write_text(board if isinstance(board, str) else json.dumps(board), encoding="utf-8")
    code = main(["score", str(path), "--json"])
    out, err = capsys.readouterr()
    return code, out, err


# A double forest/grain task on [0, 0] (forest to the north, grain to the south, village to
# the north-west); a closed forest of six tiles north of it with a flag; a connection 3 task
# at [1, 0] completed by three neighbours; a connection 5 task at [-1, 1] that stays open;
# a double grain/village task at [0, 1] (grain closed at 2 at once, village open) that fails.
VALID = duel_board(
    p("FMMGMV", 0, 0, task={"type": "double", "value": 6, "types": ["forest", "grain"]}),
    p("FMMFMM", 0, -1),
    p("FMMFMM", 0, -2),
    p("FMMFMM", 0, -3),
    p("FMMFMM", 0, -4),
    p("MMMFMM", 0, -5, flag="forest"),  # forest of 6, closed: the double task is completed
    p("MMMMMM", 1, 0, task={"type": "connection", "value": 3}),  # touches [0, 0]
    p("MMMMMM", 1, 1),  # touches [1, 0]
    p("MMMMMM", 2, 0),  # touches [1, 0]: three, completed
    p("MMMMMM", -1, 1, task={"type": "connection", "value": 5}),  # [0, 0] and later [0, 1]: two, open
    p("GFMVMM", 0, 1, task={"type": "double", "value": 6, "types": ["grain", "village"]}),
    p("MMMMMM", 0, 2),  # covers its village edge: village closed at 1, both impossible, failed
)


def test_a_duel_board_with_connection_and_double_tasks_scores(tmp_path, capsys):
    code, out, err = score(tmp_path, capsys, VALID)
    assert (code, err) == (0, "")
    doc = json.loads(out)
    assert doc["tasks"] == {
        "forest": 0,
        "grain": 0,
        "village": 0,
        "river": 0,
        "track": 0,
        "connection": 3,
        "double": 6,
    }
    assert doc["flags"] == {"forest": 6, "grain": 0, "village": 0}
    assert (doc["longest_river"], doc["longest_track"]) == (0, 0)
    assert doc["total"] == 3 + 6 + 6
    assert doc["task_list"] == [
        {"at": [0, 0], "type": "double", "value": 6, "types": ["forest", "grain"], "status": "completed"},
        {"at": [1, 0], "type": "connection", "value": 3, "status": "completed"},
        {"at": [-1, 1], "type": "connection", "value": 5, "status": "open"},
        {"at": [0, 1], "type": "double", "value": 6, "types": ["grain", "village"], "status": "failed"},
    ]


def test_a_duel_board_scores_like_the_reference(tmp_path, capsys):
    from reference import RefBoard, RefTile

    def ref_task(raw: dict[str, Any] | None) -> tuple[Any, ...] | None:
        if raw is None:
            return None
        return (
            (raw["type"], raw["value"], tuple(raw["types"]))
            if "types" in raw
            else (raw["type"], raw["value"])
        )

    letters = {"forest": "F", "grain": "G", "village": "V"}
    ref = RefBoard(
        RefTile(e["tile"], Hex(*e["at"]), e["rot"], letters.get(e.get("flag", "")), ref_task(e.get("task")))
        for e in VALID["placements"]
    )
    code, out, _ = score(tmp_path, capsys, VALID)
    assert code == 0
    assert json.loads(out) == ref.score("duel")


def first_tile(**extra: Any) -> dict[str, Any]:
    return p("FFGGVV", 0, 0, **extra)


MALFORMED = {
    "lake letter": p("LMMMMM", 1, 0),
    "mountain letter": p("PMMMMM", 1, 0),
    "multicoloured flag letter": p("XMMMMM", 1, 0),
    "double without types": p("FFGGVV", 1, 0, task={"type": "double", "value": 6}),
    "double with one type": p("FFGGVV", 1, 0, task={"type": "double", "value": 6, "types": ["forest"]}),
    "double with a river": p(
        "FFGRRV", 1, 0, task={"type": "double", "value": 6, "types": ["forest", "river"]}
    ),
    "double twice forest": p(
        "FFGGVV", 1, 0, task={"type": "double", "value": 6, "types": ["forest", "forest"]}
    ),
    "double with three": p(
        "FFGGVV", 1, 0, task={"type": "double", "value": 6, "types": ["forest", "grain", "village"]}
    ),
    "double types not a list": p(
        "FFGGVV", 1, 0, task={"type": "double", "value": 6, "types": "forest/grain"}
    ),
    "double value 5": p("FFGGVV", 1, 0, task={"type": "double", "value": 5, "types": ["forest", "grain"]}),
    "double value 7": p("FFGGVV", 1, 0, task={"type": "double", "value": 7, "types": ["grain", "village"]}),
    "connection value 7": p("MMMMMM", 1, 0, task={"type": "connection", "value": 7}),
    "connection value 2": p("MMMMMM", 1, 0, task={"type": "connection", "value": 2}),
    "connection with types": p("MMMMMM", 1, 0, task={"type": "connection", "value": 3, "types": ["forest"]}),
    "forest with types": p("FMMMMM", 1, 0, task={"type": "forest", "value": 3, "types": ["forest", "grain"]}),
    "double missing its terrain": p(
        "FFFFVV", 1, 0, task={"type": "double", "value": 6, "types": ["forest", "grain"]}
    ),
}


@pytest.mark.parametrize("case", sorted(MALFORMED))
def test_malformed_duel_placements_exit_2_naming_the_placement(tmp_path, capsys, case):
    code, out, err = score(tmp_path, capsys, duel_board(first_tile(), MALFORMED[case]))
    assert code == 2
    assert out == ""
    lines = err.splitlines()
    assert len(lines) == 1, err
    assert lines[0].startswith("dorf score: placement 2: "), lines[0]
    assert "Traceback" not in err


def test_a_connection_task_with_too_many_neighbours_names_the_placement(tmp_path, capsys):
    board = duel_board(
        p("MMMMMM", 0, 0),
        p("MMMMMM", 1, -1),
        p("MMMMMM", -1, 0),
        p("MMMMMM", -1, -1),
        p("MMMMMM", 0, -1, task={"type": "connection", "value": 3}),
    )
    code, out, err = score(tmp_path, capsys, board)
    assert (code, out) == (2, "")
    assert err == "dorf score: placement 5: 4 tiles would already touch its connection task, more than 3\n"


def test_a_double_task_impossible_at_once_names_the_placement(tmp_path, capsys):
    # A forest of six tiles down to [0, 5]; meadows east and south of [0, 6]: a double
    # forest/grain tile there would have a forest of 7 and a grain closed at 1.
    forest = [p("MMMFMM", 0, 0)] + [p("FMMFMM", 0, r) for r in range(1, 6)]
    meadows = [p("MMMMMM", 1, 5), p("MMMMMM", 1, 6), p("MMMMMM", 0, 7)]
    double = p("FMMGMV", 0, 6, task={"type": "double", "value": 6, "types": ["forest", "grain"]})
    code, out, err = score(tmp_path, capsys, duel_board(*forest, *meadows, double))
    assert (code, out) == (2, "")
    assert err == (
        "dorf score: placement 10: its forest would already have 7 tiles, more than 6 "
        "and it would close its grain at 1 tiles, fewer than 6\n"
    )
    double["task"]["types"] = ["village", "forest"]  # its village is still open: fine
    code, out, err = score(tmp_path, capsys, duel_board(*forest, *meadows, double))
    assert (code, err) == (0, "")
    assert json.loads(out)["task_list"][0]["status"] == "open"


@pytest.mark.parametrize("letter", ["L", "P", "X"])
def test_the_same_letters_are_fine_in_head_to_head_but_not_in_duel(tmp_path, capsys, letter):
    face = letter + "MMMMM"
    board = {"format": "dorf-board/1", "mode": "head-to-head", "placements": [p(face, 0, 0)]}
    code, _, _ = score(tmp_path, capsys, board)
    assert code == 0
    code, _, err = score(tmp_path, capsys, duel_board(p(face, 0, 0)))
    assert code == 2 and err.startswith("dorf score: placement 1: ") and "FGVMRT" in err
