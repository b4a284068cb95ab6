"""Computer seats think in a bounded pool of workers, fairly shared between games.

:class:`ThinkPool` runs :func:`dorf.server.computer.thinking.think` for the games of the
server on a fixed number of workers, and the other jobs too heavy for the event
loop (:func:`run_job`): the coach's hints (:func:`dorf.server.computer.hints.hint_for`,
about a second of CPU) and the replay viewer's steps of a record
(:func:`dorf.server.computer.replay.replay_steps`).  Each job has its time cap; hints
and replays each queue as one more "game" (``run(HINTS, ...)``), so they take
their fair share of the workers next to the computer seats:

- **processes** (``workers > 0``): each worker is ``python -m
  dorf.server.computer.pool``, fed one job a line on its standard input (JSON) and
  answering on its standard output.  A worker that runs over the time cap is
  killed and replaced, so the cap holds whatever the player does; a worker
  whose server is gone (its input closed, or its parent process changed,
  checked twice a second) exits at once, even in the middle of a search;
- **threads** (``workers == 0``): two threads of the server process, for tests
  and small machines.  A thread cannot be stopped: past the cap its answer is
  dropped, and its slot stays taken until it finishes.

The queue is fair between games: a free worker takes the waiting job of the
game that has used the workers least (each game's worker seconds, a running
job counted from its start; a game coming back after a pause starts no more
than one time cap behind the busiest ones).  A game of six strong computers thus cannot hold back another
game's quick move for longer than one move of the cap.

The coach's lessons after a game (queues whose name starts with :data:`LESSONS`) wait behind
everything else: a free worker takes a lessons job only when no computer move, hint, replay or
daily expert move waits, and lessons jobs hold at most all workers but one (:meth:`ThinkPool.lane`;
one worker: that one).  A lessons request is cut into jobs of about a second each
(:mod:`dorf.server.computer.lessons`), so a move or a hint asked while one runs waits for one
such job at most, never for the whole lessons.  Every player's
budget is cut to half the cap (``search:10s`` thinks 1 s with the default cap
of 2 s); :meth:`ThinkPool.cancel` drops a game's waiting jobs
and stops its running ones (a game that ended, was undone or was left).
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import json
import math
import os
import subprocess
import sys
import threading
import time
from collections import deque
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from typing import Any

from dorf.formats.record import RecordError
from dorf.server.computer.hints import hint_for
from dorf.server.computer.lessons import screen_lessons, weigh_lesson
from dorf.server.computer.replay import replay_steps
from dorf.server.computer.thinking import think

#: A player's budget, as a share of the time cap (the rest covers the replay, the pipe, a busy
#: machine and a search's last round, which may run past its deadline).
BUDGET_SHARE = 0.5
#: Threads that think when the pool has no worker processes.
THREADS = 2
#: How often a worker process checks that its server is still there, in seconds.
WATCH_SECONDS = 0.5
#: The longest line a worker may answer (a replay's steps), in bytes.
MAX_ANSWER = 32 << 20
#: The queues of the coach's hints and of the replays, beside those of the games.
HINTS, REPLAYS = "(hints)", "(replays)"
#: The queues of the coach's lessons after a game (one a request: ``"(lessons) GAME"``, each of the
#: lower priority), and of the daily challenge's expert game.
LESSONS, DAILY = "(lessons)", "(daily)"


def low(queue: str) -> bool:
    """Whether a queue waits behind the others: the coach's lessons."""
    return queue.startswith(LESSONS)


class ThinkError(Exception):
    """A computer player gave no answer: it ran over the time cap, or its worker failed."""


class Overrun(ThinkError):
    """The player ran over the time cap (its worker was stopped)."""


class Refused(ThinkError):
    """The job's input is at fault (``code``: ``bad-record``, a record that does not replay)."""

    def __init__(self, code: str, message: str) -> None:
        super().__init__(message)
        self.code = code
        self.message = message


@dataclass
class _Job:
    #: The game the job is for (the fair queue's key), or :data:`HINTS`, :data:`REPLAYS`.
    game: str
    #: What :func:`run_job` runs: ``think``, ``hint`` or ``replay``.
    kind: str
    args: dict[str, Any]
    #: Its time cap, in seconds.
    cap: float
    future: asyncio.Future[dict[str, Any]]
    order: int


@dataclass
class _Slot:
    """One worker: a process (or a thread) and the job it runs."""

    number: int
    process: asyncio.subprocess.Process | None = None
    #: A worker process starting in place of one that was stopped.
    starting: asyncio.Task[asyncio.subprocess.Process] | None = field(default=None, repr=False)
    job: _Job | None = None
    busy: bool = False
    #: Whether the job it runs (or ran, while still busy) is of a low queue (:func:`low`).
    low: bool = False
    task: asyncio.Task[None] | None = field(default=None, repr=False)


class ThinkPool:
    """``workers`` processes (0: threads) thinking for every game, with a fair queue."""

    def __init__(self, workers: int, max_seconds: float, threads: int = THREADS) -> None:
        self.max_seconds = max_seconds
        self.processes = workers > 0
        self._slots = [_Slot(i) for i in range(workers if workers > 0 else threads)]
        self._threads = None if self.processes else ThreadPoolExecutor(threads, thread_name_prefix="dorf-ai")
        self._waiting: dict[str, deque[_Job]] = {}
        self._used: dict[str, float] = {}
        self._order = itertools.count()
        #: What a job is charged when it starts (its game is charged the real time when it ends).
        self._expected = max_seconds * BUDGET_SHARE
        self._closed = False
        #: Stopped worker processes being waited for, so their pipes close while the loop runs.
        self._reaping: set[asyncio.Task[None]] = set()
        #: What happened, for the log and the tests.
        self.counts = {"jobs": 0, "overruns": 0, "failures": 0, "cancelled": 0, "restarts": 0}
        #: Jobs asked for, by kind (``think``, ``hint``, ``lessons-screen``...).
        self.kinds: dict[str, int] = {}
        #: The last jobs that ended, oldest first: ``(queue, kind)`` (the tests read their order).
        self.ended: deque[tuple[str, str]] = deque(maxlen=100)

    # --- asking ------------------------------------------------------------------------------

    async def think(
        self, game: str, record: dict[str, Any], player: int, spec: str, seed: int
    ) -> dict[str, Any]:
        """The decision of computer ``spec`` for ``player``; raises :class:`ThinkError`, or
        ``CancelledError`` once :meth:`cancel` dropped it."""
        args = {"record": record, "player": player, "spec": spec, "seed": seed}
        args["seconds"] = self.max_seconds * BUDGET_SHARE
        return await self.run(game, "think", args, self.max_seconds)

    async def run(self, game: str, kind: str, args: dict[str, Any], cap: float) -> dict[str, Any]:
        """What :func:`run_job` answers to ``kind`` and ``args``, computed by a worker within
        ``cap`` seconds, in the fair queue of ``game``; raises :class:`ThinkError`
        (:class:`Overrun` past the cap, :class:`Refused` for bad input)."""
        if self._closed:
            raise ThinkError("the server is stopping")
        loop = asyncio.get_running_loop()
        job = _Job(game, kind, args, cap, loop.create_future(), next(self._order))
        if game not in self._waiting:
            self._waiting[game] = deque()
            least = min((self._used[g] for g in self._active() if g in self._used), default=None)
            if least is not None:  # back (or new) after a pause: at most one cap behind the others
                self._used[game] = max(self._used.get(game, -math.inf), least - self.max_seconds)
            else:
                self._used.setdefault(game, 0.0)
        self._waiting[game].append(job)
        self.counts["jobs"] += 1
        self.kinds[kind] = self.kinds.get(kind, 0) + 1
        self._dispatch()
        return await job.future

    def cancel(self, game: str) -> None:
        """Drop the game's waiting jobs and stop its running ones."""
        for job in self._waiting.pop(game, ()):
            job.future.cancel()
            self.counts["cancelled"] += 1
        for slot in self._slots:
            if slot.job is not None and slot.job.game == game:
                slot.job.future.cancel()
                self.counts["cancelled"] += 1
                if slot.process is not None:
                    self._replace(slot)
        if not any(slot.job is not None and slot.job.game == game for slot in self._slots):
            self._used.pop(game, None)

    def waiting(self, game: str | None = None) -> int:
        """Jobs waiting for a worker (of one game, or of all)."""
        if game is not None:
            return len(self._waiting.get(game, ()))
        return sum(len(jobs) for jobs in self._waiting.values())

    def running(self) -> int:
        return sum(1 for slot in self._slots if slot.job is not None)

    @property
    def size(self) -> int:
        """The workers: processes, or threads."""
        return len(self._slots)

    @property
    def lane(self) -> int:
        """The workers the coach's lessons may hold at once: all but one (one worker: that one)."""
        return max(1, len(self._slots) - 1)

    def pids(self) -> list[int]:
        """The worker processes now alive."""
        return [s.process.pid for s in self._slots if s.process is not None and s.process.returncode is None]

    # --- the queue ---------------------------------------------------------------------------

    def _active(self) -> set[str]:
        return set(self._waiting) | {slot.job.game for slot in self._slots if slot.job is not None}

    def _next(self) -> _Job | None:
        """The waiting job of the game that has used the workers least; a lessons job only when
        no other waits, and while the lessons hold fewer than :attr:`lane` workers."""
        best: _Job | None = None
        lessons = sum(1 for slot in self._slots if slot.busy and slot.low) < self.lane
        for game, jobs in self._waiting.items():
            job = jobs[0]
            if low(game) and not lessons:
                continue
            if best is None or (low(game), self._used[game], job.order) < (
                low(best.game),
                self._used[best.game],
                best.order,
            ):
                best = job
        if best is not None:
            jobs = self._waiting[best.game]
            jobs.popleft()
            if not jobs:
                del self._waiting[best.game]
        return best

    def _dispatch(self) -> None:
        for slot in self._slots:
            if self._closed or not self._waiting:
                return
            if slot.busy:
                continue
            job = self._next()
            if job is None:
                return
            if job.future.done():
                continue
            slot.busy = True
            slot.low = low(job.game)
            slot.job = job
            self._used[job.game] += self._expected  # charged now, settled when it ends
            slot.task = asyncio.get_running_loop().create_task(self._run(slot, job))

    async def _run(self, slot: _Slot, job: _Job) -> None:
        started = time.perf_counter()
        try:
            if self.processes:
                answer = await self._in_process(slot, job)
            else:
                answer = await self._in_thread(slot, job)
        except asyncio.CancelledError:
            if not job.future.done():
                job.future.cancel()
        except ThinkError as exc:
            if not job.future.done():
                job.future.set_exception(exc)
        else:
            if not job.future.done():
                job.future.set_result(answer)
        finally:
            elapsed = time.perf_counter() - started
            if job.game in self._used:
                self._used[job.game] += elapsed - self._expected
            self.ended.append((job.game, job.kind))
            slot.job = None
            if self.processes:
                slot.busy = False
            self._dispatch()

    async def _in_thread(self, slot: _Slot, job: _Job) -> dict[str, Any]:
        assert self._threads is not None
        loop = asyncio.get_running_loop()
        running = loop.run_in_executor(self._threads, run_job, job.kind, job.args)

        def free(_: object) -> None:  # the slot is free only when the thread is
            slot.busy = False
            if not self._closed:
                loop.call_soon_threadsafe(self._dispatch)

        running.add_done_callback(free)
        try:
            reply = await asyncio.wait_for(asyncio.shield(running), job.cap)
        except TimeoutError:
            self.counts["overruns"] += 1
            raise Overrun(f"ran over the {job.cap:g} s it may take") from None
        except asyncio.CancelledError:
            raise
        except Exception as exc:
            self.counts["failures"] += 1
            raise ThinkError(f"{type(exc).__name__}: {exc}") from None
        return self._answer(reply)

    def _answer(self, reply: dict[str, Any]) -> dict[str, Any]:
        """The answer in a reply of :func:`run_job`, or the error it reports."""
        if "error" in reply:
            if "code" in reply:
                raise Refused(str(reply["code"]), str(reply["error"]))
            self.counts["failures"] += 1
            raise ThinkError(str(reply["error"]))
        result: dict[str, Any] = reply["ok"]
        return result

    def _replace(self, slot: _Slot) -> None:
        """Stop a slot's worker and start another at once, so that the next job finds it ready."""
        self._stop(slot)
        if not self._closed:
            slot.starting = asyncio.get_running_loop().create_task(_start_worker())
            self.counts["restarts"] += 1

    async def _worker(self, slot: _Slot) -> asyncio.subprocess.Process:
        if slot.starting is not None:
            starting, slot.starting = slot.starting, None
            slot.process = await starting
        if slot.process is None or slot.process.returncode is not None:
            slot.process = await _start_worker()
            self.counts["restarts"] += 1
        return slot.process

    async def _in_process(self, slot: _Slot, job: _Job) -> dict[str, Any]:
        process = await self._worker(slot)
        assert process.stdin is not None and process.stdout is not None
        line = {"kind": job.kind, "args": job.args}
        try:
            process.stdin.write(json.dumps(line, separators=(",", ":")).encode() + b"\n")
            await process.stdin.drain()
            reply = await asyncio.wait_for(process.stdout.readline(), job.cap)
        except TimeoutError:
            self._replace(slot)
            self.counts["overruns"] += 1
            raise Overrun(f"ran over the {job.cap:g} s it may take") from None
        except asyncio.CancelledError:
            self._replace(slot)
            raise
        except (OSError, ValueError) as exc:
            self._replace(slot)
            self.counts["failures"] += 1
            raise ThinkError(f"its worker failed: {exc}") from None
        if not reply:
            if job.future.cancelled():
                raise asyncio.CancelledError
            self._replace(slot)
            self.counts["failures"] += 1
            raise ThinkError("its worker stopped")
        return self._answer(json.loads(reply))

    # --- start and stop ----------------------------------------------------------------------

    def _stop(self, slot: _Slot) -> None:
        """Stop a slot's worker process at once (a new one starts with its next job)."""
        process, slot.process = slot.process, None
        if process is None:
            return
        if process.returncode is None:
            with contextlib.suppress(ProcessLookupError):
                process.kill()
        task = asyncio.get_running_loop().create_task(_reap(process))
        self._reaping.add(task)
        task.add_done_callback(self._reaping.discard)

    async def start(self) -> None:
        """Start the worker processes (threads need nothing)."""
        if self.processes:
            for slot in self._slots:
                slot.process = await _start_worker()

    async def close(self) -> None:
        """Cancel everything and stop the workers."""
        self._closed = True
        for game in list(self._waiting):
            self.cancel(game)
        for slot in self._slots:
            if slot.job is not None:
                slot.job.future.cancel()
            if slot.task is not None:
                slot.task.cancel()
        for slot in self._slots:
            if slot.task is not None:
                with contextlib.suppress(BaseException):
                    await slot.task
            if slot.starting is not None:
                with contextlib.suppress(BaseException):
                    slot.process = await slot.starting
                slot.starting = None
            self._stop(slot)
        with contextlib.suppress(BaseException):
            await asyncio.gather(*self._reaping, return_exceptions=True)
        if self._threads is not None:
            self._threads.shutdown(wait=False, cancel_futures=True)


async def _start_worker() -> asyncio.subprocess.Process:
    return await asyncio.create_subprocess_exec(
        sys.executable,
        "-m",
        "dorf.server.computer.pool",
        str(os.getpid()),
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        limit=MAX_ANSWER,
    )


async def _reap(process: asyncio.subprocess.Process) -> None:
    """Wait for a killed worker to end, then close its pipe to it (not left to the garbage
    collector, which may run after the event loop has closed)."""
    with contextlib.suppress(BaseException):
        await asyncio.wait_for(process.wait(), 5)
    if process.stdin is not None:
        process.stdin.close()


# --- the worker process ----------------------------------------------------------------------


def run_job(kind: str, args: dict[str, Any]) -> dict[str, Any]:
    """One job, as a worker answers it: ``{"ok": answer}`` or ``{"error": why}``, with
    ``"code": "bad-record"`` when a record to replay is at fault.

    >>> run_job("replay", {"record": {"format": "dorf-record/1"}})["code"]
    'bad-record'
    >>> run_job("dance", {})
    {'error': 'no job of kind dance'}
    """
    try:
        if kind == "think":
            answer = think(args["record"], args["player"], args["spec"], args["seed"], args.get("seconds"))
        elif kind == "hint":
            answer = hint_for(args["record"], args["player"], args["seed"], args.get("spec"))
        elif kind == "replay":
            answer = replay_steps(args["record"])
        elif kind == "lessons-screen":
            answer = screen_lessons(args["record"], args["players"], args["spec"], args.get("keep"))
        elif kind == "lessons-weigh":
            answer = weigh_lesson(args["record"], args["decision"], args["spec"])
        else:
            return {"error": f"no job of kind {kind}"}
    except Exception as exc:  # reported to the server: a fallback move, or an error answer
        if kind == "replay" or isinstance(exc, RecordError):  # a record sent by a client
            why = str(exc) if isinstance(exc, RecordError) else f"{type(exc).__name__}: {exc}"
            return {"error": f"the record does not replay: {why}", "code": "bad-record"}
        return {"error": f"{type(exc).__name__}: {exc}"}
    return {"ok": answer}


def _watch_parent(parent: int) -> None:
    """Exit the moment the server process is gone (this process is then adopted by another)."""
    while True:
        if os.getppid() != parent:
            os._exit(0)
        time.sleep(WATCH_SECONDS)


def worker_main(parent: int) -> int:
    """A worker: one job a line on stdin, one answer a line on stdout, until stdin closes."""
    threading.Thread(target=_watch_parent, args=(parent,), daemon=True).start()
    for line in sys.stdin.buffer:
        try:
            job = json.loads(line)
            answer = run_job(str(job["kind"]), job["args"])
        except Exception as exc:  # a line that is not a job
            answer = {"error": f"{type(exc).__name__}: {exc}"}
        sys.stdout.write(json.dumps(answer, separators=(",", ":")) + "\n")
        sys.stdout.flush()
    return 0


if __name__ == "__main__":
    sys.exit(worker_main(int(sys.argv[1])))
