"""``hub.players``: the players of the hub's storage (:class:`~.accounts.Accounts`) with their
ratings: what ``/api/me`` and ``/api/players/NAME`` answer, the players of a game's seats with
their ratings and (once rated) the change, and the rating of a rated game once it ends (a
listener of :class:`~dorf.server.round.finisher.Finisher`).
"""

from __future__ import annotations

import logging
import time
from typing import TYPE_CHECKING, Any

from dorf.server.players.accounts import Accounts, Player
from dorf.server.players.glicko import LICHESS
from dorf.server.players.ratings import (
    LEVEL_PREFIX,
    PAIR_LIMIT,
    RATED_MODES,
    Rating,
    change_json,
    check_rated,
    level_player,
    shown,
    updater,
)
from dorf.server.protocol.messages import ProtocolError
from dorf.server.round.finisher import ABORTED
from dorf.server.round.session import COMPUTER, HERE, ONLINE
from dorf.server.storage.base import RatedGame, Refused, StorageError, StoredPlayer, now

if TYPE_CHECKING:
    from collections.abc import Callable

    from dorf.server.round.events import GameEnded
    from dorf.server.round.game import Game
    from dorf.server.round.session import GameSession, SeatSpec
    from dorf.server.storage.base import Storage

log = logging.getLogger("dorf.server")
PROVISIONAL_RD = LICHESS.provisional_rd
#: The last games ``/api/players/NAME`` lists.
LAST_GAMES = 50


def _unavailable(exc: StorageError) -> ProtocolError:
    return ProtocolError("storage", f"the ratings cannot be read or stored now ({exc})", 503)


class Players(Accounts):
    """The players and their ratings (``clock``: seconds since 1970, injectable for tests)."""

    def __init__(self, storage: Storage, clock: Callable[[], float] = time.time) -> None:
        super().__init__(storage)
        self.clock = clock
        self.update = updater()
        #: Games rated by this server.
        self.rated = 0

    async def ratings(self, player_id: str) -> dict[str, Rating]:
        """The player's rating in each rated mode (a new player's where it has played none)."""
        try:
            stored = {r.mode: r for r in await self.storage.ratings_of(player_id)}
        except StorageError as exc:
            raise _unavailable(exc) from None
        when = self.clock()
        return {mode: shown(stored.get(mode), mode, when) for mode in RATED_MODES}

    async def me(self, player: Player) -> dict[str, Any]:
        """What ``GET /api/me`` answers."""
        ratings = await self.ratings(player.id)
        return {
            **player.json(),
            "player": True,
            "signed_in": await self.signed_in(player),
            "ratings": {mode: rating.json() for mode, rating in ratings.items()},
        }

    def visitor(self) -> dict[str, Any]:
        """What ``GET /api/me`` answers a visitor who is no player yet (nothing stored): no name,
        a new player's ratings; the first thing it does that needs a player makes one."""
        when = self.clock()
        return {
            "name": None,
            "bot": False,
            "player": False,
            "signed_in": False,
            "ratings": {mode: shown(None, mode, when).json() for mode in RATED_MODES},
        }

    async def profile(self, name: str) -> dict[str, Any]:
        """What ``GET /api/players/NAME`` answers: ratings, their history, the last games."""
        try:
            found = await self.storage.find_player(name=name)
            if found is None:
                raise ProtocolError("no-player", f"there is no player {name!r}", 404)
            changes = await self.storage.rating_changes(player_id=found.id, limit=LAST_GAMES)
        except StorageError as exc:
            raise _unavailable(exc) from None
        ratings = await self.ratings(found.id)
        history: dict[str, list[dict[str, Any]]] = {mode: [] for mode in RATED_MODES}
        for change in reversed(changes):  # oldest first; a result not counted changed nothing
            if not change.counted:
                continue
            history.setdefault(change.mode, []).append(
                {"game": change.game_id, "rating": round(change.after, 2), "ended": change.ended}
            )
        return {
            "id": found.id,
            "name": found.name,
            "bot": found.bot,
            "ratings": {mode: rating.json() for mode, rating in ratings.items()},
            "history": history,
            "games": [change_json(change) for change in changes],
        }

    async def level(self, spec: str | None) -> Player | None:
        """The player of a rated computer level (made the first time it plays rated)."""
        found = level_player(spec)
        if found is None:
            return None
        player_id, name = found
        try:
            await self.storage.new_player(StoredPlayer(player_id, name, bot=True, created=now()), None)
        except Refused:
            pass  # it has played rated before
        except StorageError as exc:
            raise _unavailable(exc) from None
        return Player(player_id, name, True)

    async def take_seats(self, raw: Any, seats: list[SeatSpec], creator: Player | None, rated: bool) -> None:
        """Who holds a new game's seats: its ``here`` seats are the creator's, and in a rated game
        its computer seat is the level's player (``Computer (expert)``).  A rated game's seats go
        by their players' names whatever name is given (issue 60: a rated seat shows who plays it);
        the creator's seat given no name is named after its player in a game against people online
        too (so that the others know whom they meet); a game at one screen keeps ``Player 1``..."""
        named = (
            [isinstance(item, dict) and bool(item.get("name")) for item in raw]
            if isinstance(raw, list)
            else []
        )
        named += [False] * (len(seats) - len(named))
        alone = sum(seat.kind == HERE for seat in seats) == 1
        online = any(seat.kind == ONLINE for seat in seats)
        for seat, has_name in zip(seats, named, strict=True):
            if seat.kind == HERE and creator is not None:
                seat.player_id = creator.id
                if rated or (online and alone and not has_name):
                    seat.name = creator.name  # a rated seat shows its player's name, always
            elif seat.kind == COMPUTER and rated:
                level = await self.level(seat.player)
                if level is not None:
                    seat.player_id = level.id
                    seat.name = level.name

    def check_rated(
        self, mode: str, practice: bool, chosen_seed: bool, kinds: list[tuple[str, str | None]], creator: bool
    ) -> None:
        """ProtocolError (nothing made) unless a game so may be rated (:func:`ratings.check_rated
        <dorf.server.players.ratings.check_rated>`)."""
        check_rated(mode, practice, chosen_seed, kinds, creator)

    def check_joiner(self, session: GameSession, seat: int, player: Player | None) -> None:
        """ProtocolError unless ``player`` may take ``seat`` of the game: in a rated game, a
        player who does not hold its other seat."""
        if not getattr(session, "rated", False):
            return
        if player is None:
            raise ProtocolError("no-player", "a rated game is joined by a player: open the site first", 401)
        if any(s.player_id == player.id for i, s in enumerate(session.seats) if i != seat):
            raise ProtocolError(
                "self-play",
                "you hold the other seat of this rated game: a game against oneself is not rated",
                409,
            )

    async def seats(self, game: Game) -> dict[str, Any]:
        """The players of a game's seats: name, bot, rating in its mode (rated modes), and once a
        rated game is rated, each one's change (``counted`` false: past the day's rated results
        between the two, none).  ``unrated`` says why a rated game that ended changed no rating:
        ``aborted`` (too few moves), ``pair-limit`` (the pair's rated results of the day were used
        up); None otherwise."""
        session = game.session
        ids = [seat.player_id for seat in session.seats]
        try:
            found = await self.storage.players_by_id([i for i in ids if i is not None])
            changes = {c.player_id: c for c in await self.storage.rating_changes(game_id=game.id)}
        except StorageError as exc:
            raise _unavailable(exc) from None
        out: list[dict[str, Any] | None] = []
        for player_id in ids:
            player = found.get(player_id) if player_id is not None else None
            if player is None:
                out.append(None)
                continue
            entry: dict[str, Any] = {"name": player.name, "bot": player.bot, "rating": None, "change": None}
            if session.mode in RATED_MODES:
                change = changes.get(player.id)
                if change is not None:  # as it was when the game began, and the change
                    entry["rating"] = {
                        "rating": round(change.before, 2),
                        "after": round(change.after, 2),
                        "provisional": change.rd >= PROVISIONAL_RD,
                    }
                    entry["change"] = round(change.after - change.before)
                    entry["counted"] = change.counted
                else:
                    entry["rating"] = (await self.ratings(player.id))[session.mode].json()
            out.append(entry)
        rated = bool(getattr(session, "rated", False))
        unrated = None
        if rated and session.ending is not None and session.ending.end == ABORTED:
            unrated = ABORTED
        elif rated and any(not change.counted for change in changes.values()):
            unrated = "pair-limit"
        return {"id": game.id, "rated": rated, "unrated": unrated, "players": out}

    async def on_end(self, event: GameEnded) -> None:
        """A game ended (:class:`~dorf.server.round.events.GameEnded`): rate it once if it is rated."""
        game, ending = event.game, event.ending
        if not ending.rated:
            return
        session = game.session
        ids = [seat.player_id for seat in session.seats]
        if len(ids) != 2 or ids[0] is None or ids[1] is None or ids[0] == ids[1]:
            log.warning("dorf: rated game %s has no two players to rate: %s", game.id, ids)
            return
        score = 0.5 if ending.winner is None else 1.0 if ending.winner == 0 else 0.0
        # At most PAIR_LIMIT rated results a day between two people (a computer level aside).
        pair = (ids[0], ids[1])
        pair_limit = 0 if any(i.startswith(LEVEL_PREFIX) for i in pair) else PAIR_LIMIT
        rated = RatedGame(game.id, session.mode, pair, score, self.clock(), pair_limit)
        try:
            changes = await self.storage.rate_game(rated, self.update)
        except StorageError as exc:
            log.warning("dorf: rated game %s was not rated: %s", game.id, exc)
            return
        if changes is not None:
            self.rated += 1


__all__ = ["Players"]
