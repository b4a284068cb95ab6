"""The campaign page's API: :class:`dorf.campaign.Campaigns` over HTTP.

A finished cooperative game of the server goes into a campaign the way a
record file does with ``dorf campaign record --from-record``: same pad, same
key, so one game cannot be recorded twice in one campaign, whichever way it
came (by its seed and decisions, or by its id).  A practice game (undo
allowed) is refused with the code ``practice-game``, and a game whose creator chose its
seed (who could so know every tile) with ``chosen-seed``.

The campaigns live in the server's database; every method here runs in the
hub's database thread (``await hub.db(desk.listing)``), never on the event
loop.
"""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any

from dorf.campaign import CampaignError, Campaigns, PadError, SheetError
from dorf.campaign.store import FinishedGame, check_players, game_key
from dorf.campaign.svg import campaign_score_svg, campaign_track_svg
from dorf.games.coop import CoopState
from dorf.server.postgres import is_url
from dorf.server.protocol import ProtocolError, need_object
from dorf.server.sessions import GameSession
from dorf.server.storage import Storage
from dorf.server.views import Json

if TYPE_CHECKING:
    from dorf.server.hub import Hub


def _refused(exc: ValueError) -> ProtocolError:
    text = str(exc)
    status = 404 if text.startswith("no campaign named") else 400
    return ProtocolError("campaign", text, status)


def finished_game(session: GameSession) -> FinishedGame:
    """What a campaign records of a finished cooperative game of the server (on the event loop:
    the session is read where it lives)."""
    state = session.state
    if not isinstance(state, CoopState):
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
    moves = [[p.at.q, p.at.r, p.rot] for p in state.decisions]
    try:
        players = check_players(s.name for s in session.seats)
    except CampaignError as exc:
        raise _refused(exc) from None
    return FinishedGame(
        state.score(),
        players,
        json.dumps(session.record(), sort_keys=True),
        game_key(state.game.tileset.name, state.game.seed, moves),
        session.id,
    )


class CampaignDesk:
    """The campaigns in the server's database (opened in the database thread)."""

    def __init__(self, hub: Hub) -> None:
        path = hub.config.db
        if is_url(path):  # the games are in PostgreSQL; the campaigns stay in the SQLite file
            path = None
        self._own = str(path) != ":memory:"
        # Campaigns sets its own row factory: a connection of its own, except in memory.
        storage = hub.storage
        self.campaigns = (
            Campaigns.open(path) if self._own or not isinstance(storage, Storage) else Campaigns(storage.conn)
        )

    def close(self) -> None:
        if self._own:
            self.campaigns.close()

    def listing(self) -> Json:
        return {"campaigns": [c.as_json() for c in self.campaigns.listing(include_archived=True)]}

    def create(self, body: Any) -> Json:
        data = need_object(body, "a new campaign")
        name = data.get("name")
        if not isinstance(name, str):
            raise ProtocolError("bad-message", "a campaign needs a name")
        try:
            return self.campaigns.create(name).as_json()
        except (CampaignError, SheetError) as exc:
            raise _refused(exc) from None

    def view(self, name: str) -> Json:
        try:
            return self.campaigns.view(name).as_json()
        except CampaignError as exc:
            raise _refused(exc) from None

    def score_svg(self, name: str) -> str:
        try:
            return campaign_score_svg(self.campaigns.view(name))
        except CampaignError as exc:
            raise _refused(exc) from None

    def track_svg(self, name: str) -> str:
        try:
            return campaign_track_svg(self.campaigns.view(name))
        except CampaignError as exc:
            raise _refused(exc) from None

    def record(self, name: str, finished: FinishedGame, branches: list[str]) -> Json:
        """Record a finished game (see :func:`finished_game`) in campaign ``name``."""
        try:
            change = self.campaigns.record(
                name, finished.pad, players=finished.players, branches=branches, finished=finished
            )
        except (CampaignError, PadError, SheetError) as exc:
            raise _refused(exc) from None
        return change.as_json()

    def choose(self, name: str, body: Any) -> Json:
        data = need_object(body, "a choice")
        branch = data.get("branch")
        if not isinstance(branch, str):
            raise ProtocolError("bad-message", 'name the branch: {"branch": NODE}')
        try:
            return self.campaigns.choose(name, branch).as_json()
        except CampaignError as exc:
            raise _refused(exc) from None


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
