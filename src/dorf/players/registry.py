"""Computer players: one interface for every front end.

A player sees only what its seat may know (a view: ``CoopState.view()``,
``DuelState.view(p)``, ``HeadToHeadState.view(p)``: never the order of a
stack, nor the removed tiles) and returns a decision: a placement, or a pick
in the Head to Head draft.

- ``random``: uniformly among the legal decisions;
- ``greedy``: one placement ahead with the evaluation of :mod:`dorf.players.greedy`;
- ``search-v1`` (also ``search``): the first look-ahead over sampled futures
  (:mod:`dorf.players.search`), kept unchanged as a fixed baseline;
- ``planner``: the strongest, a look-ahead with a tuned evaluation
  (:mod:`dorf.players.planner`); ``planner-v6`` (its cooperative rollouts placing task tiles
  by edge contacts alone, over 192 futures), ``planner-v5`` (open tasks counted 1.96 times in the
  cooperative evaluation too), ``planner-v4`` (6 candidates over 96 futures there too),
  ``planner-v3`` (without its wider endgame too), ``planner-v2`` (12-tile
  rollouts over 48 futures in the cooperative game) and ``planner-v1`` (8-tile rollouts) are it
  as it was before, kept unchanged as fixed baselines (one class, a row of settings each:
  :data:`dorf.players.planner.VERSIONS`);
- ``learned``: a one-placement policy trained by ``dorf learn`` (:mod:`dorf.players.learned`;
  the standard library);
- the levels for people, ``easy``, ``medium``, ``hard`` and ``expert``
  (:mod:`dorf.players.levels`): each one of the players above at a fixed budget.

>>> from dorf.games.coop import CoopGame
>>> state = CoopGame(seed=4).new_state()
>>> decision = make_player("greedy").choose(state.view())
>>> state.why_illegal(decision) is None
True
"""

from __future__ import annotations

import random
from collections.abc import Callable
from functools import partial
from typing import Protocol

from dorf.games.headtohead import Pick
from dorf.games.state import GameView
from dorf.players.greedy import DEFAULT, Weights, best_placement, draft_value
from dorf.players.learned import LearnedPlayer
from dorf.players.levels import level_spec
from dorf.players.planner import VERSIONS, PlannerPlayer
from dorf.players.search import SearchPlayer, drafting
from dorf.rules.area import Placement

#: What a player is given: a view of any of the games (what its seat may know).
View = GameView
Decision = Placement | Pick


class Player(Protocol):
    """Anything that turns a view into a decision."""

    name: str

    def choose(self, view: View) -> Decision: ...


class RandomPlayer:
    """Picks uniformly among the legal decisions (sorted, so a seed fixes its play)."""

    name = "random"

    def __init__(self, seed: int = 0) -> None:
        self.rng = random.Random(seed)

    def choose(self, view: View) -> Decision:
        options: list[Decision] = list(view.legal_decisions())
        if not options:
            raise ValueError("there is no legal decision to choose from")
        return options[self.rng.randrange(len(options))]


class GreedyPlayer:
    """One placement ahead (see :mod:`dorf.players.greedy`); deterministic: ties go to the first in order."""

    name = "greedy"

    def __init__(self, seed: int = 0, weights: Weights = DEFAULT) -> None:
        self.weights = weights

    def choose(self, view: View) -> Decision:
        if drafting(view):
            mine = [view.tiles[i] for i in view.owned[view.player]]
            return Pick(max(view.pool, key=lambda i: (draft_value(view.tiles[i], mine), -i)))
        revealed = view.to_place
        if revealed is None:
            raise ValueError("there is no legal decision to choose from")
        return best_placement(view.area, revealed.tile.face, revealed.task, revealed.tile.flag, self.weights)


#: The planner under each of its versions' names (``planner``, ``planner-v6`` ... ``planner-v1``).
_PLANNERS: dict[str, Callable[..., PlannerPlayer]] = {
    name: partial(PlannerPlayer, version=name) for name in VERSIONS
}
#: Player names and how to make them from a seed.
PLAYERS: dict[str, Callable[[int], Player]] = {
    "random": RandomPlayer,
    "greedy": GreedyPlayer,
    "search": SearchPlayer,
    "search-v1": SearchPlayer,
    **_PLANNERS,
    "learned": LearnedPlayer,
}
#: Players that take a budget: sampled futures (``:40``) or seconds (``:2s``) a decision.
BUDGETED: dict[str, Callable[..., Player]] = {
    "search": SearchPlayer,
    "search-v1": SearchPlayer,
    **_PLANNERS,
}


def make_player(spec: str, seed: int = 0) -> Player:
    """A player from its name, optionally with a budget: ``search``, ``search:2s`` (seconds a
    decision), ``planner:100`` (sampled futures a decision; ``planner:0`` looks one placement
    ahead), or a level (``easy`` ... ``expert``).

    >>> make_player("search:0.5s").seconds, make_player("search-v1:40").iterations
    (0.5, 40)
    >>> make_player("expert").name
    'planner'
    """
    level = level_spec(spec)
    if level is not None:
        return make_player(level, seed)
    name, _, budget = spec.partition(":")
    if name not in PLAYERS:
        choices = ", ".join([*PLAYERS, "easy", "medium", "hard", "expert"])
        raise ValueError(f"unknown player {name!r}: choose from {choices}")
    if not budget:
        return PLAYERS[name](seed)
    if name not in BUDGETED:
        raise ValueError(f"player {name} takes no budget")
    try:
        if budget.endswith("s"):
            seconds = float(budget[:-1])
            if not seconds > 0 or seconds == float("inf"):
                raise ValueError
            return BUDGETED[name](seed, seconds=seconds)
        iterations = int(budget)
        if iterations < (0 if name.startswith("planner") else 1):
            raise ValueError
        return BUDGETED[name](seed, iterations=iterations)
    except ValueError:
        raise ValueError(
            f"budget {budget!r} is not a positive number of futures or seconds (e.g. 2s)"
        ) from None
