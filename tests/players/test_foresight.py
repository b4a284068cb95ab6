"""The coach's look at sampled futures (:mod:`dorf.players.foresight`)."""

from __future__ import annotations

from dorf.games.coop import CoopGame, CoopState
from dorf.players import make_player
from dorf.players.foresight import foresee, foresight_gains
from dorf.players.planner import PlannerPlayer
from dorf.rules.area import Placement
from dorf.rules.hexgrid import Hex, cell_of
from dorf.rules.tasks import COMPLETED, OPEN


def _turn_nine_of_seed_five() -> CoopState:
    """Seed 5 after eight greedy placements: the tile shown can complete river 6 at -4,1 turned 1."""
    state = CoopGame(seed=5).new_state()
    greedy = make_player("greedy")
    while state.turn < 9:
        state.play(greedy.choose(state.view()))
    return state


def test_a_placement_that_completes_a_task_completes_it_in_every_future() -> None:
    """Seen by planner-v5, whose weights do not move, so the words recorded here stay (the rollouts
    that play the futures follow the evaluation's weights)."""
    state = _turn_nine_of_seed_five()
    view = state.view()
    completing, elsewhere = Placement(Hex(-4, 1), 1), Placement(Hex(0, -2), 0)
    river = next(
        i for i, task in enumerate(view.area.tasks) if task.status is OPEN and str(task.spec) == "river 6"
    )
    area = view.area
    revealed = view.revealed
    assert revealed is not None
    area.push(revealed.tile.face, cell_of(*completing.at), completing.rot)
    assert area.tasks[river].status is COMPLETED
    area.pop()
    mine = foresee(PlannerPlayer(1, version="planner-v5"), view, completing, 16, seed=7)
    theirs = foresee(PlannerPlayer(1, version="planner-v5"), view, elsewhere, 16, seed=7)
    assert mine.futures == theirs.futures == 16
    assert mine.share(mine.tasks[river]) == 1.0
    assert theirs.share(theirs.tasks[river]) < 1.0
    fresh = _turn_nine_of_seed_five().view()
    assert foresight_gains(PlannerPlayer(1, version="planner-v5"), fresh, completing, elsewhere, seed=7) == [
        "is more likely to complete river 6 in the next 16 tiles: 100% instead of 88%"
    ]


def test_foresight_repeats_from_its_seed_and_leaves_the_area_as_it_was() -> None:
    """The same seed, the same futures (on a game replayed the same way: the order in which an area
    lists its moves follows its history, see PlayArea.legal_moves)."""
    state = _turn_nine_of_seed_five()
    view = state.view()
    placed = len(view.area.placed)
    placement = view.legal_placements()[3]
    first = foresee(PlannerPlayer(1), view, placement, 8, seed=3)
    assert len(view.area.placed) == placed and state.turn == 9
    again = foresee(PlannerPlayer(2), _turn_nine_of_seed_five().view(), placement, 8, seed=3)
    assert first == again
    other = foresee(PlannerPlayer(1), _turn_nine_of_seed_five().view(), placement, 8, seed=4)
    assert other != first and other.futures == 8
