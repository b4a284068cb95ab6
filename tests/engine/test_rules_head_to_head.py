"""Head to Head: one named test per rules decision (rules-decisions.md items 17 to 21),
the printed task values with the exact task rules at values 3 and 7, and the
rulebook's scoring example, each on boards and tile sets built by hand.

Expected values are worked out from the rules, not read from the engine.  Boards
use rotation 0 where they can, so a face reads as its edges by direction
(N, NE, SE, S, SW, NW); see tests/boards.py.  Players are 0 and 1 in the code,
"player 1" and "player 2" in the rules notes.
"""

from __future__ import annotations

import json
import random
from pathlib import Path

import pytest

from boards import at, build, group_of, play, status, tile
from dorf.cli import main
from dorf.formats.record import record_of
from dorf.games.headtohead import DRAFT, LAYING, OVER, HeadToHeadGame, HeadToHeadState, IllegalDecision, Pick
from dorf.rules.area import Placement, PlayArea
from dorf.rules.hexgrid import Hex
from dorf.rules.scoring import HeadToHeadScorePad, score_head_to_head
from dorf.rules.tasks import TaskSpec
from dorf.rules.tiles import LANDSCAPE, TASK, Tile, TileSet, load_tileset
from reference import RefBoard, RefTile

SCORING_EXAMPLE = Path(__file__).parent / "boards" / "head-to-head-scoring-example.json"

# --- hand-built tile sets -------------------------------------------------------------------

#: Ids 0 to 3 of every hand-built set: two flag tiles with a mountain half, two with a lake half.
#: Player 1 (0) gets ids 0 and 2, player 2 (1) ids 1 and 3.
FLAG_TILES = (
    Tile(LANDSCAPE, "XMMPPM", "X"),
    Tile(LANDSCAPE, "XMMPPM", "X"),
    Tile(LANDSCAPE, "XMMLLM", "X"),
    Tile(LANDSCAPE, "XMMLLM", "X"),
)
FIRST = len(FLAG_TILES)  # the id of the first drafted tile


def land(face: str) -> Tile:
    return Tile(LANDSCAPE, face)


def task_tile(face: str, kind: str, value: int) -> Tile:
    return Tile(TASK, face, task=kind, value=value)


def game(*tiles: Tile, seed: int = 0) -> HeadToHeadGame:
    """A game on the four flag tiles and ``tiles`` (ids FIRST, FIRST + 1, ...)."""
    return HeadToHeadGame(seed=seed, tileset=TileSet("hand-built", FLAG_TILES + tiles))


def draft(state: HeadToHeadState, *picks: int) -> None:
    """Pick ``picks`` in order, checking that players alternate from player 1 (rule 17)."""
    for number, tile_id in enumerate(picks):
        assert state.phase == DRAFT
        assert state.to_move() == (number % 2,)
        state.pick(tile_id)


def placed_at(state: HeadToHeadState, player: int, q: int, r: int) -> None:
    """Place ``player``'s revealed tile at [q, r], in its smallest legal rotation."""
    options = [p for p in state.legal_placements(player) if p.at == Hex(q, r)]
    assert options, f"player {player + 1}'s {state.revealed(player)} does not fit at [{q}, {r}]"
    state.play(options[0], player)


def territory_cells(area: PlayArea) -> set[Hex]:
    """Empty cells that a forest, grain, village or flag edge faces."""
    out = set()
    for t in area.placed:
        for d, letter in enumerate(t.edges):
            n = t.at.neighbour(d)
            if letter in "FGVX" and area.edges_at(n) is None:
                out.add(n)
    return out


def placed_away(state: HeadToHeadState, player: int) -> None:
    """Place ``player``'s revealed tile where it touches no territory or flag edge, so no task changes."""
    avoid = territory_cells(state.area(player))
    options = [p for p in state.legal_placements(player) if p.at not in avoid]
    assert options, f"player {player + 1}'s tile has only placements next to a territory"
    state.play(options[0], player)


def canonical(t: Tile) -> tuple[str, str, str, int]:
    """The order in which a view lists unseen tiles: it tells nothing of the stacks' order."""
    return t.kind, t.face, t.task or "", t.value or 0


def kinds(state: HeadToHeadState, player: int) -> list[str]:
    """'T' for each turn that revealed a task tile, 'L' for a landscape tile."""
    assert state.seats is not None
    return ["T" if t.revealed.tile.is_task else "L" for t in state.seats[player].turns]


# --- 17. Draft ------------------------------------------------------------------------------


def test_rule_17_the_full_box_drafts_59_open_tiles_29_to_player_1_and_30_to_player_2():
    tiles = load_tileset("head-to-head").tiles
    state = HeadToHeadGame(seed=3).new_state()
    flag_ids = {i for i, t in enumerate(tiles) if t.flag == "X"}
    assert len(flag_ids) == 4
    assert state.pool == [i for i in range(len(tiles)) if i not in flag_ids]
    assert len(state.pool) == 40 + 19
    rng = random.Random(3)
    picks = 0
    while state.phase == DRAFT:
        assert state.to_move() == (picks % 2,) and state.player == picks % 2
        assert len(state.owned[0]) == (picks + 1) // 2 and len(state.owned[1]) == picks // 2
        state.pick(rng.choice(state.pool))
        picks += 1
    assert picks == 58  # alternating until one tile remains
    assert (len(state.owned[0]), len(state.owned[1])) == (29, 30)
    assert state.pool == []
    assert sorted(state.owned[0] + state.owned[1]) == sorted(set(range(len(tiles))) - flag_ids)
    assert state.phase == LAYING and state.to_move() == (0, 1)


@pytest.mark.parametrize(("open_tiles", "sizes"), [(2, (1, 1)), (3, (1, 2)), (4, (2, 2)), (7, (3, 4))])
def test_rule_17_the_last_tile_goes_to_player_2(open_tiles, sizes):
    state = game(*[land("MMMMMM")] * open_tiles).new_state()
    picks = 0
    while state.phase == DRAFT:
        state.pick(state.pool[-1])  # take from the top: the lowest id is left over
        picks += 1
    assert picks == open_tiles - 1
    assert (len(state.owned[0]), len(state.owned[1])) == sizes
    assert state.owned[1][-1] == FIRST  # the tile left over, given without a pick
    assert [p for p, _ in state.history] == [n % 2 for n in range(picks)]


@pytest.mark.parametrize(("open_tiles", "owned"), [(0, ([], [])), (1, ([], [FIRST]))])
def test_rule_17_a_draft_that_starts_with_one_tile_left_gives_it_to_player_2_at_once(open_tiles, owned):
    state = game(*[land("MMMMMM")] * open_tiles).new_state()
    if open_tiles == 1 and state.phase == DRAFT:
        state.pick(FIRST)  # what the engine asks for now: player 1 takes it, then nothing moves
    assert state.phase == LAYING, (state.phase, state.to_move(), state.legal_picks())
    assert (state.owned[0], state.owned[1]) == owned


def test_rule_17_players_choose_task_or_landscape_tiles_freely():
    # Player 1 takes only task tiles, player 2 only landscape tiles.
    state = game(*[task_tile("FMMMMM", "forest", 3)] * 3, *[land("MMMMMM")] * 4).new_state()
    draft(state, 4, 7, 5, 8, 6, 9)
    assert state.owned == ([4, 5, 6], [7, 8, 9, 10])
    left = state.view(0).stacks_left
    # Player 1: 3 task tiles, one revealed for turn 1; 2 flag tiles.  Player 2: no task tile.
    assert left == ((2, 2), (0, 6 - 1))
    assert state.revealed(0).tile.is_task and not state.revealed(1).tile.is_task


def test_rule_17_each_player_has_a_mountain_flag_and_a_lake_flag_in_their_landscape_stack():
    state = game(*[task_tile("FMMMMM", "forest", 3)] * 6, *[land("MMMMMM")] * 6).new_state()
    assert state.flags == ((0, 2), (1, 3))
    assert not {0, 1, 2, 3} & set(state.pool)  # flag tiles are not drafted
    for p in (0, 1):
        faces = sorted(state.game.tileset.tiles[i].face for i in state.flags[p])
        assert faces == ["XMMLLM", "XMMPPM"]
    draft(state, *range(FIRST, FIRST + 11))
    # Turn 1 revealed a task tile: every landscape tile, flags included, is still in the stack.
    for p in (0, 1):
        landscapes = [i for i in state.owned[p] if not state.game.tileset.tiles[i].is_task]
        assert state.view(p).stacks_left[p][1] == len(landscapes) + 2
        unseen = [t.face for t in state.unseen(p)]
        assert unseen.count("XMMPPM") == 1 and unseen.count("XMMLLM") == 1
    # Play both games out: each player reveals their own two flag tiles, and only those.
    while not state.is_over:
        p = state.to_move()[0]
        placed_away(state, p)
    for p in (0, 1):
        revealed = {t.revealed.tile_id for t in state.seats[p].turns}
        assert set(state.flags[p]) <= revealed
        assert not set(state.flags[1 - p]) & revealed
        assert revealed <= set(state.owned[p]) | set(state.flags[p])


def test_rule_17_every_pick_stays_visible_to_both_players():
    state = HeadToHeadGame(seed=8).new_state()
    rng = random.Random(8)
    for _ in range(20):
        state.pick(rng.choice(state.pool))
        mine, theirs = state.view(0), state.view(1)
        assert mine.owned == theirs.owned == (tuple(state.owned[0]), tuple(state.owned[1]))
        assert mine.pool == theirs.pool == tuple(state.pool)
        picker, other = state.view(state.player), state.view(1 - state.player)
        assert picker.legal_picks() == [Pick(i) for i in state.pool] and other.legal_picks() == []
    # Both see the same thing of the stacks: what is in them, never their order.
    while state.phase == DRAFT:
        state.pick(rng.choice(state.pool))
    mine, theirs = state.view(0), state.view(1)
    assert mine.unseen == theirs.unseen
    for p in (0, 1):
        assert list(mine.unseen[p]) == sorted(mine.unseen[p], key=canonical)


def test_rule_17_stacks_are_shuffled_from_the_seed():
    def reveals(seed: int) -> list[tuple[int, ...]]:
        state = HeadToHeadGame(seed=seed).new_state()
        while state.phase == DRAFT:
            state.pick(state.pool[0])
        while not state.is_over:
            p = state.to_move()[0]
            state.play(state.legal_placements(p)[0], p)
        return [tuple(t.revealed.tile_id for t in seat.turns) for seat in state.seats]

    assert reveals(5) == reveals(5)
    assert len({tuple(reveals(seed)) for seed in range(4)}) == 4


# --- 18. Laying --------------------------------------------------------------------------------

#: Forest task tiles (one forest edge, value 3: ids 4 to 12) and meadows (ids 13 to 20).
REVEAL_SET = (*[task_tile("FMMMMM", "forest", 3)] * 9, *[land("MMMMMM")] * 8)
#: Three one-tile forests, each open on one edge: the forest edges face [0,-1], [0,2] and [2,-1].
OPENING = ((0, 0, 0), (0, 1, 3), (1, 0, 1))


def reveal_game() -> HeadToHeadState:
    """Both players after the draft and turns 1 to 3: three open forest tasks each."""
    state = game(*REVEAL_SET).new_state()
    draft(state, 4, 9, 5, 10, 6, 11, 7, 12, 8, 16, 13, 17, 14, 18, 15, 19)
    # Player 1: 5 task tiles, 3 meadows + 2 flag tiles; player 2: 4 task tiles, 5 meadows + 2 flags.
    assert state.owned == ([4, 5, 6, 7, 8, 13, 14, 15], [9, 10, 11, 12, 16, 17, 18, 19, 20])
    for q, r, rot in OPENING:
        for p in (0, 1):
            assert state.revealed(p).tile.is_task
            state.play(Placement(Hex(q, r), rot), p)
    for p in (0, 1):
        assert [t.status.value for t in state.area(p).tasks] == ["open"] * 3
    return state


def test_rule_18_each_player_reveals_task_tiles_in_turns_1_to_3_then_landscapes_at_3_active():
    state = reveal_game()
    assert kinds(state, 0) == kinds(state, 1) == ["T", "T", "T", "L"]
    assert state.view(0).stacks_left == ((5 - 3, 5 - 1), (4 - 3, 7 - 1))


def test_rule_18_a_task_failed_in_one_area_brings_a_task_tile_to_that_player_only():
    state = reveal_game()
    placed_at(state, 0, 0, -1)  # player 1 covers the forest edge of [0,0]: closed at 1 < 3
    assert status(state.area(0), 0, 0) == "failed"
    placed_away(state, 1)  # player 2 touches no forest
    assert [t.status.value for t in state.area(1).tasks] == ["open"] * 3
    assert kinds(state, 0) == ["T", "T", "T", "L", "T"]  # 2 active: a task tile
    assert kinds(state, 1) == ["T", "T", "T", "L", "L"]  # 3 active: a landscape tile
    assert state.revealed(0).task == TaskSpec("forest", 3)


def test_rule_18_a_completed_task_brings_a_task_tile_to_that_player_only():
    # Both players hold the same tiles; player 1 grows the forest north of [0,0] to 3
    # tiles with FMMFMM landscapes, player 2 lays everything away from their forests.
    tiles = (*[task_tile("FMMMMM", "forest", 3)] * 8, *[land("FMMFMM")] * 4)
    state = game(*tiles).new_state()
    draft(state, *range(FIRST, FIRST + 11))
    assert state.owned == ([4, 6, 8, 10, 12, 14], [5, 7, 9, 11, 13, 15])
    for q, r, rot in OPENING:
        for p in (0, 1):
            state.play(Placement(Hex(q, r), rot), p)
    north = [Hex(0, -1), Hex(0, -2)]  # FMMFMM there (turn 0) joins the forest of [0,0]
    while status(state.area(0), 0, 0) == "open":
        assert kinds(state, 0)[-1] == "L"
        if state.revealed(0).tile.face == "FMMFMM":
            state.play(Placement(north.pop(0), 0), 0)
        else:
            placed_away(state, 0)
        placed_away(state, 1)
    assert status(state.area(0), 0, 0) == "completed"
    assert group_of(state.area(0), 0, 0, "F") == (3, False)
    assert kinds(state, 0)[-1] == "T"  # 2 active: a task tile
    assert kinds(state, 1)[-1] == "L"  # the other player still has 3 active: a landscape tile
    assert len(kinds(state, 0)) == len(kinds(state, 1))


def test_rule_18_both_place_one_tile_a_round_in_either_order():
    state = reveal_game()
    assert state.to_move() == (0, 1)
    placed_away(state, 1)  # player 2 first this round
    assert state.to_move() == (0,)
    assert state.legal_placements(1) == []
    with pytest.raises(IllegalDecision, match="player 2 has placed this round"):
        state.play(state.seats[1].legal_placements()[0], 1)
    placed_away(state, 0)
    assert state.to_move() == (0, 1)
    placed_away(state, 0)  # player 1 first this round
    assert state.to_move() == (1,)
    placed_away(state, 1)
    assert state.to_move() == (0, 1)


def test_rule_18_a_player_whose_stacks_run_out_stops_and_the_other_plays_on():
    state = reveal_game()
    # No task changes from here: player 1 has 5 landscape tiles, player 2 has 7.
    for _ in range(5):
        for p in (0, 1):
            placed_away(state, p)
    assert state.seats[0].is_over and not state.seats[1].is_over
    assert state.revealed(0) is None and state.legal_placements(0) == []
    assert state.phase == LAYING and state.to_move() == (1,)
    with pytest.raises(IllegalDecision, match="player 1's game is over"):
        state.play(Placement(Hex(5, 5), 0), 0)
    placed_away(state, 1)  # player 2 places twice in a row: the other game is over
    assert state.to_move() == (1,)
    placed_away(state, 1)
    assert state.is_over and state.phase == OVER and state.to_move() == ()
    assert len(state.area(0)) == 3 + 5 and len(state.area(1)) == 3 + 7
    # Each game ended on its own landscape stack; task tiles left unrevealed do not come into play.
    assert state.view(0).stacks_left == ((2, 0), (1, 0))


def test_rule_18_a_task_failed_by_the_last_landscape_tile_brings_more_task_tiles():
    state = reveal_game()
    for _ in range(4):  # player 1 lays four of their five landscape tiles away from the forests
        placed_away(state, 0)
        placed_away(state, 1)
    assert state.seats[0].landscapes_left() == 0 and not state.revealed(0).tile.is_task
    placed_at(state, 0, 0, -1)  # the last landscape tile fails the task at [0,0]
    assert status(state.area(0), 0, 0) == "failed"
    assert not state.seats[0].is_over
    assert state.revealed(0).tile.is_task  # 2 active: a task tile although no landscape is left
    placed_away(state, 1)
    placed_away(state, 0)  # the new task is open: 3 active, a landscape is due, none left
    assert state.seats[0].is_over
    assert kinds(state, 0) == ["T", "T", "T", "L", "L", "L", "L", "L", "T"]


def test_rule_18_landscapes_only_once_a_players_task_stack_is_empty():
    # Player 1 has a single task tile: turns 2 and 3 already reveal landscape tiles.
    state = game(task_tile("FMMMMM", "forest", 3), *[land("MMMMMM")] * 4).new_state()
    draft(state, 4, 5, 6, 7)
    assert state.owned == ([4, 6], [5, 7, 8])
    for _ in range(3):
        placed_away(state, 0)
        placed_away(state, 1)
    assert kinds(state, 0) == ["T", "L", "L", "L"]
    assert kinds(state, 1) == ["L", "L", "L", "L"]


def test_rule_18_a_tile_that_fits_nowhere_is_set_aside_for_its_player_only():
    # Player 1's river task tile RRRRRR lets nothing without a river edge touch it: all of
    # player 1's landscape tiles (a forest, a meadow, two flag tiles) are set aside.
    tiles = (
        task_tile("RRRRRR", "river", 3),  # 4
        task_tile("FMMMMM", "forest", 3),  # 5
        land("FFFFFF"),  # 6
        land("MMMMMM"),  # 7
        land("MMMMMM"),  # 8
        land("MMMMMM"),  # 9
    )
    state = game(*tiles).new_state()
    draft(state, 4, 5, 6, 7, 8)
    assert state.owned == ([4, 6, 8], [5, 7, 9])
    state.play(Placement(Hex(0, 0), 0), 0)
    assert state.seats[0].is_over
    turns = state.seats[0].turns
    assert [t.set_aside for t in turns] == [False, True, True, True, True]
    assert {t.revealed.tile_id for t in turns[1:]} == {0, 2, 6, 8}
    assert state.to_move() == (1,)  # player 2 plays on: five placements in a row
    for _ in range(5):
        placed_away(state, 1)
    assert state.is_over
    assert not any(t.set_aside for t in state.seats[1].turns)
    assert len(state.area(1)) == 5
    assert record_of(state)["set_aside"] == [[0, 2], [0, 3], [0, 4], [0, 5]]


def test_rule_18_a_set_aside_tile_is_a_turn_but_not_the_players_placement_of_the_round():
    # Player 1: a river task tile RRRRRR, then a forest tile (fits nowhere beside it) and a
    # river end RMMMMM (fits) in the landscape stack, with the flag tiles.  Find a seed that
    # reveals the forest tile first.
    tiles = (
        task_tile("RRRRRR", "river", 3),  # 4
        task_tile("FMMMMM", "forest", 3),  # 5
        land("FFFFFF"),  # 6
        land("MMMMMM"),  # 7
        land("RMMMMM"),  # 8
        land("MMMMMM"),  # 9
    )
    for seed in range(100):
        state = game(*tiles, seed=seed).new_state()
        draft(state, 4, 5, 6, 7, 8)
        assert state.owned == ([4, 6, 8], [5, 7, 9])
        placed_away(state, 1)
        state.play(Placement(Hex(0, 0), 0), 0)  # turn 1: the river task tile
        turns = state.seats[0].turns
        if turns[1].revealed.tile_id == 6 and turns[2].revealed.tile_id == 8:
            break
    else:
        pytest.fail("no seed reveals the forest tile, then the river end")
    assert turns[1].set_aside  # turn 2: FFFFFF fits nowhere
    assert not turns[2].set_aside and state.revealed(0) == turns[2].revealed  # turn 3 at once
    assert state.to_move() == (0, 1)  # player 1 still places this round
    assert state.revealed(0).tile.face == "RMMMMM"


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_rule_18_a_whole_game_follows_the_reveal_rule_in_each_area(seed):
    state = HeadToHeadGame(seed=seed).new_state()
    rng = random.Random(seed)
    while state.phase == DRAFT:
        state.pick(rng.choice(state.pool))
    tiles = state.game.tileset.tiles
    while not state.is_over:
        p = rng.choice(state.to_move())
        state.play(rng.choice(state.legal_placements(p)), p)
    for p in (0, 1):
        # Replay player p's turns on a fresh area and recompute each reveal from it alone.
        tasks_left = sum(1 for i in state.owned[p] if tiles[i].is_task)
        landscapes_left = len(state.owned[p]) - tasks_left + 2
        area = PlayArea()
        for turn in state.seats[p].turns:
            assert turn.player == p
            want_task = tasks_left > 0 and (turn.number <= 3 or len(area.active_tasks()) < 3)
            assert turn.revealed.tile.is_task == want_task, (seed, p, turn.number)
            if want_task:
                tasks_left -= 1
            else:
                landscapes_left -= 1
            if turn.placement is not None:
                area.play(turn.revealed.tile.face, turn.placement, task=turn.revealed.task)
        assert landscapes_left == 0  # each game ends on its own landscape stack
        assert not (tasks_left and len(area.active_tasks()) < 3)


# --- 19. Multicoloured Flags -------------------------------------------------------------------


@pytest.mark.parametrize("letter", ["F", "G", "V"])
def test_rule_19_a_flag_edge_joins_the_territory_it_meets(letter):
    # The flag edge faces north; the tile above shows the territory on its south edge only.
    area = build(("XMMMMM", 0, 0), (f"MMM{letter}MM", 0, -1))
    flag = area.group(Hex(0, 0), "X")
    assert flag.letter == letter and flag.size == 2 and flag.closed
    assert sorted(flag.cells) == [Hex(0, -1), Hex(0, 0)]
    assert area.group(Hex(0, -1), letter) == flag
    assert score_head_to_head(area).flags == 2


def test_rule_19_the_flag_tile_counts_in_the_territory_for_tasks():
    area = build(
        ("XMMPPM", 0, 0, 3),  # flag edge south
        tile("FMMFMM", 0, 1, task=("forest", 3)),  # forest N (meets the flag) and S
    )
    assert group_of(area, 0, 1, "F") == (2, False)
    play(area, ("FMMMMM", 0, 2))  # the third tile closes the forest: flag tile + 2
    assert status(area, 0, 1) == "completed"
    assert group_of(area, 0, 0, "X") == (3, True)
    assert score_head_to_head(area).flags == 3


@pytest.mark.parametrize(("value", "result"), [(3, "completed"), (4, "failed")])
def test_rule_19_a_flag_joining_a_territory_completes_or_fails_its_task(value, result):
    area = build(
        tile("MMMFMM", 0, 0, task=("forest", value)),
        ("FMMFMM", 0, 1),  # a forest of 2, open to the south only
    )
    play(area, ("XMMMMM", 0, 2))  # the flag edge meets it: 3 tiles, closed
    assert group_of(area, 0, 2, "X") == (3, True)
    assert status(area, 0, 0) == result
    assert score_head_to_head(area).flags == 3


def test_rule_19_a_flag_facing_meadow_is_a_closed_one_tile_territory():
    area = build(("XMMMMM", 0, 0), ("MMMMMM", 0, -1))
    assert group_of(area, 0, 0, "X") == (1, True)
    assert area.group(Hex(0, 0), "X").letter == "X"
    assert score_head_to_head(area).flags == 1


def test_rule_19_two_flag_edges_meeting_are_two_one_tile_territories():
    area = build(("XMMMMM", 0, 0), ("MMMXMM", 0, -1))  # flag edges N and S, face to face
    one, two = area.group(Hex(0, 0), "X"), area.group(Hex(0, -1), "X")
    assert (one.size, one.closed, two.size, two.closed) == (1, True, 1, True)
    assert one.cells != two.cells
    assert score_head_to_head(area).flags == 1 + 1


def test_rule_19_a_flag_facing_an_empty_space_is_open_and_scores_nothing():
    area = build(("XMMLLM", 0, 0))
    assert group_of(area, 0, 0, "X") == (1, False)
    assert area.group(Hex(0, 0), "X").open_edges == 1
    assert score_head_to_head(area).flags == 0
    play(area, ("MMMFFM", 0, -1))  # a forest meets it, but faces empty space to the SW
    assert group_of(area, 0, 0, "X") == (2, False)
    assert score_head_to_head(area).flags == 0
    play(area, ("MFMMMM", -1, 0))  # a forest edge NE meets that last open edge: 3 tiles, closed
    assert group_of(area, 0, 0, "X") == (3, True)
    assert score_head_to_head(area).flags == 3


def test_rule_19_flags_score_their_closed_territory_each_including_their_tile():
    # A forest of 4 tiles with a flag at each end: both flags score 4.
    area = build(
        ("XMMPPM", 0, 0, 3),  # flag edge south
        ("FMMFMM", 0, 1),
        ("FMMFMM", 0, 2),
        ("XMMLLM", 0, 3),  # flag edge north
    )
    assert group_of(area, 0, 0, "X") == (4, True)
    assert area.group(Hex(0, 3), "X") == area.group(Hex(0, 0), "X")
    assert score_head_to_head(area).flags == 4 + 4
    # An open territory's flag scores nothing, the other flag's closed one-tile territory 1.
    area = build(("XMMMMM", 0, 0, 3), ("FMMFMM", 0, 1), ("MMMXMM", 0, -1))
    assert score_head_to_head(area).flags == 1


def test_rule_19_a_flag_edge_may_not_face_a_river_lake_or_mountain():
    for letter in "RLP":
        area = build((f"{letter}MMMMM", 0, 0))
        reason = area.why_illegal("MMMXMM", at(0, -1))
        assert reason is not None and "multicoloured flag edge would face" in reason
        assert area.why_illegal("MMMMMM", at(0, -1, 0)) is not None
        assert area.why_illegal("MMMXMM", at(1, -1)) is None  # away from that edge


def test_rule_19_a_flag_tile_has_one_flag_edge_and_no_territory():
    for face in ("XFMMMM", "XMMGMM", "XMMMMV", "XXMMMM", "XMMXPP"):
        with pytest.raises(ValueError, match="one X edge"):
            Tile(LANDSCAPE, face, "X")
        with pytest.raises(ValueError, match="one X edge"):
            PlayArea().why_illegal(face, at(0, 0))
    Tile(LANDSCAPE, "XRMRLP", "X")  # rivers, lakes, mountains and meadow are fine


# --- 20. Mountains and lakes -----------------------------------------------------------------


@pytest.mark.parametrize(("mine", "other"), [("P", "L"), ("L", "P"), ("P", "M"), ("L", "F"), ("P", "R")])
def test_rule_20_mountain_and_lake_edges_must_meet_their_own_kind(mine, other):
    area = build((f"{mine}MMMMM", 0, 0))  # its half faces north
    assert area.why_illegal(f"MMM{mine}MM", at(0, -1)) is None
    reason = area.why_illegal(f"MMM{other}MM", at(0, -1))
    assert reason is not None and "lakes and mountains must meet their own kind" in reason
    # Both ways: the other edge may not face a half either.
    area = build((f"{other}MMMMM", 0, 0))
    assert area.why_illegal(f"MMM{mine}MM", at(0, -1)) is not None


def test_rule_20_count_of_legal_placements_next_to_a_mountain_half():
    area = build(("PMMMMM", 0, 0))
    # Meadow anywhere but in front of the half: 5 cells, one distinct rotation each.
    assert len(area.legal_placements("MMMMMM")) == 5
    # Another half: in front of it only turned to face it (1); elsewhere 5 of 6 turns.
    placements = area.legal_placements("PMMMMM")
    assert [p for p in placements if p.at == Hex(0, -1)] == [at(0, -1, 3)]
    assert len(placements) == 1 + 5 * 5


def test_rule_20_each_meeting_pair_is_a_mountain_or_lake_worth_3():
    area = build(("PMMMMM", 0, 0))
    assert (area.mountains, score_head_to_head(area).mountains_lakes) == (0, 0)
    play(area, ("MMMPMM", 0, -1))  # a mountain half facing south meets it
    assert (area.mountains, area.lakes) == (1, 0)
    play(area, ("MMLMMM", 1, 0))  # a lake half facing SE, onto an empty space
    assert area.lakes == 0
    play(area, ("MMMMML", 2, 0))  # a lake half facing NW meets it
    pad = score_head_to_head(area)
    assert (pad.mountains, pad.lakes, pad.mountains_lakes, pad.total) == (1, 1, 6, 6)


def test_rule_20_a_tile_with_two_mountain_edges_meeting_two_tiles_counts_two():
    area = build(
        ("PPMMMM", 0, 0),  # mountain halves N and NE
        ("MMMPMM", 0, -1),  # meets N
    )
    assert area.mountains == 1
    play(area, ("MMMMPM", 1, -1))  # meets NE (and [0,-1]'s meadow)
    assert area.mountains == 2
    pad = score_head_to_head(area)
    assert (pad.mountains, pad.lakes, pad.mountains_lakes) == (2, 0, 6)
    # Two halves on one tile never meet each other: a lone tile scores nothing.
    assert score_head_to_head(build(("PPLLMM", 0, 0))).mountains_lakes == 0


def test_rule_20_the_flag_tiles_halves_form_mountains_and_lakes():
    area = build(
        ("XMMPPM", 0, 0, 3),  # turned 3: mountain halves N and NE, flag edge S
        ("MMMPMM", 0, -1),  # meets the N half: a mountain
        ("XMMLLM", 0, 1),  # flag edge N meets the other flag edge; lake halves S and SW
        ("LMMMMM", 0, 2),  # meets the S half: a lake
    )
    assert area.edges_at(Hex(0, 0)) == "PPMXMM"
    pad = score_head_to_head(area)
    assert (pad.mountains, pad.lakes, pad.mountains_lakes) == (1, 1, 6)
    assert pad.flags == 1 + 1  # two flag edges face to face: two closed one-tile territories
    assert pad.total == 8


def test_rule_20_half_a_mountain_facing_an_empty_space_scores_nothing():
    area = build(("XMMPPM", 0, 0), ("MMMMMM", 0, -1))
    pad = score_head_to_head(area)
    assert (pad.mountains, pad.lakes, pad.mountains_lakes) == (0, 0, 0)


# --- 21. Scoring and ties ---------------------------------------------------------------------


def test_rule_21_open_and_failed_tasks_score_nothing():
    area = build(
        tile("FMMFMM", 0, 0, task=("forest", 3)),  # open: 1 tile of 3
        ("MMMMMM", 1, 0),
        tile("GMMMMM", 2, 0, task=("grain", 4)),  # its grain faces north
        ("MMMGMM", 2, -1),  # grain of 2, closed: failed
    )
    pad = score_head_to_head(area)
    assert [e["status"] for e in pad.task_list] == ["open", "failed"]
    assert pad.tasks == {"forest": 0, "grain": 0, "village": 0, "river": 0}
    assert pad.total == 0


def pad(
    forest: int = 0, grain: int = 0, river: int = 0, flags: int = 0, mountains: int = 0, lakes: int = 0
) -> HeadToHeadScorePad:
    tasks = {"forest": forest, "grain": grain, "village": 0, "river": 0}
    return HeadToHeadScorePad(tasks, river, flags, mountains, lakes)


def winner_of(a: HeadToHeadScorePad, b: HeadToHeadScorePad, monkeypatch) -> int | None:
    state = HeadToHeadGame(seed=0).new_state()
    monkeypatch.setattr(state, "scores", lambda: (a, b))
    return state.winner()


def test_rule_21_the_higher_total_wins(monkeypatch):
    a, b = pad(forest=7), pad(mountains=2)
    assert (a.total, b.total) == (7, 6)
    assert winner_of(a, b, monkeypatch) == 0
    assert winner_of(b, a, monkeypatch) == 1


def test_rule_21_tie_breaker_1_more_mountains_and_lakes(monkeypatch):
    a, b = pad(mountains=1, lakes=1), pad(forest=3, mountains=1)
    assert a.total == b.total == 6
    assert winner_of(a, b, monkeypatch) == 0 and winner_of(b, a, monkeypatch) == 1
    # Mountains and lakes count together, however they split.
    c, d = pad(mountains=2, river=3), pad(lakes=2, flags=3)
    assert c.total == d.total and winner_of(c, d, monkeypatch) == 0  # decided by the river


def test_rule_21_tie_breaker_2_the_longer_river(monkeypatch):
    a, b = pad(river=5, lakes=1), pad(river=2, flags=3, mountains=1)
    assert a.total == b.total == 8
    assert winner_of(a, b, monkeypatch) == 0 and winner_of(b, a, monkeypatch) == 1


def test_rule_21_tie_breaker_3_more_flag_points(monkeypatch):
    a, b = pad(flags=4, river=3), pad(forest=4, river=3)
    assert a.total == b.total == 7
    assert winner_of(a, b, monkeypatch) == 0 and winner_of(b, a, monkeypatch) == 1


def test_rule_21_tie_breaker_4_never_decides_a_tie_of_totals():
    # With equal totals, mountains and lakes, rivers and flags, the task points are equal too.
    pads = [
        pad(forest=f, river=r, flags=x, mountains=m)
        for f in (0, 3, 7)
        for r in (0, 4)
        for x in (0, 1, 6)
        for m in (0, 1)
    ]
    for a in pads:
        for b in pads:
            if a.tie_breakers()[:4] == b.tie_breakers()[:4]:
                assert a.tie_breakers() == b.tie_breakers()


def test_rule_21_everything_equal_is_a_shared_victory(monkeypatch):
    a, b = pad(forest=3, grain=4, mountains=1), pad(forest=7, lakes=1)  # task types may differ
    assert a.tie_breakers() == b.tie_breakers()
    assert winner_of(a, b, monkeypatch) is None


def test_rule_21_a_whole_game_that_ties_is_shared():
    # Each player forms one mountain with their mountain flag tile and a PMMMMM tile, and
    # leaves both flags open: 3 points each.  Player 2's extra meadow goes away from them.
    tiles = (land("PMMMMM"), land("PMMMMM"), land("MMMMMM"))
    state = game(*tiles, seed=4).new_state()
    draft(state, 4, 5)
    while not state.is_over:
        for p in state.to_move():
            area = state.area(p)
            face = state.revealed(p).tile.face
            options = state.legal_placements(p)
            best = max(options, key=lambda o: (_pairs_after(area, face, o), -_flags_after(area, face, o)))
            state.play(best, p)
    a, b = state.scores()
    assert (a.mountains, a.lakes, a.flags, a.total) == (1, 0, 0, 3)
    assert a.tie_breakers() == b.tie_breakers()
    assert state.winner() is None
    assert record_of(state)["winner"] is None


def _pairs_after(area: PlayArea, face: str, placement: Placement) -> int:
    area.play(face, placement)
    found = area.mountains + area.lakes
    area.pop()
    return found


def _flags_after(area: PlayArea, face: str, placement: Placement) -> int:
    area.play(face, placement)
    found = score_head_to_head(area).flags
    area.pop()
    return found


# --- printed task values; exact tasks at 3 and 7 ------------------------------------------------


def test_rule_21_task_tiles_carry_their_printed_value():
    box = load_tileset("head-to-head")
    values = sorted((t.task, t.value) for t in box.task_tiles)
    for kind in ("forest", "grain", "village"):
        assert [v for k, v in values if k == kind] == [3, 4, 5, 6, 7]
    assert [v for k, v in values if k == "river"] == [3, 4, 5, 6]
    assert box.markers == {}  # nothing is drawn
    state = HeadToHeadGame(seed=6).new_state()
    rng = random.Random(6)
    while state.phase == DRAFT:
        state.pick(rng.choice(state.pool))
    while not state.is_over:
        p = rng.choice(state.to_move())
        state.play(rng.choice(state.legal_placements(p)), p)
    for seat in state.seats:
        for turn in seat.turns:
            t = turn.revealed.tile
            assert turn.revealed.task == (TaskSpec(t.task, t.value) if t.is_task else None)


def test_rule_21_a_task_tile_without_a_printed_value_is_refused():
    with pytest.raises(ValueError, match="no printed value"):
        game(Tile(TASK, "FFFFFF", task="forest"))


def forest_chain(value: int, length: int, *, close: bool = False) -> list:
    """A forest chain down column q=0, a forest ``value`` task on its first tile."""
    items: list = [tile("MMMFMM", 0, 0, task=("forest", value))]
    items += [("FMMFMM", 0, r) for r in range(1, length)]
    if close:
        items[-1] = ("FMMMMM", 0, length - 1)
    return items


def test_rule_21_value_3_completes_at_exactly_3_tiles_and_stays_completed():
    area = build(*forest_chain(3, 2))
    assert status(area, 0, 0) == "open"
    play(area, ("FMMFMM", 0, 2))
    assert status(area, 0, 0) == "completed"
    play(area, ("FMMMMM", 0, 3))  # 4 tiles, closed: still completed
    assert status(area, 0, 0) == "completed"
    assert score_head_to_head(area).tasks["forest"] == 3


def test_rule_21_value_3_fails_when_one_placement_jumps_from_2_to_4():
    area = build(*forest_chain(3, 2), ("MMMMFM", 1, 1))  # a one-tile forest facing [0,2] (SW)
    play(area, ("FFMFMM", 0, 2))  # meets both: 2 + 1 + 1 = 4, still open
    assert group_of(area, 0, 2, "F") == (4, False)
    assert status(area, 0, 0) == "failed"


def test_rule_21_value_3_fails_when_closed_at_2():
    area = build(*forest_chain(3, 2, close=True))
    assert status(area, 0, 0) == "failed"
    assert score_head_to_head(area).total == 0


def test_rule_21_a_new_value_3_task_may_not_start_at_4_tiles():
    area = build(("MMMFMM", 0, 0), ("FMMFMM", 0, 1), ("FMMFMM", 0, 2))
    reason = area.why_illegal("FMMFMM", at(0, 3), TaskSpec("forest", 3))
    assert reason == "its forest would already have 4 tiles, more than 3"
    assert area.why_illegal("FMMFMM", at(0, 3), TaskSpec("forest", 4)) is None


def test_rule_21_value_7_completes_at_exactly_7_tiles():
    area = build(*forest_chain(7, 6))
    assert status(area, 0, 0) == "open"
    play(area, ("FMMMMM", 0, 6))  # the seventh tile closes it: completion first
    assert status(area, 0, 0) == "completed"
    assert score_head_to_head(area).tasks["forest"] == 7


def test_rule_21_value_7_fails_when_closed_at_6_or_grown_to_8():
    assert status(build(*forest_chain(7, 6, close=True)), 0, 0) == "failed"
    area = build(*forest_chain(7, 6), ("MMMMFM", 1, 5))  # a one-tile forest facing [0,6] (SW)
    play(area, ("FFMFMM", 0, 6))  # 6 + 1 + 1 = 8
    assert status(area, 0, 0) == "failed"


def test_rule_21_a_new_value_7_task_may_not_close_its_territory_at_6():
    area = build(("MMMFMM", 0, 0), *[("FMMFMM", 0, r) for r in range(1, 5)])  # 5 tiles, open at [0,5]
    reason = area.why_illegal("FMMMMM", at(0, 5), TaskSpec("forest", 7))
    assert reason == "it would close its forest at 6 tiles, fewer than 7"
    assert area.why_illegal("FMMFMM", at(0, 5), TaskSpec("forest", 7)) is None
    assert area.why_illegal("FMMMMM", at(0, 5), TaskSpec("forest", 6)) is None  # completes at once


# --- The rulebook's scoring example: 10 + 3 + 6 + 9 = 28 ----------------------------------------

SCORING_EXAMPLE_PAD = {
    "tasks": {"forest": 3 + 4, "grain": 0, "village": 0, "river": 3},
    "longest_river": 3,
    "flags": 6,
    "mountains_lakes": 9,
    "total": 28,
    "task_list": [
        {"at": [0, 1], "type": "forest", "value": 4, "status": "completed"},
        {"at": [0, 2], "type": "forest", "value": 3, "status": "completed"},
        {"at": [-1, 1], "type": "river", "value": 3, "status": "completed"},
        {"at": [1, 2], "type": "grain", "value": 4, "status": "failed"},
    ],
}


def test_example_scoring_28_points_by_dorf_score(capsys):
    assert main(["score", str(SCORING_EXAMPLE), "--json"]) == 0
    out, err = capsys.readouterr()
    assert err == ""
    result = json.loads(out)
    assert result == SCORING_EXAMPLE_PAD
    # Tasks: two forest tasks and a river task, 10 points together.
    assert sum(result["tasks"].values()) == 10
    assert [e["type"] for e in result["task_list"] if e["status"] == "completed"] == [
        "forest",
        "forest",
        "river",
    ]
    assert result["total"] == 10 + 3 + 6 + 9


def test_example_scoring_board_has_the_figures_the_rulebook_names():
    from dorf.formats.notation import load_board

    mode, area = load_board(json.loads(SCORING_EXAMPLE.read_text(encoding="utf-8")))
    assert mode == "head-to-head"
    flags = {t.at: area.group(t.at, "X") for t in area.placed if "X" in t.face}
    forest, village = flags[Hex(0, 0)], flags[Hex(1, 5)]
    assert (forest.letter, forest.size, forest.closed) == ("F", 6, True)
    assert (village.letter, village.size, village.open_edges) == ("V", 2, 2)
    grain = area.group(Hex(1, 2), "G")
    assert (grain.size, grain.closed) == (3, True)  # the grain 4 task failed at 3 tiles
    assert [g.size for g in area.groups("R")] == [3]  # one river, 3 tiles
    assert (area.mountains, area.lakes) == (2, 1)
    # The reference model agrees, from the bare tiles.
    ref = RefBoard(
        RefTile(t.face, t.at, t.rot, None, None if t.task is None else (t.task.type, t.task.value))
        for t in area.placed
    )
    assert ref.score("head-to-head") == SCORING_EXAMPLE_PAD
