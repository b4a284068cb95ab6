"""A real ``dorf serve`` process: its address is announced once it answers, a taken port is one
line, its computer players' workers die with it, ``./run.sh --port P`` serves (issue 13)."""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import pytest

from dorf.testing.net import free_port
from repo import ROOT

pytestmark = [pytest.mark.slow, pytest.mark.skipif(sys.platform != "linux", reason="/proc and SIGKILL")]


def _children(pid: int) -> list[int]:
    found = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                stat = (entry / "stat").read_text()
            except OSError:
                continue
            if int(stat[stat.rindex(")") + 2 :].split()[1]) == pid:
                found.append(int(entry.name))
    return found


def _alive(pid: int) -> bool:
    try:
        status = Path(f"/proc/{pid}/status").read_text()
    except OSError:
        return False
    return "zombie" not in status


def _serve(db: Path, *options: str) -> subprocess.Popen[str]:
    command = [sys.executable, "-m", "dorf.cli", "serve", "--db", str(db), "--log-level", "error", *options]
    return subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


def _announced(process: subprocess.Popen[str]) -> str:
    assert process.stdout is not None
    line = process.stdout.readline()
    assert line.startswith("dorf: playing at http://127.0.0.1:"), line
    return line.split()[3].rstrip("/")


def test_a_taken_port_is_one_line_and_no_announcement(tmp_path: Path) -> None:
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        process = _serve(tmp_path / "dorf.sqlite3", "--port", str(port), "--ai-workers", "0")
        out, err = process.communicate(timeout=60)
    assert process.returncode == 2
    assert out == "" and err.count("\n") == 1 and f"cannot listen on 127.0.0.1:{port}" in err


def test_a_database_in_a_missing_folder_is_refused_in_one_line(tmp_path: Path) -> None:
    missing = tmp_path / "no" / "such" / "dorf.sqlite3"
    process = _serve(missing, "--port", "0")
    out, err = process.communicate(timeout=60)
    assert process.returncode == 2 and out == "" and err.count("\n") == 1 and "no folder" in err
    assert not missing.parent.exists()


def test_the_address_is_announced_once_it_answers_and_the_workers_die_with_the_server(tmp_path: Path) -> None:
    """One server for both (each start imports the whole server): the address it announces
    answers at once, with the page policy; its computer players' workers die with it."""
    process = _serve(tmp_path / "dorf.sqlite3", "--port", "0", "--ai-workers", "2", "--ai-delay", "0")
    try:
        base = _announced(process)
        with urllib.request.urlopen(base + "/api/health", timeout=10) as response:  # at once, no retry
            assert json.loads(response.read())["ok"] is True
        with urllib.request.urlopen(base + "/", timeout=10) as response:  # dorf serve sends the policy
            assert "script-src 'self'" in response.headers["Content-Security-Policy"]
        seats = [{"kind": "computer", "player": "search:10s"}] * 2  # thinking when the server dies
        body = json.dumps({"mode": "duel", "seats": seats}).encode()
        request = urllib.request.Request(base + "/api/games", data=body, method="POST")
        request.add_header("Content-Type", "application/json")
        urllib.request.urlopen(request, timeout=10).close()
        workers = _children(process.pid)
        assert len(workers) >= 2
        time.sleep(0.5)
    finally:
        os.kill(process.pid, signal.SIGKILL)
        process.wait(timeout=10)
    deadline = time.monotonic() + 20
    while any(_alive(pid) for pid in workers):
        assert time.monotonic() < deadline, [pid for pid in workers if _alive(pid)]
        time.sleep(0.1)


def test_run_sh_with_options_only_serves_with_them(tmp_path: Path) -> None:
    port = free_port()
    env = {**os.environ, "DORF_DB": str(tmp_path / "dorf.sqlite3")}
    process = subprocess.Popen(
        ["bash", str(ROOT / "run.sh"), "--port", str(port), "--ai-workers", "0"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=env,
        start_new_session=True,
    )
    try:
        assert process.stdout is not None
        line = process.stdout.readline()
        assert line.startswith(f"dorf: playing at http://127.0.0.1:{port}/"), line + process.stderr.read()
    finally:
        os.killpg(process.pid, signal.SIGTERM)
        process.wait(timeout=30)
