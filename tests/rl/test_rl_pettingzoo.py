"""PettingZoo AEC environments for the Duel and Head to Head: api_test, masks, rewards, seeding, views."""

from __future__ import annotations

import random
import warnings
from typing import Any

import numpy as np
import pettingzoo  # noqa: F401
import pytest
from pettingzoo.test import api_test

from dorf.rl.aec import DuelEnv, HeadToHeadEnv, duel_env, head_to_head_env
from dorf.rules.area import Placement

#: api_test's advice for flat Box observations; ours are PettingZoo's usual {"observation", "action_mask"}.
_ADVICE = ("Observation is not a NumPy array", "Observation space for each agent probably should be")


def _run(env: Any, seed: int, policy_seed: int) -> tuple[list[tuple[str, int | None]], dict[str, float], Any]:
    """A masked random game: the (agent, action) sequence, each agent's return, the last info."""
    rng = np.random.default_rng(policy_seed)
    env.reset(seed=seed)
    moves: list[tuple[str, int | None]] = []
    returns = dict.fromkeys(env.possible_agents, 0.0)
    info: Any = None
    for agent in env.agent_iter():
        obs, reward, terminated, truncated, info = env.last()
        returns[agent] += reward
        action = None if terminated or truncated else int(rng.choice(np.flatnonzero(obs["action_mask"])))
        moves.append((agent, action))
        env.step(action)
    return moves, returns, info


@pytest.mark.parametrize("make", [duel_env, head_to_head_env])
def test_api_test(make: Any) -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # api_test has nothing else to warn about
        for advice in _ADVICE:
            warnings.filterwarnings("ignore", message=advice)
        api_test(make(), num_cycles=1000)


@pytest.mark.parametrize("make", [duel_env, head_to_head_env])
def test_seeding_reproduces_games(make: Any) -> None:
    first, second = _run(make(), 5, 1), _run(make(), 5, 1)
    assert first[0] == second[0] and first[1] == second[1]
    env = make()
    env.reset(seed=5)
    seed_a = env.infos["player_0"]["game_seed"]
    env.reset(seed=6)
    assert env.infos["player_0"]["game_seed"] != seed_a
    env.reset(options={"game_seed": 77})
    assert env.infos["player_1"]["game_seed"] == 77


def test_duel_masks_rewards_and_end() -> None:
    env = DuelEnv()
    env.reset(seed=3)
    rng = np.random.default_rng(3)
    returns = {a: 0.0 for a in env.possible_agents}
    while env.agents:
        agent = env.agent_selection
        obs, reward, terminated, truncated, _ = env.last()
        returns[agent] += reward
        if terminated or truncated:
            env.step(None)
            continue
        state = env.game_state
        player = env.possible_agents.index(agent)
        assert player == state.to_move()[0]
        revealed = state.revealed
        assert revealed is not None
        mask = obs["action_mask"]
        assert np.array_equal(mask, env.window.mask(revealed.tile.face, state.legal_moves(player)))
        other = env.possible_agents[1 - player]
        assert not env.observe(other)["action_mask"].any()
        action = int(rng.choice(np.flatnonzero(mask)))
        at, rot = env.window.hex_of_action(action)
        assert state.why_illegal(Placement(at, rot), player) is None
        env.step(action)
    totals = [pad.total for pad in env.game_state.scores()]
    assert [returns["player_0"], returns["player_1"]] == totals
    assert env.game_state.is_over


def test_head_to_head_draft_then_laying() -> None:
    env = HeadToHeadEnv()
    env.reset(seed=9)
    picks = env.picks
    assert picks == len(env.tileset.tiles) and env.action_space("player_0").n == picks + env.window.actions
    obs = env.observe("player_0")
    assert set(np.flatnonzero(obs["action_mask"])) == set(env.game_state.pool)
    rng = random.Random(9)
    while env.game_state.phase == "draft":
        agent = env.agent_selection
        assert env.possible_agents.index(agent) == env.game_state.to_move()[0]
        env.step(rng.choice(env.game_state.pool))
    assert env.game_state.phase == "laying"
    agent = env.agent_selection
    player = env.possible_agents.index(agent)
    mask = env.observe(agent)["action_mask"]
    assert not mask[:picks].any()
    revealed = env.game_state.revealed(player)
    assert revealed is not None
    expected = env.window.mask(revealed.tile.face, env.game_state.legal_moves(player))
    assert np.array_equal(mask[picks:], expected)
    with pytest.raises(ValueError, match="not legal"):
        env.step(int(env.game_state.pool[0]) if env.game_state.pool else 0)


@pytest.mark.parametrize("make", [duel_env, head_to_head_env])
def test_reward_kinds(make: Any) -> None:
    _, score, info = _run(make(reward="score"), 2, 2)
    _, margin, _ = _run(make(reward="margin"), 2, 2)
    _, win, _ = _run(make(reward="win"), 2, 2)
    a, b = info["scores"]
    assert (score["player_0"], score["player_1"]) == (a, b)
    assert (margin["player_0"], margin["player_1"]) == (a - b, b - a)
    winner = info["winner"]
    expected = (0.0, 0.0) if winner is None else ((1.0, -1.0) if winner == 0 else (-1.0, 1.0))
    assert (win["player_0"], win["player_1"]) == expected
    with pytest.raises(ValueError):
        make(reward="elo")


def test_duel_observation_ignores_hidden_order() -> None:
    env = DuelEnv()
    env.reset(seed=4)
    rng = random.Random(4)
    for _ in range(12):
        env.step(int(rng.choice(list(np.flatnonzero(env.observe(env.agent_selection)["action_mask"])))))
    before = {a: env.observe(a)["observation"] for a in env.possible_agents}
    hidden = env.game_state._hidden
    order = [list(hidden.tasks), list(hidden.landscapes)]
    rng.shuffle(hidden.tasks)
    rng.shuffle(hidden.landscapes)
    hidden.landscapes[0], hidden.removed[0] = hidden.removed[0], hidden.landscapes[0]
    for pile in hidden.markers.values():
        rng.shuffle(pile)
    rng.shuffle(hidden.doubles)
    assert order != [hidden.tasks, hidden.landscapes]
    for agent in env.possible_agents:
        assert np.array_equal(env.observe(agent)["observation"], before[agent])


def test_head_to_head_observation_ignores_hidden_order() -> None:
    env = HeadToHeadEnv()
    env.reset(seed=6)
    rng = random.Random(6)
    while env.game_state.phase == "draft" or len(env.game_state.history) < 70:
        env.step(int(rng.choice(list(np.flatnonzero(env.observe(env.agent_selection)["action_mask"])))))
    before = {a: env.observe(a)["observation"] for a in env.possible_agents}
    seats = env.game_state.seats
    assert seats is not None
    for seat in seats:
        rng.shuffle(seat._tasks)
        rng.shuffle(seat._landscapes)
    for agent in env.possible_agents:
        assert np.array_equal(env.observe(agent)["observation"], before[agent])


def test_truncation_and_render() -> None:
    env = DuelEnv(radius=1, render_mode="ansi")
    env.reset(seed=1)
    rng = np.random.default_rng(1)
    while not any(env.truncations.values()) and not any(env.terminations.values()):
        env.step(int(rng.choice(np.flatnonzero(env.observe(env.agent_selection)["action_mask"]))))
    assert all(env.truncations.values()) and not env.game_state.is_over
    text = env.render()
    assert text is not None and "scores" in text
    assert HeadToHeadEnv().render() is None


@pytest.mark.parametrize("make", [duel_env, head_to_head_env])
def test_observe_into_writes_over_the_arrays_what_observe_returns(make: Any) -> None:
    """The batched self-play environment reads observations this way: into arrays it keeps, which
    hold the last game's planes before (every plane is written again)."""
    env = make()
    env.reset(seed=5)
    space = env.observation_space("player_0")
    planes = np.full(space["observation"].shape, 7.0, dtype=np.float32)
    mask = np.ones(space["action_mask"].shape, dtype=np.int8)
    rng = random.Random(5)
    for _ in range(75):  # past Head to Head's draft
        for agent in env.agents:
            seen = env.observe(agent)
            env.observe_into(agent, planes, mask)
            assert np.array_equal(planes, seen["observation"]) and np.array_equal(mask, seen["action_mask"])
        legal = np.flatnonzero(env.observe(env.agent_selection)["action_mask"])
        env.step(int(legal[rng.randrange(len(legal))]))
    with pytest.raises(ValueError, match="out must be a float32 array"):
        env.observe_into(env.agent_selection, planes[1:], mask)
