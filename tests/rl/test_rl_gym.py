"""The Gymnasium environment dorf/Coop-v0: the checker, masks, rewards, seeding, hidden information."""

from __future__ import annotations

import random
import warnings

import gymnasium as gym
import numpy as np
import pytest
from gymnasium.utils.env_checker import check_env

import dorf.rl
from dorf.games.coop import CoopGame
from dorf.rl.coop_env import CoopEnv
from dorf.rules.area import Placement


def _play(env: CoopEnv, seed: int, policy_seed: int) -> tuple[list[float], list[int], list[object]]:
    """A masked random episode: rewards, actions and observations."""
    rng = np.random.default_rng(policy_seed)
    obs, info = env.reset(seed=seed)
    rewards, actions, observations = [], [], [obs]
    done = False
    while not done:
        action = int(rng.choice(np.flatnonzero(info["action_mask"])))
        obs, reward, terminated, truncated, info = env.step(action)
        rewards.append(float(reward))
        actions.append(action)
        observations.append(obs)
        done = terminated or truncated
    return rewards, actions, observations


def test_make_and_check_env() -> None:
    env = gym.make(dorf.rl.COOP_ENV_ID)
    assert isinstance(env.unwrapped, CoopEnv)
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # the checker has nothing to warn about
        check_env(env.unwrapped)
    env.close()
    assert isinstance(gym.make("dorf.rl:dorf/Coop-v0", radius=4).unwrapped, CoopEnv)


def test_check_env_small_window_and_ansi() -> None:
    check_env(gym.make(dorf.rl.COOP_ENV_ID, radius=3, render_mode="ansi").unwrapped)
    env = CoopEnv(render_mode="ansi")
    env.reset(seed=1)
    text = env.render()
    assert text is not None and "turn 1, score 0" in text
    assert CoopEnv().render() is None


def test_masks_follow_the_engine_and_return_is_the_score() -> None:
    env = CoopEnv()
    rng = np.random.default_rng(5)
    _, info = env.reset(seed=5)
    total = 0.0
    while True:
        state = env.game_state
        revealed = state.revealed
        assert revealed is not None
        mask = info["action_mask"]
        assert mask.dtype == np.int8
        assert np.array_equal(env.action_masks(), mask.astype(bool))
        assert np.array_equal(mask, env.window.mask(revealed.tile.face, state.legal_moves()))
        assert info["outside_window"] == 0
        for a in np.flatnonzero(mask)[:12]:
            at, rot = env.window.hex_of_action(int(a))
            assert state.why_illegal(Placement(at, rot)) is None
        _, reward, terminated, truncated, info = env.step(int(rng.choice(np.flatnonzero(mask))))
        total += float(reward)
        assert info["score"] == state.score().total == total
        if terminated or truncated:
            break
    assert terminated and not truncated and state.is_over
    assert not info["action_mask"].any()
    with pytest.raises(RuntimeError, match="reset"):
        env.step(0)


def test_seeding_reproduces_episodes() -> None:
    env_a, env_b = CoopEnv(), CoopEnv()
    run_a, run_b = _play(env_a, 11, 1), _play(env_b, 11, 1)
    assert run_a[0] == run_b[0] and run_a[1] == run_b[1]
    assert all(np.array_equal(x, y) for x, y in zip(run_a[2], run_b[2], strict=True))
    _, info_a = env_a.reset(seed=11)
    _, info_c = env_a.reset(seed=12)
    assert info_a["game_seed"] != info_c["game_seed"]
    # unseeded resets continue the seeded generator: the same sequence of shuffles
    env_a.reset(seed=3)
    env_b.reset(seed=3)
    assert [env_a.reset()[1]["game_seed"] for _ in range(3)] == [
        env_b.reset()[1]["game_seed"] for _ in range(3)
    ]


def test_game_seed_replays_in_the_engine() -> None:
    env = CoopEnv()
    rewards, actions, _ = _play(env, 21, 2)
    state = CoopGame(seed=env._game_seed).new_state()
    for action in actions:
        revealed = state.revealed
        assert revealed is not None
        state.push_move(*env.window.move(revealed.tile.face, action))
    assert state.is_over and state.score().total == sum(rewards)
    _, info = env.reset(options={"game_seed": env._game_seed})
    assert info["game_seed"] == env._game_seed


def test_observation_ignores_hidden_stack_order() -> None:
    env = CoopEnv()
    obs, info = env.reset(seed=8)
    rng = random.Random(8)
    for _ in range(10):
        obs, *_, info = env.step(int(rng.choice(list(np.flatnonzero(info["action_mask"])))))
    state = env.game_state
    before = [list(state._seat._tasks), list(state._seat._landscapes), state._hidden.removed[:]]
    rng.shuffle(state._seat._tasks)
    rng.shuffle(state._seat._landscapes)
    state._seat._landscapes[0], state._hidden.removed[0] = (
        state._hidden.removed[0],
        state._seat._landscapes[0],
    )
    for pile in state._hidden.markers.values():
        rng.shuffle(pile)
    assert before != [state._seat._tasks, state._seat._landscapes, state._hidden.removed]
    assert np.array_equal(env._observe(), obs)


def test_illegal_actions() -> None:
    env = CoopEnv()
    _, info = env.reset(seed=2)
    illegal = int(np.flatnonzero(info["action_mask"] == 0)[0])
    _, reward, terminated, truncated, info = env.step(illegal)
    assert (reward, terminated, truncated, info["illegal_action"]) == (0.0, True, False, True)
    strict = CoopEnv(illegal_action="raise")
    strict.reset(seed=2)
    with pytest.raises(ValueError, match="not legal"):
        strict.step(illegal)
    with pytest.raises(ValueError):
        CoopEnv(illegal_action="ignore")
    with pytest.raises(ValueError):
        CoopEnv(render_mode="human")
    with pytest.raises(RuntimeError):
        _ = CoopEnv().game_state


def test_truncated_when_the_window_is_full() -> None:
    """Radius 1: seven cells; the episode is truncated once no legal placement is inside."""
    env = CoopEnv(radius=1)
    _, info = env.reset(seed=4)
    rng = np.random.default_rng(4)
    steps = 0
    while True:
        _, _, terminated, truncated, info = env.step(int(rng.choice(np.flatnonzero(info["action_mask"]))))
        steps += 1
        if terminated or truncated:
            break
    assert truncated and not terminated and steps <= 7
    assert info["outside_window"] > 0 and not info["action_mask"].any()
    assert not env.game_state.is_over
