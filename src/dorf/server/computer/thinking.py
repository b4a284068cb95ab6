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

A computer seat on a clock thinks within it (issue 60: a level must not lose on time to a
person who plays fast): :func:`clock_allowance` is what one decision may take of the time left
on the seat's clock, as a chess engine shares its clock: the time left over the
:data:`MOVES_TO_GO` decisions still to come, plus most of the increment, never more than half
of what is left.  Each decision takes a share of what is left, so the clock never runs out
(after 42 decisions a seat still has a quarter of it, increments aside); the seat thinks at most
its level's usual budget, and below :data:`FAST_SECONDS` it plays greedy at once.

>>> round(clock_allowance(60.0, 0.0), 3), round(clock_allowance(60.0, 2.0), 3)
(2.0, 3.6)
>>> clock_allowance(1.0, 2.0)  # a second left: half of it, whatever the increment
0.5

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

#: The decisions a computer seat shares the time left on its clock among, for each one (a chess
#: engine's "moves to go"): a Duel seat makes 42, so each takes at most a thirtieth of what is
#: left and still has most of it at the end.
MOVES_TO_GO = 30
#: How much of the increment a decision may spend (it comes back after the decision).
INCREMENT_SHARE = 0.8
#: At most this share of the time left goes to one decision, however large the increment.
MAX_SHARE = 0.5
#: Below this budget, in seconds, a computer seat plays greedy at once (it takes milliseconds)
#: rather than ask its level to think.
FAST_SECONDS = 0.05


def clock_allowance(remaining: float, increment: float) -> float:
    """The seconds one decision of a computer seat may take with ``remaining`` seconds on its
    clock and ``increment`` added after each decision (see the module)."""
    share = remaining / MOVES_TO_GO + INCREMENT_SHARE * increment
    return max(0.0, min(share, MAX_SHARE * remaining))


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
