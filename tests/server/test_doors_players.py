"""The doors hold (issue 60, items 1, 12, 13): a visitor is a player only once it does something
that needs one (reads make nobody), new players are limited per address, players who never
play are swept, a new visitor always gets a name, names that look alike are one name, a name
given up is held a while, and reading a day of the daily challenge writes nothing."""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient
from test_server_helpers import served, until

from dorf.db import connect, migrate
from dorf.server.players import accounts, names
from dorf.server.players.accounts import COOKIE
from dorf.server.players.names import name_key
from dorf.server.storage.base import StoredPlayer
from dorf.server.storage.people import NAMES_STEP
from dorf.server.storage.schema import SCHEMA

DAY = 86400.0


def refused(response: Any, status: int, code: str) -> None:
    assert response.status_code == status, response.text
    body = response.json()
    assert set(body) == {"error"} and body["error"]["code"] == code, body
    assert "\n" not in body["error"]["message"]


def another(client: TestClient) -> TestClient:
    """A second browser on the same app (its own cookies), run on ``client``'s event loop."""
    other = TestClient(client.app)
    other.portal = client.portal
    return other


def rows(db: Path, table: str, where: str = "") -> int:
    with sqlite3.connect(db) as conn:
        return int(conn.execute(f"SELECT count(*) FROM {table} {where}").fetchone()[0])


def become(client: TestClient, name: str | None = None) -> dict[str, Any]:
    """This browser becomes a player (a chosen name, or a random one)."""
    if name is None:
        response = client.post("/api/me", json={})
    else:
        response = client.post("/api/me/name", json={"name": name})
    assert response.status_code == 200, response.text
    assert response.headers["set-cookie"].startswith(f"{COOKIE}=")
    body: dict[str, Any] = response.json()
    assert body["player"] is True
    return body


class Clock:
    """The players' clock, moved on by hand."""

    def __init__(self) -> None:
        self.now = 1_800_000_000.0

    def __call__(self) -> float:
        return self.now


@contextmanager
def clocked(db: Path, **config: Any) -> Iterator[tuple[TestClient, Clock]]:
    with served(db, **config) as client:
        clock = Clock()
        client.app.state.hub.players.clock = clock
        yield client, clock


@pytest.mark.sqlite_only
@pytest.mark.slow
def test_reads_without_a_cookie_make_no_player(db: Path) -> None:
    with served(db) as client:
        for _ in range(50):  # the 1,000, fewer here: each is one request
            client.cookies.clear()
            answer = client.get("/api/me")
            assert answer.status_code == 200 and "set-cookie" not in answer.headers
            body = answer.json()
            assert body["player"] is False and body["name"] is None and body["signed_in"] is False
            assert body["ratings"]["duel"] == {"rating": 1500.0, "rd": 500.0, "games": 0, "provisional": True}
            mine = client.get("/api/me/games")
            assert mine.status_code == 200 and "set-cookie" not in mine.headers
            assert mine.json() == {"games": [], "offers": []}
        client.cookies.set(COOKIE, "x" * 43)  # a cookie that names nobody: a visitor too
        assert client.get("/api/me").json()["player"] is False
        refused(client.get("/api/me", headers={"Authorization": "Bearer dorf_" + "y" * 43}), 401, "bad-token")
        refused(client.post("/api/me/tokens", json={}), 401, "no-player")
        refused(client.post("/api/lobby/nosuchgame/take", json={}), 404, "not-open")
    assert rows(db, "server_player") == 0 and rows(db, "server_session") == 0


@pytest.mark.sqlite_only
@pytest.mark.slow
def test_a_visitor_becomes_a_player_with_the_first_thing_that_needs_one(db: Path) -> None:
    with served(db) as client:
        assert client.get("/api/me").json()["player"] is False
        chosen = become(client, "Quinn")
        assert chosen["name"] == "Quinn" and client.get("/api/me").json()["name"] == "Quinn"
        drawn = become(another(client))
        assert drawn["name"] and drawn["name"] != "Quinn"
        # An open game of Quinn's, taken by a visitor: the take makes the visitor a player.
        made = client.post(
            "/api/games", json={"open": True, "mode": "duel", "seats": [{"kind": "here"}, {"kind": "online"}]}
        )
        assert made.status_code == 201, made.text
        visitor = another(client)
        seated = visitor.post(f"/api/lobby/{made.json()['id']}/take", json={})
        assert seated.status_code == 200, seated.text
        assert seated.headers["set-cookie"].startswith(f"{COOKIE}=")
        me = visitor.get("/api/me").json()
        assert me["player"] is True and me["name"]
        # A name taken already, a password too short: refused, and nobody made.
        late = another(client)
        refused(late.post("/api/me/name", json={"name": "quinn"}), 409, "name-taken")
        refused(late.post("/api/me/password", json={"password": "short"}), 400, "bad-password")
        assert late.get("/api/me").json()["player"] is False
        # A visitor who sets a password is a player with one (signed in on this browser).
        keeper = another(client)
        answer = keeper.post("/api/me/password", json={"password": "correct horse battery"})
        assert answer.status_code == 200, answer.text
        me = keeper.get("/api/me").json()
        assert me["player"] is True and me["signed_in"] is True
    assert rows(db, "server_player") == 4 and rows(db, "server_session") == 4


@pytest.mark.storage
def test_new_players_are_limited_per_address(db: Path) -> None:
    with served(db, player_limit=3) as client:
        for _ in range(3):
            become(another(client))
        late = another(client)
        answer = late.post("/api/me", json={})
        refused(answer, 429, "rate-limited")
        assert 1 <= int(answer.headers["Retry-After"]) <= 60
        refused(late.post("/api/me/name", json={"name": "Latecomer"}), 429, "rate-limited")
        assert late.get("/api/me").json()["player"] is False
        refused(client.get("/api/players/Latecomer"), 404, "no-player")  # nobody made


@pytest.mark.storage
def test_players_who_never_play_are_swept(db: Path) -> None:
    with clocked(db) as (client, clock):
        idle, player = another(client), another(client)
        idle_name = become(idle)["name"]
        become(player)
        game = player.post(
            "/api/games",
            json={"mode": "coop", "seats": [{"kind": "here"}, {"kind": "computer", "player": "greedy"}]},
        )
        assert game.status_code == 201, game.text
        hub = client.app.state.hub
        clock.now += accounts.NEVER_PLAYED_DAYS * DAY - 60  # not yet
        assert client.portal.call(hub.players.sweep) == 0
        late = another(client)
        late_name = become(late)["name"]  # made now: its week begins now
        clock.now += 120
        assert client.portal.call(hub.players.sweep) == 1
        assert idle.get("/api/me").json()["player"] is False  # gone: its cookie names nobody
        refused(client.get(f"/api/players/{idle_name}"), 404, "no-player")
        assert player.get("/api/me").json()["player"] is True  # it played: kept for good
        assert late.get("/api/me").json()["name"] == late_name
        clock.now += 400 * DAY
        assert client.portal.call(hub.players.sweep) == 1  # the late one; the player stays
        assert player.get("/api/me").json()["player"] is True


@pytest.mark.storage
def test_a_new_visitor_gets_a_name_when_the_plain_names_are_all_taken(
    db: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(names, "ADJECTIVES", ("Quiet",))
    monkeypatch.setattr(names, "NOUNS", ("Heron",))
    with served(db, player_limit=0) as client:
        storage = client.app.state.hub.storage
        taken = ["QuietHeron", *(f"QuietHeron{n}" for n in range(10, 100))]  # every name of 0 or 2 digits
        for i, name in enumerate(taken):
            client.portal.call(storage.new_player, StoredPlayer(f"filler{i}", name), None)
        made = {become(another(client))["name"] for _ in range(12)}
        assert len(made) == 12 and not made & set(taken)
        assert all(name.startswith(("QuietHeron", "Heron")) and len(name) <= 20 for name in made), made


@pytest.mark.storage
@pytest.mark.slow
def test_names_that_look_alike_are_one_name(db: Path) -> None:
    with served(db) as client:
        become(client, "Alice")
        other = another(client)
        for alike in ("AIice", "A1ice", "alice", "ALICE"):
            refused(other.post("/api/me/name", json={"name": alike}), 409, "name-taken")
        assert other.get("/api/me").json()["player"] is False  # nobody made by a refused name
        become(other, "Mallory")
        for alike in ("AIice", "aIIce"):
            refused(other.post("/api/me/name", json={"name": alike}), 409, "name-taken")
        assert (
            other.post("/api/me/name", json={"name": "Ma11ory"}).json()["name"] == "Ma11ory"
        )  # its own, alike
        for kept in ("C0mputer", "Adrnin", "C0MPUTER", "Adrninistrat0r", "Cornputer"):
            refused(other.post("/api/me/name", json={"name": kept}), 400, "refused-name")
        refused(other.post("/api/me/name", json={"name": "C0mputer (expert)"}), 400, "bad-name")
        become(another(client), "Wendy")
        refused(other.post("/api/me/name", json={"name": "VVendy"}), 409, "name-taken")
        refused(other.post("/api/me/name", json={"name": "Wendy"}), 409, "name-taken")
        assert other.get("/api/me").json()["name"] == "Ma11ory"
        # A look-alike finds the player it looks like (its page, signing in: the same name).
        assert client.get("/api/players/AIice").json()["name"] == "Alice"


@pytest.mark.storage
def test_a_name_given_up_is_held_for_its_player_a_while(db: Path) -> None:
    with clocked(db) as (client, clock):
        become(client, "Alice")
        assert client.post("/api/me/name", json={"name": "Alicia"}).json()["name"] == "Alicia"
        bob = another(client)
        become(bob, "Bob")
        refused(bob.post("/api/me/name", json={"name": "Alice"}), 409, "name-taken")
        refused(bob.post("/api/me/name", json={"name": "AIice"}), 409, "name-taken")
        refused(another(client).post("/api/me/name", json={"name": "alice"}), 409, "name-taken")
        assert client.post("/api/me/name", json={"name": "Alice"}).json()["name"] == "Alice"  # taken back
        assert client.post("/api/me/name", json={"name": "Alicia"}).status_code == 200
        clock.now += (accounts.NAME_HELD_DAYS - 1) * DAY
        refused(bob.post("/api/me/name", json={"name": "Alice"}), 409, "name-taken")
        clock.now += 2 * DAY  # the hold is over
        assert bob.post("/api/me/name", json={"name": "Alice"}).json()["name"] == "Alice"
        refused(client.post("/api/me/name", json={"name": "Alice"}), 409, "name-taken")
        assert client.get("/api/players/Alice").status_code == 200


@pytest.mark.sqlite_only
@pytest.mark.slow
def test_reading_a_day_nobody_played_writes_nothing(db: Path, tmp_path: Path) -> None:
    today = tmp_path / "today"
    today.write_text("2026-12-06")
    with served(db, today_file=today) as client:
        client.get("/api/daily")  # today's row (its expert game, started by the page) aside
        until(lambda: rows(db, "server_daily") == 1)  # the page no longer waits on five reads
        before = rows(db, "server_daily")
        for day in range(1, 31):
            answer = client.get(f"/api/daily/2026-11-{day:02d}")
            assert answer.status_code == 200, answer.text
            assert answer.json()["players"] == 0 and answer.json()["over"] is True
        assert rows(db, "server_daily") == before
        assert rows(db, "server_daily", "WHERE day < '2026-12-06'") == 0
    assert rows(db, "server_player") == 0


@pytest.mark.sqlite_only
def test_a_visitor_who_starts_the_daily_challenge_becomes_a_player(db: Path, tmp_path: Path) -> None:
    today = tmp_path / "today"
    today.write_text("2026-12-06")
    with served(db, today_file=today) as client:
        refused(client.post("/api/daily", json={"date": "yesterday"}), 400, "bad-date")
        assert rows(db, "server_player") == 0  # refused: nobody made
        started = client.post("/api/daily", json={})
        assert started.status_code == 201, started.text
        assert started.headers["set-cookie"].startswith(f"{COOKIE}=")
        me = client.get("/api/me").json()
        assert me["player"] is True
        assert client.get("/api/daily").json()["attempt"]["game"] == started.json()["id"]
    assert rows(db, "server_player") == 1


@pytest.mark.sqlite_only
def test_the_stored_names_keys_become_skeletons(db: Path) -> None:
    """A database of the step before: its keys ignored case only, and two players named alike
    could be there; the newer is renamed, every key is the name's skeleton, and every player is
    looked at once by the sweep."""
    conn = connect(db)
    migrate(conn, "server", SCHEMA[: SCHEMA.index(NAMES_STEP)])
    people = [
        ("a1", "Alice", "2026-01-01T00:00:00+00:00"),
        ("a2", "AIice", "2026-02-01T00:00:00+00:00"),
        ("a3", "A1ice", "2026-03-01T00:00:00+00:00"),
        ("b1", "Adrnin", "2026-01-01T00:00:00+00:00"),
        ("c1", "Quinn", "2026-01-01T00:00:00+00:00"),
    ]
    for pid, name, created in people:
        conn.execute(
            "INSERT INTO server_player (id, name, name_key, bot, created) VALUES (?, ?, ?, 0, ?)",
            (pid, name, name.lower(), created),
        )
    conn.commit()
    conn.close()
    with served(db) as client:
        assert client.get("/api/players/Alice").json()["name"] == "Alice"
        assert client.get("/api/players/AIice").json()["name"] == "Alice"
        assert client.get("/api/players/Renamed-a2").json()["name"] == "Renamed-a2"
    with sqlite3.connect(db) as conn:
        stored = dict(conn.execute("SELECT id, name FROM server_player").fetchall())
        keys = dict(conn.execute("SELECT id, name_key FROM server_player").fetchall())
        fresh = {row[0] for row in conn.execute("SELECT id FROM server_player WHERE fresh = 1")}
    assert stored == {"a1": "Alice", "a2": "Renamed-a2", "a3": "Renamed-a3", "b1": "Adrnin", "c1": "Quinn"}
    assert keys == {pid: name_key(name) for pid, name in stored.items()}
    assert fresh == set(stored)
