"""Observation planes: their layout, their bounds, and what they say about an area."""

from __future__ import annotations

import random
from collections.abc import Iterator
from typing import Any

import numpy as np
import pytest

from dorf.games.coop import CoopGame, PlayerView
from dorf.games.duel import DuelGame, DuelView
from dorf.games.headtohead import HeadToHeadGame, HeadToHeadView
from dorf.rl.planes import SCALE, Encoder
from dorf.rl.window import Window
from dorf.rules.area import Placement
from dorf.rules.hexgrid import Hex, cell_of
from dorf.rules.terrain import LETTERS
from dorf.rules.tiles import load_tileset, rotate


@pytest.mark.parametrize(
    ("mode", "tileset", "planes"),
    [("coop", "base", 178), ("duel", "duel", 267), ("head-to-head", "head-to-head", 275)],
)
def test_layout(mode: str, tileset: str, planes: int) -> None:
    enc = Encoder(mode, Window(4), load_tileset(tileset))
    assert enc.shape == (planes, 9, 9)
    assert len(set(enc.names)) == planes
    assert enc.high.shape == enc.shape and (enc.high >= 1).all()


def test_unknown_mode_and_small_draft_window() -> None:
    with pytest.raises(ValueError, match="unknown mode"):
        Encoder("solo", Window(2), load_tileset())
    with pytest.raises(ValueError, match="too small"):
        Encoder("head-to-head", Window(3), load_tileset("head-to-head"))


def test_planes_of_a_known_area() -> None:
    state = CoopGame(seed=4).new_state()
    enc = Encoder("coop", Window(3), state.game.tileset)
    first = state.revealed
    assert first is not None and first.task is not None
    obs = enc.coop(state.view())
    at = enc.offset
    # the revealed tile, as printed, in constant planes
    for i, letter in enumerate(first.tile.face):
        assert (obs[at[f"next:edge:{i}:{letter}"]] == 1).all()
    assert (obs[at[f"next:task:{first.task.type}"]] == 1).all()
    assert np.allclose(obs[at["next:value"]], first.task.value / SCALE)
    assert obs[at["tile"]].sum() == 0 and obs[at["frontier"]][3, 3] == 1
    state.play(Placement(Hex(0, 0), 1))
    obs = enc.coop(state.view())
    centre = (slice(None), 3, 3)
    edges = rotate(first.tile.face, 1)
    for d, letter in enumerate(edges):
        assert obs[at[f"edge:{d}:{letter}"]][3, 3] == 1
        assert obs[at[f"open:{d}"]][3, 3] == 1
    assert obs[at["tile"]].sum() == 1 and obs[at["frontier"]].sum() == 6
    assert obs[at[f"task:{first.task.type}"]][3, 3] == pytest.approx(first.task.value / SCALE)
    assert obs[at["task:size"]][3, 3] == pytest.approx(0.1)
    letter_planes = [at[f"edge:{d}:{x}"] for d in range(6) for x in LETTERS]
    assert obs[centre][letter_planes].sum() == 6
    assert obs[at["turn"]][0, 0] == pytest.approx(2 / len(state.game.tileset.tiles))


def _play_random(mode: str, seed: int) -> Iterator[list[PlayerView | DuelView | HeadToHeadView]]:
    rng = random.Random(seed)
    if mode == "coop":
        coop = CoopGame(seed=seed).new_state()
        while not coop.is_over:
            yield [coop.view()]
            coop.push_move(*rng.choice(coop.legal_moves()))
        yield [coop.view()]
    elif mode == "duel":
        duel = DuelGame(seed=seed).new_state()
        while not duel.is_over:
            yield [duel.view(0), duel.view(1)]
            duel.push_move(*rng.choice(duel.legal_moves()), duel.player)
        yield [duel.view(0), duel.view(1)]
    else:
        h2h = HeadToHeadGame(seed=seed).new_state()
        while h2h.pool:
            yield [h2h.view(0), h2h.view(1)]
            h2h.pick(rng.choice(h2h.pool))
        while not h2h.is_over:
            yield [h2h.view(0), h2h.view(1)]
            h2h.push_move(*rng.choice(h2h.legal_moves()), h2h.player)
        yield [h2h.view(0), h2h.view(1)]


@pytest.mark.parametrize(
    ("mode", "tileset"), [("coop", "base"), ("duel", "duel"), ("head-to-head", "head-to-head")]
)
def test_planes_stay_in_bounds(mode: str, tileset: str) -> None:
    enc = Encoder(mode, Window(), load_tileset(tileset))
    for n, views in enumerate(_play_random(mode, seed=3)):
        if n % 4:
            continue
        for view in views:
            obs = enc.encode(view)
            assert obs.dtype == np.float32 and obs.shape == enc.shape
            assert (obs >= 0).all() and (obs <= enc.high).all()
    with pytest.raises(TypeError):
        Encoder("coop", Window(), load_tileset()).encode(DuelGame().new_state().view(0))


def test_spatial_planes_match_the_area() -> None:
    """Every spatial plane against the play area it was made from, after random placements."""
    state = CoopGame(seed=12).new_state()
    rng = random.Random(12)
    for _ in range(30):
        state.push_move(*rng.choice(state.legal_moves()))
    window = Window(4)
    enc = Encoder("coop", window, state.game.tileset)
    obs = enc.coop(state.view())
    at = enc.offset
    area = state.area
    inside = {cell_of(*t.at) for t in area.placed} & set(window.cells)
    assert obs[at["tile"]].sum() == len(inside) < len(area.placed)
    frontier = {cell_of(*h) for h in area.frontier()} & set(window.cells)
    assert {
        window.cells[i] for i in np.flatnonzero(obs[at["frontier"]][window.rows, window.cols])
    } == frontier
    for tile in area.placed:
        cell = cell_of(*tile.at)
        if cell not in window:
            continue
        i = window.index[cell]
        here = obs[:, window.rows[i], window.cols[i]]
        edges = rotate(tile.face, tile.rot)
        for d, letter in enumerate(edges):
            assert here[at[f"edge:{d}:{letter}"]] == 1
            near = Hex(tile.at.q, tile.at.r).neighbour(d)
            assert here[at[f"open:{d}"]] == (area.edges_at(near) is None)
        for letter in "FGVRTX":
            if letter in edges:
                size, open_edges = area.figures(cell, letter)
                assert here[at[f"group:{letter}"]] == pytest.approx(size / SCALE)
                assert here[at[f"group-open:{letter}"]] == pytest.approx(open_edges / SCALE)
            else:
                assert here[at[f"group:{letter}"]] == 0
        assert (here[at["flag:F"] : at["flag:X"] + 1].sum() == 1) == (tile.flag is not None)
    for task in area.tasks:
        if task.cell in window:
            i = window.index[task.cell]
            here = obs[:, window.rows[i], window.cols[i]]
            assert here[at[f"task:{task.type}"]] == pytest.approx(task.value / SCALE)
            status = (here[at["task:completed"]], here[at["task:failed"]], here[at["task:size"]] > 0)
            assert (
                status
                == {"completed": (1, 0, False), "failed": (0, 1, False), "open": (0, 0, True)}[
                    task.status.value
                ]
            )


@pytest.mark.parametrize(
    ("mode", "tileset"), [("coop", "base"), ("duel", "duel"), ("head-to-head", "head-to-head")]
)
@pytest.mark.slow
def test_an_encoder_that_keeps_its_marks_gives_what_a_new_one_gives(mode: str, tileset: str) -> None:
    """The kept blocks of planes (updated tile by tile, figures and tasks rewritten) against a
    new encoder for every view, two games interleaved; every observation a new array."""
    kept = Encoder(mode, Window(4), load_tileset(tileset))
    previous: list[np.ndarray] = []
    for views_a, views_b in zip(_play_random(mode, seed=5), _play_random(mode, seed=6), strict=False):
        for view in (*views_a, *views_b):
            obs = kept.encode(view)
            assert np.array_equal(obs, Encoder(mode, Window(4), load_tileset(tileset)).encode(view))
            assert not any(np.shares_memory(obs, old) for old in previous)
            previous = [*previous[-3:], obs]


@pytest.mark.slow
def test_kept_marks_follow_undo() -> None:
    state = CoopGame(seed=9).new_state()
    rng = random.Random(9)
    enc = Encoder("coop", Window(), state.game.tileset)
    while not state.is_over:
        if state.decisions and rng.random() < 0.3:
            back = rng.randint(1, 3)
            for _ in range(min(back, len(state.decisions))):
                state.undo()
            for _ in range(rng.choice((0, back))):  # none, or as many tiles again, placed elsewhere
                if not state.is_over:
                    state.push_move(*rng.choice(state.legal_moves()))
        else:
            state.push_move(*rng.choice(state.legal_moves()))
        view = state.view()
        assert np.array_equal(enc.coop(view), Encoder("coop", Window(), state.game.tileset).coop(view))


@pytest.mark.parametrize(
    ("mode", "tileset"), [("coop", "base"), ("duel", "duel"), ("head-to-head", "head-to-head")]
)
def test_every_value_of_an_observation_is_written(
    mode: str, tileset: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Observations start from uninitialised memory (``np.empty``): here it is NaN, and none may be left."""
    empty = np.empty

    def nan_filled(shape: Any, dtype: Any = float) -> Any:
        return np.full(shape, np.nan, dtype=dtype) if np.dtype(dtype).kind == "f" else empty(shape, dtype)

    monkeypatch.setattr(np, "empty", nan_filled)
    enc = Encoder(mode, Window(4), load_tileset(tileset))
    for n, views in enumerate(_play_random(mode, seed=4)):
        if n % 5 == 0:
            for view in views:
                assert not np.isnan(enc.encode(view)).any()
    assert np.empty is not empty
