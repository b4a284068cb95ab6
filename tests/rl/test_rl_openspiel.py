"""The OpenSpiel game dorf_coop: the random simulation test, chance nodes, the engine's rules, MCTS."""

from __future__ import annotations

import pickle
import random

import numpy as np
import pyspiel
import pytest

import dorf.rl.openspiel
from dorf.games.coop import CoopGame
from dorf.rl.coop_env import CoopEnv

pytestmark = pytest.mark.slow

GAME = dorf.rl.openspiel.SHORT_NAME


def _random_playout(state: object, seed: int) -> None:
    rng = random.Random(seed)
    while not state.is_terminal():  # type: ignore[attr-defined]
        if state.is_chance_node():  # type: ignore[attr-defined]
            outcomes, probs = zip(*state.chance_outcomes(), strict=True)  # type: ignore[attr-defined]
            state.apply_action(rng.choices(outcomes, probs)[0])  # type: ignore[attr-defined]
        else:
            state.apply_action(rng.choice(state.legal_actions()))  # type: ignore[attr-defined]


def test_random_sim_test() -> None:
    game = pyspiel.load_game(GAME)
    pyspiel.random_sim_test(game, num_sims=2, serialize=False, verbose=False)
    pyspiel.random_sim_test(pyspiel.load_game(f"{GAME}(radius=6)"), num_sims=1, serialize=True, verbose=False)


def test_game_description() -> None:
    game = pyspiel.load_game(GAME)
    kind = game.get_type()
    assert kind.chance_mode == pyspiel.GameType.ChanceMode.EXPLICIT_STOCHASTIC
    assert kind.dynamics == pyspiel.GameType.Dynamics.SEQUENTIAL
    assert game.num_players() == 1
    assert game.num_distinct_actions() == 1986
    assert game.max_game_length() == 70
    assert game.observation_tensor_shape() == [178, 21, 21]


def test_chance_nodes() -> None:
    game = pyspiel.load_game(GAME)
    tiles = game.tileset.tiles
    state = game.new_initial_state()
    assert state.is_chance_node()
    outcomes = state.chance_outcomes()
    assert sum(p for _, p in outcomes) == pytest.approx(1.0)
    assert [a for a, _ in outcomes] == sorted(i for i, t in enumerate(tiles) if t.is_task)  # turn 1: a task
    forest = next(i for i, t in enumerate(tiles) if t.task == "forest")
    state.apply_action(forest)
    assert state.is_chance_node()
    assert dict(state.chance_outcomes()) == pytest.approx({4: 0.2, 5: 0.4, 6: 0.4})
    assert state.action_to_string(pyspiel.PlayerId.CHANCE, 5) == "marker forest 5"
    state.apply_action(5)
    assert state.current_player() == 0
    assert "forest 5" in str(state)
    view = state.view()
    assert view.revealed is not None and view.revealed.task is not None and view.revealed.task.value == 5
    assert view.markers_unseen["forest"] == (4, 5, 6, 6)
    illegal = next(a for a in range(game.num_distinct_actions()) if a not in state.legal_actions())
    with pytest.raises(ValueError, match="not legal"):
        state.apply_action(illegal)


def test_follows_the_engine() -> None:
    """Fed the draws of a seeded CoopGame, the OpenSpiel state offers the environment's actions and
    ends with the same score: the rules (reveal rule, set-aside tiles, end) are the engine's."""
    game = pyspiel.load_game(GAME)
    tiles = game.tileset.tiles
    env = CoopEnv()
    rng = np.random.default_rng(0)
    for game_seed in (3, 4):
        _, info = env.reset(options={"game_seed": game_seed})
        coop = env.game_state
        state = game.new_initial_state()
        fed = 0
        while True:
            while fed < len(coop.turns):  # feed every reveal since the last decision, set-asides too
                revealed = coop.turns[fed].revealed
                assert state.is_chance_node()
                same = min(i for i, _ in state.chance_outcomes() if tiles[i] == revealed.tile)
                state.apply_action(same)
                if revealed.task is not None:
                    state.apply_action(revealed.task.value)
                fed += 1
            if coop.is_over:
                break
            assert state.legal_actions() == [int(a) for a in np.flatnonzero(info["action_mask"])]
            action = int(rng.choice(np.flatnonzero(info["action_mask"])))
            state.apply_action(action)
            _, _, terminated, _, info = env.step(action)
        assert state.is_terminal() and terminated
        assert state.returns() == [float(coop.score().total)]
        assert len(state.view().unseen) == len(CoopGame().new_state().view().unseen) - len(coop.turns) + 1


def test_clone_and_pickle_replay_the_state() -> None:
    game = pyspiel.load_game(GAME)
    state = game.new_initial_state()
    _random_playout(state, 1)
    assert state.is_terminal() and state.returns()[0] == state.score() >= 0
    half = game.new_initial_state()
    for action in state.history()[:40]:
        half.apply_action(action)
    twin = half.clone()
    assert str(twin) == str(half) and twin.history() == half.history()
    _random_playout(twin, 2)
    assert half.history() == state.history()[:40]
    again = pickle.loads(pickle.dumps(half))
    assert str(again) == str(half)
    assert game.deserialize_state(half.serialize()).history() == half.history()


def test_observation_tensor_and_strings() -> None:
    game = pyspiel.load_game(f"{GAME}(radius=4)")
    state = game.new_initial_state()
    _random_playout_steps(state, 12)
    tensor = np.asarray(state.observation_tensor(0)).reshape(game.observation_tensor_shape())
    assert np.array_equal(tensor, game.encoder.coop(state.view()))
    assert state.information_state_string(0) == " ".join(str(a) for a in state.history())
    assert state.observation_string(0) == str(state)


def _random_playout_steps(state: object, steps: int) -> None:
    rng = random.Random(steps)
    for _ in range(steps):
        if state.is_chance_node():  # type: ignore[attr-defined]
            state.apply_action(rng.choice([a for a, _ in state.chance_outcomes()]))  # type: ignore[attr-defined]
        else:
            state.apply_action(rng.choice(state.legal_actions()))  # type: ignore[attr-defined]


def test_mcts_plays_a_few_moves() -> None:
    from open_spiel.python.algorithms import mcts

    game = pyspiel.load_game(f"{GAME}(radius=6)")
    rng = np.random.RandomState(0)
    bot = mcts.MCTSBot(game, 2.0, 6, mcts.RandomRolloutEvaluator(1, rng), random_state=rng)
    state = game.new_initial_state()
    decisions = 0
    while decisions < 3:
        if state.is_chance_node():
            outcomes, probs = zip(*state.chance_outcomes(), strict=True)
            state.apply_action(int(rng.choice(outcomes, p=probs)))
        else:
            action = bot.step(state)
            assert action in state.legal_actions()
            state.apply_action(action)
            decisions += 1
    assert len(state.view().area.placed) == 3
