"""A program's process: what a ``cmd:`` spec runs, started contained and within its limits, written
to and read from with a deadline, ended whole.

On Linux each program runs under a supervisor of its own (:mod:`dorf.bots.supervisor`, a small
Python process started with it): a child subreaper, so that whatever the program starts stays
below it (even a child that calls ``setsid()`` or forks twice), which applies the program's
:class:`Limits` and ends every process below it when the program exits, goes over a limit, or is
stopped (:meth:`BotProcess.kill`), and when dorf itself dies (its end of a socket closes).
Elsewhere the program runs in a session of its own, killed by its process group, with no limits.
What this does and does not contain: ``docs/bots.md``, "What a program may do".
"""

from __future__ import annotations

import contextlib
import math
import os
import selectors
import shlex
import shutil
import signal
import socket
import subprocess
import sys
import time
import weakref
from dataclasses import dataclass
from pathlib import Path

from dorf.bots.protocol import DEFAULT_SECONDS, MAX_ANSWER, Lost

#: A player spec that names a program: ``cmd:python my_bot.py``.
PREFIX = "cmd:"
#: Whether programs run under the supervisor (it needs Linux: a subreaper, ``/proc``).
CONTAINED = sys.platform == "linux"
#: The supervisor, run as a file.
SUPERVISOR = Path(__file__).with_name("supervisor.py")


class BotError(ValueError):
    """A ``cmd:`` spec that cannot run (no command, no such program); the message is one line."""


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


@dataclass(frozen=True)
class Limits:
    """What a program may use (under the supervisor): each of its processes, ``cpu_seconds`` of
    processor time (``RLIMIT_CPU``), ``memory`` bytes of address space (``RLIMIT_AS``) and files
    of ``file_size`` bytes at most (``RLIMIT_FSIZE``); ``processes`` at once, the program's own
    and all it started."""

    cpu_seconds: int
    memory: int = 4 << 30
    processes: int = 64
    file_size: int = 64 << 20

    @classmethod
    def for_clock(cls, seconds: float = DEFAULT_SECONDS) -> Limits:
        """The default limits for a decision clock of ``seconds``: processor time for 100 whole
        decisions (more than a seat has in any game), at least 10 s.

        >>> Limits.for_clock(5.0)
        Limits(cpu_seconds=500, memory=4294967296, processes=64, file_size=67108864)
        """
        return cls(cpu_seconds=max(10, math.ceil(100 * seconds)))

    def arguments(self) -> list[str]:
        """The supervisor's arguments after the socket."""
        return [str(x) for x in (self.cpu_seconds, self.memory, self.processes, self.file_size)]


#: The programs running in this process (:func:`exit_now`).
_RUNNING: weakref.WeakSet[subprocess.Popen[bytes]] = weakref.WeakSet()
#: Whether a program is being started, and the status to exit with once it is (:func:`exit_now`).
_starting = False
_exit_status: int | None = None


def _end(process: subprocess.Popen[bytes]) -> None:
    """End a program and all it started: its supervisor is told to (SIGTERM), or its process
    group killed where there is no supervisor."""
    with contextlib.suppress(OSError):
        if not CONTAINED:
            os.killpg(process.pid, signal.SIGKILL)  # even once it exited: its group lives on
        elif process.returncode is None:  # (once reaped, its pid may be another's)
            os.kill(process.pid, signal.SIGTERM)


def _end_all() -> None:
    for process in list(_RUNNING):
        _end(process)


def exit_now(status: int) -> None:
    """End every program this process runs (and what they started) and exit at once: for a signal
    handler (a worker of ``dorf simulate`` terminated on Ctrl-C).  A program being started is
    ended as soon as it is, before the process exits."""
    global _exit_status
    if _starting:
        _exit_status = status
        return
    _end_all()
    os._exit(status)


def _spawn(argv: list[str], limits: Limits) -> tuple[subprocess.Popen[bytes], socket.socket | None]:
    """Start a program (under its supervisor, with the supervisor's end of a socket, where
    :data:`CONTAINED`) in a session of its own, known to :func:`exit_now` at once; the process
    and dorf's end of the socket."""
    global _starting
    _starting = True
    try:
        if not CONTAINED:
            process = subprocess.Popen(
                argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE, start_new_session=True
            )
            _RUNNING.add(process)
            return process, None
        ours, theirs = socket.socketpair()
        with theirs:
            fd = theirs.fileno()
            command = [sys.executable, "-I", "-S", str(SUPERVISOR), str(fd), *limits.arguments(), "--", *argv]
            try:
                process = subprocess.Popen(
                    command,
                    stdin=subprocess.PIPE,
                    stdout=subprocess.PIPE,
                    pass_fds=(fd,),
                    start_new_session=True,
                )
            except BaseException:
                ours.close()
                raise
        _RUNNING.add(process)
        ours.setblocking(False)
        return process, ours
    finally:
        _starting = False
        if _exit_status is not None:  # asked to exit while starting it
            _end_all()
            os._exit(_exit_status)


class BotProcess:
    """A running program: write lines to its input and read lines from its output, each within a
    deadline and without ever blocking past it; :meth:`kill` ends it and everything it started."""

    def __init__(self, argv: list[str], limits: Limits | None = None) -> None:
        try:
            self.process, self.lifeline = _spawn(argv, limits or Limits.for_clock())
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

    def _said(self) -> str:
        """Why the supervisor stopped the program, if it said (one line), else ``""``."""
        if self.lifeline is None:
            return ""
        said = b""
        with contextlib.suppress(OSError):
            while chunk := self.lifeline.recv(4096):
                said += chunk
        return said.decode("utf-8", "replace").strip()

    def gone(self) -> Lost:
        """Why the program no longer answers, as a lost decision."""
        with contextlib.suppress(subprocess.TimeoutExpired):
            self.process.wait(0.5)  # its output closed: it is most likely exiting
        said = self._said()
        if said:
            return Lost(said, stop=True)
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
        and every process it started; never raises."""
        with contextlib.suppress(OSError):
            self.stdin.close()
        if grace > 0:
            with contextlib.suppress(subprocess.TimeoutExpired):
                self.process.wait(grace)
        _end(self.process)  # what it started too, even once it exited
        _RUNNING.discard(self.process)
        try:
            self.process.wait(5)
        except subprocess.TimeoutExpired:  # a supervisor that does not end: killed, with its group
            with contextlib.suppress(OSError):
                os.killpg(self.process.pid, signal.SIGKILL)
            with contextlib.suppress(subprocess.TimeoutExpired):
                self.process.wait(5)
        if self.lifeline is not None:
            self.lifeline.close()
        with contextlib.suppress(OSError):
            self.stdout.close()
        self.readable.close()
        self.writable.close()
