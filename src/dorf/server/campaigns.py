"""The campaign page's API: :class:`dorf.campaign.Campaigns` over HTTP.

A finished cooperative game of the server goes into a campaign the way a
record file does with ``dorf campaign record --from-record``: same pad, same
key, so one game cannot be recorded twice in one campaign, whichever way it
came (by its seed and decisions, or by its id).  A practice game (undo
allowed) is refused with the code ``practice-game``, and a game whose creator chose its
seed (who could so know every tile) with ``chosen-seed``.

The campaigns live in the server's SQLite file (with PostgreSQL, in the file of
``$DORF_DB``); every method here runs in the desk's own thread
(``await desk.run(desk.listing)``), never on the event loop.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from functools import partial
from pathlib import Path
from typing import Any, TypeVar

from dorf.campaign import CampaignError, Campaigns, PadError, SheetError
from dorf.campaign.store import FinishedGame, check_players, game_key
from dorf.campaign.svg import campaign_score_svg, campaign_track_svg
from dorf.games.modes import MODES
from dorf.rules.area import Placement
from dorf.rules.scoring import ScorePad
from dorf.server.protocol.messages import ProtocolError, need_object
from dorf.server.protocol.views import Json
from dorf.server.round.session import GameSession
from dorf.server.storage import is_url

T = TypeVar("T")


def _refused(exc: ValueError) -> ProtocolError:
    text = str(exc)
    status = 404 if text.startswith("no campaign named") else 400
    return ProtocolError("campaign", text, status)


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
        raise _refused(exc) from None
    pad = state.scores()[0]
    assert isinstance(pad, ScorePad)  # the cooperative game's one pad
    return FinishedGame(
        pad,
        players,
        json.dumps(session.record(), sort_keys=True),
        game_key(session.record()["tileset"], session.seed, moves),
        session.id,
    )


class CampaignDesk:
    """The campaigns in the server's SQLite file, used from a thread of the desk's own."""

    def __init__(self, db: str | Path | None) -> None:
        path = None if is_url(db) else db  # the games are in PostgreSQL; the campaigns stay in the file
        self._thread = ThreadPoolExecutor(1, thread_name_prefix="dorf-campaigns")
        self._path = path
        self.campaigns: Campaigns | None = None

    async def run(self, call: Callable[..., T], *args: Any) -> T:
        """``call(*args)`` in the desk's thread."""
        return await asyncio.get_running_loop().run_in_executor(self._thread, partial(call, *args))

    async def open(self) -> None:
        self.campaigns = await self.run(Campaigns.open, self._path)

    async def close(self) -> None:
        if self.campaigns is not None:
            await self.run(self.campaigns.close)
        self._thread.shutdown(wait=True)

    @property
    def _campaigns(self) -> Campaigns:
        assert self.campaigns is not None, "the desk has not opened"
        return self.campaigns

    def listing(self) -> Json:
        return {"campaigns": [c.as_json() for c in self._campaigns.listing(include_archived=True)]}

    def create(self, body: Any) -> Json:
        data = need_object(body, "a new campaign")
        name = data.get("name")
        if not isinstance(name, str):
            raise ProtocolError("bad-message", "a campaign needs a name")
        try:
            return self._campaigns.create(name).as_json()
        except (CampaignError, SheetError) as exc:
            raise _refused(exc) from None

    def view(self, name: str) -> Json:
        try:
            return self._campaigns.view(name).as_json()
        except CampaignError as exc:
            raise _refused(exc) from None

    def score_svg(self, name: str) -> str:
        try:
            return campaign_score_svg(self._campaigns.view(name))
        except CampaignError as exc:
            raise _refused(exc) from None

    def track_svg(self, name: str) -> str:
        try:
            return campaign_track_svg(self._campaigns.view(name))
        except CampaignError as exc:
            raise _refused(exc) from None

    def record(self, name: str, finished: FinishedGame, branches: list[str]) -> Json:
        """Record a finished game (see :func:`finished_game`) in campaign ``name``."""
        try:
            change = self._campaigns.record(
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
            return self._campaigns.choose(name, branch).as_json()
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
