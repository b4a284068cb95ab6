"""The planes policy (dorf.rl.policy_net) and its training (dorf.rl.ppo, JAX: the learn extra):
the action head reads the right edges, numpy and JAX agree, a few steps move the losses, a
run resumes as if never stopped, and the policy plays with numpy only."""

from __future__ import annotations

import importlib.util
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from dorf.games.coop import CoopGame
from dorf.rl.coop_env import CoopEnv
from dorf.rl.policy_net import (
    PlanesNet,
    PlanesPlayer,
    best_of_each,
    legal_lists,
    load_params,
    save_params,
    segment_log_softmax,
    select,
)
from dorf.rl.vector import CoopVectorEnv
from dorf.rules.hexgrid import DIRECTIONS, Hex, cell_of
from dorf.rules.terrain import LETTERS
from dorf.rules.tiles import rotate


def _played(envs: CoopVectorEnv, steps: int, seed: int = 3) -> tuple[Any, Any]:
    obs: Any
    obs, infos = envs.reset(seed=seed)
    rng = np.random.default_rng(seed)
    for _ in range(steps):
        obs, _, _, _, infos = envs.step(envs.sample_actions(rng))
    return obs, infos["action_mask"]


def test_the_action_head_sees_the_turned_tile_against_each_neighbours_edge_facing_back() -> None:
    envs = CoopVectorEnv(2, radius=6, layout="compact", loop="python")
    obs, masks = _played(envs, 9)
    net = PlanesNet(envs.window, envs.encoder)
    legal = legal_lists(masks, bucket=1)
    game = legal.owner
    _, tile, facing, near = net.contacts(np, obs["grid"], obs["table"], game, legal.actions)
    checked = contacts = 0
    for j in range(len(legal.actions)):
        state = envs.game_states[int(game[j])]
        revealed = state.revealed
        assert revealed is not None
        at, rot = envs.window.hex_of_action(int(legal.actions[j]))
        turned = rotate(revealed.tile.face, rot)
        for d, (dq, dr) in enumerate(DIRECTIONS):
            assert LETTERS[int(np.argmax(tile[j, d]))] == turned[d] and tile[j, d].sum() == 1
            placed = state.area.tile_at(Hex(at.q + dq, at.r + dr))
            if placed is None:
                assert facing[j, d].sum() == 0
            else:
                back = placed.edges[(d + 3) % 6]
                assert LETTERS[int(np.argmax(facing[j, d]))] == back and facing[j, d].sum() == 1
                assert near[j, d, 0] == 1.0  # the neighbour's cell is inside the window
                contacts += 1
            checked += 1
    assert checked == 6 * len(legal.actions) and contacts >= len(legal.actions)


def test_flat_action_lists_agree_with_dense_softmax_and_selection() -> None:
    rng = np.random.default_rng(0)
    masks = (rng.random((5, 40)) < 0.2).astype(np.int8)
    masks[3] = 0  # a game with no legal action
    legal = legal_lists(masks, bucket=16)
    assert len(legal.owner) % 16 == 0 and legal.valid.sum() == masks.sum()
    assert list(legal.counts) == list(masks.sum(axis=1))
    logits = rng.standard_normal(len(legal.owner))
    logp = segment_log_softmax(logits, legal)
    best = best_of_each(logits, legal)
    for i in range(5):
        mine = slice(int(legal.starts[i]), int(legal.starts[i] + legal.counts[i]))
        assert list(legal.actions[mine]) == list(np.flatnonzero(masks[i]))
        if legal.counts[i]:
            dense = logits[mine] - np.log(np.exp(logits[mine]).sum())
            assert np.allclose(logp[mine], dense)
            assert best[i] == legal.starts[i] + np.argmax(logits[mine])
    rows = np.array([4, 0, 2])
    part, taken = select(legal, rows)
    for k, i in enumerate(rows):
        theirs = legal.actions[int(legal.starts[i]) : int(legal.starts[i] + legal.counts[i])]
        assert list(part.actions[int(part.starts[k]) : int(part.starts[k] + part.counts[k])]) == list(theirs)
    assert list(legal.actions[taken]) == list(part.actions[part.valid])


def test_a_seat_can_be_dealt_a_named_shuffle_as_the_single_environment_deals_it() -> None:
    envs = CoopVectorEnv(2, radius=4, layout="compact")
    _, infos = envs.reset(seed=5, options={"game_seeds": [17, None]})
    single = CoopEnv(radius=4)
    _, info = single.reset(seed=5, options={"game_seed": 17})
    assert infos["game_seed"][0] == 17 == info["game_seed"]
    assert np.array_equal(infos["action_mask"][0], info["action_mask"])
    _, other = CoopEnv(radius=4).reset(seed=6)
    assert infos["game_seed"][1] == other["game_seed"]
    with pytest.raises(ValueError, match="game_seeds"):
        envs.reset(seed=5, options={"game_seeds": [1]})


def test_the_saved_policy_plays_legal_moves_with_numpy_only(tmp_path: Path) -> None:
    envs = CoopVectorEnv(1, layout="compact")
    net = PlanesNet(envs.window, envs.encoder)
    params = net.init(np.random.default_rng(2), hidden=8)
    save_params(params, tmp_path / "p.npz", {"settings": {"radius": 10}})
    loaded, about = load_params(tmp_path / "p.npz")
    assert about == {"settings": {"radius": 10}}
    assert all(np.array_equal(loaded[k], params[k]) for k in params)
    player = PlanesPlayer(tmp_path / "p.npz")
    state = CoopGame(seed=8).new_state()
    for _ in range(12):
        decision = player.choose(state.view())
        assert state.why_illegal(decision) is None
        state.play(decision)
    (tmp_path / "bad.npz").write_bytes(b"not a zip")
    with pytest.raises(ValueError, match="not a planes policy"):
        load_params(tmp_path / "bad.npz")


def test_the_player_plays_what_the_batched_policy_rates_best(tmp_path: Path) -> None:
    envs = CoopVectorEnv(1, layout="compact")
    obs: Any
    obs, infos = envs.reset(seed=0, options={"game_seeds": [21]})
    net = PlanesNet(envs.window, envs.encoder)
    params = net.init(np.random.default_rng(4), hidden=16)
    save_params(params, tmp_path / "p.npz", {})
    player = PlanesPlayer(tmp_path / "p.npz")
    state = CoopGame(seed=21).new_state()
    for _ in range(10):
        legal = legal_lists(infos["action_mask"], bucket=1)
        logits, _ = net.forward(params, np, obs["grid"], obs["table"], legal.owner, legal.actions)
        decision = player.choose(state.view())
        action = envs.window.index[cell_of(*decision.at)] * 6 + decision.rot
        assert logits[list(legal.actions).index(action)] == pytest.approx(logits.max(), abs=1e-6)
        state.play(decision)
        obs, _, _, _, infos = envs.step([action])
    assert np.array_equal(envs.encoder.coop(state.view())[: net.grid_planes], obs["grid"][0])


#: The tests below need JAX (the learn extra).  Looked up, not imported: importing JAX takes about
#: 3 s, and every pytest worker imports every test module when it collects.
needs_jax = pytest.mark.skipif(importlib.util.find_spec("jax") is None, reason="JAX (the learn extra)")

from dorf.rl.ppo import (  # noqa: E402
    UNPACK,
    Settings,
    collect,
    fit_rollout,
    learner_for,
    packed,
    teacher_games,
    train_ppo,
)

#: The learning tests' one small setting: its learner (:func:`learner_for`, one a setting and
#: process) compiles its JAX programs once, and a minibatch of 4 rows keeps their action lists
#: to few padded sizes (each size a compile).
SMALL = {"envs": 4, "horizon": 6, "minibatch": 4, "bc_games": 1, "bc_epochs": 1, "hidden": 8}
SMALL |= {"eval_games": 3, "eval_every": 1}


@needs_jax
@pytest.mark.slow
def test_numpy_and_jax_give_the_same_logits_and_values() -> None:
    envs = CoopVectorEnv(3, layout="compact")
    obs, masks = _played(envs, 6)
    learner = learner_for(Settings(**SMALL))  # type: ignore[arg-type]
    net = learner.net
    params = net.init(np.random.default_rng(1), hidden=8)
    legal = legal_lists(masks)
    a = net.forward(params, np, obs["grid"], obs["table"], legal.owner, legal.actions)
    b = learner.forward(learner.start(params)[0], obs["grid"], obs["table"], legal.owner, legal.actions)
    assert np.allclose(a[0], np.asarray(b[0]), rtol=1e-4, atol=1e-4)
    assert np.allclose(a[1], np.asarray(b[1]), rtol=1e-4, atol=1e-4)


@needs_jax
@pytest.mark.slow
def test_a_few_distillation_and_ppo_steps_move_their_losses() -> None:
    settings = Settings(**SMALL)  # type: ignore[arg-type]
    data = teacher_games(Settings(**{**SMALL, "bc_games": 2}))  # type: ignore[arg-type]
    assert len(data.place) > 60 and data.ret[0] > 0  # the returns that followed each decision
    assert data.grid.dtype == np.uint8  # kept as bytes, read back exactly
    envs_b = CoopVectorEnv(4, layout="compact")
    grids, _ = _played(envs_b, 40)
    assert np.array_equal(UNPACK[packed(grids["grid"])], grids["grid"])
    assert np.all(data.place < data.legal.counts)
    envs = CoopVectorEnv(settings.envs, layout="compact")
    learner = learner_for(settings)
    params, _ = learner.start(learner.net.init(np.random.default_rng(1), settings.hidden))
    rng = np.random.default_rng(1)
    _, _, bc = fit_rollout(learner, params, learner.bc_optimiser.init(params), data, rng, 3, ppo=False)
    assert bc[-1] < bc[0] - 0.05, bc
    obs, infos = envs.reset(seed=9)
    state = {"obs": obs, "infos": infos, "resetting": np.zeros(settings.envs, dtype=np.bool_)}
    rollout, _ = collect(learner, params, envs, state, rng)
    assert len(rollout.place) == 4 * 6 and np.all(rollout.weight == 1.0)
    assert np.all(np.isfinite(rollout.logp)) and np.all(rollout.logp <= 0)
    moved, _, losses = fit_rollout(learner, params, learner.optimiser.init(params), rollout, rng, 4, ppo=True)
    assert len(losses) == 4 and losses[-1] != losses[0]
    assert not np.allclose(np.asarray(moved["w4"]), np.asarray(params["w4"]))


@needs_jax
@pytest.mark.slow
def test_a_run_resumes_as_the_run_that_was_not_stopped_and_ships_a_small_policy(tmp_path: Path) -> None:
    small = SMALL
    whole, curve = train_ppo(tmp_path / "a", Settings(updates=2, **small), progress=False, plot=False)  # type: ignore[arg-type]
    train_ppo(tmp_path / "b", Settings(updates=2, **small), progress=False, plot=False, stop_after=1)  # type: ignore[arg-type]
    resumed, again = train_ppo(tmp_path / "b", Settings(updates=2, **small), resume=True, progress=False)  # type: ignore[arg-type]
    assert [c["eval_mean"] for c in curve] == [c["eval_mean"] for c in again]
    assert all(np.allclose(whole[k], resumed[k], atol=1e-6) for k in whole)
    assert (tmp_path / "b" / "ppo-curve.png").stat().st_size > 1000
    assert (tmp_path / "a" / "ppo-policy.npz").stat().st_size < 3_000_000
    _, curve3 = train_ppo(tmp_path / "b", Settings(updates=3, **small), resume=True, progress=False)  # type: ignore[arg-type]
    assert [c["steps"] for c in curve3] == [0, 24, 48, 72]  # more updates go on from the last segment
    assert [c["eval_mean"] for c in curve3[:3]] == [c["eval_mean"] for c in again]
    with pytest.raises(ValueError, match="other settings"):
        train_ppo(tmp_path / "b", Settings(updates=3, **{**small, "lr": 0.1}), resume=True, progress=False)  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="other settings"):
        train_ppo(tmp_path / "b", Settings(updates=2, **small), resume=True, progress=False)  # type: ignore[arg-type]


@needs_jax
@pytest.mark.slow
def test_the_learn_command_trains_a_planes_policy_and_refuses_bad_settings_in_one_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from dorf.cli import main

    out, ship = tmp_path / "run", tmp_path / "planes.npz"
    argv = ["learn", "--method", "ppo", "--updates", "1"]
    argv += [f"--{key.replace('_', '-')}={value}" for key, value in SMALL.items()]  # the learner compiled
    assert main([*argv, "--out", str(out), "--ship", str(ship)]) == 0
    assert (out / "ppo-curve.png").read_bytes()[:4] == b"\x89PNG"
    _, about = load_params(ship)
    assert about["settings"]["envs"] == 4 and len(about["curve"]) == 2
    err = capsys.readouterr().err
    assert "distilled planner:0" in err and "segment 1/1:" in err
    (tmp_path / "broken").mkdir()
    (tmp_path / "broken" / "ppo-checkpoint.npz").write_bytes(b"PK\x03\x04 not really")
    for bad in (
        ["--teacher", "nobody"],
        ["--bc-games", "-1"],
        ["--resume", "--out", str(tmp_path / "broken")],
    ):
        assert main([*argv, "--out", str(tmp_path / "bad"), *bad]) == 2
        lines = capsys.readouterr().err.strip().splitlines()
        assert len(lines) == 1 and lines[0].startswith("dorf learn: "), lines


def test_the_shipped_planes_policy_plays_a_whole_game_with_numpy_only() -> None:
    player = PlanesPlayer()
    assert player.about["settings"]["teacher"] == "planner:0" and len(player.about["curve"]) > 2
    state = CoopGame(seed=5).new_state()
    while not state.is_over:
        decision = player.choose(state.view())
        assert state.why_illegal(decision) is None
        state.play(decision)


@needs_jax
@pytest.mark.slow
def test_rows_left_out_of_the_loss_cannot_turn_it_into_nan() -> None:
    """The rows of deals and of ended games weigh 0; a huge ratio on them once made NaN."""
    settings = Settings(**SMALL)  # type: ignore[arg-type]
    envs = CoopVectorEnv(settings.envs, layout="compact")
    learner = learner_for(settings)
    params, opt = learner.start(learner.net.init(np.random.default_rng(3), settings.hidden))
    obs, infos = envs.reset(seed=4)
    state = {"obs": obs, "infos": infos, "resetting": np.zeros(settings.envs, dtype=np.bool_)}
    rng = np.random.default_rng(0)
    ended: list[int] = []
    while True:  # rollouts of the games until one holds rows left out, after the end of a game
        rollout, scores = collect(learner, params, envs, state, rng)
        ended += scores
        out = rollout.weight == 0
        if ended and out.any():
            break
    assert ended and out.any()  # a game ended: its last row and the deal after it are left out
    assert np.all(rollout.place >= 0) and np.all(rollout.place[rollout.legal.counts == 0] == 0)
    rollout.logp[out] = -1000.0  # as if their old log-probabilities were far off
    moved, _, losses = fit_rollout(learner, params, opt, rollout, np.random.default_rng(0), 2, ppo=True)
    assert np.all(np.isfinite(losses))
    assert all(np.all(np.isfinite(np.asarray(v))) for v in moved.values())
