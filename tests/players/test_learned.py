"""The ``learned`` player: the standard library only (neither numpy nor JAX), legal play in every
game, the shipped policy."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from dorf.games.coop import CoopGame
from dorf.games.modes import MODES
from dorf.players import make_player
from dorf.players.learned import FEATURES, Policy, load_policy


def test_the_learned_player_plays_a_legal_solo_game_without_jax() -> None:
    already = {name for name in ("numpy", "jax") if name in sys.modules}
    player = make_player("learned", seed=3)
    assert player.name == "learned"
    state = CoopGame(seed=5).new_state()
    while not state.is_over:
        decision = player.choose(state.view())
        assert state.why_illegal(decision) is None
        state.play(decision)
    assert state.score().total > 0
    # Other tests in the same process may have imported them; this one did not.
    assert {name for name in ("numpy", "jax") if name in sys.modules} == already


@pytest.mark.parametrize("mode", ["duel", "head-to-head"])
def test_the_learned_player_plays_the_two_player_games_legally(mode: str) -> None:
    state = MODES[mode].new(seed=2)
    players = [make_player("learned", seed=1), make_player("greedy")]
    for _ in range(30):
        if state.is_over:
            break
        seat = state.to_move()[0]
        decision = players[seat].choose(state.view(seat))
        assert state.why_illegal(decision, seat) is None
        state.apply(decision, seat)


def test_the_shipped_policy_loads_and_is_small() -> None:
    policy = load_policy()
    assert len(policy.w) == len(FEATURES) and len(policy.w[0]) == len(policy.out)
    shipped = Path(__file__).parents[2] / "src" / "dorf" / "data" / "learned-policy.npz"
    if shipped.exists():
        assert shipped.stat().st_size < 1_000_000
        assert "command" in policy.about


@pytest.mark.slow
def test_the_initial_policy_plays_as_planner_0() -> None:
    initial = Policy.initial()
    learned = make_player("learned")
    learned.policy = initial  # type: ignore[attr-defined]
    planner = make_player("planner:0")
    state = CoopGame(seed=8).new_state()
    while not state.is_over:
        view = state.view()
        decision = planner.choose(view)
        assert learned.choose(view) == decision
        state.play(decision)


def test_a_policy_file_that_is_not_one_is_a_value_error(tmp_path: Path) -> None:
    import zipfile

    bad = tmp_path / "bad.npz"
    with zipfile.ZipFile(bad, "w") as archive:
        archive.writestr("about.npy", b"not numpy")
    with pytest.raises(ValueError, match="not a policy file"):
        load_policy(bad)
