"""The daily challenge in real Chromium (issue 32), under the pages' Content-Security-Policy: three
browsers are three players; each starts today's challenge from the front page and gets the same
shuffle (the same first tiles); each plays to the end (elsewhere, over the websocket, with choices
of its own) while its page follows; the expert computer's score and the coach's lessons are not
shown before the end and are after it (a lesson shown on the board); the day's leaderboard ranks
them by score; one who plays again gets practice and is not listed twice; then the day turns (the
server reads today's date from a file the test writes): yesterday's page shows its seed and links
to the boards, the records are given out with that seed, and today's shuffle is another.  Pictures
of the daily end and of a player's page, at 1400x900 and 390x844, in English and German, and of
the front page, go to ``$DORF_SHOTS`` when it is set (none otherwise)."""

from __future__ import annotations

import datetime
import json
import os
import random
import re
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from browsing import PHONE, WIDE, Pages, decide_elsewhere, tokens_of, wait_turn
from test_a11y import FAILING, axe_violations
from test_german import german

from dorf.testing.servers import launch

pytestmark = pytest.mark.slow
GAME_URL = re.compile(r"/game/([A-Za-z0-9_-]+)$")
#: Where the pictures go when ``DORF_SHOTS`` is set (look at them: docs and reviews).
SHOTS = os.environ.get("DORF_SHOTS", "")
TODAY = datetime.datetime.now(datetime.UTC).date()
DAY, NEXT = TODAY.isoformat(), (TODAY + datetime.timedelta(days=1)).isoformat()

#: A placement among the legal ones ([q, r, rotations]): each player chooses its own way.
Choose = Callable[[list[Any]], tuple[int, int, int]]


def first(legal: list[Any]) -> tuple[int, int, int]:
    q, r, rots = legal[0]
    return q, r, rots[0]


def at_random(seed: int) -> Choose:
    rng = random.Random(seed)

    def choose(legal: list[Any]) -> tuple[int, int, int]:
        q, r, rots = rng.choice(legal)
        return q, r, rng.choice(rots)

    return choose


def play(
    server_url: str,
    game_id: str,
    token: str,
    choose: Choose,
    most: int | None = None,
    until: Callable[[dict[str, Any]], bool] = lambda game: False,
) -> tuple[dict[str, Any], list[str]]:
    """The solo game's seat played over its websocket as a page plays it, to the end (or ``most``
    placements, or until ``until(game)`` holds); the game then, and the faces of the tiles
    revealed one after the other."""
    faces: list[str] = []

    def decide(held: dict[str, Any], seat: int) -> dict[str, Any]:
        faces.append(held["game"]["revealed"][0]["face"])
        q, r, rot = choose(held["you"]["legal"][str(seat)])
        return {"at": [q, r], "rot": rot}

    return decide_elsewhere(server_url, game_id, token, until=until, most=most, choose=decide), faces


def last_landscapes(game: dict[str, Any]) -> bool:
    """The solo game's last landscape tiles are near (``left``: task tiles, landscapes): one
    revealed, one at most in the stack; the game ends a placement or two later."""
    return bool(game["left"][0][1] <= 1)


def started(page: Any, button: str) -> dict[str, Any]:
    """Click ``button``, which starts a daily game (``POST /api/daily``), and follow the page to the
    game; what the server answered (read on its way to the page: once the page has gone to the
    game, the browser no longer holds the body)."""
    seen: list[dict[str, Any]] = []

    def keep(route: Any) -> None:
        response = route.fetch()
        if route.request.method == "POST":
            seen.append(response.json())
        route.fulfill(response=response)

    page.route("**/api/daily", keep)
    try:
        page.locator(button).click()
        page.wait_for_url(GAME_URL)
    finally:
        page.unroute("**/api/daily", keep)
    assert len(seen) == 1, seen
    return seen[0]


def ranks_of(scores: list[int]) -> list[int]:
    """Ranks as a leaderboard gives them, best first, ties sharing a rank (1, 2, 2, 4)."""
    return [1 + sum(other > score for other in scores) for score in scores]


def shoot(page: Any, name: str, full: bool = False) -> None:
    """A picture for the eye (``DORF_SHOTS``), none otherwise."""
    if SHOTS:
        Path(SHOTS).mkdir(parents=True, exist_ok=True)
        page.screenshot(path=str(Path(SHOTS) / f"{name}.png"), full_page=full)


def accessible(page: Any, screen: str) -> None:
    """axe finds nothing serious on the page as it is now."""
    found = [f"{v['id']}: {v['help']}" for v in axe_violations(page) if v["impact"] in FAILING]
    assert found == [], f"axe on {screen}: {found}"


def remember(page: Any, lang: str) -> None:
    """The browser's language from the next page it opens on (as the EN/DE switch leaves it)."""
    page.evaluate(f"localStorage.setItem('dorf.lang', '{lang}')")


def speak(page: Any, lang: str) -> None:
    """The page again in ``lang`` (as the EN/DE switch leaves it: remembered by the browser)."""
    remember(page, lang)
    page.reload()


def day_shown(page: Any, score: int, rank: int) -> None:
    """The daily end on the page shows the day as all three players finished it: the player's
    rank among them, the expert's score (beaten or not), the median and one to three lessons."""
    end = page.locator("#daily-end")
    end.locator(".daily-rank[data-rank]").wait_for(timeout=20_000)
    assert end.locator(".daily-rank").get_attribute("data-rank") == str(rank)
    assert end.locator(".daily-rank").get_attribute("data-players") == "3"
    expert = end.locator(".daily-expert[data-expert]")
    expert.wait_for(timeout=30_000)
    beat = score > int(expert.get_attribute("data-expert") or "0")
    assert expert.get_attribute("data-beat") == str(beat).lower()
    end.locator(".daily-median").wait_for()
    end.locator("li.lesson").first.wait_for(timeout=45_000)
    assert 1 <= end.locator("li.lesson").count() <= 3


@pytest.fixture
def daily(tmp_path: Path) -> Iterator[tuple[str, Path]]:
    """A server whose today is the date in a file (the test turns the day by writing it), its
    expert the greedy player and its coach a quick planner; it sends the pages' policy."""
    today = tmp_path / "today"
    today.write_text(DAY + "\n")
    settings = {"ai_delay": 0, "today_file": today, "daily_expert": "greedy", "daily_coach": "planner:1"}
    with launch(tmp_path / "dorf.sqlite3", page_policy=True, **settings) as server:
        yield server.url, today


def test_three_players_one_shuffle_a_leaderboard_then_the_day_turns(
    pages: Pages, daily: tuple[str, Path]
) -> None:
    url, today_file = daily
    ann, bob, cy = pages.new(*WIDE), pages.new(*PHONE, touch=True), pages.new(*WIDE)
    players = (ann, bob, cy)
    names = []
    for page in players:
        assert page.request.post(url + "/api/me", data={}).ok  # players (reading makes nobody)
        page.goto(url + "/")
        page.locator("#daily-play").wait_for()
        names.append(page.locator("#me-link").inner_text())
        assert page.locator("#daily-date").get_attribute("data-date") == DAY
    assert len(set(names)) == 3
    shoot(ann, "front-page-en-wide-before", full=True)

    # Each starts today's challenge from the front page: the counted attempt.
    games = []
    for page in players:
        made = started(page, "#daily-play")
        assert made["practice"] is False and made["date"] == DAY and made["mode"] == "coop"
        page.wait_for_url(GAME_URL)
        gid = GAME_URL.search(page.url).group(1)  # type: ignore[union-attr]
        assert gid == made["id"] and tokens_of(page, gid) == list(made["tokens"].values())
        games.append(gid)
    assert len(set(games)) == 3
    # The same shuffle: the same tile revealed first, to each page and over the API.
    revealed = [
        page.context.request.get(f"{url}/api/games/{gid}").json()["revealed"][0]
        for page, gid in zip(players, games, strict=True)
    ]
    assert len({(r["face"], json.dumps(r.get("task"))) for r in revealed}) == 1, revealed
    for page in players:
        page.locator("#card-daily #daily-before").wait_for(state="attached")
        assert page.locator("#card-daily .daily-expert, #card-daily .lesson, #daily-end").count() == 0
    # Nothing before the end: no expert, no median, no record.
    seen = ann.context.request.get(url + "/api/daily").json()
    assert seen["date"] == DAY and seen["players"] == 3 and seen["expert"] is None and seen["median"] is None
    assert seen["attempt"]["game"] == games[0] and not seen["attempt"]["finished"]
    assert all(row["game"] is None for row in seen["top"])
    assert ann.context.request.get(f"{url}/api/games/{games[0]}/record").status != 200

    # Each plays to the end with choices of its own; its page follows and shows the daily end.
    ways: list[Choose] = [first, at_random(1), at_random(2)]
    finals, faces = [], []
    for page, gid, way in zip(players, games, ways, strict=True):
        token = tokens_of(page, gid)[0]
        # The middle of the game with the page away (a page drawing every placement is not this
        # test's point); back at the game for its last landscape tiles, it follows it to the end.
        page.goto("about:blank")
        middle, shown = play(url, gid, token, way, until=last_landscapes)
        assert not middle["over"]
        page.goto(f"{url}/game/{gid}")
        assert wait_turn(page)["mine"]
        game, last = play(url, gid, token, way)
        assert game["over"] and game["daily"] == {"date": DAY, "practice": False}
        finals.append(game["scores"][0]["total"])
        faces.append((shown + last)[:5])
        end = page.locator("#daily-end")
        end.wait_for(timeout=20_000)  # the page followed the game to its end
        assert end.locator(".daily-points").get_attribute("data-score") == str(finals[-1])
        # Its lessons (one computation at a time from an address: each before the next game ends).
        end.locator("li.lesson").first.wait_for(timeout=45_000)
        if page is ann:  # Ann has finished, Bob has not: he sees neither the expert nor a median
            bobs = bob.context.request.get(url + "/api/daily").json()
            assert bobs["expert"] is None and bobs["median"] is None and not bobs["attempt"]["finished"]
            assert bob.locator("#card-daily .daily-expert, #daily-end, .lesson").count() == 0
    # The same first tile for everyone (the next ones depend on the tasks each completes).
    assert faces[0][0] == faces[1][0] == faces[2][0] == revealed[0]["face"], faces
    ranks = ranks_of(finals)
    # Cy finished last: her page shows the day as all three finished it, with the coach's lessons.
    day_shown(cy, finals[2], ranks[2])
    # A lesson on the board: the board as it stood, the coach's placement on it, both cells outlined.
    cy.locator("#daily-end li.lesson .lesson-show").first.click()
    cy.locator("#lesson-board .ghost").first.wait_for()
    assert cy.locator("#lesson-board .lesson-preferred").count() == 1
    lessons = cy.context.request.post(
        f"{url}/api/games/{games[2]}/lessons", data={"token": tokens_of(cy, games[2])[0]}
    ).json()["lessons"]
    before = lessons[0]["tiles_before"]
    assert cy.locator("#lesson-board .ground > g").count() == before
    cy.locator("#lesson-yours").click()
    cy.locator("#lesson-yours[aria-pressed=true]").wait_for()
    cy.locator("#daily-end li.lesson .lesson-show").first.click()
    shoot(cy, "daily-end-en-wide")
    accessible(cy, "the daily end")
    shoot(bob, "daily-end-en-phone")
    for page, size, score, rank in ((ann, "wide", finals[0], ranks[0]), (bob, "phone", finals[1], ranks[1])):
        speak(page, "de")  # read anew: the day once all three have finished it, in German
        day_shown(page, score, rank)
        show = page.locator("#daily-end li.lesson .lesson-show").first
        if page is bob:
            show.tap()
        else:
            show.click()
        page.locator("#lesson-board .ghost").first.wait_for()
        german(page, "the daily end", tuple(names))
        shoot(page, f"daily-end-de-{size}")
        remember(page, "en")  # each opens another page next

    # The day's leaderboard: in score order, ties sharing a rank, ann's own row marked.
    ann.goto(url + "/daily")
    rows = ann.locator("#daily-top tbody tr[data-rank]")
    rows.first.wait_for()
    listed = [
        (
            int(r.get_attribute("data-rank") or 0),
            r.get_attribute("data-name"),
            int(r.get_attribute("data-score") or 0),
        )
        for r in rows.all()
    ]
    assert sorted(n for _, n, _ in listed) == sorted(names)
    assert [s for _, _, s in listed] == sorted(finals, reverse=True)
    assert [k for k, _, _ in listed] == ranks_of([s for _, _, s in listed])
    assert ann.locator(f'#daily-top tr.mine[data-name="{names[0]}"]').count() == 1
    assert ann.locator("#daily-expert").count() == 1 and ann.locator("a.daily-board").count() == 0
    assert ann.locator("#daily-seed").count() == 0

    # Cy plays again: practice of the same shuffle, never ranked, not listed twice.
    cy.goto(url + "/")
    cy.locator("#daily-practice").wait_for()
    shoot(cy, "front-page-en-wide", full=True)
    accessible(cy, "the front page")
    if SHOTS:  # the front page on a phone in English too, for its picture
        bob.goto(url + "/")
        bob.locator("#daily-practice").wait_for()
        shoot(bob, "front-page-en-phone", full=True)
    remember(bob, "de")
    bob.goto(url + "/")
    bob.locator("#daily-practice").wait_for()
    german(bob, "the front page", tuple(names))
    shoot(bob, "front-page-de-phone", full=True)
    remember(bob, "en")  # he opens another page next
    again = started(cy, "#daily-practice")
    assert again["practice"] is True and again["date"] == DAY
    cy.wait_for_url(re.compile(f"/game/{again['id']}$"))
    cy.locator("#card-daily .badge.practice").wait_for()
    assert cy.locator("#card-daily .daily-expert, #card-daily .lesson").count() == 0
    practice = cy.context.request.get(f"{url}/api/games/{again['id']}").json()
    assert practice["practice"] and practice["daily"] == {"date": DAY, "practice": True}
    assert practice["revealed"][0]["face"] == revealed[0]["face"]
    seen = cy.context.request.get(url + "/api/daily").json()
    assert seen["players"] == 3 and [row["name"] for row in seen["top"]].count(names[2]) == 1
    assert seen["attempt"]["game"] == games[2]

    # The day turns: yesterday's seed and boards are published, and today has another shuffle.
    yesterday = ann.context.request.get(f"{url}/api/daily/{DAY}").json()
    assert "seed_text" not in yesterday
    today_file.write_text(NEXT + "\n")
    seen = ann.context.request.get(url + "/api/daily").json()
    assert seen["date"] == NEXT and seen["players"] == 0 and seen["attempt"] is None
    yesterday = ann.context.request.get(f"{url}/api/daily/{DAY}").json()
    assert yesterday["over"] and yesterday["seed_text"]
    for gid in games:
        record = ann.context.request.get(f"{url}/api/games/{gid}/record")
        assert record.status == 200, record.text()
        assert str(json.loads(record.text())["seed"]) == yesterday["seed_text"]
    ann.goto(f"{url}/daily/{DAY}")
    ann.locator("#daily-seed").wait_for()
    assert yesterday["seed_text"] in ann.locator("#daily-seed").inner_text()
    boards = sorted(a.get_attribute("href") or "" for a in ann.locator("a.daily-board").all())
    assert boards == sorted(f"/game/{gid}" for gid in games)
    ann.locator("#daily-next").wait_for()
    shoot(ann, "daily-page-en-wide", full=True)
    accessible(ann, "a day's page")
    bob.goto(f"{url}/daily/{DAY}")
    bob.locator("#daily-seed").wait_for()
    shoot(bob, "daily-page-en-phone", full=True)
    ann.goto(url + "/")
    ann.locator("#daily-play").wait_for()
    assert ann.locator("#daily-date").get_attribute("data-date") == NEXT
    fresh = started(ann, "#daily-play")
    assert fresh["practice"] is False and fresh["date"] == NEXT
    ann.wait_for_url(GAME_URL)

    # Two rated Duels of Ann's against the computer, for the line of her ratings on her page.
    for _ in range(2):
        body = {
            "mode": "duel",
            "rated": True,
            "seats": [{"kind": "here"}, {"kind": "computer", "player": "easy"}],
        }
        duel = ann.context.request.post(url + "/api/games", data=body).json()
        assert play(url, duel["id"], duel["tokens"]["0"], first)[0]["over"]

    # A player's page: the day in the calendar (score, rank, the board linked), the best, the streak.
    for page, name, gid, score, rank, size in (
        (ann, names[0], games[0], finals[0], ranks[0], "wide"),
        (bob, names[1], games[1], finals[1], ranks[1], "phone"),
    ):
        for lang in ("en", "de"):
            remember(page, lang)
            page.goto(f"{url}/@/{name}")
            day = page.locator(f'#daily-calendar li[data-date="{DAY}"]')
            day.wait_for()
            assert day.get_attribute("data-score") == str(score) and day.get_attribute("data-rank") == str(
                rank
            )
            assert day.locator("a").get_attribute("href") == f"/game/{gid}"
            assert page.locator("#daily-best b").inner_text().isdigit()
            if page is ann:
                assert page.locator(".rating-chart circle").count() == 2
            if lang == "de":
                german(page, "a player's page", tuple(names))
            shoot(page, f"player-page-{lang}-{size}", full=True)
            if lang == "en" and page is ann:
                accessible(page, "a player's page")
    assert int(ann.locator("#daily-streak").get_attribute("data-streak") or 0) >= 1
    # Ann's first placements of the new day, her page elsewhere: she chose the same way on both
    # days, and the same shuffle would have revealed the same tiles.
    _, new_faces = play(url, fresh["id"], fresh["tokens"]["0"], first, most=5)
    assert new_faces != faces[0], "a new day, a new shuffle"
    assert pages.errors == []
