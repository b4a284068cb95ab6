"""What players met (issue 61), the server's side: a bad link's page for a browser, whether the
coach gives hints said in the game's description, how a game ended in its replay and on the
profile, players' names on a casual online game's seats, and a rematch pushed live."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient
from test_players import another
from test_server_helpers import create, legal_move, served, socket, until

ONLINE_DUEL = [{"kind": "here"}, {"kind": "online"}]


def me(client: TestClient) -> dict[str, Any]:
    """This browser's player, made if it is none yet (``POST /api/me``: a read makes nobody)."""
    answer = client.post("/api/me", json={})
    assert answer.status_code == 200, answer.text
    body: dict[str, Any] = answer.json()
    return body


HTML = {"Accept": "text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8"}


def duel_of_two(ann: TestClient, bob: TestClient, **more: Any) -> tuple[str, str, str]:
    """A Duel by link: ``ann`` here at seat 0, ``bob`` joins seat 1 (players both: the site opened
    first); the tokens."""
    me(ann), me(bob)
    made = create(ann, "duel", ONLINE_DUEL, seed=None, **more)
    joined = bob.post(f"/api/games/{made['id']}/join", json={"invite": made["invites"]["1"]})
    assert joined.status_code == 200, joined.text
    return made["id"], made["tokens"]["0"], joined.json()["token"]


@pytest.mark.slow
def test_a_browser_gets_a_page_for_a_bad_link_and_a_program_keeps_its_json(db: Path) -> None:
    with served(db) as client:
        page = client.get("/no/such/page", headers=HTML)
        assert page.status_code == 404 and page.headers["content-type"].startswith("text/html")
        text = page.text
        assert "Nothing here" in text and "<code>/no/such/page</code>" in text and 'href="/"' in text
        assert 'rel="stylesheet"' in text and "/style.css" in text and '<html lang="en"' in text
        german = client.get("/nirgends", headers={**HTML, "Accept-Language": "de-DE,de;q=0.9"})
        assert (
            german.status_code == 404 and "Hier ist nichts" in german.text and "Zur Startseite" in german.text
        )
        assert '<html lang="de"' in german.text
        hostile = client.get("/<script>alert(1)</script>", headers=HTML)
        assert "<script>alert" not in hostile.text and "&lt;script&gt;" in hostile.text
        for path, headers in (("/api/nothing", HTML), ("/no/such/page", {"Accept": "application/json"})):
            answer = client.get(path, headers=headers)
            assert answer.status_code == 404 and answer.json()["error"]["code"] == "not-found"
        assert client.get("/static/nothing.js", headers=HTML).json()["error"]["code"] == "not-found"


def test_the_description_says_whether_the_coach_gives_hints(db: Path) -> None:
    with served(db) as ann:
        bob = another(ann)
        solo = create(ann, "coop", [{"kind": "here"}])
        assert ann.get(f"/api/games/{solo['id']}").json()["hints"] is True
        computer = create(ann, "duel", [{"kind": "here"}, {"kind": "computer", "player": "random"}])
        assert ann.get(f"/api/games/{computer['id']}").json()["hints"] is True
        game_id, ann_token, _ = duel_of_two(ann, bob, rated=True)
        assert ann.get(f"/api/games/{game_id}").json()["hints"] is False
        coop = create(ann, "coop", [{"kind": "here"}, {"kind": "online"}, {"kind": "online"}], seed=None)
        assert ann.get(f"/api/games/{coop['id']}").json()["hints"] is False  # the host's too
        with socket(ann, game_id, [ann_token]) as sock:
            assert sock.sync()["game"]["hints"] is False
        refusal = ann.post(f"/api/games/{game_id}/hint", json={"token": ann_token, "seat": 0})
        assert refusal.status_code == 403 and refusal.json()["error"]["code"] == "no-hint"


def test_a_replay_says_how_the_game_ended(db: Path) -> None:
    with served(db) as ann:
        bob = another(ann)
        game_id, ann_token, _ = duel_of_two(ann, bob)
        resigned = ann.post(f"/api/games/{game_id}/resign", json={"token": ann_token, "seat": 0})
        assert resigned.status_code == 200, resigned.text
        replay = ann.get(f"/api/games/{game_id}/replay").json()
        record = ann.get(f"/api/games/{game_id}/record").json()
        winner = record["players"].index(me(bob)["name"])  # the record's player number
        assert (replay["end"], replay["winner"], replay["finished"]) == ("resign", winner, True)
        on_time = ann.post("/api/replay", json={**record, "end": "time"}).json()
        assert (on_time["end"], on_time["winner"], on_time["finished"]) == ("time", winner, True)
        aborted = ann.post("/api/replay", json={**record, "end": "aborted", "winner": None}).json()
        assert (aborted["end"], aborted["winner"]) == ("aborted", None)
        unfinished = ann.post(
            "/api/replay", json={k: v for k, v in record.items() if k not in ("end", "winner")}
        )
        assert unfinished.json()["end"] is None and unfinished.json()["finished"] is False
        for bad in ({"end": "bored"}, {"end": "time", "winner": 7}, {"end": "time", "winner": "Ann"}):
            answer = ann.post("/api/replay", json={**record, **bad})
            assert answer.status_code == 400 and answer.json()["error"]["code"] == "bad-record", bad


def test_a_casual_online_game_names_its_seats_after_their_players(db: Path) -> None:
    with served(db) as ann:
        bob = another(ann)
        game_id, _, _ = duel_of_two(ann, bob)
        seats = ann.get(f"/api/games/{game_id}").json()["seats"]
        assert [s["name"] for s in seats] == [me(ann)["name"], me(bob)["name"]]
        # A name typed still wins; a game at one screen keeps its seats' numbers.
        typed = create(ann, "duel", [{"kind": "here", "name": "Ann"}, {"kind": "online"}], seed=None)
        joined = bob.post(
            f"/api/games/{typed['id']}/join", json={"invite": typed["invites"]["1"], "name": "Bob"}
        )
        assert joined.status_code == 200
        assert [s["name"] for s in ann.get(f"/api/games/{typed['id']}").json()["seats"]] == ["Ann", "Bob"]
        solo = create(ann, "coop", [{"kind": "here"}])
        assert ann.get(f"/api/games/{solo['id']}").json()["seats"][0]["name"] == "Player 1"


def test_a_rematch_is_pushed_to_the_other_player_at_once(db: Path) -> None:
    with served(db) as ann:
        bob = another(ann)
        game_id, ann_token, bob_token = duel_of_two(ann, bob, clock="5+3")
        assert (
            ann.post(f"/api/games/{game_id}/resign", json={"token": ann_token, "seat": 0}).status_code == 200
        )
        with socket(bob, game_id, [bob_token]) as game_socket, bob.websocket_connect("/ws/lobby") as lobby:
            assert lobby.receive_json()["type"] == "lobby"
            game_socket.sync()
            made = ann.post(f"/api/games/{game_id}/rematch", json={})
            assert made.status_code == 201, made.text
            new_id = made.json()["id"]
            pushed = next(m for m in iter(game_socket.receive, None) if m["type"] == "rematch")
            assert pushed == {
                "type": "rematch",
                "game": new_id,
                "mode": "duel",
                "clock": "5+3",
                "rated": False,
                "name": me(ann)["name"],
            }
            heard = next(m for m in iter(lobby.receive_json, None) if m["type"] == "rematch")
            assert heard["game"] == new_id
        taken = bob.post(f"/api/lobby/{new_id}/take", json={})
        assert taken.status_code == 200 and taken.json()["game"] == new_id


def test_the_profile_says_how_a_rated_game_ended(db: Path) -> None:
    with served(db) as ann:
        bob = another(ann)
        game_id, ann_token, bob_token = duel_of_two(ann, bob, rated=True)
        with socket(ann, game_id, [ann_token]) as left, socket(bob, game_id, [bob_token]) as right:
            for _ in range(2):  # a move each at least: a game of fewer is not rated
                for sock, seat in ((left, 0), (right, 1)):
                    now = sock.sync()
                    if seat in now["game"]["waiting"]:
                        assert sock.request(legal_move(now, seat))["type"] == "ok"
        assert (
            ann.post(f"/api/games/{game_id}/resign", json={"token": ann_token, "seat": 0}).status_code == 200
        )
        name = me(ann)["name"]
        until(lambda: bool(ann.get(f"/api/players/{name}").json()["games"]))
        line = ann.get(f"/api/players/{name}").json()["games"][0]
        assert (line["id"], line["result"], line["end"]) == (game_id, "lost", "resign")
