"""The supervisor of one program (Linux): it runs the program, and ends it and all it started.

``python -I -S supervisor.py LIFELINE CPU MEMORY PROCESSES FILE_SIZE -- PROGRAM [ARGS...]``

:mod:`dorf.bots.process` starts this file in place of a program, with the program's standard
input and output, in a session of its own.  It makes itself a child subreaper
(``prctl(PR_SET_CHILD_SUBREAPER)``), so that every process the program starts stays below it
even once orphaned (a child that calls ``setsid()``, a double fork: they are reparented to it,
not to init), then starts the program in a process group of its own with its limits
(``setrlimit``: ``CPU`` seconds of processor time, ``MEMORY`` bytes of address space and
``FILE_SIZE`` bytes of a file written, for each process; for a user other than root
``RLIMIT_NPROC`` too, the user's tasks at start plus :data:`NPROC_ROOM`, as a backstop) and
watches, five times a second, how many processes run below it (at most ``PROCESSES``, the
program's own included).  When the program exits, goes over a limit, or dorf asks (SIGTERM, or
its end of the socket ``LIFELINE`` closes: dorf stopped or died) it kills every process below it,
whatever their session or group, and exits as the program did.  Why it stopped the program, if it
did, it writes on ``LIFELINE`` (one line: ``it ran 70 processes at once, over its limit of
64``).

This is a file run on its own, not a module of dorf: the standard library only, started with
``-I -S`` (no site packages) to start quickly.
"""

from __future__ import annotations

import contextlib
import ctypes
import os
import resource
import select
import signal
import socket
import sys
import time
from collections.abc import Sequence

PR_SET_PDEATHSIG = 1
PR_SET_CHILD_SUBREAPER = 36
#: How often the processes are counted, in seconds (only when a process was made since).
TICK = 0.2
#: How long ending everything may take, in seconds.
SWEEP = 5.0
#: ``RLIMIT_NPROC``: the user's tasks (processes and threads) at start plus this many.
NPROC_ROOM = 2048
#: The signals this supervisor handles (and the program gets back at their default).
HANDLED = (signal.SIGTERM, signal.SIGINT, signal.SIGHUP, signal.SIGCHLD)


def _prctl(option: int, value: int) -> None:
    libc = ctypes.CDLL(None, use_errno=True)
    if libc.prctl(option, value, 0, 0, 0) != 0:
        number = ctypes.get_errno()
        raise OSError(number, os.strerror(number))


def parents() -> dict[int, int]:
    """Every process's parent, zombies left out, read from ``/proc``."""
    found: dict[int, int] = {}
    for entry in os.scandir("/proc"):
        if entry.name.isdigit():
            try:
                with open(f"/proc/{entry.name}/stat", "rb") as handle:
                    stat = handle.read()
            except OSError:
                continue
            state, parent = stat[stat.rindex(b")") + 2 :].split(None, 2)[:2]
            if state != b"Z":
                found[int(entry.name)] = int(parent)
    return found


def descendants(pid: int) -> list[int]:
    """The processes below ``pid`` (its children, theirs, ...), zombies left out."""
    children: dict[int, list[int]] = {}
    for child, parent in parents().items():
        children.setdefault(parent, []).append(child)
    found, todo = [], [pid]
    while todo:
        for child in children.get(todo.pop(), ()):
            found.append(child)
            todo.append(child)
    return found


def _last_pid() -> bytes:
    """The last process id given out (the fifth field of ``/proc/loadavg``): unchanged, no
    process was made since."""
    with open("/proc/loadavg", "rb") as handle:
        return handle.read().rsplit(None, 1)[-1]


def _user_tasks(uid: int) -> int:
    """The tasks (processes and threads) of the real user ``uid``, as ``RLIMIT_NPROC`` counts."""
    count = 0
    for entry in os.scandir("/proc"):
        if entry.name.isdigit():
            with contextlib.suppress(OSError, ValueError, IndexError):
                with open(f"/proc/{entry.name}/status", encoding="ascii", errors="replace") as handle:
                    fields = dict(line.split(":", 1) for line in handle if ":" in line)
                if int(fields["Uid"].split()[0]) == uid:
                    count += int(fields["Threads"])
    return count


def _lower(limit: int, soft: int, hard: int) -> None:
    """Set ``limit`` to ``soft`` and ``hard``, or to the hard limit already lower."""
    _, now = resource.getrlimit(limit)
    if now != resource.RLIM_INFINITY:
        soft, hard = min(soft, now), min(hard, now)
    resource.setrlimit(limit, (soft, hard))


def _exec(program: Sequence[str], limits: Sequence[tuple[int, int, int]], supervisor: int) -> None:
    """In the child: a process group of its own, killed if the supervisor dies, the limits, the
    signals at their default, then the program."""
    os.setpgid(0, 0)
    _prctl(PR_SET_PDEATHSIG, signal.SIGKILL)
    if os.getppid() != supervisor:
        os._exit(1)
    for limit, soft, hard in limits:
        _lower(limit, soft, hard)
    signal.set_wakeup_fd(-1)
    for number in (*HANDLED, signal.SIGPIPE, signal.SIGXFSZ):
        signal.signal(number, signal.SIG_DFL)
    os.execvp(program[0], list(program))


def start(program: Sequence[str], limits: Sequence[tuple[int, int, int]]) -> int:
    """Fork and exec the program; its pid (OSError, the reason, if it cannot be started)."""
    errors, writer = os.pipe()  # closed on exec: empty if the program started
    supervisor = os.getpid()
    pid = os.fork()
    if pid == 0:
        try:
            os.close(errors)
            _exec(program, limits, supervisor)
        except BaseException as exc:  # the child never returns
            message = exc.strerror if isinstance(exc, OSError) and exc.strerror else str(exc)
            os.write(writer, message.encode(errors="replace")[:500])
        os._exit(127)
    os.close(writer)
    with os.fdopen(errors, "rb") as reader:
        said = reader.read()
    if said:
        os.waitpid(pid, 0)
        raise OSError(f"it could not be started: {said.decode(errors='replace')}")
    return pid


class Supervisor:
    """The program's tree: started, watched, swept."""

    def __init__(self, lifeline: socket.socket, cpu: int, processes: int, file_size: int) -> None:
        self.lifeline = lifeline
        self.cpu = cpu
        self.processes = processes
        self.file_size = file_size
        self.pid = 0
        #: The program's wait status once it ended, and the processor time it used.
        self.status: int | None = None
        self.used = 0.0
        self.asked = False

    def reap(self) -> None:
        """Reap every child that ended (the program's status is kept)."""
        while True:
            try:
                pid, status, usage = os.wait4(-1, os.WNOHANG)
            except ChildProcessError:
                return
            if pid == 0:
                return
            if pid == self.pid:
                self.status = status
                self.used = usage.ru_utime + usage.ru_stime

    def over(self) -> str | None:
        """Why the program must stop now, if it must: too many processes."""
        count = len(descendants(os.getpid()))
        if count > self.processes:
            return f"it ran {count} processes at once, over its limit of {self.processes}"
        return None

    def watch(self, wake: int) -> str | None:
        """Until the program ends, goes over a limit or dorf asks: why it is stopped, if it is."""
        seen = b""
        while True:
            self.reap()
            if self.status is not None or self.asked:
                return None
            made = _last_pid()
            if made != seen:
                seen = made
                reason = self.over()
                if reason is not None:
                    return reason
            ready, _, _ = select.select([self.lifeline.fileno(), wake], [], [], TICK)
            if wake in ready:
                with contextlib.suppress(BlockingIOError):
                    os.read(wake, 512)
            if self.lifeline.fileno() in ready:
                try:
                    if not self.lifeline.recv(512):
                        return None  # dorf closed its end, or died
                except BlockingIOError:
                    pass
                except OSError:
                    return None

    def sweep(self) -> None:
        """Kill every process below this one, over and over until none is left (those that were
        forking meanwhile, the orphans reparented here), reaping them."""
        with contextlib.suppress(OSError):
            os.killpg(self.pid, signal.SIGKILL)
        deadline = time.monotonic() + SWEEP
        while time.monotonic() < deadline:
            self.reap()
            left = descendants(os.getpid())
            if not left:
                return
            for pid in left:
                with contextlib.suppress(OSError):
                    os.kill(pid, signal.SIGKILL)
            time.sleep(0.01)

    def limit_reached(self) -> str | None:
        """Which limit of its own ended the program, if one did."""
        if self.status is None or not os.WIFSIGNALED(self.status):
            return None
        number = os.WTERMSIG(self.status)
        if number == signal.SIGXCPU or (number == signal.SIGKILL and self.used >= self.cpu):
            return f"it used up its {self.cpu} s of processor time"
        if number == signal.SIGXFSZ:
            return f"it wrote a file past its limit of {self.file_size} bytes"
        return None


def _exit_as(status: int | None) -> None:
    """Exit as the program did: its exit status, or killed by the same signal."""
    if status is None or os.WIFEXITED(status):
        os._exit(0 if status is None else os.WEXITSTATUS(status))
    number = os.WTERMSIG(status)
    resource.setrlimit(resource.RLIMIT_CORE, (0, 0))
    with contextlib.suppress(OSError, ValueError):  # (SIGKILL's cannot be set)
        signal.signal(number, signal.SIG_DFL)
    os.kill(os.getpid(), number)
    os._exit(128 + number)


def main(argv: list[str]) -> None:
    if len(argv) < 8 or argv[6] != "--":
        print(__doc__.split("\n\n")[1], file=sys.stderr)
        os._exit(2)
    fd, cpu, memory, processes, file_size = (int(x) for x in argv[1:6])
    program = argv[7:]
    os.set_inheritable(fd, False)
    lifeline = socket.socket(fileno=fd)
    lifeline.setblocking(False)
    try:
        _prctl(PR_SET_CHILD_SUBREAPER, 1)
    except OSError as exc:
        print(f"dorf: the bot's processes are not contained: {exc}", file=sys.stderr, flush=True)
    wake, woken = os.pipe()
    os.set_blocking(wake, False)
    os.set_blocking(woken, False)
    signal.set_wakeup_fd(woken)
    supervisor = Supervisor(lifeline, cpu, processes, file_size)

    def asked(number: int, frame: object) -> None:
        supervisor.asked = True

    for number in HANDLED:
        signal.signal(number, asked if number != signal.SIGCHLD else lambda *_: None)
    limits = [
        (resource.RLIMIT_CPU, cpu, cpu + 1),  # SIGXCPU at the limit, SIGKILL a second later
        (resource.RLIMIT_AS, memory, memory),
        (resource.RLIMIT_FSIZE, file_size, file_size),
        (resource.RLIMIT_CORE, 0, 0),
    ]
    if os.getuid() != 0:  # RLIMIT_NPROC does not bind root
        tasks = _user_tasks(os.getuid()) + NPROC_ROOM
        limits.append((resource.RLIMIT_NPROC, tasks, tasks))
    reason: str | None
    try:
        supervisor.pid = start(program, limits)
    except OSError as exc:
        reason = str(exc)
    else:
        with open(os.devnull, "rb") as null:  # only the program holds dorf's pipes
            os.dup2(null.fileno(), 0)
            os.dup2(null.fileno(), 1)
        reason = supervisor.watch(wake)
        supervisor.sweep()
        reason = reason or supervisor.limit_reached()
    if reason:
        with contextlib.suppress(OSError):
            lifeline.setblocking(True)
            lifeline.sendall(reason.encode() + b"\n")
    _exit_as(supervisor.status if supervisor.pid else 127 << 8)


if __name__ == "__main__":
    main(sys.argv)
