"""Clocks (issue 31): parsing, who runs in each phase of the Duel and Head to Head, increments,
loss on time, aborts, resigning, the end in the state and the record, and clocks resumed after a
restart; on a hub of the server with a time of the test's own (nothing waits real time)."""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator, Callable, Coroutine
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import pytest
from test_server_helpers import run_async

from dorf.server.config import ServerConfig
from dorf.server.hub import Hub
from dorf.server.protocol.messages import Move, ProtocolError
from dorf.server.round.clock import ABORT_AFTER, Clock, parse_clock, parse_spec
from dorf.server.round.events import GameEnded
from dorf.server.round.finisher import Ending
from dorf.server.round.game import Game
from dorf.server.storage import open_storage

HERE2 = [{"kind": "here", "name": "Ann"}, {"kind": "here", "name": "Bob"}]
START = 1_800_000_000.0


class Time:
    """The clocks' time in a test: moved on by hand."""

    def __init__(self) -> None:
        self.now = START

    def __call__(self) -> float:
        return self.now

    def on(self, seconds: float) -> None:
        self.now += seconds


def run(test: Callable[[], Coroutine[Any, Any, None]]) -> None:
    run_async(test)


@asynccontextmanager
async def hub_on(db: Path | str, clock: Time) -> AsyncIterator[Hub]:
    config = ServerConfig(db=db, ai_workers=0, ai_delay=0.0, clock_time=clock)
    storage, bus = open_storage(db, grace=config.storage_grace, lease=config.lease)
    hub = Hub(config, storage, bus)
    await hub.start()
    try:
        yield hub
    finally:
        await hub.close()


def heard(hub: Hub) -> list[tuple[str, Ending]]:
    """What the round tells of each end of a game (``GameEnded``), as it tells it."""
    ends: list[tuple[str, Ending]] = []

    def listen(event: GameEnded) -> None:
        ends.append((event.game.id, event.ending))

    hub.events.subscribe(GameEnded, listen)
    return ends


async def new_game(hub: Hub, mode: str = "duel", clock: str | None = "3+2", **more: Any) -> Game:
    made = await hub.seating.create({"mode": mode, "clock": clock, "seats": HERE2, **more})
    return await hub.playable(made["id"])


async def decide(hub: Hub, game: Game, seat: int) -> None:
    """Make the first legal decision of ``seat``."""
    session = game.session
    decision = session.state.legal_decisions(session.player_of[seat])[0]
    await hub.mover.move(game, Move(seat, decision))


def clock_of(game: Game) -> Clock:
    clock = game.session.clock
    assert clock is not None
    return clock


# --- parsing -------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "initial", "increment", "days"),
    [("3+2", 180, 2, None), ("180+180", 10800, 180, None), ("1+0", 60, 0, None), ("7d", 7 * 86400, 0, 7)],
)
def test_clocks_are_parsed(text: str, initial: float, increment: float, days: int | None) -> None:
    spec = parse_spec(text)
    assert spec is not None and (spec.initial, spec.increment, spec.days) == (initial, increment, days)
    assert spec.text == text
    assert parse_clock(None) is None and parse_clock("") is None


@pytest.mark.parametrize(
    "text",
    ["0+2", "181+0", "5+181", "5", "5+", "+3", "2d", "0d", "10d", "5+3 ", "fast", 5, 5.5, [], {}, True],
)
def test_an_unknown_clock_is_refused_clearly(text: Any) -> None:
    with pytest.raises(ProtocolError) as caught:
        parse_clock(text)
    assert caught.value.code == "bad-message" and caught.value.status == 400
    assert "clock" in caught.value.message and "\n" not in caught.value.message


def test_a_clock_is_for_the_duel_and_head_to_head_only(tmp_path: Path) -> None:
    async def test() -> None:
        async with hub_on(tmp_path / "db.sqlite3", Time()) as hub:
            for body in (
                {"mode": "coop", "clock": "5+3"},
                {"mode": "duel", "clock": "5+3", "practice": True, "seats": HERE2},
                {"mode": "duel", "clock": "9+99+1", "seats": HERE2},
            ):
                with pytest.raises(ProtocolError) as caught:
                    await hub.seating.create(body)
                assert caught.value.code == "bad-message"
            assert hub.games == {}  # nothing was made
            game = await new_game(hub, clock=None)  # no clock: as every game by link so far
            assert game.session.clock is None and game.session.public()["clock"] is None

    run(test)


# --- who runs ------------------------------------------------------------------------------


def test_in_the_duel_both_clocks_run_while_both_place_and_increments_are_added(tmp_path: Path) -> None:
    time = Time()

    async def test() -> None:
        async with hub_on(tmp_path / "db.sqlite3", time) as hub:
            game = await new_game(hub)
            clock = clock_of(game)
            assert clock.running() == [0, 1]  # both place the first tile at once
            described = game.session.public()["clock"]
            assert described["running"] == [] and described["abort_at"] == [1000 * (START + 30)] * 2
            time.on(5)
            await decide(hub, game, 0)  # the first decision: not charged, 2 s added
            assert clock_of(game).running() == [1] and clock_of(game).remaining(0, time()) == 182
            time.on(7)
            await decide(hub, game, 1)
            clock = clock_of(game)
            assert clock.running() == [0, 1] and clock.remaining(1, time()) == 182
            time.on(20)
            assert clock.remaining(0, time()) == 162 and clock.remaining(1, time()) == 162
            await decide(hub, game, 1)  # 20 s charged, 2 added
            clock = clock_of(game)
            assert clock.running() == [0]
            assert clock.remaining(1, time()) == 164 and clock.remaining(0, time()) == 162
            shown = game.session.public()["clock"]
            assert shown["remaining"] == [162_000, 164_000] and shown["running"] == [0]
            assert shown["at"] == round(time() * 1000) and shown["low"] == 10_000
            assert shown["clock"] == "3+2" and shown["increment"] == 2000

    run(test)


def test_in_head_to_head_the_draft_runs_one_clock_and_the_laying_both(tmp_path: Path) -> None:
    time = Time()

    async def test() -> None:
        async with hub_on(tmp_path / "db.sqlite3", time) as hub:
            game = await new_game(hub, "head-to-head", "10+5")
            session = game.session
            seen: set[tuple[str, tuple[int, ...]]] = set()
            while not session.is_over and len(seen) < 3:
                waiting = session.waiting()
                running = tuple(clock_of(game).running())
                assert running == waiting, (session.phase, running, waiting)
                seen.add((session.phase, running))
                time.on(1)
                await decide(hub, game, waiting[0])
            phases = {phase: running for phase, running in seen}
            assert phases["draft"] in ((0,), (1,)) and len(phases["draft"]) == 1
            laying = [running for phase, running in seen if phase != "draft"]
            assert (0, 1) in laying  # both lay at once

    run(test)


def test_correspondence_gives_the_days_again_after_each_decision(tmp_path: Path) -> None:
    time = Time()

    async def test() -> None:
        async with hub_on(tmp_path / "db.sqlite3", time) as hub:
            game = await new_game(hub, clock="1d")
            assert clock_of(game).deadline() == START + 86_400  # a day for the first decision
            await decide(hub, game, 0)
            await decide(hub, game, 1)
            time.on(20 * 3600)
            await decide(hub, game, 0)
            clock = clock_of(game)
            assert clock.remaining(0, time()) == 86_400 and clock.remaining(1, time()) == 4 * 3600
            assert game.session.public()["clock"]["low"] == 3_600_000

    run(test)


# --- the ends ------------------------------------------------------------------------------


@pytest.mark.storage
def test_a_seat_out_of_time_loses_in_the_state_and_the_record(db: Path) -> None:
    time = Time()

    async def test() -> None:
        async with hub_on(db, time) as hub:
            ends = heard(hub)
            game = await new_game(hub, clock="1+0")
            await decide(hub, game, 0)
            await decide(hub, game, 1)
            await decide(hub, game, 0)  # seat 1's clock runs alone: 60 s
            assert len(game.session.public([1])["areas"][0]["tiles"]) == 1  # 0's 2nd tile unseen
            time.on(59.9)
            assert await hub.timers.fire() == 0 and not game.session.is_over
            time.on(0.1)
            assert await hub.timers.fire() == 1
            assert ends == [(game.id, Ending("time", 0, False))]
            state = game.session.public()
            assert state["over"] and state["end"] == "time" and state["winner"] == 0
            assert state["waiting"] == [] and state["clock"]["remaining"][1] == 0
            assert state["clock"]["running"] == []
            assert len(game.session.public([1])["areas"][0]["tiles"]) == 2  # over: all is seen
            record = game.session.record()
            assert record["end"] == "time" and record["winner"] == game.session.player_of[0]
            with pytest.raises(ProtocolError) as caught:
                await decide(hub, game, 1)
            assert caught.value.code == "game-over"
            assert await hub.timers.fire() == 0 and len(ends) == 1  # once
        async with hub_on(db, time) as hub:  # and so it is stored
            again = await hub.playable(game.id)
            state = again.session.public()
            assert state["over"] and state["end"] == "time" and state["winner"] == 0
            assert len(hub.timers) == 0

    run(test)


@pytest.mark.storage
def test_a_move_after_the_deadline_loses_on_time_rather_than_being_made(db: Path) -> None:
    time = Time()

    async def test() -> None:
        async with hub_on(db, time) as hub:
            ends = heard(hub)
            game = await new_game(hub, clock="1+0")
            for seat in (0, 1, 0):
                await decide(hub, game, seat)
            time.on(61)  # before the timer fires, seat 1's move comes
            with pytest.raises(ProtocolError) as caught:
                await decide(hub, game, 1)
            assert caught.value.code == "game-over" and "time" in caught.value.message
            assert [e for _, e in ends] == [Ending("time", 0, False)]
            assert len(game.session.decisions) == 3

    run(test)


@pytest.mark.storage
def test_a_game_without_a_first_decision_is_aborted_unrated(db: Path) -> None:
    time = Time()

    async def test() -> None:
        async with hub_on(db, time) as hub:
            ends = heard(hub)
            game = await new_game(hub, "duel", "5+3")
            game.session.rated = True  # as if its players had made it rated
            await decide(hub, game, 0)  # seat 1 never places its first tile
            time.on(ABORT_AFTER - 0.5)
            assert await hub.timers.fire() == 0
            time.on(0.5)
            assert await hub.timers.fire() == 1
            assert [e for _, e in ends] == [Ending("aborted", None, False)]  # never rated
            state = game.session.public()
            assert state["over"] and state["end"] == "aborted" and state["winner"] is None
            assert game.session.record()["end"] == "aborted"
        async with hub_on(db, time) as hub:
            assert (await hub.playable(game.id)).session.public()["end"] == "aborted"

    run(test)


def test_the_abort_window_counts_from_when_the_seat_first_owes_a_decision(tmp_path: Path) -> None:
    time = Time()

    async def test() -> None:
        async with hub_on(tmp_path / "db.sqlite3", time) as hub:
            game = await new_game(hub, "head-to-head", "5+3")
            first = game.session.waiting()[0]
            time.on(29)
            await decide(hub, game, first)  # in time; the other seat starts owing now
            assert game.session.waiting() == (1 - first,)  # the draft alternates
            time.on(29)
            assert await hub.timers.fire() == 0 and not game.session.is_over
            time.on(1)
            assert await hub.timers.fire() == 1 and game.session.ending == Ending("aborted", None)

    run(test)


@pytest.mark.storage
def test_a_seat_resigns_and_the_other_wins_once(db: Path) -> None:
    time = Time()

    async def test() -> None:
        async with hub_on(db, time) as hub:
            ends = heard(hub)
            game = await new_game(hub, clock="5+3")
            await decide(hub, game, 0)
            ending = await hub.finisher.resign(game, 0)
            assert ending == Ending("resign", 1, False) and ends == [(game.id, ending)]
            for seat in (0, 1):
                with pytest.raises(ProtocolError) as caught:
                    await hub.finisher.resign(game, seat)
                assert caught.value.code == "game-over" and caught.value.status == 409
            state = game.session.public()
            assert state["end"] == "resign" and state["winner"] == 1 and state["over"]
            time.on(3600)
            assert await hub.timers.fire() == 0 and len(ends) == 1
            coop = await hub.playable((await hub.seating.create({"mode": "coop"}))["id"])
            with pytest.raises(ProtocolError) as caught:
                await hub.finisher.resign(coop, 0)
            assert caught.value.code == "bad-message"
        async with hub_on(db, time) as hub:
            state = (await hub.playable(game.id)).session.public()
            assert state["end"] == "resign" and state["winner"] == 1

    run(test)


def test_a_game_played_out_ends_normal_once_with_its_winner(tmp_path: Path) -> None:
    time = Time()

    async def test() -> None:
        async with hub_on(tmp_path / "db.sqlite3", time) as hub:
            ends = heard(hub)
            game = await new_game(hub, clock="180+0")
            session = game.session
            while not session.is_over:
                for seat in session.waiting():
                    time.on(0.5)
                    await decide(hub, game, seat)
            assert ends == [(game.id, Ending("normal", session.winner(), False))]
            assert session.public()["end"] == "normal" and "end" not in session.record()
            assert clock_of(game).running() == [] and len(hub.timers) == 0

    run(test)


def test_an_online_seat_starts_the_clock_when_it_is_taken(tmp_path: Path) -> None:
    time = Time()

    async def test() -> None:
        async with hub_on(tmp_path / "db.sqlite3", time) as hub:
            made = await hub.seating.create(
                {"mode": "duel", "clock": "3+2", "seats": [{"kind": "here"}, {"kind": "online"}]}
            )
            game = await hub.playable(made["id"])
            assert not clock_of(game).started and clock_of(game).deadline() is None
            time.on(3600)  # nobody came for an hour: nothing runs, nothing is aborted
            assert await hub.timers.fire() == 0
            await hub.seating.join(game, {"invite": made["invites"]["1"], "name": "Cy"})
            assert clock_of(game).started and clock_of(game).deadline() == time() + ABORT_AFTER
            assert len(hub.timers) == 1

    run(test)


# --- stored ------------------------------------------------------------------------------------


@pytest.mark.storage
def test_clocks_resume_exactly_where_they_were_after_a_restart(db: Path) -> None:
    time = Time()

    async def test() -> None:
        async with hub_on(db, time) as hub:
            game = await new_game(hub, clock="3+2")
            for seat in (0, 1, 0):
                time.on(4)
                await decide(hub, game, seat)
            before = clock_of(game).stored()
            game_id = game.id
            time.on(10)
            remaining = [clock_of(game).remaining(s, time()) for s in (0, 1)]
        async with hub_on(db, time) as hub:
            assert len(hub.timers) == 1  # read at start: its deadline will fire
            again = await hub.playable(game_id)
            assert clock_of(again).stored() == before
            assert [clock_of(again).remaining(s, time()) for s in (0, 1)] == remaining
            time.on(remaining[1])
            await hub.timers.fire()
            assert again.session.ending == Ending("time", 0)

    run(test)


def test_the_clock_state_is_in_each_stored_change(tmp_path: Path) -> None:
    """What the database holds of the clock after each decision is what the game holds."""
    import sqlite3

    time = Time()
    path = tmp_path / "db.sqlite3"

    async def test() -> None:
        async with hub_on(path, time) as hub:
            game = await new_game(hub)
            for seat in (0, 1, 1):
                time.on(3)
                await decide(hub, game, seat)
                await hub.storage.writer.flush(5.0)  # type: ignore[attr-defined]
                with sqlite3.connect(path) as conn:
                    row = conn.execute(
                        "SELECT clock, clock_state, deadline FROM server_game WHERE id = ?", (game.id,)
                    ).fetchone()
                assert row[0] == "3+2" and json.loads(row[1]) == json.loads(clock_of(game).stored())
                assert row[2] == clock_of(game).deadline()

    run(test)


# --- several servers -------------------------------------------------------------------------


async def bounded(check: Callable[[], bool], limit: float = 10.0) -> None:
    """Wait (bounded, real time) until ``check()`` holds: what another server hears comes soon."""
    for _ in range(int(limit / 0.01)):
        if check():
            return
        await asyncio.sleep(0.01)
    raise AssertionError("it never happened")


def test_of_two_servers_whose_clocks_run_out_together_exactly_one_ends_the_game(pg_url: str) -> None:
    time = Time()

    async def test() -> None:
        async with hub_on(pg_url, time) as a, hub_on(pg_url, time) as b:
            ends = heard(a)
            ends_b = heard(b)
            game = await new_game(a, clock="1+0")
            for seat in (0, 1, 0):
                await decide(a, game, seat)
            await bounded(lambda: len(b.timers) == 1)  # b heard the deadline, holding no game
            assert game.id not in b.games
            held = await b.playable(game.id)  # and b holds it too, now
            time.on(60)
            fired = await asyncio.gather(a.timers.fire(), b.timers.fire())
            assert fired == [1, 1]  # both saw the clock run out ...
            assert len(ends) + len(ends_b) == 1  # ... and one of them ended the game
            await bounded(lambda: held.session.is_over and game.session.is_over)
            for hub, mine in ((a, game), (b, held)):
                state = mine.session.public()
                assert state["end"] == "time" and state["winner"] == 0, hub.storage.instance
            assert a.finisher.counts["time"] + b.finisher.counts["time"] == 1

    run(test)


def test_when_a_server_dies_mid_game_the_other_ends_it_on_time(pg_url: str) -> None:
    time = Time()

    async def test() -> None:
        async with hub_on(pg_url, time) as b:
            ends = heard(b)
            async with hub_on(pg_url, time) as a:
                game = await new_game(a, clock="1+0")
                for seat in (0, 1, 0):
                    await decide(a, game, seat)
                await bounded(lambda: len(b.timers) == 1)
            # a is gone; b never held the game; a third server started now reads the deadline
            async with hub_on(pg_url, time) as c:
                assert len(c.timers) == 1
                ends_c = heard(c)
                time.on(61)
                await asyncio.gather(b.timers.fire(), c.timers.fire())
                assert len(ends) + len(ends_c) == 1
                assert [e for _, e in ends + ends_c] == [Ending("time", 0, False)]

    run(test)


# --- over HTTP and the websocket -------------------------------------------------------------


def test_resigning_over_http_and_the_websocket_and_an_unknown_clock(tmp_path: Path) -> None:
    from test_server_helpers import create, served, socket

    with served(tmp_path / "db.sqlite3") as client:
        refused = client.post("/api/games", json={"mode": "duel", "clock": "4+4+4", "seats": HERE2})
        assert refused.status_code == 400 and refused.json()["error"]["code"] == "bad-message"
        assert "unknown clock" in refused.json()["error"]["message"]
        made = create(client, "duel", HERE2, seed=None, clock="5+3")
        gid, tokens = made["id"], made["tokens"]
        state = client.get(f"/api/games/{gid}").json()
        assert state["clock"]["clock"] == "5+3" and state["clock"]["remaining"] == [300_000, 300_000]
        assert state["end"] is None
        wrong = client.post(f"/api/games/{gid}/resign", json={"seat": 1, "token": tokens["0"]})
        assert wrong.status_code == 403 and wrong.json()["error"]["code"] == "not-your-seat"
        answer = client.post(f"/api/games/{gid}/resign", json={"seat": 0, "token": tokens["0"]})
        assert answer.status_code == 200, answer.text
        assert answer.json() == {"ok": True, "version": 1, "end": "resign", "winner": 1, "rated": False}
        again = client.post(f"/api/games/{gid}/resign", json={"seat": 1, "token": tokens["1"]})
        assert again.status_code == 409 and again.json()["error"]["code"] == "game-over"
        record = client.get(f"/api/games/{gid}/record").json()
        assert record["end"] == "resign" and record["clock"] == "5+3"

        other = create(client, "duel", HERE2, seed=None, clock="3d")
        with (
            socket(client, other["id"], [other["tokens"]["1"]]) as player,
            socket(client, other["id"]) as watcher,
        ):
            assert watcher.sync()["now"] > 0  # the server's time comes with each state
            reply = player.request({"type": "resign", "seat": 1})
            assert reply["type"] == "ok" and reply["end"] == "resign" and reply["winner"] == 0
            seen = watcher.sync()["game"]
            assert seen["over"] and seen["end"] == "resign" and seen["winner"] == 0
            refused_ws = player.request({"type": "resign", "seat": 0})
            assert refused_ws["type"] == "error" and refused_ws["code"] == "not-your-seat"
