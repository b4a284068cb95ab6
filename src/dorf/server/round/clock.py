"""A game's clock (the Duel and Head to Head): pure, no asyncio, time handed in as ``now``.

Two kinds (:func:`parse_clock`):

- **real time** ``"M+S"``: M minutes for each seat (1 to 180), and S seconds (0
  to 180) added after each of the seat's decisions;
- **correspondence** ``"Nd"``: N days (1, 3 or 7) for each decision: a seat's
  time is N days again after each of its decisions.

A seat's clock runs while it owes a decision (the seats the session is
``waiting()`` for): where the rules have both seats place at once (the Duel's
placements, Head to Head's laying phase) both clocks run together.  The clock
starts once every seat is held (an online seat taken).  A seat's first
decision is not charged: instead it must come within :data:`ABORT_AFTER`
seconds of the seat starting to owe it (a day in correspondence), else the game
is aborted; after that, a seat whose time runs out loses on time.

>>> clock = parse_clock("3+2")
>>> clock.start(1000.0, (0, 1))
>>> clock.due(1029.0), clock.due(1030.0)
(None, ('aborted', 0))
>>> clock.decided(0, 1010.0, (1,)); clock.decided(1, 1012.0, (0, 1))
>>> clock.decided(0, 1042.0, (1,))  # 30 s charged, 2 s added
>>> clock.remaining(0, 1042.0), clock.remaining(1, 1042.0)
(154.0, 152.0)
>>> clock.deadline(), clock.due(1194.0)
(1194.0, ('time', 1))
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from typing import Any

from dorf.games.modes import MODES
from dorf.server.protocol.messages import ProtocolError

#: Seconds a seat has for its first decision before the game is aborted: real time, and
#: correspondence (a day).
ABORT_AFTER, ABORT_AFTER_DAYS = 30.0, 86_400.0
#: When a clock is low (the page warns): 10 s, or an hour in correspondence.
LOW, LOW_DAYS = 10.0, 3_600.0
#: What :func:`parse_clock` takes, and the page offers.
REAL_TIME = re.compile(r"([0-9]{1,3})\+([0-9]{1,3})")
DAYS = re.compile(r"([0-9]{1,2})d")
CORRESPONDENCE_DAYS = (1, 3, 7)
OFFERED = ("3+2", "5+3", "10+5", "15+10", "1d", "3d", "7d")
#: What a clock's end is called: a seat out of time, a first decision never made.
TIME, ABORTED = "time", "aborted"


@dataclass(frozen=True)
class ClockSpec:
    """A clock as chosen: its text, the seconds each seat starts with, the seconds added after
    each decision, and for correspondence the days per decision."""

    text: str
    initial: float
    increment: float
    days: int | None = None

    @property
    def abort_after(self) -> float:
        return ABORT_AFTER if self.days is None else ABORT_AFTER_DAYS

    @property
    def low(self) -> float:
        return LOW if self.days is None else LOW_DAYS


def parse_spec(text: Any) -> ClockSpec | None:
    """The clock ``text`` names (None: no clock); ProtocolError ``bad-message`` for another.

    >>> parse_spec("5+3"), parse_spec("3d").days, parse_spec(None)
    (ClockSpec(text='5+3', initial=300.0, increment=3.0, days=None), 3, None)
    >>> parse_spec("2d")
    Traceback (most recent call last):
    dorf.server.protocol.messages.ProtocolError: unknown clock '2d': correspondence is 1d, 3d or 7d
    """
    if text is None or text == "" or text == "none":
        return None
    if not isinstance(text, str):
        raise ProtocolError("bad-message", "clock must be text such as 5+3 or 3d (or null: no clock)")
    real = REAL_TIME.fullmatch(text)
    if real:
        minutes, seconds = int(real[1]), int(real[2])
        if not 1 <= minutes <= 180 or not 0 <= seconds <= 180:
            raise ProtocolError(
                "bad-message",
                f"unknown clock {text[:20]!r}: M+S has 1 to 180 minutes and 0 to 180 seconds added",
            )
        return ClockSpec(f"{minutes}+{seconds}", minutes * 60.0, float(seconds))
    days = DAYS.fullmatch(text)
    if days:
        count = int(days[1])
        if count not in CORRESPONDENCE_DAYS:
            raise ProtocolError("bad-message", f"unknown clock {text[:20]!r}: correspondence is 1d, 3d or 7d")
        return ClockSpec(f"{count}d", count * 86_400.0, 0.0, count)
    raise ProtocolError(
        "bad-message",
        f"unknown clock {text[:20]!r}: real time is M+S (minutes, seconds added: 5+3),"
        " correspondence Nd (days per decision: 1d, 3d, 7d)",
    )


def versus(mode: str) -> bool:
    """Whether ``mode`` is a game of two sides (the Duel, Head to Head): one that may have a
    clock, and that a seat may resign.

    >>> versus("duel"), versus("coop")
    (True, False)
    """
    found = MODES.get(mode)
    return found is not None and found.players == (2, 2)


def parse_clock(text: Any, seats: int = 2) -> Clock | None:
    """A new game's clock (not started) from its text, or None for no clock."""
    spec = parse_spec(text)
    return None if spec is None else Clock(spec, seats)


@dataclass
class Clock:
    """The time of each seat of one game (see the module); times in seconds since 1970."""

    spec: ClockSpec
    seats: int = 2
    #: Each seat's time left, as of when its clock last started running (or stopped).
    left: list[float] = field(default_factory=list)
    #: Since when each seat's clock runs (None: it does not).
    since: list[float | None] = field(default_factory=list)
    #: Whether each seat has made its first decision.
    moved: list[bool] = field(default_factory=list)
    #: Whether the clock has started (every seat held); when it last changed.
    started: bool = False
    at: float = 0.0

    def __post_init__(self) -> None:
        if not self.left:
            self.left = [self.spec.initial] * self.seats
            self.since = [None] * self.seats
            self.moved = [False] * self.seats

    # --- who runs --------------------------------------------------------------------

    def running(self) -> list[int]:
        """The seats whose clocks run now."""
        return [seat for seat, since in enumerate(self.since) if since is not None]

    def start(self, now: float, waiting: tuple[int, ...]) -> None:
        """Every seat is held: the seats that owe a decision start to run."""
        if not self.started:
            self.started = True
            self.settle(now, waiting)

    def settle(self, now: float, waiting: tuple[int, ...]) -> None:
        """The seats in ``waiting`` owe a decision: theirs run (from now, if they did not), the
        others' do not."""
        self.at = now
        if not self.started:
            return
        for seat in range(self.seats):
            if seat in waiting and self.since[seat] is None:
                self.since[seat] = now
            elif seat not in waiting and self.since[seat] is not None:
                self._stop(seat, now)

    def _stop(self, seat: int, now: float) -> None:
        since = self.since[seat]
        if since is not None and self.moved[seat]:
            self.left[seat] = max(0.0, self.left[seat] - (now - since))
        self.since[seat] = None

    def decided(self, seat: int, now: float, waiting: tuple[int, ...]) -> None:
        """``seat`` made a decision at ``now`` (not out of time: see :meth:`due`); the session now
        waits for ``waiting``."""
        if self.started:
            self._stop(seat, now)
            self.left[seat] = self.spec.initial if self.spec.days is not None else self.left[seat]
            self.left[seat] += self.spec.increment
            self.moved[seat] = True
        self.settle(now, waiting)

    def stopped(self, now: float) -> Clock:
        """A copy of the clock with every seat stopped at ``now`` (the game is over)."""
        out = self.copy()
        for seat in out.running():
            out._stop(seat, now)
        out.at = now
        return out

    def copy(self) -> Clock:
        return Clock(
            self.spec, self.seats, list(self.left), list(self.since), list(self.moved), self.started, self.at
        )

    # --- deadlines -------------------------------------------------------------------

    def remaining(self, seat: int, now: float) -> float:
        """``seat``'s time left at ``now`` (its first decision aside: that is not charged)."""
        since = self.since[seat]
        if since is None or not self.moved[seat]:
            return self.left[seat]
        return max(0.0, self.left[seat] - (now - since))

    def deadline_of(self, seat: int) -> float | None:
        """When ``seat`` runs out (of time, or of the window for its first decision)."""
        since = self.since[seat]
        if since is None:
            return None
        return since + (self.left[seat] if self.moved[seat] else self.spec.abort_after)

    def deadline(self) -> float | None:
        """The earliest deadline of the running seats (None: none runs)."""
        deadlines = [d for d in map(self.deadline_of, range(self.seats)) if d is not None]
        return min(deadlines) if deadlines else None

    def due(self, now: float) -> tuple[str, int] | None:
        """What ends the game at ``now``, if anything: ``("time", seat)`` (it lost on time) or
        ``("aborted", seat)`` (its first decision never came); the earliest first."""
        found: tuple[float, str, int] | None = None
        for seat in range(self.seats):
            deadline = self.deadline_of(seat)
            if deadline is not None and deadline <= now and (found is None or deadline < found[0]):
                found = (deadline, TIME if self.moved[seat] else ABORTED, seat)
        return None if found is None else (found[1], found[2])

    # --- stored, and shown ---------------------------------------------------------------

    def stored(self) -> str:
        """The clock's state as stored with each change (:meth:`restore` reads it)."""
        return json.dumps(
            {
                "left": self.left,
                "since": self.since,
                "moved": self.moved,
                "started": self.started,
                "at": self.at,
            },
            separators=(",", ":"),
        )

    @classmethod
    def restore(cls, text: str, state: str | None, seats: int = 2) -> Clock:
        """The clock ``text`` in the state :meth:`stored` wrote (None: as new); ValueError if the
        state cannot be read."""
        spec = parse_spec(text)
        if spec is None:
            raise ValueError(f"{text!r} is no clock")
        clock = cls(spec, seats)
        if state is None:
            return clock
        data = json.loads(state)
        left = [float(x) for x in data["left"]]
        since = [None if x is None else float(x) for x in data["since"]]
        moved = [bool(x) for x in data["moved"]]
        if not len(left) == len(since) == len(moved) == seats:
            raise ValueError("the clock's state has another number of seats")
        return cls(spec, seats, left, since, moved, bool(data["started"]), float(data["at"]))

    def json(self) -> dict[str, Any]:
        """The clock as the page shows it: each seat's time left in ms as of ``at`` (the server's
        time of the last change, ms since 1970), which seats run, and for a seat whose first
        decision is awaited, when the game is aborted without it (``abort_at``, ms)."""
        spec = self.spec
        at = self.at
        running = self.running()
        charged = [s for s in running if self.moved[s]]
        return {
            "clock": spec.text,
            "initial": round(spec.initial * 1000),
            "increment": round(spec.increment * 1000),
            "days": spec.days,
            "started": self.started,
            "remaining": [round(self.remaining(s, at) * 1000) for s in range(self.seats)],
            "running": charged,
            "abort_at": [
                round((self.deadline_of(s) or 0.0) * 1000) if s in running and not self.moved[s] else None
                for s in range(self.seats)
            ],
            "at": round(at * 1000),
            "low": round(spec.low * 1000),
        }
