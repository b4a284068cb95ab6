"""Computer seats: a decision computed away from the event loop.

:func:`think` is a plain function of plain data, so it runs in a thread or in
another process alike.  It rebuilds the game from its record (the engine
replays exactly) and asks the computer player for a decision from the seat's
view only: the player never sees the stacks, although the record it was
rebuilt from holds the seed.  The server's own state is never shared with the
thinking player, which pushes and pops on the area it is given.

>>> record = {"format": "dorf-record/1", "mode": "coop", "tileset": "base", "seed": 4,
...           "players": ["Ann"], "decisions": []}
>>> think(record, 0, "greedy", 1)
{'at': [0, 0], 'rot': 0}
"""

from __future__ import annotations

from typing import Any

from dorf.formats.record import replay_record
from dorf.games.coop import CoopState
from dorf.games.headtohead import Pick
from dorf.players import make_player


def think(record: dict[str, Any], seat: int, spec: str, seed: int) -> dict[str, Any]:
    """The decision of computer player ``spec`` for ``seat`` in the game so far."""
    state = replay_record(record)
    view = state.view() if isinstance(state, CoopState) else state.view(seat)
    decision = make_player(spec, seed).choose(view)
    if isinstance(decision, Pick):
        return {"pick": decision.tile_id}
    return {"at": [decision.at.q, decision.at.r], "rot": decision.rot}
