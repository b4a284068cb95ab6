"""The cooperative game, solo, as a registered OpenSpiel Python game: ``dorf_coop``.

``import dorf.rl.openspiel`` registers it; then ``pyspiel.load_game("dorf_coop")``
(parameters ``radius`` and ``tileset``, e.g. ``"dorf_coop(radius=8)"``).

- One player, sequential, **explicit chance**, perfect information (the player
  sees every chance outcome, and no stack order exists to hide: the next tile
  is drawn when it is due).
- **Chance nodes**: each reveal is one: a tile from the stack the reveal rule
  asks for, with probability proportional to the unseen tiles of that kind
  (outcome = the smallest id among identical unseen tiles).  A task tile is
  followed by a second chance node for its marker (outcome = the marker's value,
  probability by the unseen markers of its type).  Drawing each landscape
  uniformly from all unseen landscapes and stopping after all but three is the
  same distribution as the engine's set-up, which removes three unseen.
- **Decisions**: the window actions of :class:`dorf.rl.window.Window`, as in
  the Gymnasium environment (rotations equivalent to a legal one are legal).
- **Returns**: terminal, the final score (``reward_model=TERMINAL``, which
  OpenSpiel's MCTS needs); ``state.score()`` is the running total.  A state whose
  revealed tile has legal placements only outside the window is terminal too
  (not seen with the default radius; see docs/rl.md).
- The rules stay in the engine: the state drives a :class:`dorf.games.seat.Seat`
  whose two stacks only count their tiles and ask for a chance outcome when
  one is popped.

>>> import pyspiel
>>> game = pyspiel.load_game("dorf_coop")
>>> state = game.new_initial_state()
>>> state.is_chance_node(), len(state.chance_outcomes())
(True, 25)
"""

from __future__ import annotations

from collections import Counter
from typing import Any, SupportsIndex

import numpy as np
import pyspiel  # type: ignore[import-not-found,unused-ignore]

from dorf.games.coop import PlayerView
from dorf.games.seat import REMOVED_UNSEEN, Revealed, Seat, check_markers, markers_unseen, unseen_tiles
from dorf.rl.planes import Encoder
from dorf.rl.window import DEFAULT_RADIUS, Mask, Window
from dorf.rules.scoring import score_coop
from dorf.rules.tasks import TaskSpec
from dorf.rules.tiles import Tile, TileSet, load_tileset

SHORT_NAME = "dorf_coop"

_GAME_TYPE = pyspiel.GameType(
    short_name=SHORT_NAME,
    long_name="Dorfromantik: The Board Game, solo (dorf)",
    dynamics=pyspiel.GameType.Dynamics.SEQUENTIAL,
    chance_mode=pyspiel.GameType.ChanceMode.EXPLICIT_STOCHASTIC,
    information=pyspiel.GameType.Information.PERFECT_INFORMATION,
    utility=pyspiel.GameType.Utility.GENERAL_SUM,
    reward_model=pyspiel.GameType.RewardModel.TERMINAL,
    max_num_players=1,
    min_num_players=1,
    provides_information_state_string=True,
    provides_information_state_tensor=False,
    provides_observation_string=True,
    provides_observation_tensor=True,
    parameter_specification={"radius": DEFAULT_RADIUS, "tileset": "base"},
)


class _Draw(Exception):
    """A stack was popped before its chance outcome was chosen: a chance node is due."""

    def __init__(self, pile: _Pile) -> None:
        super().__init__("a chance outcome is due")
        self.pile = pile


class _Pile(list[int]):
    """A face-down stack whose next tile a chance node chooses.

    Its entries only count the tiles left in the stack; ``unseen`` holds the ids
    a draw may give (for landscapes, three more than the stack holds: those
    removed unseen at set-up).
    """

    def __init__(self, unseen: list[int], count: int) -> None:
        super().__init__([-1] * count)
        self.unseen = unseen
        self.next: int | None = None

    def pop(self, index: SupportsIndex = -1, /) -> int:
        if self.next is None:
            raise _Draw(self)
        tile, self.next = self.next, None
        super().pop(index)
        self.unseen.remove(tile)
        return tile


class _Core:
    """The game's bookkeeping: the seat, the two stacks, the marker piles, the actions so far.

    It is the state's one attribute, so OpenSpiel's clone (a deep copy of each
    attribute) replays the actions instead of copying the play area.
    """

    def __init__(self, window: Window, tileset: TileSet) -> None:
        self.window = window
        self.tileset = tileset
        tiles = tileset.tiles
        tasks = [i for i, t in enumerate(tiles) if t.is_task]
        landscapes = [i for i, t in enumerate(tiles) if not t.is_task]
        self.tasks = _Pile(tasks, len(tasks))
        self.landscapes = _Pile(landscapes, max(0, len(landscapes) - REMOVED_UNSEEN))
        self.markers = {kind: list(values) for kind, values in tileset.markers.items()}
        self.seat = Seat(
            tiles,
            self.tasks,
            self.landscapes,
            task_of=self._task_of,
            put_back=self._put_back,
            player_of=_solo,
        )
        self.actions: list[int] = []
        #: The stack a draw is due from (a chance node), if any.
        self.due: _Pile | None = None
        #: A task tile drawn whose marker is still to be drawn (a chance node), if any.
        self.task_tile: int | None = None
        self._marker: int | None = None
        self._mask: Mask | None = None
        self._reveal()

    def __deepcopy__(self, memo: dict[int, Any]) -> _Core:
        return _replayed(self.window, self.tileset, self.actions)

    def __reduce__(self) -> tuple[Any, tuple[Window, TileSet, list[int]]]:
        return _replayed, (self.window, self.tileset, list(self.actions))

    # --- the seat's callbacks ---------------------------------------------------------

    def _task_of(self, tile: Tile) -> TaskSpec:
        assert tile.task is not None and self._marker is not None
        value, self._marker = self._marker, None
        return TaskSpec(tile.task, value)

    def _put_back(self, task: TaskSpec) -> None:
        raise NotImplementedError("OpenSpiel states are cloned, never undone")

    def _reveal(self) -> None:
        try:
            self.seat.reveal()
        except _Draw as draw:
            self.due = draw.pile
        else:
            self.due = None
        self._mask = None

    @property
    def mask(self) -> Mask:
        """The legal window actions (all 0 at a chance node), computed when first asked for."""
        if self._mask is None:
            revealed = self.seat.revealed
            face = revealed.tile.face if revealed is not None and not self.is_chance else None
            self._mask = self.window.mask(face, self.seat.legal_moves())
        return self._mask

    # --- reading ------------------------------------------------------------------------

    @property
    def is_chance(self) -> bool:
        return self.due is not None or self.task_tile is not None

    @property
    def is_terminal(self) -> bool:
        return not self.is_chance and not self.mask.any()

    def chance_outcomes(self) -> list[tuple[int, float]]:
        tiles = self.tileset.tiles
        if self.task_tile is not None:
            kind = tiles[self.task_tile].task
            assert kind is not None
            pile = self.markers[kind]
            return sorted((value, count / len(pile)) for value, count in Counter(pile).items())
        assert self.due is not None
        groups: dict[Tile, list[int]] = {}
        for i in self.due.unseen:
            groups.setdefault(tiles[i], []).append(i)
        n = len(self.due.unseen)
        return sorted((min(ids), len(ids) / n) for ids in groups.values())

    def view(self) -> PlayerView:
        seat = self.seat
        tileset = self.tileset
        turns = seat.turns
        unseen = unseen_tiles(tileset, (t.revealed.tile_id for t in turns))
        drawn = [t.revealed.task for t in turns if t.revealed.task is not None]
        revealed: Revealed | None = None if self.is_chance else seat.revealed
        return PlayerView(
            seat.area.copy(),
            revealed,
            len(turns),
            0,
            1,
            seat.landscapes_left(),
            seat.task_tiles_left(),
            unseen,
            markers_unseen(tileset, drawn),
        )

    def score(self) -> int:
        return score_coop(self.seat.area).total

    # --- changing -----------------------------------------------------------------------

    def apply(self, action: int, checked: bool = True) -> None:
        """Apply a chance outcome or a decision; a replay of known actions skips the checks."""
        tiles = self.tileset.tiles
        if self.task_tile is not None:
            kind = tiles[self.task_tile].task
            assert kind is not None
            self.markers[kind].remove(action)
            self._marker = action
            self.tasks.next, self.task_tile = self.task_tile, None
            self._reveal()
        elif self.due is not None:
            if checked and action not in self.due.unseen:
                raise ValueError(f"tile {action} is not an unseen tile of the stack due")
            if tiles[action].is_task:
                self.task_tile = action
            else:
                self.due.next = action
                self._reveal()
        else:
            if checked and not (0 <= action < self.window.actions and self.mask[action]):
                raise ValueError(f"action {action} is not legal now")
            revealed = self.seat.revealed
            assert revealed is not None
            cell, rot = self.window.move(revealed.tile.face, action)
            try:
                self.seat.push_move(cell, rot)
            except _Draw as draw:
                self.due = draw.pile
            else:
                self.due = None
        self._mask = None
        self.actions.append(action)


def _solo(_number: int) -> int:
    return 0


def _replayed(window: Window, tileset: TileSet, actions: list[int]) -> _Core:
    """A new core with ``actions`` applied: how a state is cloned and unpickled."""
    core = _Core(window, tileset)
    for action in actions:
        core.apply(action, checked=False)
    return core


class DorfCoopGame(pyspiel.Game):  # type: ignore[misc,unused-ignore]
    """``dorf_coop``: the cooperative game for one player with explicit chance."""

    def __init__(self, params: dict[str, Any] | None = None) -> None:
        params = dict(params or {})
        radius = int(params.get("radius", DEFAULT_RADIUS))
        tileset = load_tileset(str(params.get("tileset", "base")))
        check_markers(tileset)
        self.window = Window(radius)
        self.tileset = tileset
        self.encoder = Encoder("coop", self.window, tileset)
        tiles = tileset.tiles
        task_tiles = sum(1 for t in tiles if t.is_task)
        placements = len(tiles) - REMOVED_UNSEEN
        flag_tiles = sum(1 for t in tiles if t.flag)
        markers = [v for values in tileset.markers.values() for v in values]
        #: No game scores more: every marker, every flag in an area of every tile, both networks.
        best = sum(markers) + (flag_tiles + 2) * placements
        info = pyspiel.GameInfo(
            num_distinct_actions=self.window.actions,
            max_chance_outcomes=max(len(tiles), max(markers, default=0) + 1),
            num_players=1,
            min_utility=0.0,
            max_utility=float(best),
            max_game_length=placements,
        )
        self._chance_nodes = placements + task_tiles
        super().__init__(_GAME_TYPE, info, params)

    def new_initial_state(self) -> DorfCoopState:
        return DorfCoopState(self)

    def max_chance_nodes_in_history(self) -> int:
        return self._chance_nodes

    def make_py_observer(
        self, iig_obs_type: Any = None, params: dict[str, Any] | None = None
    ) -> DorfCoopObserver:
        return DorfCoopObserver(self, iig_obs_type, params)


class DorfCoopState(pyspiel.State):  # type: ignore[misc,unused-ignore]
    """A ``dorf_coop`` game in progress (only attribute: ``_core``, cloned by replay)."""

    def __init__(self, game: DorfCoopGame) -> None:
        super().__init__(game)
        self._core = _Core(game.window, game.tileset)

    # --- OpenSpiel API ----------------------------------------------------------------

    def current_player(self) -> int:
        core = self._core
        if core.is_chance:
            return int(pyspiel.PlayerId.CHANCE)
        if core.is_terminal:
            return int(pyspiel.PlayerId.TERMINAL)
        return 0

    def _legal_actions(self, player: int) -> list[int]:
        assert player == 0
        return [int(a) for a in np.flatnonzero(self._core.mask)]

    def chance_outcomes(self) -> list[tuple[int, float]]:
        assert self._core.is_chance
        return self._core.chance_outcomes()

    def _apply_action(self, action: int) -> None:
        self._core.apply(int(action))

    def _action_to_string(self, player: int, action: int) -> str:
        core = self._core
        tiles = core.tileset.tiles
        if player == pyspiel.PlayerId.CHANCE:
            if core.task_tile is not None:
                return f"marker {tiles[core.task_tile].task} {action}"
            return f"draw {action} {tiles[action].face}"
        at, rot = core.window.hex_of_action(action)
        return f"place {at.q},{at.r}/{rot}"

    def is_terminal(self) -> bool:
        return self._core.is_terminal

    def returns(self) -> list[float]:
        return [float(self._core.score()) if self._core.is_terminal else 0.0]

    def rewards(self) -> list[float]:
        return self.returns()

    def __str__(self) -> str:
        return describe(self._core)

    # --- extras -------------------------------------------------------------------------

    def score(self) -> int:
        """The running score pad total."""
        return self._core.score()

    def view(self) -> PlayerView:
        """What the player knows, as the engine's view (for :class:`dorf.rl.planes.Encoder`)."""
        return self._core.view()


def describe(core: _Core) -> str:
    """The state as text: turn, score, the revealed tile and every placement."""
    seat = core.seat
    parts = [f"turn {len(seat.turns)}", f"score {core.score()}"]
    if core.task_tile is not None:
        parts.append(f"drawn {core.tileset.tiles[core.task_tile].face} (marker due)")
    elif core.due is not None:
        parts.append("draw due")
    elif seat.revealed is not None:
        task = seat.revealed.task
        parts.append(f"next {seat.revealed.tile.face}" + (f" {task}" if task else ""))
    placed = []
    for tile in seat.area.placed:
        extra = f" {tile.task.spec}" if tile.task is not None else ""
        placed.append(f"{tile.face}@{tile.at.q},{tile.at.r}/{tile.rot}{extra}")
    return "; ".join(parts) + ("\n" + " ".join(placed) if placed else "")


class DorfCoopObserver:
    """OpenSpiel observer: the coop planes as tensor ``planes``; the state text as string.

    With perfect recall (the information state) the string is the action history.
    """

    def __init__(self, game: DorfCoopGame, iig_obs_type: Any, params: dict[str, Any] | None) -> None:
        if params:
            raise ValueError(f"observation parameters are not supported; got {params}")
        self.encoder = game.encoder
        self.perfect_recall = bool(iig_obs_type is not None and iig_obs_type.perfect_recall)
        self.tensor: np.ndarray[Any, np.dtype[np.float32]] | None = None
        self.dict: dict[str, np.ndarray[Any, np.dtype[np.float32]]] = {}
        if not self.perfect_recall:
            shape = self.encoder.shape
            self.tensor = np.zeros(int(np.prod(shape)), dtype=np.float32)
            self.dict = {"planes": self.tensor.reshape(shape)}

    def set_from(self, state: DorfCoopState, player: int) -> None:
        if self.tensor is not None:
            self.dict["planes"][...] = self.encoder.coop(state.view())

    def string_from(self, state: DorfCoopState, player: int) -> str:
        if self.perfect_recall:
            return " ".join(str(a) for a in state.history())
        return describe(state._core)


if SHORT_NAME not in pyspiel.registered_names():
    pyspiel.register_game(_GAME_TYPE, DorfCoopGame)

__all__ = ["SHORT_NAME", "DorfCoopGame", "DorfCoopObserver", "DorfCoopState"]
