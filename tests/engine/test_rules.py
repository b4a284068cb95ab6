"""One named test per rules decision (rules-decisions.md items 1 to 16) and per
worked example of the rulebooks, each on a board built by hand.

Expected values are worked out from the rules, not read from the engine.  Boards
use rotation 0 where they can, so a face reads as its edges by direction
(N, NE, SE, S, SW, NW); see tests/boards.py.
"""

from __future__ import annotations

import random
from collections import Counter

import pytest

from boards import (
    END_GAME,
    END_GAME_SCORE,
    at,
    build,
    by_place,
    group_of,
    play,
    status,
    tile,
    tileset,
)
from dorf.formats.record import record_of
from dorf.games.coop import CoopGame
from dorf.rules.area import IllegalPlacement, PlayArea
from dorf.rules.hexgrid import Hex
from dorf.rules.scoring import score_coop
from dorf.rules.tasks import TaskSpec
from dorf.rules.tiles import load_tileset

# --- boards shared by several rules ------------------------------------------------------

# A forest chain running south from [0, 0]: forest edges only N and S.
CHAIN_START = "MMMFMM"  # forest to the south only
CHAIN_LINK = "FMMFMM"  # forest north and south
CHAIN_END = "FMMMMM"  # forest to the north only


def chain(value: int, length: int, *, close: bool = False, task_at: int = 0) -> list:
    """A forest chain of ``length`` tiles down column q=0 with a forest task on tile ``task_at``.

    The last tile closes the forest when ``close`` (it has no south forest edge)."""
    faces = [CHAIN_START] + [CHAIN_LINK] * (length - 1)
    if close:
        faces[-1] = CHAIN_END
    out: list = []
    for r, face in enumerate(faces):
        out.append(tile(face, 0, r, task=("forest", value)) if r == task_at else (face, 0, r))
    return out


def merge_board(value: int) -> list:
    """Two forests of 2 tiles, [0,0]+[0,1] (a forest task ``value`` on [0,0]) and
    [0,3]+[0,4], with [0,2] still empty between them; meadows at [1,1], [1,2] hold
    the area together.  A FMMFMM tile at [0,2] joins them into one closed forest of
    2 + 1 + 2 = 5 tiles."""
    return [
        tile(CHAIN_START, 0, 0, task=("forest", value)),
        (CHAIN_LINK, 0, 1),
        ("MMMMMM", 1, 1),
        ("MMMMMM", 1, 2),
        (CHAIN_LINK, 0, 3),
        (CHAIN_END, 0, 4),
    ]


def meadow_ring(*cells: tuple[int, int]) -> list:
    """Meadow tiles on every empty neighbour of ``cells``, in a fixed order."""
    taken = set(cells)
    out = []
    for q, r in cells:
        for n in Hex(q, r).neighbours():
            if (n.q, n.r) not in taken:
                taken.add((n.q, n.r))
                out.append(("MMMMMM", n.q, n.r))
    return out


def pad(area: PlayArea):
    return score_coop(area)


# --- 1. Territory -------------------------------------------------------------------------


def test_rule_01_territory_counts_tiles_not_edges():
    # MFMFMF: one forest area with three separate edges (NE, S, NW); a forest tile
    # meets each of them.  Six forest edges meet, the territory has four tiles.
    area = build(
        tile("MFMFMF", 0, 0, task=("forest", 4)),
        ("MMMMFM", 1, -1),  # its SW forest edge meets the centre's NE
        ("FMMMMM", 0, 1),  # its N meets the centre's S
        ("MMFMMM", -1, 0),  # its SE meets the centre's NW
    )
    assert group_of(area, 0, 0, "F") == (4, True)
    assert sorted(area.group(Hex(0, 0), "F").cells) == sorted([Hex(0, 0), Hex(1, -1), Hex(0, 1), Hex(-1, 0)])
    assert status(area, 0, 0) == "completed"  # a forest 4 task: four tiles, not six edges
    assert pad(area).tasks["forest"] == 4


def test_rule_01_tiles_joined_by_several_edges_count_once():
    # Three all-forest tiles in a triangle: three shared edges, three tiles.
    area = build(("FFFFFF", 0, 0), ("FFFFFF", 1, -1), ("FFFFFF", 1, 0))
    g = area.group(Hex(0, 0), "F")
    assert g.size == 3
    assert g.open_edges == 3 * 6 - 3 * 2
    assert len(area.groups("F")) == 1


def test_rule_01_a_tile_filling_a_hole_joins_its_territory_once():
    # Six forest tiles around the empty cell [1,-1] are one forest (each touches the
    # next); a forest tile in the hole meets it on six edges and adds one tile: 7.
    ring = [(0, 0), (1, 0), (2, -1), (2, -2), (1, -2), (0, -1)]
    area = build(*[("FFFFFF", q, r) for q, r in ring])
    assert group_of(area, 0, 0, "F") == (6, False)
    assert area.group(Hex(0, 0), "F").open_edges == 6 * 4  # 2 to the ring, 3 out, 1 to the hole
    # As a new task tile: forest 7 is exactly reached, forest 6 is already too large.
    assert area.why_illegal("FFFFFF", at(1, -1), TaskSpec("forest", 6)) is not None
    area.play("FFFFFF", at(1, -1), task=TaskSpec("forest", 7))
    assert group_of(area, 1, -1, "F") == (7, False)
    assert area.group(Hex(0, 0), "F").open_edges == 6 * 3
    assert status(area, 1, -1) == "completed"


def test_rule_01_different_terrains_touch_without_joining():
    area = build(("FFFFFF", 0, 0), ("GGGGGG", 0, -1), ("VVVVVV", 1, -1), ("FFFFFF", 1, -2))
    # The two forests touch only grain and village: two forests of one tile.
    assert group_of(area, 0, 0, "F") == (1, False)
    assert group_of(area, 1, -2, "F") == (1, False)
    assert group_of(area, 0, -1, "G") == (1, False)
    assert group_of(area, 1, -1, "V") == (1, False)
    assert sorted(g.size for g in area.groups()) == [1, 1, 1, 1]


def test_rule_01_meadow_never_forms_a_territory():
    area = build(("MMMMMM", 0, 0), ("MMMMMM", 0, 1), ("MFMMMM", 1, 0))
    assert [g.letter for g in area.groups()] == ["F"]


# --- 2. Closed ----------------------------------------------------------------------------


def test_rule_02_an_edge_facing_any_tile_is_covered():
    area = build(tile("FMMMMM", 0, 0, flag="forest"))
    assert group_of(area, 0, 0, "F") == (1, False)
    play(area, ("GGGGGG", 0, -1))  # grain against the forest edge: covered all the same
    assert group_of(area, 0, 0, "F") == (1, True)
    assert pad(area).flags["forest"] == 1


def test_rule_02_a_territory_with_one_edge_facing_empty_space_is_open():
    area = build(tile("FMMFMM", 0, 0, flag="forest"), ("GGGGGG", 0, -1), ("MMMMMM", 1, 0))
    g = area.group(Hex(0, 0), "F")
    assert (g.size, g.open_edges, g.closed) == (1, 1, False)
    assert pad(area).flags["forest"] == 0


def test_rule_02_river_and_track_close_like_territories():
    area = build(("MMMRMM", 0, 0), ("RMMMMM", 0, 1))
    assert group_of(area, 0, 0, "R") == (2, True)
    area = build(("MMMTMM", 0, 0), ("TMMTMM", 0, 1))
    assert group_of(area, 0, 0, "T") == (2, False)


# --- 3. Tasks are exact ---------------------------------------------------------------------


def test_rule_03_task_completes_at_exactly_n_and_stays_completed():
    area = build(*chain(4, 3))
    assert status(area, 0, 0) == "open"
    play(area, (CHAIN_LINK, 0, 3))  # four tiles, still open to the south
    assert group_of(area, 0, 0, "F") == (4, False)
    assert status(area, 0, 0) == "completed"
    play(area, (CHAIN_LINK, 0, 4))
    play(area, (CHAIN_END, 0, 5))  # six tiles, closed
    assert group_of(area, 0, 0, "F") == (6, True)
    assert status(area, 0, 0) == "completed"
    assert pad(area).tasks["forest"] == 4


def test_rule_03_jumping_past_n_fails_instead_of_completing():
    # "reaches or exceeds" would complete it; exact says it fails.
    area = build(*merge_board(4))
    assert status(area, 0, 0) == "open"
    play(area, (CHAIN_LINK, 0, 2))  # 2 + 1 + 2 = 5 tiles in one placement
    assert group_of(area, 0, 0, "F") == (5, True)
    assert status(area, 0, 0) == "failed"
    assert pad(area).tasks["forest"] == 0


# --- 4. Failing, completion first -----------------------------------------------------------


def test_rule_04_completion_checked_before_closing():
    area = build(*chain(4, 4, close=True))  # the fourth tile makes 4 and closes
    assert group_of(area, 0, 0, "F") == (4, True)
    assert status(area, 0, 0) == "completed"
    assert pad(area).tasks["forest"] == 4


def test_rule_04_completion_checked_before_closing_a_track():
    area = build(
        tile("MMMTMM", 0, 0, task=("track", 5)),
        ("TMMTMM", 0, 1),
        ("TMMTMM", 0, 2),
        ("TMMTMM", 0, 3),
        ("TMMMMM", 0, 4),
    )
    assert group_of(area, 0, 0, "T") == (5, True)
    assert status(area, 0, 0) == "completed"


def test_rule_04_closing_smaller_than_n_fails():
    area = build(*chain(5, 4, close=True))
    assert group_of(area, 0, 0, "F") == (4, True)
    assert status(area, 0, 0) == "failed"
    assert pad(area).tasks["forest"] == 0


def test_rule_04_covering_with_a_meadow_closes_and_fails():
    area = build(tile("FMMMMM", 0, 0, task=("forest", 4)))
    play(area, ("MMMMMM", 0, -1))
    assert status(area, 0, 0) == "failed"


def test_rule_04_a_river_closed_short_fails():
    area = build(tile("MMMRMM", 0, 0, task=("river", 4)), ("RMMMMM", 0, 1))
    assert group_of(area, 0, 0, "R") == (2, True)
    assert status(area, 0, 0) == "failed"


def test_rule_04_growing_larger_than_n_fails_even_while_open():
    # Forest 4 task on two tiles; a second open forest of two tiles; a tile joins
    # both: five tiles, still open.
    area = build(
        tile("MMMFMM", 0, 0, task=("forest", 4)),
        ("FMMFMM", 0, 1),
        ("MMMMMM", 1, 1),
        ("MMMMMM", 1, 2),
        ("FMMFMM", 0, 3),
        ("FMMFMM", 0, 4),
    )
    play(area, ("FMMFMM", 0, 2))
    assert group_of(area, 0, 0, "F") == (5, False)
    assert status(area, 0, 0) == "failed"


# --- 5. A new task tile may not make its own task impossible ---------------------------------


def test_rule_05_new_task_may_not_close_its_territory_short():
    area = build(*merge_board(4))
    task = TaskSpec("forest", 6)
    reason = area.why_illegal(CHAIN_LINK, at(0, 2), task)
    assert reason is not None and "5" in reason and "6" in reason
    with pytest.raises(IllegalPlacement):
        area.play(CHAIN_LINK, at(0, 2), task=task)
    assert at(0, 2, 0) not in area.legal_placements(CHAIN_LINK, task)
    # A rotation that keeps its forest apart and open is allowed (older forests may close).
    assert at(0, 2, 1) in area.legal_placements(CHAIN_LINK, task)
    # Nothing changed.
    assert len(area) == 6
    assert status(area, 0, 0) == "open"


def test_rule_05_new_task_may_not_start_larger_than_its_value():
    area = build(*merge_board(6))
    task = TaskSpec("forest", 4)
    reason = area.why_illegal(CHAIN_LINK, at(0, 2), task)
    assert reason is not None and "5" in reason and "4" in reason
    with pytest.raises(IllegalPlacement):
        area.play(CHAIN_LINK, at(0, 2), task=task)
    assert at(0, 2, 0) not in area.legal_placements(CHAIN_LINK, task)


def test_rule_05_new_task_may_complete_at_once_while_older_tasks_fail():
    area = build(*merge_board(4))
    area.play(CHAIN_LINK, at(0, 2), task=TaskSpec("forest", 5))  # exactly 5 and closed
    assert status(area, 0, 2) == "completed"
    assert status(area, 0, 0) == "failed"  # the older forest 4 went past its number
    assert pad(area).tasks["forest"] == 5


def test_rule_05_a_landscape_tile_may_make_an_older_task_fail():
    area = build(*merge_board(6))
    area.play(CHAIN_LINK, at(0, 2))  # closes the forest at 5 < 6: legal, the task fails
    assert status(area, 0, 0) == "failed"


# --- 6. Several tasks ---------------------------------------------------------------------------


def test_rule_06_one_placement_completes_two_tasks_in_one_territory():
    area = build(
        tile(CHAIN_START, 0, 0, task=("forest", 4)),
        tile(CHAIN_LINK, 0, 1, task=("forest", 4)),  # a second task in the same forest
        (CHAIN_LINK, 0, 2),
    )
    assert [t.status.value for t in area.tasks] == ["open", "open"]
    play(area, (CHAIN_END, 0, 3))
    assert [t.status.value for t in area.tasks] == ["completed", "completed"]
    assert pad(area).tasks["forest"] == 8


def test_rule_06_one_placement_completes_one_task_and_fails_another():
    area = build(
        tile(CHAIN_START, 0, 0, task=("forest", 4)),
        tile(CHAIN_LINK, 0, 1, task=("forest", 5)),
        (CHAIN_LINK, 0, 2),
        (CHAIN_END, 0, 3),  # four tiles, closed
    )
    assert status(area, 0, 0) == "completed"
    assert status(area, 0, 1) == "failed"
    assert pad(area).tasks["forest"] == 4


def test_rule_06_one_placement_settles_tasks_of_two_terrains():
    area = build(
        tile(CHAIN_START, 0, 0, task=("forest", 4)),
        (CHAIN_LINK, 0, 1),
        (CHAIN_LINK, 0, 2),
        tile("MRMMRM", 1, 2, task=("river", 4)),  # river NE and SW
        ("MMMMRM", 2, 1),  # river SW: the river has 2 tiles, open towards [0, 3]
    )
    # Forest to the north (4th forest tile, closed), river to the NE (3rd river tile, closed).
    play(area, ("FRMMMM", 0, 3))
    assert group_of(area, 0, 0, "F") == (4, True)
    assert group_of(area, 1, 2, "R") == (3, True)
    assert status(area, 0, 0) == "completed"
    assert status(area, 1, 2) == "failed"


# --- 7. Rivers and tracks meet their own kind ----------------------------------------------------


def test_rule_07_rivers_and_tracks_must_meet_their_own_kind():
    # River against forest, either way round.
    area = build(("RMMMMM", 0, 0))
    assert area.why_illegal("MMMFMM", at(0, -1)) is not None
    assert area.why_illegal("MMMTMM", at(0, -1)) is not None  # track against river
    assert area.why_illegal("MMMMMM", at(0, -1)) is not None  # meadow against river
    assert area.why_illegal("MMMRMM", at(0, -1)) is None
    area = build(("FMMMMM", 0, 0))
    assert area.why_illegal("MMMRMM", at(0, -1)) is not None
    with pytest.raises(IllegalPlacement, match="river"):
        area.play("MMMRMM", at(0, -1))
    area = build(("TMMMMM", 0, 0))
    assert area.why_illegal("MMMRMM", at(0, -1)) is not None
    assert area.why_illegal("MMMTMM", at(0, -1)) is None


def test_rule_07_every_touching_edge_must_match():
    # [0,-1] touches the river's end (S) and a meadow tile at [1,-1] (SE).
    area = build(("RMMMMM", 0, 0), ("MMMMMM", 1, -1))
    assert area.why_illegal("MMMRMM", at(0, -1)) is None
    assert area.why_illegal("MMRRMM", at(0, -1)) is not None  # its SE river would face meadow
    # A river edge facing empty space is fine: it stays open.
    assert area.why_illegal("RMMRMM", at(0, -1)) is None


def test_rule_07_count_of_legal_placements_next_to_a_river_end():
    # One RMMMMM tile (river north).  Another RMMMMM: at [0,-1] only the rotation that
    # points its river south (1); at the five other neighbours any rotation that does
    # not point its river at the first tile's meadow (5 each): 1 + 5 * 5 = 26.
    area = build(("RMMMMM", 0, 0))
    placements = area.legal_placements("RMMMMM")
    assert len(placements) == 26
    assert [p for p in placements if p.at == Hex(0, -1)] == [at(0, -1, 3)]


def test_rule_07_other_terrains_touch_freely():
    area = build(("FFFFFF", 0, 0))
    for face in ("GGGGGG", "VVVVVV", "MMMMMM", "FFFFFF", "GMVMFM"):
        assert len(area.legal_placements(face)) == 6 * len(set(PlayArea().legal_placements(face)))


def test_rule_07_lakes_and_mountains_must_meet_their_own_kind():
    area = build(("LMMMMM", 0, 0), ("PMMMMM", 1, 0))
    assert area.why_illegal("MMMLMM", at(0, -1)) is None
    assert area.why_illegal("MMMPMM", at(0, -1)) is not None
    assert area.why_illegal("MMMRMM", at(0, -1)) is not None
    assert area.why_illegal("MMMMMM", at(0, -1)) is not None
    assert area.why_illegal("MMMPMM", at(1, -1)) is None
    assert area.why_illegal("MMMLMM", at(1, -1)) is not None


# --- 8. Longest river and track -------------------------------------------------------------------


def test_rule_08_longest_river_is_the_largest_network_in_tiles_open_or_closed():
    # A river branching three ways from [0,0] (N, SE, SW), each arm one open tile:
    # four tiles in one network, although no path along it has more than three.
    area = build(
        ("RMRMRM", 0, 0),
        ("RMMRMM", 0, -1),
        ("MMRMMR", 1, 0),
        ("MRMMRM", -1, 1),
    )
    assert group_of(area, 0, 0, "R") == (4, False)
    assert area.longest_river == 4
    # A separate closed river of two tiles is not added to it.
    play(area, ("RMMMMM", 1, -1))
    play(area, ("MMMRMM", 1, -2))
    assert group_of(area, 1, -1, "R") == (2, True)
    assert area.longest_river == 4
    assert pad(area).longest_river == 4
    assert pad(area).longest_track == 0


def test_rule_08_a_tile_counts_for_river_and_track_at_once():
    area = build(
        ("RTMRTM", 0, 0),  # river N-S, track NE-SW
        ("MMMRMM", 0, -1),
        ("RMMMMM", 0, 1),
        ("MMMMTM", 1, -1),
        ("MTMMMM", -1, 1),
    )
    assert group_of(area, 0, 0, "R") == (3, True)
    assert group_of(area, 0, 0, "T") == (3, True)
    p = pad(area)
    assert (p.longest_river, p.longest_track) == (3, 3)
    assert p.s2 == 6 and p.total == 6


# --- 9. Flags ---------------------------------------------------------------------------------------


def test_rule_09_flag_scores_its_closed_territory():
    area = build(tile("MFFFFF", 0, 0, flag="forest"))
    assert pad(area).flags["forest"] == 0  # open
    for item in meadow_ring((0, 0)):
        play(area, item)
    assert group_of(area, 0, 0, "F") == (1, True)
    assert pad(area).flags == {"forest": 1, "grain": 0, "village": 0}


def test_rule_09_several_flags_in_one_closed_territory_each_score():
    area = build(tile("MFFFFF", 0, 0, flag="forest"), tile("FFFFFF", 0, 1, flag="forest"))
    for item in meadow_ring((0, 0), (0, 1)):
        play(area, item)
    assert group_of(area, 0, 0, "F") == (2, True)
    assert pad(area).flags["forest"] == 2 + 2
    assert pad(area).total == 4


@pytest.mark.parametrize(("face", "flag"), [("GGGGGM", "grain"), ("VVVVVM", "village")])
def test_rule_09_flags_score_by_colour(face, flag):
    area = build(tile(face, 0, 0, flag=flag), *meadow_ring((0, 0)))
    assert pad(area).flags == {"forest": 0, "grain": 0, "village": 0, flag: 1}


def test_rule_09_a_flag_scores_its_own_territory_not_the_tiles_other():
    # Forest to the north, grain to the NE; only the forest gets closed.
    for flag, expected in (("forest", 1), ("grain", 0)):
        area = build(tile("FGMMMM", 0, 0, flag=flag), ("MMMMMM", 0, -1))
        assert group_of(area, 0, 0, "F") == (1, True)
        assert group_of(area, 0, 0, "G") == (1, False)
        assert sum(pad(area).flags.values()) == expected


# --- 10. No legal placement: the tile is set aside -------------------------------------------------


def _rivers_then_forests():
    # Three river task tiles, then only all-forest landscapes: nothing fits beside a river.
    return tileset(["FFFFFF"] * 5, ["RRRRRR river"] * 3, {"river": [6, 6, 6]})


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_rule_10_a_landscape_tile_that_fits_nowhere_is_set_aside(seed):
    state = CoopGame(seed=seed, tileset=_rivers_then_forests()).new_state()
    for _ in range(3):
        assert state.revealed.tile.is_task
        state.play(state.legal_placements()[0])
    # 5 landscapes - 3 removed = 2; both revealed, both set aside, then none left.
    assert state.is_over
    assert [t.number for t in state.turns] == [1, 2, 3, 4, 5]
    assert [t.set_aside for t in state.turns] == [False, False, False, True, True]
    assert all(not t.revealed.tile.is_task for t in state.turns[3:])
    assert all(t.placement is None for t in state.turns[3:])
    assert len(state.area) == 3
    assert state.landscapes_left() == 0
    assert record_of(state)["set_aside"] == [4, 5]
    assert state.score().longest_river == 3


def _forest_tasks_of_four():
    return tileset(["FFFFFF"] * 5, ["FFFFFF forest"] * 5, {"forest": [4, 4, 4, 4, 4]})


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_rule_10_a_task_tile_that_fits_nowhere_is_set_aside_and_reveals_go_on(seed):
    state = CoopGame(seed=seed, players=3, tileset=_forest_tasks_of_four()).new_state()
    for _ in range(3):  # turns 1-3: task tiles, one forest of 1, 2, 3 tiles
        assert state.revealed.tile.is_task
        state.play(state.legal_placements()[0])
    assert len(state.area.active_tasks()) == 3
    assert not state.revealed.tile.is_task  # turn 4: three active tasks, a landscape
    state.play(state.legal_placements()[0])  # the forest has 4 tiles: three tasks completed
    assert [t.status.value for t in state.area.tasks] == ["completed"] * 3
    # Turns 5 and 6: task tiles (fewer than 3 active) that fit nowhere, since any
    # placement makes the forest 5 > 4.  Both set aside, their markers unused.
    assert [t.set_aside for t in state.turns[4:6]] == [True, True]
    assert all(t.revealed.tile.is_task for t in state.turns[4:6])
    # Turn 7: the task stack is empty, so a landscape although no task is active.
    assert state.turn == 7
    assert not state.revealed.tile.is_task
    assert state.task_tiles_left() == 0
    state.play(state.legal_placements()[0])
    assert state.is_over  # a landscape is needed and none is left
    assert len(state.area) == 5
    assert len(state.area.tasks) == 3
    assert state.score().tasks["forest"] == 12
    assert record_of(state)["set_aside"] == [5, 6]
    # Set-aside turns take their turn in the rotation (3 players).
    assert [t.player for t in state.turns] == [0, 1, 2, 0, 1, 2, 0]


# --- 11. The first tile -----------------------------------------------------------------------------


def test_rule_11_first_tile_is_placed_freely_at_the_origin():
    empty = PlayArea()
    assert empty.frontier() == [Hex(0, 0)]
    assert empty.legal_placements("RMMRMM") == [at(0, 0, 0), at(0, 0, 1), at(0, 0, 2)]
    # Any rotation of any tile, a task tile too: nothing to touch or match yet.
    for k in range(6):
        assert PlayArea().why_illegal("RTMRTM", at(0, 0, k)) is None
        assert PlayArea().why_illegal("FFFFRR", at(0, 0, k), TaskSpec("river", 6)) is None
    # It becomes [0, 0]: a first tile elsewhere is refused.
    with pytest.raises(IllegalPlacement):
        PlayArea().play("FFFFFF", at(2, -1))


def test_rule_11_first_tile_of_a_game_goes_at_the_origin():
    state = CoopGame(seed=5).new_state()
    placements = state.legal_placements()
    assert placements and {p.at for p in placements} == {Hex(0, 0)}


# --- 12. Set-up -----------------------------------------------------------------------------------


def _play_out(seed: int, players: int = 1):
    """A whole base game with seeded random choices; checks rules 12-14 at each reveal."""
    state = CoopGame(seed=seed, players=players).new_state()
    rng = random.Random(seed)
    checked = 0
    tasks_revealed = landscapes_revealed = 0
    while True:
        active = len(state.area.active_tasks())
        for turn in state.turns[checked:]:
            # Rule 13: a task tile in turns 1-3 or while fewer than 3 are active, as
            # long as the task stack lasts; a landscape otherwise.
            want_task = tasks_revealed < 25 and (turn.number <= 3 or active < 3)
            assert turn.revealed.tile.is_task == want_task, (seed, turn.number, active)
            if want_task:
                tasks_revealed += 1
                assert turn.revealed.task.type == turn.revealed.tile.task  # rule 12
            else:
                landscapes_revealed += 1
            checked += 1
        if state.is_over:
            # Rule 14: over only when a landscape is needed and none is left.
            assert not (tasks_revealed < 25 and (len(state.turns) + 1 <= 3 or active < 3))
            assert landscapes_revealed == 45 and state.landscapes_left() == 0
            return state
        options = state.legal_placements()
        state.play(options[rng.randrange(len(options))])


def test_rule_12_setup_removes_three_landscapes_unseen():
    base = load_tileset()
    state = CoopGame(seed=11).new_state()
    assert state.landscapes_left() == 48 - 3
    assert state.task_tiles_left() == 25 - 1  # one revealed for turn 1
    view = state.view()
    # The three removed tiles are still unseen: nothing tells them from the stack.
    assert sum(1 for t in view.unseen if not t.is_task) == 48
    assert len(view.unseen) == len(base.tiles) - 1


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_rule_12_a_whole_game_uses_45_landscapes_and_3_stay_in_the_box(seed):
    state = _play_out(seed)
    base = load_tileset()
    landscape_ids = {i for i, t in enumerate(base.tiles) if not t.is_task}
    revealed = [t.revealed.tile_id for t in state.turns if not t.revealed.tile.is_task]
    assert len(revealed) == len(set(revealed)) == 45
    assert len(landscape_ids - set(revealed)) == 3


def test_rule_12_removed_landscapes_depend_on_the_seed():
    base = load_tileset()
    landscape_ids = {i for i, t in enumerate(base.tiles) if not t.is_task}
    removed = set()
    for seed in (1, 2, 3):
        state = _play_out(seed)
        seen = {t.revealed.tile_id for t in state.turns}
        removed.add(frozenset(landscape_ids - seen))
    assert len(removed) > 1


def test_rule_12_markers_drawn_at_random_from_piles_of_4_5_5_6_6():
    pile = Counter({4: 1, 5: 2, 6: 2})
    first_values = set()
    for seed in range(4):
        state = _play_out(seed)
        drawn: dict[str, Counter[int]] = {}
        for t in state.turns:
            if t.revealed.task is not None:
                drawn.setdefault(t.revealed.task.type, Counter())[t.revealed.task.value] += 1
        for kind, values in drawn.items():
            assert not values - pile, (seed, kind, values)
    for seed in range(30):
        first_values.add(CoopGame(seed=seed).new_state().revealed.task.value)
    assert first_values == {4, 5, 6}


# --- 13. Reveal order ------------------------------------------------------------------------------


@pytest.mark.parametrize("seed", [4, 5, 6, 7])
def test_rule_13_reveal_task_tiles_first_then_by_active_count(seed):
    state = _play_out(seed)
    assert all(t.revealed.tile.is_task for t in state.turns[:3])


def test_rule_13_landscapes_only_once_the_task_stack_is_empty():
    # Covered step by step in the set-aside game: with no task tile left and no
    # task active, turn 7 reveals a landscape.
    state = CoopGame(seed=3, tileset=_forest_tasks_of_four()).new_state()
    while state.task_tiles_left() or state.revealed.tile.is_task:
        state.play(state.legal_placements()[0])
    assert state.area.active_tasks() == []
    assert not state.revealed.tile.is_task


# --- 14. End --------------------------------------------------------------------------------------


def _one_landscape_game(seed=0):
    """Six forest task tiles FMMMMM (markers all 4) and 4 meadow landscapes (1 after removal).

    Turns 1-3 place three separate one-tile forests, each open: three active tasks."""
    ts = tileset(["MMMMMM"] * 4, ["FMMMMM forest"] * 6, {"forest": [4] * 6})
    state = CoopGame(seed=seed, tileset=ts).new_state()
    state.play(at(0, 0, 0))  # forest edge N, open
    state.play(at(0, 1, 3))  # forest edge S, open
    state.play(at(1, 0, 1))  # forest edge NE, open
    assert len(state.area.active_tasks()) == 3
    assert not state.revealed.tile.is_task and state.landscapes_left() == 0
    return state


def test_rule_14_game_ends_when_a_landscape_is_needed_and_none_is_left():
    state = _one_landscape_game()
    state.play(at(-1, 0))  # the last landscape touches no forest edge: nothing changes
    assert state.is_over
    assert state.revealed is None and state.legal_placements() == []
    assert state.turn == 4
    assert state.task_tiles_left() == 3  # unrevealed task tiles are not used


def test_rule_14_task_tiles_are_revealed_after_the_last_landscape_if_a_task_failed():
    state = _one_landscape_game()
    state.play(at(0, -1))  # the last landscape closes the forest at [0,0]: task failed
    assert status(state.area, 0, 0) == "failed"
    assert not state.is_over
    assert state.revealed.tile.is_task  # 2 active: the game goes on with a task tile
    state.play(at(-1, 0, 5))  # forest edge NW, open: 3 active again
    assert state.is_over
    assert state.turn == 5
    assert state.task_tiles_left() == 2


def test_rule_14_task_tiles_keep_coming_while_tasks_keep_failing():
    state = _one_landscape_game()
    state.play(at(0, -1))  # last landscape: fails the task at [0,0]
    state.play(at(0, 2, 3))  # a task tile whose meadow closes the forest at [0,1]
    assert status(state.area, 0, 1) == "failed"
    assert not state.is_over and state.revealed.tile.is_task
    state.play(at(-1, 0, 5))
    assert state.is_over
    assert state.turn == 6
    assert [t.revealed.tile.is_task for t in state.turns] == [True, True, True, False, True, True]


@pytest.mark.parametrize("seed", [8, 9])
def test_rule_14_a_base_game_ends_on_the_landscape_stack(seed):
    state = _play_out(seed, players=2)
    assert state.is_over and state.revealed is None
    assert state.landscapes_left() == 0


# --- 15. Players ----------------------------------------------------------------------------------


@pytest.mark.parametrize("players", [1, 2, 3, 4, 5, 6])
def test_rule_15_one_to_six_players_take_turns_in_order(players):
    state = CoopGame(seed=21, players=players).new_state()
    for _ in range(8):
        assert state.player == (state.turn - 1) % players
        assert state.view().player == state.player
        assert state.view().players == players
        state.play(state.legal_placements()[0])
    assert [t.player for t in state.turns] == [(t.number - 1) % players for t in state.turns]
    # One shared play area and one shared score.
    assert len(state.area) == 8
    view = state.view()
    assert [(t.at, t.rot) for t in view.area.placed] == [(t.at, t.rot) for t in state.area.placed]


@pytest.mark.parametrize("players", [0, 7, -1])
def test_rule_15_player_count_outside_1_to_6_is_refused(players):
    with pytest.raises(ValueError):
        CoopGame(players=players)


# --- 16. Campaign boxes stay closed ------------------------------------------------------------------


def test_rule_16_campaign_boxes_stay_closed():
    base = load_tileset()
    assert len(base.tiles) == 73  # the base box only: nothing from the five boxes
    p = score_coop(build(*END_GAME))
    assert p.s3 == 0 and p.unlocked == 0
    assert p.total == p.s1 + p.s2


# --- Worked examples of the rulebooks ------------------------------------------------------------------


def test_example_forest_of_four_with_goal_5_completes_on_the_fifth_and_stays_on_the_sixth():
    # Guide, chapter 06: a forest of four tiles carries a goal 5.
    area = build(*chain(5, 4, task_at=1))
    assert group_of(area, 0, 0, "F") == (4, False)
    assert status(area, 0, 1) == "open"
    play(area, (CHAIN_LINK, 0, 4))  # a fifth forest tile joins: completed
    assert status(area, 0, 1) == "completed"
    play(area, (CHAIN_LINK, 0, 5))  # a sixth: the five points stay won
    assert group_of(area, 0, 0, "F") == (6, False)
    assert status(area, 0, 1) == "completed"
    assert pad(area).tasks["forest"] == 5


def _three_forest_tiles_and_a_meadow():
    # A forest of three tiles open only towards [0,3]; a meadow at [1,2] beside [0,3].
    return build((CHAIN_START, 0, 0), (CHAIN_LINK, 0, 1), (CHAIN_LINK, 0, 2), ("MMMMMM", 1, 2))


def test_example_objective_6_may_not_close_its_forest_at_four_tiles():
    area = _three_forest_tiles_and_a_meadow()
    task = TaskSpec("forest", 6)
    # FFMMMM at rot 0: forest N (joins the three) and NE (against the meadow): closed at 4.
    assert area.why_illegal("FFMMMM", at(0, 3, 0), task) is not None
    with pytest.raises(IllegalPlacement):
        area.play("FFMMMM", at(0, 3, 0), task=task)
    assert at(0, 3, 0) not in area.legal_placements("FFMMMM", task)


def test_example_objective_6_a_rotation_leaving_a_forest_edge_free_is_allowed():
    area = _three_forest_tiles_and_a_meadow()
    task = TaskSpec("forest", 6)
    # Rot 5: forest N (joins) and NW (faces empty space): four tiles, open.
    assert area.why_illegal("FFMMMM", at(0, 3, 5), task) is None
    assert at(0, 3, 5) in area.legal_placements("FFMMMM", task)
    area.play("FFMMMM", at(0, 3, 5), task=task)
    assert group_of(area, 0, 3, "F") == (4, False)
    assert status(area, 0, 3) == "open"
    # The check was for the new tile on arrival; a landscape may close it later (a failure).
    play(area, ("MMMMMM", -1, 3))
    assert status(area, 0, 3) == "failed"


def test_example_end_of_game_31_6_9_7_is_53():
    p = score_coop(build(*END_GAME))
    assert p.tasks == END_GAME_SCORE["tasks"]
    assert p.s1 == 31
    assert p.flags == {"forest": 6, "grain": 0, "village": 0}  # open field with flag: 0
    assert p.longest_track == 9
    assert p.longest_river == 7
    assert p.s2 == 6 + 9 + 7
    assert p.total == 31 + 6 + 9 + 7 == 53
    assert by_place(p.task_list) == by_place(END_GAME_SCORE["task_list"])


def test_example_flags_only_score_closed_territories():
    area = build(tile("MFFFFF", 0, 0, flag="forest"), *meadow_ring((0, 0))[:5])
    assert group_of(area, 0, 0, "F") == (1, False)  # one forest edge still faces empty space
    assert pad(area).flags["forest"] == 0
    play(area, meadow_ring((0, 0))[5])
    assert pad(area).flags["forest"] == 1


def test_example_several_flags_in_one_closed_territory_each_count_its_size():
    area = build(
        tile(CHAIN_START, 0, 0, flag="forest"),
        tile(CHAIN_LINK, 0, 1, flag="forest"),
        tile(CHAIN_END, 0, 2, flag="forest"),
    )
    assert group_of(area, 0, 0, "F") == (3, True)
    assert pad(area).flags["forest"] == 3 * 3


def test_example_longest_river_and_track_in_tiles_open_or_closed():
    # An open river of 4 tiles beats a closed one of 3; a track of 2 crosses the river.
    area = build(
        ("RMMRMM", 0, 0),
        ("RMMRMM", 0, 1),
        ("RTMRTM", 0, 2),  # river N-S, track NE-SW
        ("RMMRMM", 0, 3),  # open river: 4 tiles
        ("MMMMTM", 1, 1),  # track end, meets the crossing's NE
        ("MMMRMM", 2, 0),
        ("RMMMMM", 2, 1),  # a closed river of 2 tiles
    )
    assert group_of(area, 0, 0, "R") == (4, False)
    assert group_of(area, 0, 2, "T") == (2, False)
    assert group_of(area, 2, 0, "R") == (2, True)
    p = pad(area)
    assert (p.longest_river, p.longest_track) == (4, 2)
