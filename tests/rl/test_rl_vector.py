"""The batched environments (dorf.rl.vector): the same trajectories as single environments, on
both play-area backends, with the compiled loop and the Python loop, in both layouts."""

from __future__ import annotations

import doctest
import os
import warnings
from typing import Any

import gymnasium as gym
import numpy as np
import pytest
from gymnasium.utils.env_checker import check_env

import dorf.rl
import dorf.rl.vector as vector
from dorf.rl.coop_env import CoopEnv
from dorf.rl.vector import CoopVectorEnv, SelfPlayVectorEnv, expand
from dorf.rules.area import COMPILED

BACKENDS = ["compiled", "pure"] if COMPILED is not None else ["pure"]
LOOPS = ["compiled", "python"] if vector._compiled is not None else ["python"]


def _full(obs: Any, layout: str) -> np.ndarray:
    return obs if layout == "full" else expand(obs)


def _compare(
    layout: str, loop: str, radius: int, steps: int, envs: int = 3, seed: int = 11, illegal: float = 0.03
) -> int:
    """Step a batch and ``envs`` single environments with the same seeds and actions (a few
    illegal ones among them), comparing everything at every step; returns the episodes ended."""
    batch = CoopVectorEnv(envs, radius=radius, layout=layout, loop=loop)
    singles = [CoopEnv(radius=radius) for _ in range(envs)]
    obs, infos = batch.reset(seed=seed)
    now = [env.reset(seed=seed + i) for i, env in enumerate(singles)]
    rng = np.random.default_rng(seed)
    restart = [False] * envs
    ended = 0
    for _ in range(steps):
        full = _full(obs, layout)
        for i, (single_obs, info) in enumerate(now):
            assert np.array_equal(full[i], single_obs)
            assert np.array_equal(infos["action_mask"][i], info["action_mask"])
            for key in ("score", "turn", "game_seed", "outside_window"):
                assert infos[key][i] == info[key], key
        actions = []
        for i in range(envs):
            mask = infos["action_mask"][i]
            if mask.any() and rng.random() > illegal:
                actions.append(int(rng.choice(np.flatnonzero(mask))))
            else:
                actions.append(int(rng.integers(batch.window.actions)))
        obs, rewards, terminated, truncated, infos = batch.step(actions)
        for i, env in enumerate(singles):
            if restart[i]:  # Gymnasium's next-step autoreset: the action is ignored
                now[i] = env.reset()
                restart[i] = False
                assert (rewards[i], terminated[i], truncated[i]) == (0.0, False, False)
                continue
            single_obs, reward, term, trunc, info = env.step(actions[i])
            now[i] = (single_obs, info)
            assert (rewards[i], terminated[i], truncated[i]) == (reward, term, trunc)
            assert infos["illegal_action"][i] == info.get("illegal_action", False)
            restart[i] = term or trunc
            ended += term or trunc
    return ended


@pytest.mark.parametrize("engine_backend", BACKENDS, indirect=True)
@pytest.mark.parametrize("loop", LOOPS)
@pytest.mark.parametrize("layout", ["full", "compact"])
@pytest.mark.slow
def test_same_trajectories_as_single_environments(engine_backend: str, loop: str, layout: str) -> None:
    assert _compare(layout, loop, radius=4, steps=110) >= 3  # whole episodes, autoresets included


@pytest.mark.parametrize("engine_backend", BACKENDS, indirect=True)
@pytest.mark.parametrize("loop", LOOPS)
def test_same_trajectories_default_window(engine_backend: str, loop: str) -> None:
    _compare("compact", loop, radius=10, steps=60, envs=2)


@pytest.mark.parametrize("loop", LOOPS)
def test_same_truncations_in_a_tiny_window(loop: str) -> None:
    assert _compare("full", loop, radius=1, steps=40, illegal=0.0) >= 3


def test_make_vec_gives_the_batched_environment() -> None:
    env = gym.make_vec(dorf.rl.COOP_ENV_ID, num_envs=4, radius=3)
    assert isinstance(env, CoopVectorEnv)
    obs, infos = env.reset(seed=0)
    assert obs.shape == (4, *env.single_observation_space.shape)
    assert infos["action_mask"].shape == (4, env.single_action_space.n)
    assert env.metadata["autoreset_mode"] is gym.vector.AutoresetMode.NEXT_STEP
    assert env.observation_space.contains(obs)
    env.close()
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # the single environment still passes the checker
        check_env(gym.make(dorf.rl.COOP_ENV_ID, radius=3).unwrapped)


def test_reset_mask_copy_and_sampled_actions() -> None:
    env = CoopVectorEnv(3, radius=4, layout="compact", copy=True)
    obs, infos = env.reset(seed=5)
    rng = np.random.default_rng(0)
    for _ in range(5):
        actions = env.sample_actions(rng)
        assert all(infos["action_mask"][i, a] for i, a in enumerate(actions))
        obs, _, _, _, infos = env.step(actions)
    assert env.observation_space.contains(obs)
    kept = infos["turn"].copy()
    obs2, infos2 = env.reset(options={"reset_mask": np.array([False, True, False])})
    assert infos2["turn"].tolist() == [kept[0], 1, kept[2]]
    assert infos2["turn"] is not infos["turn"]  # copy=True: new arrays
    single = CoopEnv(radius=4)
    single.reset(seed=6)
    single_obs, _ = single.reset()  # environment 1's second game
    assert np.array_equal(expand(obs2)[1], single_obs)


def test_illegal_actions_raise_when_asked_and_reset_comes_first() -> None:
    for loop in LOOPS:
        env = CoopVectorEnv(2, radius=3, illegal_action="raise", loop=loop)
        with pytest.raises(RuntimeError):
            env.step([0, 0])
        env.reset(seed=1)
        with pytest.raises(ValueError, match="not legal"):
            env.step([-1, -1])
    with pytest.raises(ValueError):
        CoopVectorEnv(2, layout="sparse")


def test_module_examples() -> None:
    result = doctest.testmod(vector)
    assert result.attempted > 0 and result.failed == 0


def _compare_self_play(
    mode: str, loop: str, radius: int, steps: int, reward: str = "score", envs: int = 2, seed: int = 3
) -> tuple[int, int]:
    """Step a self-play batch and ``envs`` AEC environments with the same seeds and actions,
    comparing observations, masks, seats to play, scores, seeds, rewards and ends at every step;
    returns the games that ended (terminated, truncated)."""
    from dorf.rl.aec import AGENTS, duel_env, head_to_head_env

    make = duel_env if mode == "duel" else head_to_head_env
    batch = SelfPlayVectorEnv(mode, envs, radius=radius, reward=reward, loop=loop)
    assert batch.loop == loop
    singles = [make(radius=radius, reward=reward) for _ in range(envs)]
    obs, infos = batch.reset(seed=seed)
    for i, env in enumerate(singles):
        env.reset(seed=seed + i)
    rng = np.random.default_rng(1)
    restart = [False] * envs
    ended = [0, 0]
    for _ in range(steps):
        for i, env in enumerate(singles):
            agent = env.agent_selection
            seen = env.observe(agent)
            assert np.array_equal(obs[i], seen["observation"])
            assert np.array_equal(infos["action_mask"][i], seen["action_mask"])
            over = env.terminations[agent] or env.truncations[agent]
            assert infos["to_play"][i] == (-1 if over else AGENTS.index(agent))
            assert tuple(infos["scores"][i]) == tuple(env.infos[agent]["scores"])
            assert infos["game_seed"][i] == env.infos[agent]["game_seed"]
        actions = batch.sample_actions(rng)
        obs, rewards, terminated, truncated, infos = batch.step(actions)
        for i, env in enumerate(singles):
            if restart[i]:  # the next-step autoreset: the action is ignored
                env.reset()
                restart[i] = False
                assert rewards[i].tolist() == [0.0, 0.0]
                assert not terminated[i] and not truncated[i]
                continue
            env.step(int(actions[i]))
            assert rewards[i].tolist() == [env.rewards[a] for a in AGENTS]
            assert terminated[i] == env.terminations[AGENTS[0]]
            assert truncated[i] == env.truncations[AGENTS[0]]
            restart[i] = bool(terminated[i] or truncated[i])
            ended[0] += bool(terminated[i])
            ended[1] += bool(truncated[i])
    return ended[0], ended[1]


@pytest.mark.parametrize("engine_backend", BACKENDS, indirect=True)
@pytest.mark.parametrize("mode", ["duel", "head-to-head"])
@pytest.mark.parametrize("loop", LOOPS)
def test_self_play_batches_follow_the_aec_environments(engine_backend: str, mode: str, loop: str) -> None:
    # the draft is 59 picks; a window of radius 4 cuts games short (truncated) now and then
    _compare_self_play(mode, loop, radius=4, steps=70 if mode == "head-to-head" else 90)


# every reward kind on the default backend, the win (whose end is the last to be reached) on both
REWARD_BACKENDS = [(BACKENDS[0], "score"), (BACKENDS[0], "margin")] + [(b, "win") for b in BACKENDS]


@pytest.mark.parametrize(("engine_backend", "reward"), REWARD_BACKENDS, indirect=["engine_backend"])
@pytest.mark.parametrize("mode", ["duel", "head-to-head"])
@pytest.mark.parametrize("loop", LOOPS)
@pytest.mark.slow
def test_self_play_batches_play_whole_games_as_the_aec_environments(
    engine_backend: str, reward: str, mode: str, loop: str
) -> None:
    """The default window: games end by the rules (the last landscape tiles placed; in Head to
    Head the draft first, then both players' stacks, one placement unseen by the other until
    they have placed too), are dealt again, and every reward kind (the win with Head to Head's
    tie-breakers) is the AEC environment's, on both loops and backends."""
    steps = 240 if mode == "duel" else 300
    terminated, _ = _compare_self_play(mode, loop, radius=10, steps=steps, reward=reward)
    assert terminated >= 2


@pytest.mark.parametrize("mode", ["duel", "head-to-head"])
def test_a_self_play_step_with_an_illegal_action_moves_no_game(mode: str) -> None:
    for loop in LOOPS:
        env = SelfPlayVectorEnv(mode, 2, radius=4, loop=loop)
        with pytest.raises(RuntimeError, match="reset"):
            env.step([0, 0])
        obs, infos = env.reset(seed=2)
        before, masks = obs.copy(), infos["action_mask"].copy()
        good = int(np.flatnonzero(masks[0])[0])
        bad = int(np.flatnonzero(masks[1] == 0)[0])
        with pytest.raises(ValueError, match="not legal for player_0 now in environment 1"):
            env.step([good, bad])
        assert np.array_equal(env._obs, before) and np.array_equal(infos["action_mask"], masks)
        obs, _, _, _, infos = env.step([good, int(np.flatnonzero(masks[1])[0])])
        assert infos["to_play"].tolist() == [1, 1]


def test_the_self_play_batches_choose_the_compiled_loop_where_it_is_built() -> None:
    expected = "python" if vector._compiled is None else "compiled"
    for mode in ("duel", "head-to-head"):
        assert SelfPlayVectorEnv(mode, 1, radius=4).loop == expected
    if vector._compiled is None:
        with pytest.raises(ValueError, match="not built here"):
            SelfPlayVectorEnv("duel", 1, radius=4, loop="compiled")
    with pytest.raises(ValueError, match="reward must be one of"):
        SelfPlayVectorEnv("duel", 1, reward="points")
    with pytest.raises(ValueError, match="loop must be one of"):
        SelfPlayVectorEnv("duel", 1, loop="fast")


def test_the_compiled_loop_is_built_where_it_must_be() -> None:
    """``./run.sh test`` sets DORF_REQUIRE_COMPILED=1 where a C compiler is: the batched
    environments' compiled loop (dorf.rl._vector) must then be there, and be the default."""
    if os.environ.get("DORF_REQUIRE_COMPILED", "") in ("", "0"):
        pytest.skip("DORF_REQUIRE_COMPILED is not set")
    assert vector._compiled is not None, "dorf.rl._vector was not built"
    assert CoopVectorEnv(1, radius=2).loop == "compiled"
