"""The planner's versions: one class, a row of settings each (dorf.players.planner.VERSIONS).

The frozen versions (``planner-v6`` ... ``planner-v1``) are fixed baselines: a change to the
planner is a new row, never an edit of an old one. Each version's settings are pinned by a
fingerprint, and its decisions at a few positions (a small budget, so the test is cheap) by the
placements it chose: an edit of the shared code that changes what an old version plays fails here.
The pinned placements are what the subclass chain of 3d3af14 chose (issue 62).
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterator

import pytest

from dorf.games.modes import MODES
from dorf.games.state import GameView
from dorf.players.levels import level_spec
from dorf.players.planner import VERSIONS, PlannerPlayer
from dorf.players.registry import BUDGETED, PLAYERS, make_player

#: The first 16 hex digits of the SHA-256 of each version's settings as sorted JSON.
FINGERPRINTS = {
    "planner": "3547ad4a14c84dcb",
    "planner-v6": "19b576882f702eae",
    "planner-v5": "4437205bccb774a1",
    "planner-v4": "1ee96f2efe93cfb7",
    "planner-v3": "112dbe4eaefb1fa4",
    "planner-v2": "3b121cc043965dc4",
    "planner-v1": "efc6964a0e9ebd73",
}
#: The positions: a game dealt from the seed, played by ``greedy``, at these placements (the
#: cooperative game's 48th is in its endgame, where only ``planner-v4`` and the newer widen).
POSITIONS = (("coop", 5, (0, 30, 48)), ("duel", 5, (10,)), ("head-to-head", 5, (10,)))
#: What each version chooses there at 4 futures a decision, seeded 7.
DECISIONS = {
    "planner": ["0,0/3", "5,-5/0", "5,-8/5", "0,-2/4", "1,-2/4"],
    "planner-v6": ["0,0/3", "-3,4/0", "-3,-4/1", "0,-2/4", "1,-2/4"],
    "planner-v5": ["0,0/0", "-1,3/0", "5,-8/5", "0,-2/4", "1,-2/4"],
    "planner-v4": ["0,0/0", "3,-2/0", "-4,-3/1", "0,-2/4", "1,-2/4"],
    "planner-v3": ["0,0/0", "3,-2/0", "7,-5/5", "0,-2/4", "1,-2/4"],
    "planner-v2": ["0,0/5", "3,-2/0", "7,-5/5", "0,-2/4", "1,-4/2"],
    "planner-v1": ["0,0/0", "3,-2/0", "6,-5/4", "0,-2/4", "1,-4/2"],
}


def fingerprint(name: str) -> str:
    text = json.dumps(VERSIONS[name].as_json(), sort_keys=True)
    return hashlib.sha256(text.encode()).hexdigest()[:16]


def positions(mode: str, seed: int, picks: tuple[int, ...]) -> Iterator[GameView]:
    """The views at the ``picks``-th placements of a greedy game (seat by seat, in turn)."""
    state = MODES[mode].new(seed)
    greedy = make_player("greedy")
    placed = 0
    while waiting := state.to_move():
        p = waiting[0]
        if state.view(p).to_place is not None:
            if placed in picks:
                yield state.view(p)
            placed += 1
        state.apply(greedy.choose(state.view(p)), p)


def test_every_version_is_a_row_of_settings_under_its_registry_name() -> None:
    assert list(VERSIONS) == list(FINGERPRINTS)
    for name in VERSIONS:
        for made in (PLAYERS[name](3), BUDGETED[name](3, iterations=8), make_player(f"{name}:2s")):
            assert isinstance(made, PlannerPlayer) and made.name == name
            assert made.settings is VERSIONS[name]
    assert level_spec("expert") == "planner" and level_spec("hard") == "planner-v1:8"
    with pytest.raises(ValueError, match="unknown planner version 'planner-v7'"):
        PlannerPlayer(1, version="planner-v7")


def test_no_version_s_settings_change() -> None:
    """A new planner is a new row: the rows of the versions before it keep their fingerprints
    (and the newest its own, until a version is frozen and a new one added)."""
    assert {name: fingerprint(name) for name in VERSIONS} == FINGERPRINTS
    assert len(set(FINGERPRINTS.values())) == len(FINGERPRINTS)


@pytest.mark.slow
def test_every_version_plays_the_decisions_it_always_played() -> None:
    """Each version at the same positions, seeded the same: the placements 3d3af14's classes
    chose. No two versions choose the same five, so the check tells every version apart."""
    chosen: dict[str, list[str]] = {name: [] for name in VERSIONS}
    for mode, seed, picks in POSITIONS:
        for view in positions(mode, seed, picks):
            for name in VERSIONS:
                chosen[name].append(str(PlannerPlayer(7, version=name, iterations=4).choose(view)))
    assert chosen == DECISIONS
    assert len({tuple(decisions) for decisions in DECISIONS.values()}) == len(DECISIONS)
