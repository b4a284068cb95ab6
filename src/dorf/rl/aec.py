"""PettingZoo AEC environments for the Duel and Head to Head.

Two agents, ``player_0`` and ``player_1`` (the engine's players 0 and 1).
Each observation is ``{"observation": planes, "action_mask": int8 mask}``, the
planes built from ``state.view(player)`` only (:class:`dorf.rl.planes.Encoder`).

- **Duel** (:func:`duel_env`): ``Discrete(6 * cells)`` over the window.  Both
  players place the revealed tile; the engine lets them do it in either
  order, the environment serialises it: the agent to act is the first of
  ``state.to_move()`` (player 0 first).
- **Head to Head** (:func:`head_to_head_env`): ``Discrete(tiles + 6 * cells)``:
  actions ``0`` to ``tiles - 1`` pick that tile id in the draft, action
  ``tiles + a`` is window action ``a`` in laying.  Laying goes in rounds, and
  the agent to act is again the first of ``state.to_move()``.
- **Rewards** (``reward=``): ``"score"`` (default): the change of the agent's
  own score pad total, so its return is its final score; ``"margin"``: the
  change of own total minus the opponent's (zero-sum, return = final margin);
  ``"win"``: +1 / -1 at the end (0 for a shared victory).  Every info has
  ``game_seed`` and ``scores``; at the end also ``winner`` (``None`` for a shared victory).
- **End**: every agent terminates when the game ends; every agent is
  truncated if the agent to act has legal placements but none in the window.
- An action outside the mask raises ``ValueError`` (wrap with PettingZoo's
  ``TerminateIllegalWrapper`` to end the game instead).
- **Seeding**: ``reset(seed=s)`` seeds the environment's generator, which draws the
  game's shuffle seed (``infos[agent]["game_seed"]``); ``reset(options={"game_seed": g})``.

>>> env = duel_env()
>>> env.reset(seed=1)
>>> env.agent_selection, int(env.action_space("player_0").n)
('player_0', 1986)
>>> obs, reward, terminated, truncated, info = env.last()
>>> obs["observation"].shape, int(obs["action_mask"].sum()) > 0
((267, 21, 21), True)
"""

from __future__ import annotations

from typing import Any, ClassVar

import numpy as np
from gymnasium import spaces
from gymnasium.utils import seeding
from pettingzoo import AECEnv  # type: ignore[import-untyped,unused-ignore]

from dorf.games.duel import DuelGame, DuelState
from dorf.games.headtohead import DRAFT, HeadToHeadGame, HeadToHeadState
from dorf.games.modes import MODES
from dorf.games.state import Pick
from dorf.rl.planes import Encoder, Planes
from dorf.rl.window import DEFAULT_RADIUS, Mask, Window
from dorf.rules.area import PlayArea
from dorf.rules.tiles import TileSet, load_tileset
from dorf.terminal.render import render_area, side_by_side

AGENTS = ("player_0", "player_1")
REWARDS = ("score", "margin", "win")
Observation = dict[str, Any]


class _TwoPlayerEnv(AECEnv):  # type: ignore[misc,unused-ignore]
    """What the two environments share: agents, spaces, rewards, the end and seeding."""

    metadata: ClassVar[dict[str, Any]] = {
        "render_modes": ["ansi"],
        "render_fps": 4,
        "name": "",
        "is_parallelizable": False,
    }
    mode = ""
    #: Whether the game begins with a draft (Head to Head's): then the first actions pick tiles.
    has_draft = False
    agent_selection: str

    def __init__(
        self,
        radius: int = DEFAULT_RADIUS,
        reward: str = "score",
        tileset: str | None = None,
        render_mode: str | None = None,
    ) -> None:
        super().__init__()
        if reward not in REWARDS:
            raise ValueError(f"reward must be one of {REWARDS}, not {reward!r}")
        if render_mode is not None and render_mode not in self.metadata["render_modes"]:
            raise ValueError(f"render mode {render_mode!r} is not one of {self.metadata['render_modes']}")
        self.render_mode = render_mode
        self.reward_kind = reward
        self.window = Window(radius)
        self.tileset: TileSet = load_tileset(tileset or self.default_tileset)
        self.encoder = Encoder(self.mode, self.window, self.tileset)
        #: How many actions are picks (one per tile id, in a game with a draft); placements follow.
        self.picks = len(self.tileset.tiles) if self.has_draft else 0
        self.possible_agents = list(AGENTS)
        self.agents: list[str] = []
        n = self._action_count()
        self.action_spaces = {a: spaces.Discrete(n) for a in AGENTS}
        self.observation_spaces = {
            a: spaces.Dict(
                {
                    "observation": spaces.Box(
                        low=np.zeros(self.encoder.shape, dtype=np.float32),
                        high=self.encoder.high,
                        dtype=np.float32,
                    ),
                    "action_mask": spaces.Box(0, 1, (n,), dtype=np.int8),
                }
            )
            for a in AGENTS
        }
        self._np_random: np.random.Generator | None = None
        self._game_seed = 0
        self._totals = [0, 0]
        self._mask: Mask = np.zeros(n, dtype=np.int8)

    # --- PettingZoo API -------------------------------------------------------------

    def observation_space(self, agent: str) -> spaces.Space[Any]:
        return self.observation_spaces[agent]

    def action_space(self, agent: str) -> spaces.Space[Any]:
        return self.action_spaces[agent]

    def reset(self, seed: int | None = None, options: dict[str, Any] | None = None) -> None:
        if seed is not None or self._np_random is None:
            self._np_random, _ = seeding.np_random(seed)
        game_seed = int(self._np_random.integers(2**31))
        if options and "game_seed" in options:
            game_seed = int(options["game_seed"])
        self._game_seed = game_seed
        self._new_game(game_seed)
        self.agents = list(AGENTS)
        self.rewards = dict.fromkeys(self.agents, 0.0)
        self._cumulative_rewards = dict.fromkeys(self.agents, 0.0)
        self.terminations = dict.fromkeys(self.agents, False)
        self.truncations = dict.fromkeys(self.agents, False)
        self._totals = [0, 0]
        self._next_agent()
        self.infos = {a: self._info() for a in self.agents}

    def observe(self, agent: str) -> Observation:
        player = AGENTS.index(agent)
        mask = self._mask.copy() if agent == self.agent_selection else np.zeros_like(self._mask)
        return {"observation": self._planes(player), "action_mask": mask}

    def observe_into(self, agent: str, planes: Planes, mask: Mask) -> None:
        """:meth:`observe` written over ``planes`` and ``mask`` (arrays of the observation's shapes)
        instead of into new arrays: what the batched self-play environment reads."""
        player = AGENTS.index(agent)
        self._planes(player, out=planes)
        if agent == self.agent_selection:
            mask[:] = self._mask
        else:
            mask[:] = 0

    def step(self, action: int | np.integer[Any] | None) -> None:
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            self._was_dead_step(action)
            return
        if action is None or not (0 <= int(action) < self._mask.size and self._mask[int(action)]):
            raise ValueError(f"action {action} is not legal for {agent} now (see its action_mask)")
        player = AGENTS.index(agent)
        self._cumulative_rewards[agent] = 0.0
        self._apply(player, int(action))
        totals = self._scores()
        gains = [totals[p] - self._totals[p] for p in (0, 1)]
        self._totals = totals
        over = self._is_over()
        self.rewards = {a: self._reward(p, gains, over) for p, a in enumerate(AGENTS)}
        self._next_agent()
        if over:
            self.terminations = dict.fromkeys(self.agents, True)
        elif not self._mask.any():
            self.truncations = dict.fromkeys(self.agents, True)
        self.infos = {a: self._info() for a in self.agents}
        self._accumulate_rewards()

    def render(self) -> str | None:
        if self.render_mode != "ansi":
            return None
        blocks = [render_area(area) if area.placed else ["(empty)"] for area in self._areas()]
        lines = side_by_side(blocks)
        return "\n".join([*lines, f"scores {self._totals[0]} : {self._totals[1]}"])

    def close(self) -> None:
        pass

    # --- shared helpers ---------------------------------------------------------------

    def _reward(self, player: int, gains: list[int], over: bool) -> float:
        if self.reward_kind == "score":
            return float(gains[player])
        if self.reward_kind == "margin":
            return float(gains[player] - gains[1 - player])
        if not over:
            return 0.0
        winner = self._winner()
        return 0.0 if winner is None else (1.0 if winner == player else -1.0)

    def _next_agent(self) -> None:
        player = self._to_move()
        if player < 0:
            self.agent_selection = self.agent_selection if self.agents else AGENTS[0]
            self._mask = np.zeros_like(self._mask)
            return
        self.agent_selection = AGENTS[player]
        self._mask = self._legal(player)

    def _info(self) -> dict[str, Any]:
        info: dict[str, Any] = {"game_seed": self._game_seed, "scores": tuple(self._totals)}
        if self._is_over():
            info["winner"] = self._winner()
        return info

    @property
    def default_tileset(self) -> str:
        """The tile set the game is played with unless another is given."""
        return MODES[self.mode].tileset

    # --- per game ----------------------------------------------------------------------

    def _new_game(self, seed: int) -> None:
        raise NotImplementedError

    def _game(self) -> DuelState | HeadToHeadState:
        raise NotImplementedError

    # --- through the state's interface ---------------------------------------------------

    def _action_count(self) -> int:
        return self.picks + self.window.actions

    def _to_move(self) -> int:
        return self._game().player

    def _legal(self, player: int) -> Mask:
        state = self._game()
        revealed = state.revealed_for(player)
        face = revealed.tile.face if revealed is not None else None
        if not self.picks:  # every action is a placement in the window
            return self.window.mask(face, state.legal_moves(player))
        mask = np.zeros(self._action_count(), dtype=np.int8)
        if state.phase == DRAFT:
            mask[[pick.tile_id for pick in state.legal_decisions(player) if isinstance(pick, Pick)]] = 1
            return mask
        self.window.mask(face, state.legal_moves(player), out=mask[self.picks :])
        return mask

    def _apply(self, player: int, action: int) -> None:
        state = self._game()
        if action < self.picks:
            state.apply(Pick(action), player)
            return
        revealed = state.revealed_for(player)
        assert revealed is not None
        cell, rot = self.window.move(revealed.tile.face, action - self.picks)
        state.push_move(cell, rot, player)

    def _planes(self, player: int, out: Planes | None = None) -> Planes:
        return self.encoder.encode(self._game().view(player), out)

    def _scores(self) -> list[int]:
        return [pad.total for pad in self._game().scores()]

    def _is_over(self) -> bool:
        return self._game().is_over

    def _winner(self) -> int | None:
        return self._game().winner()

    def _areas(self) -> list[PlayArea]:
        return list(self._game().areas)


class DuelEnv(_TwoPlayerEnv):
    """The Duel as a PettingZoo AEC environment; see the module's docstring."""

    metadata: ClassVar[dict[str, Any]] = {**_TwoPlayerEnv.metadata, "name": "dorf_duel_v0"}
    mode = "duel"
    _state: DuelState | None = None

    @property
    def game_state(self) -> DuelState:
        """The engine's state (the hidden sequence included: do not show it to an agent)."""
        if self._state is None:
            raise RuntimeError("call reset() first")
        return self._state

    def _game(self) -> DuelState:
        return self.game_state

    def _new_game(self, seed: int) -> None:
        self._state = DuelGame(seed=seed, tileset=self.tileset).new_state()


class HeadToHeadEnv(_TwoPlayerEnv):
    """Head to Head, the draft included, as a PettingZoo AEC environment; see the module's docstring."""

    metadata: ClassVar[dict[str, Any]] = {**_TwoPlayerEnv.metadata, "name": "dorf_head_to_head_v0"}
    mode = "head-to-head"
    has_draft = True
    _state: HeadToHeadState | None = None

    @property
    def game_state(self) -> HeadToHeadState:
        """The engine's state (the stacks included: do not show it to an agent)."""
        if self._state is None:
            raise RuntimeError("call reset() first")
        return self._state

    def _game(self) -> HeadToHeadState:
        return self.game_state

    def _new_game(self, seed: int) -> None:
        self._state = HeadToHeadGame(seed=seed, tileset=self.tileset).new_state()


def duel_env(**kwargs: Any) -> DuelEnv:
    """A Duel environment: ``duel_env(radius=10, reward="score", render_mode=None)``."""
    return DuelEnv(**kwargs)


def head_to_head_env(**kwargs: Any) -> HeadToHeadEnv:
    """A Head to Head environment: ``head_to_head_env(radius=10, reward="score", render_mode=None)``."""
    return HeadToHeadEnv(**kwargs)
