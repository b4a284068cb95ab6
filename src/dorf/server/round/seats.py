"""Who sits where: a new game's seats read from its request, an online seat taken with its
invitation, and the seats a client's tokens hold.

A game's seats are played ``here`` (at the creator's screen: each has a
token), ``online`` (by whoever has the seat's invitation: it becomes a token
when taken) or by the ``computer`` (a computer level, or, where the operator
allows it, a program: ``cmd:COMMAND``).  Tokens and invitations are long random
strings from :mod:`secrets`; only their hashes are kept.  The seed of a game
nobody chose is drawn from :mod:`secrets` too (63 bits), so it cannot be
guessed from anything the server says.
"""

from __future__ import annotations

import hmac
import re
import secrets
import unicodedata
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Protocol

from dorf.formats.notation import is_int
from dorf.games.modes import MODES
from dorf.players import make_player
from dorf.server.config import BotCommands
from dorf.server.protocol.messages import ProtocolError, need_object
from dorf.server.protocol.views import Json
from dorf.server.round.clock import parse_clock, versus
from dorf.server.round.events import Events, GameCreated, SeatTaken
from dorf.server.round.game import Game
from dorf.server.round.session import COMPUTER, HERE, ONLINE, SEAT_KINDS, GameSession, SeatSpec
from dorf.server.storage.base import (
    SEAT,
    Change,
    Refused,
    Storage,
    StorageError,
    StoredGame,
    StoredSeat,
    now,
    secret_hash,
)

if TYPE_CHECKING:
    from dorf.server.round.cache import GameCache
    from dorf.server.round.fanout import Fanout

#: Budgets a browser may give a computer player: at most this many seconds or futures.
MAX_SECONDS = 10.0
MAX_ITERATIONS = 400
MAX_NAME = 40
#: A computer player that is a program: ``cmd:COMMAND``.
COMMAND_PREFIX = "cmd:"
#: The longest ``cmd:`` spec a request may give.
MAX_COMMAND = 1000
#: Seeds a client may choose: SQLite's integers.
MAX_SEED = 2**63 - 1
#: Bits of a seed the server draws (from :mod:`secrets`).
SEED_BITS = 63
#: A seed written as text: the page sends the digits typed (a JavaScript number keeps 53 bits).
SEED_TEXT = re.compile(r"-?[0-9]{1,19}")


def check_player_spec(spec: Any, commands: BotCommands | None = None) -> str:
    """A computer player's name (``random``, ``greedy``, ``search``, ``search:2s``) within budget,
    or a program (``cmd:COMMAND``) if ``commands`` allows them (refused, ``no-commands``, else)."""
    if isinstance(spec, str) and spec.startswith(COMMAND_PREFIX):
        if commands is None:
            raise ProtocolError(
                "no-commands",
                "a computer player that runs a program (cmd:...) needs a server started with "
                "dorf serve --allow-bot-commands; this one was not",
                403,
            )
        if len(spec) > MAX_COMMAND:
            raise ProtocolError("bad-message", f"a cmd: player is at most {MAX_COMMAND} characters")
        try:
            commands.check(spec)
        except ValueError as exc:
            raise ProtocolError("bad-message", str(exc)) from None
        return spec
    if not isinstance(spec, str) or len(spec) > 20:
        raise ProtocolError("bad-message", "a computer player is named like greedy or search:2s")
    try:
        player = make_player(spec)
    except ValueError as exc:
        raise ProtocolError("bad-message", str(exc)) from None
    seconds = getattr(player, "seconds", None)
    iterations = getattr(player, "iterations", None)
    if (seconds is not None and seconds > MAX_SECONDS) or (
        iterations is not None and seconds is None and iterations > MAX_ITERATIONS
    ):
        raise ProtocolError(
            "bad-message", f"a computer player thinks at most {MAX_SECONDS:g}s or {MAX_ITERATIONS} futures"
        )
    return spec


def check_name(raw: Any, default: str) -> str:
    """A seat's name: 1 to :data:`MAX_NAME` printable characters (spaces run together)."""
    if raw is None or raw == "":
        return default
    if not isinstance(raw, str):
        raise ProtocolError("bad-message", "a name must be text")
    name = " ".join(raw.split())
    if not name:
        return default
    if len(name) > MAX_NAME or any(not ch.isprintable() for ch in name):
        raise ProtocolError("bad-message", f"a name is 1 to {MAX_NAME} printable characters")
    return name


#: Letters that look like those of ``computer`` (Cyrillic, Greek, digits), for :func:`imitates_computer`.
LOOK_ALIKES = str.maketrans(
    {
        "0": "o", "3": "e",
        "\u043e": "o", "\u03bf": "o", "\u0441": "c", "\u03f2": "c", "\u0440": "p", "\u03c1": "p",
        "\u0435": "e", "\u0442": "t", "\u03c4": "t", "\u03c5": "u", "\u057d": "u", "\u043c": "m",
        "\u0433": "r",
    }
)  # fmt: skip


def imitates_computer(name: str) -> bool:
    """Whether a seat name would pass for a computer seat's (``Computer 2 (greedy)``, ``Computer
    (expert)``): its letters and digits, compatibility-normalized, case-folded and with the
    look-alikes of :data:`LOOK_ALIKES` (and ``rn`` for ``m``) read as the letters they imitate,
    begin with ``computer``.

    >>> [imitates_computer(n) for n in ("Computer (expert)", "C0mputer", "co mputer", "\\u0421omputer 1")]
    [True, True, True, True]
    >>> [imitates_computer(n) for n in ("Ann", "Player 1", "Compute", "My computer")]
    [False, False, False, False]
    """
    folded = unicodedata.normalize("NFKC", name).casefold().translate(LOOK_ALIKES)
    letters = "".join(ch for ch in folded if ch.isalnum()).replace("rn", "m")
    return letters.startswith("computer")


def check_person_name(raw: Any, default: str) -> str:
    """A name of a seat played by a person (:func:`check_name`), refused (``bad-name``) if it
    would pass for a computer seat's: ``Computer (…)`` is shown for real computer seats only."""
    name = check_name(raw, default)
    if imitates_computer(name):
        raise ProtocolError(
            "bad-name",
            "a seat of a person is not named like a computer seat (Computer ...): choose another name",
        )
    return name


def new_game_id() -> str:
    """A new game's id: 8 random bytes in URL-safe base64 (11 characters), never beginning with
    ``-``, which a command line would read as an option (``dorf admin remove-message ID N``)."""
    while True:
        game_id = secrets.token_urlsafe(8)
        if not game_id.startswith("-"):
            return game_id


def draw_seed() -> int:
    """The seed of a game whose creator chose none: 63 bits from :mod:`secrets`."""
    return secrets.randbits(SEED_BITS)


def parse_seed(value: Any) -> int:
    """A chosen seed: a JSON integer, or a string of its decimal digits, within SQLite's integers.

    >>> parse_seed(4988471454571237152), parse_seed("4988471454571237152"), parse_seed(" -7 ")
    (4988471454571237152, 4988471454571237152, -7)
    >>> parse_seed("1e3")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    dorf.server.protocol.messages.ProtocolError: seed must be a whole number (a JSON integer or ...
    """
    if isinstance(value, str) and SEED_TEXT.fullmatch(value.strip()):
        value = int(value.strip())
    if not is_int(value) or not -MAX_SEED <= value <= MAX_SEED:
        raise ProtocolError(
            "bad-message", "seed must be a whole number (a JSON integer or a string of digits)"
        )
    seed: int = value
    return seed


def seats_for(game: Game, tokens: list[str]) -> tuple[set[int], int]:
    """The seats these tokens hold, and how many tokens held none."""
    seats: set[int] = set()
    bad = 0
    for token in tokens:
        wanted = secret_hash(token)
        found = [s for s, h in game.tokens.items() if hmac.compare_digest(h, wanted)]
        seats.update(found)
        bad += not found
    return seats, bad


def check_seat(session: GameSession, seats: set[int], seat: int) -> None:
    """ProtocolError unless ``seat`` is one of ``seats`` (those the client holds)."""
    if not 0 <= seat < len(session.seats):
        raise ProtocolError("bad-message", f"there is no seat {seat} in this game")
    if seat in seats:
        return
    spec = session.seats[seat]
    if spec.kind == COMPUTER:
        raise ProtocolError("not-your-seat", f"seat {seat} ({spec.name}) is played by the computer", 403)
    raise ProtocolError("not-your-seat", f"you do not hold the token of seat {seat} ({spec.name})", 403)


def token_seats(game: Game, token: Any) -> set[int]:
    """For the HTTP API: the seats one token holds (401 without a token, 403 for a wrong one)."""
    if token is None or token == "":
        raise ProtocolError("missing-token", "a seat token is needed for this", 401)
    if not isinstance(token, str) or len(token) > 200:
        raise ProtocolError("bad-token", "this seat token is not valid for this game", 403)
    seats, bad = seats_for(game, [token])
    if bad:
        raise ProtocolError("bad-token", "this seat token is not valid for this game", 403)
    return seats


def read_seats(data: dict[str, Any], mode: str, commands: BotCommands | None) -> tuple[list[SeatSpec], int]:
    """The seats of a new game of ``mode`` and who starts (from 1), from its request."""
    spec = MODES[mode]
    raw_seats = data.get("seats")
    if raw_seats is None:
        raw_seats = [{"kind": HERE}] * spec.players[0]
    if not isinstance(raw_seats, list):
        raise ProtocolError("bad-message", "seats must be a list")
    low, high = spec.players
    if not low <= len(raw_seats) <= high:
        raise ProtocolError("bad-message", f"this game has {spec.seat_range()} seats, not {len(raw_seats)}")
    first = data.get("first", 1)
    if not is_int(first) or not 1 <= first <= len(raw_seats):
        raise ProtocolError("bad-message", f"first must be a seat from 1 to {len(raw_seats)}")
    seats: list[SeatSpec] = []
    for i, raw in enumerate(raw_seats):
        item = need_object(raw, "a seat")
        kind = item.get("kind", HERE)
        if kind not in SEAT_KINDS:
            raise ProtocolError("bad-message", f"seat kind {kind!r} is not one of {', '.join(SEAT_KINDS)}")
        player = check_player_spec(item.get("player", "greedy"), commands) if kind == COMPUTER else None
        shown = "bot" if player and player.startswith(COMMAND_PREFIX) else player
        default = f"Computer {i + 1} ({shown})" if player else f"Player {i + 1}"
        checked = check_name if kind == COMPUTER else check_person_name
        name = checked(item.get("name"), default)
        seats.append(SeatSpec(kind, name, player))
    return seats, first


class Player(Protocol):
    """Who asks (the players' :class:`~dorf.server.players.accounts.Player`): an id and a name."""

    @property
    def id(self) -> str: ...

    @property
    def name(self) -> str: ...


class SeatRules(Protocol):
    """What the players decide of a game's seats (:class:`~dorf.server.players.service.Players`):
    whether a game may be rated, whose seats a new game's are, who may take a seat."""

    def check_rated(
        self, mode: str, practice: bool, chosen_seed: bool, kinds: list[tuple[str, str | None]], creator: bool
    ) -> None: ...

    async def take_seats(self, raw: Any, seats: list[SeatSpec], creator: Any, rated: bool) -> None: ...

    def check_joiner(self, session: GameSession, seat: int, player: Any) -> None: ...


class Thinkers(Protocol):
    """What seating asks of the computer seats."""

    def thinker(self, session: GameSession) -> str | None: ...

    def kick(self, game: Game) -> None: ...


@dataclass(frozen=True)
class GameOrigin:
    """Where a game made by a feature comes from: its ``tag`` (stored with the game: the day of
    the daily challenge it plays), its ``seed`` (the feature's, not chosen by the request) and
    its id.  A request's own game has none of them."""

    tag: str | None = None
    seed: int | None = None
    game_id: str | None = None
    #: What the request is told if it chooses a seed of its own.
    seed_refusal: str = "this game's seed is the server's: leave out seed"


class Seating:
    """Creating games and taking their online seats (the cache holds them)."""

    def __init__(
        self,
        storage: Storage,
        cache: GameCache,
        fanout: Fanout,
        events: Events,
        rules: SeatRules,
        computer: Thinkers,
        now: Callable[[], float],
        bot_commands: BotCommands | None,
    ) -> None:
        self.storage = storage
        self.cache = cache
        self.fanout = fanout
        self.events = events
        self.rules = rules
        self.computer = computer
        self.now = now
        self.bot_commands = bot_commands

    async def create(
        self, body: Any, creator: Player | None = None, origin: GameOrigin | None = None
    ) -> Json:
        """Create a game from ``{"mode", "seed"?, "practice"?, "first"?, "rated"?, "seats": [...]}``;
        its ``here`` seats are ``creator``'s (the player of the request, if it names one).  A game
        a feature makes is given its :class:`GameOrigin` (a tag, the seed, the id)."""
        origin = origin or GameOrigin()
        data = need_object(body, "a new game")
        mode = data.get("mode", "coop")
        if not isinstance(mode, str) or mode not in MODES:
            raise ProtocolError("bad-message", f"mode {mode!r} is not one of {', '.join(MODES)}")
        chosen = data.get("seed") is not None
        seed = origin.seed
        if seed is None:
            seed = parse_seed(data["seed"]) if chosen else draw_seed()
        elif chosen:
            raise ProtocolError("bad-message", origin.seed_refusal)
        practice = data.get("practice", False)
        if not isinstance(practice, bool):
            raise ProtocolError("bad-message", "practice must be true or false")
        seats, first = read_seats(data, mode, self.bot_commands)
        if practice and any(s.kind == ONLINE for s in seats):
            raise ProtocolError(
                "bad-message", "a practice game is played at one screen: undo would take back another's move"
            )
        if chosen and any(s.kind == ONLINE for s in seats):
            raise ProtocolError(
                "bad-message",
                "a game with an online seat gets its seed from the server: leave out seed"
                " (whoever chose it would know every tile)",
            )
        clock = parse_clock(data.get("clock"), len(seats))
        if clock is not None and (not versus(mode) or practice):
            raise ProtocolError(
                "bad-message", "a clock is for the Duel and Head to Head, and not for a practice game"
            )
        rated = data.get("rated", False)
        if not isinstance(rated, bool):
            raise ProtocolError("bad-message", "rated must be true or false")
        if rated:
            self.rules.check_rated(
                mode, practice, chosen, [(s.kind, s.player) for s in seats], creator is not None
            )
        await self.rules.take_seats(data.get("seats"), seats, creator, rated)
        game_id = origin.game_id or new_game_id()
        session = GameSession.new(game_id, mode, seed, seats, practice=practice, first=first)
        session.seed_chosen = chosen
        session.daily = origin.tag
        session.rated = rated
        if clock is not None:
            session.clock = clock
            if not any(s.kind == ONLINE for s in seats):  # every seat is held: the clock starts
                clock.start(self.now(), session.waiting())
        tokens = {i: secrets.token_urlsafe(24) for i, s in enumerate(seats) if s.kind == HERE}
        invites = {i: secrets.token_urlsafe(12) for i, s in enumerate(seats) if s.kind == ONLINE}
        game = Game(
            session,
            {i: secret_hash(t) for i, t in tokens.items()},
            {i: secret_hash(c) for i, c in invites.items()},
        )
        stored = StoredGame(
            game_id,
            mode,
            MODES[mode].tileset,
            seed,
            practice,
            now(),
            False,
            [
                StoredSeat(i, s.kind, s.name, s.player, game.tokens.get(i), game.invites.get(i), s.player_id)
                for i, s in enumerate(seats)
            ],
            [],
            first,
            seed_chosen=chosen,
            rated=rated,
            daily=origin.tag,
            clock=None if clock is None else clock.spec.text,
            clock_state=None if clock is None else clock.stored(),
            deadline=None if clock is None else clock.deadline(),
        )
        try:
            game.lease = await self.storage.create_game(stored, self.computer.thinker(session))
        except StorageError as exc:
            raise ProtocolError("storage", f"the game could not be stored: {exc}", 503) from None
        self.cache.hold(game)
        self.computer.kick(game)
        self.events.publish(GameCreated(game))
        return {
            "id": game_id,
            "mode": mode,
            "tokens": {str(i): t for i, t in tokens.items()},
            "invites": {str(i): c for i, c in invites.items()},
        }

    async def join(self, game: Game, body: Any, player: Player | None = None) -> Json:
        """Take an online seat with its invitation code: ``{"invite": CODE, "name": NAME}``."""
        data = need_object(body, "a join request")
        code = data.get("invite")
        if not isinstance(code, str) or not code or len(code) > 200:
            raise ProtocolError("missing-token", "an invitation code is needed to join", 401)
        async with game.lock:
            wanted = secret_hash(code)
            seat = next((s for s, h in game.invites.items() if hmac.compare_digest(h, wanted)), None)
            if seat is None:
                raise ProtocolError(
                    "bad-token", "this invitation is not valid or its seat is taken (ask for a new link)", 403
                )
            answer = await self._take(game, seat, data.get("name"), player)
        self._taken(game, seat, player)
        return answer

    async def take_open(self, game: Game, name: Any, player: Player | None = None) -> Json:
        """Take the first free online seat of an open game without its invitation (the lobby
        checks that the game is open, and who takes it)."""
        async with game.lock:
            if not game.invites:
                raise ProtocolError("full", "every seat of this game is taken", 409)
            seat = min(game.invites)
            answer = await self._take(game, seat, name, player)
        self._taken(game, seat, player)
        return answer

    def _taken(self, game: Game, seat: int, player: Player | None) -> None:
        """A seat was taken: every client of the game hears it, and :class:`SeatTaken` is published
        (the lobby hears it)."""
        self.fanout.broadcast(game)
        self.events.publish(SeatTaken(game, seat, None if player is None else player.id))

    async def _take(self, game: Game, seat: int, raw_name: Any, player: Player | None = None) -> Json:
        """Seat ``seat`` taken (its invitation used up, the game's lock held): a new token."""
        session = game.session
        self.rules.check_joiner(session, seat, player)
        # The seat of a player goes by the player's name unless another is given (a rated game's
        # default): the others meet the name their lobby, profile and rematch offers show.  A rated
        # game's seat always shows its player's name (issue 60: no "Computer (expert)", no second
        # "Alice"); no seat of a person is named like a computer's.
        if session.rated and player is not None:
            name = player.name
        else:
            name = check_person_name(raw_name, session.seats[seat].name if player is None else player.name)
        token = secrets.token_urlsafe(24)
        token_hash = secret_hash(token)
        change = Change(game.id, session.version + 1, SEAT, seat)
        clock = session.clock
        if clock is not None and not clock.started and set(game.invites) == {seat}:
            clock = clock.copy()  # the last seat is taken: the clock starts
            clock.start(self.now(), session.waiting())
            change.clock, change.deadline = clock.stored(), clock.deadline()
        try:
            await self.storage.claim_seat(change, name, token_hash, None if player is None else player.id)
        except Refused as exc:
            raise ProtocolError("bad-token", str(exc), 403) from None
        except StorageError as exc:
            raise ProtocolError("storage", f"the seat could not be stored: {exc}", 503) from None
        del game.invites[seat]
        game.tokens[seat] = token_hash
        session.seats[seat].name = name
        session.seats[seat].claimed = True
        session.seats[seat].player_id = None if player is None else player.id
        session.clock = clock
        session.version += 1
        return {"id": game.id, "seat": seat, "token": token}
