"""The lobby (``/ws/lobby``): the open games live (the whole list, then deltas), one message takes
a seat, quick pairing pairs two people into a new game, limits, bad input; on SQLite and on
PostgreSQL (``storage``), and across two servers on one PostgreSQL database."""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from contextlib import ExitStack, contextmanager
from typing import Any

import pytest
from fastapi.testclient import TestClient
from test_server_helpers import Json, legal_move, served, socket, until

from dorf.server.protocol.delta import patch


def person(client: TestClient) -> dict[str, str]:
    """A new person: the cookie header of a player of their own (``GET /api/me`` makes one)."""
    client.cookies.clear()
    answer = client.post("/api/me")
    assert answer.status_code == 200, answer.text
    jar = dict(client.cookies)
    client.cookies.clear()
    return {"cookie": "; ".join(f"{k}={v}" for k, v in jar.items())}


class Lobby:
    """A lobby socket that keeps the list as the server describes it (state, then deltas)."""

    def __init__(self, ws: Any) -> None:
        self.ws = ws
        self.doc: Json | None = None
        self.next_id = 1
        self.seen: list[Json] = []

    def receive(self) -> Json:
        message: Json = self.ws.receive_json()
        self.seen.append(message)
        if message["type"] == "lobby":
            self.doc = {"version": message["version"], "games": message["games"]}
        elif message["type"] == "delta":
            assert self.doc is not None and message["from"] == self.doc["version"], (message, self.doc)
            self.doc = patch(self.doc, message["ops"])
            assert self.doc["version"] == message["version"]
        return message

    def request(self, message: Json) -> Json:
        ref = self.next_id
        self.next_id += 1
        self.ws.send_text(json.dumps({**message, "id": ref}))
        for _ in range(500):
            reply = self.receive()
            if reply.get("id") == ref:
                return reply
        raise AssertionError(f"no answer to {message}")

    def games(self) -> dict[str, Json]:
        self.request({"type": "ping"})
        assert self.doc is not None
        games: dict[str, Json] = self.doc["games"]
        return games

    def wait(self, predicate: Callable[[Json], bool], limit: int = 500) -> Json:
        for message in self.seen:
            if predicate(message):
                return message
        for _ in range(limit):
            message = self.receive()
            if predicate(message):
                return message
        raise AssertionError("the awaited message never came")

    def wait_games(self, predicate: Callable[[dict[str, Json]], bool], limit: int = 500) -> dict[str, Json]:
        if self.doc is not None and predicate(self.doc["games"]):
            return self.doc["games"]
        for _ in range(limit):
            self.receive()
            if self.doc is not None and predicate(self.doc["games"]):
                games: dict[str, Json] = self.doc["games"]
                return games
        raise AssertionError("the awaited list never came")


@contextmanager
def lobby(client: TestClient, who: dict[str, str] | None = None) -> Iterator[Lobby]:
    with client.websocket_connect("/ws/lobby", headers=who or {}) as ws:
        sock = Lobby(ws)
        first = sock.receive()
        assert first["type"] == "lobby" and isinstance(first["games"], dict)
        yield sock


def open_game(client: TestClient, who: dict[str, str], mode: str = "duel", **more: Any) -> Json:
    seats = more.pop("seats", [{"kind": "here", "name": "Host"}, {"kind": "online"}])
    answer = client.post("/api/games", json={"mode": mode, "open": True, "seats": seats, **more}, headers=who)
    assert answer.status_code == 201, answer.text
    made: Json = answer.json()
    return made


def seek(sock: Lobby, mode: str = "duel", clock: str | None = "3+2", rated: bool = False) -> Json:
    reply = sock.request({"type": "seek", "mode": mode, "clock": clock, "rated": rated})
    assert reply["type"] == "seeking", reply
    return reply


@pytest.mark.storage
def test_an_open_game_appears_live_and_one_message_takes_its_seat(db: Any) -> None:
    with served(db) as client:
        ann, bob = person(client), person(client)
        with lobby(client, bob) as watching:
            assert watching.games() == {}
            made = open_game(client, ann, clock="3+2")
            games = watching.wait_games(lambda g: made["id"] in g)
            entry = games[made["id"]]
            assert entry["mode"] == "duel" and entry["clock"] == "3+2" and entry["free"] == 1
            assert entry["seats"] == 2 and entry["rated"] is False and entry["rating"] == 1500
            assert any(m["type"] == "delta" for m in watching.seen)  # live: a delta, not a new list
            seated = watching.request({"type": "take", "game": made["id"]})
            assert seated["type"] == "seated" and seated["seat"] == 1 and seated["game"] == made["id"]
            watching.wait_games(lambda g: made["id"] not in g)  # full: it leaves the list
        with socket(client, made["id"], [seated["token"]]) as game:
            assert game.seen[-1]["type"] == "welcome" and game.seen[-1]["seats"] == [1]
            assert game.state is not None and game.state["game"]["seats"][1]["claimed"]
        assert client.get("/api/lobby").json() == {"games": []}


def test_a_cooperative_game_waits_for_several_and_leaves_when_full(db: Any) -> None:
    with served(db) as client:
        host = person(client)
        seats = [{"kind": "here"}, {"kind": "online"}, {"kind": "online"}]
        made = open_game(client, host, mode="coop", seats=seats)
        listed = client.get("/api/lobby").json()["games"]
        assert [(g["id"], g["free"], g["seats"], g["rating"]) for g in listed] == [(made["id"], 2, 3, None)]
        with lobby(client, person(client)) as one:
            assert one.request({"type": "take", "game": made["id"]})["seat"] == 1
            one.wait_games(lambda g: g[made["id"]]["free"] == 1)
            with lobby(client, person(client)) as two:
                assert two.request({"type": "take", "game": made["id"]})["seat"] == 2
            one.wait_games(lambda g: made["id"] not in g)
            late = one.request({"type": "take", "game": made["id"]})
            assert late["type"] == "error" and late["code"] == "not-open"


def test_nobody_takes_their_own_open_game(db: Any) -> None:
    with served(db) as client:
        ann = person(client)
        made = open_game(client, ann)
        with lobby(client, ann) as mine:
            reply = mine.request({"type": "take", "game": made["id"]})
            assert reply["type"] == "error" and reply["code"] == "own-game"
        assert client.get("/api/lobby").json()["games"][0]["free"] == 1


@pytest.mark.storage
def test_quick_pairing_seats_both_players_in_one_new_game(db: Any) -> None:
    with served(db) as client:
        ann, bob = person(client), person(client)
        with lobby(client, ann) as a, lobby(client, bob) as b:
            seek(a, "head-to-head", "5+3", rated=True)
            seek(b, "head-to-head", "5+3", rated=True)
            pa = a.wait(lambda m: m["type"] == "paired")
            pb = b.wait(lambda m: m["type"] == "paired")
        assert pa["game"] == pb["game"] and {pa["seat"], pb["seat"]} == {0, 1}
        assert pa["mode"] == "head-to-head"
        (line,) = client.get("/api/me/games", headers=ann).json()["games"]
        assert line["id"] == pa["game"] and line["rated"] is True and line["clock"] == "5+3"
        for paired in (pa, pb):
            with socket(client, paired["game"], [paired["token"]]) as game:
                assert game.seen[-1]["seats"] == [paired["seat"]]
        state = client.get(f"/api/games/{pa['game']}").json()
        assert all(s["kind"] == "online" and s["claimed"] for s in state["seats"])
        health = client.get("/api/health").json()["lobby"]
        assert health["seeks"] == 2 and health["paired"] == 2 and health["waiting"] == 0


def test_only_compatible_seeks_are_paired_and_never_a_player_with_themselves(db: Any) -> None:
    with served(db) as client:
        ann, bob = person(client), person(client)
        with lobby(client, ann) as a1, lobby(client, ann) as a2, lobby(client, bob) as b:
            seek(a1, "duel", "3+2")
            seek(a2, "duel", "3+2")  # the same player in another tab: not paired with themselves
            seek(b, "duel", "5+3")  # another clock
            seek(b, "duel", "3+2", rated=True)  # rated, the others casual
            seek(b, "duel", "3+2")  # this one pairs, with one of Ann's two
            paired = b.wait(lambda m: m["type"] == "paired")

            def pairs_of_ann() -> list[Json]:
                return [m for s in (a1, a2) for m in s.seen if m["type"] == "paired"]

            until(
                lambda: (
                    bool([a1.request({"type": "ping"}), a2.request({"type": "ping"})])
                    and bool(pairs_of_ann())
                )
            )
            assert [m["game"] for m in pairs_of_ann()] == [paired["game"]]
            assert len([m for m in b.seen if m["type"] == "paired"]) == 1


def test_a_seek_ends_when_its_socket_closes(db: Any) -> None:
    with served(db) as client:
        with lobby(client, person(client)) as gone:
            seek(gone)
        # (the server learns of the close when it reads it: a seek sent before may meet it)
        until(lambda: client.get("/api/health").json()["lobby"]["waiting"] == 0)
        with lobby(client, person(client)) as b, lobby(client, person(client)) as c:
            seek(b)
            seek(c)
            pb, pc = b.wait(lambda m: m["type"] == "paired"), c.wait(lambda m: m["type"] == "paired")
            assert pb["game"] == pc["game"]


def test_a_seek_whose_socket_closed_before_its_row_went_is_never_paired(db: Any) -> None:
    """The pairing may read a seek whose socket has just closed, before its row is deleted: the
    player paired with it is not seated against nobody but seeks again, and meets the next."""
    with served(db) as client:
        app: Any = client.app
        storage = app.state.hub.storage
        kept: list[str] = []

        async def keep(seek_id: str) -> None:  # as if the row's delete had not come yet
            kept.append(seek_id)

        storage.lobby_unseek = keep
        with lobby(client, person(client)) as gone:
            seek(gone)
        until(lambda: kept != [])
        with lobby(client, person(client)) as b:
            seek(b)  # the pairing meets the dead seek first (the oldest chooses first)
            b.request({"type": "ping"})
            assert not any(m["type"] == "paired" for m in b.seen)
            with lobby(client, person(client)) as c:
                seek(c)
                pb, pc = b.wait(lambda m: m["type"] == "paired"), c.wait(lambda m: m["type"] == "paired")
        assert pb["game"] == pc["game"]
        assert client.get("/api/health").json()["lobby"]["paired"] == 2


def test_a_seek_can_be_cancelled(db: Any) -> None:
    with served(db) as client, lobby(client, person(client)) as a:
        sid = seek(a)["seek"]["id"]
        assert a.request({"type": "cancel", "seek": sid})["type"] == "cancelled"
        again = a.request({"type": "cancel", "seek": sid})
        assert again["type"] == "error" and again["code"] == "no-seek"
        with lobby(client, person(client)) as b:
            seek(b)
            b.request({"type": "ping"})
            assert not any(m["type"] == "paired" for m in a.seen + b.seen)


@pytest.mark.storage
def test_a_player_has_at_most_three_open_games_and_seeks(db: Any) -> None:
    with served(db) as client:
        ann = person(client)
        open_game(client, ann)
        with lobby(client, ann) as a:
            seek(a, "duel", "3+2")
            seek(a, "head-to-head", "5+3")
            fourth = a.request({"type": "seek", "mode": "duel", "clock": "10+5", "rated": False})
            assert fourth["type"] == "error" and fourth["code"] == "too-many"
            answer = client.post(
                "/api/games",
                json={"mode": "duel", "open": True, "seats": [{"kind": "here"}, {"kind": "online"}]},
                headers=ann,
            )
            assert answer.status_code == 429 and answer.json()["error"]["code"] == "too-many"
        assert len(client.get("/api/lobby").json()["games"]) == 1  # nothing more was made


def test_bad_lobby_messages_are_answered_and_change_nothing(db: Any) -> None:
    with served(db) as client:
        with lobby(client, person(client)) as a:
            for message, code in (
                ({"type": "seek", "mode": "coop", "clock": None}, "bad-message"),
                ({"type": "seek", "mode": "chess", "clock": "3+2"}, "bad-message"),
                ({"type": "seek", "mode": "duel", "clock": "2+2+2"}, "bad-message"),
                ({"type": "seek", "mode": "duel", "clock": "3+2", "rated": "yes"}, "bad-message"),
                ({"type": "take", "game": "nope"}, "not-open"),
                ({"type": "take"}, "bad-message"),
                ({"type": "dance"}, "bad-message"),
            ):
                reply = a.request(message)
                assert reply["type"] == "error" and reply["code"] == code, (message, reply)
            for text, code in (
                ('{"type": "seek", "mode": "duel\\ud800", "clock": "3+2", "id": 99}', "bad-message"),
                ("not json", "bad-json"),
            ):
                a.ws.send_text(text)
                reply = a.receive()
                assert reply["type"] == "error" and reply["code"] == code, reply
            assert a.request({"type": "ping"})["type"] == "pong"
        with lobby(client) as nobody:  # no player: watches, cannot seek
            reply = nobody.request({"type": "seek", "mode": "duel", "clock": "3+2"})
            assert reply["code"] == "no-player"
        for body in (
            {"mode": "duel", "open": "yes", "seats": [{"kind": "here"}, {"kind": "online"}]},
            {"mode": "duel", "open": True, "seats": [{"kind": "here"}, {"kind": "here"}]},
            {"mode": "duel", "open": True, "seats": [{"kind": "here"}, {"kind": "online"}], "clock": "9x"},
        ):
            answer = client.post("/api/games", json=body, headers=person(client))
            assert answer.status_code == 400 and answer.json()["error"]["code"] == "bad-message", answer.text
        assert client.get("/api/lobby").json()["games"] == []


@contextmanager
def servers(url: Any, count: int = 2) -> Iterator[list[TestClient]]:
    with ExitStack() as stack:
        yield [stack.enter_context(served(url)) for _ in range(count)]


def test_two_players_on_two_servers_are_paired_and_play_a_rated_game(pg_url: str) -> None:
    """Their lobby sockets on different servers of one PostgreSQL database: one pairs both (the
    seeks in the database, SKIP LOCKED), the other seats its player (told on dorf_lobby); they
    play the rated game to the end, each on their own server, and it is rated once, the same
    seen from either server."""
    from dorf.server.players import glicko

    with servers(pg_url) as (one, two):
        ann, bob = person(one), person(two)
        names = [s.post("/api/me", headers=who).json()["name"] for s, who in ((one, ann), (two, bob))]
        with lobby(one, ann) as a, lobby(two, bob) as b:
            seek(a, "duel", "3+2", rated=True)
            seek(b, "duel", "3+2", rated=True)
            pa = a.wait(lambda m: m["type"] == "paired")
            pb = b.wait(lambda m: m["type"] == "paired")
        game_id = pa["game"]
        assert pb["game"] == game_id and {pa["seat"], pb["seat"]} == {0, 1}
        with socket(one, game_id, [pa["token"]]) as left, socket(two, game_id, [pb["token"]]) as right:
            assert left.seen[-1]["seats"] == [pa["seat"]] and right.seen[-1]["seats"] == [pb["seat"]]
            by_seat = {pa["seat"]: left, pb["seat"]: right}
            for _ in range(400):
                if left.sync()["game"]["over"]:
                    break
                for seat, sock in sorted(by_seat.items()):
                    now = sock.sync()
                    if not now["game"]["over"] and seat in now["game"]["waiting"]:
                        assert sock.request(legal_move(now, seat))["type"] == "ok"
                until(lambda: right.sync()["game"]["version"] == left.sync()["game"]["version"])
            final = left.sync()["game"]
        assert final["over"] and two.get(f"/api/games/{game_id}/players").json()["rated"] is True
        winner = final["winner"]
        score = 0.5 if winner is None else 1.0 - winner  # seat 0's score
        expected = glicko.game(glicko.new(), glicko.new(), score)
        seat_of = {names[0]: pa["seat"], names[1]: pb["seat"]}
        until(lambda: one.get(f"/api/players/{names[0]}").json()["ratings"]["duel"]["games"] == 1)
        for server in (one, two):
            for name in names:
                duel = server.get(f"/api/players/{name}").json()["ratings"]["duel"]
                assert duel["games"] == 1
                assert duel["rating"] == round(expected[seat_of[name]].rating, 2)


def test_an_open_game_made_on_one_server_is_listed_live_on_the_other(pg_url: str) -> None:
    with servers(pg_url) as (one, two):
        ann, bob = person(one), person(two)
        with lobby(two, bob) as watching:
            made = open_game(one, ann)
            watching.wait_games(lambda g: made["id"] in g)
            seated = watching.request({"type": "take", "game": made["id"]})
            assert seated["type"] == "seated"
            watching.wait_games(lambda g: made["id"] not in g)
        with lobby(one, ann) as there:
            there.wait_games(lambda g: made["id"] not in g)


def paired_game(
    client: TestClient, ann: dict[str, str], bob: dict[str, str], clock: str = "3+2"
) -> tuple[Json, Json]:
    with lobby(client, ann) as a, lobby(client, bob) as b:
        seek(a, "duel", clock)
        seek(b, "duel", clock)
        return a.wait(lambda m: m["type"] == "paired"), b.wait(lambda m: m["type"] == "paired")


@pytest.mark.storage
@pytest.mark.slow
def test_your_games_your_move_first_and_a_rematch_offered_to_the_other(db: Any) -> None:
    import random

    from test_server_helpers import play_out

    with served(db) as client:
        ann, bob = person(client), person(client)
        first_a, first_b = paired_game(client, ann, bob, "5+3")
        second_a, _ = paired_game(client, ann, bob, "10+5")
        games = client.get("/api/me/games", headers=ann).json()["games"]
        assert {g["id"] for g in games} == {first_a["game"], second_a["game"]}
        assert all(not g["over"] and g["clock"] in ("5+3", "10+5") for g in games)
        moving = [g["your_move"] for g in games]
        assert moving == sorted(moving, reverse=True)  # the player's move first
        # the first game played to its end, both seats from one socket
        with socket(client, first_a["game"], [first_a["token"], first_b["token"]]) as both:
            final = play_out(both, [0, 1], random.Random(4))
        assert final["game"]["over"]
        line = next(
            g for g in client.get("/api/me/games", headers=ann).json()["games"] if g["id"] == first_a["game"]
        )
        assert line["over"] and line["rematch"] and line["result"] in ("won", "lost", "draw")
        assert line["opponents"] and line["seats"] == [first_a["seat"]]
        refused = client.post(f"/api/games/{second_a['game']}/rematch", json={}, headers=ann)
        assert refused.status_code == 409 and refused.json()["error"]["code"] == "not-over"
        stranger = client.post(f"/api/games/{first_a['game']}/rematch", json={}, headers=person(client))
        assert stranger.status_code == 403 and stranger.json()["error"]["code"] == "not-your-game"
        made = client.post(f"/api/games/{first_a['game']}/rematch", json={}, headers=ann)
        assert made.status_code == 201, made.text
        again = made.json()
        new = client.get(f"/api/games/{again['id']}").json()
        old = client.get(f"/api/games/{first_a['game']}").json()
        assert [s["name"] for s in new["seats"]] == [s["name"] for s in reversed(old["seats"])]
        assert new["clock"]["clock"] == "5+3"  # the same clock
        assert list(again["tokens"]) == [str(1 - first_a["seat"])]  # Ann's seat, now the other one
        assert client.get("/api/lobby").json()["games"] == []  # offered to Bob alone, not listed
        offers = client.get("/api/me/games", headers=bob).json()["offers"]
        assert [o["id"] for o in offers] == [again["id"]]
        with lobby(client, person(client)) as other:
            assert other.request({"type": "take", "game": again["id"]})["code"] == "not-open"
        with lobby(client, bob) as b:
            seated = b.request({"type": "take", "game": again["id"]})
            assert seated["type"] == "seated" and seated["seat"] == first_a["seat"]
        assert client.get("/api/me/games", headers=bob).json()["offers"] == []


def test_the_creator_withdraws_an_open_game_and_its_link_still_works(db: Any) -> None:
    with served(db) as client:
        ann, bob = person(client), person(client)
        made = open_game(client, ann)
        with lobby(client, bob) as b:
            refused = b.request({"type": "withdraw", "game": made["id"]})
            assert refused["type"] == "error" and refused["code"] == "not-open"  # not Bob's
            with lobby(client, ann) as a:
                assert a.request({"type": "withdraw", "game": made["id"]})["type"] == "withdrawn"
            b.wait_games(lambda g: made["id"] not in g)
            assert b.request({"type": "take", "game": made["id"]})["code"] == "not-open"
        joined = client.post(
            f"/api/games/{made['id']}/join", json={"invite": made["invites"]["1"]}, headers=bob
        )
        assert joined.status_code == 200 and joined.json()["seat"] == 1


def test_waiting_seeks_are_paired_again_as_they_wait(db: Any) -> None:
    """A pool is paired again every SWEEP seconds while a seek of the server waits (the ranges
    widen with the wait): seeks the rule refused at first are paired without any new seek."""
    from dorf.server.lobby.pairing import Seek, pairs

    with served(db) as client:
        app: Any = client.app
        lobby_of = app.state.hub.lobby
        asked: list[float] = []
        allow = {"now": False}

        def rule(seeks: list[Seek], now: float) -> list[tuple[Seek, Seek]]:
            asked.append(now)
            return pairs(seeks, now) if allow["now"] else []

        lobby_of.rule = rule
        with lobby(client, person(client)) as a, lobby(client, person(client)) as b:
            seek(a)
            seek(b)
            b.request({"type": "ping"})
            assert not any(m["type"] == "paired" for m in a.seen + b.seen)
            before = len(asked)
            allow["now"] = True  # as if the range had widened
            pa, pb = a.wait(lambda m: m["type"] == "paired"), b.wait(lambda m: m["type"] == "paired")
            assert pa["game"] == pb["game"] and len(asked) > before


def test_the_seeks_of_a_server_that_died_are_forgotten(pg_url: str) -> None:
    import psycopg

    with served(pg_url) as client:
        app: Any = client.app
        with lobby(client, person(client)) as mine:
            sid = seek(mine, "duel", "15+10")["seek"]["id"]
            with psycopg.connect(pg_url, autocommit=True) as conn:
                conn.execute(  # another pool: nobody pairs it meanwhile
                    "INSERT INTO lobby_seek (id, player, name, rating, rd, mode, clock, rated, since,"
                    " instance) VALUES ('ghost', 'p', 'Ghost', 1500, 500, 'duel', '10+5', 0, 0, 'dead')"
                )
                client.portal.call(app.state.hub.storage.lobby_sweep)
                left = [row[0] for row in conn.execute("SELECT id FROM lobby_seek").fetchall()]
            assert left == [sid]  # the live server's seek stays, the dead one's is gone
            assert not any(m["type"] == "paired" for m in mine.seen)


@pytest.mark.slow  # waits out the 2 s the range takes to widen
def test_two_established_ratings_too_far_apart_are_paired_once_the_range_has_widened(db: Any) -> None:
    """The real rule on real ratings: 1500 and 1620, both with RD 60, are 120 apart, more than
    the 100 accepted at once (lichess's pool range at 1500); after 2 s of waiting the range is
    120 and the same two seeks are paired, with no new seek and no change to the rule."""
    import sqlite3
    import time

    from dorf.server.lobby.pairing import GROW_PER_SECOND, base_range

    gap = 120.0
    wait = (gap - base_range(1500)) / GROW_PER_SECOND  # 2 s
    with served(db) as client:
        ann, bob = person(client), person(client)
        names = [client.post("/api/me", headers=who).json()["name"] for who in (ann, bob)]
        with sqlite3.connect(db) as conn:
            for name, rating in zip(names, (1500.0, 1500.0 + gap), strict=True):
                conn.execute(
                    "INSERT INTO server_rating (player_id, mode, rating, rd, volatility, games, played)"
                    " SELECT id, 'duel', ?, 60, 0.06, 40, ? FROM server_player WHERE name = ?",
                    (rating, time.time(), name),
                )
        with lobby(client, ann) as a, lobby(client, bob) as b:
            assert seek(a, rated=True)["seek"]["rating"] == 1500
            started = time.monotonic()
            assert seek(b, rated=True)["seek"]["rating"] == 1620
            b.request({"type": "ping"})
            assert not any(m["type"] == "paired" for m in a.seen + b.seen)  # too far apart at once
            pa, pb = a.wait(lambda m: m["type"] == "paired"), b.wait(lambda m: m["type"] == "paired")
            waited = time.monotonic() - started
    assert pa["game"] == pb["game"]
    assert waited >= wait - 0.1, waited  # not before the range reached the gap
    assert waited < wait + 2.0, waited  # and soon after (a sweep every 0.5 s)
