"""A game on the server: its state, its seats, and what each seat may see and do.

A :class:`GameSession` wraps one engine state of any mode behind a small
interface: which seats decide now, their legal decisions, checking and
applying a :class:`~dorf.server.protocol.Move`, undo (practice games only), a
placement preview, the record, the log and the JSON the browser draws.  It
never touches storage or sockets: the hub writes each decision to the
database and then tells the clients.

Seats are numbered as the game was created; the engine numbers its players
from the one who starts (``first``): seat ``first - 1`` is the engine's
player 0, and the others follow in seat order.  Records, stored decisions and
the computer players use the engine's numbers; everything the browser sees
uses seats.

The public JSON holds what every player at the table may know (both areas,
the revealed tiles, counts, the draft's open pool); never the seed, the order
of a stack, the removed tiles or a marker pile.  The seed and the record only
come out once the game is over.  In the Duel and in Head to Head a placement
stays unseen by the other seat until that seat has placed too (the rules have
both place at the same time): until then the public JSON, the log and what a
computer player is shown describe the game as it was before that placement
(:meth:`GameSession.pending_seat`).

>>> session = GameSession.new("g", "coop", 3, [SeatSpec("here", "Ann")])
>>> session.waiting()
(0,)
>>> move = Move(0, placement=session.state.legal_placements()[0])
>>> session.apply(move)
{'at': [0, 0], 'rot': 0}
>>> session.version
1
"""

from __future__ import annotations

import functools
import hashlib
import itertools
import operator
from collections.abc import Callable, Collection, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any, Protocol

from dorf.formats.record import FORMAT, GameState, apply_decision, record_of, start_of
from dorf.games.coop import CoopGame, CoopState
from dorf.games.duel import DuelGame, DuelState
from dorf.games.headtohead import DRAFT, HeadToHeadGame, HeadToHeadState, Pick
from dorf.games.seat import Revealed
from dorf.players import make_player
from dorf.rules.area import Placement, PlayArea
from dorf.rules.hexgrid import Hex, cell_of, hex_of
from dorf.rules.scoring import SCORERS
from dorf.rules.tasks import COMPLETED, OPEN, Task, TaskSpec
from dorf.rules.terrain import TERRAIN_NAMES
from dorf.rules.tiles import areas
from dorf.server.protocol import Move, ProtocolError
from dorf.server.views import (
    Json,
    Made,
    Pad,
    area_json,
    describe_tile,
    face_json,
    hex_json,
    pad_json,
    pad_rows,
    revealed_json,
    spec_json,
    task_figures,
)
from dorf.server.wire import dumps

MODES = ("coop", "duel", "head-to-head")
MODE_NAMES = {"coop": "The Board Game", "duel": "The Duel", "head-to-head": "Head to Head"}
TILESETS = {"coop": "base", "duel": "duel", "head-to-head": "head-to-head"}
HERE, ONLINE, COMPUTER = "here", "online", "computer"
SEAT_KINDS = (HERE, ONLINE, COMPUTER)
#: Budgets a browser may give a computer player: at most this many seconds or futures.
MAX_SECONDS = 10.0
MAX_ITERATIONS = 400
MAX_NAME = 40


@dataclass
class SeatSpec:
    """A seat as the game is created: who plays it."""

    kind: str
    name: str
    player: str | None = None
    #: An online seat someone has taken with its invitation.
    claimed: bool = False


class SeatBot(Protocol):
    """A program that plays a computer seat (``cmd:COMMAND``, see ``docs/bots.md``)."""

    def decide(self, document: Json, seat: int | None = None) -> Json:
        """A legal move of the seat, ``{"at", "rot"}`` or ``{"pick"}``, from what the seat sees
        (:meth:`GameSession.document`): the program's, or a fallback; within its clock."""
        ...

    def end(self, document: Json | None = None) -> None:
        """Stop the program (telling it the final view, if given)."""
        ...


class BotCommands(Protocol):
    """Programs as computer players, where the operator allows them (``dorf serve
    --allow-bot-commands``; :class:`dorf.lab.bots.BotCommands`)."""

    def check(self, spec: str) -> None:
        """ValueError, one line, if ``spec`` (``cmd:COMMAND``) names no program that can run."""
        ...

    def make(
        self, spec: str, mode: str, seat: int, seed: int, log: Callable[[str], None] | None = None
    ) -> SeatBot:
        """The program of one seat of one game (started when it first decides)."""
        ...


#: A computer player that is a program: ``cmd:COMMAND``.
COMMAND_PREFIX = "cmd:"
#: The longest ``cmd:`` spec a request may give.
MAX_COMMAND = 1000


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


def new_state(mode: str, seed: int, players: int) -> GameState:
    if mode == "coop":
        return CoopGame(seed=seed, players=players).new_state()
    if mode == "duel":
        return DuelGame(seed=seed).new_state()
    return HeadToHeadGame(seed=seed).new_state()


def computer_seed(seed: int, decisions: int, player: int) -> int:
    """A computer player's seed for one decision: a one-way function of the game's seed, so
    that nothing the computer does tells anything about the seed (and so the tile order).

    >>> computer_seed(7, 3, 1) == computer_seed(7, 3, 1) != computer_seed(7, 3, 0)
    True
    """
    text = f"{seed}/{decisions}/{player}".encode()
    return int.from_bytes(hashlib.blake2b(text, digest_size=8, person=b"dorf-computer").digest()) >> 1


def seat_order(count: int, first: int) -> list[int]:
    """The seat of each engine player when seat ``first`` (from 1) starts.

    >>> seat_order(3, 2), seat_order(2, 1)
    ([1, 2, 0], [0, 1])
    """
    return [(p + first - 1) % count for p in range(count)]


def record_head(mode: str, seed: int, players: list[str], decisions: list[Json]) -> Json:
    """The fields of a record that determine a game."""
    return {
        "format": FORMAT,
        "mode": mode,
        "tileset": TILESETS[mode],
        "seed": seed,
        "players": players,
        "decisions": decisions,
    }


class GameSession:
    """One game on the server, of any mode."""

    def __init__(
        self,
        game_id: str,
        mode: str,
        seed: int,
        seats: list[SeatSpec],
        state: GameState,
        *,
        practice: bool = False,
        first: int = 1,
    ) -> None:
        self.id = game_id
        self.mode = mode
        self.seed = seed
        self.seats = seats
        self.state = state
        #: A practice game: undo allowed, and it never goes into a campaign.
        self.practice = practice
        #: Whoever created the game chose its seed, so could know every tile: its record says
        #: so and it never goes into a campaign (the hub sets it when it makes or reads the game).
        self.seed_chosen = False
        #: Who starts, counted from 1 in seat order.
        self.first = first
        #: The seat of each engine player, and the engine player of each seat.
        self.order = seat_order(len(seats), first)
        self.player_of = {seat: p for p, seat in enumerate(self.order)}
        self.decisions: list[Json] = []
        #: The seat that made each decision, in order.
        self.deciders: list[int] = []
        #: Counts every change (a move, an undo, a seat taken): clients see it.
        self.version = 0
        #: Counts undos: a computer's answer computed before an undo is dropped.
        self.epoch = 0
        self._cache: dict[str, Any] = {}
        self._cache_version = -1
        #: Descriptions that outlive a version (see :meth:`_area_parts`): each area's, keyed by
        #: (area, tiles placed, game over); placed tiles'; the log's, keyed by decisions made;
        #: the set's tiles'.  Only an undo makes them wrong: it clears them.
        self._areas: dict[tuple[int, int, bool], tuple[Json, Pad, Json]] = {}
        self._made: list[Made] = []
        self._logs: dict[tuple[int, tuple[str, ...]], list[Json]] = {}
        self._faces: dict[int, Json] = {}
        self._seats_made: tuple[tuple[tuple[str, str, str | None, bool], ...], list[Json]] | None = None
        self._revealed_made: dict[tuple[int, TaskSpec | None], Json | None] = {}
        self._owned_made: dict[tuple[int, int], list[Json]] = {}
        self._legal: dict[tuple[int, int, int | None, str], list[list[Any]]] = {}
        #: While the pending placement is taken back (:meth:`_as_before_pending`).
        self._pending_hidden = False
        #: The last description with no placement pending: (decisions, names, description).  The
        #: other seats see the game as it was before a pending placement: as described then.
        self._open: tuple[int, tuple[str, ...], Json] | None = None
        #: How far :meth:`log` has described: (names, decisions described, entries, carry...).
        self._log_cursor: tuple[tuple[str, ...], int, list[Json], list[int], set[int]] | None = None

    @classmethod
    def new(
        cls,
        game_id: str,
        mode: str,
        seed: int,
        seats: list[SeatSpec],
        *,
        practice: bool = False,
        first: int = 1,
    ) -> GameSession:
        if mode not in MODES:
            raise ProtocolError("bad-message", f"mode {mode!r} is not one of {', '.join(MODES)}")
        state = new_state(mode, seed, len(seats))
        return cls(game_id, mode, seed, seats, state, practice=practice, first=first)

    @classmethod
    def replay(
        cls,
        game_id: str,
        mode: str,
        seed: int,
        seats: list[SeatSpec],
        decisions: list[Json],
        *,
        practice: bool = False,
        first: int = 1,
    ) -> GameSession:
        """A stored game rebuilt from its decisions (raises RecordError if they no longer fit)."""
        names = [seats[seat].name for seat in seat_order(len(seats), first)]
        state = start_of(record_head(mode, seed, names, []))
        session = cls(game_id, mode, seed, seats, state, practice=practice, first=first)
        for number, entry in enumerate(decisions, 1):
            player = session.state.player if mode == "coop" else entry.get("player", 0)
            apply_decision(session.state, number, entry)
            session.decisions.append(entry)
            session.deciders.append(session.order[player])
        session.version = len(decisions)
        return session

    def record_head(self, decisions: list[Json]) -> Json:
        """A record of this game with these decisions (players in the engine's order)."""
        return record_head(self.mode, self.seed, [self.seats[seat].name for seat in self.order], decisions)

    # --- turns ---------------------------------------------------------------------

    @property
    def is_over(self) -> bool:
        cache = self._fresh()
        over: bool | None = cache.get("over")
        if over is None:
            over = cache["over"] = self.state.is_over
        return over

    @property
    def phase(self) -> str:
        if isinstance(self.state, HeadToHeadState):
            cache = self._fresh()
            phase: str | None = cache.get("phase")
            if phase is None:
                phase = cache["phase"] = self.state.phase
            return phase
        return "over" if self.state.is_over else "playing"

    def waiting(self) -> tuple[int, ...]:
        """The seats that may decide now."""
        state = self.state
        if isinstance(state, CoopState):
            return () if state.is_over else (self.order[state.player],)
        cache = self._fresh()
        seats: tuple[int, ...] | None = cache.get("waiting")
        if seats is None:
            seats = cache["waiting"] = tuple(sorted(self.order[p] for p in state.to_move()))
        return seats

    def pending_seat(self) -> int | None:
        """The seat whose latest placement the other seat may not see yet (the Duel, Head to
        Head: it placed while the other still has to), or None."""
        state = self.state
        if isinstance(state, CoopState):
            return None
        pending = state.pending()
        return self.order[pending[0]] if pending else None

    def sees_pending(self, seats: Collection[int]) -> bool:
        """Whether a client holding ``seats`` may see the pending placement: it holds that
        seat and not the seat still to place (two people at one screen do not)."""
        pending = self.pending_seat()
        return pending is not None and pending in seats and 1 - pending not in seats

    def name(self, seat: int) -> str:
        return self.seats[seat].name

    def player_name(self, player: int) -> str:
        """The name of the seat of engine player ``player``."""
        return self.seats[self.order[player]].name

    def area(self, seat: int) -> PlayArea:
        state = self.state
        if isinstance(state, CoopState):
            return state.area
        if isinstance(state, DuelState):
            return state.areas[self.player_of[seat]]
        return state.area(self.player_of[seat])

    def areas(self) -> list[PlayArea]:
        """The play areas in seat order (the cooperative game has one)."""
        if isinstance(self.state, CoopState):
            return [self.state.area]
        return [self.area(0), self.area(1)]

    def area_index(self, seat: int) -> int:
        """Which area a seat plays on: the one shared area in the cooperative game."""
        return 0 if self.mode == "coop" else seat

    def revealed(self, seat: int) -> Revealed | None:
        state = self.state
        if isinstance(state, HeadToHeadState):
            return state.revealed(self.player_of[seat])
        return state.revealed

    def _fresh(self) -> dict[str, Any]:
        if self._cache_version != self.version:
            self._cache = {}
            self._cache_version = self.version
        return self._cache

    def view_key(self, seats: Collection[int]) -> str:
        """Which description a client holding ``seats`` sees: ``full``, or ``public`` (without
        another seat's pending placement, see :meth:`sees_pending`)."""
        return "full" if self.pending_seat() is None or self.sees_pending(seats) else "public"

    def legal(self, seat: int) -> list[list[Any]]:
        """Where ``seat`` may place its tile now: ``[q, r, [rotations]]`` per cell (made once for
        each tile and number of tiles in the seat's area: in the Duel the seat still to place
        keeps its list when the other places)."""
        cache = self._fresh()
        key = f"legal{seat}"
        if key not in cache:
            revealed = self.revealed(seat) if seat in self.waiting() and self.phase != DRAFT else None
            if revealed is None:
                cache[key] = []
            else:
                lasting = (seat, len(self.area(seat).placed), revealed.tile_id, revealed.tile.face)
                found = self._legal.get(lasting)
                if found is None:
                    state = self.state
                    if isinstance(state, CoopState):
                        moves = state.legal_moves()
                    else:
                        moves = state.legal_moves(self.player_of[seat])
                    # The engine's (cell, rotation) moves, in the order of legal_placements (by
                    # cell: row, then column; then rotation), grouped by cell.
                    found = [
                        [*_qr(cell), [rot for _, rot in same_cell]]
                        for cell, same_cell in itertools.groupby(sorted(moves), key=_first)
                    ]
                    if len(self._legal) > 8:
                        self._legal.clear()
                    self._legal[lasting] = found
                cache[key] = found
        result: list[list[Any]] = cache[key]
        return result

    def why_not(self, move: Move) -> ProtocolError | None:
        """Why ``move`` may not be made now, or None."""
        if not 0 <= move.seat < len(self.seats):
            return ProtocolError("bad-message", f"there is no seat {move.seat} in this game")
        if self.is_over:
            return ProtocolError("game-over", "the game is over", 409)
        state = self.state
        player = self.player_of[move.seat]
        if move.seat not in self.waiting():
            if isinstance(state, CoopState):
                return ProtocolError(
                    "out-of-turn",
                    f"it is {self.player_name(state.player)}'s turn, not {self.name(move.seat)}'s",
                    409,
                )
            decision: Pick | Placement = move.placement or Pick(move.pick or 0)
            reason = state.why_illegal(decision, player)  # type: ignore[arg-type]
            return ProtocolError("out-of-turn", self._names(reason or "not this seat's turn"), 409)
        if isinstance(state, HeadToHeadState):
            decision = Pick(move.pick) if move.pick is not None else move.placement  # type: ignore[assignment]
            reason = state.why_illegal(decision, player)
        elif move.placement is None:
            return ProtocolError("illegal", "this game takes placements, not picks")
        elif isinstance(state, CoopState):
            reason = state.why_illegal(move.placement)
        else:
            reason = state.why_illegal(move.placement, player)
        return None if reason is None else ProtocolError("illegal", self._names(reason))

    def _names(self, text: str) -> str:
        """The engine says 'player 1'; the table knows names."""
        if self.mode == "coop":
            return text
        for player in (0, 1):
            text = text.replace(f"player {player + 1}'s", f"{self.player_name(player)}'s")
            text = text.replace(f"player {player + 1}", self.player_name(player))
        return text

    def entry(self, move: Move) -> Json:
        """The record entry of a move (in the engine's numbers): what is stored."""
        if self.mode == "coop":
            assert move.placement is not None
            return {"at": hex_json(move.placement.at), "rot": move.placement.rot}
        player = self.player_of[move.seat]
        if move.pick is not None:
            return {"player": player, "pick": move.pick}
        assert move.placement is not None
        return {"player": player, "at": hex_json(move.placement.at), "rot": move.placement.rot}

    def apply(self, move: Move) -> Json:
        """Make a checked move; returns its record entry.  Raises ProtocolError (nothing changed)."""
        error = self.why_not(move)
        if error is not None:
            raise error
        entry = self.entry(move)
        apply_decision(self.state, len(self.decisions) + 1, entry)
        self.decisions.append(entry)
        self.deciders.append(move.seat)
        self.version += 1
        return entry

    def trial(self, move: Move) -> tuple[Json, bool, tuple[int, ...]]:
        """A move's record entry, whether the game is over after it and which seats decide then,
        without making it (it is made and taken back at once: nothing else sees it).  Raises
        ProtocolError if the move may not be made."""
        error = self.why_not(move)
        if error is not None:
            raise error
        entry = self.entry(move)
        state = self.state
        apply_decision(state, len(self.decisions) + 1, entry)
        try:
            over = state.is_over
            if over:
                waiting: tuple[int, ...] = ()
            elif isinstance(state, CoopState):
                waiting = (self.order[state.player],)
            else:
                waiting = tuple(sorted(self.order[p] for p in state.to_move()))
        finally:
            state.undo()
        return entry, over, waiting

    # --- practice games -------------------------------------------------------------

    def can_undo(self) -> bool:
        """Whether an undo is possible now: a practice game, not over, a person's decision made."""
        return (
            self.practice and not self.is_over and any(self.seats[s].kind != COMPUTER for s in self.deciders)
        )

    def undo_count(self, seat: int) -> int:
        """How many decisions an undo by ``seat`` takes back: its last placement (or pick) of a
        person and every computer decision after it.  Raises ProtocolError if it may not."""
        if not self.practice:
            raise ProtocolError(
                "no-undo", "a laid tile stays: undo is only for practice games (chosen when created)", 409
            )
        if self.is_over:
            raise ProtocolError("game-over", "the game is over: a finished game never changes", 409)
        if not 0 <= seat < len(self.seats) or self.seats[seat].kind == COMPUTER:
            raise ProtocolError("bad-message", f"seat {seat} cannot undo")
        for count, decider in enumerate(reversed(self.deciders), 1):
            if self.seats[decider].kind != COMPUTER:
                return count
        raise ProtocolError("no-undo", "there is nothing to undo", 409)

    def undo(self, count: int) -> None:
        """Take back the last ``count`` decisions (as :meth:`undo_count` said)."""
        for _ in range(count):
            self.state.undo()
            self.decisions.pop()
            self.deciders.pop()
        self.version += 1
        self.epoch += 1
        self._areas.clear()
        self._made.clear()
        self._logs.clear()
        self._log_cursor = None
        self._legal.clear()
        self._owned_made.clear()
        self._open = None

    # --- what a seat may see ----------------------------------------------------------

    @contextmanager
    def _as_before_pending(self) -> Iterator[None]:
        """The state with the pending placement taken back, for as long as the block runs."""
        entry = self.decisions[-1]
        saved, self._cache = self._cache, {}
        self.state.undo()
        self._pending_hidden = True
        try:
            yield
        finally:
            self._pending_hidden = False
            apply_decision(self.state, len(self.decisions), entry)
            self._cache = saved

    def visible_record(self, seat: int) -> Json:
        """The record as ``seat`` may know it (for its computer player): without another seat's
        pending placement."""
        decisions = self.decisions
        pending = self.pending_seat()
        if pending is not None and pending != seat:
            decisions = decisions[:-1]
        return self.record_head(list(decisions))

    # --- what the browser sees --------------------------------------------------------

    def scores(self) -> list[Pad]:
        """The score pads in seat order (one in the cooperative game)."""
        return [self._area_parts(i, area)[1] for i, area in enumerate(self.areas())]

    def _area_parts(self, index: int, area: PlayArea) -> tuple[Json, Pad, Json]:
        """Area ``index``'s description, score pad and the pad's description, made once for
        each number of tiles placed on it (an area nobody placed on since is the same object
        as before, so a delta skips it at once)."""
        key = (index, len(area.placed), self.state.is_over)
        parts = self._areas.get(key)
        if parts is None:
            while len(self._made) <= index:
                self._made.append(Made())
            pad = SCORERS[self.mode](area)
            parts = (area_json(area, self._made[index]), pad, pad_json(pad))
            for old in [k for k in self._areas if k[0] == index and k[1] < key[1] - 1]:
                del self._areas[old]
            self._areas[key] = parts
        return parts

    def _owned(self, state: HeadToHeadState, player: int) -> list[Json]:
        """The tiles ``player`` took in the draft (one list while it does not grow)."""
        owned = state.owned[player]
        key = (player, len(owned))
        made = self._owned_made.get(key)
        if made is None:
            made = self._owned_made[key] = [self._face(i) for i in owned]
        return made

    def _face(self, tile_id: int) -> Json:
        """A tile of the set as the draft shows it (made once per tile)."""
        face = self._faces.get(tile_id)
        if face is None:
            assert isinstance(self.state, HeadToHeadState)
            face = self._faces[tile_id] = {"id": tile_id, **face_json(self.state.game.tileset.tiles[tile_id])}
        return face

    def winner(self) -> int | None:
        """The winning seat once a two-player game is over (None: shared, or not over)."""
        state = self.state
        if isinstance(state, CoopState) or not state.is_over:
            return None
        winner = state.winner()
        return None if winner is None else self.order[winner]

    def record(self) -> Json:
        """The game's ``dorf-record/1`` (players in the engine's order: who started first)."""
        out = record_of(self.state, [self.seats[seat].name for seat in self.order])
        out["game_id"] = self.id
        out.pop("practice", None)  # the server takes back only to look, or in a practice game
        if self.practice:
            out["practice"] = True
        if self.seed_chosen:
            out["seed_chosen"] = True
        return out

    def public(self, seats: Collection[int] = ()) -> Json:
        """Everything a client holding ``seats`` may know (cached per version): what every
        player at the table knows, and its own seat's pending placement (:meth:`sees_pending`)."""
        cache = self._fresh()
        key = self.view_key(seats)
        if key not in cache:
            names = tuple(seat.name for seat in self.seats)
            if key == "full":
                cache[key] = self._describe()
                if self.pending_seat() is None:
                    self._open = (len(self.decisions), names, cache[key])
            else:
                waiting = list(self.waiting())
                kept = self._open
                if kept is not None and kept[0] == len(self.decisions) - 1 and kept[1] == names:
                    # The game before the pending placement was described when it was made.
                    out = dict(kept[2])
                    out["seats"] = self._seats_json()
                    out["undo"] = self.can_undo()
                else:
                    with self._as_before_pending():
                        out = self._describe()
                out["waiting"] = waiting  # who still has to place: that much is public
                out["version"] = self.version
                out["turn"] = len(self.decisions)
                cache[key] = out
        result: Json = cache[key]
        return result

    def document(self, seats: Collection[int] = ()) -> Json:
        """What a client holding ``seats`` knows now: ``{"you": {"seats", "legal"}, "game":
        public(seats)}``, ``legal`` for its seats that decide now.  Made once per version for
        each view, and never changed in place: the server sends the next change as a delta
        from it (:mod:`dorf.server.delta`)."""
        ordered = sorted(seats)
        key = "doc:" + self.view_key(seats) + ",".join(map(str, ordered))
        cache = self._fresh()
        doc: Json | None = cache.get(key)
        if doc is None:
            waiting = self.waiting()
            you = {"seats": ordered, "legal": {str(s): self.legal(s) for s in ordered if s in waiting}}
            doc = cache[key] = {"you": you, "game": self.public(seats)}
        return doc

    def _seats_json(self) -> list[Json]:
        key = tuple((s.name, s.kind, s.player, s.claimed) for s in self.seats)
        if self._seats_made is None or self._seats_made[0] != key:
            described = [
                {"index": i, "name": s.name, "kind": s.kind, "player": s.player, "claimed": s.claimed}
                for i, s in enumerate(self.seats)
            ]
            self._seats_made = (key, described)
        return self._seats_made[1]

    def _revealed_json(self, revealed: Revealed | None) -> Json | None:
        """A revealed tile's description (made once per tile and task)."""
        if revealed is None:
            return None
        key = (revealed.tile_id, revealed.task)
        described = self._revealed_made.get(key)
        if described is None:
            if len(self._revealed_made) > 16:
                self._revealed_made.clear()
            described = self._revealed_made[key] = revealed_json(revealed)
        return described

    def _describe(self) -> Json:
        state = self.state
        out: Json = {
            "id": self.id,
            "mode": self.mode,
            "mode_name": MODE_NAMES[self.mode],
            "version": self.version,
            "phase": self.phase,
            "over": self.is_over,
            "turn": len(self.decisions),
            "waiting": list(self.waiting()),
            "seats": self._seats_json(),
            "areas": [],
            "scores": [],
            "practice": self.practice,
            "undo": self.can_undo(),
            "first": self.first,
            "broken": None,
            "log": self._log(),
        }
        for i, area in enumerate(self.areas()):
            described, _, pad = self._area_parts(i, area)
            out["areas"].append(described)
            out["scores"].append(pad)
        seat_players = [self.player_of[seat] for seat in range(len(self.seats))]
        if isinstance(state, HeadToHeadState):
            out["revealed"] = [self._revealed_json(state.revealed(p)) for p in seat_players]
            left = state.stacks_left(0)
            out["left"] = [list(left[p]) for p in seat_players]
            tiles = state.game.tileset.tiles
            out["owned"] = [self._owned(state, p) for p in seat_players]
            if state.phase == DRAFT:
                out["pool"] = [self._face(i) for i in state.pool]
                out["flags"] = [[face_json(tiles[i]) for i in state.flags[p]] for p in seat_players]
        else:
            out["revealed"] = [self._revealed_json(state.revealed)]
            out["left"] = [[state.task_tiles_left(), state.landscapes_left()]]
        if isinstance(state, DuelState) and state.turns:
            aside = state.turns[-1].set_aside
            out["set_aside"] = sorted(self.order[p] for p in (0, 1) if aside[p] and not state.is_over)
        if self.is_over:
            out["seed"] = self.seed
            out["seed_text"] = str(self.seed)  # exact in JavaScript, which keeps 53 bits of a number
            if self.mode != "coop":
                out["winner"] = self.winner()
        return out

    def public_text(self, seats: Collection[int] = ()) -> str:
        """:meth:`public` as compact JSON text (cached per version)."""
        cache = self._fresh()
        key = "text:" + self.view_key(seats)
        if key not in cache:
            cache[key] = dumps(self.public(seats))
        text: str = cache[key]
        return text

    def _log(self) -> list[Json]:
        """:meth:`log`, made once for each number of decisions (do not change it)."""
        count = len(self.decisions) - self._pending_hidden
        key = (count, tuple(seat.name for seat in self.seats))
        entries = self._logs.get(key)
        if entries is None:
            entries = self._logs[key] = self.log()
            for old in [k for k in self._logs if k[0] < count - 1 or (k[0] == count and k != key)]:
                del self._logs[old]
        return entries

    def log(self) -> list[Json]:
        """What happened, one entry a line, each naming whose it is: placements, set-aside
        tiles, picks, tasks completed or failed ("Ann completed forest 5").

        Made incrementally: what a decision adds to the log never changes afterwards, so the
        entries of the decisions already described are kept (until an undo or a new name) and
        only the new ones are described (a new list each time; its entries are shared)."""
        names = tuple(seat.name for seat in self.seats)
        cursor = self._log_cursor
        state = self.state
        done = len(state.turns) if isinstance(state, CoopState) else len(state.history)
        if cursor is None or cursor[0] != names or cursor[1] > done:
            cursor = self._log_cursor = (names, 0, [], [0, 0], set())
        _, start, out, placed, seen = cursor
        count = self._extend_log(start, out, placed, seen)
        self._log_cursor = (names, count, out, placed, seen)
        return list(out)

    def _extend_log(self, start: int, out: list[Json], placed: list[int], seen: set[int]) -> int:
        """Add to ``out`` the entries of the decisions from ``start`` on; how many are described.
        ``placed`` (Head to Head: placements described per player) and ``seen`` (the Duel: turns
        whose set-aside tiles are described) carry on from one call to the next."""
        state = self.state

        def changes(seat: int, turn: int, done: tuple[tuple[Task, Any], ...]) -> None:
            for task, status in done:
                verb = "completed" if status is COMPLETED else "failed"
                text = f"{self.name(seat)} {verb} {task.spec}"
                out.append({"turn": turn, "seat": seat, "kind": status.value, "text": text})

        if isinstance(state, CoopState):
            count = start
            for t in state.turns[start:]:
                seat = self.order[t.player]
                tile = describe_tile(t.revealed.tile, t.revealed.task)
                if t.set_aside:
                    text = f"{self.name(seat)}'s tile {tile} fits nowhere: set aside"
                    out.append({"turn": t.number, "seat": seat, "kind": "aside", "text": text})
                elif t.placement is not None:
                    at = t.placement.at
                    text = f"{self.name(seat)} placed {tile} at {at.q},{at.r}"
                    out.append({"turn": t.number, "seat": seat, "kind": "place", "text": text})
                    changes(seat, t.number, t.changes)
                else:
                    break  # the turn being played: described once it is done
                count += 1
            return count
        if isinstance(state, DuelState):
            for index, player in state.history[start:]:
                turn = state.turns[index]
                tile = describe_tile(turn.revealed.tile, turn.revealed.task)
                if index not in seen:
                    seen.add(index)
                    for p in (0, 1):
                        if turn.set_aside[p]:
                            seat = self.order[p]
                            text = f"{tile} fits nowhere in {self.name(seat)}'s area: set aside"
                            out.append({"turn": turn.number, "seat": seat, "kind": "aside", "text": text})
                placement = turn.placements[player]
                assert placement is not None
                seat = self.order[player]
                text = f"{self.name(seat)} placed {tile} at {placement.at.q},{placement.at.r}"
                out.append({"turn": turn.number, "seat": seat, "kind": "place", "text": text})
                changes(seat, turn.number, turn.changes[player])
            return len(state.history)
        history = state.history
        tiles = state.game.tileset.tiles
        finished: dict[int, list[Any]] = {}
        for number, (player, decision) in enumerate(history[start:], start + 1):
            seat = self.order[player]
            if isinstance(decision, Pick):
                text = f"{self.name(seat)} took {describe_tile(tiles[decision.tile_id])}"
                out.append({"turn": number, "seat": seat, "kind": "pick", "text": text})
                continue
            assert state.seats is not None
            if player not in finished:
                turns = state.seats[player].turns
                finished[player] = [t for t in turns if t.placement is not None or t.set_aside]
            done = finished[player]
            while placed[player] < len(done) and done[placed[player]].set_aside:
                t = done[placed[player]]
                tile = describe_tile(t.revealed.tile, t.revealed.task)
                text = f"{self.name(seat)}'s tile {tile} fits nowhere: set aside"
                out.append({"turn": number, "seat": seat, "kind": "aside", "text": text})
                placed[player] += 1
            t = done[placed[player]]
            placed[player] += 1
            assert t.placement is not None
            at = t.placement.at
            tile = describe_tile(t.revealed.tile, t.revealed.task)
            text = f"{self.name(seat)} placed {tile} at {at.q},{at.r}"
            out.append({"turn": number, "seat": seat, "kind": "place", "text": text})
            changes(seat, number, t.changes)
        return len(history)

    # --- the placement preview ------------------------------------------------------------

    def preview(self, seat: int, placement: Placement) -> Json:
        """What placing ``seat``'s tile at ``placement`` would do, exactly, without doing it:
        the tasks it completes or fails, the open tasks it changes, the territories it
        joins, and the score before and after."""
        error = self.why_not(Move(seat, placement=placement))
        if error is not None:
            raise error
        revealed = self.revealed(seat)
        assert revealed is not None
        area = self.area(seat)
        before_pad = self.scores()[self.area_index(seat)]
        before = {id(t): task_figures(area, t) for t in area.tasks if t.status is OPEN}
        tile = revealed.tile
        cell = cell_of(*placement.at)
        area.push(tile.face, cell, placement.rot, flag=tile.flag, task=revealed.task)
        try:
            completed: list[Json] = []
            failed: list[Json] = []
            for task, status in area.last_changes():
                entry = {**spec_json(task.spec), "at": hex_json(_at(task))}
                (completed if status is COMPLETED else failed).append(entry)
            progress = []
            for task in area.tasks:
                if task.status is not OPEN:
                    continue
                now = task_figures(area, task)
                old = before.get(id(task))
                if old != now:
                    progress.append(
                        {
                            **spec_json(task.spec),
                            "at": hex_json(_at(task)),
                            "before": None if old is None else [s for s, _ in old],
                            "sizes": [s for s, _ in now],
                            "open_edges": [e for _, e in now],
                            "new": old is None,
                        }
                    )
            groups = []
            letters = [letter for letter, _dirs in areas(area.placed[-1].edges) if letter not in "LP"]
            for group in area.groups_through(placement.at, letters):
                if group is None:
                    continue
                groups.append(
                    {
                        "letter": group.letter,
                        "name": TERRAIN_NAMES[group.letter],
                        "size": group.size,
                        "open_edges": group.open_edges,
                        "closed": group.closed,
                        "cells": [hex_json(c) for c in group.cells],
                    }
                )
            after_pad = SCORERS[self.mode](area)
        finally:
            area.pop()
        before_rows = pad_rows(before_pad)
        after_rows = pad_rows(after_pad)
        score_changes = [
            [label, old[1], new[1]]
            for old, new in zip(before_rows, after_rows, strict=True)
            for label in (old[0],)
            if old[1] != new[1] and old[2] == ""
        ]
        return {
            "seat": seat,
            "at": hex_json(placement.at),
            "rot": placement.rot,
            "completes": completed,
            "fails": failed,
            "tasks": progress,
            "groups": groups,
            "score": [before_pad.total, after_pad.total],
            "score_changes": score_changes,
        }


_first = operator.itemgetter(0)


@functools.lru_cache(maxsize=4096)
def _qr(cell: int) -> tuple[int, int]:
    at = hex_of(cell)
    return at.q, at.r


def _at(task: Task) -> Hex:
    return hex_of(task.cell)
