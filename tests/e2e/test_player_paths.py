"""What players met (issue 61), in the browser: an aborted game says so (no pad of zeros); a bad
link gets a page that says what is missing; no Hint where the coach refuses one; a replay and the
end of a game say how it ended, with the ratings' change and a Rematch; a rematch offered reaches
the other player at once, with the players' names; an invitation in each game's words; a phone
shows whose turn it is while someone else plays.  In English and German where there is text.

One server for the module, its clocks ten times faster (``clock_scale``: an abort comes after 3 s,
a minute's clock runs out in 6 s)."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from browsing import HTTP, PHONE, WIDE, Pages, create, decide_elsewhere

from dorf.server.edge.assets import web_root
from dorf.testing.servers import launch

pytestmark = pytest.mark.slow  # a real browser

GERMAN = "de-DE"
#: The browser remembers a game it made by the API (its tokens and invitations), as the lobby would.
REMEMBER = """([id, made]) => localStorage.setItem('dorf.games.v1',
    JSON.stringify({[id]: {tokens: made.tokens, invites: made.invites}}))"""
SEATS = [{"kind": "here", "name": "Ann"}, {"kind": "here", "name": "Bob"}]


def words(lang: str) -> dict[str, Any]:
    catalog: dict[str, Any] = json.loads((web_root() / "lang" / f"{lang}.json").read_text(encoding="utf-8"))
    return catalog


EN, DE = words("en"), words("de")


def _served(tmp_path_factory: pytest.TempPathFactory, scale: float) -> Iterator[str]:
    db: Path = tmp_path_factory.mktemp("paths") / "dorf.sqlite3"
    with launch(db, ai_delay=0, clock_scale=scale) as server:
        yield server.url


@pytest.fixture(scope="module")
def url(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    yield from _served(tmp_path_factory, 10.0)


def player(page: Any, url: str) -> str:
    """Make the page's browser a player (``POST /api/me``); its name."""
    answer = page.request.post(f"{url}/api/me", data={})
    assert answer.ok, answer.text()
    name: str = answer.json()["name"]
    return name


def errors(pages: Pages) -> list[str]:
    """The pages' errors but the 404 of a bad link itself (what a browser logs for it)."""
    return [e for e in pages.errors if "status of 404 (Not Found)" not in e or "/api/" in e]


def post(page: Any, url: str, path: str, body: dict[str, Any]) -> dict[str, Any]:
    """A POST with the page's cookies (its player)."""
    answer = page.request.post(url + path, data=body)
    assert answer.ok, answer.text()
    found: dict[str, Any] = answer.json()
    return found


def test_an_aborted_game_says_so_without_a_score_pad(url: str, pages: Pages) -> None:
    made = create(url, {"mode": "duel", "clock": "3+2", "seats": SEATS})
    gid, token = made["id"], made["tokens"]["0"]
    page = pages.phone()
    page.goto(f"{url}/game/{gid}#t={token}")
    page.locator("#clock-end").wait_for(timeout=20_000)  # 30 s of the clock's time: 3 s here
    pad = page.locator("#score-pad")
    pad.wait_for()
    assert page.locator("#score-pad-title").text_content() == EN["end.aborted_title"]
    assert page.locator("#pad-verdict").text_content() == EN["clock.aborted"]
    assert pad.locator("table").count() == 0  # no pad of zeros
    assert "shared victory" not in page.locator("body").inner_text()
    page.locator("#pad-close").tap()
    assert page.locator("#turn-line").text_content() == EN["clock.aborted"]
    # In German, as the EN/DE switch leaves the same browser (remembered).
    german = page
    german.evaluate("localStorage.setItem('dorf.lang', 'de')")
    german.reload()
    german.locator("#score-pad").wait_for()
    assert german.locator("#score-pad-title").text_content() == DE["end.aborted_title"]
    assert german.locator("#pad-verdict").text_content() == DE["clock.aborted"]
    assert german.locator("#score-pad table").count() == 0
    assert not pages.errors


def test_a_bad_link_gets_a_page_that_says_what_is_missing(url: str, pages: Pages) -> None:
    page = pages.phone()
    answer = page.goto(f"{url}/no/such/page")
    assert answer is not None and answer.status == 404
    page.locator("#missing").wait_for()
    assert page.locator("h1").text_content() == EN["missing.title"]
    assert "/no/such/page" in page.locator("#missing").inner_text()
    assert page.locator("#missing-home").get_attribute("href") == "/"
    # The site's own look: its stylesheet is applied (a card has the cards' background).
    assert page.evaluate("getComputedStyle(document.querySelector('.card')).borderRadius") == "10px"
    assert page.evaluate("document.documentElement.scrollWidth <= innerWidth")
    # An unknown game: "no such game" plainly, the way home, no board and no controls.
    page.goto(f"{url}/game/doesnotexist")
    page.locator("#no-game").wait_for()
    assert page.locator("#no-game h1").text_content() == EN["game.no_game"]
    assert "doesnotexist" in page.locator("#no-game").inner_text()
    assert page.locator("#no-game-home").get_attribute("href") == "/"
    for control in ("#bar-place", ".board-host", ".bottom-bar", "#panel"):
        assert page.locator(control).count() == 0, control
    german = pages.new(*WIDE, locale=GERMAN)
    german.goto(f"{url}/nirgends")
    german.locator("#missing").wait_for()
    assert german.locator("h1").text_content() == DE["missing.title"]
    assert german.locator("#missing-home").text_content() == DE["missing.home"]
    german.goto(f"{url}/game/doesnotexist")
    german.locator("#no-game").wait_for()
    assert german.locator("#no-game h1").text_content() == DE["game.no_game"]
    assert (
        HTTP.get(f"{url}/api/nothing", headers={"Accept": "text/html"}).json()["error"]["code"] == "not-found"
    )
    assert not errors(pages)


def test_no_hint_is_offered_where_the_coach_refuses_and_a_phone_shows_whose_turn(
    url: str, pages: Pages
) -> None:
    # A Duel against a person (invited by link): no hints for either side.
    made = create(url, {"mode": "duel", "seats": [{"kind": "here", "name": "Ann"}, {"kind": "online"}]})
    gid, token = made["id"], made["tokens"]["0"]
    joined = HTTP.post(f"{url}/api/games/{gid}/join", json={"invite": made["invites"]["1"], "name": "Bob"})
    assert joined.status_code == 200
    wide = pages.wide()
    wide.goto(f"{url}/game/{gid}#t={token}")
    wide.locator("#turn-line.mine").wait_for()
    wide.locator("#rotate-button").wait_for()
    assert wide.locator("#hint-button").count() == 0
    phone = pages.phone()
    phone.goto(f"{url}/game/{gid}#t={token}")
    phone.locator("#bar-place").wait_for()
    assert not phone.locator("#bar-hint").is_visible()
    # Ann places; Bob has still to place: the phone says whose turn it is, without controls.
    decide_elsewhere(url, gid, token, most=1)
    phone.locator("#bar-text", has_text=EN["bar.their_turn"].replace("{name}", "Bob")).wait_for()
    for control in ("#bar-place", "#bar-rotate-left", "#bar-rotate-right"):
        assert not phone.locator(control).is_visible(), control
    german = pages.new(*PHONE, touch=True, locale=GERMAN)
    german.goto(f"{url}/game/{gid}#t={token}")
    german.locator("#bar-text", has_text=DE["bar.their_turn"].replace("{name}", "Bob")).wait_for()
    assert not german.locator("#bar-place").is_visible()
    # The host of a cooperative game with people online: no hints either; a solo game has them.
    coop = create(url, {"mode": "coop", "seats": [{"kind": "here"}, {"kind": "online"}]})
    HTTP.post(f"{url}/api/games/{coop['id']}/join", json={"invite": coop["invites"]["1"]})
    wide.goto(f"{url}/game/{coop['id']}#t={coop['tokens']['0']}")
    wide.locator("#rotate-button").wait_for()
    assert wide.locator("#hint-button").count() == 0
    solo = create(url, {"mode": "coop", "seats": [{"kind": "here"}]})
    wide.goto(f"{url}/game/{solo['id']}#t={solo['tokens']['0']}")
    wide.locator("#hint-button").wait_for()
    assert not pages.errors


def test_an_invitation_speaks_the_words_of_its_game(url: str, pages: Pages) -> None:
    page = pages.wide()
    player(page, url)
    page.goto(f"{url}/nowhere")  # this site's storage
    coop = post(
        page,
        url,
        "/api/games",
        {"mode": "coop", "seats": [{"kind": "here"}, {"kind": "online"}, {"kind": "online"}]},
    )
    page.evaluate(
        REMEMBER,
        [coop["id"], coop],
    )
    page.goto(f"{url}/game/{coop['id']}")
    title = page.locator("#share-title")
    title.wait_for()
    assert title.text_content() == EN["share.invite_title.coop"]["other"]
    german = pages.new(*WIDE, locale=GERMAN)
    german.goto(f"{url}/nowhere")
    german.evaluate(
        REMEMBER,
        [coop["id"], coop],
    )
    german.goto(f"{url}/game/{coop['id']}")
    german.locator("#share-title").wait_for()
    assert german.locator("#share-title").text_content() == DE["share.invite_title.coop"]["other"]
    duel = post(page, url, "/api/games", {"mode": "duel", "seats": [{"kind": "here"}, {"kind": "online"}]})
    page.evaluate(
        REMEMBER,
        [duel["id"], duel],
    )
    page.goto(f"{url}/game/{duel['id']}")
    page.locator("#share-title").wait_for()
    assert page.locator("#share-title").text_content() == EN["share.invite_title.versus"]
    assert not errors(pages)


@pytest.fixture(scope="module")
def fast(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """A server whose clocks run thirty times faster (a minute in 2 s): for a clock run out."""
    yield from _served(tmp_path_factory, 30.0)


def test_a_duel_lost_on_time_says_so_at_the_end_and_in_its_replay(fast: str, pages: Pages) -> None:
    url = fast
    page = pages.wide()
    player(page, url)
    made = post(page, url, "/api/games", {"mode": "duel", "clock": "1+0", "seats": SEATS})
    gid, tokens = made["id"], made["tokens"]
    # Both place their first tile, and Ann her second: Bob's clock alone runs (a minute: 2 s here).
    decide_elsewhere(url, gid, [tokens["0"], tokens["1"]], most=3)
    page.goto(f"{url}/game/{gid}#t={tokens['0']}")
    page.locator("#score-pad").wait_for(timeout=20_000)
    lost = EN["clock.lost_on_time"].replace("{name}", "Bob").replace("{winner}", "Ann")
    assert page.locator("#pad-verdict").text_content() == lost
    assert page.locator("#turn-line").text_content() == lost
    assert page.locator("#pad-rematch").is_visible()
    replay = pages.phone()
    replay.goto(f"{url}/replay/{gid}")
    replay.locator("#replay-result").wait_for()
    assert replay.locator("#replay-result").text_content() == lost
    assert EN["replay.unfinished"] not in replay.locator("body").inner_text()
    german = pages.new(*WIDE, locale=GERMAN)
    german.goto(f"{url}/replay/{gid}")
    german.locator("#replay-result").wait_for()
    lost_de = DE["clock.lost_on_time"].replace("{name}", "Bob").replace("{winner}", "Ann")
    assert german.locator("#replay-result").text_content() == lost_de
    # The Rematch in the end dialog: a new game of the same kind, this screen's seats again.
    page.locator("#pad-rematch").click()
    page.wait_for_url(lambda address: "/game/" in address and gid not in address)
    page.locator("#turn-line").wait_for()
    assert not pages.errors


def test_a_rematch_reaches_the_other_player_at_once_with_the_ratings_and_names(
    url: str, pages: Pages
) -> None:
    ann, bob = pages.wide(), pages.new(*PHONE, touch=True, locale=GERMAN)
    ann_name, bob_name = player(ann, url), player(bob, url)
    made = post(
        ann,
        url,
        "/api/games",
        {"mode": "duel", "rated": True, "clock": "15+10", "seats": [{"kind": "here"}, {"kind": "online"}]},
    )
    gid = made["id"]
    bob_token = post(bob, url, f"/api/games/{gid}/join", {"invite": made["invites"]["1"]})["token"]
    decide_elsewhere(url, gid, [made["tokens"]["0"], bob_token], most=2)  # a move each: rated
    ann.goto(f"{url}/game/{gid}#t={made['tokens']['0']}")
    bob.goto(f"{url}/game/{gid}#t={bob_token}")
    # A casual or rated game online: the seats go by their players' names.
    ann.locator("#turn-line").wait_for()
    assert [n.strip() for n in ann.locator(".clock-name").all_text_contents()] == [ann_name, bob_name]
    ann.on("dialog", lambda dialog: dialog.accept())
    ann.locator("#resign-button").click()
    for page, lang in ((ann, EN), (bob, DE)):
        page.locator("#score-pad").wait_for()
        said = lang["clock.resigned"].replace("{name}", ann_name).replace("{winner}", bob_name)
        page.locator("#pad-verdict", has_text=said).wait_for()
        # The ratings' change, once the game is rated.
        page.locator("#pad-ratings", has_text="(+").wait_for(timeout=20_000)
        assert lang["end.ratings"].split(":")[0] in page.locator("#pad-ratings").text_content()
    ann.locator("#pad-rematch").click()
    ann.wait_for_url(lambda address: "/game/" in address and gid not in address)
    new_id = ann.url.split("/game/")[1].split("#")[0]
    # Bob hears of it at once, where he is: the end of the game, no reload.
    offer = bob.locator("#rematch-offer-pad")
    offer.wait_for()
    assert DE["end.offered"].replace("{name}", ann_name) in offer.inner_text()
    bob.locator("#rematch-accept-pad").tap()
    bob.wait_for_url(f"**/game/{new_id}")
    bob.locator(".clock-name").first.wait_for()
    assert sorted(n.strip() for n in bob.locator(".clock-name").all_text_contents()) == sorted(
        [ann_name, bob_name]
    )
    # The profile says how the game ended: Ann resigned.
    ann.goto(f"{url}/@/{ann_name}")
    ann.locator("#player-games .game-result").first.wait_for()
    assert ann.locator("#player-games .game-result").first.text_content() == EN["player.result.lost_resign"]
    bob.goto(f"{url}/@/{bob_name}")
    bob.locator("#player-games .game-result").first.wait_for()
    assert bob.locator("#player-games .game-result").first.text_content() == DE["player.result.won_resign"]
    assert not pages.errors
