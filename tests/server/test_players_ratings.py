"""Rated games (issue 31): who may play one, a seat's player, and ratings changed once by exactly
what Glicko-2 with lichess's settings gives, on SQLite and on PostgreSQL."""

from __future__ import annotations

import asyncio
import random
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient
from test_players import another, me, refused
from test_server_helpers import create, legal_move, run_async, served, socket, until

from dorf.server.players import glicko
from dorf.server.players.ratings import DAY, updater
from dorf.server.storage import open_storage
from dorf.server.storage.base import RatedGame, StoredPlayer

ONLINE_DUEL = [{"kind": "here"}, {"kind": "online"}]


def play_to_the_end(left: Any, right: Any, seed: int = 5) -> dict[str, Any]:
    """Seat 0 by ``left``'s socket, seat 1 by ``right``'s, random legal moves to the end."""
    rng = random.Random(seed)
    for _ in range(400):
        state = left.sync()
        if state["game"]["over"]:
            return state
        for sock, seat in ((left, 0), (right, 1)):
            now = sock.sync()
            if not now["game"]["over"] and seat in now["game"]["waiting"]:
                reply = sock.request(legal_move(now, seat, rng))
                assert reply["type"] == "ok", reply
    raise AssertionError("the game did not end")


def rated_duel(creator: TestClient, joiner: TestClient) -> tuple[str, str, str]:
    """A rated Duel: ``creator`` here at seat 0, ``joiner`` joins seat 1; the tokens."""
    made = create(creator, "duel", ONLINE_DUEL, seed=None, rated=True)
    joined = joiner.post(f"/api/games/{made['id']}/join", json={"invite": made["invites"]["1"]})
    assert joined.status_code == 200, joined.text
    return made["id"], made["tokens"]["0"], joined.json()["token"]


@pytest.mark.storage
@pytest.mark.slow
def test_a_rated_duel_changes_both_ratings_by_exactly_what_glicko2_gives(db: Path) -> None:
    with served(db) as ann:
        bob = another(ann)
        ann_name, bob_name = me(ann)["name"], me(bob)["name"]
        game_id, ann_token, bob_token = rated_duel(ann, bob)
        seats = ann.get(f"/api/games/{game_id}/players").json()
        assert seats["rated"] is True
        assert [p["name"] for p in seats["players"]] == [ann_name, bob_name]
        assert seats["players"][0]["rating"]["rating"] == 1500.0 and seats["players"][0]["change"] is None
        with socket(ann, game_id, [ann_token]) as left, socket(bob, game_id, [bob_token]) as right:
            final = play_to_the_end(left, right)
        assert [s["name"] for s in final["game"]["seats"]] == [ann_name, bob_name]
        winner = final["game"]["winner"]  # the winning seat, None for a draw
        score = 0.5 if winner is None else 1.0 - winner
        until(lambda: me(ann)["ratings"]["duel"]["games"] == 1)
        expected = glicko.game(glicko.new(), glicko.new(), score)
        for client, rating in ((ann, expected[0]), (bob, expected[1])):
            duel = me(client)["ratings"]["duel"]
            assert duel["rating"] == round(rating.rating, 2) and duel["games"] == 1
            assert duel["rd"] == pytest.approx(rating.rd, abs=0.01) and duel["provisional"] is True
            assert me(client)["ratings"]["head-to-head"]["games"] == 0
        profile = ann.get(f"/api/players/{ann_name}").json()
        assert profile["history"]["duel"] == [
            {"game": game_id, "rating": round(expected[0].rating, 2), "ended": profile["games"][0]["ended"]}
        ]
        last = profile["games"][0]
        result = {1.0: "won", 0.0: "lost", 0.5: "drawn"}[score]
        assert (last["id"], last["mode"], last["opponent"], last["result"]) == (
            game_id,
            "duel",
            bob_name,
            result,
        )
        assert last["change"] == round(expected[0].rating - 1500)
        after = ann.get(f"/api/games/{game_id}/players").json()["players"]
        assert [p["change"] for p in after] == [round(r.rating - 1500) for r in expected]
    # Rated once, and still so after a restart.
    with served(db) as again:
        changes = again.get(f"/api/games/{game_id}/players").json()["players"]
        assert [p["change"] for p in changes] == [round(r.rating - 1500) for r in expected]
        assert again.get(f"/api/players/{bob_name}").json()["ratings"]["duel"]["games"] == 1


@pytest.mark.storage
def test_a_seat_records_its_player_and_keeps_it(db: Path) -> None:
    with served(db) as ann:
        bob = another(ann)
        ann_name, bob_name = me(ann)["name"], me(bob)["name"]
        made = create(ann, "duel", ONLINE_DUEL, seed=None)  # casual, by link as before
        new = {"rating": 1500.0, "rd": 500.0, "games": 0, "provisional": True}
        assert ann.get(f"/api/games/{made['id']}/players").json()["players"] == [
            {"name": ann_name, "bot": False, "rating": new, "change": None},
            None,
        ]
        bob.post(f"/api/games/{made['id']}/join", json={"invite": made["invites"]["1"]})
        program = another(ann)  # a program without a cookie: a game by link as before
        plain = program.post("/api/games", json={"mode": "duel", "seats": ONLINE_DUEL})
        assert plain.status_code == 201
        assert program.get(f"/api/games/{plain.json()['id']}/players").json()["players"] == [None, None]
    with served(db) as later:
        players = later.get(f"/api/games/{made['id']}/players").json()["players"]
        assert [p["name"] for p in players] == [ann_name, bob_name]
        state = later.get(f"/api/games/{made['id']}").json()  # a casual game's seats: their players' names
        assert [s["name"] for s in state["seats"]] == [ann_name, bob_name]


HERE, EASY = {"kind": "here"}, {"kind": "computer", "player": "easy"}


@pytest.mark.parametrize(
    ("body", "status", "code"),
    [
        ({"mode": "coop", "seats": [HERE, {"kind": "online"}]}, 400, "not-ratable"),
        ({"mode": "duel", "seats": [HERE, HERE]}, 400, "self-play"),
        ({"mode": "duel", "practice": True, "seats": [HERE, EASY]}, 400, "not-ratable"),
        ({"mode": "duel", "seed": 7, "seats": [HERE, EASY]}, 400, "not-ratable"),
        ({"mode": "duel", "seats": [HERE, {"kind": "computer", "player": "greedy"}]}, 400, "not-ratable"),
        ({"mode": "duel", "seats": [EASY, {"kind": "computer", "player": "hard"}]}, 400, "not-ratable"),
        ({"mode": "head-to-head", "seats": [HERE, HERE]}, 400, "self-play"),
    ],
)
@pytest.mark.slow
def test_a_game_that_cannot_be_rated_is_refused_and_nothing_is_made(
    db: Path, body: dict[str, Any], status: int, code: str
) -> None:
    with served(db) as client:
        me(client)
        refused(client.post("/api/games", json={**body, "rated": True}), status, code)
        refused(client.post("/api/games", json={"mode": "duel", "rated": "yes"}), 400, "bad-message")
        assert client.get("/api/health").json()["games"] == 0


def test_a_rated_game_needs_a_player(db: Path) -> None:
    with served(db) as program:  # no cookie: the here seat would be nobody's
        body = {"mode": "duel", "rated": True, "seats": ONLINE_DUEL}
        refused(program.post("/api/games", json=body), 401, "no-player")


@pytest.mark.storage
def test_a_rated_game_against_oneself_is_refused_and_changes_nothing(db: Path) -> None:
    with served(db) as ann:
        me(ann)
        made = create(ann, "duel", ONLINE_DUEL, seed=None, rated=True)
        invite = made["invites"]["1"]
        refused(ann.post(f"/api/games/{made['id']}/join", json={"invite": invite}), 409, "self-play")
        nobody = another(ann)  # a program without a player
        refused(nobody.post(f"/api/games/{made['id']}/join", json={"invite": invite}), 401, "no-player")
        state = ann.get(f"/api/games/{made['id']}").json()
        assert state["version"] == 0 and state["seats"][1]["claimed"] is False
        bob = another(ann)
        me(bob)
        assert bob.post(f"/api/games/{made['id']}/join", json={"invite": invite}).status_code == 200


@pytest.mark.slow
def test_a_computer_level_plays_rated_under_its_own_name(db: Path) -> None:
    with served(db) as ann:
        name = me(ann)["name"]
        seats = [{"kind": "here"}, {"kind": "computer", "player": "easy"}]
        made = create(ann, "duel", seats, seed=None, rated=True)
        players = ann.get(f"/api/games/{made['id']}/players").json()["players"]
        assert [(p["name"], p["bot"]) for p in players] == [(name, False), ("Computer (easy)", True)]
        with socket(ann, made["id"], [made["tokens"]["0"]]) as sock:
            rng = random.Random(2)
            for _ in range(400):
                state = sock.wait(lambda s: s["game"]["over"] or 0 in s["game"]["waiting"])
                if state["game"]["over"]:
                    break
                assert sock.request(legal_move(state, 0, rng))["type"] == "ok"
        until(lambda: me(ann)["ratings"]["duel"]["games"] == 1)
        level = ann.get("/api/players/Computer (easy)").json()
        assert level["bot"] is True and level["ratings"]["duel"]["games"] == 1
        assert level["games"][0]["opponent"] == name
        # Nobody may take the level's name.
        refused(ann.post("/api/me/name", json={"name": "Computer"}), 400, "refused-name")


@pytest.mark.storage
def test_a_game_is_rated_exactly_once_however_many_servers_rate_it(db: Path) -> None:
    """Two storages on one database (on SQLite: one storage, twice at once) rate one game: its
    rows are written once, the ratings changed once."""

    async def main() -> None:
        first, _ = open_storage(db)
        second = open_storage(db)[0] if str(db).startswith("postgresql") else first
        await first.start()
        if second is not first:
            await second.start()
        try:
            for pid in ("ann", "bob"):
                await first.new_player(StoredPlayer(pid, pid.title()), None)
            game = RatedGame("g1", "duel", ("ann", "bob"), 1.0, 1_800_000_000.0)
            update = updater()
            results = await asyncio.gather(
                *(s.rate_game(game, update) for s in (first, second, first, second))
            )
            assert sum(r is not None for r in results) == 1, results
            ratings = {r.mode: r for r in await first.ratings_of("ann")}
            assert ratings["duel"].games == 1
            assert ratings["duel"].rating == pytest.approx(
                glicko.game(glicko.new(), glicko.new(), 1.0)[0].rating
            )
            assert len(await second.rating_changes(game_id="g1")) == 2
            # A second game of the same players, from both at once: both rated (no lost update).
            more = [RatedGame(f"g{i}", "duel", ("ann", "bob"), 0.0, 1_800_000_100.0 + i) for i in (2, 3)]
            done = await asyncio.gather(first.rate_game(more[0], update), second.rate_game(more[1], update))
            assert all(d is not None for d in done)
            assert {r.mode: r for r in await second.ratings_of("bob")}["duel"].games == 3
        finally:
            await first.close()
            if second is not first:
                await second.close()

    run_async(main)


def test_the_rd_grows_with_the_time_away_and_the_next_game_starts_from_it() -> None:
    update = updater()
    game = RatedGame("g1", "duel", ("ann", "bob"), 1.0, 1_000.0)
    (_, ann), (_, bob) = update(game, [None, None])
    later = RatedGame("g2", "duel", ("ann", "bob"), 0.0, 1_000.0 + 200 * DAY)
    (ann_start, ann_after), _ = update(later, [ann, bob])
    grown = glicko.away(glicko.Glicko(ann.rating, ann.rd, ann.volatility), 200)
    assert ann_start.rd == pytest.approx(grown.rd) and ann_start.rd > ann.rd
    assert ann_after.games == 2 and ann_after.played == later.ended


def test_a_rated_game_across_two_servers_is_rated_once(pg_url: str) -> None:
    """Ann's page on one server, Bob's on another (one PostgreSQL database): the game is rated
    once, whichever server made its last move, and both servers say so."""
    with served(pg_url) as one, served(pg_url) as two:
        ann, bob = one, two
        ann_name, bob_name = me(ann)["name"], me(bob)["name"]
        game_id, ann_token, bob_token = rated_duel(ann, bob)
        with socket(ann, game_id, [ann_token]) as left, socket(bob, game_id, [bob_token]) as right:
            for _ in range(400):
                if left.sync()["game"]["over"]:
                    break
                for sock, seat in ((left, 0), (right, 1)):
                    now = sock.sync()
                    if not now["game"]["over"] and seat in now["game"]["waiting"]:
                        assert sock.request(legal_move(now, seat))["type"] == "ok"
                until(lambda: right.sync()["game"]["version"] == left.sync()["game"]["version"])
        until(lambda: me(ann)["ratings"]["duel"]["games"] == 1)
        for server in (one, two):
            for name in (ann_name, bob_name):
                assert server.get(f"/api/players/{name}").json()["ratings"]["duel"]["games"] == 1
        assert len(two.get(f"/api/games/{game_id}/players").json()["players"]) == 2
        assert one.get("/api/health").json()["games"] >= 1
