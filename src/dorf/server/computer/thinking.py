"""Computer seats: a decision computed away from the event loop.

:func:`think` is a plain function of plain data, so it runs in a thread or in
another process alike.  It rebuilds the game from its record (the engine
replays exactly) and asks the computer player for a decision from the seat's
view only: the player never sees the stacks, although the record it was
rebuilt from holds the seed, nor another seat's placement that its seat may not
see yet (the server leaves it out of the record).  The server's own state is
never shared with the thinking player, which pushes and pops on the area it
is given.  ``seconds`` caps a player's budget (``search:10s`` thinks at most
that long; a budget of futures stops there too).

>>> record = {"format": "dorf-record/1", "mode": "coop", "tileset": "base", "seed": 4,
...           "players": ["Ann"], "decisions": []}
>>> think(record, 0, "greedy", 1)
{'at': [0, 0], 'rot': 0}
"""

from __future__ import annotations

from typing import Any

from dorf.formats.record import replay_record
from dorf.games.headtohead import Pick
from dorf.players import make_player


def think(
    record: dict[str, Any], seat: int, spec: str, seed: int, seconds: float | None = None
) -> dict[str, Any]:
    """The decision of computer player ``spec`` for ``seat`` (the record's player index) in the
    game so far, thinking at most ``seconds`` if the player has a time budget."""
    state = replay_record(record)
    view = state.view(seat)
    player = make_player(spec, seed)
    budget = getattr(player, "seconds", False)
    if seconds is not None and budget is not False and (budget is None or budget > seconds):
        setattr(player, "seconds", seconds)  # noqa: B010 - a budget any player may have
    decision = player.choose(view)
    if isinstance(decision, Pick):
        return {"pick": decision.tile_id}
    return {"at": [decision.at.q, decision.at.r], "rot": decision.rot}
