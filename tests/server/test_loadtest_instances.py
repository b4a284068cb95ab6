"""The load benchmark on several ``dorf serve`` instances sharing one real PostgreSQL database
(``python -m dorf.lab.loadtest --db URL --instances N``): a game's two clients on different
instances, every move with a key, and the database read at the end for moves acknowledged but
not stored (lost) or stored twice (duplicate).  With ``--kill-one-after`` one instance dies by
SIGKILL in the middle of the play: its clients go on on another one, sending the move they had
in flight again with the same key, and still nothing is lost or made twice."""

from __future__ import annotations

import json
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import psycopg
import pytest

from dorf.lab import loadtest

pytestmark = pytest.mark.slow  # real server processes, as the benchmark runs them


def bench(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, list[dict[str, Any]], str]:
    """Run the benchmark in this process (in a thread of its own: an earlier test of this worker
    may have left an event loop set in the main thread): its exit code, its JSON lines, and all
    it printed."""
    with ThreadPoolExecutor(1) as pool:
        code = pool.submit(loadtest.main, list(argv)).result()
    out = capsys.readouterr().out
    return code, [json.loads(line) for line in out.splitlines() if line.startswith("{")], out


def run_databases(url: str) -> list[str]:
    with psycopg.connect(url) as conn:
        rows = conn.execute("SELECT datname FROM pg_database WHERE datname LIKE 'dorf_load_%'").fetchall()
    return [name for (name,) in rows]


def test_one_and_two_instances_compared(pg_url: str, capsys: pytest.CaptureFixture[str]) -> None:
    before = run_databases(pg_url)
    code, results, out = bench(
        capsys,
        *("--db", pg_url, "--instances", "1,2", "--games", "2", "--clients", "4", "--seconds", "0.5"),
    )
    assert code == 0, out
    assert [r["instances"] for r in results] == [1, 2]
    for result in results:
        assert result["moves"] > 0, out
        assert result["moves_per_s"] > 0
        assert result["errors"] == 0, out
        assert result["lost_moves"] == 0, out
        assert result["duplicate_moves"] == 0, out
        assert result["reconnects"] == 0
        assert result["server_cpu_s"] > 0
        # the other seat's moves reach each client through the database: as deltas
        assert result["deltas_received"] > 0
    assert f"instances 2 vs 1: moves/s {results[1]['moves_per_s']} / {results[0]['moves_per_s']} = " in out
    assert run_databases(pg_url) == before  # each run's own database is dropped after it


def test_an_instance_killed(pg_url: str, capsys: pytest.CaptureFixture[str]) -> None:
    # Thinking a little (0.03 s a move on average, some 80 moves a game: over 2 s whatever the
    # machine) keeps every game going until the kill at 1 s, and after it.  Two games, each with a
    # client on the instance killed.
    code, results, out = bench(
        capsys,
        *("--db", pg_url, "--instances", "2", "--kill-one-after", "1", "--think", "0.03", "--repeat-last"),
        *("--games", "2", "--clients", "4", "--seconds", "2.5"),
    )
    [result] = results
    assert result["killed_after_s"] == 1
    assert result["reconnects"] > 0, out
    assert result["lost_moves"] == 0, out
    assert result["duplicate_moves"] == 0, out
    assert result["moves_after_reconnect"] > 0, out  # the clients of the killed one played on
    # each client that connected again sent its last acknowledged move once more, with its key:
    # answered ok "again" (made before, on the killed instance or this one), not made twice
    assert result["repeated"] > 0, out
    assert result["acknowledged_again"] >= result["repeated"], out
    assert result["errors"] == 0, out
    assert code == 0, out
