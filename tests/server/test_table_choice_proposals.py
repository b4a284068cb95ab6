"""The cooperative table (issue 63): the active seat's choice and the others' proposals reach
everyone at the table and the watchers, checked by the engine, at most two per seat and tile,
gone once the tile is placed; refused for a watcher, another seat, and outside the cooperative
game.  One server on one SQLite file for the module; each test makes its own game."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient
from test_server_helpers import Json, Socket, create, legal_move, served, socket


@pytest.fixture(scope="module")
def client(tmp_path_factory: pytest.TempPathFactory) -> Iterator[TestClient]:
    with served(Path(tmp_path_factory.mktemp("table")) / "dorf.sqlite3") as c:
        yield c


def three(client: TestClient, mode: str = "coop") -> tuple[str, dict[str, str]]:
    """A game of Lea, Max and Nia (the Duel: Lea and Max), three rounds in: Lea places next,
    with many cells to choose from."""
    seats = [{"kind": "here", "name": name} for name in ("Lea", "Max", "Nia")]
    made = create(client, mode, seats=seats if mode == "coop" else seats[:2], seed=11)
    gid, tokens = made["id"], made["tokens"]
    with socket(client, gid, list(tokens.values())) as everyone:
        for _ in range(6 if mode == "coop" else 0):
            state = everyone.sync()
            assert everyone.request(legal_move(state, state["game"]["waiting"][0]))["type"] == "ok"
    return gid, tokens


def tables(sock: Socket) -> list[Json]:
    """The table messages the socket has heard so far (everything sent is read first)."""
    sock.sync()
    return [m for m in sock.seen if m["type"] == "table"]


def legal(sock: Socket, seat: int) -> list[tuple[int, int, int]]:
    state = sock.sync()
    return [(q, r, rot) for q, r, rots in state["you"]["legal"][str(seat)] for rot in rots]


def placement(spot: tuple[int, int, int]) -> dict[str, Any]:
    q, r, rot = spot
    return {"at": [q, r], "rot": rot}


def test_the_choice_reaches_the_table_and_the_watchers_with_its_preview(client: TestClient) -> None:
    gid, tokens = three(client)
    with (
        socket(client, gid, [tokens["0"]]) as lea,
        socket(client, gid, [tokens["1"]]) as max_,
        socket(client, gid) as watcher,
    ):
        spots = legal(lea, 0)
        asked = lea.request({"type": "preview", "seat": 0, **placement(spots[0])})
        figures = {k: v for k, v in asked.items() if k not in ("type", "id", "version")}
        reply = lea.request({"type": "choose", "seat": 0, **placement(spots[0])})
        assert reply == {"type": "ok", "id": reply["id"]}
        for sock in (max_, watcher, lea):
            last = tables(sock)[-1]
            choice = last["choice"]
            assert choice["seat"] == 0 and choice["at"] == list(spots[0][:2]) and choice["rot"] == spots[0][2]
            assert choice["preview"] == figures  # the placement preview's own figures
            assert last["proposals"] == []
        heard = len(tables(watcher))
        lea.request({"type": "choose", "seat": 0, **placement(spots[0])})  # the same again: dropped
        assert len(tables(watcher)) == heard
        lea.request({"type": "choose", "seat": 0, "clear": True})
        assert tables(watcher)[-1]["choice"] is None
        # a client that comes later finds the choice in its first state
        lea.request({"type": "choose", "seat": 0, **placement(spots[1])})
        with socket(client, gid) as late:
            assert late.state is not None
            assert late.state["table"]["choice"]["at"] == list(spots[1][:2])
            assert late.state["table"]["talk"] == []


def test_a_choice_is_the_active_seats_and_legal(client: TestClient) -> None:
    gid, tokens = three(client)
    with socket(client, gid, [tokens["0"]]) as lea, socket(client, gid, [tokens["1"]]) as max_:
        spot = legal(lea, 0)[0]
        with socket(client, gid) as watcher:
            refused = watcher.request({"type": "choose", "seat": 0, **placement(spot)})
            assert refused["type"] == "error" and refused["code"] == "not-your-seat"
        refused = max_.request({"type": "choose", "seat": 1, **placement(spot)})
        assert refused["code"] == "out-of-turn"
        refused = lea.request({"type": "choose", "seat": 0, "at": [40, 0], "rot": 0})
        assert refused["code"] == "illegal"
        assert tables(max_) == []  # nothing changed, nothing told


def test_proposals_two_per_seat_checked_by_the_engine_and_gone_after_the_placement(
    client: TestClient,
) -> None:
    gid, tokens = three(client)
    with (
        socket(client, gid, [tokens["0"]]) as lea,
        socket(client, gid, [tokens["1"]]) as max_,
        socket(client, gid, [tokens["2"]]) as nia,
        socket(client, gid) as watcher,
    ):
        spots = legal(lea, 0)
        assert max_.request({"type": "propose", "seat": 1, **placement(spots[0])})["type"] == "ok"
        assert max_.request({"type": "propose", "seat": 1, **placement(spots[1])})["type"] == "ok"
        third = max_.request({"type": "propose", "seat": 1, **placement(spots[2])})
        assert third["type"] == "error" and third["code"] == "too-many-proposals"
        again = max_.request({"type": "propose", "seat": 1, **placement(spots[0])})  # standing already
        assert again["type"] == "ok"
        # an illegal one: refused with the engine's own reason
        far = nia.request({"type": "propose", "seat": 2, "at": [40, 0], "rot": 0})
        assert far["code"] == "illegal" and far["message"]
        own = lea.request({"type": "propose", "seat": 0, **placement(spots[3])})
        assert own["code"] == "own-turn"
        looker = watcher.request({"type": "propose", "seat": 1, **placement(spots[3])})
        assert looker["code"] == "not-your-seat"
        other = nia.request({"type": "propose", "seat": 1, **placement(spots[3])})
        assert other["code"] == "not-your-seat"
        assert nia.request({"type": "propose", "seat": 2, **placement(spots[3])})["type"] == "ok"
        for sock in (lea, watcher):
            shown = tables(sock)[-1]["proposals"]
            assert [(p["seat"], p["name"], p["at"], p["rot"]) for p in shown] == [
                (1, "Max", list(spots[0][:2]), spots[0][2]),
                (1, "Max", list(spots[1][:2]), spots[1][2]),
                (2, "Nia", list(spots[3][:2]), spots[3][2]),
            ]
            assert all(p["preview"]["seat"] == 0 and "score" in p["preview"] for p in shown)
        # withdrawn: one, then all of a seat's
        max_.request({"type": "propose", "seat": 1, "clear": True, **placement(spots[0])})
        assert [p["at"] for p in tables(lea)[-1]["proposals"]] == [list(spots[1][:2]), list(spots[3][:2])]
        max_.request({"type": "propose", "seat": 1, "clear": True})
        assert [p["seat"] for p in tables(lea)[-1]["proposals"]] == [2]
        # the active seat places (elsewhere): the proposals are gone for everyone
        lea.request({"type": "choose", "seat": 0, **placement(spots[4])})
        assert lea.request({"type": "move", "seat": 0, **placement(spots[4])})["type"] == "ok"
        for sock in (lea, max_, nia, watcher):
            assert tables(sock)[-1] == {"type": "table", "choice": None, "proposals": []}
        with socket(client, gid) as late:
            assert late.state is not None
            assert late.state["table"] == {"choice": None, "proposals": [], "talk": []}


def test_a_game_that_is_not_cooperative_has_no_proposals_or_choice(client: TestClient) -> None:
    gid, tokens = three(client, "duel")
    with socket(client, gid, [tokens["0"]]) as left:
        spot = legal(left, 0)[0]
        refused = left.request({"type": "propose", "seat": 0, **placement(spot)})
        assert refused["code"] == "not-cooperative"
        refused = left.request({"type": "choose", "seat": 0, **placement(spot)})
        assert refused["code"] == "not-cooperative"


def test_choices_are_limited_per_connection(client: TestClient) -> None:
    hub = client.app.state.hub  # type: ignore[attr-defined]
    frozen = hub.table.monotonic
    hub.table.monotonic = lambda: 1000.0  # no time passes: the burst is all there is
    try:
        gid, tokens = three(client)
        with socket(client, gid, [tokens["0"]]) as lea:
            spots = legal(lea, 0)
            answers = [
                lea.request({"type": "choose", "seat": 0, **placement(spots[n % 2])})["type"]
                for n in range(25)
            ]
            assert answers[:20] == ["ok"] * 20
            refused = lea.request({"type": "choose", "seat": 0, **placement(spots[0])})
            assert refused["code"] == "table-too-fast"
    finally:
        hub.table.monotonic = frozen


def test_bad_table_messages_are_refused_in_one_line(client: TestClient) -> None:
    gid, tokens = three(client)
    with socket(client, gid, [tokens["0"]]) as lea:
        for bad in (
            {"type": "choose", "seat": 0, "at": [0], "rot": 0},
            {"type": "choose", "seat": 0, "clear": "yes"},
            {"type": "choose", "seat": 0, "clear": True, "at": [0, 0], "rot": 1},
            {"type": "propose", "seat": 0, "pick": 3},
            {"type": "propose", "seat": 9, "at": [0, 0], "rot": 0},
        ):
            reply = lea.request(bad)
            assert reply["type"] == "error" and reply["code"] == "bad-message", (bad, reply)


def test_a_seat_that_does_not_place_is_shown_where_the_placing_seat_may(client: TestClient) -> None:
    """Max proposes among Lea's legal placements (issue 63), so his state carries them; in the
    Duel a seat's legal placements stay its own."""
    gid, tokens = three(client)
    with socket(client, gid, [tokens["1"]]) as max_, socket(client, gid, [tokens["0"]]) as lea:
        theirs, own = max_.sync()["you"]["legal"], lea.sync()["you"]["legal"]
        assert list(theirs) == ["0"] and theirs == own
    with socket(client, gid) as watcher:
        assert watcher.sync()["you"]["legal"] == {}
    duel, duel_tokens = three(client, "duel")
    with socket(client, duel, [duel_tokens["1"]]) as bob:
        assert list(bob.sync()["you"]["legal"]) == ["1"]
