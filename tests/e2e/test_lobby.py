"""The front page's lobby in real Chromium, two browser contexts as two people each time: one
opens a game, the other sees it appear in the list live (no reload) and takes its seat with one
click; quick pairing pairs two others and both land in the same game's page."""

from __future__ import annotations

import re
from typing import Any

from browsing import Pages

GAME_URL = re.compile(r"/game/([A-Za-z0-9_-]+)$")


def game_id(page: Any) -> str:
    found = GAME_URL.search(page.url)
    assert found, page.url
    return found.group(1)


def test_an_open_game_appears_live_and_one_click_takes_its_seat(pages: Pages, server_url: str) -> None:
    ann, bob = pages.wide(), pages.wide()
    bob.goto(server_url + "/")
    bob.locator("#open-games").wait_for()
    ann.goto(server_url + "/")
    ann.locator("label.mode", has_text="The Duel").click()
    ann.locator(".seat-kind").nth(1).select_option("online")
    ann.locator("#clock").select_option("3+2")
    ann.locator("#open-game").check()
    ann.locator("#start").click()
    ann.wait_for_url(GAME_URL)
    gid = game_id(ann)
    row = bob.locator(f'li.open-game[data-game="{gid}"]')
    row.wait_for()  # live: bob's page was open before the game existed
    text = row.inner_text()
    assert "The Duel" in text and "3+2" in text and "1 seat free" in text
    row.locator("button.take").click()
    bob.wait_for_url(re.compile(f"/game/{gid}$"))
    held = bob.evaluate(f"JSON.parse(localStorage.getItem('dorf.games.v1'))['{gid}'].tokens")
    assert list(held) == ["1"]
    ann.locator(".seat-kind").count()  # the host's page is still there
    bob.goto(server_url + "/")
    bob.locator("#open-games").wait_for()
    assert bob.locator(f'li.open-game[data-game="{gid}"]').count() == 0  # taken: it left the list
    assert pages.errors == []


def test_quick_pairing_pairs_two_people_who_land_in_one_game(pages: Pages, server_url: str) -> None:
    cy, dee = pages.wide(), pages.phone()
    for page in (cy, dee):
        page.goto(server_url + "/")
        page.locator("#pair-mode").select_option("duel")
        page.locator('button.clock-choice[data-clock="5+3"]').click()
        page.locator("#pair-rated").uncheck()
    cy.locator("#seek").click()
    cy.locator("#seek-status").filter(has_text="Looking for an opponent").wait_for()
    dee.locator("#seek").click()
    cy.wait_for_url(GAME_URL)
    dee.wait_for_url(GAME_URL)
    assert game_id(cy) == game_id(dee)
    gid = game_id(cy)
    seats = [
        list(page.evaluate(f"JSON.parse(localStorage.getItem('dorf.games.v1'))['{gid}'].tokens"))
        for page in (cy, dee)
    ]
    assert sorted(seats) == [["0"], ["1"]]
    assert pages.errors == []
