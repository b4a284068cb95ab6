"""Issue 25, items 2, 6 and 9: every lobby fits a small phone, a 63-bit seed travels exactly through
the page, and on a phone a finished game offers what comes next and the campaign page reads."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from browsing import HTTP, PHONE, Pages, create, finished, inside_viewport, no_sideways_scroll

pytestmark = pytest.mark.slow

#: A seed of 63 bits, as the server draws them: a JavaScript number keeps only 53 of them.
BIG_SEED = 4988471454571237152
SMALL_PHONE = (360, 740)

#: Every input, select and button of a card that lies outside it (at most half a pixel): tag,
#: what it is, its left and right edges and the card's.
STICKING_OUT = """() => {
    const out = [];
    for (const card of document.querySelectorAll('.card')) {
        const c = card.getBoundingClientRect();
        for (const e of card.querySelectorAll('input, select, button, .seat-row, .seat-about')) {
            const r = e.getBoundingClientRect();
            if (!r.width) continue;
            if (r.left < c.left - 0.5 || r.right > c.right + 0.5)
                out.push([e.tagName, e.className || e.id, Math.round(r.left), Math.round(r.right),
                          Math.round(c.left), Math.round(c.right)]);
        }
    }
    return out;
}"""


@pytest.mark.parametrize("size", [SMALL_PHONE, PHONE], ids=["360x740", "390x844"])
def test_no_lobby_scrolls_sideways_and_nothing_sticks_out_of_its_card(
    server_url: str, pages: Pages, size: tuple[int, int]
) -> None:
    page = pages.new(*size, touch=True)
    page.goto(server_url + "/")
    long_name = "Maximiliane Wolkenschieber-Ottendorf 7"  # near the 40 letters a name may have
    for mode in ("The Board Game", "The Duel", "Head to Head"):
        page.locator("label.mode", has_text=mode).click()
        if mode == "The Board Game":
            while page.locator("#add-seat").count():
                page.locator("#add-seat").click()
        kinds = page.locator(".seat-kind")
        # Wait for the server's computer levels (their labels are the longest choices).
        page.wait_for_function("!!document.querySelector('.seat-kind option[value=\"computer:medium\"]')")
        for i in range(kinds.count()):
            page.locator(".seat-name").nth(i).fill(long_name)
            values = kinds.nth(i).locator("option").evaluate_all("(os) => os.map((o) => o.value)")
            kinds.nth(i).select_option(values[(i + 2) % len(values)])
        if not page.locator("details[open]").count():
            page.locator("summary", has_text="More").click()
        no_sideways_scroll(page)
        sticking = page.evaluate(STICKING_OUT)
        assert not sticking, f"{mode} at {size}: {sticking}"
        # A computer seat says how strong it plays, under the seat (not in a long option).
        if mode != "The Board Game":
            about = page.locator(".seat-about:not(.hidden)")
            assert about.count() >= 1 and "%" in about.first.inner_text(), about.all_inner_texts()
        longest = max(kinds.first.locator("option").all_inner_texts(), key=len)
        assert len(longest) <= 34, longest
    assert not pages.errors, pages.errors


def test_a_63_bit_seed_typed_in_the_lobby_deals_that_game_and_the_replay_shows_it(
    server_url: str, pages: Pages, tmp_path: Path
) -> None:
    # The server takes a seed as a JSON integer or as its digits, the same game either way.
    by_number = create(server_url, {"mode": "coop", "seed": BIG_SEED, "seats": [{"kind": "here"}]})
    by_text = create(server_url, {"mode": "coop", "seed": str(BIG_SEED), "seats": [{"kind": "here"}]})
    first = [HTTP.get(f"{server_url}/api/games/{m['id']}").json()["revealed"] for m in (by_number, by_text)]
    assert first[0] == first[1]
    for bad in ("12x", "1e3", "", "99999999999999999999", 1.5, True):
        refused = HTTP.post(server_url + "/api/games", json={"mode": "coop", "seed": bad})
        assert refused.status_code == 400 and refused.json()["error"]["code"] == "bad-message", bad

    # Typed in the lobby: the page sends the digits, and the game is dealt from exactly that seed.
    page = pages.wide()
    page.goto(server_url + "/")
    page.locator("label.mode", has_text="The Board Game").click()
    page.locator(".seat-kind").first.select_option("computer:easy")  # plays to the end by itself
    page.locator("summary", has_text="More").click()
    page.locator("#seed").fill(str(BIG_SEED))
    with page.expect_request(lambda r: r.url.endswith("/api/games") and r.method == "POST") as sent:
        page.locator("#start").click()
    assert sent.value.post_data_json["seed"] == str(BIG_SEED)
    page.wait_for_url(re.compile(r"/game/"))
    game_id = page.url.split("/game/")[1].split("#")[0]
    # The computer plays it to its end with no page drawing each move; then the page again.
    page.goto("about:blank")
    finished(server_url, game_id, limit=90)
    page.goto(f"{server_url}/game/{game_id}")
    page.locator("#score-pad").wait_for()
    state = HTTP.get(f"{server_url}/api/games/{game_id}").json()
    assert state["seed"] == BIG_SEED and state["seed_text"] == str(BIG_SEED)
    record = HTTP.get(f"{server_url}/api/games/{game_id}/record")
    assert json.loads(record.text)["seed"] == BIG_SEED  # dorf-record/1 keeps an integer seed
    assert f'"seed": {BIG_SEED}' in record.text

    # The replay of the finished game, and of its record file opened in the page, show it exactly.
    page.goto(f"{server_url}/replay/{game_id}")
    page.locator("#step-label").wait_for()
    assert f"seed {BIG_SEED}" in page.locator(".replay .panel").inner_text()
    steps = page.locator("ol.log li").count()
    record_file = tmp_path / "big-seed.json"
    record_file.write_text(record.text, encoding="utf-8")
    page.goto(server_url + "/replay")
    page.locator("#record-file").set_input_files(str(record_file))
    page.locator("#step-label").wait_for()
    assert f"seed {BIG_SEED}" in page.locator(".replay .panel").inner_text()
    assert page.locator("ol.log li").count() == steps
    assert not pages.errors, pages.errors


def test_after_the_game_on_a_phone_the_bar_offers_a_new_game_and_the_replay(
    server_url: str, pages: Pages
) -> None:
    coop = create(
        server_url, {"mode": "coop", "seed": 6, "seats": [{"kind": "computer", "player": "random"}]}
    )
    duel = create(
        server_url,
        {
            "mode": "duel",
            "seed": 6,
            "seats": [
                {"kind": "computer", "player": "random", "name": "Annabelle the Great"},
                {"kind": "computer", "player": "random"},
            ],
        },
    )
    page = pages.phone()
    for made in (coop, duel):
        finished(server_url, made["id"])  # before the page opens it: no page draws each move
        page.goto(f"{server_url}/game/{made['id']}")
        page.locator("#score-pad").wait_for(timeout=90_000)
        page.locator("#pad-close").tap()
        for selector in ("#bar-new", "#bar-replay", "#bar-score"):
            assert page.locator(selector).is_visible(), selector
            inside_viewport(page, selector)
            box = page.locator(selector).bounding_box()
            assert box is not None and box["height"] >= 44, (selector, box)  # a finger's target
        assert not page.locator("#bar-place").is_visible()
        no_sideways_scroll(page)
    page.locator("#bar-replay").tap()
    page.wait_for_url(f"{server_url}/replay/{duel['id']}")
    page.locator("#step-label").wait_for()
    page.go_back()
    page.locator("#score-pad").wait_for()
    page.locator("#pad-close").tap()
    page.locator("#bar-new").tap()
    page.wait_for_url(server_url + "/")
    page.locator("#start").wait_for()
    assert not pages.errors, pages.errors


def test_the_campaign_page_on_a_phone_says_achievements_in_words_and_its_pictures_read(
    server_url: str, pages: Pages
) -> None:
    name = "Phone family"
    page = pages.phone()
    # A campaign is its members': this browser's (its cookie makes it a player).
    made = page.request.post(server_url + "/api/campaigns", data={"name": name})
    assert made.status in (200, 201), made.text()
    view = page.request.get(f"{server_url}/api/campaigns/{made.json()['id']}").json()
    assert {"words", "condition"} <= set(view["achievements"][0])
    page.goto(f"{server_url}/campaigns/{made.json()['id']}")
    achievements = page.locator("#achievements")
    achievements.wait_for()
    text = achievements.inner_text()
    assert "5 or more task types completed" in text, text
    assert not re.search(r"[<>]=?|==|task_types|longest_river|flags\.", text), text
    for picture in ("#score-plot", "#track"):
        page.wait_for_function(
            f"(() => {{ const i = document.querySelector({picture!r}); "
            "return i && i.complete && i.naturalWidth > 0; })()"
        )
        shown, natural, box, room = page.evaluate(
            f"""(() => {{ const i = document.querySelector({picture!r});
                const box = i.closest('.figure-scroll');
                return [i.getBoundingClientRect().width, i.naturalWidth,
                        box.scrollWidth, box.clientWidth]; }})()"""
        )
        # At its own size (its words of 11 px stay 11 px), in a box that scrolls sideways.
        assert shown >= natural * 0.99, (picture, shown, natural)
        assert box > room, (picture, box, room)
    no_sideways_scroll(page)
    # The track's box scrolls with a finger, the page stays.
    track_box = page.locator("#track").locator("xpath=ancestor::div[contains(@class, 'figure-scroll')]")
    track_box.evaluate("(b) => { b.scrollLeft = 400; }")
    assert track_box.evaluate("(b) => b.scrollLeft") > 0
    assert page.evaluate("scrollX") == 0
    assert not pages.errors, pages.errors
