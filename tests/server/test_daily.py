"""The daily challenge (issue 32): everyone plays the same shuffle today and another tomorrow; one
counted attempt a player a day (the rest practice); scores ranked, ties sharing a rank; the
expert's score, the median and the coach's lessons only once the player has finished; nothing
that tells today's seed before the day is over; the rating leaderboards; the player's page."""

from __future__ import annotations

import json
import random
import sqlite3
import time
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient
from test_server_helpers import Json, legal_move, play_out, served, socket, until

from dorf.server.daily.calendar import day_seed, streak

DAY, NEXT = "2026-12-02", "2026-12-03"
QUICK = {"daily_expert": "greedy", "daily_coach": "planner:1"}


@contextmanager
def challenge(db: Path | str, today: Path, **config: Any) -> Iterator[TestClient]:
    """A server whose today is the date in ``today`` (written ``DAY`` if it is not there)."""
    if not today.exists():
        today.write_text(DAY)
    with served(db, today_file=today, **{**QUICK, **config}) as client:
        client.post("/api/me")  # a player (the cookie)
        yield client


def browser(client: TestClient, player: bool = True) -> TestClient:
    """Another browser on the same app: a player of its own (``player``), or nobody yet."""
    other = TestClient(client.app)
    other.portal = client.portal
    if player:
        other.post("/api/me")
    return other


def another(client: TestClient) -> TestClient:
    """A second player on the same app."""
    return browser(client)


@pytest.fixture
def shared(pg_url: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> str:
    """A PostgreSQL database for two servers (their campaigns in a SQLite file of the test's)."""
    monkeypatch.setenv("DORF_DB", str(tmp_path / "campaigns.sqlite3"))
    return pg_url


def start(client: TestClient, **body: Any) -> Json:
    response = client.post("/api/daily", json=body)
    assert response.status_code == 201, response.text
    answer: Json = response.json()
    return answer


def refused(response: Any, status: int, code: str) -> None:
    assert response.status_code == status, response.text
    assert response.json()["error"]["code"] == code, response.text


def play(client: TestClient, made: Json, seed: int = 1, stop: int | None = None) -> Json:
    """Play a game of the challenge with random legal moves: to the end, or ``stop`` moves."""
    with socket(client, made["id"], [made["tokens"]["0"]]) as sock:
        if stop is None:
            return play_out(sock, [0], random.Random(seed))
        rng = random.Random(seed)
        for _ in range(stop):
            state = sock.wait(lambda s: 0 in s["game"]["waiting"])
            assert sock.request(legal_move(state, 0, rng))["type"] == "ok"
        return sock.sync()


def daily(client: TestClient, day: str | None = None) -> Json:
    response = client.get("/api/daily" if day is None else f"/api/daily/{day}")
    assert response.status_code == 200, response.text
    answer: Json = response.json()
    return answer


def stored_seed(db: Path, game_id: str) -> int:
    with sqlite3.connect(db) as conn:
        return int(conn.execute("SELECT seed FROM server_game WHERE id = ?", (game_id,)).fetchone()[0])


def test_a_days_seed_is_an_hmac_of_the_day_and_a_streak_counts_days_in_a_row() -> None:
    key = bytes(32)
    assert day_seed(key, DAY) == day_seed(key, DAY) != day_seed(key, NEXT)
    assert day_seed(key, DAY) != day_seed(bytes([1]) * 32, DAY)
    assert streak([NEXT, DAY, "2026-11-30"], NEXT) == 2
    assert streak([DAY], NEXT) == 1  # not played today yet: the streak up to yesterday
    assert streak(["2026-11-30"], NEXT) == 0


def test_everyone_plays_the_same_shuffle_today_and_another_tomorrow(tmp_path: Path) -> None:
    db, today = tmp_path / "dorf.sqlite3", tmp_path / "today"
    with challenge(db, today) as ann:
        bob = another(ann)
        games = [start(ann), start(bob)]
        assert [g["practice"] for g in games] == [False, False] and {g["date"] for g in games} == {DAY}
        first = [ann.get(f"/api/games/{g['id']}").json()["revealed"] for g in games]
        assert first[0] == first[1]
        assert stored_seed(db, games[0]["id"]) == stored_seed(db, games[1]["id"])
        today.write_text(NEXT)
        tomorrow = start(ann)
        assert tomorrow["practice"] is False and tomorrow["date"] == NEXT
        assert stored_seed(db, tomorrow["id"]) != stored_seed(db, games[0]["id"])
    with challenge(db, today) as again:  # a restart derives the same seeds (the secret is stored)
        made = start(again, date=DAY)
        assert made["practice"] is True and stored_seed(db, made["id"]) == stored_seed(db, games[0]["id"])


@pytest.mark.slow
def test_one_counted_attempt_a_day_and_the_rest_is_practice(tmp_path: Path) -> None:
    with challenge(tmp_path / "dorf.sqlite3", tmp_path / "today") as ann:
        counted = start(ann)
        # while it goes on, a practice game (undo) would show the tiles to come: refused
        refused(ann.post("/api/daily", json={}), 409, "daily-unfinished")
        assert daily(ann)["attempt"]["game"] == counted["id"]
        play(ann, counted)
        again = start(ann)
        assert again["practice"] is True and again["id"] != counted["id"]
        state = ann.get(f"/api/games/{again['id']}").json()
        assert state["practice"] is True and state["daily"] == {"date": DAY, "practice": True}
        play(ann, again, seed=5)
        view = daily(ann)
        assert view["players"] == 1 and len(view["top"]) == 1
        assert view["attempt"]["game"] == counted["id"] and view["attempt"]["finished"] is True
        # a past day is practice
        assert start(ann, date="2026-11-30")["practice"] is True


def test_no_hints_in_a_counted_attempt(tmp_path: Path) -> None:
    with challenge(tmp_path / "dorf.sqlite3", tmp_path / "today") as ann:
        made = start(ann)
        body = {"token": made["tokens"]["0"], "seat": 0}
        refused(ann.post(f"/api/games/{made['id']}/hint", json=body), 403, "no-hint")


def test_bad_requests_are_refused_and_change_nothing(tmp_path: Path) -> None:
    with challenge(tmp_path / "dorf.sqlite3", tmp_path / "today") as ann:
        for bad in ("2026-13-01", "yesterday", 20261202, "2026-12-2"):
            refused(ann.post("/api/daily", json={"date": bad}), 400, "bad-date")
        refused(ann.post("/api/daily", json={"date": NEXT}), 404, "no-daily")
        refused(ann.get(f"/api/daily/{NEXT}"), 404, "no-daily")
        refused(ann.get("/api/daily/not-a-day"), 400, "bad-date")
        refused(ann.post("/api/daily", json=[1]), 400, "bad-message")
        nobody = browser(ann, player=False)
        refused(nobody.post("/api/daily", json={"date": "yesterday"}), 400, "bad-date")
        assert nobody.get("/api/me").json()["player"] is False  # a visitor refused: no player made
        refused(ann.get("/api/leaderboard?mode=coop"), 400, "bad-mode")
        assert daily(ann)["players"] == 0
        made = start(ann)
        refused(ann.post(f"/api/games/{made['id']}/lessons", json={"token": "x"}), 403, "bad-token")
        refused(
            ann.post(f"/api/games/{made['id']}/lessons", json={"token": made["tokens"]["0"]}), 409, "not-over"
        )


@pytest.mark.slow
def test_ranks_follow_the_scores_and_the_expert_median_and_lessons_come_after_finishing(
    tmp_path: Path,
) -> None:
    with challenge(tmp_path / "dorf.sqlite3", tmp_path / "today") as ann:
        players = [ann, another(ann), another(ann)]
        made = [start(p) for p in players]
        assert daily(ann)["expert"] is None
        finals = [play(p, m, seed=i) for i, (p, m) in enumerate(zip(players, made, strict=True))]
        scores = [int(f["game"]["scores"][0]["total"]) for f in finals]
        until(lambda: all(daily(p)["attempt"]["score"] == s for p, s in zip(players, scores, strict=True)))
        until(lambda: daily(ann)["expert"] is not None)
        view = daily(ann)
        assert [line["score"] for line in view["top"]] == sorted(scores, reverse=True)
        for line in view["top"]:  # a rank is one more than the scores above it (ties share)
            assert line["rank"] == 1 + sum(s > line["score"] for s in scores)
            assert line["game"] is None  # the boards are shown once the day is over
        ordered = sorted(scores)
        assert view["median"] == ordered[1]
        mine = view["attempt"]
        assert mine["rank"] == 1 + sum(s > scores[0] for s in scores)
        lessons = ann.post(f"/api/games/{made[0]['id']}/lessons", json={"token": made[0]["tokens"]["0"]})
        assert lessons.status_code == 200, lessons.text
        found = lessons.json()["lessons"]
        assert 1 <= len(found) <= 3
        assert [x["loss"] for x in found] == sorted((x["loss"] for x in found), reverse=True)
        for lesson in found:
            assert (
                lesson["text"].startswith(f"Turn {lesson['turn']}:")
                and lesson["preferred"] != lesson["played"]
            )
            # the board before the lesson's placement: its first tiles (none before the first one)
            tiles = finals[0]["game"]["areas"][0]["tiles"]
            assert 0 <= lesson["tiles_before"] < len(tiles)
            assert list(tiles[lesson["tiles_before"]]["at"]) == list(lesson["played"]["at"])
        again = ann.post(f"/api/games/{made[0]['id']}/lessons", json={"token": made[0]["tokens"]["0"]})
        assert again.json() == lessons.json()  # kept with the attempt


@pytest.mark.slow
def test_the_expert_and_median_are_hidden_from_a_player_who_has_not_finished(tmp_path: Path) -> None:
    with challenge(tmp_path / "dorf.sqlite3", tmp_path / "today") as ann:
        bob = another(ann)
        play(ann, start(ann))
        until(lambda: daily(ann)["expert"] is not None)
        start(bob)
        view = daily(bob)
        assert view["expert"] is None and view["median"] is None and view["attempt"]["finished"] is False
        nobody = browser(ann, player=False)
        assert daily(nobody)["expert"] is None and daily(nobody)["attempt"] is None


@pytest.mark.slow
def test_an_unfinished_attempt_counts_with_its_score_when_the_day_ends(tmp_path: Path) -> None:
    db, today = tmp_path / "dorf.sqlite3", tmp_path / "today"
    with challenge(db, today) as ann:
        bob = another(ann)
        finished = play(ann, start(ann), seed=3)
        mine = start(bob)
        left = play(bob, mine, stop=6)
        part = int(left["game"]["scores"][0]["total"])
        until(lambda: daily(bob)["attempt"]["score"] == part)
        today.write_text(NEXT)
        view = daily(bob, DAY)
        assert view["over"] is True and view["players"] == 2
        assert sorted(line["score"] for line in view["top"]) == sorted(
            [part, int(finished["game"]["scores"][0]["total"])]
        )
        assert view["attempt"] == {**view["attempt"], "score": part, "finished": False}
        # the boards and the seed are published now; each attempt keeps its rank
        assert all(line["game"] for line in view["top"]) and view["seed_text"] == str(view["seed"])
        until(lambda: _places(db) == {line["rank"] for line in view["top"]})
        # playing on after the day does not change the result
        play(bob, mine, seed=2, stop=3)
        assert daily(bob, DAY)["attempt"]["score"] == part


def _places(db: Path) -> set[int | None]:
    with sqlite3.connect(db) as conn:
        return {row[0] for row in conn.execute("SELECT place FROM server_daily_result WHERE day = ?", (DAY,))}


def everything_said(client: TestClient, made: Json, extra: list[str]) -> str:
    """Every answer a player can get about its game of the challenge, in one text: the game,
    its websocket, its record and replay, the lessons, the challenge, the player's page, refusals
    of bad moves, the campaign, the server's health."""
    gid, token = made["id"], made["tokens"]["0"]
    said: list[str] = list(extra)
    for path in (
        f"/api/games/{gid}",
        f"/api/games/{gid}/record",
        f"/api/games/{gid}/replay",
        f"/api/games/{gid}/players",
        "/api/daily",
        f"/api/daily/{DAY}",
        "/api/health",
        "/api/me",
    ):
        said.append(client.get(path).text)
    me = client.post("/api/me").json()["name"]
    said.append(client.get(f"/api/players/{me}").text)
    for body in (
        {"token": token, "seat": 0, "at": [99, 99], "rot": 0},
        {"token": token, "seat": 0, "at": [0, 0], "rot": 0},
        {"token": "nope", "seat": 0, "at": [1, 0], "rot": 0},
    ):
        said.append(client.post(f"/api/games/{gid}/move", json=body).text)
    said.append(client.post(f"/api/games/{gid}/hint", json={"token": token, "seat": 0}).text)
    said.append(client.post(f"/api/games/{gid}/undo", json={"token": token, "seat": 0}).text)
    said.append(client.post(f"/api/games/{gid}/lessons", json={"token": token}).text)
    said.append(client.post("/api/campaigns/none/record", json={"game": gid}).text)
    with socket(client, gid, [token]) as sock:
        said.append(json.dumps(sock.sync()))
    return "\n".join(said)


@pytest.mark.slow
def test_todays_seed_cannot_be_learned_before_the_day_is_over(tmp_path: Path) -> None:
    db, today = tmp_path / "dorf.sqlite3", tmp_path / "today"
    with challenge(db, today) as ann:
        bob = another(ann)
        done, going = start(ann), start(bob)
        seed = stored_seed(db, done["id"])
        with sqlite3.connect(db) as conn:
            secret = conn.execute("SELECT value FROM server_secret").fetchone()[0]
        forms = {str(seed), hex(seed)[2:], str(seed % 2**32), str(seed >> 32), secret}
        seen = [play(ann, done)]  # what the websocket said at the end, to the one who finished
        practice = start(ann)
        play(ann, practice, seed=9)
        texts = [
            everything_said(ann, done, [json.dumps(s) for s in seen]),
            everything_said(ann, practice, []),
            everything_said(bob, going, []),
        ]
        for text in texts:
            leaked = [form for form in forms if form in text]
            assert not leaked, f"the seed shows: {leaked}"
        assert '"code":"sealed"' in texts[0]  # the record and the replay say why not
        # once the day is over, it is published
        today.write_text(NEXT)
        assert daily(bob, DAY)["seed_text"] == str(seed)
        assert ann.get(f"/api/games/{done['id']}").json()["seed_text"] == str(seed)
        assert ann.get(f"/api/games/{done['id']}/record").json()["seed"] == seed


@pytest.mark.slow
def test_a_players_page_shows_its_days_best_day_and_streak(tmp_path: Path) -> None:
    today = tmp_path / "today"
    with challenge(tmp_path / "dorf.sqlite3", today) as ann:
        name = ann.post("/api/me").json()["name"]
        play(ann, start(ann))
        page = ann.get(f"/api/players/{name}").json()
        assert page["streak"] == 1 and page["daily"][0]["date"] == DAY
        assert page["daily"][0]["game"] is None and page["daily"][0]["expert"] is None  # today: hidden
        assert page["daily_best"] is None  # no day is over yet
        today.write_text(NEXT)
        until(lambda: ann.get(f"/api/players/{name}").json()["daily_best"] is not None)
        # the expert's game of the day is played in the think pool, which may lag on a busy machine
        until(lambda: ann.get(f"/api/players/{name}").json()["daily"][0]["expert"] is not None)
        play(ann, start(ann), seed=4)
        page = ann.get(f"/api/players/{name}").json()
        assert page["streak"] == 2 and [d["date"] for d in page["daily"]] == [NEXT, DAY]
        past = page["daily"][1]
        assert past["game"] and past["rank"] == 1 and past["players"] == 1
        assert past["expert"] is not None and past["beat"] == (past["score"] > past["expert"])
        assert page["daily_best"]["date"] == DAY
        assert "id" not in page


def test_a_leaderboard_lists_players_with_ten_games_and_a_low_rd_by_rating(tmp_path: Path) -> None:
    db = tmp_path / "dorf.sqlite3"
    with challenge(db, tmp_path / "today") as client:
        now = time.time()
        rows = [  # name, rating, rd, games, days since the last game
            ("Top", 2100.0, 60.0, 40, 0),
            ("Second", 1900.0, 80.0, 12, 1),
            ("FewGames", 2500.0, 60.0, 9, 0),
            ("Unsure", 2400.0, 120.0, 50, 0),
            ("Away", 2300.0, 100.0, 50, 400),  # its RD has grown past 110 since
            ("Third", 1700.0, 109.0, 10, 0),
        ]
        with sqlite3.connect(db) as conn:
            for name, rating, rd, games, away in rows:
                conn.execute(
                    "INSERT INTO server_player (id, name, name_key, created) VALUES (?, ?, ?, '')",
                    (name, name, name.lower()),
                )
                conn.execute(
                    "INSERT INTO server_rating VALUES (?, 'duel', ?, ?, 0.06, ?, ?)",
                    (name, rating, rd, games, now - away * 86400),
                )
                for opponent in ("o1", "o2", "o3"):  # counted results against three (issue 60)
                    conn.execute(
                        "INSERT INTO server_rating_game (game_id, player_id, mode, opponent_id, score,"
                        " rating_before, rating_after, rd_after, ended)"
                        " VALUES (?, ?, 'duel', ?, 1, 0, 0, 0, 0)",
                        (f"{name}-{opponent}", name, opponent),
                    )
        board = client.get("/api/leaderboard?mode=duel").json()
        assert [p["name"] for p in board["players"]] == ["Top", "Second", "Third"]
        assert [p["rank"] for p in board["players"]] == [1, 2, 3]
        assert all(p["rd"] < 110 and p["games"] >= 10 for p in board["players"])
        assert client.get("/api/leaderboard?mode=head-to-head").json() == {
            "mode": "head-to-head",
            "players": [],
        }


def test_two_servers_share_the_secret_attempts_and_leaderboards(shared: str, tmp_path: Path) -> None:
    today = tmp_path / "today"
    with challenge(shared, today) as a, challenge(shared, today) as b:
        bob = another(a)
        made = start(bob)
        # the same player on the other server: the same cookie, the same attempt
        b.cookies = bob.cookies
        refused(b.post("/api/daily", json={}), 409, "daily-unfinished")
        assert daily(b)["attempt"]["game"] == made["id"]
        other = start(a)
        assert (
            b.get(f"/api/games/{other['id']}").json()["revealed"]
            == a.get(f"/api/games/{made['id']}").json()["revealed"]
        )
        play(b, made)  # played on the other server
        until(
            lambda: daily(a)["top"] == daily(b)["top"] and any(line["finished"] for line in daily(a)["top"])
        )
        assert b.get("/api/leaderboard?mode=duel").json() == a.get("/api/leaderboard?mode=duel").json()
        until(lambda: daily(bob)["expert"] is not None)
        assert daily(bob)["expert"] == daily(b)["expert"]


def test_two_attempts_at_once_on_two_servers_give_one_counted_attempt(shared: str, tmp_path: Path) -> None:
    today = tmp_path / "today"
    with challenge(shared, today) as a, challenge(shared, today) as b:
        for _ in range(5):
            one = another(a)
            two = browser(b, player=False)
            two.cookies = one.cookies  # the same player, on both servers at once
            with ThreadPoolExecutor(2) as pool:
                answers = list(pool.map(lambda c: c.post("/api/daily", json={}), [one, two]))
            codes = sorted(r.status_code for r in answers)
            assert codes == [201, 409], [r.text for r in answers]
            counted = [r.json() for r in answers if r.status_code == 201]
            assert counted[0]["practice"] is False
        assert daily(a)["players"] == 5 == len(daily(b)["top"])


@pytest.mark.slow
def test_a_bot_account_plays_its_attempt_with_its_api_token(tmp_path: Path) -> None:
    with challenge(tmp_path / "dorf.sqlite3", tmp_path / "today") as owner:
        token = owner.post("/api/me/tokens", json={}).json()["token"]
        bot = browser(owner, player=False)  # a program: no cookie, its bearer token
        made = bot.post("/api/daily", json={}, headers={"Authorization": f"Bearer {token}"})
        assert made.status_code == 201 and made.json()["practice"] is False, made.text
        play(bot, made.json())
        until(lambda: daily(owner)["attempt"]["finished"])  # the token names the owner's player
        assert daily(owner)["attempt"]["game"] == made.json()["id"]
