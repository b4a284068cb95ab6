"""The pairing benchmark (``python -m dorf.lab.pairing``) runs: real ``dorf serve`` processes, real
websockets, every seek paired, its figures printed as one JSON line (the figures themselves are
measured by the command, not asserted here)."""

from __future__ import annotations

import json

import pytest

from dorf.lab import pairing


@pytest.mark.slow
def test_the_pairing_benchmark_pairs_every_player_on_sqlite(capsys: pytest.CaptureFixture[str]) -> None:
    assert pairing.main(["--players", "8"]) == 0
    result = json.loads(capsys.readouterr().out.strip().splitlines()[-1])
    assert result["players"] == result["paired"] == 8 and result["db"] == "sqlite"
    assert 0 < result["p50_ms"] <= result["p90_ms"] <= result["p99_ms"] <= result["max_ms"]


def test_the_pairing_benchmark_pairs_across_two_servers(
    pg_url: str, capsys: pytest.CaptureFixture[str]
) -> None:
    assert pairing.main(["--players", "4", "--db", pg_url, "--instances", "2"]) == 0
    result = json.loads(capsys.readouterr().out.strip().splitlines()[-1])
    assert result["paired"] == 4 and result["instances"] == 2 and result["db"] == "postgresql"


def test_the_pairing_benchmark_refuses_what_it_cannot_measure(capsys: pytest.CaptureFixture[str]) -> None:
    for argv in (["--players", "7"], ["--instances", "2"]):
        with pytest.raises(SystemExit):
            pairing.main(argv)
