"""The cooperative table in three browsers (issue 63): Lea hosts a game with two online seats,
Max and Nia take the seats of their invitation links, Nia on a phone.  Lea's chosen cell
moves on the others' boards as a tile in her colour with what it would do; Max proposes two
placements and a third is refused; Lea sees both with their figures, adopts one and places it,
and the proposals are gone; Nia says something that looks like markup and everyone sees it as
text; Lea mutes Nia and no longer sees her; a message too long and messages too fast are
refused in words; the replay shows the talk.

One test: the three pages are the expensive part, and each step needs the one before."""

from __future__ import annotations

import json
import re
from typing import Any

import httpx
import pytest
from browsing import Pages, create, decide_elsewhere, version, wait_turn, wait_version_after
from playwright.sync_api import expect
from websockets.sync.client import connect

pytestmark = pytest.mark.slow  # a real browser

MARKUP = "<img src=x onerror=alert(1)>"

#: Each legal cell on the page's acting board: its address and the centre of it on the screen.
_CELLS = """() => [...document.querySelectorAll(".area-pane.acting .legal-cell")].map((cell) => {
  const r = cell.getBoundingClientRect();
  return [cell.dataset.at, r.x + r.width / 2, r.y + r.height / 2];
})"""


def legal_of(server_url: str, game_id: str, token: str, seat: int) -> tuple[dict[str, list[int]], list[int]]:
    """Where ``seat`` may place now ("q,r" -> the engine's rotations), as its own client is told,
    and the engine's rotation of each turn of the tile as the page draws it (``canon``)."""
    with connect("ws" + server_url.removeprefix("http") + f"/ws/{game_id}", max_size=None) as socket:
        socket.send(json.dumps({"type": "hello", "tokens": [token]}))
        while True:
            message = json.loads(socket.recv(timeout=10))
            if message.get("type") == "state" and str(seat) in message["you"]["legal"]:
                legal = {f"{q},{r}": rots for q, r, rots in message["you"]["legal"][str(seat)]}
                return legal, message["game"]["revealed"][0]["canon"]


def turn_to(page: Any, turn: int) -> None:
    """Turn the tile (R) until the page shows turn ``turn`` of it."""
    for _ in range(6):
        if page.locator("#rot-words").get_attribute("data-rot") == str(turn):
            return
        page.keyboard.press("r")
    raise AssertionError(f"the tile never showed turn {turn}")


def click_cell(page: Any, at: str) -> None:
    for cell, x, y in page.evaluate(_CELLS):
        if cell == at:
            page.mouse.click(x, y)
            return
    raise AssertionError(f"no cell {at} to click on {page.url}")


def join(server_url: str, game_id: str, invite: str, name: str) -> str:
    """Take the seat of an invitation link's code, as its join page does: the seat's token."""
    joined = httpx.post(f"{server_url}/api/games/{game_id}/join", json={"invite": invite, "name": name})
    assert joined.status_code == 200, joined.text
    token: str = joined.json()["token"]
    return token


def talk_texts(page: Any) -> list[str]:
    return [text for text in page.locator("#talk-list .talk-text").all_text_contents()]


def test_three_at_a_cooperative_table(server_url: str, pages: Pages) -> None:
    made = create(
        server_url,
        {"mode": "coop", "seats": [{"kind": "here", "name": "Lea"}, {"kind": "online"}, {"kind": "online"}]},
    )
    gid = made["id"]
    lea = pages.wide()
    lea.goto(f"{server_url}/game/{gid}#t={made['tokens']['0']}")
    # Max and Nia (on her phone) take the seats of their invitation links (the join page's own
    # steps are tested with the Duel's, test_browser.py) and open the game.
    tokens = [made["tokens"]["0"]] + [
        join(server_url, gid, made["invites"][str(i)], n) for i, n in ((1, "Max"), (2, "Nia"))
    ]
    max_ = pages.wide()
    max_.goto(f"{server_url}/game/{gid}#t={tokens[1]}")
    nia = pages.phone()
    nia.goto(f"{server_url}/game/{gid}#t={tokens[2]}")
    dialogs: list[str] = []
    for page in (lea, max_, nia):
        page.on("dialog", lambda dialog: (dialogs.append(dialog.message), dialog.dismiss()))
    # The first round from the players' other devices: then Lea places again, beside three tiles.
    decide_elsewhere(server_url, gid, tokens, most=3)
    assert wait_turn(lea)["mine"]
    legal, canon = legal_of(server_url, gid, made["tokens"]["0"], 0)
    # Lea chooses a cell, then another: Max and Nia see her tile move there, with its figures.
    first, second = list(legal)[:2]
    for at in (first, second):
        click_cell(lea, at)
        for page in (max_, nia):
            page.locator(f'.others .other-ghost.choice[data-at="{at}"][data-seat="0"]').wait_for()
    assert max_.locator(".other-ghost.choice").count() == 1
    lea.reload()  # her choice stays hers: chosen again on her page
    lea.locator(".ghost.selected .ghost-outline").wait_for()
    lea.locator("#place-button").wait_for()
    max_.locator("#preview-title", has_text="Lea").wait_for()
    max_.locator(".card-preview .score-delta").wait_for()  # the figures the desktop preview shows
    nia.locator("#bar-text", has_text=re.compile(r"Lea: [+-]\d+ points?")).wait_for()  # in short
    # Max proposes two placements the engine allows (a cell, then R to a turn that fits there);
    # a third is refused.
    fits = list(legal)[-2:]
    for at in fits:
        click_cell(max_, at)
        turn_to(max_, next(k for k in range(6) if canon[k] in legal[at]))
        max_.locator("#propose-button").click()
    max_.locator("#proposals li").nth(1).wait_for()
    click_cell(max_, first)
    max_.keyboard.press("Enter")  # as for placing
    max_.locator("#proposal-problem", has_text="two proposals").wait_for()
    assert max_.locator("#proposals li").count() == 2
    # Lea sees both with their figures and on the board, adopts one and places it.
    lea.locator("#proposals li").nth(1).wait_for()
    for i in range(2):
        assert re.search(r"[+-]\d+ points?", lea.locator("#proposals .proposal-figures").nth(i).inner_text())
        assert lea.locator("#proposals .who").nth(i).inner_text() == "Max"
    assert lea.locator(".others .other-ghost.proposal").count() == 2
    adopted = lea.locator("#proposals li").nth(1).get_attribute("data-at")
    assert adopted == fits[1]
    lea.locator("#proposals li").nth(1).locator(".adopt-button").click()
    nia.locator(f'.other-ghost.choice[data-at="{adopted}"]').wait_for()  # now her choice
    old = version(lea)
    lea.locator("#place-button").click()
    wait_version_after(lea, old)
    for page in (lea, max_, nia):
        wait_version_after(page, old)
        page.locator(f'.ground [data-at="{adopted}"]').wait_for()
        expect(page.locator(".others > *")).to_have_count(0)  # no proposals, no choice
    assert max_.locator("#proposals").count() == 0
    # Nia (on her phone) says something that looks like markup: text for everyone.
    nia.locator("#bar-talk").click()
    nia.locator("#talk-input").fill(MARKUP)
    nia.locator("#talk-input").press("Enter")
    for page in (lea, max_, nia):
        page.locator("#talk-list .talk-text", has_text=MARKUP).wait_for()
        assert talk_texts(page) == [MARKUP]
        assert page.locator("#card-talk img, #talk-list img").count() == 0
    # Lea mutes Nia: Nia's next message reaches Lea's page, which does not show it.
    lea.locator('.mute-button[data-seat="2"]').click()
    nia.locator('.phrase[data-phrase="here"]').click()
    max_.locator("#talk-list .talk-text", has_text="Here?").wait_for()
    lea.locator('#card-talk[data-count="2"]').wait_for()
    assert talk_texts(lea) == []
    assert talk_texts(max_) == [MARKUP, "Here?"]
    # Too long (past the field's own limit), too fast: refused, in words.
    lea.evaluate("document.getElementById('talk-input').removeAttribute('maxlength')")
    lea.locator("#talk-input").fill("x" * 201)
    lea.locator("#talk-send").click()
    lea.locator("#talk-problem", has_text="too long").wait_for()
    assert lea.locator("#talk-input").input_value() == "x" * 201  # kept, to shorten
    for _ in range(6):
        max_.locator('.phrase[data-phrase="wait"]').click()
    max_.locator("#talk-problem", has_text="Not so fast").wait_for()
    assert talk_texts(max_).count("Wait") == 5
    # "No talk": the messages and the line go.
    lea.locator("#talk-off").check()
    lea.locator("#talk-off-note").wait_for()
    expect(lea.locator("#talk-input")).to_be_hidden()
    # The game played to its end elsewhere (the table left meanwhile: three pages drawing every
    # move is not this test's point): its replay shows the talk, as text.
    for page in (lea, max_, nia):
        page.goto("about:blank")
    decide_elsewhere(server_url, gid, tokens)
    max_.goto(f"{server_url}/replay/{gid}")
    max_.locator("#replay-talk .talk-text", has_text=MARKUP).wait_for()
    assert max_.locator("#replay-talk .talk-text").all_text_contents()[:2] == [MARKUP, "Here?"]
    assert max_.locator("#replay-talk img").count() == 0
    assert not dialogs, dialogs
    assert not pages.errors, pages.errors
