"""The coach's lessons hold the doors (issue 60, item 5): a finished game's lessons are computed once
and kept in the database (a second request, or another server, reads them); a computation is one at
a time from an address and from a player (429 busy); and in the think pool the lessons' steps wait
behind computer moves and hints, holding at most all workers but one.  The coach is a quick
planner here (``planner:1``), so each game's lessons take about a second."""

from __future__ import annotations

import asyncio
import random
import sqlite3
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient
from test_server_helpers import Json, create, play_out, run_async, served, socket

from dorf.formats.record import record_of
from dorf.games.modes import MODES
from dorf.players import make_player
from dorf.server.computer.lessons import lessons_for
from dorf.server.computer.pool import HINTS, LESSONS, ThinkPool

QUICK = {"daily_coach": "planner:1"}


@pytest.fixture
def app_client(tmp_path: Path) -> Iterator[TestClient]:
    with served(tmp_path / "dorf.sqlite3", **QUICK) as client:
        yield client


def at(client: TestClient, address: str) -> TestClient:
    """Another browser on the same app, from ``address``."""
    other = TestClient(client.app, client=(address, 1))
    other.portal = client.portal
    return other


def become_player(client: TestClient) -> None:
    """Make the browser a player (``POST /api/me``; before issue 60 ``GET /api/me`` did)."""
    if client.post("/api/me", json={}).status_code not in (200, 201):
        client.get("/api/me")


def finished_game(client: TestClient, seed: int) -> Json:
    """A solo game the client created, played to its end with random moves."""
    made = create(client, "coop", seed=seed)
    with socket(client, made["id"], [made["tokens"]["0"]]) as sock:
        final = play_out(sock, [0], random.Random(seed))
    assert final["game"]["over"]
    return made


def ask(client: TestClient, made: Json) -> Any:
    return client.post(f"/api/games/{made['id']}/lessons", json={"token": made["tokens"]["0"]})


def screens(client: TestClient) -> int:
    """The lessons computed by the app's think pool so far (each starts with one quick look)."""
    pool = client.app.state.hub.pool  # type: ignore[attr-defined]
    return int(pool.kinds.get("lessons-screen", 0))


@pytest.mark.slow
def test_lessons_are_computed_once_and_kept_for_a_second_request_and_another_server(
    tmp_path: Path,
) -> None:
    db = tmp_path / "dorf.sqlite3"
    with served(db, **QUICK) as ann:
        made = finished_game(ann, 5)
        first = ask(ann, made)
        assert first.status_code == 200, first.text
        assert screens(ann) == 1
        again = ask(ann, made)
        assert again.status_code == 200 and again.json() == first.json()
        assert screens(ann) == 1  # read from the storage, not computed again
    with sqlite3.connect(db) as conn:
        rows = conn.execute("SELECT game_id, seats FROM server_lessons").fetchall()
    assert rows == [(made["id"], "0")]
    with served(db, **QUICK) as other:  # another server on the same database (or after a restart)
        assert ask(other, made).json() == first.json()
        assert screens(other) == 0


def test_two_servers_on_postgresql_compute_a_games_lessons_once(
    pg_url: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("DORF_DB", str(tmp_path / "campaigns.sqlite3"))
    with served(pg_url, **QUICK) as one, served(pg_url, **QUICK) as two:
        made = finished_game(one, 7)
        first = ask(one, made)
        assert first.status_code == 200, first.text
        assert ask(two, made).json() == first.json()
        assert (screens(one), screens(two)) == (1, 0)


@pytest.mark.slow
def test_a_second_lessons_computation_from_one_address_is_refused_busy(app_client: TestClient) -> None:
    games = [finished_game(app_client, seed) for seed in (2, 3)]
    # Two games' lessons asked at once from one address: one is computed, the other refused.
    with ThreadPoolExecutor(2) as threads:
        answers = list(threads.map(lambda made: ask(at(app_client, "10.0.0.1"), made), games))
    statuses = sorted(a.status_code for a in answers)
    assert statuses == [200, 429], [a.text for a in answers]
    refused = next(a for a in answers if a.status_code == 429).json()["error"]
    assert (
        refused["code"] == "busy" and "one lessons request at a time from one address" in refused["message"]
    )
    # Asked again once the first is answered, it is computed.
    late = games[[a.status_code for a in answers].index(429)]
    assert ask(at(app_client, "10.0.0.1"), late).status_code == 200


@pytest.mark.slow
def test_a_second_lessons_computation_of_one_player_is_refused_busy(app_client: TestClient) -> None:
    become_player(app_client)  # the player holds both games' seats (its cookie)
    games = [finished_game(app_client, seed) for seed in (2, 3)]
    browsers = [at(app_client, "10.0.0.2"), at(app_client, "10.0.0.3")]
    for browser in browsers:
        browser.cookies = app_client.cookies
    with ThreadPoolExecutor(2) as threads:
        answers = list(threads.map(ask, browsers, games))
    assert sorted(a.status_code for a in answers) == [200, 429], [a.text for a in answers]
    refused = next(a for a in answers if a.status_code == 429).json()["error"]
    assert refused["code"] == "busy" and "from one player" in refused["message"]


def _record(seed: int) -> dict[str, Any]:
    state = MODES["coop"].new(seed)
    greedy = make_player("greedy", seed)
    while state.to_move():
        state.apply(greedy.choose(state.view(0)), 0)
    return record_of(state, ["Ann"])


@pytest.mark.slow
def test_computer_moves_and_hints_go_ahead_of_the_lessons_waiting_steps() -> None:
    """One worker: a computer move runs; the lessons' two steps, a hint and another move of the
    same (busy) game wait.  The hint and the move go first, though the game has used the worker
    more than the lessons have (the fair queue alone would take the lessons first)."""
    record = _record(3)
    halfway = {**record, "decisions": record["decisions"][:20]}
    think = {"record": halfway, "player": 0, "spec": "greedy", "seed": 1}
    lessons = {"record": record, "players": [0], "spec": "planner:1"}

    async def run() -> list[tuple[str, str]]:
        pool = ThinkPool(0, 30.0, threads=1)
        try:
            queue = f"{LESSONS} g"
            jobs = [asyncio.ensure_future(pool.run("game", "think", think, 30.0))]
            await asyncio.sleep(0)  # the move takes the worker
            jobs.append(asyncio.ensure_future(pool.run(queue, "lessons-screen", lessons, 30.0)))
            jobs.append(asyncio.ensure_future(pool.run(queue, "lessons-screen", lessons, 30.0)))
            jobs.append(asyncio.ensure_future(pool.run(HINTS, "hint", {**think, "spec": "planner:1"}, 30.0)))
            jobs.append(asyncio.ensure_future(pool.run("game", "think", think, 30.0)))
            await asyncio.gather(*jobs)
            return list(pool.ended)
        finally:
            await pool.close()

    ended = run_async(run)
    assert [kind for _, kind in ended[:3]] in (["think", "hint", "think"], ["think", "think", "hint"])
    assert [kind for _, kind in ended[3:]] == ["lessons-screen", "lessons-screen"]


@pytest.mark.slow
def test_the_lessons_never_hold_every_worker() -> None:
    """Two workers: two lessons' steps wait, one runs; a computer move takes the other at once."""
    record = _record(4)
    lessons = {"record": record, "players": [0], "spec": "planner:1"}
    think = {
        "record": {**record, "decisions": record["decisions"][:10]},
        "player": 0,
        "spec": "greedy",
        "seed": 1,
    }

    async def run() -> tuple[int, int, int]:
        pool = ThinkPool(0, 30.0, threads=2)
        try:
            assert pool.lane == 1
            jobs = [
                asyncio.ensure_future(pool.run(f"{LESSONS} {game}", "lessons-screen", lessons, 30.0))
                for game in ("a", "b")
            ]
            await asyncio.sleep(0)
            held = (pool.running(), pool.waiting())
            jobs.append(asyncio.ensure_future(pool.run("game", "think", think, 30.0)))
            await asyncio.sleep(0)
            running = pool.running()
            await asyncio.gather(*jobs)
            return held[0], held[1], running
        finally:
            await pool.close()

    assert run_async(run) == (1, 1, 2)


@pytest.mark.slow
def test_the_lessons_of_a_game_are_its_costliest_placements_weighed() -> None:
    """The quick look keeps few placements, the coach weighs them: at most three lessons, biggest
    loss first, each a placement of the player with its board and words."""
    record = _record(6)
    found = lessons_for(record, [0], "planner:1")["lessons"]
    assert 1 <= len(found) <= 3
    assert [x["loss"] for x in found] == sorted((x["loss"] for x in found), reverse=True)
    for lesson in found:
        assert lesson["loss"] > 0 and lesson["reasons"] and lesson["played"] != lesson["preferred"]
        assert lesson["text"].startswith(f"Turn {lesson['turn']}:")
