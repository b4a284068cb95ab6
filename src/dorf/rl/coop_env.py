"""Gymnasium environment for the cooperative game, solo: ``gymnasium.make("dorf/Coop-v0")``.

- Actions: ``Discrete(6 * cells)`` over the window (:class:`dorf.rl.window.Window`).
- Observations: ``Box(0, high, (planes, side, side), float32)``
  (:class:`dorf.rl.planes.Encoder`, mode ``coop``), built from ``state.view()`` only.
- Mask: ``info["action_mask"]`` (int8, for ``action_space.sample(mask=...)``) and
  :meth:`CoopEnv.action_masks` (bool, as sb3-contrib's MaskablePPO asks for it).
- Reward: the change of the score pad total by each placement, so an episode's
  return is the final score.
- End: ``terminated`` when the game ends by the rules; ``truncated`` if the
  revealed tile has legal placements but none inside the window (not seen with
  the default radius, see docs/rl.md); an illegal action ends the episode
  (``terminated``, reward 0, ``info["illegal_action"]``) unless
  ``illegal_action="raise"``.
- Seeding: ``reset(seed=s)`` seeds ``np_random``, which draws the game's shuffle
  seed (``info["game_seed"]``; ``CoopGame(seed=info["game_seed"])`` replays the
  same stacks); ``reset(options={"game_seed": g})`` plays that shuffle.

>>> env = CoopEnv()
>>> obs, info = env.reset(seed=3)
>>> obs.shape, int(env.action_space.n), info["turn"]
((178, 21, 21), 1986, 1)
>>> action = int(info["action_mask"].nonzero()[0][0])
>>> obs, reward, terminated, truncated, info = env.step(action)
>>> reward, terminated, truncated, info["turn"]
(1.0, False, False, 2)
"""

from __future__ import annotations

from typing import Any, SupportsFloat

import gymnasium as gym
import numpy as np
import numpy.typing as npt
from gymnasium import spaces

from dorf.games.coop import CoopGame, CoopState
from dorf.rl.planes import Encoder, Planes
from dorf.rl.window import DEFAULT_RADIUS, Mask, Window
from dorf.rules.scoring import score_coop
from dorf.rules.tiles import load_tileset
from dorf.terminal.render import render_area

ILLEGAL_ACTIONS = ("end", "raise")


class CoopEnv(gym.Env[Planes, np.int64]):
    """The cooperative game for one player, on a fixed window of actions."""

    metadata: dict[str, Any] = {"render_modes": ["ansi"], "render_fps": 4}  # noqa: RUF012 (as Env declares it)

    def __init__(
        self,
        radius: int = DEFAULT_RADIUS,
        tileset: str = "base",
        render_mode: str | None = None,
        illegal_action: str = "end",
    ) -> None:
        if render_mode is not None and render_mode not in self.metadata["render_modes"]:
            raise ValueError(f"render mode {render_mode!r} is not one of {self.metadata['render_modes']}")
        if illegal_action not in ILLEGAL_ACTIONS:
            raise ValueError(f"illegal_action must be one of {ILLEGAL_ACTIONS}, not {illegal_action!r}")
        self.render_mode = render_mode
        self.illegal_action = illegal_action
        self.window = Window(radius)
        self.tileset = load_tileset(tileset)
        self.encoder = Encoder("coop", self.window, self.tileset)
        self.observation_space = spaces.Box(
            low=np.zeros(self.encoder.shape, dtype=np.float32), high=self.encoder.high, dtype=np.float32
        )
        self.action_space = spaces.Discrete(self.window.actions)
        self._state: CoopState | None = None
        self._mask: Mask = np.zeros(self.window.actions, dtype=np.int8)
        self._outside = 0
        #: How many legal moves are inside the window (0: the mask is empty).
        self._inside = 0
        self._score = 0
        self._game_seed = 0

    @property
    def game_state(self) -> CoopState:
        """The engine's state (hidden stacks included: do not show it to an agent)."""
        if self._state is None:
            raise RuntimeError("call reset() first")
        return self._state

    # --- Gymnasium API ------------------------------------------------------------------

    def reset(
        self, *, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[Planes, dict[str, Any]]:
        super().reset(seed=seed)
        game_seed = int(self.np_random.integers(2**31))
        if options and "game_seed" in options:
            game_seed = int(options["game_seed"])
        self._game_seed = game_seed
        self._state = CoopGame(seed=game_seed, tileset=self.tileset).new_state()
        self._score = 0
        self._update_mask()
        return self._observe(), self._info()

    def step(self, action: np.int64 | int) -> tuple[Planes, SupportsFloat, bool, bool, dict[str, Any]]:
        state = self.game_state
        if state.is_over:
            raise RuntimeError("the episode is over: call reset()")
        a = int(action)
        if not (0 <= a < self.window.actions and self._mask[a]):
            if self.illegal_action == "raise":
                raise ValueError(f"action {a} is not legal now (see info['action_mask'])")
            info = self._info()
            info["illegal_action"] = True
            return self._observe(), 0.0, True, False, info
        revealed = state.revealed
        assert revealed is not None
        cell, rot = self.window.move(revealed.tile.face, a)
        state.push_move(cell, rot)
        score = score_coop(state.area, with_task_list=False).total
        reward = float(score - self._score)
        self._score = score
        self._update_mask()
        terminated = state.is_over
        truncated = not terminated and self._inside == 0
        return self._observe(), reward, terminated, truncated, self._info()

    def render(self) -> str | None:
        if self.render_mode != "ansi":
            return None
        state = self.game_state
        lines = render_area(state.area) if state.area.placed else []
        revealed = state.revealed
        footer = f"turn {state.turn}, score {self._score}"
        if revealed is not None:
            task = f" task {revealed.task}" if revealed.task is not None else ""
            footer += f", next {revealed.tile.face}{task}"
        return "\n".join([*lines, footer])

    # --- masks ----------------------------------------------------------------------------

    def action_masks(self) -> npt.NDArray[np.bool_]:
        """The legal actions now, as booleans (for sb3-contrib's MaskablePPO)."""
        return self._mask.astype(bool)

    def _update_mask(self) -> None:
        state = self.game_state
        revealed = state.revealed
        face = revealed.tile.face if revealed else None
        moves = state.area.move_array(state.legal_moves())
        self._mask, self._outside = self.window.mask_and_outside(face, moves)
        self._inside = len(moves) // 2 - self._outside

    def _observe(self) -> Planes:
        return self.encoder.coop(self.game_state.view())

    def _info(self) -> dict[str, Any]:
        state = self.game_state
        return {
            "action_mask": self._mask.copy(),
            "score": self._score,
            "turn": state.turn,
            "game_seed": self._game_seed,
            "outside_window": self._outside,
        }
