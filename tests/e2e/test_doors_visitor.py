"""A visitor in Chromium (issue 60, item 1): reading the pages makes no player; the header offers
to sign in; the first thing that needs a player makes one (a game from the front page, a seat
of an open game in the live lobby, a name chosen on /@/me)."""

from __future__ import annotations

import re

from browsing import Pages

GAME_URL = re.compile(r"/game/([A-Za-z0-9_-]+)$")


def test_a_visitor_browses_as_nobody_and_becomes_a_player_by_acting(pages: Pages, server_url: str) -> None:
    solo = pages.wide()
    solo.goto(server_url + "/")
    link = solo.locator("#me-link")
    link.wait_for()
    assert link.get_attribute("href") == "/@/me" and link.inner_text() == "Sign in"
    assert solo.request.get(server_url + "/api/me").json()["player"] is False
    solo.locator("#solo-start").click()  # a game: this visitor becomes a player
    solo.wait_for_url(GAME_URL)
    solo.locator("#me-link").wait_for()
    made = solo.request.get(server_url + "/api/me").json()
    assert made["player"] is True and solo.locator("#me-link").inner_text() == made["name"]

    # A game open in the lobby, taken by a visitor with one click (its socket opens again as a player).
    opened = solo.request.post(
        server_url + "/api/games",
        data={"open": True, "mode": "duel", "seats": [{"kind": "here"}, {"kind": "online"}]},
    )
    assert opened.status == 201, opened.text()
    game_id = opened.json()["id"]
    taker = pages.wide()
    taker.goto(server_url + "/")
    taker.locator(f"#open-games button.take[data-game='{game_id}']").click()
    taker.wait_for_url(f"**/game/{game_id}")
    assert taker.request.get(server_url + "/api/me").json()["player"] is True

    # /@/me: a visitor chooses a name, and is that player.
    namer = pages.wide()
    namer.goto(server_url + "/@/me")
    namer.locator("#rename-name").fill("VisitorVera")
    namer.locator("#rename button").click()
    namer.wait_for_url("**/@/VisitorVera")
    namer.locator("#me-link").wait_for()
    assert namer.locator("#me-link").inner_text() == "VisitorVera"
    namer.goto(server_url + "/@/me")  # a player there goes to its own page
    namer.wait_for_url("**/@/VisitorVera")
    assert not pages.errors, pages.errors
