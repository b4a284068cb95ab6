"""Table talk (issue 63): messages of a game's seated players reach the others seated (never the
watchers), as the same plain text, within the limits; kept with the game (a restart, the
replay); and, on one PostgreSQL database, talk and proposals reach a client of another server."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import ExitStack
from pathlib import Path

import pytest
from fastapi.testclient import TestClient
from test_players import another
from test_server_helpers import Json, Socket, create, legal_move, served, socket, until

from dorf.cli import main
from dorf.server.round.cache import GAME_ID
from dorf.server.round.seats import new_game_id

XSS = "<img src=x onerror=alert(1)>"


@pytest.fixture(scope="module")
def client(tmp_path_factory: pytest.TempPathFactory) -> Iterator[TestClient]:
    with served(Path(tmp_path_factory.mktemp("talk")) / "dorf.sqlite3") as c:
        yield c


def table_of(client: TestClient, mode: str = "coop", names: tuple[str, ...] = ("Lea", "Max", "Nia")) -> Json:
    seats = [{"kind": "here", "name": name} for name in names]
    return create(client, mode, seats=seats, seed=5)


def heard(sock: Socket) -> list[Json]:
    """The talk messages the socket has heard so far (everything sent is read first)."""
    sock.sync()
    return [m["message"] for m in sock.seen if m["type"] == "talk"]


def fresh(sock: Socket) -> Json:
    """A whole state sent again (``sync``)."""
    sock.ws.send_text('{"type": "sync"}')
    state = sock.sync()
    assert "table" in state
    return state


def test_talk_reaches_the_seated_players_as_plain_text_and_never_the_watchers(client: TestClient) -> None:
    made = table_of(client)
    gid, tokens = made["id"], made["tokens"]
    with (
        socket(client, gid, [tokens["0"]]) as lea,
        socket(client, gid, [tokens["1"]]) as max_,
        socket(client, gid, [tokens["2"]]) as nia,
        socket(client, gid) as watcher,
    ):
        reply = nia.request({"type": "say", "seat": 2, "text": f"  {XSS}  "})
        assert reply == {"type": "ok", "id": reply["id"]}
        for sock in (lea, max_, nia):
            [message] = heard(sock)
            assert message["text"] == XSS and message["name"] == "Nia" and message["seat"] == 2
            assert message["n"] == 1 and message["at"].endswith("Z")
        assert heard(watcher) == []
        refused = watcher.request({"type": "say", "seat": 0, "text": "hello"})
        assert refused["type"] == "error" and refused["code"] == "not-your-seat"
        refused = max_.request({"type": "say", "seat": 2, "text": "I am Nia"})
        assert refused["code"] == "not-your-seat"
        assert heard(lea) == heard(max_) and len(heard(lea)) == 1
        # the states: a seat holder's carries the talk, a watcher's none
        assert fresh(lea)["table"]["talk"][0]["text"] == XSS
        assert fresh(watcher)["table"]["talk"] == []
    # on the wire the text is the same plain string (JSON escapes nothing of it into markup)
    with client.websocket_connect(f"/ws/{gid}") as ws:
        ws.receive_text()
        ws.send_text(f'{{"type": "hello", "tokens": ["{tokens["1"]}"]}}')
        state = ws.receive_text()
        assert '"text":"<img src=x onerror=alert(1)>"' in state


def test_talk_too_long_empty_or_too_fast_is_refused_and_changes_nothing(client: TestClient) -> None:
    hub = client.app.state.hub  # type: ignore[attr-defined]
    made = table_of(client, "duel", ("Ann", "Bob"))
    gid, tokens = made["id"], made["tokens"]
    frozen = hub.talk.monotonic
    hub.talk.monotonic = lambda: 500.0  # no time passes
    try:
        with socket(client, gid, [tokens["0"]]) as ann, socket(client, gid, [tokens["1"]]) as bob:
            assert ann.request({"type": "say", "seat": 0, "text": "x" * 201})["code"] == "talk-too-long"
            assert ann.request({"type": "say", "seat": 0, "text": " \n "})["code"] == "talk-empty"
            assert ann.request({"type": "say", "seat": 0, "text": "a\x00b"})["code"] == "bad-message"
            assert ann.request({"type": "say", "seat": 0, "text": "é" * 200})["type"] == "ok"
            for n in range(4):
                assert ann.request({"type": "say", "seat": 0, "text": f"line {n}"})["type"] == "ok"
            fast = ann.request({"type": "say", "seat": 0, "text": "one more"})
            assert fast["code"] == "talk-too-fast"
            assert bob.request({"type": "say", "seat": 1, "text": "my own limit"})["type"] == "ok"
            hub.talk.monotonic = lambda: 511.0  # ten seconds on: Ann may speak again
            assert ann.request({"type": "say", "seat": 0, "text": "again"})["type"] == "ok"
            texts = [m["text"] for m in heard(bob)]
            assert texts == ["é" * 200, "line 0", "line 1", "line 2", "line 3", "my own limit", "again"]
            assert [m["n"] for m in heard(bob)] == list(range(1, 8))
    finally:
        hub.talk.monotonic = frozen


def test_a_game_of_one_person_has_no_talk(client: TestClient) -> None:
    made = create(client, "duel", seats=[{"kind": "here"}, {"kind": "computer", "player": "easy"}], seed=5)
    with socket(client, made["id"], [made["tokens"]["0"]]) as alone:
        assert alone.request({"type": "say", "seat": 0, "text": "anyone?"})["code"] == "no-talk"


def test_talk_is_in_the_replay_with_the_move_it_was_said_at(client: TestClient) -> None:
    players = another(client)
    assert players.post("/api/me", json={}).status_code == 200  # a player: its games' seats are its
    made = table_of(players, "duel", ("Ann", "Bob"))
    gid, tokens = made["id"], made["tokens"]
    with socket(players, gid, [tokens["0"], tokens["1"]]) as both:
        both.request({"type": "say", "seat": 0, "text": "good luck"})
        for _ in range(2):
            state = both.sync()
            assert both.request(legal_move(state, state["game"]["waiting"][0]))["type"] == "ok"
        both.request({"type": "say", "seat": 1, "text": XSS})
        assert both.request({"type": "resign", "seat": 1})["type"] == "ok"
        both.request({"type": "say", "seat": 1, "text": "gg"})  # after the end too
    replay = players.get(f"/api/games/{gid}/replay").json()
    talk = [{k: m[k] for k in ("n", "seat", "name", "text", "move")} for m in replay["talk"]]
    assert talk == [
        {"n": 1, "seat": 0, "name": "Ann", "text": "good luck", "move": 0},
        {"n": 2, "seat": 1, "name": "Bob", "text": XSS, "move": 2},
        {"n": 3, "seat": 1, "name": "Bob", "text": "gg", "move": 2},
    ]
    assert replay["steps"]  # the replay's own steps as before
    other = another(client)  # not at the table: the replay without its talk
    assert other.get(f"/api/games/{gid}/replay").json()["talk"] == []


def test_talk_survives_a_restart_and_a_message_can_be_removed(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    db = tmp_path / "dorf.sqlite3"
    with served(db) as first:
        made = table_of(first)
        gid, tokens = made["id"], made["tokens"]
        with socket(first, gid, [tokens["0"]]) as lea:
            lea.request({"type": "say", "seat": 0, "text": "first"})
            lea.request({"type": "say", "seat": 0, "text": "second"})
    with served(db) as second:
        with socket(second, gid, [tokens["1"]]) as max_:
            assert max_.state is not None
            assert [m["text"] for m in max_.state["table"]["talk"]] == ["first", "second"]
            max_.request({"type": "say", "seat": 1, "text": "third"})
        # the operator removes a message while the server runs: gone from the next state
        assert main(["admin", "--db", str(db), "remove-message", gid, "1"]) == 0
        assert "removed message 1" in capsys.readouterr().out
        assert main(["admin", "--db", str(db), "remove-message", gid, "1"]) == 1
        assert capsys.readouterr().err.strip() == f"dorf admin: game {gid} has no message 1"
        with socket(second, gid, [tokens["2"]]) as nia:
            assert nia.state is not None
            assert [(m["n"], m["text"]) for m in nia.state["table"]["talk"]] == [(2, "second"), (3, "third")]
        storage = second.app.state.hub.storage  # type: ignore[attr-defined]
        assert second.portal.call(storage.talk_remove, gid, 2) is True  # type: ignore[union-attr]
        lines = second.portal.call(storage.talk_recent, gid)  # type: ignore[union-attr]
        assert [(line.n, line.text) for line in lines] == [(3, "third")]


@pytest.mark.slow
def test_talk_and_proposals_reach_a_client_of_another_server(pg_url: str) -> None:
    with ExitStack() as stack:
        a, b = (stack.enter_context(served(pg_url)) for _ in range(2))
        made = table_of(a)
        gid, tokens = made["id"], made["tokens"]
        lea = stack.enter_context(socket(a, gid, [tokens["0"]]))
        max_ = stack.enter_context(socket(a, gid, [tokens["1"]]))
        nia = stack.enter_context(socket(b, gid, [tokens["2"]]))
        watcher = stack.enter_context(socket(b, gid))
        state = lea.sync()
        assert lea.request(legal_move(state, 0))["type"] == "ok"  # a tile down: Max places next
        until(lambda: nia.sync()["game"]["version"] == 1)
        spots = [(q, r, rot) for q, r, rots in max_.sync()["you"]["legal"]["1"] for rot in rots]
        q, r, rot = spots[-1]
        assert lea.request({"type": "propose", "seat": 0, "at": [q, r], "rot": rot})["type"] == "ok"
        assert lea.request({"type": "say", "seat": 0, "text": XSS})["type"] == "ok"

        def proposals(sock: Socket) -> list[Json]:
            sock.sync()
            told = [m for m in sock.seen if m["type"] == "table"]
            return told[-1]["proposals"] if told else []

        until(lambda: len(proposals(nia)) == 1 and len(proposals(watcher)) == 1)
        [shown] = proposals(nia)
        assert (shown["seat"], shown["name"], shown["at"], shown["rot"]) == (0, "Lea", [q, r], rot)
        assert shown["preview"]["seat"] == 1 and "score" in shown["preview"]
        until(lambda: [m["text"] for m in heard(nia)] == [XSS])
        assert heard(watcher) == []
        # Max places on server A: the proposals end on server B too
        assert max_.request({"type": "move", "seat": 1, "at": [q, r], "rot": rot})["type"] == "ok"
        until(lambda: nia.sync()["game"]["version"] == 2 and proposals(nia) == [])


def test_a_seats_token_shows_the_replays_talk_to_a_visitor_of_that_table(client: TestClient) -> None:
    """A game made by a visitor (no player: the seats are nobody's): its talk is read in the
    replay by whoever sends a seat's token, and by nobody else."""
    visitor = another(client)
    made = table_of(visitor, "duel", ("Ann", "Bob"))
    gid, tokens = made["id"], made["tokens"]
    with socket(visitor, gid, [tokens["0"], tokens["1"]]) as both:
        both.request({"type": "say", "seat": 1, "text": "hello"})
        assert both.request({"type": "resign", "seat": 0})["type"] == "ok"
    shown = visitor.get(f"/api/games/{gid}/replay", headers={"X-Seat-Tokens": tokens["1"]}).json()
    assert [m["text"] for m in shown["talk"]] == ["hello"]
    for headers in ({}, {"X-Seat-Tokens": "not-a-token"}):
        assert visitor.get(f"/api/games/{gid}/replay", headers=headers).json()["talk"] == []


def test_game_ids_never_begin_with_a_dash_and_an_old_one_is_given_after_two_dashes(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A game id beginning with ``-`` read as an option: ``remove-message`` said "N is required"
    (one game in 64).  New ids never begin so; an old one is given after ``--``."""
    ids = [new_game_id() for _ in range(4000)]
    assert not [gid for gid in ids if gid.startswith("-")]
    assert all(GAME_ID.fullmatch(gid) and len(gid) == 11 for gid in ids)
    db = tmp_path / "dorf.sqlite3"
    with served(db):
        pass
    assert main(["admin", "--db", str(db), "remove-message", "--", "-old_game_1", "1"]) == 1
    assert capsys.readouterr().err.strip() == "dorf admin: game -old_game_1 has no message 1"
