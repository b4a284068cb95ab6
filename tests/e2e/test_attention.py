"""Attention in the tab (issue 63, item 5), in real Chromium: a Duel between two browsers; Ann
looks at the front page (not the game) and its title and icon change when Bob places; they clear
when she opens the game; on another page (How to play) she hears it too, over a quiet lobby
socket.  The browser's notification permission is not asked on load, only by "Notify me"."""

from __future__ import annotations

import json
from typing import Any

import pytest
from browsing import PHONE, Pages, decide_elsewhere

from dorf.server.edge.assets import web_root

pytestmark = pytest.mark.slow  # a real browser

EN = json.loads((web_root() / "lang" / "en.json").read_text(encoding="utf-8"))
#: Count the page's asks for the notification permission (none on load).
COUNT_ASKS = """window.__asked = 0;
window.__permission = window.Notification ? Notification.permission : "none";
if (window.Notification) {
  const ask = Notification.requestPermission.bind(Notification);
  Notification.requestPermission = (...args) => { window.__asked += 1; return ask(...args); };
}"""


def player(page: Any, url: str) -> None:
    assert page.request.post(f"{url}/api/me", data={}).ok


def icon(page: Any) -> str:
    href: str = page.locator("link[rel~='icon']").get_attribute("href")
    return href


def test_your_move_in_another_game_shows_in_the_tab_and_clears_when_the_game_is_opened(
    server_url: str, pages: Pages
) -> None:
    url = server_url
    ann, bob = pages.wide(), pages.new(*PHONE, touch=True)
    ann.add_init_script(COUNT_ASKS)
    player(ann, url), player(bob, url)
    made = ann.request.post(
        f"{url}/api/games", data={"mode": "duel", "seats": [{"kind": "here"}, {"kind": "online"}]}
    ).json()
    gid, ann_token = made["id"], made["tokens"]["0"]
    joined = bob.request.post(f"{url}/api/games/{gid}/join", data={"invite": made["invites"]["1"]})
    bob_token = joined.json()["token"]
    ann.goto(f"{url}/")
    ann.locator("#open-games li").first.wait_for()  # the lobby socket is open: it drew the list
    ann.locator("#attention-notify").wait_for()
    assert not ann.title().startswith("(") and "favicon-dot" not in icon(ann)
    # Both place a tile each turn: Bob places, Ann has still to. Her front page says so.
    decide_elsewhere(url, gid, bob_token, most=1)
    your_move = f"(1) {EN['attention.title.your-move']} · "
    ann.wait_for_function("prefix => document.title.startsWith(prefix)", arg=your_move)
    assert "favicon-dot.svg" in icon(ann)
    assert ann.locator(f"#my-games .my-move[data-game='{gid}']").count() == 1
    # She opens the game: the tab is the game's again.
    ann.goto(f"{url}/game/{gid}#t={ann_token}")
    ann.locator("#turn-line.mine").wait_for()
    assert not ann.title().startswith("(") and "favicon-dot" not in icon(ann)
    # Never asked on load, on any page: only "Notify me" asks.
    # (Chromium's headless shell starts at "denied", the full browser at "default": unchanged.)
    assert ann.evaluate("[window.__asked, Notification.permission === window.__permission]") == [0, True]
    # Another page (How to play) hears it too, over a quiet lobby socket (no list).
    with ann.expect_websocket(lambda ws: "only=attention" in ws.url):
        ann.goto(f"{url}/how-to-play")
    ann.locator("html[data-attention-listening]").wait_for(state="attached")
    decide_elsewhere(url, gid, ann_token, most=1)  # Ann places here and there: a new turn, Bob's
    decide_elsewhere(url, gid, bob_token, most=1)
    ann.wait_for_function("prefix => document.title.startsWith(prefix)", arg=your_move)
    assert "favicon-dot.svg" in icon(ann)
    assert not pages.errors
