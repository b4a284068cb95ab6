"""The lobby says when an open game expires (issue 60, item 9): its row in the live list counts
down ("expires in 30 minutes" for a real-time clock, in hours for correspondence), in English and
in German, and the "Open in the lobby" box says so before the game is made."""

from __future__ import annotations

from browsing import Pages


def test_an_open_games_row_says_when_it_expires(pages: Pages, server_url: str) -> None:
    watcher, german = pages.wide(), pages.new(locale="de-DE")
    host = pages.wide()
    host.goto(server_url + "/")
    note = host.locator("label[for='open-game']").get_attribute("title") or ""
    assert "30 minutes" in note and "a day" in note
    body = {"open": True, "mode": "duel", "seats": [{"kind": "here"}, {"kind": "online"}]}
    quick = host.request.post(server_url + "/api/games", data={**body, "clock": "3+2"})
    slow = host.request.post(server_url + "/api/games", data={**body, "clock": "3d"})
    assert quick.status == 201 and slow.status == 201, (quick.text(), slow.text())
    quick_id, slow_id = quick.json()["id"], slow.json()["id"]
    watcher.goto(server_url + "/")
    row = watcher.locator(f'li.open-game[data-game="{quick_id}"] .open-expires')
    row.wait_for()
    assert row.inner_text() in ("expires in 30 minutes", "expires in 29 minutes")
    later = watcher.locator(f'li.open-game[data-game="{slow_id}"] .open-expires')
    assert later.inner_text() in ("expires in 24 hours", "expires in 23 hours")
    german.goto(server_url + "/")
    german_row = german.locator(f'li.open-game[data-game="{quick_id}"] .open-expires')
    german_row.wait_for()
    assert german_row.inner_text() in ("läuft in 30 Minuten ab", "läuft in 29 Minuten ab")
    assert pages.errors == []
