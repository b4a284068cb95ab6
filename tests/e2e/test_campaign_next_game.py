"""A group's campaign in real browsers (issue 63, item 4): Lea makes a campaign, Max joins by its
link, Lea's "Next game" seats them both in a cooperative game (each takes their seat from the
campaign's page), and Dan, who is not a member, is told the campaign is not his."""

from __future__ import annotations

import re

from browsing import PHONE, Pages


def test_next_game_seats_the_members_and_others_are_refused(server_url: str, pages: Pages) -> None:
    lea = pages.new()
    lea.goto(server_url + "/campaigns")
    lea.locator("#campaign-name").fill("Sunday table")
    lea.locator("#campaign-create").click()
    lea.wait_for_url(re.compile(r"/campaigns/[\w-]+$"))
    address = lea.url
    link = lea.locator("#campaign-link").input_value()
    assert re.fullmatch(rf"{re.escape(address)}/join/[\w-]+", link), link

    max_ = pages.new(*PHONE, touch=True)
    max_.goto(link)  # joins, then the campaign's own address
    max_.wait_for_url(address)
    max_.locator("#campaign-members li").nth(1).wait_for()
    assert max_.locator("#campaign-members li").count() == 2
    assert "(you)" in max_.locator("#campaign-members li.you").inner_text()

    lea.reload()
    lea.locator("#campaign-members li").nth(1).wait_for()
    lea.locator("#next-game").click()
    lea.wait_for_url(re.compile(r"/join/[\w-]+/[\w-]+$"))
    lea.locator("#join-button").click()
    lea.wait_for_url(re.compile(r"/game/[\w-]+"))
    game_id = lea.url.split("/game/")[1].split("#")[0]

    max_.reload()
    seat = max_.locator("#next-seat")
    assert "waits for you" in seat.inner_text()
    assert max_.locator("#next-game").count() == 0  # one next game at a time
    seat.get_by_role("link").click()
    max_.locator("#join-button").click()
    max_.wait_for_url(re.compile(rf"/game/{re.escape(game_id)}"))
    lea.locator(".legal-cell").first.wait_for()  # both seated: Lea, the first seat, places

    dan = pages.new()
    dan.goto(address)
    assert dan.locator("#not-yours").inner_text() == "This campaign is not yours."
    assert "Sunday table" not in dan.locator("main").inner_text()
