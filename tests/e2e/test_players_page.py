"""Players and ratings in real Chromium (issue 31), under the server's Content-Security-Policy:
two browsers are two players with names of their own; a rated Duel between them shows each
seat's name with its rating, and at the end the change Glicko-2 gives; a player's page shows
the ratings, their history and the last games, and on one's own page the name can be changed."""

from __future__ import annotations

import os
import random
import re
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from browsing import PHONE, WIDE, Pages, decide_elsewhere, wait_version_after

from dorf.server.players import glicko
from dorf.testing.servers import launch

pytestmark = pytest.mark.slow
GAME_URL = re.compile(r"/game/([A-Za-z0-9_-]+)$")
#: Where the pictures go when ``DORF_SHOTS`` is set (look at them: docs and reviews).
SHOTS = os.environ.get("DORF_SHOTS", "")


def shoot(page: Any, name: str, full: bool = False) -> None:
    """A picture for the eye (``DORF_SHOTS``), none otherwise."""
    if SHOTS:
        Path(SHOTS).mkdir(parents=True, exist_ok=True)
        page.screenshot(path=str(Path(SHOTS) / f"{name}.png"), full_page=full)


def play_out(
    server_url: str,
    game_id: str,
    tokens: list[str],
    rng: random.Random,
    until: Callable[[dict[str, Any]], bool] = lambda game: False,
) -> dict[str, Any]:
    """Both seats played elsewhere to the end (or until ``until(game)`` holds), seat 0 its first
    legal move, seat 1 a random one (so that the game has a winner more often than not); the
    game then."""

    def choose(held: dict[str, Any], seat: int) -> dict[str, Any]:
        legal = held["you"]["legal"][str(seat)]
        q, r, rots = legal[0] if seat == 0 else rng.choice(legal)
        return {"at": [q, r], "rot": rots[0]}

    return decide_elsewhere(server_url, game_id, tokens, until=until, choose=choose)


def last_landscapes(game: dict[str, Any]) -> bool:
    """The Duel's last landscape tiles are near (``left``: task tiles, landscapes): one revealed,
    one at most in the stack; the game ends a placement or two later."""
    return bool(game["left"][0][1] <= 1)


def held_token(page: Any, game_id: str, seat: int) -> str:
    """The token of ``seat`` the page's browser holds for the game."""
    tokens = page.evaluate(f"JSON.parse(localStorage.getItem('dorf.games.v1'))['{game_id}'].tokens")
    assert list(tokens) == [str(seat)], tokens
    return str(tokens[str(seat)])


@pytest.fixture
def policed(tmp_path: Path) -> Iterator[str]:
    """A server that sends the pages' Content-Security-Policy (no inline script)."""
    with launch(tmp_path / "dorf.sqlite3", ai_delay=0, page_policy=True) as server:
        yield server.url


def test_two_players_a_rated_duel_and_their_pages(pages: Pages, policed: str) -> None:
    ann, bob = pages.new(*WIDE), pages.new(*PHONE, touch=True)
    for page in (ann, bob):
        assert page.request.post(policed + "/api/me", data={}).ok  # players (reading makes nobody)
        page.goto(policed + "/")
        page.locator("#me-link").wait_for()
    ann_name, bob_name = ann.locator("#me-link").inner_text(), bob.locator("#me-link").inner_text()
    assert ann_name and bob_name and ann_name != bob_name
    # Ann opens a rated 3+2 Duel from the form, its other seat online and open in the lobby;
    # Bob, whose front page was open before the game existed, sees it appear and takes it.
    ann.locator("label.mode", has_text="The Duel").click()
    ann.locator(".seat-kind").nth(1).select_option("online")
    ann.locator("#clock").select_option("3+2")
    ann.locator("#rated").check()
    assert ann.locator("#practice").is_disabled() and ann.locator("#seed").is_disabled()
    ann.locator("#open-game").check()
    ann.locator("#start").click()
    ann.wait_for_url(GAME_URL)
    gid = GAME_URL.search(ann.url).group(1)  # type: ignore[union-attr]
    row = bob.locator(f'li.open-game[data-game="{gid}"]')
    row.wait_for()
    text = row.inner_text()
    assert "The Duel" in text and "3+2" in text and "rated" in text and ann_name in text, text
    assert "1500?" in text  # the creator's rating, provisional
    row.locator("button.take").click()
    bob.wait_for_url(re.compile(f"/game/{gid}$"))
    tokens = [held_token(ann, gid, 0), held_token(bob, gid, 1)]
    for page in (ann, bob):
        page.locator(".seat-player .seat-rating").first.wait_for()
    assert ann.locator('.seat-player[data-seat="1"] .seat-rating').first.inner_text() == "1500?"
    # The game played elsewhere, its middle with the pages away (two pages drawing every move is
    # not this test's point), its last tiles with the pages back at the game, following it to the end.
    rng = random.Random(1)
    for page in (ann, bob):
        page.goto("about:blank")
    assert not play_out(policed, gid, tokens, rng, until=last_landscapes)["over"]
    for page in (ann, bob):
        page.goto(f"{policed}/game/{gid}")
        wait_version_after(page, -1)  # the page shows the game: it follows it from there
    final = play_out(policed, gid, tokens, rng)
    assert final["over"]
    winner = final.get("winner")
    score = 0.5 if winner is None else 1.0 - winner
    expected = glicko.game(glicko.new(), glicko.new(), score)
    changes = [str(round(r.rating - 1500)) for r in expected]
    for page in (ann, bob):
        page.locator(".rating-change").first.wait_for(timeout=20_000)
        shown = [page.locator(f'.seat-player[data-seat="{i}"] .rating-change').first for i in (0, 1)]
        if page is ann:  # the wide page shows both heads
            assert [s.get_attribute("data-change") for s in shown] == changes
    ann.keyboard.press("Escape")
    shoot(ann, "players-game-end-1400")
    shoot(bob, "players-game-end-390")
    # Your games: the finished game is listed once (not again from the browser's memory), rated,
    # with a rematch; Ann asks for it, Bob finds it offered on his front page and accepts.
    ann.goto(policed + "/")
    mine = ann.locator(f'#my-games li.my-game[data-game="{gid}"]')
    mine.wait_for()
    assert mine.count() == 1 and "rated" in mine.inner_text()
    mine.locator("button.rematch").click()
    ann.wait_for_url(GAME_URL)
    again = GAME_URL.search(ann.url).group(1)  # type: ignore[union-attr]
    assert again != gid
    bob.goto(policed + "/")
    offer = bob.locator("#my-games li.offer")
    offer.wait_for()
    assert ann_name in offer.inner_text()
    offer.locator("button").click()
    bob.wait_for_url(re.compile(f"/game/{again}$"))
    assert held_token(bob, again, 0)  # the seats reversed: the other side starts
    held_token(ann, again, 1)
    rematch = ann.context.request.get(f"{policed}/api/games/{again}/players").json()
    assert rematch["rated"] and [p["name"] for p in rematch["players"]] == [bob_name, ann_name]
    # Another's page has no account forms.
    ann.goto(f"{policed}/@/{bob_name}")
    ann.locator("#player-games").wait_for()
    assert ann.locator("#account").count() == 0
    # The player's page: ratings, the history, the last games; on one's own, the account forms.
    for page, name, other in ((ann, ann_name, bob_name), (bob, bob_name, ann_name)):
        page.goto(f"{policed}/@/{name}")
        page.locator("#player-games").wait_for()
        duel = page.locator('#player-ratings dd[data-mode="duel"]').inner_text()
        assert duel.startswith(str(round(expected[0 if page is ann else 1].rating)))
        assert other in page.locator("#player-games").inner_text()
        assert page.locator(".rating-chart circle").count() == 1
        assert page.locator("#account").is_visible()
    shoot(ann, "players-page-1400", full=True)
    shoot(bob, "players-page-390", full=True)
    # A new name is taken from one's own page (Ann's is open).
    ann.locator("#rename-name").fill("AnnTheBold")
    ann.locator("#rename button").click()
    ann.wait_for_url("**/@/AnnTheBold")
    ann.locator("#me-link").wait_for()
    assert ann.locator("#me-link").inner_text() == "AnnTheBold"
    assert pages.errors == []
