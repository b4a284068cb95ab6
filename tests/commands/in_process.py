"""The ``dorf`` command run in the test's own process, seen as a process is through pipes.

:func:`dorf` calls :func:`dorf.cli.main` with a standard input, output and error of its own (text,
none of them a terminal), in the environment and the folder it is given, and answers what
:func:`subprocess.run` would: the exit code (a ``SystemExit``'s too), the output and the errors.
Starting Python again costs about a second of imports a command; the few tests that show the real
command works as a process pass ``process=True``.  An exception that ``main`` lets through fails
the test with its traceback, where a process would have printed it and exited 1.
"""

from __future__ import annotations

import contextlib
import io
import os
import subprocess
import sys
from collections.abc import Iterator, Mapping
from pathlib import Path

from dorf.cli import main
from repo import SRC

#: The size ``shutil.get_terminal_size`` gives a process whose output is a pipe (its fallback);
#: in the test's process it would read the terminal pytest runs in.
PIPE_SIZE = {"COLUMNS": "100", "LINES": "24"}


def dorf(
    *args: str,
    stdin: str = "",
    cwd: str | Path | None = None,
    env: Mapping[str, str] | None = None,
    process: bool = False,
    timeout: float = 60,
) -> subprocess.CompletedProcess[str]:
    """``dorf ARGS`` with ``stdin`` piped in, in ``env`` (the whole environment; this process's
    if None) and ``cwd``; in a new Python process with ``process``."""
    environ = dict(os.environ if env is None else env)
    if process:
        environ["PYTHONPATH"] = os.pathsep.join(p for p in (str(SRC), environ.get("PYTHONPATH")) if p)
        command = [sys.executable, "-m", "dorf.cli", *args]
        return subprocess.run(
            command, input=stdin, capture_output=True, text=True, cwd=cwd, env=environ, timeout=timeout
        )
    out, err = io.StringIO(), io.StringIO()
    with (
        _environment({**PIPE_SIZE, **environ}),
        _folder(cwd),
        _stdin(stdin),
        contextlib.redirect_stdout(out),
        contextlib.redirect_stderr(err),
    ):
        code = _exit_code(list(args))
    return subprocess.CompletedProcess(["dorf", *args], code, out.getvalue(), err.getvalue())


def _exit_code(args: list[str]) -> int:
    """What the process would exit with: ``main``'s answer, or its ``SystemExit``'s code."""
    try:
        return main(args)
    except SystemExit as exc:
        if exc.code is None or isinstance(exc.code, int):
            return exc.code or 0
        print(exc.code, file=sys.stderr)  # sys.exit("message"), as Python reports it
        return 1


@contextlib.contextmanager
def _environment(environ: Mapping[str, str]) -> Iterator[None]:
    """``os.environ`` is ``environ`` meanwhile (only the variables that differ are touched)."""
    saved = dict(os.environ)
    for name in saved.keys() - environ.keys():
        del os.environ[name]
    os.environ.update({k: v for k, v in environ.items() if saved.get(k) != v})
    try:
        yield
    finally:
        for name in os.environ.keys() - saved.keys():
            del os.environ[name]
        os.environ.update({k: v for k, v in saved.items() if os.environ.get(k) != v})


@contextlib.contextmanager
def _folder(cwd: str | Path | None) -> Iterator[None]:
    if cwd is None:
        yield
        return
    saved = os.getcwd()
    os.chdir(cwd)
    try:
        yield
    finally:
        os.chdir(saved)


@contextlib.contextmanager
def _stdin(text: str) -> Iterator[None]:
    saved = sys.stdin
    sys.stdin = io.StringIO(text)
    try:
        yield
    finally:
        sys.stdin = saved
