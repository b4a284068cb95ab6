"""The cooperative game: set-up from the seed, undo, and what a player may see."""

from __future__ import annotations

import dataclasses
import random

import pytest

from boards import at, tileset
from dorf.games.coop import CoopGame, CoopState, PlayerView
from dorf.games.seat import markers_unseen, unseen_tiles
from dorf.games.state import GameOver
from dorf.rules.area import IllegalPlacement
from dorf.rules.hexgrid import Hex
from dorf.rules.scoring import score_coop


def _choices(state: CoopState, rng: random.Random, moves: int) -> None:
    for _ in range(moves):
        if state.is_over:
            return
        options = state.legal_placements()
        state.play(options[rng.randrange(len(options))])


def _trajectory(state: CoopState) -> list:
    return [
        (t.number, t.player, t.revealed.tile_id, t.revealed.task, t.placement, t.set_aside)
        for t in state.turns
    ]


def snapshot(state: CoopState) -> dict:
    """Everything observable about a state, in plain values."""
    area = state.area
    view = state.view()
    return {
        "turn": state.turn,
        "player": state.player,
        "revealed": state.revealed,
        "is_over": state.is_over,
        "landscapes_left": state.landscapes_left(),
        "task_tiles_left": state.task_tiles_left(),
        "legal": sorted(state.legal_placements()),
        "legal_moves": sorted(state.legal_moves()),
        "turns": _trajectory(state),
        "changes": [[(c[0].cell, c[0].type, c[0].value, c[1].value) for c in t.changes] for t in state.turns],
        "placed": [(p.face, p.at, p.rot, p.flag) for p in area.placed],
        "tasks": [(t.cell, t.type, t.value, t.status.value) for t in area.tasks],
        "active": len(area.active_tasks()),
        "groups": sorted(
            (g.letter, g.size, g.open_edges, tuple(sorted(g.cells)), tuple(t.cell for t in g.tasks))
            for g in area.groups()
        ),
        "frontier": sorted(area.frontier()),
        "longest": (area.longest_river, area.longest_track),
        "score": state.score().as_json(),
        "view": {f.name: getattr(view, f.name) for f in dataclasses.fields(view) if f.name != "area"},
    }


# --- set-up from the seed ------------------------------------------------------------------


@pytest.mark.parametrize("seed", [0, 17, 123456789])
def test_setup_and_game_are_determined_by_the_seed(seed):
    states = []
    for noise in (1, 2):
        random.seed(noise)  # global randomness must not matter
        state = CoopGame(seed=seed, players=2).new_state()
        _choices(state, random.Random(99), 200)
        states.append(state)
    a, b = states
    assert a.is_over and b.is_over
    assert _trajectory(a) == _trajectory(b)
    assert a.score() == b.score()
    assert snapshot(a) == snapshot(b)


def test_different_seeds_deal_different_games():
    firsts = set()
    for seed in range(10):
        state = CoopGame(seed=seed).new_state()
        _choices(state, random.Random(0), 10)
        firsts.add(tuple(t.revealed.tile_id for t in state.turns))
    assert len(firsts) == 10


def test_game_description_is_immutable():
    game = CoopGame(seed=1)
    with pytest.raises(dataclasses.FrozenInstanceError):
        game.seed = 2  # type: ignore[misc]


# --- playing -------------------------------------------------------------------------------


def test_an_illegal_placement_changes_nothing():
    state = CoopGame(seed=4).new_state()
    state.play(state.legal_placements()[0])
    before = snapshot(state)
    for placement in (at(0, 0), at(5, 5), at(3, -9, 2)):
        assert state.why_illegal(placement) is not None
        with pytest.raises(IllegalPlacement):
            state.play(placement)
    assert snapshot(state) == before


def test_every_listed_placement_is_legal_and_the_listing_is_the_legal_moves():
    state = CoopGame(seed=8).new_state()
    rng = random.Random(8)
    for _ in range(25):
        listed = state.legal_placements()
        assert all(state.why_illegal(p) is None for p in listed)
        assert sorted(listed) == sorted(state.view().legal_placements())
        assert len(listed) == len(set(listed)) == len(state.legal_moves())
        state.play(listed[rng.randrange(len(listed))])


def test_no_move_after_the_end():
    ts = tileset(["MMMMMM"] * 4, ["FMMMMM forest"] * 3, {"forest": [4, 4, 4]})
    state = CoopGame(tileset=ts).new_state()
    for _ in range(4):
        state.play(state.legal_placements()[0])
    assert state.is_over
    assert state.legal_placements() == [] and state.legal_moves() == []
    assert state.why_illegal(at(5, 5)) == "the game is over"
    with pytest.raises(GameOver, match=r"^the game is over$"):
        state.play(at(0, 1))


def test_flag_tiles_carry_their_flags_into_the_play_area():
    flags = {"MFFFFF": "F", "GGGGGM": "G", "VVVVVM": "V"}
    for seed in range(3):
        state = CoopGame(seed=seed).new_state()
        _choices(state, random.Random(seed), 200)
        placed = {p.face: p.flag for p in state.area.placed if p.face in flags}
        assert placed == {face: flags[face] for face in placed}
        assert all(p.flag is None for p in state.area.placed if p.face not in flags)
        assert state.score() == score_coop(state.area)


def test_a_tile_set_short_of_markers_is_refused_before_play():
    ts = tileset(["MMMMMM"] * 4, ["FMMMMM forest"] * 2, {"forest": [4]})
    with pytest.raises(ValueError):
        CoopGame(tileset=ts).new_state()


# --- undo ----------------------------------------------------------------------------------


@pytest.mark.parametrize("seed", [2, 31])
def test_undo_restores_everything_exactly(seed):
    state = CoopGame(seed=seed, players=3).new_state()
    rng = random.Random(seed)
    snaps = [snapshot(state)]
    decisions = []
    while not state.is_over:
        options = state.legal_placements()
        choice = options[rng.randrange(len(options))]
        decisions.append(choice)
        state.play(choice)
        snaps.append(snapshot(state))
    end = snaps[-1]
    # Step back through the whole game, checking each earlier state exactly.
    for number in range(len(decisions), 0, -1):
        player, placement = state.undo()
        assert (player, placement) == (state.turns[-1].player, decisions[number - 1])
        assert state.turns[-1].placement is None
        assert snapshot(state) == snaps[number - 1], f"after undoing decision {number}"
    with pytest.raises(IndexError):
        state.undo()
    # The stacks and marker piles came back in order: the same decisions replay the same game.
    for choice in decisions:
        state.play(choice)
    assert snapshot(state) == end


def test_undo_after_set_aside_tiles_returns_them_and_their_markers():
    ts = tileset(["FFFFFF"] * 5, ["FFFFFF forest"] * 5, {"forest": [4, 4, 4, 4, 4]})
    state = CoopGame(seed=6, tileset=ts).new_state()
    for _ in range(3):
        state.play(state.legal_placements()[0])
    before = snapshot(state)
    assert before["task_tiles_left"] == 2
    choice = state.legal_placements()[0]
    state.play(choice)  # completes three tasks; turns 5, 6 set aside
    after = snapshot(state)
    assert [t.set_aside for t in state.turns] == [False] * 4 + [True, True, False]
    assert state.task_tiles_left() == 0
    assert state.view().markers_unseen["forest"] == ()
    state.undo()
    assert snapshot(state) == before
    assert state.view().markers_unseen["forest"] == (4, 4)
    state.play(choice)
    assert snapshot(state) == after


def test_undo_of_a_game_that_ended_on_set_aside_tiles():
    ts = tileset(["FFFFFF"] * 5, ["RRRRRR river"] * 3, {"river": [6, 6, 6]})
    state = CoopGame(seed=1, tileset=ts).new_state()
    state.play(state.legal_placements()[0])
    state.play(state.legal_placements()[0])
    before = snapshot(state)
    choice = state.legal_placements()[0]
    state.play(choice)  # turns 4 and 5 reveal landscapes that fit nowhere: the game ends
    after = snapshot(state)
    assert state.is_over and [t.set_aside for t in state.turns] == [False] * 3 + [True, True]
    assert state.undo() == (0, choice) and state.turns[-1].number == 3
    assert snapshot(state) == before
    assert state.landscapes_left() == 2
    state.play(choice)
    assert snapshot(state) == after


def test_undo_reopens_tasks_a_placement_completed_or_failed():
    ts = tileset(["MMMMMM"] * 4, ["FMMMMM forest"] * 6, {"forest": [4] * 6})
    state = CoopGame(tileset=ts).new_state()
    state.play(at(0, 0, 0))
    state.play(at(0, 1, 3))
    state.play(at(1, 0, 1))
    before = snapshot(state)
    state.play(at(0, -1))  # closes the forest at [0,0]: failed; a task tile follows
    assert [t.status.value for t in state.area.tasks] == ["failed", "open", "open"]
    assert state.turns[3].changes and state.turns[3].changes[0][1].value == "failed"
    state.undo()
    assert [t.status.value for t in state.area.tasks] == ["open", "open", "open"]
    assert snapshot(state) == before


def test_undo_at_the_end_of_the_game():
    ts = tileset(["MMMMMM"] * 4, ["FMMMMM forest"] * 3, {"forest": [4, 4, 4]})
    state = CoopGame(tileset=ts).new_state()
    for _ in range(3):
        state.play(state.legal_placements()[0])
    before = snapshot(state)
    state.play(state.legal_placements()[0])
    assert state.is_over
    state.undo()
    assert not state.is_over
    assert snapshot(state) == before


# --- what a player may see -------------------------------------------------------------------


VIEW_FIELDS = {
    "area",
    "revealed",
    "turn",
    "player",
    "players",
    "landscapes_left",
    "task_tiles_left",
    "unseen",
    "markers_unseen",
}


def test_view_holds_nothing_about_stack_order_or_removed_tiles():
    state = CoopGame(seed=12).new_state()
    view = state.view()
    assert isinstance(view, PlayerView)
    assert {f.name for f in dataclasses.fields(view)} == VIEW_FIELDS
    public = {name for name in dir(view) if not name.startswith("_")}
    # Besides the fields, only what is read off them (the one interface of every game's view).
    derived = {"legal_placements", "legal_decisions", "to_move", "areas", "to_place", "phase", "mode"}
    assert public - VIEW_FIELDS <= derived
    assert not any(hasattr(view, name) for name in ("_hidden", "hidden", "removed", "stacks", "order"))
    with pytest.raises(dataclasses.FrozenInstanceError):
        view.turn = 2  # type: ignore[misc]
    # The unseen tiles are listed in a fixed order (not the stacks'), removed ones included.
    key = [(t.kind, t.face, t.flag or "", t.task or "") for t in view.unseen]
    assert key == sorted(key)
    assert len(view.unseen) == 73 - 1
    assert sum(not t.is_task for t in view.unseen) == 48  # 45 in the stack + 3 removed, alike
    assert view.landscapes_left == 45


def test_view_counts_markers_still_unseen():
    state = CoopGame(seed=12).new_state()
    view = state.view()
    drawn = state.revealed.task
    for kind, values in view.markers_unseen.items():
        full = [4, 5, 5, 6, 6]
        if kind == drawn.type:
            full.remove(drawn.value)
        assert list(values) == full, kind


def _views_without_area(view: PlayerView) -> dict:
    return {f.name: getattr(view, f.name) for f in dataclasses.fields(view) if f.name != "area"}


def test_two_seeds_with_the_same_revealed_tile_give_the_same_view():
    by_first: dict = {}
    for seed in range(120):
        state = CoopGame(seed=seed).new_state()
        by_first.setdefault((state.revealed.tile_id, state.revealed.task), []).append(state)
    pairs = [group[:2] for group in by_first.values() if len(group) >= 2]
    assert pairs, "no two seeds reveal the same first tile"
    differ_later = 0
    for a, b in pairs:
        # Their hidden stacks differ (the games diverge later) but the views are the same.
        assert _views_without_area(a.view()) == _views_without_area(b.view())
        assert len(a.view().area) == len(b.view().area) == 0
        rng_a, rng_b = random.Random(1), random.Random(1)
        _choices(a, rng_a, 1)
        _choices(b, rng_b, 1)
        if (a.revealed.tile_id, a.revealed.task) == (b.revealed.tile_id, b.revealed.task):
            assert _views_without_area(a.view()) == _views_without_area(b.view())
        else:
            differ_later += 1
            va, vb = _views_without_area(a.view()), _views_without_area(b.view())
            # Only what was revealed differs: the tile, the unseen list, the marker counts.
            assert {k for k in va if va[k] != vb[k]} <= {"revealed", "unseen", "markers_unseen"}
    assert differ_later > 0


def test_view_of_a_finished_game():
    ts = tileset(["MMMMMM"] * 4, ["FMMMMM forest"] * 3, {"forest": [4, 4, 4]})
    state = CoopGame(tileset=ts).new_state()
    for _ in range(4):
        state.play(state.legal_placements()[0])
    view = state.view()
    assert view.revealed is None and view.legal_placements() == []
    assert view.landscapes_left == 0
    assert len(view.unseen) == 3  # the removed tiles, never seen during the game
    assert view.area.tile_at(Hex(0, 0)) is not None


def test_view_keeps_unseen_tiles_and_markers_as_a_recount_gives_them_through_undo():
    """The view keeps its unseen tiles and markers from one call to the next (seat.Unseen);
    after every placement and every undo they are what counting all turns again gives."""
    rng = random.Random(5)
    for seed in range(4):
        state = CoopGame(seed=seed).new_state()
        tiles = state.game.tileset
        steps = 0
        while not state.is_over and steps < 80:
            steps += 1
            if state.decisions and rng.random() < 0.3:
                back = rng.randint(1, 3)
                for _ in range(back):
                    if state.decisions:
                        state.undo()
                _choices(state, rng, rng.choice((0, back, back + 1)))  # as many turns, other tiles
            else:
                _choices(state, rng, 1)
            view = state.view()
            assert view.unseen == unseen_tiles(tiles, (t.revealed.tile_id for t in state.turns))
            drawn = [t.revealed.task for t in state.turns if t.revealed.task is not None]
            assert view.markers_unseen == markers_unseen(tiles, drawn)
            assert view.markers_unseen is not state.view().markers_unseen  # a new dict each time
