"""The doors hold (issue 60, items 6, 7 and 10): API tokens are listed and revoked, a password
change signs a player out everywhere (every token too), what takes over a player needs its
browser's cookie, never a token; setting a password is limited and argon2 runs at most two at
once; a guesser's wrong passwords from one address do not keep a name's owner out."""

from __future__ import annotations

import sqlite3
import threading
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient
from test_server_helpers import cheap_hasher, cheap_passwords, served

from dorf.server.edge import players as edge_players
from dorf.server.players import accounts
from dorf.server.players.accounts import COOKIE, HASHING_AT_ONCE, MAX_TOKENS

PASSWORD = "correct horse battery"


@pytest.fixture(autouse=True)
def _cheap_argon2(monkeypatch: pytest.MonkeyPatch) -> None:
    """argon2 at its lowest cost (test_players checks the server's own, production's cost)."""
    cheap_passwords(monkeypatch)


def another(client: TestClient, address: str = "testclient") -> TestClient:
    """A second browser on the same app (from ``address``), run on ``client``'s event loop."""
    other = TestClient(client.app, client=(address, 50000))
    other.portal = client.portal
    return other


def refused(response: Any, status: int, code: str) -> None:
    assert response.status_code == status, response.text
    body = response.json()
    assert set(body) == {"error"} and body["error"]["code"] == code, body
    assert "\n" not in body["error"]["message"]


def player(client: TestClient, name: str) -> str:
    """Make ``client`` a player named ``name`` (whichever request makes players)."""
    client.post("/api/me")
    renamed = client.post("/api/me/name", json={"name": name})
    assert renamed.status_code == 200, renamed.text
    return name


def bearer(token: str) -> dict[str, str]:
    return {"authorization": f"Bearer {token}"}


def make_token(client: TestClient, label: str | None = None) -> dict[str, Any]:
    made = client.post("/api/me/tokens", json={} if label is None else {"label": label})
    assert made.status_code == 201, made.text
    body: dict[str, Any] = made.json()
    return body


def listed(client: TestClient, **headers: str) -> list[dict[str, Any]]:
    answer = client.get("/api/me/tokens", headers=headers)
    assert answer.status_code == 200, answer.text
    tokens: list[dict[str, Any]] = answer.json()["tokens"]
    return tokens


def name_of(client: TestClient, **headers: str) -> str:
    answer = client.post("/api/me", headers=headers)
    assert answer.status_code == 200, answer.text
    return str(answer.json()["name"])


@pytest.mark.storage
def test_tokens_are_listed_without_their_secrets_and_revoked_by_id(db: Path) -> None:
    with served(db) as client:
        player(client, "Kestrel")
        first = make_token(client, "  my bot  ")
        second = make_token(client)
        assert first["label"] == "my bot" and first["name"] == "Kestrel" and first["bot"] is True
        assert len(first["id"]) == 16 and first["id"] != second["id"]
        answer = client.get("/api/me/tokens")
        assert first["token"] not in answer.text and second["token"] not in answer.text
        tokens = answer.json()["tokens"]
        assert {t["id"]: t["label"] for t in tokens} == {first["id"]: "my bot", second["id"]: ""}
        assert all(t["created"] and t["last_used"] is None and t["current"] is False for t in tokens)
        # Used, a token says when (to the minute or so).
        assert name_of(another(client), **bearer(first["token"])) == "Kestrel"
        used = {t["id"]: t["last_used"] for t in listed(client)}
        assert used[first["id"]] is not None and used[second["id"]] is None
        # Revoked from the browser, by its id: the token names nobody any more.
        gone = client.request("DELETE", f"/api/me/tokens/{first['id']}")
        assert gone.status_code == 200 and gone.json() == {"revoked": first["id"]}
        refused(another(client).post("/api/me", headers=bearer(first["token"])), 401, "bad-token")
        assert [t["id"] for t in listed(client)] == [second["id"]]
        assert name_of(another(client), **bearer(second["token"])) == "Kestrel"
        refused(client.request("DELETE", f"/api/me/tokens/{first['id']}"), 404, "no-token")


@pytest.mark.storage
def test_a_tokens_holder_revokes_that_token_alone(db: Path) -> None:
    with served(db) as client:
        player(client, "Otter")
        mine, sibling = make_token(client), make_token(client)
        bot = another(client)
        seen = listed(bot, **bearer(mine["token"]))
        assert {t["id"]: t["current"] for t in seen} == {mine["id"]: True, sibling["id"]: False}
        # Another token of the player: only its browser revokes that; nothing changed.
        refused(
            bot.request("DELETE", f"/api/me/tokens/{sibling['id']}", headers=bearer(mine["token"])),
            403,
            "need-cookie",
        )
        assert len(listed(client)) == 2
        # Its own, by id or as "current".
        done = bot.request("DELETE", "/api/me/tokens/current", headers=bearer(mine["token"]))
        assert done.status_code == 200 and done.json() == {"revoked": mine["id"]}
        refused(bot.get("/api/me/tokens", headers=bearer(mine["token"])), 401, "bad-token")
        done = bot.request("DELETE", f"/api/me/tokens/{sibling['id']}", headers=bearer(sibling["token"]))
        assert done.status_code == 200 and listed(client) == []


@pytest.mark.storage
def test_anothers_token_unknown_ids_and_a_stale_cookie_change_nothing(db: Path) -> None:
    with served(db) as owner:
        player(owner, "Badger")
        token = make_token(owner)
        thief = another(owner)
        player(thief, "Weasel")
        # Another player's token id: not found (as an unknown one), nothing changed.
        refused(thief.request("DELETE", f"/api/me/tokens/{token['id']}"), 404, "no-token")
        for bad in ("0123456789abcdef", "current", "ZZZZ", "x" * 300, token["id"].upper()):
            refused(owner.request("DELETE", f"/api/me/tokens/{bad}"), 404, "no-token")
        # No cookie, a stale one, or a page of another site.
        stale = another(owner)
        stale.cookies.set(COOKIE, "s" * 43)
        refused(stale.request("DELETE", f"/api/me/tokens/{token['id']}"), 401, "no-player")
        refused(stale.get("/api/me/tokens"), 401, "no-player")
        refused(another(owner).request("DELETE", f"/api/me/tokens/{token['id']}"), 401, "no-player")
        cross = {"origin": "https://evil.example"}
        refused(owner.request("DELETE", f"/api/me/tokens/{token['id']}", headers=cross), 403, "bad-origin")
        refused(
            another(owner).get("/api/me/tokens", headers={"authorization": "Bearer dorf_" + "x" * 43}),
            401,
            "bad-token",
        )
        assert [t["id"] for t in listed(owner)] == [token["id"]]
        assert name_of(another(owner), **bearer(token["token"])) == "Badger"


@pytest.mark.storage
def test_a_password_making_tokens_and_signing_out_everywhere_need_the_cookie(db: Path) -> None:
    with served(db) as client:
        player(client, "Marten")
        token = make_token(client)
        bot = another(client)
        as_bot = bearer(token["token"])
        refused(bot.post("/api/me/password", json={"password": PASSWORD}, headers=as_bot), 403, "need-cookie")
        refused(bot.post("/api/me/tokens", json={}, headers=as_bot), 403, "need-cookie")
        refused(bot.post("/api/me/sign-out-everywhere", headers=as_bot), 403, "need-cookie")
        # Nothing changed: no password, one token, the browser still the player.
        assert client.post("/api/me").json()["signed_in"] is False
        assert [t["id"] for t in listed(client)] == [token["id"]]
        assert name_of(client) == "Marten" and name_of(bot, **as_bot) == "Marten"


@pytest.mark.storage
def test_a_password_change_signs_out_everywhere_and_ends_every_token(db: Path) -> None:
    with served(db) as phone:
        player(phone, "Heron")
        token = make_token(phone)
        done = phone.post("/api/me/password", json={"password": PASSWORD})
        assert done.status_code == 200 and done.json()["signed_in"] is True
        # Setting the first one keeps the tokens (the browser made them).
        assert name_of(another(phone), **bearer(token["token"])) == "Heron"
        laptop = another(phone, "198.51.100.20")
        assert laptop.post("/api/sign-in", json={"name": "Heron", "password": PASSWORD}).status_code == 200
        copy = another(phone)
        copy.cookies.set(COOKIE, phone.cookies[COOKIE])  # a copy of the phone's cookie
        changed = phone.post("/api/me/password", json={"password": "another password", "current": PASSWORD})
        assert changed.status_code == 200 and COOKIE in changed.headers["set-cookie"]
        assert name_of(phone) == "Heron"  # this device stays, with a new cookie
        for gone in (laptop, copy):
            refused(gone.get("/api/me/tokens"), 401, "no-player")
            assert name_of(gone) != "Heron"
        refused(another(phone).post("/api/me", headers=bearer(token["token"])), 401, "bad-token")
        assert listed(phone) == []


@pytest.mark.storage
def test_sign_out_everywhere_ends_the_other_sessions_and_every_token(db: Path) -> None:
    with served(db) as phone:
        player(phone, "Plover")
        token = make_token(phone)
        copy = another(phone)
        copy.cookies.set(COOKIE, phone.cookies[COOKIE])
        out = phone.post("/api/me/sign-out-everywhere")
        assert out.status_code == 200 and out.json()["name"] == "Plover"
        assert name_of(phone) == "Plover" and listed(phone) == []
        refused(copy.get("/api/me/tokens"), 401, "no-player")
        assert name_of(copy) != "Plover"
        refused(another(phone).post("/api/me", headers=bearer(token["token"])), 401, "bad-token")
        assert name_of(phone) == "Plover"


@pytest.mark.sqlite_only
def test_a_tokens_last_use_is_written_at_most_once_a_minute(db: Path) -> None:
    with served(db) as client:
        player(client, "Curlew")
        token = make_token(client)
        bot = another(client)
        name_of(bot, **bearer(token["token"]))
        assert listed(client)[0]["last_used"] is not None
        with sqlite3.connect(db) as conn:
            conn.execute("UPDATE server_token SET last_used = '2000-01-01T00:00:00+00:00'")
        for _ in range(5):  # within the minute: read, never written again
            name_of(bot, **bearer(token["token"]))
        assert listed(client)[0]["last_used"] == "2000-01-01T00:00:00+00:00"


def test_token_labels_and_the_most_tokens_a_player_has(db: Path) -> None:
    with served(db) as client:
        player(client, "Godwit")
        for bad in (7, ["x"], "x" * 41, "tab\there"):
            refused(client.post("/api/me/tokens", json={"label": bad}), 400, "bad-label")
        lone = client.post(
            "/api/me/tokens", content='{"label": "\\ud800"}', headers={"content-type": "application/json"}
        )
        refused(lone, 400, "bad-message")
        assert listed(client) == []
        for _ in range(MAX_TOKENS):
            make_token(client)
        refused(client.post("/api/me/tokens", json={}), 409, "too-many-tokens")
        assert len(listed(client)) == MAX_TOKENS


@pytest.mark.storage
def test_setting_a_password_is_limited_per_player_and_per_address(db: Path) -> None:
    with served(db) as client:
        player(client, "Snipe")
        for _ in range(edge_players.PASSWORD_PER_PLAYER):
            refused(client.post("/api/me/password", json={"password": "short"}), 400, "bad-password")
        limited = client.post("/api/me/password", json={"password": PASSWORD})
        refused(limited, 429, "rate-limited")
        assert 1 <= int(limited.headers["retry-after"]) <= 60
        assert client.post("/api/me").json()["signed_in"] is False
        # Per address: the other players of this address share its bound (6 asked so far).
        others = [another(client) for _ in range(2)]
        for i, other in enumerate(others):
            player(other, f"Sandpiper{'ab'[i]}")
        for _ in range(edge_players.PASSWORD_PER_ADDRESS - edge_players.PASSWORD_PER_PLAYER - 1):
            refused(others[0].post("/api/me/password", json={"password": "short"}), 400, "bad-password")
        refused(others[1].post("/api/me/password", json={"password": PASSWORD}), 429, "rate-limited")
        # A player elsewhere is not held back.
        far = another(client, "203.0.113.9")
        player(far, "Dunlin")
        assert far.post("/api/me/password", json={"password": PASSWORD}).json()["signed_in"] is True


class CountingHasher:
    """argon2's hasher, counting how many of its hashes and checks run at once: each waits (a
    little) for a third to come, which it does unless something holds them back."""

    def __init__(self) -> None:
        self.real = cheap_hasher()
        self.inside = 0
        self.most = 0
        self.lock = threading.Condition()

    def _hold(self) -> None:
        with self.lock:
            self.inside += 1
            self.most = max(self.most, self.inside)
            self.lock.notify_all()
            self.lock.wait_for(lambda: self.inside > HASHING_AT_ONCE, timeout=0.3)

    def _leave(self) -> None:
        with self.lock:
            self.inside -= 1

    def hash(self, password: str) -> str:
        self._hold()
        try:
            return str(self.real.hash(password))
        finally:
            self._leave()

    def verify(self, stored: str, password: str) -> bool:
        self._hold()
        try:
            return bool(self.real.verify(stored, password))
        finally:
            self._leave()


@pytest.mark.slow
def test_argon2_runs_at_most_two_at_once(db: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    counting = CountingHasher()
    monkeypatch.setattr(accounts, "_hasher", lambda: counting)
    with served(db) as client:
        players = [another(client, f"192.0.2.{i}") for i in range(3)]
        for i, each in enumerate(players):
            player(each, f"Stint{'abc'[i]}")
        guessers = [another(client, f"198.51.100.{i}") for i in range(3)]

        def set_password(who: TestClient) -> int:
            return who.post("/api/me/password", json={"password": PASSWORD}).status_code

        def sign_in(who: TestClient) -> int:
            return who.post("/api/sign-in", json={"name": "NoSuchName", "password": PASSWORD}).status_code

        with ThreadPoolExecutor(6) as pool:
            answers = [pool.submit(set_password, p) for p in players] + [
                pool.submit(sign_in, g) for g in guessers
            ]
            assert sorted(a.result() for a in answers) == [200, 200, 200, 401, 401, 401]
    assert counting.most == HASHING_AT_ONCE


@pytest.mark.storage
def test_wrong_passwords_from_one_address_do_not_keep_the_owner_out(db: Path) -> None:
    with served(db) as owner:
        player(owner, "Avocet")
        owner.post("/api/me/password", json={"password": PASSWORD})
        guesser = another(owner, "203.0.113.66")
        for _ in range(edge_players.SIGN_IN_PER_NAME):
            wrong = guesser.post("/api/sign-in", json={"name": "Avocet", "password": "guess guess"})
            refused(wrong, 401, "wrong-password")
        refused(
            guesser.post("/api/sign-in", json={"name": "avocet", "password": PASSWORD}), 429, "rate-limited"
        )
        # The owner, from another address, gets in.
        laptop = another(owner, "198.51.100.1")
        signed = laptop.post("/api/sign-in", json={"name": "Avocet", "password": PASSWORD})
        assert signed.status_code == 200 and signed.json()["name"] == "Avocet"


def test_a_name_still_has_a_bound_from_everywhere(db: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(edge_players, "SIGN_IN_PER_NAME_ANYWHERE", 7)
    assert edge_players.SIGN_IN_PER_NAME < 7
    with served(db) as owner:
        player(owner, "Turnstone")
        owner.post("/api/me/password", json={"password": PASSWORD})
        guesses = [another(owner, "203.0.113.1")] * 5 + [another(owner, "203.0.113.2")] * 2
        for guesser in guesses:
            wrong = guesser.post("/api/sign-in", json={"name": "Turnstone", "password": "guess guess"})
            refused(wrong, 401, "wrong-password")
        late = another(owner, "203.0.113.3").post(
            "/api/sign-in", json={"name": "Turnstone", "password": PASSWORD}
        )
        refused(late, 429, "rate-limited")
        assert "as Turnstone" in late.json()["error"]["message"]
