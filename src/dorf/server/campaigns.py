"""The campaign page's API: :class:`dorf.campaign.Campaigns` over HTTP.

A finished cooperative game of the server goes into a campaign the way a
record file does with ``dorf campaign record --from-record``: same pad, same
key, so one game cannot be recorded twice in one campaign, whichever way it
came.
"""

from __future__ import annotations

import hashlib
import json
from typing import TYPE_CHECKING, Any

from dorf.campaign import CampaignError, Campaigns, PadError, SheetError
from dorf.campaign.store import FinishedGame, check_players
from dorf.campaign.svg import campaign_score_svg, campaign_track_svg
from dorf.games.coop import CoopState
from dorf.server.protocol import ProtocolError, need_object
from dorf.server.views import Json

if TYPE_CHECKING:
    from dorf.server.hub import Hub


def _refused(exc: ValueError) -> ProtocolError:
    text = str(exc)
    status = 404 if text.startswith("no campaign named") else 400
    return ProtocolError("campaign", text, status)


class CampaignDesk:
    """The campaigns in the server's database."""

    def __init__(self, hub: Hub) -> None:
        self.hub = hub
        path = hub.config.db
        # Campaigns sets its own row factory: give it a connection of its own, except in memory.
        self.campaigns = Campaigns(hub.storage.conn) if str(path) == ":memory:" else Campaigns.open(path)
        self._own = str(path) != ":memory:"

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

    def record(self, name: str, body: Any) -> Json:
        """Record finished cooperative game ``{"game": ID, "branches": [...]}`` in campaign ``name``."""
        data = need_object(body, "a game to record")
        game_id = data.get("game")
        if not isinstance(game_id, str):
            raise ProtocolError("bad-message", 'name the game to record: {"game": ID}')
        branches = data.get("branches", [])
        if not isinstance(branches, list) or not all(isinstance(b, str) for b in branches):
            raise ProtocolError("bad-message", "branches must be a list of branch names")
        session = self.hub.get(game_id)
        state = session.state
        if not isinstance(state, CoopState):
            raise ProtocolError("campaign", "only cooperative games go into a campaign")
        if not state.is_over:
            raise ProtocolError("not-over", "the game is not over yet", 409)
        record = session.record()
        moves = [[p.at.q, p.at.r, p.rot] for p in state.decisions]
        key_text = json.dumps(
            {"tileset": state.game.tileset.name, "seed": state.game.seed, "moves": moves}, sort_keys=True
        )
        try:
            finished = FinishedGame(
                state.score(),
                check_players(s.name for s in session.seats),
                json.dumps(record, sort_keys=True),
                hashlib.sha256(key_text.encode()).hexdigest(),
            )
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
