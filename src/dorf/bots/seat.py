"""One seat's program across a game: :class:`Bot`, and :class:`BotCommands` for the server.

A :class:`Bot` starts its program when the seat first decides, tells it each decision with its
clock, and always returns a legal move: the program's, or the first legal move when the decision
is lost (one line on stderr says why).  A program that was late, too long or gone is stopped and
started again for the seat's next decision, at most :data:`MAX_STARTS` times a game; after that
the seat plays the first legal move to the end.
"""

from __future__ import annotations

import contextlib
import json
import sys
import threading
import time
from collections.abc import Callable

from dorf.bots.process import PREFIX, BotProcess, Limits, command_argv
from dorf.bots.protocol import (
    DEFAULT_SECONDS,
    PROTOCOL,
    Json,
    Lost,
    answers_another,
    canon_of,
    line_of,
    moves_of,
    read_answer,
)

#: How often a seat's program is started in one game at most.
MAX_STARTS = 3
#: How long a program has to exit once told the game is over (its input closed), in seconds.
END_GRACE = 1.0


def _stderr(text: str) -> None:
    print(text, file=sys.stderr, flush=True)


class Bot:
    """One seat's program for one game: started when first asked, told each decision with its
    clock, stopped at the end.  :meth:`decide` always returns a legal move: the program's, or
    the first legal move when the decision is lost (reported through ``log``).  Safe to use
    from several threads (one call at a time).  ``limits``: what the program may use (by
    default :meth:`Limits.for_clock` of ``seconds``)."""

    def __init__(
        self,
        spec: str,
        *,
        mode: str,
        seat: int,
        seed: int,
        seconds: float = DEFAULT_SECONDS,
        log: Callable[[str], None] = _stderr,
        limits: Limits | None = None,
    ) -> None:
        self.argv = command_argv(spec)
        self.spec = spec
        self.mode = mode
        self.seat = seat
        self.seed = seed
        self.seconds = seconds
        self.log = log
        self.limits = limits or Limits.for_clock(seconds)
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
        process = BotProcess(self.argv, self.limits)
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
                    return read_answer(line, moves, canon_of(document, seat))
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
    :class:`dorf.server.round.session.BotCommands`): a check of a ``cmd:`` spec and a :class:`Bot`
    for a computer seat, with one clock for every decision (and ``limits``, by default those of
    the clock)."""

    def __init__(
        self,
        seconds: float = DEFAULT_SECONDS,
        log: Callable[[str], None] = _stderr,
        limits: Limits | None = None,
    ) -> None:
        self.seconds = seconds
        self.log = log
        self.limits = limits

    def check(self, spec: str) -> None:
        command_argv(spec)

    def make(
        self, spec: str, mode: str, seat: int, seed: int, log: Callable[[str], None] | None = None
    ) -> Bot:
        return Bot(
            spec,
            mode=mode,
            seat=seat,
            seed=seed,
            seconds=self.seconds,
            log=log or self.log,
            limits=self.limits,
        )
