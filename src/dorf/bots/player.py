"""A program as a player of a game played in this process (``dorf simulate``, ``dorf play
--opponent cmd:...``): :class:`BotPlayer`, a :class:`~dorf.players.Player` that follows the game
in a :class:`~dorf.server.round.session.GameSession` of its own (:class:`Mirror`), so that the program
is shown what the page would show; and the makers of players that know programs.
"""

from __future__ import annotations

from collections.abc import Callable

from dorf.bots.process import Limits, command_argv, is_command
from dorf.bots.protocol import DEFAULT_SECONDS, Json, decision_of, one_way_seed
from dorf.bots.seat import Bot
from dorf.formats.record import GameState
from dorf.players import Decision, Player, View, make_player
from dorf.server.protocol.messages import Move
from dorf.server.round.session import COMPUTER, GameSession, SeatSpec


def make_any_player(spec: str, seed: int = 0, seconds: float = DEFAULT_SECONDS) -> Player:
    """A player of the registry (:func:`~dorf.players.make_player`) or a program (``cmd:``);
    ValueError (a :class:`~dorf.bots.process.BotError` for a program) if ``spec`` names none.
    A program is started at its first decision, not here."""
    if is_command(spec):
        return BotPlayer(spec, seed, seconds)
    return make_player(spec, seed)


def terminal_players(seconds: float = DEFAULT_SECONDS) -> Callable[[str, int], Player]:
    """How ``dorf play`` makes its computer opponent from a spec and the game's seed: a program
    is given a seed derived one way from it (the seed would tell it the order of the tiles)."""

    def make(spec: str, seed: int) -> Player:
        if is_command(spec):
            return BotPlayer(spec, one_way_seed(seed, 1), seconds)
        return make_player(spec, seed)

    return make


def check_spec(spec: str) -> str:
    """``spec`` if it names a player or a program that can be found, else ValueError."""
    make_any_player(spec)
    return spec


class Mirror:
    """A game played in this process, followed by a :class:`GameSession` of its own, so that a
    program is shown what the page would show (seat ``i`` is the engine's player ``i``)."""

    def __init__(self, state: GameState, names: list[str] | None = None) -> None:
        self.state = state
        self.mode = state.mode
        self.names = names or [f"Player {i + 1}" for i in range(state.players)]
        self.session = self._fresh()

    def _fresh(self) -> GameSession:
        seats = [SeatSpec(COMPUTER, name) for name in self.names]
        return GameSession.new("here", self.mode, self.state.game.seed, seats)

    def document(self, seat: int) -> Json:
        """What the page shows ``seat`` now."""
        made = self.state.made()
        session = self.session
        count = len(session.decisions)
        if len(made) < count or made[:count] != session.state.made():
            session = self.session = self._fresh()  # a decision was taken back: follow again
        for player, decision in made[len(session.decisions) :]:
            session.apply(Move(session.order[player], decision))
        return session.document([seat])


class BotPlayer:
    """A program as a :class:`~dorf.players.Player` of a game played in this process: attach it
    to the game's state (:meth:`attach`), then ask it as any player; :meth:`close` at the end.
    ``seed`` goes to the program as it is (derive it with :func:`one_way_seed` where the game's
    seed is a secret); ``limits``: what it may use (by default those of the clock)."""

    name = "cmd"

    def __init__(
        self, spec: str, seed: int = 0, seconds: float = DEFAULT_SECONDS, limits: Limits | None = None
    ) -> None:
        command_argv(spec)
        self.spec = spec
        self.seed = seed
        self.seconds = seconds
        self.limits = limits
        self.mirror: Mirror | None = None
        self.bot: Bot | None = None

    def attach(self, state: GameState, player: int, names: list[str] | None = None) -> None:
        """Play ``player`` (the engine's number) of ``state``."""
        self.close()
        self.mirror = Mirror(state, names)
        self.bot = Bot(
            self.spec,
            mode=self.mirror.mode,
            seat=player,
            seed=self.seed,
            seconds=self.seconds,
            limits=self.limits,
        )

    @property
    def lost(self) -> int:
        """Decisions lost in this game (the first legal move played instead)."""
        return self.bot.lost if self.bot is not None else 0

    def choose(self, view: View) -> Decision:
        if self.mirror is None or self.bot is None:
            raise ValueError("a program plays a game it is attached to (BotPlayer.attach)")
        return decision_of(self.bot.decide(self.mirror.document(self.bot.seat)))

    def close(self) -> None:
        """Stop the program, telling it the final view if the game is over."""
        bot, mirror = self.bot, self.mirror
        if bot is not None and mirror is not None and not bot.closed:
            bot.end(mirror.document(bot.seat) if mirror.state.is_over else None)
