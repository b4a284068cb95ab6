"""The campaign pages in a real browser: create a campaign, record a finished game, see its pictures."""

from __future__ import annotations

import re
from typing import Any

import pytest
from browsing import HTTP, Pages, finished

pytestmark = pytest.mark.slow


def refused_requests_only(errors: list[str]) -> list[str]:
    """The console errors other than the browser's note on an API answer of 4xx (which the page shows)."""
    return [e for e in errors if not re.search(r"Failed to load resource: .* status of 4\d\d", e)]


def finished_computer_game(server_url: str) -> str:
    """A solo cooperative game that a computer seat has played to the end by itself; its id.  The
    server draws its seed: a game of a chosen seed never goes into a campaign."""

    made = HTTP.post(
        server_url + "/api/games", json={"mode": "coop", "seats": [{"kind": "computer", "player": "random"}]}
    )
    assert made.status_code == 201, made.text
    game_id: str = made.json()["id"]
    finished(server_url, game_id)  # before a page opens it: no page draws each move
    return game_id


#: An SVG picture fetched by the page (with its browser's cookies: a campaign is its members')
#: and parsed by the browser as a document of its own: its status, type and the shapes in it.
_SVG_SHAPES = """async (url) => {
  const response = await fetch(url);
  const type = response.headers.get("content-type") || "";
  const doc = new DOMParser().parseFromString(await response.text(), "image/svg+xml");
  return {
    ok: response.ok ? 1 : 0,
    svg_type: type.startsWith("image/svg+xml") ? 1 : 0,
    svg: doc.querySelectorAll("svg").length,
    root: doc.documentElement.localName === "svg" ? 1 : 0,
    circle: doc.querySelectorAll("circle").length,
    path: doc.querySelectorAll("path, polyline, line").length,
    text: doc.querySelectorAll("text").length,
  };
}"""


def svg_shapes(page: Any, url: str) -> dict[str, int]:
    """Fetch an SVG picture in the page of the campaign's member (a campaign is its members') and
    have the browser parse it into an <svg> DOM (a document of its own, as when opened)."""
    counts: dict[str, int] = page.evaluate(_SVG_SHAPES, url)
    assert counts["ok"] == 1 and counts["svg_type"] == 1, (url, counts)
    return counts


def image_loaded(page: Any, selector: str) -> None:
    """Wait until an <img> has loaded and decoded: a broken picture has no natural size."""
    page.wait_for_function(
        f"(() => {{ const i = document.querySelector({selector!r}); "
        "return i && i.complete && i.naturalWidth > 0 && i.naturalHeight > 0; })()"
    )


def test_a_finished_game_goes_into_a_new_campaign_from_its_score_pad(server_url: str, pages: Pages) -> None:
    game_id = finished_computer_game(server_url)
    name = "Family Ø 1"  # a space and a non-ASCII letter: the name travels in the URL

    page = pages.new()
    page.goto(f"{server_url}/game/{game_id}")
    pad = page.locator("#score-pad")
    pad.wait_for(timeout=60_000)  # the computer plays the whole game
    total = int(pad.locator("tr.total td").inner_text())

    # The score pad of a finished cooperative game leads to the campaigns.
    pad.get_by_role("link", name="Record in a campaign").click()
    page.wait_for_url(re.compile(r"/campaigns\?game="))
    assert f"record game {game_id} in" in page.locator(".lobby .note").first.inner_text()
    page.locator("#campaign-name").fill(name)
    page.locator("#campaign-create").click()

    # The new campaign opens (at its id) with the game ready to record.
    page.wait_for_url(re.compile(rf"/campaigns/[\w-]+\?game={re.escape(game_id)}$"))
    campaign_id = page.url.split("/campaigns/")[1].split("?")[0]
    page.locator("h1", has_text=name).wait_for()
    assert page.locator("#record-game").input_value() == game_id
    assert "No games yet." in page.locator(".campaign").inner_text()
    image_loaded(page, "#score-plot")
    image_loaded(page, "#track")
    page.locator("#record-submit").click()
    result = page.locator("#record-result")
    result.wait_for()
    assert re.search(rf"Recorded as game 1: {total} points?, \d+ circles?\.", result.inner_text())

    # The page comes back without the game in its address, the game in the history.
    page.wait_for_url(f"{server_url}/campaigns/{campaign_id}")
    rows = page.locator("#campaign-games tbody tr")
    rows.first.wait_for()
    assert rows.count() == 1
    cells = rows.first.locator("td").all_inner_texts()
    assert cells[0] == "1" and cells[3] == str(total), cells
    assert re.fullmatch(r"\d{4}-\d\d-\d\d", cells[1]), cells
    summary = page.locator(".campaign .card p").first.inner_text()
    assert re.fullmatch(rf"1 game · best {total} · mean {total}(\.0)? · (1 circle|\d+ circles)", summary), (
        summary
    )
    assert page.locator("#record-game").input_value() == ""

    # The score plot and the track: pictures that load, drawn from SVG with shapes in it.
    image_loaded(page, "#score-plot")
    image_loaded(page, "#track")
    assert name in (page.locator("#score-plot").get_attribute("alt") or "")
    base = f"{server_url}/api/campaigns/{campaign_id}"
    for src_of, url in (("#score-plot", f"{base}/score.svg"), ("#track", f"{base}/track.svg")):
        assert (page.locator(src_of).get_attribute("src") or "").startswith(f"/api/campaigns/{campaign_id}/")
        shapes = svg_shapes(page, url)
        assert shapes["root"] == 1 and shapes["circle"] >= 1 and shapes["path"] >= 1, (src_of, shapes)

    # The same game a second time is refused, and nothing changes.
    page.locator("#record-game").fill(game_id)
    page.locator("#record-submit").click()
    page.locator(".toast", has_text="already recorded").wait_for()
    assert page.locator("#record-result").inner_text() == ""
    assert page.locator("#campaign-games tbody tr").count() == 1

    # The list of campaigns shows it with its game and best score.
    page.get_by_role("link", name="All campaigns").click()
    page.wait_for_url(f"{server_url}/campaigns")
    entry = page.locator("#campaign-list li", has=page.get_by_role("link", name=name, exact=True))
    entry.wait_for()
    assert entry.locator("small").inner_text() == f"1 game · best {total} · 1 member"
    assert not refused_requests_only(pages.errors), pages.errors


def test_a_duplicate_campaign_name_is_refused_on_the_page(server_url: str, pages: Pages) -> None:
    page = pages.new()
    page.goto(server_url + "/campaigns")
    page.locator("#campaign-name").fill("Kitchen Table")
    page.locator("#campaign-create").click()
    page.wait_for_url(re.compile(r"/campaigns/[\w-]+$"))
    page.locator("h1", has_text="Kitchen Table").wait_for()

    page.goto(server_url + "/campaigns")
    listed = page.locator("#campaign-list li a")
    listed.first.wait_for()
    before = listed.all_inner_texts()
    assert "Kitchen Table" in before
    page.locator("#campaign-name").fill("kitchen table")  # names are unique ignoring case
    page.locator("#campaign-create").click()
    toast = page.locator(".toast.error")
    toast.wait_for()
    assert "already exists" in toast.inner_text() and "Kitchen Table" in toast.inner_text()
    assert page.url == f"{server_url}/campaigns"
    assert page.locator("#campaign-name").input_value() == "kitchen table"  # kept, to correct it

    # Nothing was created: the list read anew is the same.
    page.reload()
    page.locator("#campaign-list li a").first.wait_for()
    assert page.locator("#campaign-list li a").all_inner_texts() == before
    assert not refused_requests_only(pages.errors), pages.errors
