"""One or more named tests per rules decision of the Duel (rules-decisions.md items 22 to 28),
on boards and games built by hand.

Expected values are worked out from the rules, not read from the engine.  Boards
use rotation 0 where they can, so a face reads as its edges by direction
(N, NE, SE, S, SW, NW); see tests/boards.py.  Small tile sets whose task tiles
(and landscape tiles) are all alike make the shuffled sequence irrelevant, so a
game can be steered turn by turn.  In code the players are 0 and 1; comments call them
player 1 and player 2, as the program shows them.
"""

from __future__ import annotations

import dataclasses
import random
from collections import Counter

import pytest

from boards import at, status
from dorf.formats.record import record_of
from dorf.games.duel import DuelGame, DuelState
from dorf.rules.area import IllegalPlacement, PlayArea
from dorf.rules.hexgrid import Hex
from dorf.rules.scoring import DUEL_TASK_TYPES, score_duel
from dorf.rules.tasks import DOUBLE_PAIRS, TaskSpec
from dorf.rules.tiles import LANDSCAPE, TASK, Tile, TileSet, TileSetError, load_tileset

SIMPLE_TYPES = ("forest", "grain", "village", "river", "track", "connection")


def tile_set(
    tasks: list[tuple[str, str]],
    landscapes: list[str],
    markers: dict[str, tuple[int, ...]],
    doubles: tuple[tuple[str, str], ...] = (),
) -> TileSet:
    """A small Duel box: task tiles ``(face, type)``, landscape faces, marker piles, Double markers."""
    tiles = [Tile(TASK, face, task=kind) for face, kind in tasks] + [Tile(LANDSCAPE, f) for f in landscapes]
    return TileSet("custom", tuple(tiles), markers, doubles)


def kinds(state: DuelState) -> str:
    """The turns so far as letters: T a task tile, L a landscape tile."""
    return "".join("T" if t.revealed.tile.is_task else "L" for t in state.turns)


def actives(state: DuelState) -> tuple[int, int]:
    return state.areas[0].active_count, state.areas[1].active_count


def play_first_legal(state: DuelState, pick_last_for: int | None = None) -> DuelState:
    """Finish a game: each player takes the first sorted legal placement (one player the last)."""
    while not state.is_over:
        for player in state.to_move()[::-1]:
            legal = state.legal_placements(player)
            state.play(legal[-1] if player == pick_last_for else legal[0], player)
    return state


# A forest task tile with one forest edge, forest 2 markers only: two such tiles whose
# forest edges meet complete both tasks; one whose forest faces an empty cell stays open.
ONE_FOREST = "FMMMMM"


# --- 22. The set ------------------------------------------------------------------------------


def test_rule_22_the_duel_set_has_42_landscape_and_27_task_tiles():
    duel = load_tileset("duel")
    assert len(duel.landscapes) == 42
    assert len(duel.task_tiles) == 27
    assert len(duel.tiles) == 69


def test_rule_22_two_flag_tiles_for_each_territory_on_landscape_tiles():
    duel = load_tileset("duel")
    assert Counter(t.flag for t in duel.landscapes if t.flag) == {"F": 2, "G": 2, "V": 2}
    assert not any(t.flag for t in duel.task_tiles)


def test_rule_22_four_task_tiles_of_each_type_and_three_double_task_tiles():
    duel = load_tileset("duel")
    assert Counter(t.task for t in duel.task_tiles) == {**dict.fromkeys(SIMPLE_TYPES, 4), "double": 3}


def test_rule_22_markers_3_to_6_for_six_types_and_three_double_markers():
    duel = load_tileset("duel")
    assert duel.markers == dict.fromkeys(SIMPLE_TYPES, (3, 4, 5, 6))
    assert sorted(duel.doubles) == sorted(DOUBLE_PAIRS)
    assert sorted(map(frozenset, duel.doubles)) == sorted(
        map(frozenset, [("forest", "grain"), ("village", "forest"), ("grain", "village")])
    )
    assert sum(map(len, duel.markers.values())) + len(duel.doubles) == 27


def test_rule_22_a_duel_loads_one_set_for_both_players():
    game = DuelGame(seed=1)
    assert game.tileset.name == "duel"
    assert len(game.tileset.tiles) == 69  # one player's set, dealt to both


# --- 23. One sequence for both areas -------------------------------------------------------------


def placed_sequence(state: DuelState, player: int) -> list[tuple[str, str | None, TaskSpec | None]]:
    area = state.areas[player]
    return [(t.face, t.flag, None if t.task is None else t.task.spec) for t in area.placed]


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_rule_23_both_areas_receive_the_same_tiles_and_markers_in_the_same_order(seed):
    # The players build differently (first and last legal placement), still the same tiles.
    state = play_first_legal(DuelGame(seed=seed).new_state(), pick_last_for=1)
    assert not any(any(t.set_aside) for t in state.turns)
    assert placed_sequence(state, 0) == placed_sequence(state, 1)
    expected = [(t.revealed.tile.face, t.revealed.tile.flag, t.revealed.task) for t in state.turns]
    assert placed_sequence(state, 0) == expected
    assert state.areas[0].placed != state.areas[1].placed  # different places, same tiles


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_rule_23_three_landscapes_are_removed_unseen_so_each_player_lays_39(seed):
    state = play_first_legal(DuelGame(seed=seed).new_state())
    assert kinds(state).count("L") == 39
    for area in state.areas:
        assert sum(1 for t in area.placed if t.task is None) == 39
    unseen = state.view(0).unseen
    assert sum(1 for t in unseen if not t.is_task) == 3  # never revealed, never placed
    assert sum(1 for t in unseen if t.is_task) == state.task_tiles_left()
    assert state.view(1).unseen == unseen


def test_rule_23_which_landscapes_are_removed_depends_on_the_seed():
    removed = set()
    for seed in range(8):
        state = play_first_legal(DuelGame(seed=seed).new_state())
        removed.add(tuple(t.face for t in state.view(0).unseen if not t.is_task))
    assert len(removed) > 1


def test_rule_23_the_sequence_is_fixed_by_the_seed_not_by_the_play():
    # However the players build (so whenever task tiles come), the task tiles come in
    # one order and the landscape tiles in another, both fixed by the seed.
    one = play_first_legal(DuelGame(seed=7).new_state())
    two = play_first_legal(DuelGame(seed=7).new_state(), pick_last_for=0)
    for want_task in (True, False):
        a = [(t.revealed.tile_id, t.revealed.task) for t in one.turns if t.revealed.tile.is_task == want_task]
        b = [(t.revealed.tile_id, t.revealed.task) for t in two.turns if t.revealed.tile.is_task == want_task]
        shorter = min(len(a), len(b))
        assert shorter >= 3
        assert a[:shorter] == b[:shorter]


# --- 24. Reveal, both players, end ------------------------------------------------------------


def test_rule_24_first_three_turns_reveal_task_tiles_and_both_players_place_them():
    state = DuelGame(seed=4).new_state()
    for _ in range(3):
        assert state.revealed is not None and state.revealed.tile.is_task
        assert state.to_move() == (0, 1)
        for player in (1, 0):  # either order
            state.play(state.legal_placements(player)[0], player)
    assert kinds(state)[:3] == "TTT"
    assert [len(a) for a in state.areas] == [3, 3]


def test_rule_24_each_player_places_the_tile_in_either_order():
    state = DuelGame(seed=4).new_state()
    revealed = state.revealed
    state.play(state.legal_placements(1)[0], 1)
    assert state.to_move() == (0,)
    assert state.revealed == revealed  # the same tile waits for player 1
    assert state.turn == 1
    state.play(state.legal_placements(0)[-1], 0)
    assert state.turn == 2 and state.to_move() == (0, 1)
    assert [p for _, p in state.history] == [1, 0]


def forest_duel(task_tiles: int, landscapes: int, landscape: str = "MMMMMM") -> DuelState:
    """Task tiles all ``FMMMMM`` forest with forest 2 markers; ``landscapes`` landscape tiles
    to lay, all alike, and three more like them go back to the box unseen."""
    ts = tile_set(
        [(ONE_FOREST, "forest")] * task_tiles, [landscape] * (3 + landscapes), {"forest": (2,) * task_tiles}
    )
    return DuelGame(seed=1, tileset=ts).new_state()


def turn(state: DuelState, first: tuple[int, int, int], second: tuple[int, int, int]) -> None:
    """Both players place the revealed tile: player 1 at ``first``, player 2 at ``second``."""
    state.play(at(*first), 0)
    state.play(at(*second), 1)


def test_rule_24_a_task_tile_while_either_area_has_fewer_than_3_active_tasks():
    state = forest_duel(6, 2)
    turn(state, (0, 0, 0), (0, 0, 0))
    turn(state, (0, -1, 3), (1, 0, 0))  # player 1 joins the two forests: both tasks completed
    turn(state, (1, 0, 0), (2, 0, 0))
    assert actives(state) == (1, 3)
    assert state.revealed.tile.is_task  # turn 4: player 1 has fewer than 3
    turn(state, (2, 0, 0), (3, 0, 0))
    assert actives(state) == (2, 4)
    assert state.revealed.tile.is_task  # turn 5: still player 1
    turn(state, (3, 0, 0), (4, 0, 0))
    assert actives(state) == (3, 5)
    assert not state.revealed.tile.is_task  # turn 6: both have 3 or more
    assert state.task_tiles_left() == 1
    assert kinds(state) == "TTTTTL"


def test_rule_24_a_landscape_tile_when_both_areas_have_3_and_the_end_when_none_is_left():
    state = forest_duel(4, 2)
    for q in range(3):
        turn(state, (q, 0, 0), (q, 0, 0))  # forests face empty cells: all tasks stay open
    assert actives(state) == (3, 3)
    turn(state, (0, 1, 0), (0, 1, 0))
    turn(state, (1, 1, 0), (1, 1, 0))
    assert state.is_over and state.revealed is None and state.to_move() == ()
    assert kinds(state) == "TTTLL"
    assert state.task_tiles_left() == 1 and state.landscapes_left() == 0  # the task tile stays unused


def test_rule_24_task_tiles_keep_coming_after_the_last_landscape_until_both_areas_have_3():
    state = forest_duel(8, 1, ONE_FOREST)
    for q in range(3):
        turn(state, (q, 0, 0), (q, 0, 0))
    # Turn 4, the last landscape tile: player 1 completes the task at [0, 0] with it.
    turn(state, (0, -1, 3), (3, 0, 0))
    assert state.landscapes_left() == 0
    assert actives(state) == (2, 3)
    assert not state.is_over and state.revealed.tile.is_task
    # Turn 5: a new task tile joined to the forest at [1, 0]: both tasks completed.
    turn(state, (1, -1, 3), (4, 0, 0))
    assert actives(state) == (1, 4)
    assert state.revealed.tile.is_task
    turn(state, (3, 0, 0), (5, 0, 0))
    assert actives(state) == (2, 5)
    assert state.revealed.tile.is_task
    turn(state, (4, 0, 0), (6, 0, 0))
    assert actives(state) == (3, 6)
    assert state.is_over  # a landscape tile is due and none is left
    assert kinds(state) == "TTTLTTT"
    assert state.task_tiles_left() == 2


def test_rule_24_landscape_tiles_only_once_the_task_stack_is_empty():
    state = forest_duel(2, 3)
    turn(state, (0, 0, 0), (0, 0, 0))
    turn(state, (1, 0, 0), (1, 0, 0))
    assert actives(state) == (2, 2)
    assert not state.revealed.tile.is_task  # turn 3 would be a task tile, but none is left
    for q in range(3):
        turn(state, (q, 1, 0), (q, 1, 0))
    assert state.is_over and kinds(state) == "TTLLL"


# A track task tile: five track edges and one meadow edge.  Player 1 turns the second
# tile's meadow edge against the first's, so every empty cell faces a track edge and a
# meadow tile fits nowhere; player 2 leaves a cell that faces only meadow.
BLOCKER = "TTTTTM"


def blocker_duel(landscapes: int) -> DuelState:
    ts = tile_set([(BLOCKER, "connection")] * 2, ["MMMMMM"] * (3 + landscapes), {"connection": (6, 6)})
    state = DuelGame(seed=1, tileset=ts).new_state()
    turn(state, (0, 0, 0), (0, 0, 0))  # meadow edge to the north-west, toward [-1, 0]
    return state


def test_rule_24_a_tile_that_fits_nowhere_in_one_area_is_set_aside_for_that_player_only():
    state = blocker_duel(1)
    turn(state, (-1, 0, 3), (1, 0, 1))  # player 1: meadow against meadow; player 2: track against track
    assert state.turn == 3 and not state.revealed.tile.is_task
    assert state.turns[-1].set_aside == [True, False]
    assert state.to_move() == (1,)
    assert state.legal_placements(0) == []
    assert at(-1, 0) in state.legal_placements(1)
    state.play(at(-1, 0), 1)
    assert state.is_over
    assert [len(a) for a in state.areas] == [2, 3]
    assert record_of(state)["set_aside"] == [[0, 3]]


def test_rule_24_a_tile_that_fits_in_neither_area_is_set_aside_for_both_and_the_turn_counts():
    state = blocker_duel(2)
    turn(state, (-1, 0, 3), (-1, 0, 3))
    assert state.is_over
    assert [t.set_aside for t in state.turns[2:]] == [[True, True], [True, True]]
    assert kinds(state) == "TTLL"
    assert record_of(state)["set_aside"] == [[0, 3], [1, 3], [0, 4], [1, 4]]


# --- 25. Connection tasks -----------------------------------------------------------------------

RING = [(0, -1), (1, -1), (1, 0), (0, 1), (-1, 1), (-1, 0)]  # the neighbours of [0, 0], in order


def connection_area(value: int) -> PlayArea:
    area = PlayArea()
    area.play("MMMMMM", at(0, 0), task=TaskSpec("connection", value))
    return area


def test_rule_25_connection_task_completed_when_exactly_n_tiles_touch_it():
    area = connection_area(3)
    statuses = []
    for q, r in RING:
        area.play("MMMMMM", at(q, r))
        statuses.append(status(area, 0, 0))
    assert statuses == ["open", "open", "completed", "completed", "completed", "completed"]
    assert score_duel(area).tasks["connection"] == 3


def test_rule_25_the_connection_task_tile_itself_does_not_count():
    area = connection_area(1)
    assert status(area, 0, 0) == "open"  # one tile on the table, but nothing touches it
    area.play("MMMMMM", at(0, 1))
    assert status(area, 0, 0) == "completed"


def test_rule_25_tiles_that_touch_only_each_other_do_not_count():
    area = connection_area(2)
    area.play("MMMMMM", at(0, 1))
    area.play("MMMMMM", at(0, 2))
    area.play("MMMMMM", at(1, 1))  # touches [0, 1], not [0, 0]
    assert area.neighbours(Hex(0, 0)) == 1
    assert status(area, 0, 0) == "open"


def test_rule_25_connection_task_never_fails():
    # Connection 6: five neighbours, closed territories all round, its own forest grown
    # far beyond 6 and closed: still open, never failed.
    area = PlayArea()
    area.play("FFFFFF", at(0, 0), task=TaskSpec("connection", 6))
    for q, r in RING[:5]:
        area.play("FFFFFF", at(q, r))
    assert area.group(Hex(0, 0), "F").size == 6
    for q, r in [(0, -2), (1, -2), (2, -2), (2, -1), (2, 0)]:
        area.play("FFFFFF", at(q, r))
    assert area.group(Hex(0, 0), "F").size == 11
    assert status(area, 0, 0) == "open"
    assert area.active_count == 1
    assert score_duel(area).tasks["connection"] == 0  # an open task scores nothing
    area.play("FFFFFF", at(-1, 0))
    assert status(area, 0, 0) == "completed"


def test_rule_25_a_completed_connection_task_stays_completed_as_more_tiles_touch_it():
    area = connection_area(2)
    for q, r in RING:
        area.play("MMMMMM", at(q, r))
    assert status(area, 0, 0) == "completed"
    assert score_duel(area).tasks["connection"] == 2


def three_around(q: int, r: int) -> PlayArea:
    """Meadow tiles at [0, 0], [1, -1] and [-1, 0]: the empty cell [0, -1] touches all three."""
    area = PlayArea()
    for cell in [(0, 0), (1, -1), (-1, 0)]:
        area.play("MMMMMM", at(*cell))
    assert area.neighbours(Hex(q, r)) == 3
    return area


def test_rule_25_may_not_be_placed_with_more_than_n_neighbours():
    area = three_around(0, -1)
    reason = area.why_illegal("MMMMMM", at(0, -1), TaskSpec("connection", 2))
    assert reason == "3 tiles would already touch its connection task, more than 2"
    with pytest.raises(IllegalPlacement, match="more than 2"):
        area.play("MMMMMM", at(0, -1), task=TaskSpec("connection", 2))
    assert at(0, -1) not in area.legal_placements("MMMMMM", TaskSpec("connection", 2))
    assert at(0, -1) in area.legal_placements("MMMMMM", TaskSpec("connection", 3))
    assert len(area) == 3 and area.tile_at(Hex(0, -1)) is None  # the refused placement changed nothing


def test_rule_25_placed_with_exactly_n_neighbours_completes_at_once():
    area = three_around(0, -1)
    area.play("MMMMMM", at(0, -1), task=TaskSpec("connection", 3))
    assert status(area, 0, -1) == "completed"
    assert area.last_changes()[0][1].value == "completed"
    assert score_duel(area).tasks["connection"] == 3


def test_rule_25_placed_with_fewer_neighbours_stays_open():
    area = three_around(0, -1)
    area.play("MMMMMM", at(0, -1), task=TaskSpec("connection", 4))
    assert status(area, 0, -1) == "open"
    area.play("MMMMMM", at(0, -2))
    assert status(area, 0, -1) == "completed"


# --- 26. Double tasks ---------------------------------------------------------------------------

# The double task tile: forest to the north, grain to the south, village to the north-west.
DOUBLE_TILE = "FMMGMV"
FOREST_GRAIN = TaskSpec("double", 6, ("forest", "grain"))
FOREST_LINK, FOREST_TOP = "FMMFMM", "MMMFMM"  # a forest chain north of [0, 0]; the top closes it
GRAIN_LINK, GRAIN_BOTTOM = "GMMGMM", "GMMMMM"  # a grain chain south of [0, 0]


def double_area(task: TaskSpec = FOREST_GRAIN) -> PlayArea:
    area = PlayArea()
    area.play(DOUBLE_TILE, at(0, 0), task=task)
    return area


def grow(area: PlayArea, face: str, q: int, r: int) -> None:
    area.play(face, at(q, r))


def test_rule_26_double_task_completed_when_its_first_territory_has_exactly_6():
    area = double_area()
    for r in range(-1, -5, -1):
        grow(area, FOREST_LINK, 0, r)
        assert status(area, 0, 0) == "open"
    grow(area, FOREST_LINK, 0, -5)
    assert area.group(Hex(0, 0), "F").size == 6
    assert area.group(Hex(0, 0), "G").size == 1
    assert status(area, 0, 0) == "completed"
    grow(area, FOREST_LINK, 0, -6)  # growing on keeps it completed (rule 3)
    assert status(area, 0, 0) == "completed"
    assert score_duel(area).tasks["double"] == 6


def test_rule_26_double_task_completed_when_its_second_territory_has_exactly_6():
    area = double_area()
    for r in range(1, 6):
        grow(area, GRAIN_LINK, 0, r)
    assert area.group(Hex(0, 0), "G").size == 6
    assert status(area, 0, 0) == "completed"
    assert score_duel(area).tasks == {**dict.fromkeys(DUEL_TASK_TYPES, 0), "double": 6}


def test_rule_26_a_territory_not_on_the_marker_does_not_count():
    area = double_area(TaskSpec("double", 6, ("grain", "village")))
    for r in range(-1, -6, -1):
        grow(area, FOREST_LINK, 0, r)
    assert area.group(Hex(0, 0), "F").size == 6
    assert status(area, 0, 0) == "open"


def test_rule_26_not_failed_while_one_territory_is_still_possible():
    area = double_area()
    grow(area, FOREST_LINK, 0, -1)
    grow(area, FOREST_TOP, 0, -2)  # forest closed at 3: impossible
    assert area.group(Hex(0, 0), "F").closed
    assert status(area, 0, 0) == "open"
    for r in range(1, 6):
        grow(area, GRAIN_LINK, 0, r)
    assert status(area, 0, 0) == "completed"


def test_rule_26_failed_when_both_territories_have_become_impossible():
    area = double_area()
    grow(area, FOREST_LINK, 0, -1)
    grow(area, FOREST_TOP, 0, -2)  # forest closed at 3
    assert status(area, 0, 0) == "open"
    grow(area, GRAIN_LINK, 0, 1)
    grow(area, GRAIN_BOTTOM, 0, 2)  # grain closed at 3
    assert status(area, 0, 0) == "failed"
    assert area.active_count == 0
    assert score_duel(area).tasks["double"] == 0


def forest_column(length: int) -> PlayArea:
    """A forest chain of ``length`` tiles from [0, 0] southward, closed at the top, its
    bottom forest edge facing the empty cell [0, length], where the double tile goes."""
    area = PlayArea()
    area.play(FOREST_TOP, at(0, 0))
    for r in range(1, length):
        area.play(FOREST_LINK, at(0, r))
    return area


def test_rule_26_a_territory_larger_than_6_is_impossible_but_the_other_may_still_complete():
    area = forest_column(6)
    area.play(DOUBLE_TILE, at(0, 6), task=FOREST_GRAIN)  # forest at once 7: impossible, grain open
    assert area.group(Hex(0, 6), "F").size == 7
    assert status(area, 0, 6) == "open"
    for r in range(7, 12):
        grow(area, GRAIN_LINK, 0, r)
    assert status(area, 0, 6) == "completed"


def test_rule_26_larger_than_6_and_then_closed_short_fails():
    area = forest_column(6)
    area.play(DOUBLE_TILE, at(0, 6), task=FOREST_GRAIN)
    grow(area, GRAIN_BOTTOM, 0, 7)  # grain closed at 2
    assert status(area, 0, 6) == "failed"


def hemmed_in(length: int) -> PlayArea:
    """A forest column of ``length`` (see :func:`forest_column`), and meadow tiles on the
    north-east, south-east and south of [0, length]: a double tile there gets a forest of
    ``length + 1`` tiles and a grain closed at 1 tile; its village faces the empty [-1, length]."""
    area = forest_column(length)
    for q, r in [(1, length - 1), (1, length), (0, length + 1)]:
        area.play("MMMMMM", at(q, r))
    return area


def test_rule_26_may_not_be_placed_where_both_territories_are_impossible_at_once():
    area = hemmed_in(6)
    reason = area.why_illegal(DOUBLE_TILE, at(0, 6), FOREST_GRAIN)
    assert reason is not None
    assert "forest would already have 7 tiles" in reason and "close its grain at 1" in reason
    with pytest.raises(IllegalPlacement):
        area.play(DOUBLE_TILE, at(0, 6), task=FOREST_GRAIN)
    assert at(0, 6) not in area.legal_placements(DOUBLE_TILE, FOREST_GRAIN)
    assert len(area) == 9 and area.tile_at(Hex(0, 6)) is None


def test_rule_26_may_be_placed_where_only_one_territory_is_impossible():
    area = hemmed_in(6)
    village_forest = TaskSpec("double", 6, ("village", "forest"))
    assert at(0, 6) in area.legal_placements(DOUBLE_TILE, village_forest)
    area.play(DOUBLE_TILE, at(0, 6), task=village_forest)
    assert status(area, 0, 6) == "open"


def test_rule_26_may_be_placed_where_one_territory_completes_at_once():
    area = hemmed_in(5)
    area.play(DOUBLE_TILE, at(0, 5), task=FOREST_GRAIN)  # forest exactly 6, grain closed at 1
    assert status(area, 0, 5) == "completed"


def test_rule_26_double_task_tiles_show_forest_grain_and_village():
    for t in load_tileset("duel").task_tiles:
        if t.task == "double":
            assert {"F", "G", "V"} <= set(t.face)
    with pytest.raises(TileSetError):
        Tile(TASK, "FFGGMM", task="double")


def doubles_duel(seed: int) -> DuelState:
    ts = tile_set([("FFGGVV", "double")] * 3, ["MMMMMM"] * 5, {}, DOUBLE_PAIRS)
    return DuelGame(seed=seed, tileset=ts).new_state()


def test_rule_26_each_double_task_tile_draws_one_of_the_remaining_double_markers():
    for seed in range(10):
        state = doubles_duel(seed)
        remaining = list(DOUBLE_PAIRS)
        for _ in range(3):
            task = state.revealed.task
            assert task is not None and task.type == "double" and task.value == 6
            remaining.remove(tuple(task.types))  # one of those not drawn yet
            assert state.view(0).doubles_unseen == tuple(sorted(remaining))
            for player in (0, 1):
                state.play(state.legal_placements(player)[0], player)
        assert remaining == []  # each marker once
        assert not state.revealed.tile.is_task


def test_rule_26_the_double_marker_is_drawn_at_random_not_fixed_to_the_tile():
    firsts = Counter(tuple(doubles_duel(seed).revealed.task.types) for seed in range(60))
    assert set(firsts) == set(DOUBLE_PAIRS)
    assert min(firsts.values()) >= 8  # roughly one in three each
    # With the real set: the same double tile gets different markers in different games.
    by_tile: dict[int, set[tuple[str, ...]]] = {}
    for seed in range(40):
        state = play_first_legal(DuelGame(seed=seed).new_state())
        for t in state.turns:
            if t.revealed.task is not None and t.revealed.task.type == "double":
                by_tile.setdefault(t.revealed.tile_id, set()).add(t.revealed.task.types)
    assert any(len(pairs) > 1 for pairs in by_tile.values())


# --- 27. No tie-breaker -------------------------------------------------------------------------


def mirrored_game(seed: int) -> DuelState:
    """Both players place every tile at the same place: identical areas."""
    state = DuelGame(seed=seed).new_state()
    rng = random.Random(seed)
    while not state.is_over:
        legal = state.legal_placements(0)
        placement = legal[rng.randrange(len(legal))]
        state.play(placement, 0)
        state.play(placement, 1)
    return state


@pytest.mark.parametrize("seed", [1, 5])
def test_rule_27_equal_totals_share_the_win(seed):
    state = mirrored_game(seed)
    one, two = state.scores()
    assert one == two
    assert state.winner() is None
    record = record_of(state)
    assert record["winner"] is None
    assert record["score"][0]["total"] == record["score"][1]["total"]


def random_game(seed: int) -> DuelState:
    rng = random.Random(seed)
    state = DuelGame(seed=seed).new_state()
    while not state.is_over:
        waiting = state.to_move()
        player = waiting[rng.randrange(len(waiting))]
        legal = state.legal_placements(player)
        state.play(legal[rng.randrange(len(legal))], player)
    return state


def test_rule_27_equal_totals_from_different_pads_share_the_win_and_higher_totals_win():
    shared = won = 0
    for seed in range(80):
        state = random_game(seed)
        one, two = state.scores()
        if one.total == two.total:
            assert state.winner() is None
            if dataclasses.asdict(one) != dataclasses.asdict(two):
                shared += 1  # no tie-breaker looks at tasks, flags, river or track
        else:
            assert state.winner() == (0 if one.total > two.total else 1)
            won += 1
        if shared >= 2 and won >= 2:
            break
    assert shared >= 2 and won >= 2


# --- 28. No modules ----------------------------------------------------------------------------


def test_rule_28_the_duel_set_holds_no_module_content():
    duel = load_tileset("duel")
    assert {t.kind for t in duel.tiles} == {LANDSCAPE, TASK}
    assert {t.task for t in duel.task_tiles} == {*SIMPLE_TYPES, "double"}
    assert all(set(t.face) <= set("FGVMRT") for t in duel.tiles)  # no points of interest, lakes, peaks
    assert all(t.value is None for t in duel.tiles)  # values come from the markers
    assert set(duel.markers) == set(SIMPLE_TYPES)  # no task cards


def test_rule_28_the_score_pad_has_only_tasks_flags_track_river_and_total():
    state = play_first_legal(DuelGame(seed=2).new_state())
    pad = state.scores()[0]
    assert [f.name for f in dataclasses.fields(pad)] == [
        "tasks",
        "flags",
        "longest_track",
        "longest_river",
        "task_list",
    ]
    doc = pad.as_json()
    assert set(doc) == {"tasks", "flags", "longest_river", "longest_track", "total", "task_list"}
    assert list(doc["tasks"]) == [
        "forest",
        "grain",
        "village",
        "river",
        "track",
        "connection",
        "double",
    ]
    assert list(doc["flags"]) == ["forest", "grain", "village"]
    assert doc["total"] == (
        sum(doc["tasks"].values()) + sum(doc["flags"].values()) + doc["longest_river"] + doc["longest_track"]
    )
    text = "\n".join(pad.lines()).lower()
    assert "module" not in text and "card" not in text and "interest" not in text
