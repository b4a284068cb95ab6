"""The computer levels and the coach's hint over HTTP (``GET /api/levels``, ``POST /api/games/ID/hint``)."""

from __future__ import annotations

from pathlib import Path

import pytest
from test_server_helpers import create, served

pytestmark = pytest.mark.usefixtures("quick_coach")  # checks the route, not the advice


def test_the_levels_are_listed_with_their_labels_and_figures(db: Path) -> None:
    with served(db) as client:
        levels = client.get("/api/levels").json()["levels"]
    assert [level["name"] for level in levels] == ["easy", "medium", "hard", "expert"]
    for level in levels:
        assert level["player"] == level["name"] and level["label"] == level["name"].title()
        assert isinstance(level["figure"], str) and level["figure"]
        assert set(level["figures"]) == {"coop", "duel", "head-to-head"}


def test_a_level_is_a_computer_seat(db: Path) -> None:
    with served(db) as client:
        made = create(client, mode="duel", seats=[{"kind": "here"}, {"kind": "computer", "player": "easy"}])
        seats = client.get(f"/api/games/{made['id']}").json()["seats"]
        assert seats[1]["player"] == "easy"


def test_a_hint_names_a_legal_placement_and_why(db: Path) -> None:
    with served(db) as client:
        made = create(client)
        gid, token = made["id"], made["tokens"]["0"]
        client.post(f"/api/games/{gid}/move", json={"seat": 0, "at": [0, 0], "rot": 0, "token": token})
        answer = client.post(f"/api/games/{gid}/hint", json={"token": token, "seat": 0})
        assert answer.status_code == 200, answer.text
        hint = answer.json()["hint"]
        q, r = hint["at"]
        preview = client.post(
            f"/api/games/{gid}/preview", json={"seat": 0, "at": [q, r], "rot": hint["rot"], "token": token}
        )
        assert preview.status_code == 200  # a legal placement
        assert hint["text"].startswith(f"Place at {q},{r} turned {hint['rot']}")
        assert isinstance(hint["reasons"], list) and hint["reasons"]
        assert client.get(f"/api/games/{gid}").json()["version"] == 1  # asking changed nothing


def test_a_hint_in_the_head_to_head_draft_is_a_pick(db: Path) -> None:
    with served(db) as client:
        made = create(client, mode="head-to-head", seats=[{"kind": "here"}, {"kind": "here"}])
        gid, token = made["id"], made["tokens"]["0"]
        hint = client.post(f"/api/games/{gid}/hint", json={"token": token, "seat": 0}).json()["hint"]
        pool = [tile["id"] for tile in client.get(f"/api/games/{gid}").json()["pool"]]
        assert hint["pick"] in pool and hint["text"].startswith(f"Take tile {hint['pick']}")


def test_hints_are_refused_against_a_person_and_out_of_turn(db: Path) -> None:
    with served(db) as client:
        seats = [{"kind": "here", "name": "Ann"}, {"kind": "online"}]
        made = create(client, mode="duel", seed=None, seats=seats)
        gid, token = made["id"], made["tokens"]["0"]
        refused = client.post(f"/api/games/{gid}/hint", json={"token": token, "seat": 0})
        assert refused.status_code == 403 and refused.json()["error"]["code"] == "no-hint"
        missing = client.post(f"/api/games/{gid}/hint", json={"seat": 0})
        assert missing.status_code == 401
        hot_seat = create(client, mode="coop", seats=[{"kind": "here"}, {"kind": "here"}])
        hid, second = hot_seat["id"], hot_seat["tokens"]["1"]
        waiting = client.post(f"/api/games/{hid}/hint", json={"token": second, "seat": 1})
        assert waiting.status_code == 409 and waiting.json()["error"]["code"] == "no-decision"
