"""The doors hold (issue 60, items 2, 3, 4, 11): every way of making a game counts against the one
create limit (per address and per player), ratings cannot be farmed (a game of too few moves is
aborted, a pair's rated results of a day are limited, the leaderboard wants several opponents),
a computer seat thinks within its clock, and a rated seat shows its player's name."""

from __future__ import annotations

import random
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from types import SimpleNamespace
from typing import TYPE_CHECKING, Any, cast

import pytest
from fastapi.testclient import TestClient
from test_server_helpers import legal_move, run_async, served, socket, until

from dorf.server.computer.thinking import clock_allowance
from dorf.server.players.leaders import leaderboard
from dorf.server.players.ratings import PAIR_LIMIT
from dorf.server.round.clock import ABORT_AFTER, parse_clock
from dorf.server.storage import open_storage
from dorf.server.storage.base import RatedGame, StoredPlayer, StoredRating

if TYPE_CHECKING:
    from dorf.server.round.game import Game

Json = dict[str, Any]
ONLINE_DUEL = [{"kind": "here"}, {"kind": "online"}]


def browser(client: TestClient, address: str = "testclient") -> TestClient:
    """Another browser on the app of ``client`` (its own cookies), from ``address``."""
    other = TestClient(client.app, client=(address, 50000))
    other.portal = client.portal
    return other


def named(client: TestClient, name: str) -> TestClient:
    """``client`` as a player of its own named ``name`` (a visit, then choosing a name)."""
    client.post("/api/me")
    answer = client.post("/api/me/name", json={"name": name})
    assert answer.status_code == 200, answer.text
    return client


def refused(response: Any, status: int, code: str) -> Json:
    assert response.status_code == status, response.text
    body: Json = response.json()
    assert set(body) == {"error"} and body["error"]["code"] == code, body
    assert "\n" not in body["error"]["message"]
    return body


def ratings(client: TestClient, name: str) -> Json:
    answer = client.get(f"/api/players/{name}")
    assert answer.status_code == 200, answer.text
    found: Json = answer.json()
    return found


def rated_duel(creator: TestClient, joiner: TestClient, **more: Any) -> tuple[str, str, str]:
    """A rated Duel: ``creator`` here at seat 0, ``joiner`` joins seat 1; the game and tokens."""
    answer = creator.post("/api/games", json={"mode": "duel", "seats": ONLINE_DUEL, "rated": True, **more})
    assert answer.status_code == 201, answer.text
    made = answer.json()
    joined = joiner.post(f"/api/games/{made['id']}/join", json={"invite": made["invites"]["1"], **more})
    assert joined.status_code == 200, joined.text
    return made["id"], made["tokens"]["0"], joined.json()["token"]


def first_moves(client: TestClient, game_id: str, tokens: list[str], seats: list[int]) -> None:
    """Each of ``seats`` makes one decision (the first legal one)."""
    for token, seat in zip(tokens, seats, strict=True):
        with socket(client, game_id, [token]) as sock:
            state = sock.wait(lambda s, seat=seat: seat in s["game"]["waiting"])
            assert sock.request(legal_move(state, seat))["type"] == "ok"


def resign(client: TestClient, game_id: str, token: str, seat: int = 0) -> Json:
    answer = client.post(f"/api/games/{game_id}/resign", json={"seat": seat, "token": token})
    assert answer.status_code == 200, answer.text
    body: Json = answer.json()
    return body


# --- item 2: every way of making a game counts --------------------------------------------------


def test_the_rematch_chain_hits_the_create_limit(tmp_path: Path) -> None:
    with served(tmp_path / "db.sqlite3", create_limit=3) as client:
        ann, bob = named(client, "Ann"), named(browser(client), "Bob")
        game_id, ann_token, _ = rated_duel(ann, bob)  # the first new game of the address
        resign(ann, game_id, ann_token)
        for _ in range(2):  # two rematches taken: the second and third new games
            answer = ann.post(f"/api/games/{game_id}/rematch")
            assert answer.status_code == 201, answer.text
            game_id = answer.json()["id"]
            ((seat, ann_token),) = answer.json()["tokens"].items()  # the sides change each time
            taken = bob.post(f"/api/lobby/{game_id}/take")
            assert taken.status_code == 200, taken.text
            resign(ann, game_id, ann_token, seat=int(seat))
        answer = ann.post(f"/api/games/{game_id}/rematch")
        body = refused(answer, 429, "rate-limited")
        assert int(answer.headers["retry-after"]) >= 1 and "a minute" in body["error"]["message"]
        # Nothing was made: Ann has the three games.
        assert len(ann.get("/api/me/games").json()["games"]) == 3
        refused(ann.post("/api/games", json={"mode": "coop"}), 429, "rate-limited")


def test_practice_games_of_past_days_hit_the_create_limit(tmp_path: Path) -> None:
    with served(tmp_path / "db.sqlite3", create_limit=3) as client:
        ann = named(client, "Ann")
        for day in ("2026-01-01", "2026-01-02", "2026-01-03"):
            answer = ann.post("/api/daily", json={"date": day})
            assert answer.status_code == 201 and answer.json()["practice"] is True, answer.text
        answer = ann.post("/api/daily", json={"date": "2026-01-04"})
        refused(answer, 429, "rate-limited")
        assert "retry-after" in answer.headers


def test_the_limit_counts_a_player_from_any_address_and_seeks_too(tmp_path: Path) -> None:
    with served(tmp_path / "db.sqlite3", create_limit=2) as client:
        ann = named(client, "Ann")
        for _ in range(2):
            assert ann.post("/api/games", json={"mode": "coop"}).status_code == 201
        # The same player from another address: the player's count is full.
        elsewhere = browser(client, "10.0.0.2")
        elsewhere.cookies.update(ann.cookies)
        body = refused(elsewhere.post("/api/games", json={"mode": "coop"}), 429, "rate-limited")
        assert "from one player" in body["error"]["message"]
        # Another player from Ann's address: the address's count is full, a seek as much as a game.
        bob = named(browser(client), "Bob")
        refused(bob.post("/api/games", json={"mode": "coop"}), 429, "rate-limited")
        cookie = "; ".join(f"{k}={v}" for k, v in bob.cookies.items())
        with bob.websocket_connect("/ws/lobby", headers={"cookie": cookie}) as ws:
            assert ws.receive_json()["type"] == "lobby"
            ws.send_json({"type": "seek", "mode": "duel", "clock": "3+2", "rated": False, "id": 1})
            reply = ws.receive_json()
            while reply.get("id") != 1:  # what the lobby tells every client meanwhile
                reply = ws.receive_json()
            assert reply["type"] == "error" and reply["code"] == "rate-limited", reply
        # A player elsewhere still makes games.
        carl = named(browser(client, "10.0.0.3"), "Carl")
        assert carl.post("/api/games", json={"mode": "coop"}).status_code == 201


# --- item 3: ratings cannot be farmed --------------------------------------------------------


@pytest.mark.slow
def test_a_rated_game_resigned_before_each_seat_moved_is_aborted_and_unrated(tmp_path: Path) -> None:
    with served(tmp_path / "db.sqlite3") as client:
        ann, bob = named(client, "Ann"), named(browser(client), "Bob")
        game_id, ann_token, bob_token = rated_duel(ann, bob)
        assert resign(ann, game_id, ann_token) == {
            "ok": True,
            "version": 2,
            "end": "aborted",
            "winner": None,
            "rated": False,
        }
        state = ann.get(f"/api/games/{game_id}").json()
        assert state["over"] and state["end"] == "aborted" and state["winner"] is None
        seats = ann.get(f"/api/games/{game_id}/players").json()
        assert seats["unrated"] == "aborted" and all(p["change"] is None for p in seats["players"])
        # One seat moved, the other not: still too few moves.
        game_id, ann_token, bob_token = rated_duel(ann, bob)
        first_moves(ann, game_id, [ann_token], [0])
        assert resign(bob, game_id, bob_token, seat=1)["end"] == "aborted"
        for name in ("Ann", "Bob"):
            duel = ratings(ann, name)["ratings"]["duel"]
            assert duel["games"] == 0 and duel["rating"] == 1500.0
        # Each seat moved: the resignation stands, and is rated.
        game_id, ann_token, bob_token = rated_duel(ann, bob)
        first_moves(ann, game_id, [ann_token, bob_token], [0, 1])
        assert resign(bob, game_id, bob_token, seat=1) | {"version": 0} == {
            "ok": True,
            "version": 0,
            "end": "resign",
            "winner": 0,
            "rated": True,
        }
        until(lambda: ratings(ann, "Ann")["ratings"]["duel"]["games"] == 1)
        assert ratings(ann, "Ann")["ratings"]["duel"]["rating"] > 1500.0
        # A casual game may still be resigned at once (nothing is at stake).
        casual = ann.post("/api/games", json={"mode": "duel", "seats": [{"kind": "here"}] * 2}).json()
        assert resign(ann, casual["id"], casual["tokens"]["0"])["end"] == "resign"


def test_a_pair_counts_only_its_first_rated_results_of_the_day(tmp_path: Path) -> None:
    with served(tmp_path / "db.sqlite3") as client:
        ann, bob = named(client, "Ann"), named(browser(client), "Bob")
        games = []
        for _ in range(PAIR_LIMIT + 1):
            game_id, ann_token, bob_token = rated_duel(ann, bob)
            first_moves(ann, game_id, [ann_token, bob_token], [0, 1])
            assert resign(bob, game_id, bob_token, seat=1)["end"] == "resign"
            games.append(game_id)
        until(lambda: len(ratings(ann, "Ann")["games"]) == PAIR_LIMIT + 1)
        profile = ratings(ann, "Ann")
        assert profile["ratings"]["duel"]["games"] == PAIR_LIMIT
        last = profile["games"][0]
        assert last["id"] == games[-1] and last["counted"] is False and last["change"] == 0
        assert [g["counted"] for g in profile["games"][1:]] == [True] * PAIR_LIMIT
        assert [h["game"] for h in profile["history"]["duel"]] == games[:PAIR_LIMIT]
        seats = ann.get(f"/api/games/{games[-1]}/players").json()
        assert seats["rated"] is True and seats["unrated"] == "pair-limit"
        assert [(p["change"], p["counted"]) for p in seats["players"]] == [(0, False), (0, False)]
        first = ann.get(f"/api/games/{games[0]}/players").json()
        assert first["unrated"] is None and first["players"][0]["change"] > 0


def test_the_leaderboard_lists_only_players_with_several_opponents(tmp_path: Path) -> None:
    def strong(game: RatedGame, stored: list[StoredRating | None]) -> list[tuple[StoredRating, StoredRating]]:
        """Every rated game leaves its players established (a low RD): only the rule tells apart."""
        out = []
        for i, was in enumerate(stored):
            start = was or StoredRating(game.mode, 1500.0, 350.0, 0.06, 0, game.ended)
            rating = 1900.0 if i == 0 else 1400.0
            out.append((start, StoredRating(game.mode, rating, 60.0, 0.06, start.games + 1, game.ended)))
        return out

    async def test() -> None:
        storage, _ = open_storage(tmp_path / "db.sqlite3")
        await storage.start()
        try:
            for name in ("Twin", "Other", "Solo", "Ann", "Bob", "Cid"):
                await storage.new_player(StoredPlayer(name.lower(), name), None)
            when = 1_800_000_000.0
            number = 0

            async def rate(a: str, b: str) -> None:
                nonlocal number
                number += 1
                await storage.rate_game(RatedGame(f"g{number}", "duel", (a, b), 1.0, when + number), strong)

            for _ in range(12):
                await rate("twin", "other")  # twelve wins against one opponent
            for opponent in ("ann", "bob", "cid") * 4:
                await rate("solo", opponent)  # twelve against three
            board = await leaderboard(storage, "duel", when + 100)
            assert [p["name"] for p in board["players"]] == ["Solo"]
        finally:
            await storage.close()

    run_async(test)


# --- item 11: a rated seat shows its player's name -------------------------------------------


def test_a_rated_seat_shows_its_players_name_and_no_person_passes_for_a_computer(tmp_path: Path) -> None:
    with served(tmp_path / "db.sqlite3") as client:
        ann, bob = named(client, "Ann"), named(browser(client), "Bob")
        body = {
            "mode": "duel",
            "rated": True,
            "seats": [{"kind": "here", "name": "Alice"}, {"kind": "online"}],
        }
        made = ann.post("/api/games", json=body).json()
        joined = bob.post(
            f"/api/games/{made['id']}/join", json={"invite": made["invites"]["1"], "name": "Ann"}
        )
        assert joined.status_code == 200, joined.text
        state = ann.get(f"/api/games/{made['id']}").json()
        assert [s["name"] for s in state["seats"]] == ["Ann", "Bob"]
        # A rated game's computer seat is its level's player, whatever name it is given.
        body = {
            "mode": "duel",
            "rated": True,
            "seats": [{"kind": "here"}, {"kind": "computer", "player": "easy", "name": "Bob"}],
        }
        made = ann.post("/api/games", json=body).json()
        assert [s["name"] for s in ann.get(f"/api/games/{made['id']}").json()["seats"]] == [
            "Ann",
            "Computer (easy)",
        ]
        # No seat of a person, rated or casual, is named like a computer seat.
        for name in ("Computer (expert)", "computer 2 (greedy)", "C0mputer", "Co mputer", "\u0421omputer"):
            seats = [{"kind": "here", "name": name}, {"kind": "online"}]
            refused(ann.post("/api/games", json={"mode": "duel", "seats": seats}), 400, "bad-name")
        casual = ann.post("/api/games", json={"mode": "duel", "seats": ONLINE_DUEL}).json()
        refused(
            bob.post(
                f"/api/games/{casual['id']}/join",
                json={"invite": casual["invites"]["1"], "name": "Computer (expert)"},
            ),
            400,
            "bad-name",
        )
        joined = bob.post(f"/api/games/{casual['id']}/join", json={"invite": casual["invites"]["1"]})
        assert joined.status_code == 200, joined.text  # the invitation was not used up


# --- item 4: a computer seat thinks within its clock -----------------------------------------


@contextmanager
def fast_clocks(tmp_path: Path, scale: float) -> Iterator[TestClient]:
    """A server whose clocks run ``scale`` times faster, its computer seats as usual: a pause
    (0.4 s) and the level's budget (1 s of the 2 s cap) before each decision."""
    with served(tmp_path / "db.sqlite3", clock_scale=scale, ai_delay=0.4, ai_max_seconds=2.0) as client:
        yield client


@pytest.mark.slow
def test_a_computer_seat_on_a_tiny_clock_does_not_lose_on_time(tmp_path: Path) -> None:
    # 1+0 at ten times: the computer has 6 real seconds for its 42 decisions, where its usual
    # pause and budget would take 60.  The person plays at once.  (At twenty times, 3 s each, a
    # run with every core busy once saw a seat lose on time: the person's own 42 round trips.)
    with fast_clocks(tmp_path, 10.0) as client:
        seats = [{"kind": "here", "name": "Ann"}, {"kind": "computer", "player": "expert"}]
        made = client.post("/api/games", json={"mode": "duel", "clock": "1+0", "seats": seats}).json()
        rng = random.Random(3)
        with socket(client, made["id"], [made["tokens"]["0"]]) as sock:
            for _ in range(200):
                state = sock.wait(lambda s: s["game"]["over"] or 0 in s["game"]["waiting"])
                if state["game"]["over"]:
                    break
                reply = sock.request(legal_move(state, 0, rng))
                assert reply["type"] == "ok" or state["game"]["over"], reply
        game = client.get(f"/api/games/{made['id']}").json()
        ended = (game["end"], game["winner"], game["clock"]["remaining"])
        assert game["over"] and game["end"] == "normal", ended
        assert game["clock"]["remaining"][1] > 0
        computer = client.app.state.hub.computer
        assert computer.thoughts >= 40


def test_a_computer_seats_allowance_comes_from_its_clock(tmp_path: Path) -> None:
    with fast_clocks(tmp_path, 20.0) as client:
        hub = client.app.state.hub

        def allowance(clock: Any) -> float | None:
            game = cast("Game", SimpleNamespace(session=SimpleNamespace(clock=clock)))
            found: float | None = hub.computer.allowance(game, 1)
            return found

        assert allowance(None) is None and allowance(parse_clock("1d")) is None
        clock = parse_clock("1+0")
        assert clock is not None and allowance(clock) is None  # not started: nobody waits
        now = hub.now()
        clock.start(now, (0, 1))
        first = allowance(clock)  # the first decision: a share of the 30 s before an abort
        assert first is not None and 0 < first <= clock_allowance(ABORT_AFTER, 0.0) / 20.0
        clock.decided(1, now, (0, 1))  # 60 s left, as many real seconds as 3
        later = allowance(clock)
        assert later is not None and 0.9 * clock_allowance(60.0, 0.0) / 20.0 < later
        assert later <= clock_allowance(60.0, 0.0) / 20.0 == 0.1
