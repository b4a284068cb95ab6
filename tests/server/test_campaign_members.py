"""The group's campaign on the site (issue 63, item 4): a campaign is its members'; they join by
its link, "Next game" makes a cooperative game of their seats, and that game is recorded into the
campaign by itself when it ends; a player who is not a member can neither list, see nor change
it.  The campaigns of before (the old tables of the server's SQLite file) are kept, and with
PostgreSQL two servers show the same campaign."""

from __future__ import annotations

import random
import sqlite3
from collections.abc import Iterator
from contextlib import ExitStack, contextmanager
from datetime import date
from pathlib import Path
from typing import Any

import psycopg
import pytest
from fastapi.testclient import TestClient
from test_server_helpers import Json, play_out, served, socket, until

from dorf.campaign import Campaigns
from dorf.campaign.pad import Limits, read_pad

#: Every new player and game from the test's one address is allowed.
OPEN = {"player_limit": 0, "create_limit": 0}


def person(client: TestClient) -> TestClient:
    """Another browser on the same running app: a cookie jar of its own."""
    other = TestClient(client.app)
    other.portal = client.portal
    return other


def ok(answer: Any, status: int = 200) -> Json:
    assert answer.status_code == status, answer.text
    result: Json = answer.json()
    return result


def join_code(link: str) -> tuple[str, str]:
    """``/campaigns/ID/join/CODE``: the id and the code."""
    parts = link.split("/")
    assert parts[1] == "campaigns" and parts[3] == "join", link
    return parts[2], parts[4]


def take_seat(client: TestClient, join: str) -> str:
    """Take the seat of a game's join link ``/join/GAME/CODE``: its token."""
    _, _, game_id, code = join.split("/")
    answer = ok(client.post(f"/api/games/{game_id}/join", json={"invite": code}))
    token: str = answer["token"]
    return token


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Iterator[TestClient]:
    """One server (SQLite) for the tests of a group: each test brings players of its own."""
    with served(tmp_path_factory.mktemp("site") / "dorf.sqlite3", **OPEN) as client:
        yield client


@contextmanager
def group(site: TestClient) -> Iterator[tuple[TestClient, TestClient, TestClient, TestClient, str]]:
    """Lea makes a campaign, Max and Nia join it by its link; Dan is a player of the site too
    (four new players). The four clients and the campaign's id."""
    lea, max_, nia, dan = (person(site) for _ in range(4))
    made = ok(lea.post("/api/campaigns", json={"name": "Family"}), 201)
    cid, code = join_code(made["link"])
    assert cid == made["id"]
    for member in (max_, nia):
        assert ok(member.post(f"/api/campaigns/{cid}/join", json={"code": code}))["joined"] is True
    assert ok(max_.post(f"/api/campaigns/{cid}/join", json={"code": code}))["joined"] is False  # once
    ok(dan.post("/api/campaigns", json={"name": "Dan's own"}), 201)
    yield lea, max_, nia, dan, cid


def next_game(lea: TestClient, max_: TestClient, nia: TestClient, cid: str) -> tuple[str, list[str], Json]:
    """Lea starts the campaign's next game and each member takes their seat: the game, the three
    seats' tokens, and the campaign as it was."""
    view = ok(lea.get(f"/api/campaigns/{cid}"))
    started = ok(lea.post(f"/api/campaigns/{cid}/next", json={}), 201)
    game_id: str = started["game"]
    tokens = [take_seat(lea, started["join"])]
    for member in (max_, nia):
        seen = ok(member.get(f"/api/campaigns/{cid}"))["next"]
        assert seen["game"] == game_id and seen["join"] and seen["join"] != started["join"]
        tokens.append(take_seat(member, seen["join"]))
        assert ok(member.get(f"/api/campaigns/{cid}"))["next"]["join"] is None  # taken: gone
    return game_id, tokens, view


@pytest.mark.slow
def test_next_game_is_a_cooperative_game_of_the_members_seats(site: TestClient) -> None:
    with group(site) as (lea, max_, nia, _dan, cid):
        view = ok(lea.get(f"/api/campaigns/{cid}"))
        assert len(view["members"]) == 3 and view["next"] is None and view["you"] == 0
        assert view["link"] == f"/campaigns/{cid}/join/{join_code(view['link'])[1]}"
        for member in (lea, max_, nia):
            listed = ok(member.get("/api/campaigns"))["campaigns"]
            assert [c["id"] for c in listed] == [cid] and listed[0]["members"] == 3
        game_id, _tokens, view = next_game(lea, max_, nia, cid)
        again = lea.post(f"/api/campaigns/{cid}/next", json={})  # one next game at a time
        assert again.status_code == 409 and again.json()["error"]["code"] == "next-waiting"
        game = ok(lea.get(f"/api/games/{game_id}"))
        assert game["mode"] == "coop" and len(game["seats"]) == 3
        assert [s["name"] for s in game["seats"]] == view["members"]
        # Each member's games list holds it now (the seat's player is theirs).
        for member in (lea, max_, nia):
            assert game_id in [g["id"] for g in ok(member.get("/api/me/games"))["games"]]


def test_the_next_game_is_recorded_into_the_campaign_by_itself_when_it_ends(site: TestClient) -> None:
    with group(site) as (lea, max_, nia, _dan, cid):
        game_id, tokens, view = next_game(lea, max_, nia, cid)
        with socket(lea, game_id, tokens) as sock:
            final = play_out(sock, [0, 1, 2], random.Random(4))
        total = final["game"]["scores"][0]["total"]

        def recorded() -> bool:
            return bool(ok(nia.get(f"/api/campaigns/{cid}"))["games"])

        until(recorded)
        after = ok(max_.get(f"/api/campaigns/{cid}"))
        assert after["totals"]["games"] == 1 and after["games"][0]["pad"]["total"] == total
        assert after["games"][0]["players"] == view["members"]
        assert after["next"]["recorded"] == 1 and after["next"]["over"] is True
        # Recording it by hand again is refused: a game goes into a campaign once.
        twice = lea.post(f"/api/campaigns/{cid}/record", json={"game": game_id})
        assert twice.status_code == 400 and "already recorded" in twice.json()["error"]["message"]
        # The next one may start now.
        assert ok(lea.post(f"/api/campaigns/{cid}/next", json={}), 201)["game"] != game_id


def test_a_player_who_is_not_a_member_can_neither_list_see_nor_change_it(site: TestClient) -> None:
    with group(site) as (lea, _max, _nia, dan, cid):
        assert [c["name"] for c in ok(dan.get("/api/campaigns"))["campaigns"]] == ["Dan's own"]
        refusals = [
            dan.get(f"/api/campaigns/{cid}"),
            dan.get(f"/api/campaigns/{cid}/score.svg"),
            dan.get(f"/api/campaigns/{cid}/track.svg"),
            dan.post(f"/api/campaigns/{cid}/record", json={"game": "nothing"}),
            dan.post(f"/api/campaigns/{cid}/choose", json={"branch": "b1"}),
            dan.post(f"/api/campaigns/{cid}/rename", json={"name": "Mine now"}),
            dan.post(f"/api/campaigns/{cid}/archive", json={"archived": True}),
            dan.post(f"/api/campaigns/{cid}/next", json={}),
        ]
        for answer in refusals:
            assert answer.status_code == 403, answer.text
            assert answer.json()["error"]["code"] == "not-a-member"
            assert "not yours" in answer.json()["error"]["message"]
        wrong = dan.post(f"/api/campaigns/{cid}/join", json={"code": "guessed"})
        assert wrong.status_code == 403 and wrong.json()["error"]["code"] == "bad-code"
        visitor = person(site)  # no player at all
        assert visitor.get(f"/api/campaigns/{cid}").status_code == 403
        assert ok(visitor.get("/api/campaigns")) == {"campaigns": []}
        # By name, another's campaign is simply not among Dan's.
        assert dan.get("/api/campaigns/Family").status_code == 404
        # Nothing changed; the members rename and archive it.
        view = ok(lea.get(f"/api/campaigns/{cid}"))
        assert view["name"] == "Family" and not view["archived"] and len(view["members"]) == 3
        assert ok(lea.post(f"/api/campaigns/{cid}/rename", json={"name": "Family II"}))["name"] == "Family II"
        assert ok(lea.post(f"/api/campaigns/{cid}/archive", json={"archived": True}))["archived"] is True
        assert ok(lea.get("/api/campaigns/Family II"))["archived"] is True


def test_a_member_who_deletes_their_account_leaves_the_campaign(site: TestClient) -> None:
    with group(site) as (lea, _max, nia, _dan, cid):
        name = ok(nia.get("/api/me"))["name"]
        assert name in ok(lea.get(f"/api/campaigns/{cid}"))["members"]
        ok(nia.post("/api/me/delete", json={"name": name}))
        members = ok(lea.get(f"/api/campaigns/{cid}"))["members"]
        assert len(members) == 2 and name not in members


def old_file(path: Path) -> None:
    """A server's SQLite file with a campaign of before, kept by dorf.campaign.store's tables."""
    with Campaigns.open(path) as old:
        old.create("Old Friends")
        pad = read_pad({"tasks": {"forest": 15, "river": 11}, "longest_river": 9}, Limits.base())
        old.record("Old Friends", pad, players=["Ann", "Ben"], played=date(2026, 11, 1))
        old.create("Old Neighbours")


def test_the_campaigns_of_before_are_kept_once_and_the_first_to_open_one_takes_it(tmp_path: Path) -> None:
    db = tmp_path / "dorf.sqlite3"
    old_file(db)
    with served(db, **OPEN) as ann:
        ben = person(ann)
        ok(ben.post("/api/campaigns", json={"name": "Ben's"}), 201)
        ok(ann.post("/api/campaigns", json={"name": "Ann's"}), 201)
        assert "Old Friends" not in [c["name"] for c in ok(ann.get("/api/campaigns"))["campaigns"]]
        kept = ok(ann.get("/api/campaigns/Old Friends"))  # the old address: Ann takes it
        assert kept["games"][0]["players"] == ["Ann", "Ben"] and kept["totals"]["circles"] == 1
        assert kept["progress"]["reached"] == ["c1"] and kept["members"] == [kept["members"][0]]
        assert "Old Friends" in [c["name"] for c in ok(ann.get("/api/campaigns"))["campaigns"]]
        assert person(ann).get(f"/api/campaigns/{kept['id']}").status_code == 403  # a visitor: too late
        taken = ben.get("/api/campaigns/Old Friends")  # Ben comes second: it is Ann's
        assert taken.status_code == 404
        assert ben.get(f"/api/campaigns/{kept['id']}").json()["error"]["code"] == "not-a-member"
        # A browser new to the site takes a kept campaign too: it becomes a player then.
        visitor = person(ann)
        neighbours = ok(visitor.get("/api/campaigns/old neighbours"))
        assert neighbours["name"] == "Old Neighbours" and visitor.cookies
        assert [c["name"] for c in ok(visitor.get("/api/campaigns"))["campaigns"]] == ["Old Neighbours"]
    with served(db, **OPEN):  # started again: nothing is copied twice
        pass
    with sqlite3.connect(db) as conn:
        assert conn.execute("SELECT count(*) FROM server_campaign WHERE kept IS NOT NULL").fetchone() == (2,)
        assert conn.execute("SELECT count(*) FROM campaign").fetchone() == (2,)  # the terminal's, as it was


@pytest.mark.slow
def test_two_servers_on_postgresql_show_the_same_campaign(pg_url: str, tmp_path: Path) -> None:
    old = tmp_path / "campaigns.sqlite3"  # the file the campaigns of a PostgreSQL server were in
    old_file(old)
    with ExitStack() as stack:
        stack.enter_context(pytest.MonkeyPatch.context()).setenv("DORF_DB", str(old))
        one, two = (stack.enter_context(served(pg_url, **OPEN)) for _ in range(2))
        made = ok(one.post("/api/campaigns", json={"name": "Family"}), 201)
        cid, code = join_code(made["link"])
        lea_there = person(two)
        lea_there.cookies.update(one.cookies)  # Lea's browser, answered by the other server
        assert ok(lea_there.get(f"/api/campaigns/{cid}"))["name"] == "Family"
        max_ = person(two)
        assert ok(max_.post(f"/api/campaigns/{cid}/join", json={"code": code}))["joined"] is True
        assert len(ok(one.get(f"/api/campaigns/{cid}"))["members"]) == 2
        ok(max_.post(f"/api/campaigns/{cid}/rename", json={"name": "Family II"}))
        assert [c["name"] for c in ok(one.get("/api/campaigns"))["campaigns"]] == ["Family II"]
        # The old file's campaign was kept once, though two servers started.
        assert ok(one.get("/api/campaigns/Old Friends"))["totals"]["games"] == 1
        assert two.get("/api/campaigns/Old Friends").status_code in (403, 404)
        with psycopg.connect(pg_url) as conn:
            kept = conn.execute("SELECT count(*) FROM server_campaign WHERE kept IS NOT NULL").fetchone()
        assert kept == (2,)


def test_the_members_hear_that_the_next_game_waits_for_them(site: TestClient) -> None:
    """Nia's quiet lobby socket (any page of hers) hears ``campaign`` when Lea starts the next
    game, with the campaign's page to go to; Lea, who started it, and Dan hear nothing."""
    with (
        group(site) as (lea, _max, nia, dan, cid),
        nia.websocket_connect("/ws/lobby?only=attention") as heard,
        lea.websocket_connect("/ws/lobby?only=attention") as starter,
        dan.websocket_connect("/ws/lobby?only=attention") as other,
    ):
        for sock in (heard, starter, other):
            assert sock.receive_json()["type"] == "listening"
        started = ok(lea.post(f"/api/campaigns/{cid}/next", json={}), 201)
        told = heard.receive_json()
        assert told["type"] == "attention" and told["kind"] == "campaign"
        assert told["game"] == started["game"] and told["url"] == f"/campaigns/{cid}"
        for sock in (starter, other, heard):
            sock.send_json({"type": "ping"})
            assert sock.receive_json()["type"] == "pong"  # nothing before the answer
