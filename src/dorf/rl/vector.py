"""Many solo games of the Board Game in one call: ``gymnasium.make_vec("dorf/Coop-v0", num_envs=N)``.

:class:`CoopVectorEnv` is a Gymnasium :class:`~gymnasium.vector.VectorEnv` of ``N`` games
of ``dorf/Coop-v0`` (:class:`dorf.rl.coop_env.CoopEnv`) stepped together.  Every step
writes into arrays allocated once: the observations (``(N, 178, 21, 21)`` float32, or
the compact layout below), ``infos["action_mask"]`` (``(N, 1986)`` int8, from the
engine's one enumerator), the rewards, ``terminated`` and ``truncated``; the arrays it
returns are those same arrays, overwritten by the next call (copy what you keep, or pass
``copy=True``).

- **Same trajectories.** Environment ``i`` is seeded as a :class:`CoopEnv` given
  ``reset(seed=seed + i)`` (a list gives each its own seed), and every later reset draws
  its next shuffle from that environment's own generator, as ``CoopEnv.reset()`` does:
  for the same seeds and actions the observations, masks, rewards and ends are exactly
  those of ``N`` single environments (``tests/rl/test_rl_vector.py``).
- **Autoreset** is Gymnasium's default, ``AutoresetMode.NEXT_STEP``: the step that ends
  an episode returns its last observation with ``terminated`` or ``truncated``; the next
  step ignores that environment's action, deals its next game and returns the first
  observation of it, reward 0, ``terminated`` and ``truncated`` False.
  ``reset(options={"reset_mask": m})`` resets only the environments where ``m`` is true.
- **Layouts.** ``layout="full"``: the observation planes of :mod:`dorf.rl.planes`, as the
  single environment gives them.  ``layout="compact"``: a dict of ``"grid"``, the
  planes that change over the grid (``window`` and the area's 88, ``(N, 89, 21, 21)``),
  and ``"table"``, one value per constant plane (``(N, 89)``); :func:`expand` turns it
  into the full planes.  Both keep each game's area planes in the output array and bring
  them up to date with each new tile; the full layout rewrites only the constant planes
  whose value changed.  docs/rl.md has the arithmetic.
- **Infos** are arrays over the environments: ``action_mask``, ``score``, ``turn``,
  ``game_seed``, ``outside_window`` and ``illegal_action`` (an action outside the mask
  ends that episode with reward 0, as in the single environment).
- **Loops.** ``loop="compiled"`` (the default where the extension ``dorf.rl._vector`` is
  built) steps every game in one C call: each game's play area (either backend) through
  its own methods, the reveal rule, the score pad, the mask and the planes; only the deals
  are Python (:meth:`CoopVectorEnv._deal_compiled`).  ``loop="python"`` plays the same
  games through :class:`~dorf.games.coop.CoopState` and the :class:`~dorf.rl.planes.Encoder`,
  one after the other.

:class:`SelfPlayVectorEnv` batches the Duel and Head to Head in self-play: the Duel's games in
one C call a step (the same ``dorf.rl._vector``), Head to Head's as a Python loop over the
PettingZoo environments' games.

>>> env = CoopVectorEnv(3, radius=4)
>>> obs, infos = env.reset(seed=0)
>>> obs.shape, infos["action_mask"].shape, env.single_action_space
((3, 178, 9, 9), (3, 366), Discrete(366))
>>> actions = [int(m.nonzero()[0][0]) for m in infos["action_mask"]]
>>> obs, rewards, terminated, truncated, infos = env.step(actions)
>>> rewards.tolist(), infos["turn"].tolist()
([0.0, 1.0, 0.0], [2, 2, 2])
"""

from __future__ import annotations

import random
import sys
from collections.abc import Sequence
from types import ModuleType
from typing import Any

import gymnasium as gym
import numpy as np
import numpy.typing as npt
from gymnasium import spaces
from gymnasium.utils import seeding
from gymnasium.vector import AutoresetMode
from gymnasium.vector.utils import batch_space

from dorf.games.coop import CoopGame, CoopState
from dorf.games.headtohead import HeadToHeadGame
from dorf.games.seat import Revealed, shuffle_stacks
from dorf.rl.planes import GROUP_LETTERS, TASK_TYPES, Encoder, Planes, _Marks
from dorf.rl.window import DEFAULT_RADIUS, Window, rotation_classes
from dorf.rules.area import FIGURES_PER_TILE, PlayArea
from dorf.rules.hexgrid import ORIGIN
from dorf.rules.scoring import DUEL_TASK_TYPES, HEAD_TO_HEAD_TASK_TYPES, PAIR_POINTS, score_coop
from dorf.rules.scoring import TASK_TYPES as SCORED_TASK_TYPES
from dorf.rules.tasks import COMPLETED, DOUBLE, FAILED, OPEN, TaskSpec
from dorf.rules.terrain import AREA_INDEX, LETTERS, TASK_LETTER
from dorf.rules.tiles import TileSet, load_tileset

_compiled: ModuleType | None
try:
    from dorf.rl import _vector as _compiled
except ImportError:  # no C compiler at install time: the Python loop
    _compiled = None

LAYOUTS = ("full", "compact")
#: How the games are stepped: ``compiled`` (dorf.rl._vector, one C call a step) or ``python``
#: (a Python loop over the games, the same results).
LOOPS = ("compiled", "python")
Observations = Planes | dict[str, npt.NDArray[np.float32]]


def seeds_for(seed: int | Sequence[int | None] | None, n: int) -> list[int | None]:
    """Each environment's seed for a reset: ``seed + i`` for environment ``i`` of a single seed
    (as N single environments given those seeds), none for none, or one given per environment."""
    if seed is None or isinstance(seed, int):
        return [None if seed is None else seed + i for i in range(n)]
    seeds = list(seed)
    if len(seeds) != n:
        raise ValueError(f"{len(seeds)} seeds for {n} environments")
    return seeds


def _compiled_batch(
    encoder: Encoder,
    prefix: str,
    arrays: tuple[npt.NDArray[Any], ...],
    *,
    full: bool,
    illegal_raise: bool,
    duel: tuple[Any, ...] | None = None,
) -> Any:
    """A compiled batch (:class:`dorf.rl._vector.Batch`) of ``encoder``'s mode writing into
    ``arrays``: the area planes are those of ``prefix`` (``""``, or ``"own:"`` in the two-player
    games, whose other area's block follows), the constant planes from ``encoder.table_start``;
    ``duel`` makes it a batch of two-player games (see ``Batch``)."""
    assert _compiled is not None
    window, tileset = encoder.window, encoder.tileset
    at = encoder.offset
    first = at[f"{prefix}tile"]
    cells = window.side**2
    spots = (window.rows * window.side + window.cols).astype(np.int32)
    origin = int(spots[window.index[ORIGIN]]) if ORIGIN in window else -1
    names = ("tile", "frontier", "edge:0:F", "open:0", "flag:F", "task:completed", "task:failed", "task:size")
    area_planes = [at[f"{prefix}{name}"] - first for name in names]
    type_planes = [at[f"{prefix}task:{kind}"] - first for kind in TASK_TYPES]
    groups = []
    for letter in GROUP_LETTERS:
        groups += [
            1 + 2 * AREA_INDEX[letter],
            at[f"{prefix}group:{letter}"] - first,
            at[f"{prefix}group-open:{letter}"] - first,
        ]
    start = encoder.table_start
    slot = {name: i - start for i, name in enumerate(encoder.names) if i >= start}
    tiles = tileset.tiles
    unseen0 = [sum(letter in tile.face for tile in tiles) for letter in LETTERS]
    markers0 = [len(_marker_pile(tileset, kind, encoder.mode == "duel")) for kind in TASK_TYPES]
    land_values = np.array(
        [encoder.tile_table(Revealed(i, tile, None)) for i, tile in enumerate(tiles)], dtype=np.float32
    )
    letter_masks = np.array(
        [sum(1 << k for k, letter in enumerate(LETTERS) if letter in tile.face) for tile in tiles],
        dtype=np.int32,
    )
    classes = bytes(c for tile in tiles for c in rotation_classes(tile.face))
    return _compiled.Batch(
        len(arrays[0]),
        start if full else -1,
        illegal_raise,
        arrays,
        (
            cells,
            window.actions,
            window.lookup.astype(np.int32),
            np.array(window.cells, dtype=np.int32),
            spots,
        ),
        (
            len(tiles),
            tuple(t.face for t in tiles),
            tuple(t.flag for t in tiles),
            classes,
            letter_masks,
            land_values,
        ),
        (arrays[0].shape[1], encoder.area_planes, origin, area_planes, type_planes, groups, FIGURES_PER_TILE),
        (
            encoder.shape[0] - start,
            slot["left:landscapes"],
            slot["left:tasks"],
            slot.get("turn", -1),  # (Head to Head's table has no turn and no marker piles)
            slot.get(f"markers:{TASK_TYPES[0]}", -1),
            slot[f"unseen:{LETTERS[0]}"],
            unseen0,
            markers0,
        ),
        (
            OPEN,
            COMPLETED,
            FAILED,
            {kind: i for i, kind in enumerate(TASK_TYPES)},
            set(_SCORED[encoder.mode]),
            dict(TASK_LETTER),
        ),
        getattr(sys.modules.get("dorf.rules._accel"), "_api", None),  # only if already imported
        duel,
    )


#: The task types each game's score pad counts.
_SCORED = {"coop": SCORED_TASK_TYPES, "duel": DUEL_TASK_TYPES, "head-to-head": HEAD_TO_HEAD_TASK_TYPES}


def _marker_pile(tileset: TileSet, kind: str, doubles: bool) -> tuple[Any, ...]:
    """The markers of ``kind`` a game begins with (in the Duel, a Double task draws one of the
    set's pairs of territories)."""
    if doubles and kind == DOUBLE:
        return tuple(tileset.doubles)
    return tuple(tileset.markers.get(kind, ()))


def _deal_arguments(
    encoder: Encoder,
    tileset: TileSet,
    game_seed: int,
    known: dict[tuple[int, TaskSpec], npt.NDArray[np.float32]],
    doubles: bool,
) -> tuple[Any, ...]:
    """A game's deal as the engine deals it (the same shuffle, and each task tile the marker it
    will draw: they are drawn in the order of the stack) for ``Batch.deal``, after the area:
    ``known`` keeps the table values of each (tile, task) met."""
    tiles = tileset.tiles
    stacks = shuffle_stacks(tileset, game_seed)
    piles = stacks.markers
    specs: list[TaskSpec] = [TaskSpec("", 0)] * len(stacks.tasks)
    for pos in range(len(stacks.tasks) - 1, -1, -1):  # the top of the stack is drawn first
        kind = tiles[stacks.tasks[pos]].task
        assert kind is not None
        if doubles and kind == DOUBLE:
            specs[pos] = TaskSpec(DOUBLE, 6, stacks.doubles.pop())
        else:
            specs[pos] = TaskSpec(kind, piles[kind].pop())
    values = []
    for tile_id, spec in zip(stacks.tasks, specs, strict=True):
        row = known.get((tile_id, spec))
        if row is None:
            row = known[(tile_id, spec)] = np.array(
                encoder.tile_table(Revealed(tile_id, tiles[tile_id], spec)), dtype=np.float32
            )
        values.append(row)
    slots = [
        TASK_TYPES.index(spec.type)
        if spec.type in tileset.markers or (doubles and spec.type == DOUBLE)
        else -1
        for spec in specs
    ]
    return (
        np.array(stacks.tasks, dtype=np.int32),
        specs,
        np.array(values, dtype=np.float32).reshape(len(specs), -1),
        np.array(slots, dtype=np.int32),
        np.array(stacks.landscapes, dtype=np.int32),
    )


class CoopVectorEnv(gym.vector.VectorEnv[Any, Any, Any]):
    """``num_envs`` solo games of the Board Game, stepped together (see the module's notes)."""

    metadata: dict[str, Any] = {"autoreset_mode": AutoresetMode.NEXT_STEP}  # noqa: RUF012 (as VectorEnv declares it)

    def __init__(
        self,
        num_envs: int,
        radius: int = DEFAULT_RADIUS,
        tileset: str = "base",
        layout: str = "full",
        illegal_action: str = "end",
        copy: bool = False,
        render_mode: str | None = None,
        loop: str | None = None,
    ) -> None:
        if num_envs < 1:
            raise ValueError(f"num_envs must be 1 or more, not {num_envs}")
        if layout not in LAYOUTS:
            raise ValueError(f"layout must be one of {LAYOUTS}, not {layout!r}")
        if illegal_action not in ("end", "raise"):
            raise ValueError(f"illegal_action must be 'end' or 'raise', not {illegal_action!r}")
        if render_mode is not None:
            raise ValueError("the batched environments do not render")
        if loop is None:
            loop = "python" if _compiled is None else "compiled"
        if loop not in LOOPS:
            raise ValueError(f"loop must be one of {LOOPS}, not {loop!r}")
        if loop == "compiled" and _compiled is None:
            raise ValueError("the compiled loop (dorf.rl._vector) is not built here: use loop='python'")
        self.loop = loop
        self.num_envs = num_envs
        self.layout = layout
        self.illegal_action = illegal_action
        self.copy = copy
        self.render_mode = None
        self.window = window = Window(radius)
        self.tileset = load_tileset(tileset)
        self.encoder = encoder = Encoder("coop", window, self.tileset)
        planes, side = encoder.shape[0], window.side
        self._start = start = encoder.table_start
        full = spaces.Box(low=np.zeros(encoder.shape, dtype=np.float32), high=encoder.high, dtype=np.float32)
        if layout == "full":
            self.single_observation_space: spaces.Space[Any] = full
            self._obs = _zeros((num_envs, planes, side, side))
            self._obs[:, 0] = window.inside
            self._grid = self._obs
        else:
            self.single_observation_space = spaces.Dict(
                {
                    "grid": spaces.Box(
                        low=np.zeros((start, side, side), dtype=np.float32),
                        high=encoder.high[:start],
                        dtype=np.float32,
                    ),
                    "table": spaces.Box(
                        low=np.zeros(planes - start, dtype=np.float32),
                        high=encoder.high[start:, 0, 0],
                        dtype=np.float32,
                    ),
                }
            )
            self._grid = _zeros((num_envs, start, side, side))
            self._grid[:, 0] = window.inside
        self.single_action_space: spaces.Space[Any] = spaces.Discrete(window.actions)
        self._batched_space: spaces.Space[Any] | None = None  # made when first asked for
        self.action_space = batch_space(self.single_action_space, num_envs)
        self._table = np.zeros((num_envs, planes - start), dtype=np.float32)
        #: The table values written into the full planes last (NaN: write them all).
        self._written = np.full((num_envs, planes - start), np.nan, dtype=np.float32)
        self._masks = np.zeros((num_envs, window.actions), dtype=np.int8)
        self._rewards = np.zeros(num_envs, dtype=np.float64)
        self._terminated = np.zeros(num_envs, dtype=np.bool_)
        self._truncated = np.zeros(num_envs, dtype=np.bool_)
        self._score = np.zeros(num_envs, dtype=np.int64)
        self._turn = np.zeros(num_envs, dtype=np.int64)
        self._game_seed = np.zeros(num_envs, dtype=np.int64)
        self._outside = np.zeros(num_envs, dtype=np.int64)
        self._illegal = np.zeros(num_envs, dtype=np.bool_)
        #: Environments whose episode ended at the last step: the next step deals them a new game.
        self._autoreset = np.zeros(num_envs, dtype=np.bool_)
        self._rngs: list[np.random.Generator | None] = [None] * num_envs
        self._states: list[CoopState | None] = [None] * num_envs
        self._marks: list[_Marks | None] = [None] * num_envs
        self._batch = self._make_batch() if loop == "compiled" else None
        #: Per (tile id, task) drawn: the table values of that tile to place (the compiled loop).
        self._tile_values: dict[tuple[int, TaskSpec], npt.NDArray[np.float32]] = {}

    def _make_batch(self) -> Any:
        """The compiled loop's games, writing into this environment's arrays."""
        arrays = (
            self._grid,
            self._table,
            self._written,
            self._masks,
            self._rewards,
            self._terminated,
            self._truncated,
            self._illegal,
            self._autoreset,
            self._score,
            self._turn,
            self._outside,
        )
        return _compiled_batch(
            self.encoder, "", arrays, full=self.layout == "full", illegal_raise=self.illegal_action == "raise"
        )

    # --- Gymnasium's vector API -------------------------------------------------------

    @property
    def observation_space(self) -> spaces.Space[Any]:
        """The batched observation space, made when first asked for: a Box of N full
        observations holds two arrays as large as the observations themselves."""
        if self._batched_space is None:
            self._batched_space = batch_space(self.single_observation_space, self.num_envs)
        return self._batched_space

    @observation_space.setter
    def observation_space(self, space: spaces.Space[Any]) -> None:
        self._batched_space = space

    def reset(
        self, *, seed: int | Sequence[int | None] | None = None, options: dict[str, Any] | None = None
    ) -> tuple[Observations, dict[str, Any]]:
        n = self.num_envs
        seeds = seeds_for(seed, n)
        which = np.ones(n, dtype=np.bool_)
        if options and "reset_mask" in options:
            which = np.asarray(options["reset_mask"], dtype=np.bool_)
            if which.shape != (n,):
                raise ValueError(f"reset_mask must have shape ({n},)")
        chosen: list[int | None] = [None] * n
        if options and "game_seeds" in options:
            chosen = [None if g is None else int(g) for g in options["game_seeds"]]
            if len(chosen) != n:
                raise ValueError(f"game_seeds must give {n} shuffles (None: drawn as usual)")
        for i in np.flatnonzero(which).tolist():
            self._deal(i, seeds[i], chosen[i])
        self._rewards[which] = 0.0
        self._terminated[which] = False
        self._truncated[which] = False
        self._autoreset[which] = False
        if self._batch is None:
            self._write_table()
        return self._observations(), self._infos()

    def step(self, actions: Any) -> tuple[Observations, Any, Any, Any, dict[str, Any]]:
        chosen = np.ascontiguousarray(actions, dtype=np.int64).reshape(self.num_envs)
        if self._rngs[0] is None:
            raise RuntimeError("call reset() first")
        if self.illegal_action == "raise":  # checked for every game before any game moves
            self._check_legal(chosen)
        if self._batch is not None:
            for i in np.flatnonzero(self._autoreset).tolist():
                self._deal(i, None)  # the step below leaves it as dealt (and clears the flag)
            self._batch.step(chosen)
            return self._returns()
        rewards, terminated, truncated = self._rewards, self._terminated, self._truncated
        masks, window, illegal = self._masks, self.window, self._illegal
        actions_n = window.actions
        illegal[:] = False
        restart = self._autoreset.copy()
        for i, a in enumerate(chosen.tolist()):
            state = self._states[i]
            if state is None:
                raise RuntimeError("call reset() first")
            if restart[i]:
                self._deal(i, None)
                rewards[i] = 0.0
                terminated[i] = truncated[i] = False
                continue
            if not (0 <= a < actions_n and masks[i, a]):
                if self.illegal_action == "raise":
                    raise ValueError(
                        f"action {a} of environment {i} is not legal now (see infos['action_mask'])"
                    )
                illegal[i] = True
                rewards[i] = 0.0
                terminated[i], truncated[i] = True, False
                continue
            revealed = state.revealed
            assert revealed is not None
            index, rot = divmod(a, 6)
            state.push_move(window.cells[index], rotation_classes(revealed.tile.face)[rot])
            score = score_coop(state.area, with_task_list=False).total
            rewards[i] = score - self._score[i]
            self._score[i] = score
            inside = self._update(i, state)
            terminated[i] = over = state.is_over
            truncated[i] = not over and inside == 0
        self._autoreset[:] = terminated | truncated
        self._write_table()
        return self._returns()

    def _check_legal(self, chosen: npt.NDArray[np.int64]) -> None:
        i = _first_illegal(self._masks, chosen, self._autoreset)
        if i is not None:
            raise ValueError(
                f"action {chosen[i]} of environment {i} is not legal now (see infos['action_mask'])"
            )

    def _returns(self) -> tuple[Observations, Any, Any, Any, dict[str, Any]]:
        obs, rewards, terminated, truncated = (
            self._observations(),
            self._rewards,
            self._terminated,
            self._truncated,
        )
        if self.copy:
            return obs, rewards.copy(), terminated.copy(), truncated.copy(), self._infos()
        return obs, rewards, terminated, truncated, self._infos()

    def close_extras(self, **kwargs: Any) -> None:
        self._states = [None] * self.num_envs

    # --- one game ------------------------------------------------------------------------

    @property
    def game_states(self) -> list[CoopState]:
        """The engine's states (hidden stacks included: do not show them to an agent)."""
        states = self._states
        if any(s is None for s in states):
            raise RuntimeError("call reset() first")
        return [s for s in states if s is not None]

    def _deal(self, i: int, seed: int | None, game_seed: int | None = None) -> None:
        """Environment ``i``'s next game: its generator seeded anew if ``seed`` is given
        (:meth:`CoopEnv.reset`'s ``seed``), the shuffle drawn from it unless ``game_seed``
        names it (``reset(options={"game_seeds": ...})``, as ``CoopEnv``'s ``game_seed``)."""
        rng = self._rngs[i]
        if seed is not None or rng is None:
            rng, _ = seeding.np_random(seed)
            self._rngs[i] = rng
        drawn = int(rng.integers(2**31))  # drawn either way, as CoopEnv draws it
        if game_seed is None:
            game_seed = drawn
        if self._batch is not None:
            self._deal_compiled(i, game_seed)
            return
        state = self._states[i] = CoopGame(seed=game_seed, tileset=self.tileset).new_state()
        self._game_seed[i] = game_seed
        self._score[i] = 0
        block = self._grid[i, 1 : self._start]
        block[...] = 0.0
        self._marks[i] = self.encoder.area_marks(block)
        self._written[i] = np.nan
        self._update(i, state)

    def _deal_compiled(self, i: int, game_seed: int) -> None:
        """Deal game ``i`` as :class:`CoopGame` deals it and hand it to the C loop."""
        self._game_seed[i] = game_seed
        assert self._batch is not None
        deal = _deal_arguments(self.encoder, self.tileset, game_seed, self._tile_values, doubles=False)
        self._batch.deal(i, PlayArea(), *deal)

    def _update(self, i: int, state: CoopState) -> int:
        """Environment ``i``'s mask, area planes and table values after a deal or a placement;
        returns how many legal moves lie inside the window."""
        revealed = state.revealed
        moves = state.area.move_array(state.legal_moves())
        row = self._masks[i]
        row[:] = 0
        _, outside = self.window.mask_and_outside(
            None if revealed is None else revealed.tile.face, moves, row
        )
        self._outside[i] = outside
        self._turn[i] = state.turn
        marks = self._marks[i]
        assert marks is not None
        self.encoder.update_area(marks, state.area)
        self._table[i] = self.encoder.coop_table(state.view())
        return len(moves) // 2 - outside

    def _write_table(self) -> None:
        """The full layout: the constant planes whose value changed, over the whole grid."""
        if self.layout != "full":
            return
        changed = self._table != self._written  # NaN: never written
        if changed.any():
            planes = self._obs[:, self._start :]
            planes[changed] = self._table[changed][:, None, None]
            self._written[changed] = self._table[changed]

    def _observations(self) -> Observations:
        if self.layout == "full":
            return self._obs.copy() if self.copy else self._obs
        if self.copy:
            return {"grid": self._grid.copy(), "table": self._table.copy()}
        return {"grid": self._grid, "table": self._table}

    def _infos(self) -> dict[str, Any]:
        infos: dict[str, npt.NDArray[Any]] = {
            "action_mask": self._masks,
            "score": self._score,
            "turn": self._turn,
            "game_seed": self._game_seed,
            "outside_window": self._outside,
            "illegal_action": self._illegal,
        }
        if self.copy:
            return {k: v.copy() for k, v in infos.items()}
        return infos

    def sample_actions(self, rng: np.random.Generator) -> npt.NDArray[np.int64]:
        """One legal action per game, uniformly among its mask (0 where the mask is empty: a game
        that resets at this step ignores its action), drawn with one uniform number per game."""
        return _sample(self._masks, rng)

    def action_masks(self) -> npt.NDArray[np.bool_]:
        """The legal actions now, as booleans, ``(num_envs, actions)``."""
        return self._masks.astype(bool)


def _first_illegal(
    masks: npt.NDArray[np.int8], chosen: npt.NDArray[np.int64], skipped: npt.NDArray[np.bool_]
) -> int | None:
    """The first game whose chosen action its mask does not mark (the ``skipped`` games, dealt
    again at this step, ignore theirs), or None."""
    inside = (chosen >= 0) & (chosen < masks.shape[1])
    legal = masks[np.arange(len(chosen)), np.where(inside, chosen, 0)].astype(bool) & inside
    bad = np.flatnonzero(~legal & ~skipped)
    return int(bad[0]) if len(bad) else None


def _sample(masks: npt.NDArray[np.int8], rng: np.random.Generator) -> npt.NDArray[np.int64]:
    """One marked action per row of ``masks``, uniformly, drawn with one uniform number a row (0
    where a row marks none): the compiled sampler where it is built."""
    n = len(masks)
    uniforms = rng.random(n)
    out = np.zeros(n, dtype=np.int64)
    if _compiled is not None:
        _compiled.sample(masks, uniforms, out)
        return out
    marked = masks.astype(bool)
    counts = marked.sum(axis=1)
    for i in np.flatnonzero(counts).tolist():
        k = min(int(uniforms[i] * counts[i]), int(counts[i]) - 1)
        out[i] = np.flatnonzero(marked[i])[k]
    return out


def _zeros(shape: tuple[int, ...]) -> npt.NDArray[np.float32]:
    """A float32 array of zeros with every page written now (``np.zeros`` leaves a large one to
    the kernel to clear on first touch, in the middle of the first steps)."""
    out = np.empty(shape, dtype=np.float32)
    out.fill(0.0)
    return out


def expand(compact: dict[str, npt.NDArray[np.float32]]) -> Planes:
    """The full observation planes of a compact observation (one game's or a batch's)."""
    grid, table = compact["grid"], compact["table"]
    shape = (*table.shape, *grid.shape[-2:])
    return np.concatenate([grid, np.broadcast_to(table[..., None, None], shape)], axis=-3)


def make_vector(num_envs: int, **kwargs: Any) -> CoopVectorEnv:
    """The ``vector_entry_point`` of ``dorf/Coop-v0``: ``gymnasium.make_vec`` calls it."""
    kwargs.pop("max_episode_steps", None)
    return CoopVectorEnv(num_envs, **kwargs)


class SelfPlayVectorEnv:
    """``num_envs`` games of the Duel or Head to Head (``mode``) in self-play, stepped together.

    One policy plays both seats: every step takes one action per game, for the seat to act
    (``to_play``, the first of ``state.to_move()`` as in :mod:`dorf.rl.aec`), and returns that
    seat's next observation, mask and ``to_play``, the rewards of both seats (``(N, 2)``, the
    AEC environments' ``reward=`` kinds), ``terminated`` and ``truncated``.  Seeding and the
    next-step autoreset are :class:`CoopVectorEnv`'s; an action outside the mask raises
    ``ValueError`` before any game moves.  The arrays are allocated once and overwritten by
    every step.

    ``loop="compiled"`` (the Duel's default where ``dorf.rl._vector`` is built) steps every
    game in one C call: both play areas through their own methods, the Duel's reveal rule for
    the two areas, a tile set aside where it fits nowhere, the score pads, the mask and the
    planes; each area's planes are kept in the batch and copied into the observation, the
    seat's own area first, the other's as that seat may see it (a placement of the turn it has
    not made yet is left out).  ``loop="python"`` (Head to Head's only loop) plays the games
    through :class:`dorf.rl.aec.DuelEnv` / :class:`~dorf.rl.aec.HeadToHeadEnv`, one after the
    other.  Both give those environments' trajectories.

    >>> env = SelfPlayVectorEnv("duel", 2, radius=4)
    >>> obs, infos = env.reset(seed=0)
    >>> obs.shape, infos["to_play"].tolist()
    ((2, 267, 9, 9), [0, 0])
    >>> obs, rewards, terminated, truncated, infos = env.step(env.sample_actions(np.random.default_rng(0)))
    >>> rewards.shape, infos["to_play"].tolist()
    ((2, 2), [1, 1])
    """

    def __init__(
        self,
        mode: str,
        num_envs: int,
        radius: int = DEFAULT_RADIUS,
        reward: str = "score",
        loop: str | None = None,
    ) -> None:
        from dorf.rl.aec import AGENTS, REWARDS, DuelEnv, HeadToHeadEnv

        kinds = {"duel": DuelEnv, "head-to-head": HeadToHeadEnv}
        if mode not in kinds:
            raise ValueError(f"mode must be one of {tuple(kinds)}, not {mode!r}")
        if num_envs < 1:
            raise ValueError(f"num_envs must be 1 or more, not {num_envs}")
        if reward not in REWARDS:
            raise ValueError(f"reward must be one of {REWARDS}, not {reward!r}")
        compiled = _compiled is not None
        if loop is None:
            loop = "compiled" if compiled else "python"
        if loop not in LOOPS:
            raise ValueError(f"loop must be one of {LOOPS}, not {loop!r}")
        if loop == "compiled" and not compiled:
            raise ValueError("the compiled loop (dorf.rl._vector) is not built here: use loop='python'")
        self.mode = mode
        self.loop = loop
        self.num_envs = num_envs
        self.agents = AGENTS
        # The Python loop's games; the compiled loop keeps one for its spaces and encoder.
        self._envs = [
            kinds[mode](radius=radius, reward=reward) for _ in range(num_envs if loop == "python" else 1)
        ]
        first = self._envs[0]
        self.single_observation_space: spaces.Space[Any] = first.observation_spaces[AGENTS[0]]["observation"]
        self.single_action_space = spaces.Discrete(first.action_spaces[AGENTS[0]].n)
        actions = int(self.single_action_space.n)
        self._obs = _zeros((num_envs, *first.encoder.shape))
        self._masks = np.zeros((num_envs, actions), dtype=np.int8)
        self._rewards = np.zeros((num_envs, 2), dtype=np.float64)
        self._terminated = np.zeros(num_envs, dtype=np.bool_)
        self._truncated = np.zeros(num_envs, dtype=np.bool_)
        self._to_play = np.zeros(num_envs, dtype=np.int64)
        self._scores = np.zeros((num_envs, 2), dtype=np.int64)
        self._game_seed = np.zeros(num_envs, dtype=np.int64)
        self._autoreset = np.zeros(num_envs, dtype=np.bool_)
        self._started = False
        self._batch: Any = None
        if loop == "compiled":
            encoder = first.encoder
            self._obs[:, 0] = encoder.window.inside
            start = encoder.table_start
            self._table = np.zeros((num_envs, encoder.shape[0] - start), dtype=np.float32)
            self._written = np.full_like(self._table, np.nan)
            arrays = (
                self._obs,
                self._table,
                self._written,
                self._masks,
                self._rewards,
                self._terminated,
                self._truncated,
                np.zeros(num_envs, dtype=np.bool_),  # illegal actions: refused before the step
                self._autoreset,
                self._scores,
                np.zeros(num_envs, dtype=np.int64),  # turns
                np.zeros(num_envs, dtype=np.int64),  # moves outside the window
            )
            at = encoder.offset
            duel: tuple[Any, ...] = (REWARDS.index(reward), at["opp:to-move"] - start, self._to_play)
            self._rngs: list[np.random.Generator | None] = [None] * num_envs
            self._tile_values: dict[tuple[int, TaskSpec], npt.NDArray[np.float32]] = {}
            self._tileset = tileset = first.tileset
            if mode == "head-to-head":
                self._flags = HeadToHeadGame(tileset=tileset).flag_tiles()
                ids = ("ids:pool", "ids:own", "ids:opp")
                duel += (
                    (
                        first.picks,
                        [
                            at[name] - start
                            for name in ("opp:left:tasks", "opp:left:landscapes", f"opp:unseen:{LETTERS[0]}")
                        ]
                        + [at["phase:draft"] - start, at["phase:laying"] - start],
                        [at[name] for name in ids],
                        [at[name] - start for name in ids],
                        # per player, their flag tiles: one with a mountain half, one with a lake half
                        [self._flags[0][0], self._flags[1][0], self._flags[0][1], self._flags[1][1]],
                        bytes(tile.is_task for tile in tileset.tiles),
                        PAIR_POINTS,
                        self._laying,
                    ),
                )
            self._batch = _compiled_batch(encoder, "own:", arrays, full=True, illegal_raise=True, duel=duel)

    def reset(
        self, *, seed: int | Sequence[int | None] | None = None, options: dict[str, Any] | None = None
    ) -> tuple[Planes, dict[str, Any]]:
        n = self.num_envs
        seeds = seeds_for(seed, n)
        for i in range(n):
            if self._batch is not None:
                self._deal(i, seeds[i])
            else:
                self._envs[i].reset(seed=seeds[i])
                self._read(i)
        self._rewards[:] = 0.0
        self._terminated[:] = self._truncated[:] = self._autoreset[:] = False
        self._started = True
        return self._obs, self._infos()

    def step(self, actions: Any) -> tuple[Planes, Any, Any, Any, dict[str, Any]]:
        if not self._started:
            raise RuntimeError("call reset() first")
        chosen = np.ascontiguousarray(actions, dtype=np.int64).reshape(self.num_envs)
        self._check_legal(chosen)
        if self._batch is not None:
            for i in np.flatnonzero(self._autoreset).tolist():
                self._deal(i, None)  # the step below leaves it as dealt (and clears the flag)
            self._batch.step(chosen)
            return self._obs, self._rewards, self._terminated, self._truncated, self._infos()
        for i, env in enumerate(self._envs):
            if self._autoreset[i]:
                env.reset()
                self._rewards[i] = 0.0
                self._terminated[i] = self._truncated[i] = self._autoreset[i] = False
            else:
                env.step(int(chosen[i]))
                self._rewards[i] = [env.rewards[a] for a in self.agents]
                self._terminated[i] = env.terminations[self.agents[0]]
                self._truncated[i] = env.truncations[self.agents[0]]
                self._autoreset[i] = self._terminated[i] or self._truncated[i]
            self._read(i)
        return self._obs, self._rewards, self._terminated, self._truncated, self._infos()

    def _check_legal(self, chosen: npt.NDArray[np.int64]) -> None:
        """Refuse the step, before any game moves, if an action of a game that plays is not legal."""
        i = _first_illegal(self._masks, chosen, self._autoreset)
        if i is not None:
            agent = self.agents[max(int(self._to_play[i]), 0)]
            raise ValueError(
                f"action {chosen[i]} is not legal for {agent} now in environment {i} (see its action_mask)"
            )

    def _deal(self, i: int, seed: int | None) -> None:
        """The compiled loop: game ``i``'s next game, seeded as the AEC environment's ``reset``
        seeds it (a Duel's stacks now; Head to Head's when its draft ends, :meth:`_laying`)."""
        rng = self._rngs[i]
        if seed is not None or rng is None:
            rng, _ = seeding.np_random(seed)
            self._rngs[i] = rng
        game_seed = int(rng.integers(2**31))
        self._game_seed[i] = game_seed
        if self.mode == "duel":
            deal = _deal_arguments(
                self._envs[0].encoder, self._tileset, game_seed, self._tile_values, doubles=True
            )
        else:
            none = np.zeros(0, dtype=np.int32)
            deal = (none, [], np.zeros(0, dtype=np.float32), none, none)
        self._batch.deal(i, (PlayArea(), PlayArea()), *deal)

    def _laying(self, i: int, owned0: tuple[int, ...], owned1: tuple[int, ...]) -> tuple[Any, Any]:
        """Head to Head, game ``i``'s draft over: each player's tiles and flag tiles shuffled into a
        task stack and a landscape stack as :class:`HeadToHeadState` shuffles them (one generator
        from the game's seed, player 1's stacks first), for the C loop."""
        tiles = self._tileset.tiles
        encoder = self._envs[0].encoder
        rng = random.Random(int(self._game_seed[i]))
        out = []
        for p, owned in enumerate((owned0, owned1)):
            mine = sorted([*owned, self._flags[0][p], self._flags[1][p]])
            tasks = [t for t in mine if tiles[t].is_task]
            landscapes = [t for t in mine if not tiles[t].is_task]
            rng.shuffle(tasks)
            rng.shuffle(landscapes)
            specs = [TaskSpec(str(tiles[t].task), int(tiles[t].value or 0)) for t in tasks]  # printed
            known = self._tile_values
            rows = []
            for t, spec in zip(tasks, specs, strict=True):
                row = known.get((t, spec))
                if row is None:
                    row = known[(t, spec)] = np.array(
                        encoder.tile_table(Revealed(t, tiles[t], spec)), dtype=np.float32
                    )
                rows.append(row)
            fills = np.array(rows, dtype=np.float32).reshape(len(specs), -1)
            out.append((np.array(tasks, dtype=np.int32), specs, fills, np.array(landscapes, dtype=np.int32)))
        return out[0], out[1]

    def _read(self, i: int) -> None:
        env = self._envs[i]
        agent = env.agent_selection
        env.observe_into(agent, self._obs[i], self._masks[i])
        over = env.terminations[agent] or env.truncations[agent]
        self._to_play[i] = -1 if over else self.agents.index(agent)
        info = env.infos[agent]
        self._scores[i] = info["scores"]
        self._game_seed[i] = info["game_seed"]

    def _infos(self) -> dict[str, Any]:
        return {
            "action_mask": self._masks,
            "to_play": self._to_play,
            "scores": self._scores,
            "game_seed": self._game_seed,
        }

    def sample_actions(self, rng: np.random.Generator) -> npt.NDArray[np.int64]:
        """One legal action per game for the seat to act, uniformly (0 where none is legal), drawn
        with one uniform number per game."""
        return _sample(self._masks, rng)

    def close(self) -> None:
        for env in self._envs:
            env.close()
