"""Which games are rated, and the ratings after one (Glicko-2 with lichess's settings:
:mod:`dorf.server.players.glicko`).

A game is rated when its creator asks (``"rated": true``) and it may be: a game of two seats
(the Duel, Head to Head: :data:`RATED_MODES`), not a practice game, its seed drawn by the
server, each seat a person (``here``: the creator; ``online``: whoever joins, never the player
of the other seat) or a rated computer level (:func:`level_player`: ``Computer (expert)``, a
player of its own whose rating anchors the scale), and never two computers.  It changes ratings
once it is over, unless it was aborted (:mod:`dorf.server.round.finisher`).

What keeps ratings from being farmed (issue 60), as lichess and Board Game Arena do:

- a rated game ended before **each seat made a decision** is aborted, whether a seat resigns or
  runs out of time (the clock's own rule for a first decision never made): nobody wins, no
  rating changes (lichess aborts a game of fewer than two moves, one each);
- at most :data:`PAIR_LIMIT` rated results a day (the 24 hours before a game ends) count between
  the same two people in a mode; a rated game past them is recorded as played but changes no
  rating (its players' view says ``"unrated": "pair-limit"``).  A computer level is no such
  pair: it plays anyone, as often as asked, and cannot be farmed;
- the leaderboards list only players with counted results against
  :data:`~dorf.server.storage.daily.LEADER_OPPONENTS` different players, besides ten rated
  games and a rating that is not provisional (:mod:`dorf.server.players.leaders`).

A rating is stored as Glicko-2 leaves it after the player's last rated game, with when that game
ended; what is shown (and what the next game starts from) is that rating with its RD grown by
the days since (:func:`~dorf.server.players.glicko.away`), so a player back after months is
provisional again.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from dorf.games.modes import MODES
from dorf.players.levels import levels
from dorf.server.players import glicko
from dorf.server.protocol.messages import ProtocolError
from dorf.server.storage.base import RatedGame, RateUpdate, RatingChange, StoredRating

#: The modes with ratings: those of two players against each other.
RATED_MODES = tuple(name for name, mode in MODES.items() if mode.players == (2, 2))
#: A day, in seconds.
DAY = 86400.0
#: The id of a computer level's player (no player's id has a ``:``).
LEVEL_PREFIX = "level:"
#: Rated results that count between two people in a mode in a day (issue 60): enough for a
#: game and its rematches, while two accounts taking turns to win move each other's rating by
#: at most three games' worth a day.
PAIR_LIMIT = 3


@dataclass(frozen=True)
class Rating:
    """A rating as shown: the rating, its RD grown with the time away, the rated games, and
    whether it is provisional ("?": RD 110 or more)."""

    rating: float
    rd: float
    games: int
    provisional: bool

    def json(self) -> dict[str, Any]:
        return {
            "rating": round(self.rating, 2),
            "rd": round(self.rd, 2),
            "games": self.games,
            "provisional": self.provisional,
        }


def level_player(spec: str | None) -> tuple[str, str] | None:
    """The player (id, name) of a rated computer level named ``spec`` (``expert``), or None."""
    for level in levels():
        if level.name == spec:
            return LEVEL_PREFIX + level.name, f"Computer ({level.name})"
    return None


def fresh(mode: str, when: float, settings: glicko.Settings = glicko.LICHESS) -> StoredRating:
    """A new player's rating in ``mode``."""
    return StoredRating(mode, settings.rating, settings.rd, settings.volatility, 0, when)


def grown(stored: StoredRating, when: float, settings: glicko.Settings = glicko.LICHESS) -> StoredRating:
    """``stored`` at time ``when``: its RD grown with the days since its last game."""
    was = glicko.Glicko(stored.rating, stored.rd, stored.volatility)
    now = glicko.away(was, (when - stored.played) / DAY, settings)
    return StoredRating(stored.mode, now.rating, now.rd, now.volatility, stored.games, stored.played)


def shown(stored: StoredRating | None, mode: str, when: float) -> Rating:
    """What a player's rating in ``mode`` shows at ``when``."""
    live = fresh(mode, when) if stored is None else grown(stored, when)
    return Rating(live.rating, live.rd, live.games, glicko.provisional(glicko.Glicko(live.rating, live.rd)))


def updater(settings: glicko.Settings = glicko.LICHESS) -> RateUpdate:
    """How a rated game changes its players' ratings (given to the storage's ``rate_game``)."""

    def update(game: RatedGame, stored: list[StoredRating | None]) -> list[tuple[StoredRating, StoredRating]]:
        when = game.ended
        starts = [fresh(game.mode, when, settings) if s is None else grown(s, when, settings) for s in stored]
        a, b = (glicko.Glicko(s.rating, s.rd, s.volatility) for s in starts)
        after = glicko.game(a, b, game.score, settings)
        return [
            (start, StoredRating(game.mode, new.rating, new.rd, new.volatility, start.games + 1, game.ended))
            for start, new in zip(starts, after, strict=True)
        ]

    return update


def check_rated(
    mode: str, practice: bool, chosen_seed: bool, kinds: list[tuple[str, str | None]], creator: bool
) -> None:
    """ProtocolError (nothing made) unless a game so may be rated: ``kinds`` are its seats'
    (kind, computer player), ``creator`` whether the request names a player."""
    if mode not in RATED_MODES:
        names = " and ".join(MODES[m].title for m in RATED_MODES)
        raise ProtocolError("not-ratable", f"only {names} are rated: {MODES[mode].title} is not")
    if practice:
        raise ProtocolError("not-ratable", "a practice game (undo allowed) is never rated")
    if chosen_seed:
        raise ProtocolError("not-ratable", "a rated game gets its seed from the server: leave out seed")
    here = sum(kind == "here" for kind, _ in kinds)
    computers = [player for kind, player in kinds if kind == "computer"]
    if here > 1:
        raise ProtocolError(
            "self-play", "a rated game against oneself (two seats at this screen) is not rated"
        )
    if here and not creator:
        raise ProtocolError("no-player", "a rated game needs a player: open the site first (its cookie)", 401)
    if len(computers) > 1:
        raise ProtocolError("not-ratable", "a rated game has a person in it, not two computers")
    for player in computers:
        if level_player(player) is None:
            known = ", ".join(level.name for level in levels())
            raise ProtocolError(
                "not-ratable", f"a computer in a rated game is one of the levels ({known}), not {player}"
            )


def change_json(change: RatingChange) -> dict[str, Any]:
    """A rating change as ``GET /api/players/NAME`` lists it."""
    result = "won" if change.score == 1.0 else "lost" if change.score == 0.0 else "drawn"
    return {
        "id": change.game_id,
        "mode": change.mode,
        "opponent": change.opponent_name,
        "result": result,
        "before": round(change.before, 2),
        "rating": round(change.after, 2),
        "change": round(change.after - change.before),
        "ended": change.ended,
        "counted": change.counted,  # false: past the day's rated results between the two
    }


Clock = Callable[[], float]

__all__ = [
    "LEVEL_PREFIX",
    "PAIR_LIMIT",
    "RATED_MODES",
    "Rating",
    "change_json",
    "check_rated",
    "level_player",
    "shown",
    "updater",
]
