"""dorf: the Dorfromantik board games.

The front door: the names most programs need, from the layers below.

>>> from dorf import CoopGame, Placement, Hex
>>> state = CoopGame(seed=1).new_state()
>>> state.play(Placement(Hex(0, 0), 0))
>>> len(state.area)
1

The package reads as its architecture, each layer depending only on those above it
in this list (``docs/engine.md``):

- :mod:`dorf.rules`: hex grid, terrains, tiles, tasks, the play area, scoring (standard library only);
- :mod:`dorf.games`: seats and the three games' flows;
- :mod:`dorf.formats`: the board notation and game records;
- :mod:`dorf.players`: computer players and the coach;
- satellites: :mod:`dorf.terminal`, :mod:`dorf.server` (with ``dorf/web``),
  :mod:`dorf.campaign`, :mod:`dorf.rl`, :mod:`dorf.commands.simulate`, :mod:`dorf.commands.bench`;
- :mod:`dorf.cli`: the ``dorf`` command.
"""

from dorf.formats.notation import BoardError, read_board, write_board
from dorf.formats.record import RecordError, load_record, replay_record, save_record
from dorf.games.coop import CoopGame, CoopState
from dorf.games.duel import DuelGame, DuelState
from dorf.games.headtohead import HeadToHeadGame, HeadToHeadState, Pick
from dorf.games.seat import IllegalDecision
from dorf.players import Player, make_player
from dorf.rules.area import IllegalPlacement, Placement, PlayArea
from dorf.rules.hexgrid import Hex
from dorf.rules.scoring import score_coop, score_duel, score_head_to_head
from dorf.rules.tasks import TaskSpec, TaskStatus
from dorf.rules.tiles import Tile, TileSet, load_tileset
from dorf.version import VERSION as __version__

__all__ = [
    "BoardError",
    "CoopGame",
    "CoopState",
    "DuelGame",
    "DuelState",
    "HeadToHeadGame",
    "HeadToHeadState",
    "Hex",
    "IllegalDecision",
    "IllegalPlacement",
    "Pick",
    "Placement",
    "PlayArea",
    "Player",
    "RecordError",
    "TaskSpec",
    "TaskStatus",
    "Tile",
    "TileSet",
    "__version__",
    "load_record",
    "load_tileset",
    "make_player",
    "read_board",
    "replay_record",
    "save_record",
    "score_coop",
    "score_duel",
    "score_head_to_head",
    "write_board",
]
