"""What a campaign records of a finished cooperative game of the server.

A finished cooperative game of the server goes into a campaign the way a record file does with
``dorf campaign record --from-record``: same pad, same key, so one game cannot be recorded twice
in one campaign, whichever way it came (by its seed and decisions, or by its id).  A practice
game (undo allowed) is refused with the code ``practice-game``, and a game whose creator chose
its seed (who could so know every tile) with ``chosen-seed``.
"""

from __future__ import annotations

import json
from typing import Any

from dorf.campaign.store import CampaignError, FinishedGame, check_players, game_key
from dorf.games.modes import MODES
from dorf.rules.area import Placement
from dorf.rules.scoring import ScorePad
from dorf.server.protocol.messages import ProtocolError, need_object
from dorf.server.round.session import GameSession

#: Why a finished game of today's daily challenge has no record yet.
SEALED = (
    "a game of the daily challenge shows its record once its day is over (it holds the seed of"
    " the day's shuffle, which others play today)"
)


def finished_game(session: GameSession) -> FinishedGame:
    """What a campaign records of a finished cooperative game of the server (on the event loop:
    the session is read where it lives)."""
    state = session.state
    if not MODES[session.mode].campaign:
        raise ProtocolError("campaign", "only cooperative games go into a campaign")
    if session.practice:
        raise ProtocolError("practice-game", "a practice game (undo allowed) does not go into a campaign")
    if session.seed_chosen:
        raise ProtocolError(
            "chosen-seed",
            "the seed of this game was chosen by whoever created it (who could know every tile):"
            " it does not go into a campaign",
        )
    if not state.is_over:
        raise ProtocolError("not-over", "the game is not over yet", 409)
    if not session.seed_public():
        raise ProtocolError("sealed", SEALED, 409)
    moves = [[p.at.q, p.at.r, p.rot] for _, p in state.made() if isinstance(p, Placement)]
    try:
        players = check_players(s.name for s in session.seats)
    except CampaignError as exc:
        raise ProtocolError("campaign", str(exc)) from None
    pad = state.scores()[0]
    assert isinstance(pad, ScorePad)  # the cooperative game's one pad
    return FinishedGame(
        pad,
        players,
        json.dumps(session.record(), sort_keys=True),
        game_key(session.record()["tileset"], session.seed, moves),
        session.id,
    )


def record_request(body: Any) -> tuple[str, list[str]]:
    """``{"game": ID, "branches": [...]}``: the game id and the branches."""
    data = need_object(body, "a game to record")
    game_id = data.get("game")
    if not isinstance(game_id, str):
        raise ProtocolError("bad-message", 'name the game to record: {"game": ID}')
    branches = data.get("branches", [])
    if not isinstance(branches, list) or not all(isinstance(b, str) for b in branches):
        raise ProtocolError("bad-message", "branches must be a list of branch names")
    return game_id, branches
