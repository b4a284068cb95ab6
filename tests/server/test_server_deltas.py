"""Deltas, not states: what a client builds from deltas is always the state the server would send whole.

The full state stays the one source of truth: a description made incrementally
(reusing what did not change) equals one made from scratch by replaying the
decisions, a delta applied to the old description gives the new one, and
clients that follow a whole game through deltas (seats and spectators, every
mode) hold, after every move, exactly the state a fresh connection gets, with
the other seat's pending placement still hidden.
"""

from __future__ import annotations

import json
import random
from pathlib import Path
from typing import Any

import pytest
from test_server_helpers import Socket, create, legal_move, served, socket

from dorf.formats.record import apply_decision
from dorf.games.state import Pick
from dorf.rules.area import Placement
from dorf.rules.hexgrid import Hex
from dorf.server.protocol.delta import diff, patch, same
from dorf.server.protocol.describe import Description
from dorf.server.protocol.messages import Move
from dorf.server.round.session import MODES, GameSession, SeatSpec

Json = dict[str, Any]


VIEWS: tuple[frozenset[int], ...] = (frozenset(), frozenset({0}), frozenset({1}), frozenset({0, 1}))


def text(doc: Any) -> str:
    return json.dumps(doc, sort_keys=True)


def random_move(session: GameSession, rng: random.Random) -> Move:
    seat = rng.choice(session.waiting())
    doc = session.document({seat})
    if doc["game"]["phase"] == "draft":
        return Move(seat, Pick(rng.choice(doc["game"]["pool"])["id"]))
    q, r, rots = rng.choice(doc["you"]["legal"][str(seat)])
    return Move(seat, Placement(Hex(q, r), rng.choice(rots)))


#: One game of each mode in the quick tier, two more in the whole run.
SEEDS = [0, pytest.param(1, marks=pytest.mark.slow), pytest.param(2, marks=pytest.mark.slow)]


@pytest.mark.parametrize("seed", SEEDS)
@pytest.mark.parametrize("mode", MODES)
@pytest.mark.slow
def test_incremental_descriptions_equal_fresh_ones_and_deltas_rebuild_them(mode: str, seed: int) -> None:
    rng = random.Random(seed)
    practice = mode == "coop"
    seats = [SeatSpec("here", "Ann"), SeatSpec("here", "Bob")]
    session = GameSession.new("g", mode, seed + 11, seats, practice=practice)
    held = {view: session.document(view) for view in VIEWS}
    # The decisions replayed as from the database (GameSession.replay): all of them at every eighth
    # move, after an undo and at the end; between, one more at each move (replay's step, on the
    # state replayed so far).  Described from scratch every time.
    fresh = GameSession.new("g", mode, seed + 11, seats, practice=practice)
    while not session.is_over:
        undo = practice and session.can_undo() and rng.random() < 0.1
        if undo:
            session.take_back(session.undo_count(0))
        else:
            session.apply(random_move(session, rng))
        if undo or session.version % 8 == 0 or session.is_over:
            decisions = list(session.decisions)
            fresh = GameSession.replay("g", mode, seed + 11, seats, decisions, practice=practice)
        else:
            entry = session.decisions[-1]
            player, _ = apply_decision(fresh.state, len(session.decisions), entry)
            fresh.decisions.append(entry)
            fresh.deciders.append(fresh.order[player])
        assert fresh.decisions == session.decisions
        fresh.version = session.version
        fresh.description = Description(fresh)  # nothing kept from the last move's description
        if rng.random() < 0.5:  # the view before a pending placement made again, not kept
            session.description._open = None
        for view in sorted(VIEWS, key=lambda v: fresh.description.view_key(v) != "full"):
            fresh.document(view)  # as read from the database, described for the placing seat first
        # Equal at every move (Python's ==, fast); equal as JSON text too (True is not 1) at every
        # eighth move and the last: a value of the wrong type is wrong at every move it is sent.
        strict = session.version % 8 == 0 or session.is_over
        for view in VIEWS:
            new = session.document(view)
            equal(new["game"], fresh.public(view), strict, (mode, seed, view, session.version))
            equal(new, fresh.document(view), strict, (mode, seed, view, session.version))
            ops = diff(held[view], new)
            rebuilt = patch(held[view], ops)
            equal(rebuilt, new, strict, (mode, seed, view, session.version))
            held[view] = new


def equal(got: Any, want: Any, strict: bool, where: tuple[Any, ...]) -> None:
    assert got == want, where
    if strict:
        assert text(got) == text(want), where


def test_a_delta_leaves_the_old_description_as_it_was() -> None:
    old = {"a": [1, 2, {"b": 3}], "c": {"d": [4]}, "e": True}
    before = text(old)
    new = {"a": [1, {"b": 4}, 2, {"b": 3}], "c": {"d": [4, 5]}, "e": 1}
    rebuilt = patch(old, diff(old, new))
    assert text(old) == before and rebuilt == new and same(rebuilt, new)
    assert type(rebuilt["e"]) is int  # JSON's true is not 1


def test_a_delta_that_does_not_fit_is_refused() -> None:
    doc = {"a": [1, 2]}
    for ops in (
        [["s", "b/c", 1]],
        [["l", "a", 1, 5, []]],
        [["d", "z"]],
        [["x", "a"]],
        [["s", "", 1]],
        [["s", "a/7", 1]],
    ):
        with pytest.raises(ValueError):
            patch(doc, ops)
    assert doc == {"a": [1, 2]}


def _fresh(client: Any, game_id: str, tokens: list[str]) -> Json:
    """The state a new connection gets (with ``tokens``: after its hello)."""
    with socket(client, game_id, tokens or None) as sock:
        state = sock.sync()
        return {"you": state["you"], "game": state["game"]}


def _check(sock: Socket) -> Json:
    """What ``sock`` built from the deltas so far is the whole state the server sends when asked
    (``sync``: the same it sends a new connection, after its hello, with the same seats)."""
    mine = sock.sync()
    built = text({"you": mine["you"], "game": mine["game"]})
    sock.ws.send_text(json.dumps({"type": "sync", "id": "whole"}))
    while (message := sock.receive())["type"] != "state":
        pass
    whole = {"you": message["you"], "game": message["game"]}
    assert built == text(whole)
    return whole


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.slow
def test_clients_following_a_whole_game_through_deltas_hold_the_fresh_state(db: Path, mode: str) -> None:
    rng = random.Random(mode)
    with served(db) as client:
        made = create(client, mode=mode, seats=[{"kind": "here"}, {"kind": "here"}])
        gid, tokens = made["id"], made["tokens"]
        views: tuple[list[str], ...] = ([tokens["0"]], [tokens["1"]], [])
        with (
            socket(client, gid, views[0]) as first,
            socket(client, gid, views[1]) as second,
            socket(client, gid) as watcher,
        ):
            socks = {0: first, 1: second}
            following = (first, second, watcher)
            moves = 0
            while not (state := first.sync())["game"]["over"]:
                seat = rng.choice(state["game"]["waiting"])
                mover = socks[seat]
                before = mover.sync()
                pending_before = before["game"]["waiting"]
                reply = mover.request(legal_move(before, seat, rng))
                assert reply["type"] == "ok", reply
                moves += 1
                for sock, held in zip(following, views, strict=True):
                    whole = _check(sock)
                    if moves % 16 == 1:  # and now and then (and at the end) a new connection's
                        assert text(whole) == text(_fresh(client, gid, held))
                if mode != "coop" and len(pending_before) == 2:  # placed while the other still has to
                    other = socks[1 - seat].sync()["game"]
                    assert other["waiting"] == [1 - seat]
                    assert other["turn"] == watcher.sync()["game"]["turn"]
            for sock, held in zip(following, views, strict=True):
                assert text(_check(sock)) == text(_fresh(client, gid, held))
            deltas = [m for s in following for m in s.seen if m["type"] == "delta"]
            states = [m for s in following for m in s.seen if m["type"] == "state"]
            assert len(deltas) >= moves  # moves travel as deltas; whole states only when asked
            assert all(m["version"] > m["from"] for m in deltas)
            # whole states only on connecting, after hello and when asked (after each move, at the end)
            assert len(states) == 2 + 2 + 1 + 3 * (moves + 1)


def test_the_pending_placement_never_travels_to_the_other_seat_or_a_spectator(db: Path) -> None:
    with served(db) as client:
        made = create(client, mode="duel", seats=[{"kind": "here"}, {"kind": "here"}])
        gid, tokens = made["id"], made["tokens"]
        with (
            socket(client, gid, [tokens["0"]]) as first,
            socket(client, gid, [tokens["1"]]) as second,
            socket(client, gid) as watcher,
        ):
            for sock in (second, watcher):
                sock.seen.clear()
            move = legal_move(first.sync(), 0)
            assert first.request(move)["type"] == "ok"
            for sock in (second, watcher):
                sock.sync()
                paths = [op[1] for m in sock.seen if m["type"] == "delta" for op in m["ops"]]
                assert not [p for p in paths if p.startswith(("game/areas/0", "game/scores/0", "game/log"))]
                assert sock.state is not None and sock.state["game"]["areas"][0]["tiles"] == []
            assert len(first.sync()["game"]["areas"][0]["tiles"]) == 1  # its own placement it sees


def test_a_client_that_lost_track_asks_for_the_whole_state(db: Path) -> None:
    with served(db) as client:
        made = create(client)
        with socket(client, made["id"], list(made["tokens"].values())) as sock:
            assert sock.request(legal_move(sock.sync(), 0))["type"] == "ok"
            sock.wait_saved(1)
            sock.state = None
            sock.ws.send_text(json.dumps({"type": "sync", "id": "again"}))
            message = sock.receive()
            assert message["type"] == "state" and message["game"]["version"] == 1
