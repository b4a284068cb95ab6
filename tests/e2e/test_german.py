"""The page in German: every page (the lobby, a game of each mode with the Head to Head draft, the
coach's hint, the score pad at the end, the campaigns, the replay, an invitation) shows no English
word the catalog translates; the EN/DE switch is remembered; a German browser gets German unasked.
"""

from __future__ import annotations

import json
import re
from typing import Any

import pytest
from browsing import PHONE, WIDE, Pages, create, finished

from dorf.server.edge.assets import web_root

pytestmark = pytest.mark.slow  # a real browser

GERMAN = "de-DE"


def _words(lang: str) -> set[str]:
    catalog = json.loads((web_root() / "lang" / f"{lang}.json").read_text(encoding="utf-8"))
    words: set[str] = set()
    for entry in catalog.values():
        for text in entry.values() if isinstance(entry, dict) else [entry]:
            words.update(w.lower() for w in re.findall(r"[A-Za-zÄÖÜäöüß]+", re.sub(r"\{\w+\}", " ", text)))
    return words


#: English words of the catalog that no German text uses ("was" is German too).
ENGLISH = sorted(w for w in _words("en") - _words("de") - {"was"} if len(w) >= 3)

#: Every text of the page a person meets: its text nodes (SVG tooltips included) and the
#: attributes that are read or shown (tooltips, labels, placeholders, pictures' words).
SHOWN = """() => {
  const out = [];
  const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
  for (let node = walker.nextNode(); node; node = walker.nextNode()) {
    if (!["SCRIPT", "STYLE", "NOSCRIPT"].includes(node.parentNode.nodeName)) out.push(node.nodeValue);
  }
  for (const el of document.querySelectorAll("[title], [aria-label], [placeholder], [alt]")) {
    for (const name of ["title", "aria-label", "placeholder", "alt"]) {
      if (el.hasAttribute(name)) out.push(el.getAttribute(name));
    }
  }
  return out;
}"""


#: An achievement's condition as the campaign sheet writes it (its tooltip): the sheet's own
#: syntax, the same in every language (docs/campaign.md); its words are said beside it.
CONDITION = re.compile(
    r"[a-z_]+(\.[a-z]+)? *(>=|<=|==|!=|>|<) *\d+( and [a-z_]+(\.[a-z]+)? *(>=|<=|==|!=|>|<) *\d+)*"
)


def english_on(page: Any) -> list[str]:
    """The page's texts with an English word of the catalog in them."""
    found = []
    pattern = re.compile(r"\b(" + "|".join(ENGLISH) + r")\b", re.IGNORECASE)
    for text in page.evaluate(SHOWN):
        if pattern.search(text) and not CONDITION.fullmatch(text.strip()):
            found.append(text.strip())
    return found


def german(page: Any, what: str, names: tuple[str, ...] = ()) -> None:
    """The page is German: no English word of the catalog but in ``names`` (what players named:
    other tests' campaigns on the same server)."""
    assert page.evaluate("document.documentElement.lang") == "de", what
    found = [text for text in english_on(page) if text not in names]
    assert found == [], f"English on {what} in German: {found}"


def test_the_english_words_to_look_for_are_words() -> None:
    assert {"the", "tile", "score", "forest", "your", "campaign"} <= set(ENGLISH)
    assert not {"dorf", "online", "computer", "head"} & set(ENGLISH)


@pytest.mark.usefixtures("quick_coach")  # the hints' words are looked at, not their advice
def test_every_page_speaks_german_to_a_german_browser(server_url: str, pages: Pages) -> None:
    # Seats are named: the server names an unnamed seat in English ("Player 2"); the German lobby
    # names them in German.
    computers = [{"kind": "computer", "player": "random", "name": n} for n in ("Rechner", "Zufall")]
    # Games the computer plays to the end meanwhile (no seed chosen: the coop one may go into a campaign).
    done = {
        "coop": create(server_url, {"mode": "coop", "seats": computers[:1]}),
        "duel": create(server_url, {"mode": "duel", "seats": computers}),
        "head-to-head": create(server_url, {"mode": "head-to-head", "seats": computers}),
    }
    page = pages.new(*WIDE, locale=GERMAN)

    # The lobby: a German browser gets German without choosing it (the server says <html lang="de">).
    answer = page.goto(server_url + "/")
    assert answer is not None and '<html lang="de"' in answer.text()
    page.locator("#start").wait_for()
    page.locator(".seat-kind").first.wait_for()
    page.locator("details summary").click()
    german(page, "the lobby")

    # The Head to Head draft, from the lobby, against the computer: the pool and the coach's pick.
    page.locator("input[name=mode][value=head-to-head]").check()
    page.locator(".seat-name").first.fill("Anna")
    page.locator("#start").click()
    page.wait_for_url(re.compile(r"/game/"))
    page.locator("#draft-pool .pool-tile").first.wait_for()
    page.locator("#hint-button").click()
    page.locator("#hint-text").wait_for(timeout=30_000)
    german(page, "the Head to Head draft")

    # A cooperative game at a phone: the bar, a chosen cell's preview and the coach's hint.
    made = create(
        server_url, {"mode": "coop", "seed": 5, "practice": True, "seats": [{"kind": "here", "name": "Anna"}]}
    )
    phone = pages.new(*PHONE, touch=True, locale=GERMAN)
    phone.goto(f"{server_url}/game/{made['id']}#t={','.join(made['tokens'].values())}")
    phone.locator(".legal-cell").first.wait_for()
    phone.locator("#bar-hint").click()
    phone.locator(".ghost.selected").wait_for(timeout=30_000)
    german(phone, "a cooperative game on a phone")
    phone.locator("#bar-more").click()
    german(phone, "the game's sheet")

    # The same game on a wide screen: the preview of the chosen cell, then the score pad so far.
    page.goto(f"{server_url}/game/{made['id']}#t={','.join(made['tokens'].values())}")
    page.locator(".legal-cell").first.click()
    page.locator("#preview-title").wait_for()
    page.locator(".card-preview .score-delta").wait_for()
    german(page, "the preview")
    page.locator("#score-pad-button").click()
    page.locator("#score-pad").wait_for()
    german(page, "the score pad so far")

    # Finished games of each mode: the log, the final score pad and its verdict.
    for mode, game in done.items():
        finished(server_url, game["id"])
        page.goto(f"{server_url}/game/{game['id']}")
        page.locator("#score-pad").wait_for()
        german(page, f"the end of {mode}")
    page.goto(f"{server_url}/replay/{done['duel']['id']}")
    page.locator("#step-label").wait_for()
    german(page, "the replay of a duel")
    page.goto(f"{server_url}/replay")
    page.locator("#record-file").wait_for(state="attached")
    german(page, "the replay's page")

    # An invitation to a duel.
    invited = create(
        server_url,
        {"mode": "duel", "seats": [{"kind": "here", "name": "Anna"}, {"kind": "online", "name": "Ben"}]},
    )
    page.goto(f"{server_url}/join/{invited['id']}/{invited['invites']['1']}")
    page.locator("#join-button").wait_for()
    german(page, "an invitation")

    # The campaigns: a refusal (said in German), a campaign with a game recorded in it.
    page.goto(server_url + "/campaigns")
    page.locator("#campaign-create").click()
    page.locator(".toast").wait_for()
    named = tuple(c["name"] for c in page.request.get(server_url + "/api/campaigns").json()["campaigns"])
    german(page, "the campaigns and a refusal", named)
    # A campaign is its members': made and filled by this browser (its player).
    page.request.post(server_url + "/api/campaigns", data={"name": "Familie"})
    game = {"game": done["coop"]["id"]}
    recorded = page.request.post(server_url + "/api/campaigns/Familie/record", data=game)
    assert recorded.status == 200, recorded.text()
    page.goto(server_url + "/campaigns/Familie")
    page.locator("#achievements li").first.wait_for()
    german(page, "a campaign")
    refused = "status of 400 (Bad Request) (" + server_url + "/api/campaigns)"
    assert [e for e in pages.errors if refused not in e] == []


def test_the_language_switch_is_remembered(server_url: str, pages: Pages) -> None:
    solo = create(
        server_url, {"mode": "coop", "seats": [{"kind": "computer", "player": "random", "name": "Zoe"}]}
    )
    page = pages.new(*WIDE, locale="en-GB")
    page.goto(server_url + "/")
    assert page.locator("#start").inner_text() == "Start the game"
    assert page.evaluate("document.documentElement.lang") == "en"
    assert page.locator(".lang-switch button[aria-pressed=true]").inner_text() == "EN"
    assert len(english_on(page)) > 10  # the words looked for in German are there in English
    with page.expect_navigation():
        page.locator(".lang-switch button", has_text="DE").click()
    page.locator("#start").wait_for()
    assert page.locator("#start").inner_text() == "Spiel starten"
    assert page.locator("header nav a").first.inner_text() == "Spielen"
    page.reload()
    # Remembered, though the browser says English.
    assert page.locator("#start").inner_text() == "Spiel starten"
    assert page.evaluate("localStorage.getItem('dorf.lang')") == "de"
    page.goto(server_url + "/campaigns")
    assert page.locator("h1").inner_text() == "Kampagnen"
    with page.expect_navigation():
        page.locator(".lang-switch button", has_text="EN").click()
    assert page.locator("h1").inner_text() == "Campaigns"
    assert page.evaluate("document.documentElement.lang") == "en"
    # The replay draws itself again in the other language, at the same step (a reload would lose
    # a record opened from a file).
    finished(server_url, solo["id"])
    page.goto(f"{server_url}/replay/{solo['id']}")
    page.locator("#replay-back").click()
    step = page.locator("#step-label").inner_text()
    page.evaluate("window.notReloaded = true")
    page.locator(".lang-switch button", has_text="DE").click()
    page.locator("h1", has_text="Wiederholung · Das Brettspiel").wait_for()
    assert page.evaluate("window.notReloaded") is True
    assert page.locator("#step-label").inner_text() == step
    assert page.locator("header nav a").first.inner_text() == "Spielen"
    assert english_on(page) == []
    assert not pages.errors, pages.errors
