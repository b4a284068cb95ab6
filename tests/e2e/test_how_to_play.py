"""What a newcomer meets (issue 61, items 7, 8 and 15): How to play, in English and German, its
pictures drawn by the board's own drawing; the links to it (the front page, every page's header
and so a game page's, the empty list of one's games); the one-tap solo start in the phone's first
screen, which is not the daily challenge, the word that the daily's first game counts, and the
first solo game's tips; the ratings' RD and "?" explained; the sign-in form's button; API tokens
folded away for bot makers."""

from __future__ import annotations

import re
from typing import Any

from browsing import HTTP, PHONE, Pages, inside_viewport, no_sideways_scroll
from test_a11y import FAILING, axe_violations

#: The pictures of How to play, by name (howto.js): a tile, rivers and tracks that fit and one
#: that does not, a task open and completed, a flag's closed territory, the three active tasks,
#: the Duel's shared reveal, Head to Head's draft and its laying at the same time.
FIGURES = ["tile", "fits", "wrong", "task", "done", "flag", "three", "duel", "draft", "lay"]

#: What the page's pictures hold, counted in the page: each picture's name, its tiles drawn (a
#: ground per tile), its task markers, flags, ticks and crosses, and the words of its caption.
_FIGURES = """() => [...document.querySelectorAll("figure.howto-fig")].map((f) => ({
  name: f.dataset.figure,
  tiles: f.querySelectorAll("svg .ground > polygon").length,
  markers: [...f.querySelectorAll(".task-marker")].map((m) => m.getAttribute("class").split(" ")[1]),
  flags: f.querySelectorAll(".flag-mark").length,
  closed: f.querySelectorAll(".flag-mark.closed").length,
  ok: f.querySelectorAll(".edge-match.ok").length,
  bad: f.querySelectorAll(".edge-match.bad").length,
  caption: f.querySelector("figcaption").textContent,
  label: f.querySelector("svg").getAttribute("aria-label"),
}))"""


#: Whether the header is as tall with its How to play link as without it (the link hidden a
#: moment), and whether the link is a small "?" (under 32 px wide).
_HEIGHT_WITHOUT_HELP = """() => {
  const bar = document.querySelector("header.topbar"), link = bar.querySelector("a.help-link");
  const tall = bar.getBoundingClientRect().height, wide = link.getBoundingClientRect().width;
  link.style.display = "none";
  const without = bar.getBoundingClientRect().height;
  link.style.display = "";
  return [tall === without, wide < 32];
}"""


def _figures(page: Any) -> dict[str, dict[str, Any]]:
    page.locator("figure.howto-fig").first.wait_for()
    return {f["name"]: f for f in page.evaluate(_FIGURES)}


def test_how_to_play_teaches_each_game_with_drawn_pictures_in_english_and_german(
    server_url: str, pages: Pages
) -> None:
    wide = pages.wide()
    wide.goto(server_url + "/how-to-play")
    drawn = _figures(wide)
    assert list(drawn) == FIGURES
    assert wide.locator("h1").inner_text() == "How to play"
    assert [wide.locator(f"section#{s} h2").inner_text() for s in ("coop", "duel", "head-to-head")] == [
        "The Board Game",
        "The Duel",
        "Head to Head",
    ]
    assert all(f["tiles"] >= 2 and f["caption"] and f["label"] == f["caption"] for f in drawn.values())
    # The pictures count as the rules do: 3 of 5 forest tiles is open, exactly 5 completed; the
    # grain field's flag is closed; three tasks open; ticks where the tile fits, crosses where not.
    assert drawn["task"]["markers"] == ["open"] and drawn["done"]["markers"] == ["completed"]
    assert (drawn["flag"]["flags"], drawn["flag"]["closed"]) == (1, 1)
    assert drawn["three"]["markers"] == ["open", "open", "open"]
    assert (drawn["fits"]["ok"], drawn["fits"]["bad"]) == (2, 0)
    assert (drawn["wrong"]["ok"], drawn["wrong"]["bad"]) == (0, 2)
    assert "3/5" in (wide.locator("figure[data-figure=task] svg").text_content() or "")
    # Nothing serious for axe: the pictures are named images, the sections headed.
    serious = [v["id"] for v in axe_violations(wide) if v["impact"] in FAILING]
    assert serious == [], serious
    # The header's link says where the page is.
    assert "here" in (wide.locator("header nav a.help-link").get_attribute("class") or "")

    german = pages.new(*PHONE, touch=True, locale="de-DE")
    german.goto(server_url + "/how-to-play")
    drawn = _figures(german)
    assert list(drawn) == FIGURES
    assert german.locator("h1").inner_text() == "Spielanleitung"
    assert german.locator("section#duel h2").inner_text() == "Das Duell"
    assert "Aufgabenmarker" in drawn["tile"]["caption"]
    assert "Spieler 1" in (german.locator("figure[data-figure=duel] svg").text_content() or "")
    no_sideways_scroll(german)
    # On a phone the header's link is a "?", and never what puts the German header on two lines:
    # the header is as tall with it as without it.
    assert german.locator("header nav a.help-link").is_visible()
    assert german.evaluate(_HEIGHT_WITHOUT_HELP) == [True, True]
    assert not pages.errors, pages.errors


def test_a_newcomer_starts_a_solo_game_in_one_tap_and_keeps_the_daily_attempt(
    server_url: str, pages: Pages
) -> None:
    page = pages.phone()
    page.goto(server_url + "/")
    # In the first screen of a phone: the solo start, How to play beside it, and (a first time)
    # the word that the daily challenge's first game counts.
    page.locator("#solo-start").wait_for()
    inside_viewport(page, "#solo-start")
    inside_viewport(page, "#how-to-play-link")
    inside_viewport(page, "#daily-first")
    assert page.locator("#how-to-play-link").get_attribute("href") == "/how-to-play"
    assert "first game of today's challenge counts" in page.locator("#daily-first").inner_text()
    assert page.locator("#solo-start").inner_text() == "Play a solo game"
    # The empty list of one's games points to How to play too.
    assert page.locator("#no-games a.howto-link").get_attribute("href") == "/how-to-play"
    page.locator("#solo-start").click()
    page.wait_for_url(re.compile(r"/game/"))
    game_id = page.url.rsplit("/", 1)[-1]
    game = HTTP.get(f"{server_url}/api/games/{game_id}").json()
    assert game["mode"] == "coop" and len(game["seats"]) == 1
    assert not game.get("daily") and not game.get("practice")
    # A first solo game: a tip at the first tile, dismissed once and for all.
    tip = page.locator("#first-tip[data-tip=place]")
    tip.wait_for()
    assert "highlighted spot" in tip.inner_text()
    page.locator("#tip-ok").click()
    assert page.locator("#first-tip").count() == 0
    assert page.evaluate("JSON.parse(localStorage.getItem('dorf.tips.v1'))") == ["place"]
    # The game page's header links to How to play.
    assert page.locator("header nav a.help-link").get_attribute("href") == "/how-to-play"
    assert page.locator("header nav a.help-link").is_visible()
    # Today's challenge is still to play, and the browser now knows a game: no first-time word.
    page.goto(server_url + "/")
    page.locator("#daily-play").wait_for()
    assert page.locator("#daily-first").count() == 0
    assert not pages.errors, pages.errors


def test_the_profile_explains_ratings_signs_in_and_folds_tokens_away(server_url: str, pages: Pages) -> None:
    page = pages.new(*PHONE, touch=True, locale="de-DE")
    page.goto(server_url + "/leaderboard")
    assert "Wertungsabweichung" in page.locator("#rd-note").inner_text()
    name = page.evaluate("fetch('/api/me', { method: 'POST' }).then((r) => r.json()).then((me) => me.name)")
    page.goto(f"{server_url}/@/{name}")
    page.locator("#account").wait_for()
    note = page.locator("#rd-note").inner_text()
    assert "RD" in note and "Wertungsabweichung" in note and "110" in note and '"?"' in note
    assert "Wertungsabweichung" in (page.locator("#player-ratings small").first.get_attribute("title") or "")
    assert page.locator("#sign-in button[type=submit]").inner_text() == "Anmelden"
    # The token button: inside the folded section for bot makers, shown once it is opened.
    token = page.locator("details#bot-makers #make-token")
    assert token.count() == 1 and not token.is_visible()
    assert page.locator("details#bot-makers > summary").inner_text() == "Für Bot-Entwickler"
    page.locator("details#bot-makers > summary").click()
    assert token.is_visible()
    assert not pages.errors, pages.errors
