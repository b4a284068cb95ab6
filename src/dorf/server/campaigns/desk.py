"""The campaigns of the site (issue 63): a campaign belongs to its members, the player who made it
and those who joined it by its link; only they list it, open it, record a game into it, choose at
its forks, rename or archive it (anyone else: ``not-a-member``, 403).  "Next game" makes a
cooperative game whose seats are the members' (online, each one's invitation shown to that
member alone on the campaign's page); when that game ends, the server records it into the
campaign by itself (:meth:`CampaignDesk.ended`, subscribed to
:class:`~dorf.server.round.events.GameEnded` in the composition root).

The rows are the server's own (:mod:`dorf.server.storage.campaigns`), in the database of the
games: with PostgreSQL every server sees the same campaigns.  Each call is one transaction
(:mod:`.ledger`).
"""

from __future__ import annotations

import asyncio
import logging
import secrets
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

from dorf.campaign.sheet import default_sheet
from dorf.campaign.store import MAX_PLAYERS
from dorf.campaign.svg import campaign_score_svg, campaign_track_svg
from dorf.db import default_path
from dorf.games.modes import MODES
from dorf.server.campaigns import kept, ledger
from dorf.server.campaigns.finished import finished_game
from dorf.server.protocol.messages import ProtocolError, need_object
from dorf.server.protocol.views import Json
from dorf.server.round.game import Broken, Game
from dorf.server.round.session import ONLINE
from dorf.server.storage import is_url
from dorf.server.storage.base import StorageError
from dorf.server.storage.campaigns import CampaignRow, CampaignRows, CampaignTables, SeatRow

if TYPE_CHECKING:
    from dorf.server.players.accounts import Player
    from dorf.server.round.events import GameEnded
    from dorf.server.storage.base import Storage

log = logging.getLogger("dorf.server")


class Seats(Protocol):
    """What the campaigns ask of the round's seating: a new game."""

    async def create(self, body: Any, creator: Any = None, origin: Any = None) -> Json: ...


def _unavailable(exc: StorageError) -> ProtocolError:
    return ProtocolError("storage", f"the campaigns cannot be read or changed now ({exc})", 503)


def _id(player: Player | None) -> str | None:
    return None if player is None else player.id


def link(row: CampaignRow) -> str:
    """The path of a campaign's join link."""
    return f"/campaigns/{row.id}/join/{row.join_code}"


class CampaignDesk:
    """The campaigns of the site, handed the storage, the seating and the games it reads."""

    def __init__(
        self,
        storage: Storage,
        seating: Seats,
        game: Callable[[str], Awaitable[Game | Broken]],
        tell: Callable[..., None] = lambda *args, **kwargs: None,
    ) -> None:
        """``tell(player_id, kind, game_id, mode, text, url=...)`` tells a player what waits for
        them (the lobby's attention): the members whose seat in a next game waits."""
        self.storage = storage
        self.seating = seating
        self.game = game
        self.tell = tell
        #: Games recorded into a campaign by themselves, and those that could not be.
        self.counts = {"recorded": 0, "refused": 0}

    async def _tx(self, work: Callable[..., Any], *args: Any) -> Any:
        try:
            return await self.storage.people(work, *args)
        except StorageError as exc:
            raise _unavailable(exc) from None

    async def start(self, db: str | Path | None) -> None:
        """Keep the campaigns of before (:mod:`.kept`): those of the server's SQLite file, or with
        PostgreSQL those of the SQLite file the server kept them in (``$DORF_DB`` or the default)."""
        if str(db) == ":memory:":
            return
        path = default_path() if is_url(db) or db is None else Path(db)
        source = str(path.expanduser().resolve())
        try:
            if await self.storage.people(CampaignTables.was_imported, source):
                return  # copied at an earlier start (of this server or another of its database)
            old = await asyncio.to_thread(kept.read_old, path)
            kept.announce(await self.storage.people(kept.keep, source, old), source)
        except StorageError as exc:
            log.warning("dorf: the campaigns of %s were not kept now (%s): next start", source, exc)

    def health(self) -> Json:
        return dict(self.counts)

    # --- reading ---------------------------------------------------------------------------

    async def listing(self, player: Player | None) -> Json:
        """``GET /api/campaigns``: the player's own campaigns (a visitor has none)."""
        if player is None:
            return {"campaigns": []}
        lines = await self._tx(CampaignTables.mine, player.id)
        return {
            "campaigns": [
                {
                    "id": line.campaign.id,
                    "name": line.campaign.name,
                    "sheet": ledger.sheet_of(line.campaign.sheet).name,
                    "created": line.campaign.created,
                    "archived": line.campaign.archived,
                    "games": line.games,
                    "best": line.best,
                    "last_played": line.last_played,
                    "members": line.members,
                }
                for line in lines
            ]
        }

    async def _rows(self, key: str, player: Player | None) -> CampaignRows:
        rows: CampaignRows = await self._tx(ledger.load, key, _id(player))
        return rows

    async def view(self, key: str, player: Player | None) -> Json:
        """``GET /api/campaigns/KEY``: a campaign of the player's, with its members, its link and
        its next game (the player's own seat's invitation, while it waits)."""
        rows = await self._rows(key, player)
        assert player is not None  # a member
        view = ledger.view_of(rows).as_json()
        names = await self._names(rows.members)
        answer: Json = {
            **view,
            "id": rows.campaign.id,
            "members": [names.get(m, "?") for m in rows.members],
            "you": rows.members.index(player.id),
            "link": link(rows.campaign),
            "next": await self._next(rows, player),
        }
        return answer

    async def _names(self, ids: list[str]) -> dict[str, str]:
        try:
            found = await self.storage.players_by_id(ids)
        except StorageError as exc:
            raise _unavailable(exc) from None
        return {pid: p.name for pid, p in found.items()}

    async def _next(self, rows: CampaignRows, player: Player) -> Json | None:
        """The campaign's next game as ``player`` sees it: its id, whether it is over, whether it
        is recorded, and the player's seat's join link while it waits."""
        game_id = rows.campaign.next_game
        if game_id is None:
            return None
        found = await self.game(game_id)
        over = isinstance(found, Game) and found.session.is_over
        join = None
        seat = next((s for s in rows.seats if s.player_id == player.id), None)
        if isinstance(found, Game) and seat is not None and seat.invite and seat.seat in found.invites:
            join = f"/join/{game_id}/{seat.invite}"
        recorded = next((g.number for g in rows.games if g.game_ref == game_id), None)
        return {
            "game": game_id,
            "over": over,
            "join": join,
            "seat": None if seat is None else seat.seat,
            "recorded": recorded,  # its number in the campaign, once recorded
        }

    async def claimable(self, key: str) -> bool:
        """Whether ``key`` is a campaign of before that the first player to open it takes."""
        found: bool = await self._tx(ledger.claimable, key)
        return found

    async def svg(self, key: str, player: Player | None, which: str) -> str:
        view = ledger.view_of(await self._rows(key, player))
        return campaign_score_svg(view) if which == "score" else campaign_track_svg(view)

    # --- changing -------------------------------------------------------------------------

    async def create(self, body: Any, player: Player) -> Json:
        data = need_object(body, "a new campaign")
        name = data.get("name")
        if not isinstance(name, str):
            raise ProtocolError("bad-message", "a campaign needs a name")
        row = CampaignRow(
            secrets.token_urlsafe(8),
            name,
            default_sheet().text,
            ledger.now(),
            False,
            0,
            secrets.token_urlsafe(12),
            None,
            None,
        )
        made: CampaignRow = await self._tx(ledger.create, row, player.id)
        return {"id": made.id, "name": made.name, "link": link(made)}

    async def join(self, key: str, body: Any, player: Player) -> Json:
        """``POST /api/campaigns/KEY/join {"code"}``: the player joins by the link's code."""
        data = need_object(body, "a join request")
        code = data.get("code")
        if not isinstance(code, str) or not code or len(code) > 100:
            raise ProtocolError("bad-code", "a campaign's link holds its code: /campaigns/ID/join/CODE", 403)
        row, new = await self._tx(ledger.join, key, code, player.id, MAX_PLAYERS)
        return {"id": row.id, "name": row.name, "joined": new}

    async def rename(self, key: str, body: Any, player: Player | None) -> Json:
        data = need_object(body, "a new name")
        name = data.get("name")
        if not isinstance(name, str):
            raise ProtocolError("bad-message", 'give the new name: {"name": NAME}')
        row: CampaignRow = await self._tx(ledger.rename, key, _id(player), name)
        return {"id": row.id, "name": row.name}

    async def archive(self, key: str, body: Any, player: Player | None) -> Json:
        data = need_object(body, "an archive request")
        archived = data.get("archived", True)
        if not isinstance(archived, bool):
            raise ProtocolError("bad-message", "archived must be true or false")
        row: CampaignRow = await self._tx(ledger.archive, key, _id(player), archived)
        return {"id": row.id, "name": row.name, "archived": row.archived}

    async def record(self, key: str, game_id: str, branches: list[str], player: Player | None) -> Json:
        """Record a finished game of the server (by its id) into a campaign of the player's."""
        await self._tx(ledger.member_campaign, key, _id(player))  # a member's, before the game is read
        found = await self.game(game_id)
        if isinstance(found, Broken):
            raise found.refusal()
        await found.settled()
        finished = finished_game(found.session)
        change = await self._tx(ledger.record, key, _id(player), finished, branches)
        return dict(change.as_json())

    async def choose(self, key: str, body: Any, player: Player | None) -> Json:
        data = need_object(body, "a choice")
        branch = data.get("branch")
        if not isinstance(branch, str):
            raise ProtocolError("bad-message", 'name the branch: {"branch": NODE}')
        change = await self._tx(ledger.choose, key, _id(player), branch)
        return dict(change.as_json())

    async def next_game(self, key: str, player: Player | None) -> Json:
        """``POST /api/campaigns/KEY/next``: a cooperative game whose seats are the members' (each
        online, by invitation); the asker is answered the game and their own join link."""
        row, members = await self._tx(ledger.next_members, key, _id(player))
        assert player is not None  # a member
        if row.next_game is not None:
            found = await self.game(row.next_game)
            if isinstance(found, Game) and not found.session.is_over:
                raise ProtocolError(
                    "next-waiting", "the campaign's next game is not over yet: play it first", 409
                )
        names = await self._names(members)
        spec = {
            "mode": "coop",
            "seats": [
                {"kind": ONLINE, "name": names.get(m, f"Player {i + 1}")} for i, m in enumerate(members)
            ],
        }
        made = await self.seating.create(spec, creator=player)
        invites: dict[str, str] = made["invites"]
        seats = [SeatRow(made["id"], i, m, invites.get(str(i))) for i, m in enumerate(members)]
        await self._tx(ledger.start_next, row.id, player.id, made["id"], seats, row.next_game)
        for member in members:
            if member != player.id:
                text = f"{row.name}: your seat in the next game waits for you"
                self.tell(member, "campaign", made["id"], "coop", text, url=f"/campaigns/{row.id}")
        mine = members.index(player.id)
        return {"game": made["id"], "join": f"/join/{made['id']}/{invites[str(mine)]}", "seat": mine}

    async def ended(self, event: GameEnded) -> None:
        """A game ended: if it is a campaign's next game, it is recorded into the campaign."""
        session = event.game.session
        if not MODES[session.mode].campaign or session.practice or session.seed_chosen:
            return
        try:
            campaign_id = await self.storage.people(CampaignTables.campaign_of_game, event.game.id)
            if campaign_id is None:
                return
            finished = finished_game(session)
            await self.storage.people(ledger.record, campaign_id, None, finished, [])
        except (ProtocolError, StorageError) as exc:
            self.counts["refused"] += 1
            log.warning("dorf: game %s was not recorded into its campaign: %s", event.game.id, exc)
            return
        self.counts["recorded"] += 1


__all__ = ["CampaignDesk", "link"]
