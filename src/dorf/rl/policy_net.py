"""A policy and value network over the observation planes, for the batched solo environment.

The network reads the compact layout of :class:`dorf.rl.vector.CoopVectorEnv` (``grid``: the
window and the area's 88 planes, ``table``: the 89 constant values) and the action mask, and
scores only the legal actions (a game has tens to a few hundred of its 1,986).  Its action head
is built around the hexagon: an action puts the revealed tile, turned, on a cell; for each of
the six directions it sees

- the letter of the revealed tile's edge that would face that way (read from the table's
  ``next:edge:i:L`` planes, ``i`` the printed edge the rotation turns to face it),
- the letter of the neighbour's edge facing back (its ``edge:(d+3)%6:L`` planes), their
  product (where they match),
- and the neighbour's other planes (present, open edges, task, flags, the sizes and open edges
  of its groups),

passes each of the six through the same small network, adds them up, joins a summary of the
table (the tile to place, the counts left) and gives one logit.  The value head reads the table
and the mean of each grid plane.  Nothing else is given: what the policy knows comes from the
planes, and what it plays well from training (:mod:`dorf.rl.ppo`).

The same :func:`forward` runs on numpy (playing, no JAX needed) and on ``jax.numpy`` (training):
``xp`` is the array module.

>>> import numpy as np
>>> from dorf.rl.vector import CoopVectorEnv
>>> envs = CoopVectorEnv(3, radius=4, layout="compact")
>>> obs, infos = envs.reset(seed=1)
>>> net = PlanesNet(envs.window, envs.encoder)
>>> params = net.init(np.random.default_rng(0), hidden=8)
>>> legal = legal_lists(infos["action_mask"])
>>> logits, values = net.forward(params, np, obs["grid"], obs["table"], legal.owner, legal.actions)
>>> logits.shape == legal.actions.shape, values.shape
(True, (3,))
>>> chosen = net.choose(params, obs, infos["action_mask"])
>>> bool(all(infos["action_mask"][i, a] for i, a in enumerate(chosen)))
True
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, NamedTuple

import numpy as np
import numpy.typing as npt

from dorf.rl.planes import Encoder
from dorf.rl.window import ROTATIONS, Window
from dorf.rules.hexgrid import DIRECTIONS
from dorf.rules.terrain import LETTERS

Params = dict[str, Any]
#: The names of the arrays of a network's parameters, in the order of :meth:`PlanesNet.init`.
PARAMS = ("w1", "b1", "w2", "b2", "wt", "bt", "w3", "w3t", "b3", "w4", "b4", "wv1", "bv1", "wv2", "bv2")
#: The policy shipped with dorf (``dorf learn --method ppo``'s run of docs/rl.md).
POLICY_FILE = "planes-policy.npz"
#: A logit that marks a padded (not legal) place in an action list.
MASKED = -1e9
#: Action lists are padded to a multiple of this (fewer shapes for JAX to compile).
BUCKET = 512


class Legal(NamedTuple):
    """Every game's legal actions in one flat list: ``owner[j]`` is the game of entry ``j``,
    ``actions[j]`` the action; the list is padded (``owner`` = the number of games, action 0)
    to a size of :func:`padded_size`; ``starts[i]`` and ``counts[i]`` give game ``i``'s entries."""

    owner: npt.NDArray[np.int32]
    actions: npt.NDArray[np.int32]
    starts: npt.NDArray[np.int64]
    counts: npt.NDArray[np.int64]

    @property
    def valid(self) -> npt.NDArray[np.bool_]:
        return self.owner < len(self.counts)


def legal_lists(masks: npt.NDArray[np.int8], bucket: int = BUCKET) -> Legal:
    """Each game's legal actions as one flat list (:class:`Legal`)."""
    rows, cols = np.nonzero(masks)
    count = np.bincount(rows, minlength=len(masks)).astype(np.int64)
    return flat_list(rows.astype(np.int32), cols.astype(np.int32), count, bucket)


def flat_list(
    owner: npt.NDArray[np.int32], actions: npt.NDArray[np.int32], count: npt.NDArray[np.int64], bucket: int
) -> Legal:
    """A :class:`Legal` of entries already in game order (``owner`` ascending), ``count`` of each
    game, padded to :func:`padded_size`."""
    size = padded_size(len(owner), bucket)
    out_owner = np.full(size, len(count), dtype=np.int32)
    out_actions = np.zeros(size, dtype=np.int32)
    out_owner[: len(owner)] = owner
    out_actions[: len(actions)] = actions
    start = np.concatenate([[0], np.cumsum(count)[:-1]]).astype(np.int64)
    return Legal(out_owner, out_actions, start, count)


def padded_size(n: int, bucket: int = BUCKET) -> int:
    """``n`` rounded up to a size of the form ``bucket * 2 ** (k / 4)`` (rounded to ``bucket``):
    at most a fifth more, and few sizes, so that JAX compiles few shapes."""
    if bucket == 1:
        return n
    size = bucket
    while size < n:
        size = -(-int(size * 1.19) // bucket) * bucket
    return size


def select(
    legal: Legal, rows: npt.NDArray[np.int64], bucket: int = BUCKET
) -> tuple[Legal, npt.NDArray[np.int64]]:
    """The entries of games ``rows`` (in that order) as a list of their own, and where each
    entry came from in ``legal``."""
    count = legal.counts[rows]
    starts = legal.starts[rows]
    taken = np.repeat(starts - np.concatenate([[0], np.cumsum(count)[:-1]]), count) + np.arange(
        int(count.sum())
    )
    owner = np.repeat(np.arange(len(rows), dtype=np.int32), count)
    return flat_list(owner, legal.actions[taken], count, bucket), taken


def segment_log_softmax(logits: npt.NDArray[np.float64], legal: Legal) -> npt.NDArray[np.float64]:
    """Each entry's log-probability among its game's entries (numpy; padding: -inf)."""
    games = len(legal.counts)
    owner = legal.owner
    top = np.full(games + 1, -np.inf)
    np.maximum.at(top, owner, logits)
    total = np.zeros(games + 1)
    np.add.at(total, owner, np.exp(logits - top[owner]))
    out = logits - top[owner] - np.log(np.maximum(total[owner], 1e-300))
    out[owner >= games] = -np.inf
    return np.asarray(out, dtype=np.float64)


def best_of_each(scores: npt.NDArray[np.float64], legal: Legal) -> npt.NDArray[np.int64]:
    """Per game, the entry with the highest score (its first entry, or 0, when it has none)."""
    games = len(legal.counts)
    order = np.lexsort((-scores, legal.owner))
    firsts = np.searchsorted(legal.owner[order], np.arange(games))
    return np.where(legal.counts > 0, order[np.minimum(firsts, len(order) - 1)], 0).astype(np.int64)


class PlanesNet:
    """The network's fixed index tables for one window and encoder (see the module's notes)."""

    def __init__(self, window: Window, encoder: Encoder) -> None:
        self.window = window
        side = window.side
        self.spots = side * side
        at = encoder.offset
        start = encoder.table_start
        self.grid_planes = start
        self.table_planes = len(encoder.names) - start
        pad = self.spots  # a spot past the grid, always zero
        neighbours = np.full((window.size, ROTATIONS), pad, dtype=np.int32)
        for i, h in enumerate(window.hexes):
            for d, (dq, dr) in enumerate(DIRECTIONS):
                row, col = h.r + dr + window.radius, h.q + dq + window.radius
                if 0 <= row < side and 0 <= col < side:
                    neighbours[i, d] = row * side + col
        #: Per window cell and direction, the grid spot of the neighbour (``spots``: none).
        self.neighbours = neighbours
        edges = {at[f"edge:{f}:{letter}"] for f in range(6) for letter in LETTERS}
        other = [c for c in range(start) if c not in edges]
        #: Per direction ``d``: the grid planes read at the neighbour (its edge facing back, then the rest).
        self.read = np.array(
            [[at[f"edge:{(d + 3) % 6}:{letter}"] for letter in LETTERS] + other for d in range(6)],
            dtype=np.int32,
        )
        #: Per rotation and direction: the table places of the revealed tile's edge facing ``d``.
        self.tile_edge = np.array(
            [
                [[at[f"next:edge:{(d - rot) % 6}:{letter}"] - start for letter in LETTERS] for d in range(6)]
                for rot in range(ROTATIONS)
            ],
            dtype=np.int32,
        )
        self.letters = len(LETTERS)
        self.item_inputs = 3 * self.letters + len(other)
        self.cells = float(window.size)

    def init(self, rng: np.random.Generator, hidden: int = 32) -> Params:
        """First weights: scaled normal (He), biases zero, the output layers small."""

        def dense(n_in: int, n_out: int, scale: float = 1.0) -> npt.NDArray[np.float32]:
            return np.asarray(
                rng.standard_normal((n_in, n_out)) * scale * np.sqrt(2.0 / n_in), dtype=np.float32
            )

        def zeros(n: int) -> npt.NDArray[np.float32]:
            return np.zeros(n, dtype=np.float32)

        h, t = hidden, self.table_planes
        return {
            "w1": dense(self.item_inputs, h),
            "b1": zeros(h),
            "w2": dense(h, h),
            "b2": zeros(h),
            "wt": dense(t, h),
            "bt": zeros(h),
            "w3": dense(h, h, 0.5),
            "w3t": dense(h, h, 0.5),
            "b3": zeros(h),
            "w4": dense(h, 1, 0.1)[:, 0],
            "b4": zeros(1),
            "wv1": dense(t + self.grid_planes, h),
            "bv1": zeros(h),
            "wv2": dense(h, 1, 0.1)[:, 0],
            "bv2": zeros(1),
        }

    def forward(
        self, params: Params, xp: Any, grid: Any, table: Any, owner: Any, actions: Any
    ) -> tuple[Any, Any]:
        """The logit of each listed action (``MASKED`` on padding: ``owner`` = the number of
        games), ``(L,)``, and each game's value, ``(B,)``: on numpy or ``jax.numpy`` (``xp``)."""
        b = grid.shape[0]
        game = xp.minimum(owner, b - 1)
        flat, tile, facing, near = self.contacts(xp, grid, table, game, actions)
        items = xp.concatenate([tile, facing, tile * facing, near], axis=-1)

        def relu(x: Any) -> Any:
            return xp.maximum(x, 0.0)

        h = relu(items @ params["w1"] + params["b1"]).sum(axis=1)  # (L, H)
        h = relu(h @ params["w2"] + params["b2"])
        t = relu(table @ params["wt"] + params["bt"])  # (B, H)
        a = relu(h @ params["w3"] + (t @ params["w3t"])[game] + params["b3"])
        logits = xp.where(owner < b, a @ params["w4"] + params["b4"][0], MASKED)
        pooled = flat.sum(axis=1) / self.cells
        v = relu(xp.concatenate([table, pooled], axis=1) @ params["wv1"] + params["bv1"])
        values = v @ params["wv2"] + params["bv2"][0]
        return logits, values

    def contacts(self, xp: Any, grid: Any, table: Any, game: Any, actions: Any) -> tuple[Any, Any, Any, Any]:
        """What each listed action sees in each direction ``d``: the grid as ``(B, spots + 1,
        planes)``, then ``(L, 6, letters)`` one-hot letters of the revealed tile's edge facing
        ``d`` and of the neighbour's edge facing back, and ``(L, 6, ...)`` the neighbour's other
        planes (zeros where there is no neighbour in the grid)."""
        b = grid.shape[0]
        flat = grid.reshape(b, self.grid_planes, self.spots).transpose(0, 2, 1)
        flat = xp.concatenate([flat, xp.zeros((b, 1, self.grid_planes), dtype=flat.dtype)], axis=1)
        cell, rot = actions // ROTATIONS, actions % ROTATIONS
        spots = xp.asarray(self.neighbours)[cell]  # (L, 6)
        at = game[:, None, None]
        seen = flat[at, spots[..., None], xp.asarray(self.read)[None]]  # (L, 6, R)
        tile = table[at, xp.asarray(self.tile_edge)[rot]]  # (L, 6, letters)
        n = self.letters
        return flat, tile, seen[..., :n], seen[..., n:]

    def choose(
        self, params: Params, obs: dict[str, Any], masks: npt.NDArray[np.int8]
    ) -> npt.NDArray[np.int64]:
        """Each game's action of the highest logit (numpy; 0 for a game with no legal action)."""
        legal = legal_lists(masks)
        logits, _ = self.forward(params, np, obs["grid"], obs["table"], legal.owner, legal.actions)
        best = best_of_each(np.asarray(logits, dtype=np.float64), legal)
        return np.where(legal.counts > 0, legal.actions[best], 0).astype(np.int64)


def save_params(params: Params, path: str | Path, about: dict[str, Any]) -> None:
    """The weights as float32 arrays in an ``.npz``, with ``about`` (JSON) beside them."""
    import json

    arrays: dict[str, Any] = {name: np.asarray(params[name], dtype=np.float32) for name in PARAMS}
    text = np.frombuffer(json.dumps(about, sort_keys=True).encode(), dtype=np.uint8)
    with open(path, "wb") as f:
        np.savez_compressed(f, about=text, **arrays)


def load_params(path: str | Path) -> tuple[Params, dict[str, Any]]:
    """The weights and their ``about`` from :func:`save_params`'s file; ``ValueError`` if it is not one."""
    import json
    import zipfile

    try:
        # Opened here and closed here: numpy leaves its own handle open when a file is no archive.
        with open(path, "rb") as handle, np.load(handle, allow_pickle=False) as data:
            arrays = {name: np.asarray(data[name]) for name in data.files}
    except (OSError, ValueError, zipfile.BadZipFile) as exc:
        raise ValueError(f"{path} is not a planes policy: {exc}") from None
    missing = [name for name in (*PARAMS, "about") if name not in arrays]
    if missing:
        raise ValueError(f"{path} is not a planes policy: no {', '.join(missing)}")
    try:
        about = json.loads(bytes(arrays["about"]).decode())
    except (json.JSONDecodeError, UnicodeDecodeError) as exc:
        raise ValueError(f"{path} is not a planes policy: {exc}") from None
    return {name: arrays[name].astype(np.float32) for name in PARAMS}, about


class PlanesPlayer:
    """A trained planes policy (by default the one shipped, :data:`POLICY_FILE`) as a computer
    player of the solo Board Game (numpy only): it
    encodes the view as the batched environment does (compact layout), scores the legal
    placements inside the window and plays the best (any placement if none lies inside)."""

    name = "planes"

    def __init__(self, path: str | Path | None = None, radius: int | None = None) -> None:
        from importlib import resources

        from dorf.rules.tiles import load_tileset

        if path is None:
            with resources.as_file(resources.files("dorf.data").joinpath(POLICY_FILE)) as shipped:
                self.params, self.about = load_params(shipped)
        else:
            self.params, self.about = load_params(path)
        radius = int(self.about.get("settings", {}).get("radius", 10)) if radius is None else radius
        self.window = window = Window(radius)
        self.encoder = encoder = Encoder("coop", window, load_tileset("base"))
        self.net = PlanesNet(window, encoder)

    def choose(self, view: Any) -> Any:
        from dorf.rules.hexgrid import cell_of

        decisions = list(view.legal_decisions())
        if not decisions:
            raise ValueError("there is no legal decision to choose from")
        index = self.window.index
        inside = [(d, index[cell_of(*d.at)]) for d in decisions if cell_of(*d.at) in index]
        if not inside:
            return decisions[0]
        planes = self.encoder.coop(view)
        start = self.net.grid_planes
        grid, table = planes[None, :start], planes[None, start:, 0, 0]
        actions = np.array([at * ROTATIONS + d.rot for d, at in inside], dtype=np.int32)
        owner = np.zeros(len(actions), dtype=np.int32)
        logits, _ = self.net.forward(self.params, np, grid, table, owner, actions)
        return inside[int(np.argmax(logits))][0]
