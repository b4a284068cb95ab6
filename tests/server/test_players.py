"""Players (issue 31): a person who opens the site is a player at once, kept by a cookie whose
secret only the server's hash of knows; names, passwords, signing in and out, API tokens for
bots; every wrong request refused with a clear error and nothing changed."""

from __future__ import annotations

import hashlib
import re
import sqlite3
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient
from test_server_helpers import cheap_passwords, served

from dorf.server.config import ServerConfig
from dorf.server.hub import create_app
from dorf.server.players import accounts
from dorf.server.players.accounts import COOKIE

NAME = re.compile(r"[A-Za-z]{2,18}[0-9]{0,2}")
PASSWORD = "correct horse battery"
#: The server's own argon2 hasher, at production's cost (the tests here use a cheap one).
PRODUCTION_HASHER = accounts._hasher


@pytest.fixture(autouse=True)
def _cheap_argon2(monkeypatch: pytest.MonkeyPatch) -> None:
    """argon2 at its lowest cost, but in the test of the production cost."""
    cheap_passwords(monkeypatch)


def me(client: TestClient, **headers: str) -> dict[str, Any]:
    response = client.post("/api/me", headers=headers)
    assert response.status_code == 200, response.text
    body: dict[str, Any] = response.json()
    return body


def refused(response: Any, status: int, code: str) -> None:
    assert response.status_code == status, response.text
    body = response.json()
    assert set(body) == {"error"} and body["error"]["code"] == code, body
    assert "\n" not in body["error"]["message"]


def another(client: TestClient) -> TestClient:
    """A second browser on the same app: its own cookies, the app (started once, by ``client``)
    run on ``client``'s event loop."""
    other = TestClient(client.app)
    other.portal = client.portal
    return other


@pytest.mark.storage
def test_a_person_who_opens_the_site_is_a_player_at_once(db: Path) -> None:
    with served(db) as client:
        response = client.post("/api/me")
        assert response.status_code == 200
        cookie = response.headers["set-cookie"]
        assert cookie.startswith(f"{COOKIE}=") and "HttpOnly" in cookie and "SameSite=lax" in cookie
        assert "Path=/" in cookie and "Max-Age=34560000" in cookie and "Secure" not in cookie
        first = response.json()
        assert NAME.fullmatch(first["name"]), first
        assert first["signed_in"] is False and first["bot"] is False
        assert first["ratings"] == {
            mode: {"rating": 1500.0, "rd": 500.0, "games": 0, "provisional": True}
            for mode in ("duel", "head-to-head")
        }
        assert me(client)["name"] == first["name"]  # kept by the cookie
        assert "set-cookie" not in client.post("/api/me").headers
        assert me(another(client))["name"] != first["name"]


def test_the_cookie_is_secure_over_https(db: Path) -> None:
    app = create_app(ServerConfig(db=db, ai_workers=0))
    with TestClient(app, base_url="https://testserver") as client:
        cookie = client.post("/api/me").headers["set-cookie"]
        assert "Secure" in cookie and "HttpOnly" in cookie


@pytest.mark.sqlite_only
def test_only_the_hash_of_the_cookies_secret_is_stored(db: Path) -> None:
    with served(db) as client:
        name = me(client)["name"]
        secret = client.cookies[COOKIE]
        assert len(secret) >= 40
    with sqlite3.connect(db) as conn:
        stored = conn.execute("SELECT secret_hash FROM server_session").fetchall()
        players = conn.execute("SELECT name FROM server_player").fetchall()
    assert stored == [(hashlib.sha256(secret.encode()).hexdigest(),)] and players == [(name,)]
    assert secret.encode() not in db.read_bytes()


@pytest.mark.storage
def test_names_change_unique_ignoring_case_and_some_are_kept_back(db: Path) -> None:
    with served(db) as client:
        other = another(client)
        me(client)
        theirs = me(other)["name"]
        renamed = client.post("/api/me/name", json={"name": "Quiet_Heron-7"})
        assert renamed.status_code == 200 and renamed.json()["name"] == "Quiet_Heron-7"
        assert me(client)["name"] == "Quiet_Heron-7"
        # Taken (ignoring case), kept back, or not a name: refused, and nothing changed.
        refused(other.post("/api/me/name", json={"name": "quiet_heron-7"}), 409, "name-taken")
        for name in ("admin", "Expert", "Computer", "computer-7", "dorf", "ADMINISTRATOR"):
            refused(other.post("/api/me/name", json={"name": name}), 400, "refused-name")
        for bad in ("x", "two words", "a" * 21, "Müller", 7, None):
            refused(other.post("/api/me/name", json={"name": bad}), 400, "bad-name")
        assert me(other)["name"] == theirs
        # One's own name in another case is one's own.
        assert client.post("/api/me/name", json={"name": "QUIET_HERON-7"}).json()["name"] == "QUIET_HERON-7"


@pytest.mark.sqlite_only
@pytest.mark.slow
def test_a_password_is_stored_as_its_argon2id_hash_at_the_production_cost(
    db: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(accounts, "_hasher", PRODUCTION_HASHER)
    with served(db) as phone:
        name = me(phone)["name"]
        assert phone.post("/api/me/password", json={"password": PASSWORD}).json()["signed_in"] is True
        signed = another(phone).post("/api/sign-in", json={"name": name, "password": PASSWORD})
        assert signed.status_code == 200 and signed.json()["name"] == name
    with sqlite3.connect(db) as conn:
        [(hashed,)] = conn.execute("SELECT hash FROM server_password").fetchall()
    assert hashed.startswith("$argon2id$v=19$m=65536,t=3,p=4$") and PASSWORD not in hashed


@pytest.mark.storage
def test_a_password_signs_in_from_another_device_and_changing_it_signs_the_others_out(db: Path) -> None:
    with served(db) as phone:
        laptop = another(phone)
        third = another(phone)
        name = me(phone)["name"]
        laptop_player = me(laptop)["name"]
        refused(phone.post("/api/me/password", json={"password": "short"}), 400, "bad-password")
        done = phone.post("/api/me/password", json={"password": PASSWORD})
        assert done.status_code == 200 and done.json()["signed_in"] is True
        # A wrong password, or a name that has none: the same refusal; the device is as it was.
        refused(
            laptop.post("/api/sign-in", json={"name": name, "password": "wrong password"}),
            401,
            "wrong-password",
        )
        refused(
            laptop.post("/api/sign-in", json={"name": "NoSuchName", "password": PASSWORD}),
            401,
            "wrong-password",
        )
        refused(
            laptop.post("/api/sign-in", json={"name": laptop_player, "password": PASSWORD}),
            401,
            "wrong-password",
        )
        assert me(laptop)["name"] == laptop_player
        signed = laptop.post("/api/sign-in", json={"name": name.upper(), "password": PASSWORD})
        assert signed.status_code == 200 and signed.json()["name"] == name, signed.text
        assert "HttpOnly" in signed.headers["set-cookie"]
        assert me(laptop)["name"] == name and me(laptop)["signed_in"] is True
        # Changing it needs the current one; then the other devices are signed out.
        refused(phone.post("/api/me/password", json={"password": "another password"}), 403, "wrong-password")
        wrong = {"password": "another password", "current": "not the password"}
        refused(phone.post("/api/me/password", json=wrong), 403, "wrong-password")
        assert third.post("/api/sign-in", json={"name": name, "password": PASSWORD}).status_code == 200
        changed = phone.post("/api/me/password", json={"password": "another password", "current": PASSWORD})
        assert changed.status_code == 200
        assert me(phone)["name"] == name
        assert me(laptop)["name"] != name  # its session ended: a new player
        refused(third.post("/api/me/name", json={"name": "Stolen"}), 401, "no-player")
        assert me(phone)["name"] == name
        refused(third.post("/api/sign-in", json={"name": name, "password": PASSWORD}), 401, "wrong-password")
        assert (
            third.post("/api/sign-in", json={"name": name, "password": "another password"}).status_code == 200
        )


@pytest.mark.storage
def test_sign_out_needs_a_password_and_leaves_the_device_nobody(db: Path) -> None:
    with served(db) as client:
        name = me(client)["name"]
        refused(client.post("/api/sign-out"), 409, "no-password")
        assert me(client)["name"] == name
        client.post("/api/me/password", json={"password": PASSWORD})
        old = client.cookies[COOKIE]
        out = client.post("/api/sign-out")
        assert out.status_code == 200 and out.json() == {"ok": True}
        assert COOKIE not in client.cookies
        assert me(client)["name"] != name
        # The old cookie (stale: its session ended) names nobody any more.
        stale = another(client)
        stale.cookies.set(COOKIE, old)
        refused(stale.post("/api/me/name", json={"name": "Stale"}), 401, "no-player")
        assert me(stale)["name"] not in (name, "Stale")
        back = client.post("/api/sign-in", json={"name": name, "password": PASSWORD})
        assert back.status_code == 200 and back.json()["name"] == name


@pytest.mark.storage
def test_a_forged_cookie_names_nobody_and_changes_nothing(db: Path) -> None:
    with served(db) as client:
        forger = another(client)
        name = me(client)["name"]
        for forged in [
            "x" * 43,
            client.cookies[COOKIE][:-1] + ("A" if client.cookies[COOKIE][-1] != "A" else "B"),
            "",
            "a%20b",
            "%C3%A9" * 30,
        ]:
            forger.cookies.clear()
            forger.cookies.set(COOKIE, forged)
            refused(forger.post("/api/me/name", json={"name": "Forged"}), 401, "no-player")
            refused(forger.post("/api/me/password", json={"password": PASSWORD}), 401, "no-player")
            refused(forger.post("/api/me/tokens"), 401, "no-player")
        assert me(client)["name"] == name and me(client)["signed_in"] is False
        forger.cookies.clear()
        forger.cookies.set(COOKIE, "y" * 43)
        assert me(forger)["name"] != name  # the page gets a new player of its own


@pytest.mark.storage
def test_sign_in_is_limited_per_name_and_per_address(db: Path) -> None:
    with served(db) as client:
        other = another(client)
        name = me(client)["name"]
        client.post("/api/me/password", json={"password": PASSWORD})
        for _ in range(5):
            refused(
                other.post("/api/sign-in", json={"name": name, "password": "guess guess"}),
                401,
                "wrong-password",
            )
        limited = other.post("/api/sign-in", json={"name": name, "password": PASSWORD})
        refused(limited, 429, "rate-limited")
        assert 1 <= int(limited.headers["retry-after"]) <= 60
        assert me(other)["name"] != name  # even the right password waits
        # Per address: 10 a minute whatever the names (this address has made 6).
        for i in range(4):
            refused(
                other.post("/api/sign-in", json={"name": f"Nobody{i}", "password": "guess guess"}),
                401,
                "wrong-password",
            )
        refused(
            other.post("/api/sign-in", json={"name": "Nobody9", "password": "guess guess"}),
            429,
            "rate-limited",
        )


@pytest.mark.storage
def test_an_api_token_is_shown_once_stored_hashed_and_makes_a_bot_account(db: Path) -> None:
    with served(db) as client:
        bot = another(client)
        name = me(client)["name"]
        made = client.post("/api/me/tokens")
        assert made.status_code == 201
        token = made.json()["token"]
        assert token.startswith("dorf_") and len(token) > 40 and made.json()["bot"] is True
        assert me(client)["bot"] is True
        seen = me(bot, authorization=f"Bearer {token}")
        assert seen["name"] == name and seen["bot"] is True
        assert "set-cookie" not in bot.post("/api/me", headers={"authorization": f"Bearer {token}"}).headers
        # A token the server never made: refused, nothing made or changed.
        refused(bot.post("/api/me", headers={"authorization": "Bearer dorf_" + "x" * 43}), 401, "bad-token")
        wrong = {"authorization": "Bearer dorf_" + "x" * 43}
        refused(bot.post("/api/me/name", json={"name": "Robot"}, headers=wrong), 401, "bad-token")
        renamed = bot.post(
            "/api/me/name", json={"name": "Robot"}, headers={"authorization": f"Bearer {token}"}
        )
        assert renamed.status_code == 200 and me(client)["name"] == "Robot"
        assert client.get("/api/players/robot").json()["bot"] is True


def test_a_players_page_and_an_unknown_player(db: Path) -> None:
    with served(db) as client:
        name = me(client)["name"]
        profile = client.get(f"/api/players/{name.lower()}").json()
        assert profile["name"] == name and profile["games"] == []
        assert profile["history"] == {"duel": [], "head-to-head": []}
        refused(client.get("/api/players/NoSuchPlayer"), 404, "no-player")
        page = client.get(f"/@/{name}")
        assert page.status_code == 200 and "text/html" in page.headers["content-type"]
