"""The leaderboards' benchmark (``python -m dorf.lab.leaderboards``) at a tiny size, on SQLite:
its figures come out, its JSON line parses, and the leaderboards it read list the eligible
players (10 rated games, RD below 110) in rating order, the best of them."""

from __future__ import annotations

import json
import sqlite3
import time
from pathlib import Path

import pytest

from dorf.lab import leaderboards
from dorf.lab.leaderboards import MODES, Options, bench
from dorf.server.players.ratings import grown
from dorf.server.storage.base import StoredRating
from dorf.server.storage.daily import LEADER_GAMES, LEADER_RD


@pytest.mark.slow  # a benchmark run, if a tiny one
def test_the_benchmark_at_a_tiny_size(tmp_path: Path) -> None:
    db = tmp_path / "bench.sqlite3"
    lines: list[str] = []
    options = Options(players=300, results=2000, requests=5, warmup=1, repeats=2, seed=7)
    run = bench(str(db), options, tmp_path, out=lines.append)

    figures = json.loads(lines[-1])
    assert figures == run.figures
    assert figures["db"] == "sqlite" and figures["days"] == 7 and figures["today_results"] == 285
    assert lines[0].startswith("fill: 300 players, 600 ratings, 2000 results over 7 days")
    pages = figures["pages"]
    expected = {
        "daily, new player",
        "daily of yesterday",
        "player page",
        *(f"leaderboard {m}" for m in MODES),
    }
    expected |= {f"daily, {label}" for label in leaderboards.CHOSEN}
    assert set(pages) == expected
    for name, page in pages.items():
        assert 0 < page["p50_ms"] <= page["p99_ms"] <= page["max_ms"], (name, page)
        assert page["server_cpu_ms"] >= 0 and page["others_cpu_pct"] >= 0 and page["bytes"] > 0
        assert any(line.startswith(f"page {name} ") for line in lines), name
    assert {"top 100 of today", "rank near the bottom", "median of today", "leaderboard duel"} <= set(
        figures["queries"]
    )
    assert any("USING INDEX server_rating_leaders" in line for line in lines)
    assert any("USING INDEX server_daily_result_by_score" in line for line in lines)  # the top 100
    assert any("server_daily_score" in line for line in lines)  # ranks and medians: the score counts
    assert figures["worst_p99_ms"] == max(page["p99_ms"] for page in pages.values())

    # The day's top is in score order, ranked; the player near the bottom is counted there.
    top = run.bodies["daily, bottom"]["top"]
    assert [line["score"] for line in top] == sorted((line["score"] for line in top), reverse=True)
    ranks = [line["rank"] for line in top]
    assert ranks[0] == 1 and ranks == sorted(ranks)
    assert run.bodies["daily, bottom"]["attempt"]["rank"] > 250

    when = time.time()
    with sqlite3.connect(db) as conn:
        for mode in MODES:
            listed = run.bodies[f"leaderboard {mode}"]["players"]
            rows = conn.execute(
                "SELECT p.name, r.rating, r.rd, r.volatility, r.games, r.played FROM server_rating r"
                " JOIN server_player p ON p.id = r.player_id WHERE r.mode = ?",
                (mode,),
            ).fetchall()
            stored = {name: StoredRating(mode, *rest) for name, *rest in rows}
            for line in listed:
                rating = stored[line["name"]]
                assert rating.games >= LEADER_GAMES and rating.rd < LEADER_RD, line
                assert line["games"] == rating.games and abs(line["rating"] - rating.rating) < 0.01
            ratings = [line["rating"] for line in listed]
            assert ratings == sorted(ratings, reverse=True)
            eligible = sorted(
                (r.rating, name)
                for name, r in stored.items()
                if r.games >= LEADER_GAMES and grown(r, when).rd < LEADER_RD
            )
            assert len(eligible) > 100 and len(eligible) < len(stored)  # some are left out
            assert [line["name"] for line in listed] == [name for _, name in reversed(eligible[-100:])]
