"""Computer players as ``dorf simulate`` uses them: legal, deterministic, blind to hidden information."""

from __future__ import annotations

import functools
import random
from collections.abc import Callable

import pytest

from dorf.games.coop import CoopGame, CoopState
from dorf.games.duel import DuelGame, DuelState
from dorf.games.headtohead import DRAFT, HeadToHeadGame, HeadToHeadState, Pick
from dorf.players import GreedyPlayer, Player, RandomPlayer, make_player
from dorf.players.planner import PlannerPlayer
from dorf.players.search import SearchPlayer
from dorf.rules.area import Placement

MODES = ("coop", "duel", "head-to-head")


def _tiny_search(seed: int) -> Player:
    return SearchPlayer(seed, iterations=1, depth=2)


def _tiny_planner(seed: int) -> Player:
    return PlannerPlayer(seed, iterations=1, depth=2)


FACTORIES: dict[str, Callable[[int], Player]] = {
    "random": RandomPlayer,
    "greedy": GreedyPlayer,
    "search": _tiny_search,
    "planner": _tiny_planner,
}


def _whole_game(mode: str, name: str) -> list[Pick | Placement]:
    """A whole game of ``mode`` between two ``name`` players (seeds 11 and 12; one in the
    cooperative game), every decision checked legal: its decisions in order."""
    players = [FACTORIES[name](seed) for seed in (11, 12)]
    made: list[Pick | Placement] = []
    decisions = 0
    if mode == "coop":
        state = CoopGame(seed=21).new_state()
        while state.revealed is not None:
            decision = players[0].choose(state.view())
            assert isinstance(decision, Placement)
            assert state.why_illegal(decision) is None, (decision, state.turn)
            state.play(decision)
            made.append(decision)
            decisions += 1
        assert decisions > 40
        return made
    game: DuelState | HeadToHeadState
    game = DuelGame(seed=21).new_state() if mode == "duel" else HeadToHeadGame(seed=21).new_state()
    picks = 0
    while waiting := game.to_move():
        p = waiting[0]
        view = game.view(p)
        choice = players[p].choose(view)
        if isinstance(game, HeadToHeadState) and game.phase == DRAFT:
            assert isinstance(choice, Pick) and choice.tile_id in game.pool
            picks += 1
        else:
            assert isinstance(choice, Placement)
        if isinstance(game, DuelState):
            assert isinstance(choice, Placement)
            assert game.why_illegal(choice, p) is None, (choice, p)
            game.play(choice, p)
        else:
            assert game.why_illegal(choice, p) is None, (choice, p)
            game.apply(choice, p)
        made.append(choice)
        decisions += 1
    assert game.is_over
    assert decisions - picks > 40
    if mode == "head-to-head":
        assert picks == 58  # 59 open tiles: the last goes to player 2 without a pick
    return made


#: Each whole game played once a process: the legality test's, which the test of a seeded search
#: player's head-to-head game plays again.
_played = functools.cache(_whole_game)


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("name", list(FACTORIES))
@pytest.mark.slow
def test_players_only_make_legal_decisions_to_the_end_of_a_game(mode: str, name: str) -> None:
    _played(mode, name)


def _coop_decisions(player: Player, seed: int, count: int) -> list[Placement]:
    state = CoopGame(seed=seed).new_state()
    out = []
    for _ in range(count):
        decision = player.choose(state.view())
        assert isinstance(decision, Placement)
        state.play(decision)
        out.append(decision)
    return out


def test_a_seeded_search_player_plays_the_same_game_twice() -> None:
    first = _coop_decisions(SearchPlayer(7, iterations=3), seed=5, count=8)
    second = _coop_decisions(SearchPlayer(7, iterations=3), seed=5, count=8)
    assert first == second
    state = CoopGame(seed=5).new_state()
    values = [SearchPlayer(9, iterations=4).analyse(state.view()) for _ in range(2)]
    assert values[0] == values[1]


@pytest.mark.slow
def test_a_seeded_planner_plays_the_same_game_twice() -> None:
    first = _coop_decisions(PlannerPlayer(7, iterations=2), seed=5, count=8)
    second = _coop_decisions(PlannerPlayer(7, iterations=2), seed=5, count=8)
    assert first == second


@pytest.mark.slow
def test_a_seeded_search_player_drafts_and_lays_the_same_head_to_head_game_twice() -> None:
    """The whole game the legality test plays with search players (its draft is most of the
    time), played again."""
    first = _played("head-to-head", "search")
    again = _whole_game("head-to-head", "search")
    assert sum(isinstance(decision, Pick) for decision in again) == 58
    assert again == first


# --- hidden information -----------------------------------------------------------------


def _shuffled(items: list[int], rng: random.Random) -> list[int]:
    """The same items in another order (a list of two or more is always changed)."""
    if len(items) < 2:
        return list(items)
    while True:
        out = list(items)
        rng.shuffle(out)
        if out != items:
            return out


def _coop_pair(seed: int, turns: int) -> tuple[CoopState, CoopState]:
    """Two games with the same history so far and differently ordered hidden stacks."""
    states = (CoopGame(seed=seed).new_state(), CoopGame(seed=seed).new_state())
    greedy = GreedyPlayer()
    for _ in range(turns):
        # Each state's own player decides, so both areas see the same pushes and pops (a pop
        # changes the order in which the frontier is enumerated, and the search's rollouts see it).
        decisions = [greedy.choose(state.view()) for state in states]
        assert decisions[0] == decisions[1] and isinstance(decisions[0], Placement)
        for state in states:
            state.play(decisions[0])
    other = states[1]
    rng = random.Random(seed)
    seat, hidden = other._seat, other._hidden
    before = (list(seat._landscapes), list(seat._tasks))
    seat._landscapes[:] = _shuffled(seat._landscapes, rng)
    seat._tasks[:] = _shuffled(seat._tasks, rng)
    if hidden.removed and seat._landscapes:  # a removed tile and one in the stack trade places
        hidden.removed[0], seat._landscapes[0] = seat._landscapes[0], hidden.removed[0]
    for kind in hidden.markers:
        hidden.markers[kind][:] = _shuffled(hidden.markers[kind], rng)
    assert (seat._landscapes, seat._tasks) != before
    assert states[0].revealed == states[1].revealed
    return states


@pytest.mark.parametrize("turns", [0, 4, 15])
def test_coop_players_decide_the_same_whatever_the_hidden_stack_order(turns: int) -> None:
    a, b = _coop_pair(seed=8, turns=turns)
    va, vb = a.view(), b.view()
    assert (va.unseen, va.markers_unseen, va.landscapes_left, va.task_tiles_left) == (
        vb.unseen,
        vb.markers_unseen,
        vb.landscapes_left,
        vb.task_tiles_left,
    )
    assert GreedyPlayer().choose(va) == GreedyPlayer().choose(vb)
    assert SearchPlayer(3, iterations=3).analyse(va) == SearchPlayer(3, iterations=3).analyse(vb)
    assert PlannerPlayer(3, iterations=2).analyse(va) == PlannerPlayer(3, iterations=2).analyse(vb)


def _head_to_head_pair(seed: int, placements: int) -> tuple[HeadToHeadState, HeadToHeadState]:
    states = (HeadToHeadGame(seed=seed).new_state(), HeadToHeadGame(seed=seed).new_state())
    greedy = GreedyPlayer()
    laid = 0
    while laid < placements or states[0].phase == DRAFT:
        p = states[0].to_move()[0]
        decisions = [greedy.choose(state.view(p)) for state in states]
        assert decisions[0] == decisions[1]
        for state in states:
            state.apply(decisions[0], p)
        laid += isinstance(decisions[0], Placement)
    rng = random.Random(seed)
    seats = states[1].seats
    assert seats is not None
    for seat in seats:
        before = (list(seat._landscapes), list(seat._tasks))
        seat._landscapes[:] = _shuffled(seat._landscapes, rng)
        seat._tasks[:] = _shuffled(seat._tasks, rng)
        assert (seat._landscapes, seat._tasks) != before
    return states


@pytest.mark.parametrize("placements", [0, 6])
def test_head_to_head_players_lay_the_same_whatever_the_hidden_stack_order(placements: int) -> None:
    a, b = _head_to_head_pair(seed=6, placements=placements)
    for p in a.to_move():
        va, vb = a.view(p), b.view(p)
        assert va.revealed == vb.revealed and va.unseen == vb.unseen and va.stacks_left == vb.stacks_left
        assert GreedyPlayer().choose(va) == GreedyPlayer().choose(vb)
        assert SearchPlayer(5, iterations=3).analyse(va) == SearchPlayer(5, iterations=3).analyse(vb)
        assert PlannerPlayer(5, iterations=2).analyse(va) == PlannerPlayer(5, iterations=2).analyse(vb)


def test_duel_players_place_the_same_whatever_the_hidden_sequence() -> None:
    states = (DuelGame(seed=9).new_state(), DuelGame(seed=9).new_state())
    greedy = GreedyPlayer()
    for _ in range(10):
        p = states[0].to_move()[0]
        decisions = [greedy.choose(state.view(p)) for state in states]
        assert decisions[0] == decisions[1] and isinstance(decisions[0], Placement)
        for state in states:
            state.play(decisions[0], p)
    rng = random.Random(9)
    hidden = states[1]._hidden
    hidden.landscapes[:] = _shuffled(hidden.landscapes, rng)
    hidden.tasks[:] = _shuffled(hidden.tasks, rng)
    for kind in hidden.markers:
        hidden.markers[kind][:] = _shuffled(hidden.markers[kind], rng)
    rng.shuffle(hidden.doubles)
    for p in states[0].to_move():
        va, vb = states[0].view(p), states[1].view(p)
        assert GreedyPlayer().choose(va) == GreedyPlayer().choose(vb)
        assert SearchPlayer(2, iterations=3).analyse(va) == SearchPlayer(2, iterations=3).analyse(vb)
        assert PlannerPlayer(2, iterations=2).analyse(va) == PlannerPlayer(2, iterations=2).analyse(vb)


def test_make_player_budgets_reach_the_search_player() -> None:
    player = make_player("search:3", seed=1)
    assert isinstance(player, SearchPlayer) and player.iterations == 3
    with pytest.raises(ValueError, match="unknown player"):
        make_player("oracle")


@pytest.mark.slow
def test_search_v1_is_todays_search_player_unchanged() -> None:
    """The fixed baseline: the same decisions as ``search``, and the score ``search:2`` made on
    seed 3 before the planner came (74, from main at e2013de)."""
    scores = []
    for spec in ("search-v1:2", "search:2"):
        state = CoopGame(seed=3).new_state()
        player = make_player(spec, 3)
        assert isinstance(player, SearchPlayer)
        while not state.is_over:
            state.play(player.choose(state.view()))  # type: ignore[arg-type]
        scores.append(state.score().total)
    assert scores == [74, 74]
