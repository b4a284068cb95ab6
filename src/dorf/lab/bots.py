"""Bots from anywhere: a player in a program of its own, in any language, speaking JSON lines.

A player named ``cmd:COMMAND`` (``--player "cmd:python my_bot.py"``) is a program
that dorf starts and talks to over its standard input and output, one JSON
object a line (``dorf-bot/1``, described in ``docs/bots.md``):

- ``{"type": "start", ...}`` when the program starts: the mode, its seat, a
  seed for its random choices, the clock;
- ``{"type": "decide", ...}`` when its seat must decide: the seat's view of the
  game, exactly what the page shows that seat (:meth:`GameSession.document
  <dorf.server.sessions.GameSession.document>`, ``{"you", "game"}``), and the
  legal moves; the program answers one line, one of the moves
  (``{"at": [q, r], "rot": k}`` or ``{"pick": tile}``);
- ``{"type": "end", ...}`` with the final view, when the game is over.

Each decision has a clock (``--bot-seconds``, from the moment dorf sends the
decision).  A decision is lost, never waited for, when the answer is late, is
not one line of JSON naming a legal move, is longer than :data:`MAX_ANSWER`
bytes, or the program exits: the seat then plays the first legal move (one
line on stderr says why) and the game goes on.  A program that was late,
too long or gone is stopped (its whole process group is killed) and started
again for the seat's next decision, at most :data:`MAX_STARTS` times a game;
after that the seat plays the first legal move to the end.

Front ends: :class:`BotPlayer` is a :class:`~dorf.players.Player` for a game
played in this process (``dorf simulate``, ``dorf play --opponent``), which
mirrors the game in a :class:`~dorf.server.sessions.GameSession` to show the
program what the page would show; :class:`Bot` is one seat's program for the
server's computer seats (``dorf serve --allow-bot-commands``) and for
``dorf bot``, which plays a seat of an online game through the server's
websocket as a person's page would.

>>> moves_of({"you": {"seats": [0], "legal": {"0": [[0, 1, [0, 3]], [1, 0, [2]]]}},
...           "game": {"phase": "playing", "waiting": [0]}}, 0)
[{'at': [0, 1], 'rot': 0}, {'at': [0, 1], 'rot': 3}, {'at': [1, 0], 'rot': 2}]
"""

from __future__ import annotations

import argparse
import contextlib
import hashlib
import json
import os
import selectors
import shlex
import shutil
import signal
import subprocess
import sys
import threading
import time
import weakref
from collections.abc import Callable
from typing import Any

from dorf.arguments import bounded
from dorf.formats.record import GameState, record_of
from dorf.games.coop import CoopState
from dorf.games.duel import DuelState
from dorf.games.headtohead import Pick
from dorf.players import Decision, Player, View, make_player
from dorf.rules.area import Placement
from dorf.rules.hexgrid import Hex
from dorf.server.protocol import Move
from dorf.server.sessions import COMPUTER, GameSession, SeatSpec

Json = dict[str, Any]

#: The protocol's name, in every start message.
PROTOCOL = "dorf-bot/1"
#: A player spec that names a program: ``cmd:python my_bot.py``.
PREFIX = "cmd:"
#: The clock of one decision, in seconds, unless ``--bot-seconds`` says otherwise.
DEFAULT_SECONDS = 5.0
#: The longest answer line read, in bytes (an answer is a few dozen).
MAX_ANSWER = 4096
#: How often a seat's program is started in one game at most.
MAX_STARTS = 3
#: How long a program has to exit once told the game is over (its input closed), in seconds.
END_GRACE = 1.0
#: ``--bot-seconds``: from a hundredth of a second to an hour.
bot_seconds = bounded(0.01, 3600, cast=float, what="seconds")


class BotError(ValueError):
    """A ``cmd:`` spec that cannot run (no command, no such program); the message is one line."""


class Lost(Exception):
    """A decision lost: why, in words, and whether the program is stopped for it."""

    def __init__(self, reason: str, stop: bool = False, silent: bool = False) -> None:
        super().__init__(reason)
        self.reason = reason
        self.stop = stop
        #: Said once, not at every decision.
        self.silent = silent


def is_command(spec: object) -> bool:
    """Whether a player spec names a program (``cmd:...``)."""
    return isinstance(spec, str) and spec.startswith(PREFIX)


def command_argv(spec: str) -> list[str]:
    """The program and its arguments of ``cmd:COMMAND`` (split as a POSIX shell would, without
    running one); :class:`BotError` if there is none or the program cannot be found.

    >>> command_argv("cmd:python3 'my bot.py' --fast")
    ['python3', 'my bot.py', '--fast']
    """
    try:
        argv = shlex.split(spec.removeprefix(PREFIX))
    except ValueError as exc:
        raise BotError(f"{spec!r}: {exc}") from None
    if not argv:
        raise BotError(f"{spec!r} names no program: cmd:COMMAND, e.g. cmd:python my_bot.py")
    program = argv[0]
    if os.sep in program:
        if not (os.path.isfile(program) and os.access(program, os.X_OK)):
            raise BotError(f"{spec!r}: {program} is not an executable file")
    elif shutil.which(program) is None:
        raise BotError(f"{spec!r}: no program {program!r} on the PATH")
    return argv


def make_any_player(spec: str, seed: int = 0, seconds: float = DEFAULT_SECONDS) -> Player:
    """A player of the registry (:func:`~dorf.players.make_player`) or a program (``cmd:``);
    ValueError (a :class:`BotError` for a program) if ``spec`` names none.  A program is
    started at its first decision, not here."""
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


def one_way_seed(seed: int, seat: int) -> int:
    """A program's seed derived from a game's: nothing about the game's seed (so the order of
    its tiles) can be learnt from it.

    >>> one_way_seed(7, 1) == one_way_seed(7, 1) != one_way_seed(7, 0)
    True
    """
    digest = hashlib.blake2b(f"{seed}/{seat}".encode(), digest_size=4, person=b"dorf-bot").digest()
    return int.from_bytes(digest)


# --- what a program is told --------------------------------------------------------------


def moves_of(document: Json, seat: int) -> list[Json]:
    """The legal moves of ``seat`` in the page's description ``{"you", "game"}``, in the
    engine's order (that of ``view.legal_decisions()``): picks from the open pool in the Head
    to Head draft, else placements, by cell (row, then column), then rotation."""
    game = document["game"]
    if seat not in game.get("waiting", ()):
        return []
    if game.get("phase") == "draft":
        return [{"pick": tile["id"]} for tile in game.get("pool", ())]
    legal = document["you"]["legal"].get(str(seat), ())
    return [{"at": [q, r], "rot": rot} for q, r, rots in legal for rot in rots]


def _canon(document: Json, seat: int) -> list[int] | None:
    """The rotations the same as 0 to 5 of the seat's revealed tile (``canon``), if shown."""
    game = document["game"]
    revealed = game.get("revealed") or []
    index = seat if game.get("mode") == "head-to-head" else 0
    tile = revealed[index] if index < len(revealed) else None
    return tile.get("canon") if isinstance(tile, dict) else None


def answers_another(line: bytes, number: int) -> bool:
    """Whether an answer says it is for another decision than ``number`` (its optional
    ``"decision"`` field): a line written late for an earlier one, dropped.

    >>> answers_another(b'{"at": [0, 1], "rot": 3, "decision": 2}', 3), answers_another(b'{"pick": 4}', 3)
    (True, False)
    """
    try:
        answer = json.loads(line)
    except (ValueError, RecursionError):
        return False
    return isinstance(answer, dict) and "decision" in answer and answer["decision"] != number


def read_answer(line: bytes, moves: list[Json], canon: list[int] | None = None) -> Json:
    """The legal move an answer line names (a rotation the same as a listed one counts as it);
    :class:`Lost` saying what is wrong otherwise.

    >>> read_answer(b'{"at": [0, 1], "rot": 3}', [{"at": [0, 1], "rot": 3}])
    {'at': [0, 1], 'rot': 3}
    >>> read_answer(b'{"pick": 9}', [{"pick": 4}])
    Traceback (most recent call last):
    ...
    dorf.lab.bots.Lost: it answered {"pick": 9}, which is not one of the legal moves
    """
    shown = line[:60].decode("utf-8", "replace") + ("..." if len(line) > 60 else "")
    try:
        answer = json.loads(line)
    except (ValueError, RecursionError):
        raise Lost(f"it answered {shown!r}, which is not JSON") from None
    if not isinstance(answer, dict):
        raise Lost(f"it answered {shown}, which is not a JSON object")
    if "pick" in answer:
        if type(answer["pick"]) is not int:
            raise Lost(f"it answered {shown}, which is no pick: a tile's id is an integer")
        key: tuple[Any, ...] = ("pick", answer["pick"])
    else:
        at, rot = answer.get("at"), answer.get("rot")
        if (
            not (isinstance(at, list) and len(at) == 2 and all(type(x) is int for x in at))
            or type(rot) is not int
        ):
            raise Lost(
                f'it answered {shown}, which is no move: {{"at": [q, r], "rot": k}} or {{"pick": tile}}'
            )
        if canon is not None and 0 <= rot < len(canon):
            rot = canon[rot]
        key = ("at", at[0], at[1], rot)
    for move in moves:
        if key == (("pick", move["pick"]) if "pick" in move else ("at", *move["at"], move["rot"])):
            return move
    raise Lost(f"it answered {shown}, which is not one of the legal moves")


def line_of(message: Json) -> bytes:
    """A message as one line of compact JSON (UTF-8)."""
    return json.dumps(message, separators=(",", ":"), ensure_ascii=False).encode() + b"\n"


# --- the program -------------------------------------------------------------------------


#: The programs running in this process (:func:`exit_now`).
_RUNNING: weakref.WeakSet[subprocess.Popen[bytes]] = weakref.WeakSet()
#: Whether a program is being started, and the status to exit with once it is (:func:`exit_now`).
_starting = False
_exit_status: int | None = None


def _kill_all() -> None:
    for process in list(_RUNNING):
        with contextlib.suppress(OSError):
            os.killpg(process.pid, signal.SIGKILL)


def exit_now(status: int) -> None:
    """Kill every program this process runs (and what they started) and exit at once: for a signal
    handler (a worker of ``dorf simulate`` terminated on Ctrl-C).  A program being started is
    killed as soon as it is, before the process exits."""
    global _exit_status
    if _starting:
        _exit_status = status
        return
    _kill_all()
    os._exit(status)


def _spawn(argv: list[str]) -> subprocess.Popen[bytes]:
    """Start a program in a process group of its own, known to :func:`exit_now` at once."""
    global _starting
    _starting = True
    try:
        process = subprocess.Popen(
            argv,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            start_new_session=True,  # its own process group: killed whole
        )
        _RUNNING.add(process)
        return process
    finally:
        _starting = False
        if _exit_status is not None:  # asked to exit while starting it
            _kill_all()
            os._exit(_exit_status)


class BotProcess:
    """A running program: write lines to its input and read lines from its output, each within a
    deadline and without ever blocking past it; :meth:`kill` ends it and everything it started."""

    def __init__(self, argv: list[str]) -> None:
        try:
            self.process = _spawn(argv)
        except OSError as exc:
            raise Lost(f"it could not be started: {exc.strerror or exc}", stop=True) from None
        assert self.process.stdin is not None and self.process.stdout is not None
        self.stdin, self.stdout = self.process.stdin, self.process.stdout
        os.set_blocking(self.stdin.fileno(), False)
        os.set_blocking(self.stdout.fileno(), False)
        self.buffer = bytearray()
        self.readable = selectors.DefaultSelector()
        self.readable.register(self.stdout, selectors.EVENT_READ)
        self.writable = selectors.DefaultSelector()
        self.writable.register(self.stdin, selectors.EVENT_WRITE)

    def gone(self) -> Lost:
        """Why the program no longer answers, as a lost decision."""
        with contextlib.suppress(subprocess.TimeoutExpired):
            self.process.wait(0.5)  # its output closed: it is most likely exiting
        code = self.process.poll()
        how = "closed its output" if code is None else f"exited (status {code})"
        return Lost(f"the program {how}", stop=True)

    def send(self, data: bytes, deadline: float) -> None:
        """Write ``data`` whole by ``deadline`` (:class:`Lost` if the program does not read it)."""
        view = memoryview(data)
        while view:
            left = deadline - time.monotonic()
            if left <= 0:
                raise Lost("it did not read its input in time", stop=True)
            if not self.writable.select(left):
                continue
            try:
                written = os.write(self.stdin.fileno(), view[: 1 << 16])
            except BlockingIOError:
                continue
            except OSError:  # a broken pipe: it is gone
                raise self.gone() from None
            view = view[written:]

    def _read(self) -> bytes | None:
        """What the program wrote since the last read (b"" once its output is closed), or None."""
        try:
            return os.read(self.stdout.fileno(), 1 << 16)
        except BlockingIOError:
            return None

    def receive(self, deadline: float, limit: int = MAX_ANSWER, late: str = "no answer in time") -> bytes:
        """The next line the program writes, without its newline, read by ``deadline`` and at
        most ``limit`` bytes long (:class:`Lost` otherwise, ``late`` its reason past the deadline)."""
        while True:
            end = self.buffer.find(b"\n")
            if end >= 0:
                line = bytes(self.buffer[:end])
                del self.buffer[: end + 1]
                if len(line) > limit:
                    raise Lost(f"it wrote a line of {len(line)} bytes (at most {limit})", stop=True)
                return line.rstrip(b"\r")
            if len(self.buffer) > limit:
                raise Lost(f"it wrote over {limit} bytes without a newline", stop=True)
            left = deadline - time.monotonic()
            if left <= 0:
                raise Lost(late, stop=True)
            if not self.readable.select(left):
                continue
            chunk = self._read()
            if chunk == b"":
                raise self.gone()
            if chunk:
                self.buffer += chunk

    def stray(self) -> int:
        """Drop what the program wrote unasked (whole lines waiting to be read); how many lines."""
        while (chunk := self._read()) and len(self.buffer) <= MAX_ANSWER:
            self.buffer += chunk
        lines = self.buffer.count(b"\n")
        if lines:
            del self.buffer[: self.buffer.rfind(b"\n") + 1]
        return lines

    def alive(self) -> bool:
        return self.process.poll() is None

    def kill(self, grace: float = 0.0) -> None:
        """End the program (after ``grace`` seconds for it to exit by itself, its input closed)
        and every process in its group; never raises."""
        with contextlib.suppress(OSError):
            self.stdin.close()
        if grace > 0:
            with contextlib.suppress(subprocess.TimeoutExpired):
                self.process.wait(grace)
        with contextlib.suppress(OSError):
            os.killpg(self.process.pid, signal.SIGKILL)  # its children too, even once it exited
        _RUNNING.discard(self.process)
        with contextlib.suppress(subprocess.TimeoutExpired):
            self.process.wait(5)
        with contextlib.suppress(OSError):
            self.stdout.close()
        self.readable.close()
        self.writable.close()


def _stderr(text: str) -> None:
    print(text, file=sys.stderr, flush=True)


class Bot:
    """One seat's program for one game: started when first asked, told each decision with its
    clock, stopped at the end.  :meth:`decide` always returns a legal move: the program's, or
    the first legal move when the decision is lost (reported through ``log``).  Safe to use
    from several threads (one call at a time)."""

    def __init__(
        self,
        spec: str,
        *,
        mode: str,
        seat: int,
        seed: int,
        seconds: float = DEFAULT_SECONDS,
        log: Callable[[str], None] = _stderr,
    ) -> None:
        self.argv = command_argv(spec)
        self.spec = spec
        self.mode = mode
        self.seat = seat
        self.seed = seed
        self.seconds = seconds
        self.log = log
        self.process: BotProcess | None = None
        self.starts = 0
        #: Decisions asked, and lost.
        self.decisions = 0
        self.lost = 0
        self.closed = False
        #: Whether the seat plays the first legal move to the end (started too often).
        self.given_up = False
        self._lock = threading.Lock()

    @property
    def label(self) -> str:
        return f"bot {self.spec.removeprefix(PREFIX)!r} (seat {self.seat})"

    def _start(self, deadline: float) -> BotProcess:
        self.starts += 1
        process = BotProcess(self.argv)
        self.process = process
        start = {
            "type": "start",
            "protocol": PROTOCOL,
            "mode": self.mode,
            "seat": self.seat,
            "seed": self.seed,
            "seconds": self.seconds,
        }
        process.send(line_of(start), deadline)
        return process

    def decide(self, document: Json, seat: int | None = None) -> Json:
        """The move of the seat in the page's description ``document`` (ValueError if it has none)."""
        seat = self.seat if seat is None else seat
        moves = moves_of(document, seat)
        if not moves:
            raise ValueError(f"seat {seat} has nothing to decide")
        with self._lock:
            self.decisions += 1
            number = self.decisions
            try:
                if self.closed:
                    raise Lost("the game's programs were stopped", silent=True)
                process = self.process
                deadline = time.monotonic() + self.seconds
                if process is None or not process.alive():
                    if process is not None:
                        self.log(f"dorf: {self.label}: {process.gone().reason} after its last answer")
                        process.kill()
                        self.process = None
                    if self.starts >= MAX_STARTS:
                        raise Lost(f"it was started {MAX_STARTS} times in this game already", silent=True)
                    process = self._start(deadline)
                stray = process.stray()
                if stray:
                    self.log(f"dorf: {self.label} wrote {stray} line(s) nobody asked for: ignored")
                message = {
                    "type": "decide",
                    "decision": number,
                    "seat": seat,
                    "state": document,
                    "moves": moves,
                }
                process.send(line_of(message), deadline)
                while True:
                    line = process.receive(deadline, late=f"no answer within {self.seconds:g} s")
                    if answers_another(line, number):  # said for an earlier decision: not the answer
                        self.log(f"dorf: {self.label} wrote 1 line(s) nobody asked for: ignored")
                        continue
                    return read_answer(line, moves, _canon(document, seat))
            except Lost as lost:
                self.lost += 1
                fallback = moves[0]
                if lost.silent:
                    if not self.given_up:
                        self.given_up = True
                        self.log(
                            f"dorf: {self.label} lost decision {number}: {lost.reason}; it plays the first "
                            "legal move at every decision to the end of the game"
                        )
                    return fallback
                stopped = ""
                if lost.stop and self.process is not None:
                    self.process.kill()
                    self.process = None
                    stopped = "; it was stopped" + (
                        ", and starts again for its next decision" if self.starts < MAX_STARTS else ""
                    )
                self.log(
                    f"dorf: {self.label} lost decision {number}: {lost.reason}{stopped}; "
                    f"it plays the first legal move, {json.dumps(fallback)}"
                )
                return fallback

    def end(self, document: Json | None = None) -> None:
        """Stop the program: tell it the game is over (``document``: the final view) and give it
        :data:`END_GRACE` seconds to exit, or (None) stop it at once.  Never raises."""
        with self._lock:
            self.closed = True
            process, self.process = self.process, None
            if process is None:
                return
            grace = 0.0
            if document is not None and process.alive():
                with contextlib.suppress(Lost):
                    process.send(line_of({"type": "end", "state": document}), time.monotonic() + END_GRACE)
                    grace = END_GRACE
            process.kill(grace)


class BotCommands:
    """What ``dorf serve --allow-bot-commands`` gives the server (see
    :class:`dorf.server.sessions.BotCommands`): a check of a ``cmd:`` spec and a :class:`Bot`
    for a computer seat, with one clock for every decision."""

    def __init__(self, seconds: float = DEFAULT_SECONDS, log: Callable[[str], None] = _stderr) -> None:
        self.seconds = seconds
        self.log = log

    def check(self, spec: str) -> None:
        command_argv(spec)

    def make(
        self, spec: str, mode: str, seat: int, seed: int, log: Callable[[str], None] | None = None
    ) -> Bot:
        return Bot(spec, mode=mode, seat=seat, seed=seed, seconds=self.seconds, log=log or self.log)


# --- a game played here ------------------------------------------------------------------


def _mode_of(state: GameState) -> str:
    if isinstance(state, CoopState):
        return "coop"
    return "duel" if isinstance(state, DuelState) else "head-to-head"


def _key(entry: Json) -> tuple[Any, ...]:
    return (entry.get("player"), tuple(entry.get("at") or ()), entry.get("rot"), entry.get("pick"))


class Mirror:
    """A game played in this process, followed by a :class:`GameSession` of its own, so that a
    program is shown what the page would show (seat ``i`` is the engine's player ``i``)."""

    def __init__(self, state: GameState, names: list[str] | None = None) -> None:
        self.state = state
        self.mode = _mode_of(state)
        count = state.game.players if isinstance(state, CoopState) else 2
        self.names = names or [f"Player {i + 1}" for i in range(count)]
        self.session = self._fresh()

    def _fresh(self) -> GameSession:
        seats = [SeatSpec(COMPUTER, name) for name in self.names]
        return GameSession.new("here", self.mode, self.state.game.seed, seats)

    def document(self, seat: int) -> Json:
        """What the page shows ``seat`` now."""
        entries = record_of(self.state)["decisions"]
        session = self.session
        made = len(session.decisions)
        if len(entries) < made or [_key(e) for e in entries[:made]] != [_key(e) for e in session.decisions]:
            session = self.session = self._fresh()  # a decision was taken back: follow again
        for entry in entries[len(session.decisions) :]:
            player = entry["player"] if "player" in entry else session.waiting()[0]
            if "pick" in entry:
                session.apply(Move(player, pick=entry["pick"]))
            else:
                session.apply(Move(player, placement=Placement(Hex(*entry["at"]), entry["rot"])))
        return session.document([seat])


def decision_of(move: Json) -> Decision:
    """A move of the protocol as the engine's decision."""
    if "pick" in move:
        return Pick(move["pick"])
    return Placement(Hex(*move["at"]), move["rot"])


class BotPlayer:
    """A program as a :class:`~dorf.players.Player` of a game played in this process: attach it
    to the game's state (:meth:`attach`), then ask it as any player; :meth:`close` at the end.
    ``seed`` goes to the program as it is (derive it with :func:`one_way_seed` where the game's
    seed is a secret)."""

    name = "cmd"

    def __init__(self, spec: str, seed: int = 0, seconds: float = DEFAULT_SECONDS) -> None:
        command_argv(spec)
        self.spec = spec
        self.seed = seed
        self.seconds = seconds
        self.mirror: Mirror | None = None
        self.bot: Bot | None = None

    def attach(self, state: GameState, player: int, names: list[str] | None = None) -> None:
        """Play ``player`` (the engine's number) of ``state``."""
        self.close()
        self.mirror = Mirror(state, names)
        self.bot = Bot(self.spec, mode=self.mirror.mode, seat=player, seed=self.seed, seconds=self.seconds)

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


# --- dorf bot: a seat of an online game --------------------------------------------------


def add_bot_parser(sub: argparse._SubParsersAction[Any]) -> None:
    """Register ``dorf bot`` with its arguments."""
    parser = sub.add_parser(
        "bot",
        help="a program plays a seat of an online game, through the server's websocket",
        description="Play a seat of a game on a dorf server with a program that speaks the bot protocol "
        "(docs/bots.md): dorf connects with the seat's token, shows the program the seat's view "
        "and sends its moves, as the page would.",
    )
    parser.add_argument(
        "--server", default="http://127.0.0.1:8000", metavar="URL", help="the server (default %(default)s)"
    )
    parser.add_argument(
        "--game",
        required=True,
        metavar="ID",
        help="the game's id (in its address); --game=ID if it begins with -",
    )
    parser.add_argument(
        "--token", required=True, metavar="T", help="the seat's token; --token=T if it begins with -"
    )
    parser.add_argument(
        "--bot-seconds",
        type=bot_seconds,
        default=DEFAULT_SECONDS,
        metavar="S",
        help=f"the program's clock for each decision (default {DEFAULT_SECONDS:g})",
    )
    parser.add_argument(
        "program", nargs=argparse.REMAINDER, metavar="-- COMMAND", help="the program and its arguments"
    )


class OnlineError(Exception):
    """Why ``dorf bot`` stops before the game is over: one line, and the exit status (2: it
    could not play; 1: cut off during the game)."""

    def __init__(self, message: str, status: int = 2) -> None:
        super().__init__(message)
        self.status = status


def _ws_url(server: str, game: str) -> str:
    """The websocket of ``game`` on ``server``.

    >>> _ws_url("http://127.0.0.1:8000/", "abc"), _ws_url("https://dorf.example", "x")
    ('ws://127.0.0.1:8000/ws/abc', 'wss://dorf.example/ws/x')
    """
    base = server.rstrip("/")
    for web, ws in (("https://", "wss://"), ("http://", "ws://")):
        if base.startswith(web):
            return ws + base[len(web) :] + "/ws/" + game
    if base.startswith(("ws://", "wss://")):
        return base + "/ws/" + game
    raise OnlineError(f"--server {server!r} is not an http:// or https:// address")


def play_online(
    server: str,
    game_id: str,
    token: str,
    spec: str,
    seconds: float = DEFAULT_SECONDS,
    say: Callable[[str], None] = print,
) -> Json:
    """Play the seat ``token`` holds in game ``game_id`` with program ``spec`` to the end of the
    game; the final description ``{"you", "game"}`` (:class:`OnlineError` if it cannot)."""
    try:
        from websockets.exceptions import ConnectionClosed, InvalidHandshake, InvalidURI
        from websockets.sync.client import connect
    except ImportError:
        raise OnlineError("dorf bot needs the websockets package: pip install 'dorf[web]'") from None
    from dorf.server.delta import patch

    url = _ws_url(server, game_id)
    bots: dict[int, Bot] = {}
    try:
        connection = connect(url, open_timeout=10, close_timeout=2, max_size=None)
    except (OSError, TimeoutError, InvalidHandshake, InvalidURI) as exc:
        raise OnlineError(f"cannot connect to {url}: {exc}") from None
    document: Json | None = None
    seats: list[int] | None = None
    asked: dict[int, Any] = {}  # seat -> the version it last moved at
    in_flight: dict[int, tuple[int, Any]] = {}  # a move's id -> its seat and version, until answered
    refused: set[int] = set()  # seats whose move was refused while nothing changed
    fell_back: dict[int, Any] = {}  # seat -> the version it last played the first legal move at
    moves = 0
    try:
        with connection:
            connection.send(json.dumps({"type": "hello", "tokens": [token], "id": "hello"}))
            while True:
                try:
                    message = json.loads(connection.recv())
                except ConnectionClosed as exc:
                    raise OnlineError(f"the server closed the connection ({exc})", 1) from None
                kind = message.get("type")
                if kind == "state":
                    document = {"you": message["you"], "game": message["game"]}
                elif kind == "delta":
                    if document is None or document["game"].get("version") != message.get("from"):
                        connection.send(json.dumps({"type": "sync"}))
                        continue
                    try:
                        document = patch(document, message["ops"])
                    except (ValueError, KeyError, IndexError, TypeError):
                        connection.send(json.dumps({"type": "sync"}))
                        continue
                elif kind == "welcome":
                    seats = list(message.get("seats", []))
                    if not seats:
                        raise OnlineError(f"the token holds no seat of game {game_id}")
                elif kind == "ok":
                    in_flight.pop(message.get("id"), None)
                elif kind == "error":
                    text = f"{message.get('code')}: {message.get('message')}"
                    sent = in_flight.pop(message.get("id"), None)
                    if sent is None:
                        if (
                            message.get("code") in ("no-game", "bad-token", "busy")
                            or message.get("id") == "hello"
                        ):
                            raise OnlineError(text)
                        say(f"dorf bot: the server says {text}")
                    else:
                        say(f"dorf bot: the server refused seat {sent[0]}'s move ({text})")
                        if document is not None and document["game"].get("version") == sent[1]:
                            refused.add(sent[0])  # nothing changed since: it must decide again
                if document is None or seats is None:
                    continue
                game = document["game"]
                if game.get("over"):
                    for seat, ended in bots.items():
                        ended.end(document)
                        if ended.lost:
                            say(f"dorf bot: seat {seat} lost {ended.lost} of {ended.decisions} decisions")
                    return document
                version = game.get("version")
                moving = {seat for seat, _ in in_flight.values()}
                for seat in seats:
                    if seat not in game.get("waiting", ()) or seat in moving:
                        continue  # (a seat whose move is not answered yet may still look as waiting)
                    legal = moves_of(document, seat)
                    if not legal:
                        continue
                    if asked.get(seat) == version:
                        if seat not in refused:
                            continue
                        refused.discard(seat)
                        if fell_back.get(seat) == version:
                            raise OnlineError(f"the server refuses every move of seat {seat} now", 1)
                        fell_back[seat] = version
                        move = legal[0]
                        say(f"dorf bot: seat {seat} plays the first legal move instead, {json.dumps(move)}")
                    else:
                        refused.discard(seat)
                        if seat not in bots:
                            seed = one_way_seed(int.from_bytes(game_id.encode()[:8]), seat)
                            bots[seat] = Bot(spec, mode=game["mode"], seat=seat, seed=seed, seconds=seconds)
                        move = bots[seat].decide(document, seat)
                    asked[seat] = version
                    moves += 1
                    in_flight[moves] = (seat, version)
                    connection.send(json.dumps({"type": "move", "seat": seat, **move, "id": moves}))
    finally:
        for bot in bots.values():
            bot.end(None)


def bot_main(args: argparse.Namespace) -> int:
    """``dorf bot``: one line on stderr and exit 2 when it cannot play, 1 if cut off mid-game."""
    command = list(args.program)
    if command and command[0] == "--":
        command = command[1:]
    if not command:
        print("dorf bot: name the program after --: dorf bot ... -- python my_bot.py", file=sys.stderr)
        return 2
    spec = PREFIX + shlex.join(command)
    if not args.game or not args.token:
        print("dorf bot: --game and --token must not be empty", file=sys.stderr)
        return 2
    try:
        command_argv(spec)
        final = play_online(args.server, args.game, args.token, spec, args.bot_seconds)
    except BotError as exc:
        print(f"dorf bot: {exc}", file=sys.stderr)
        return 2
    except OnlineError as exc:
        print(f"dorf bot: {exc}", file=sys.stderr)
        return exc.status
    game = final["game"]
    totals = [score.get("total") for score in game.get("scores", [])]
    seats = final["you"]["seats"]
    line = f"dorf bot: game {args.game} is over; scores {totals}"
    if "winner" in game:
        winner = game["winner"]
        line += "; a shared victory" if winner is None else ("; won" if winner in seats else "; lost")
    print(line)
    return 0


__all__ = [
    "DEFAULT_SECONDS",
    "MAX_ANSWER",
    "MAX_STARTS",
    "PREFIX",
    "PROTOCOL",
    "Bot",
    "BotCommands",
    "BotError",
    "BotPlayer",
    "BotProcess",
    "Lost",
    "Mirror",
    "OnlineError",
    "add_bot_parser",
    "bot_main",
    "bot_seconds",
    "check_spec",
    "command_argv",
    "decision_of",
    "exit_now",
    "is_command",
    "make_any_player",
    "moves_of",
    "one_way_seed",
    "play_online",
    "read_answer",
    "terminal_players",
]
