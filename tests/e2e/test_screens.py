"""The page on a phone and on a wide screen: nothing scrolls sideways, a whole solo game played with
taps only, the Duel's two areas side by side, the draft by taps, and the small things around them
(the pad's words, whose log line, the reconnect back-off, a broken game, no inline code)."""

from __future__ import annotations

import contextlib
import random
import re
import sqlite3
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from browsing import (
    GAIN,
    HTTP,
    PHONE,
    WIDE,
    Pages,
    create,
    decide_elsewhere,
    inside_viewport,
    no_sideways_scroll,
    place_by_clicking,
    place_by_keys,
    start_from_lobby,
    tappable_cells,
    tokens_of,
    version,
    wait_turn,
    wait_until,
    wait_version_after,
)
from playwright.sync_api import TimeoutError as PlaywrightTimeout

from dorf.testing.net import free_port
from dorf.testing.servers import launch

pytestmark = pytest.mark.slow


def open_game(pages: Pages, server_url: str, made: dict[str, Any], phone: bool = False) -> Any:
    page = pages.phone() if phone else pages.wide()
    tokens = ",".join(made["tokens"].values())
    page.goto(f"{server_url}/game/{made['id']}" + (f"#t={tokens}" if tokens else ""))
    page.locator(".card-turn h2").wait_for(state="attached")
    return page


#: Resolves after the page has drawn two more frames (a resize is handled before a frame).
NEXT_FRAMES = "new Promise((done) => requestAnimationFrame(() => requestAnimationFrame(done)))"


def at_each_size(page: Any, sizes: list[tuple[int, int]], phone_bar: bool = False) -> None:
    """Nothing scrolls sideways on the page at each of ``sizes`` (the first the page's own, to
    which it returns), and with ``phone_bar`` the phone's Place button is on the screen."""
    for width, height in sizes:
        if (width, height) != (page.viewport_size["width"], page.viewport_size["height"]):
            page.set_viewport_size({"width": width, "height": height})
            page.evaluate(NEXT_FRAMES)  # the page's own handlers of the new size have run
        no_sideways_scroll(page)
        if phone_bar:
            inside_viewport(page, "#bar-place")
    if len(sizes) > 1:
        page.set_viewport_size({"width": sizes[0][0], "height": sizes[0][1]})


def test_no_page_scrolls_sideways_on_a_phone_or_a_wide_screen(server_url: str, pages: Pages) -> None:
    coop = create(server_url, {"mode": "coop", "seed": 3, "seats": [{"kind": "here", "name": "Ann"}]})
    duel = create(server_url, {"mode": "duel", "seats": [{"kind": "here"}, {"kind": "online"}]})
    draft = create(
        server_url,
        {
            "mode": "head-to-head",
            "seed": 3,
            "seats": [{"kind": "here"}, {"kind": "computer", "player": "random"}],
        },
    )
    done = create(
        server_url, {"mode": "coop", "seed": 6, "seats": [{"kind": "computer", "player": "random"}]}
    )
    # A wide screen, and a phone (a touch screen) at two sizes: each page is opened on the
    # phone at its narrower size and looked at again with the phone's other size.
    for (width, height), also in ((WIDE, None), ((360, 740), PHONE)):
        page = pages.new(width, height, touch=width < 800)
        sizes = [(width, height)] if also is None else [(width, height), also]

        # A campaign is its members': this browser's (its cookie makes it a player).
        page.request.post(server_url + "/api/campaigns", data={"name": "A family with a long name"})
        for path in ("/", "/replay", "/campaigns", "/campaigns/A%20family%20with%20a%20long%20name"):
            page.goto(server_url + path)
            page.locator("main .card, main section").first.wait_for()
            at_each_size(page, sizes)
        page.goto(f"{server_url}/join/{duel['id']}/{duel['invites']['1']}")
        page.locator("#join-button").wait_for()
        at_each_size(page, sizes)
        for made in (coop, duel, draft):
            page.goto(f"{server_url}/game/{made['id']}#t={','.join(made['tokens'].values())}")
            page.locator(".legal-cell, #draft-pool .pool-tile").first.wait_for()
            at_each_size(page, sizes, phone_bar=width < 800)
        page.goto(f"{server_url}/game/{done['id']}")
        page.locator("#score-pad").wait_for(timeout=60_000)
        at_each_size(page, sizes)
        page.goto(f"{server_url}/replay/{done['id']}")
        page.locator("#step-label").wait_for()
        at_each_size(page, sizes)
        assert page.evaluate("scrollY") == 0  # stepping the replay scrolls its list, not the page
    assert not pages.errors, pages.errors


def test_a_solo_game_on_a_phone_ends_with_taps_only(server_url: str, pages: Pages) -> None:
    page = pages.phone()
    page.goto(server_url + "/")
    page.locator("summary", has_text="More").tap()
    page.locator("#seed").fill("21")
    page.locator("#start").tap()
    page.wait_for_url(re.compile(r"/game/"))
    page.locator(".legal-cell").first.wait_for()
    page.evaluate(
        """() => { window.fx = 0;
            new MutationObserver((changes) => { for (const c of changes) for (const n of c.addedNodes)
                if (n.classList && n.classList.contains('fx-burst')) window.fx++; })
            .observe(document.body, { childList: true, subtree: true }); }"""
    )
    assert page.locator(".bottom-bar").is_visible()
    assert not page.locator("#bar-undo").is_visible()  # not a practice game, and nothing to undo
    # The task list opens as a sheet, and closes.
    page.locator("#bar-tasks").tap()
    page.locator("#panel.open .card-tasks").wait_for()
    page.locator(".sheet-close").tap()
    page.locator("#panel").wait_for(state="hidden")

    # The first 40 turns (of 48) from another device (the page follows them as a table's other screen);
    # the last ones, on the fullest board, by taps to the score pad.
    game_id = page.url.split("/game/")[1].split("#")[0]
    decide_elsewhere(server_url, game_id, tokens_of(page, game_id), until=lambda game: game["turn"] >= 40)
    rng = random.Random(4)
    moves = 0
    while not (shown := wait_turn(page))["over"]:
        cells = tappable_cells(page)
        x, y = cells[rng.randrange(len(cells))]
        old = shown["version"]
        page.touchscreen.tap(x, y)  # the first tap previews
        page.locator("#bar-text", has_text=GAIN).wait_for()
        assert page.locator(".ghost.selected").count() == 1
        inside_viewport(page, "#bar-place")
        assert page.locator("#bar-place").is_enabled()
        if moves % 3 == 1:
            page.locator("#bar-rotate-right").tap()
        if moves % 2:
            page.touchscreen.tap(x, y)  # a second tap on the same cell places
        else:
            page.locator("#bar-place").tap()
        wait_version_after(page, old)
        moves += 1
        assert moves < 200
    assert moves >= 8
    pad = page.locator("#score-pad")
    pad.wait_for()
    inside_viewport(page, "#score-pad .actions")
    text = pad.inner_text()
    assert "Final score" in text and "Grand total (H)" in text and "Completed tasks (S1)" in text
    assert "S1 tasks" not in text
    page.locator("#pad-close").tap()
    page.locator("#bar-more").tap()
    assert "Final score" in page.locator("#card-score").inner_text()
    assert "if the game ended now" not in page.locator("#card-score").inner_text()
    log = page.locator(".log li")
    assert log.count() >= moves
    assert log.filter(has=page.locator(".who", has_text="Player 1")).count() >= moves
    completed = page.locator(".log li.log-completed").count()
    failed = page.locator(".log li.log-failed").count()
    if completed:
        assert page.evaluate("window.fx") >= 1  # a completed task was celebrated on the board
    assert page.locator(".marks .task-marker.failed .cross").count() == failed
    assert not pages.errors, pages.errors


#: The Duel's two boards (their boxes, or null where not shown), the highlighted cells on the
#: opponent's area and its banner (null where there is none).
BOTH_AREAS = """() => {
  const board = (i) => {
    const svg = document.querySelector(`.area-pane[data-area="${i}"] svg.board`);
    const r = svg && svg.getBoundingClientRect();
    return r && r.width && r.height ? { x: r.x, width: r.width, height: r.height } : null;
  };
  const banner = document.querySelector('.area-pane[data-area="1"] .banner');
  return {
    boards: [board(0), board(1)],
    their_cells: document.querySelectorAll('.area-pane[data-area="1"] .legal-cell').length,
    their_banner: banner && banner.innerText,
  };
}"""


def test_a_duel_against_the_computer_on_a_wide_screen_shows_both_areas(server_url: str, pages: Pages) -> None:
    page = pages.wide()
    # the easy level: this is about the screen, not the opponent's strength
    start_from_lobby(page, server_url, "The Duel", ("Ann", "Bob"), computer="easy")
    page.locator(".legal-cell").first.wait_for()
    assert not page.locator(".area-tabs").is_visible()  # no tabs: both areas are on the screen
    game_url = page.url
    game_id = game_url.split("/game/")[1].split("#")[0]
    rng = random.Random(8)
    turns = 0
    while True:
        layout = page.evaluate(BOTH_AREAS)
        panes = layout["boards"]
        assert all(box and box["width"] > 400 and box["height"] > 500 for box in panes), panes
        assert panes[0]["x"] + panes[0]["width"] <= panes[1]["x"]  # side by side
        assert layout["their_cells"] == 0
        assert layout["their_banner"] is not None and "Your turn" not in layout["their_banner"]
        if wait_turn(page)["over"]:
            break
        if turns == 3:
            # The middle of the game from another device of Ann's while the page is closed (a
            # page that follows every move is another test's point); open again for the last
            # landscapes, the areas grown.
            token = tokens_of(page, game_id)[0]
            page.goto("about:blank")
            decide_elsewhere(server_url, game_id, token, until=lambda game: game["left"][0][1] <= 2)
            page.goto(game_url)
            page.locator(".card-turn h2").wait_for(state="attached")
        elif turns < 3:
            place_by_clicking(page, rng)
        else:
            place_by_keys(page)
        turns += 1
        assert turns < 100
    placed = len(HTTP.get(f"{server_url}/api/games/{game_id}").json()["areas"][0]["tiles"])
    page.locator("#score-pad").wait_for()
    pad = page.locator("#score-pad").inner_text()
    assert re.search(r"wins|shared victory", pad) and "Subtotal: tasks" in pad and "Result" in pad
    assert page.locator(".log .who", has_text="Bob").count() >= placed - 1
    assert not pages.errors, pages.errors


def test_tabs_on_a_narrower_screen_keep_your_banner_on_your_area(server_url: str, pages: Pages) -> None:
    made = create(
        server_url,
        {
            "mode": "duel",
            "seats": [{"kind": "here", "name": "Ann"}, {"kind": "online", "name": "Bob"}],
        },
    )
    page = pages.new(1000, 800)
    page.goto(f"{server_url}/game/{made['id']}#t={made['tokens']['0']}")
    page.locator(".legal-cell").first.wait_for()
    assert page.locator(".area-tabs").is_visible()
    assert page.locator(".area-pane.focus .banner").inner_text().startswith("Your turn")
    page.locator('.area-tabs .tab[data-area="1"]').click()
    assert page.locator(".area-pane.focus").get_attribute("data-area") == "1"
    banner = page.locator(".area-pane.focus .banner").inner_text()
    assert "Your turn" not in banner and "Bob is placing this tile" in banner
    assert page.locator(".area-pane.focus .legal-cell").count() == 0
    page.locator('.area-tabs .tab[data-area="0"]').click()
    assert page.locator(".area-pane.focus .legal-cell").count() > 0
    assert not pages.errors, pages.errors


def test_the_draft_on_a_phone_a_tap_enlarges_a_second_takes(server_url: str, pages: Pages) -> None:
    made = create(
        server_url,
        {
            "mode": "head-to-head",
            "seed": 2,
            "seats": [{"kind": "here"}, {"kind": "computer", "player": "random"}],
        },
    )
    page = open_game(pages, server_url, made, phone=True)
    for _ in range(2):
        wait_until(page, "document.body.dataset.mine === '1'")
        tile = page.locator("#draft-pool button.pool-tile").first
        taken = tile.get_attribute("data-tile")
        old = version(page)
        tile.tap()
        page.locator("#pick-detail").wait_for()
        assert version(page) == old  # a first tap only shows the tile large
        assert page.locator(f'#draft-pool .pool-tile.chosen[data-tile="{taken}"]').count() == 1
        inside_viewport(page, "#bar-place")
        if _ == 0:
            tile.tap()
        else:
            page.locator("#bar-place").tap()
        wait_version_after(page, old)
        wait_until(page, f"!document.querySelector('#draft-pool [data-tile=\"{taken}\"]')")
    no_sideways_scroll(page)
    assert not pages.errors, pages.errors


def test_the_lobby_sends_practice_and_who_starts(server_url: str, pages: Pages) -> None:
    page = pages.wide()
    page.goto(server_url + "/")
    page.locator("label.mode", has_text="The Duel").click()
    page.locator(".seat-name").nth(1).fill("Bob")
    page.locator("#first").select_option("2")
    page.locator("#practice").check()
    with page.expect_request(lambda r: r.url.endswith("/api/games") and r.method == "POST") as sent:
        page.locator("#start").click()
    body = sent.value.post_data_json
    assert body["practice"] is True and body["first"] == 2 and body["mode"] == "duel"
    page.wait_for_url(re.compile(r"/game/"))
    # The seat choices: the server's computer levels, or the old list where it offers none.
    page.goto(server_url + "/")
    page.locator("label.mode", has_text="The Duel").click()
    levels = HTTP.get(server_url + "/api/levels")
    if levels.status_code == 200:  # the server's levels, each with its strength in this game
        labels = [level["label"] for level in levels.json()["levels"]]
        wait_until(
            page,
            "[...document.querySelectorAll('.seat-kind option')]"
            f".some((o) => o.text.includes({labels[0]!r}))",
        )
    else:  # a server without the list: the old players
        labels = ["random", "greedy", "search 1 s"]
    options = " ".join(page.locator(".seat-kind").nth(1).locator("option").all_inner_texts())
    assert all(f"Computer · {label}" in options for label in labels), options
    if levels.status_code == 200:  # each level says what it was measured to do in the Duel:
        # in its option's title, and under the seat it plays (a short option fits a phone)
        shown = [f"{level['label']}: {level['figures']['duel']}" for level in levels.json()["levels"]]
        titles = (
            page.locator(".seat-kind").nth(1).locator("option").evaluate_all("(os) => os.map((o) => o.title)")
        )
        assert all(text in titles for text in shown), (shown, titles)
        about = page.locator(".seat-about:not(.hidden)")
        assert about.count() == 1 and about.inner_text() in shown, about.all_inner_texts()
    assert page.evaluate(
        "import('/static/util.js').then((u) => [u.plural(1, 'mountain'), u.plural(2, 'lake')])"
    ) == [
        "1 mountain",
        "2 lakes",
    ]
    assert not pages.errors, pages.errors


def test_the_page_runs_under_the_servers_content_security_policy(tmp_path: Path, pages: Pages) -> None:
    """No inline script, inline handler or eval: the page works under the policy dorf serve sends."""
    with launch(tmp_path / "dorf.sqlite3", page_policy=True) as server:
        page = pages.wide()
        violations: list[str] = []
        page.on(
            "console",
            lambda msg: violations.append(msg.text) if "Content Security Policy" in msg.text else None,
        )
        page.goto(server.url + "/")
        policy = page.evaluate("fetch('/').then((r) => r.headers.get('content-security-policy'))") or ""
        assert "script-src 'self';" in policy and "unsafe-eval" not in policy, policy
        page.locator("#start").click()
        page.wait_for_url(re.compile(r"/game/"))
        cell = page.locator(".legal-cell").first
        old = version(page)
        cell.click()
        page.locator("#place-button").click()
        wait_version_after(page, old)
        page.locator("#rotate-button").click()
        page.keyboard.press("n")
        page.locator(".ghost.selected").wait_for()
        page.goto(server.url + "/replay")
        page.locator("#record-file").wait_for()
        page.goto(server.url + "/campaigns")
        page.locator("#campaign-name").wait_for()
    assert not violations, violations
    assert not pages.errors, pages.errors


def test_reconnecting_tries_again_within_two_seconds_while_the_page_is_watched(
    tmp_path: Path, pages: Pages
) -> None:
    db = tmp_path / "dorf.sqlite3"
    port = free_port()
    with launch(db, port=port) as server:
        made = create(server.url, {"mode": "coop", "seed": 2, "seats": [{"kind": "here"}]})
        page = pages.wide()
        # The page's clock runs as any other, but the test may move it on: each wait between
        # tries is over at once (the page still chooses how long it would wait).
        page.clock.install()
        page.goto(f"{server.url}/game/{made['id']}#t={made['tokens']['0']}")
        page.locator(".legal-cell").first.wait_for()
    # The server is gone: the page keeps trying, never waiting more than 2 s between tries.
    for tries in range(1, 6):
        wait_until(page, f"Number(document.getElementById('status').dataset.retries || 0) >= {tries}")
        if tries < 5:
            page.clock.fast_forward(2000)  # the next try, which the page waits at most 2 s for
    waits = page.evaluate("JSON.parse(document.getElementById('status').dataset.waits)")
    assert max(waits) <= 2000 and waits == sorted(waits), waits
    with launch(db, port=port):
        page.clock.fast_forward(2000)
        wait_until(page, "document.getElementById('status').textContent === 'connected'", limit=10)
        page.locator(".legal-cell").first.wait_for()
    pages.errors[:] = [e for e in pages.errors if "WebSocket" not in e and "ERR_CONNECTION_REFUSED" not in e]
    assert not pages.errors, pages.errors


def test_a_broken_game_is_shown_with_its_reason(tmp_path: Path, pages: Pages) -> None:
    db = tmp_path / "dorf.sqlite3"
    with launch(db) as server:
        made = create(server.url, {"mode": "coop", "seed": 2, "seats": [{"kind": "here"}]})
        legal = HTTP.get(f"{server.url}/api/games/{made['id']}").json()
        assert not legal["over"]
        first = HTTP.post(
            f"{server.url}/api/games/{made['id']}/move",
            json={"token": made["tokens"]["0"], "seat": 0, "at": [0, 0], "rot": 0},
        )
        assert first.status_code == 200, first.text
    with sqlite3.connect(db) as conn:  # a decision that no longer fits the game
        conn.execute(
            "UPDATE server_decision SET decision = ? WHERE game_id = ?", ('{"at":[9,9],"rot":0}', made["id"])
        )
    with launch(db) as server:
        page = pages.wide()
        page.goto(f"{server.url}/game/{made['id']}#t={made['tokens']['0']}")
        page.locator("#broken-reason").wait_for()
        assert "This game is broken" in page.locator("#card-turn").inner_text()
        assert page.locator("#broken-reason").inner_text().strip()
        assert page.locator(".legal-cell").count() == 0
        page.goto(server.url + "/")
        page.locator("ul.games small.bad").wait_for()
    pages.errors[:] = [e for e in pages.errors if "status of 410" not in e]
    assert not pages.errors, pages.errors


def test_markers_stay_readable_zoomed_out_and_say_what_they_are(server_url: str, pages: Pages) -> None:
    made = create(server_url, {"mode": "coop", "seed": 5, "seats": [{"kind": "here", "name": "Ann"}]})
    page = open_game(pages, server_url, made)
    for _ in range(3):  # three task tiles come first: three markers on the board
        page.locator(".legal-cell").first.wait_for()
        old = version(page)
        page.keyboard.press("n")
        page.keyboard.press("Enter")
        wait_version_after(page, old)
    page.locator(".legal-cell").first.wait_for()
    sizes = page.evaluate(
        "[...document.querySelectorAll('.marks .task-marker')].map((m) => m.getBoundingClientRect().width)"
    )
    assert len(sizes) == 3 and min(sizes) >= 24, sizes
    for _ in range(12):
        page.keyboard.press("-")
    wait_until(page, "document.querySelector('svg.board').classList.contains('compact')")
    dots = page.evaluate(
        "[...document.querySelectorAll('.marks .task-marker .dot')]"
        ".map((d) => d.getBoundingClientRect().width)"
    )
    assert len(dots) == 3 and min(dots) >= 14, dots
    tile = page.evaluate("document.querySelector('.ground > g').dataset.at")
    box = page.locator(f'.ground > g[data-at="{tile}"]').bounding_box()
    page.mouse.move(box["x"] + box["width"] / 2, box["y"] + box["height"] / 2)
    tip = page.locator(".board-tip")
    tip.wait_for()
    assert re.search(r"\d+ of \d+ tiles", tip.inner_text()), tip.inner_text()
    assert not pages.errors, pages.errors


#: How many frames the page draws until no tile is askew, ``least`` at the least (600 at most).
SETTLED = """(least) => new Promise((resolve) => {
  let frames = 0;
  const look = () => {
    frames += 1;
    const askew = !!document.querySelector(".ground [transform]");
    if ((frames >= least && !askew) || frames >= 600) resolve(frames);
    else requestAnimationFrame(look);
  };
  requestAnimationFrame(look);
})"""


def test_a_placed_tile_settles_unless_motion_is_reduced(server_url: str, browser: Any, pages: Pages) -> None:
    moved = []
    frames = 2  # the frames to watch after a placement: as many as the drop took, once seen
    page = pages.wide()
    for reduced in (False, True):
        made = create(server_url, {"mode": "coop", "seed": 7, "seats": [{"kind": "here"}]})
        page.emulate_media(reduced_motion="reduce" if reduced else "no-preference")
        page.goto(f"{server_url}/game/{made['id']}#t={made['tokens']['0']}")
        page.locator(".legal-cell").first.wait_for()
        page.evaluate(
            """() => { window.moves = 0;
                new MutationObserver((changes) => { window.moves += changes.length; })
                .observe(document.querySelector('.ground'),
                         { attributes: true, subtree: true, attributeFilter: ['transform'] }); }"""
        )
        old = version(page)
        page.keyboard.press("n")
        page.keyboard.press("Enter")
        wait_version_after(page, old)
        frames = max(frames, page.evaluate(SETTLED, frames))
        moved.append(page.evaluate("window.moves"))
        assert page.locator(".ground [transform]").count() == 0  # settled: nothing left askew
    assert moved[0] > 0 and moved[1] == 0, moved
    assert not pages.errors, pages.errors


@pytest.mark.usefixtures("quick_coach")  # a hint and its reason in words, not the advice's worth
def test_the_hint_button_chooses_a_cell_or_says_why_not(server_url: str, pages: Pages) -> None:
    made = create(server_url, {"mode": "coop", "seed": 3, "practice": True, "seats": [{"kind": "here"}]})
    page = open_game(pages, server_url, made)
    page.locator(".legal-cell").first.wait_for()
    page.locator("#hint-button").click()
    hint = page.locator("#hint-text")
    hint.wait_for()
    # This server gives hints: the coach's placement is chosen on the board, with why in words.
    assert "bad" not in (hint.get_attribute("class") or ""), hint.inner_text()
    text = hint.inner_text()
    assert text.startswith("Coach: ") and len(text) > len("Coach: "), text  # the reason, in words
    assert not re.search(r"-?\d+,-?\d+", text) and "turned" not in text, text  # no grid coordinates
    page.locator(".ghost.selected").wait_for()
    page.locator("#place-button").wait_for()
    old = version(page)
    page.locator("#place-button").click()
    wait_version_after(page, old)
    assert not pages.errors, pages.errors


def test_one_finger_pans_and_two_fingers_zoom_the_board(server_url: str, pages: Pages) -> None:
    made = create(server_url, {"mode": "coop", "seed": 4, "seats": [{"kind": "here"}]})
    page = open_game(pages, server_url, made, phone=True)
    page.locator(".legal-cell").first.wait_for()
    cdp = page.context.new_cdp_session(page)

    def touch(kind: str, points: list[tuple[float, float]]) -> None:
        cdp.send(
            "Input.dispatchTouchEvent",
            {"type": kind, "touchPoints": [{"x": x, "y": y, "id": i} for i, (x, y) in enumerate(points)]},
        )

    def view() -> list[float]:
        transform = page.locator("svg.board > g").get_attribute("transform")
        return [float(n) for n in re.findall(r"-?[\d.]+", transform)]

    x0, y0, k0 = view()
    touch("touchStart", [(200, 400)])
    for step in range(1, 6):
        touch("touchMove", [(200 + 12 * step, 400 + 8 * step)])
    touch("touchEnd", [])
    x1, y1, k1 = view()
    assert (round(x1 - x0), round(y1 - y0), k1) == (60, 40, k0)  # dragged 60 x 40 px, same zoom
    touch("touchStart", [(150, 400), (250, 400)])
    for step in range(1, 6):
        touch("touchMove", [(150 - 10 * step, 400), (250 + 10 * step, 400)])
    touch("touchEnd", [])
    assert view()[2] == pytest.approx(k1 * 2, rel=0.05)  # fingers twice as far apart: twice the zoom
    assert version(page) == 0  # neither gesture placed anything
    assert not pages.errors, pages.errors


def test_only_a_practice_game_offers_undo_and_says_it_is_one(server_url: str, pages: Pages) -> None:
    page = pages.wide()
    made = create(server_url, {"mode": "coop", "seed": 6, "seats": [{"kind": "here"}]})
    page.goto(f"{server_url}/game/{made['id']}#t={made['tokens']['0']}")
    page.locator(".legal-cell").first.wait_for()
    old = version(page)
    page.keyboard.press("n")
    page.keyboard.press("Enter")
    wait_version_after(page, old)
    assert page.locator("#undo-button").count() == 0 and page.locator("#practice-badge").count() == 0

    page.goto(server_url + "/")
    page.locator(".seat-kind").nth(0).select_option("online")
    page.locator("#add-seat").click()
    assert page.locator("#practice").is_disabled()  # undo would take back an online player's move
    page.locator(".seat-kind").nth(0).select_option("here")
    page.locator(".seat-name").nth(0).fill("Ann")
    page.locator(".seat-name").nth(1).fill("Bob")
    page.locator("#first").select_option("2")
    page.locator("#practice").check()
    page.locator("#start").click()
    page.wait_for_url(re.compile(r"/game/"))
    page.locator(".legal-cell").first.wait_for()
    assert page.locator("#practice-badge").is_visible()
    assert page.locator("#turn-line").inner_text() == "Bob: your turn"  # Bob was chosen to start
    assert "Bob started." in page.locator("#card-turn").inner_text()
    assert page.locator("#undo-button").count() == 0  # nothing to take back at move 0
    old = version(page)
    page.keyboard.press("n")
    page.keyboard.press("Enter")
    wait_version_after(page, old)
    assert page.locator("#turn-line").inner_text() == "Ann: your turn"
    old = version(page)
    page.locator("#undo-button").click()
    wait_version_after(page, old)
    assert page.locator(".ground > g").count() == 0
    assert page.locator("#turn-line").inner_text() == "Bob: your turn"
    assert not pages.errors, pages.errors


def test_a_move_is_shown_at_once_and_saving_until_the_database_takes_it(tmp_path: Path, pages: Pages) -> None:
    db = tmp_path / "dorf.sqlite3"
    with launch(db) as server:
        made = create(server.url, {"mode": "coop", "seats": [{"kind": "here"}]})
        page = pages.wide()
        page.goto(f"{server.url}/game/{made['id']}#t={made['tokens']['0']}")
        page.locator(".legal-cell").first.wait_for()
        lock = sqlite3.connect(db, isolation_level=None)
        lock.execute("BEGIN IMMEDIATE")  # another program holds the database for a while
        try:
            old, tiles = version(page), page.locator(".ground > g").count()
            cell = page.locator(".legal-cell").first
            cell.click()
            cell.click()
            wait_version_after(page, old, limit=2.0)  # the move is made and shown at once
            wait_until(page, "document.getElementById('status').textContent === 'saving…'")
            assert page.evaluate("document.body.dataset.saved") == "0"
            assert page.locator(".ground > g").count() == tiles + 1
        finally:
            lock.execute("COMMIT")
            lock.close()
        wait_until(page, "document.body.dataset.saved === '1'")
        assert page.locator("#status").inner_text() == "connected"
    assert not pages.errors, pages.errors


#: When the decisions made elsewhere stop in each phase of the Head to Head: the seat's last
#: few picks (of the tiles left in the pool), its last few tiles to lay.
ENDS: dict[str, Callable[[dict[str, Any]], bool]] = {
    "draft": lambda game: len(game["pool"]) <= 4,
    "laying": lambda game: sum(game["left"][0]) <= 3,
}


def test_a_whole_head_to_head_game_on_a_phone_through_deltas(server_url: str, pages: Pages) -> None:
    made = create(
        server_url,
        {"mode": "head-to-head", "seats": [{"kind": "here"}, {"kind": "computer", "player": "random"}]},
    )
    page = open_game(pages, server_url, made, phone=True)
    rng = random.Random(6)
    decisions = 0
    done = {"draft": 0, "laying": 0}  # decisions by taps in each phase
    while not (shown := wait_turn(page))["over"]:
        old = shown["version"]
        phase = "draft" if shown["phase"] == "draft" else "laying"
        if done[phase] == 3:
            # The middle of the draft and of the laying from another device of the seat's (over
            # the websocket, as a page plays); the last picks and placements by taps again.  The
            # page follows every move of the laying (what builds the board it is compared with at
            # the end); the draft's middle, a pool emptied pick by pick, while it is closed (each
            # pick redraws the pool on the phone, most of the test's work): opened again, the page
            # follows the last picks by deltas from the state it loads.
            away = phase == "draft"
            if away:
                game_url = page.url
                page.goto("about:blank")
            game = decide_elsewhere(server_url, made["id"], made["tokens"]["0"], until=ENDS[phase])
            if away:
                page.goto(game_url)
                page.locator(".card-turn h2").wait_for(state="attached")
            wait_version_after(page, game["version"] - 1)
            done[phase] += 1
            continue
        done[phase] += 1
        if phase == "draft":
            tiles = page.locator("#draft-pool button.pool-tile")
            tile = tiles.nth(rng.randrange(tiles.count()))
            tile.tap()  # shown large
            page.locator("#bar-place").tap()  # taken
        else:
            for _ in range(5):  # a tap while the board redraws (the computer placed) may miss: again
                if version(page) != old:  # a second tap on a chosen cell placed it
                    break
                cells = tappable_cells(page)
                x, y = cells[rng.randrange(len(cells))]
                page.touchscreen.tap(x, y)
                with contextlib.suppress(PlaywrightTimeout):
                    page.locator(".ghost.selected").wait_for(timeout=2000)
                    page.locator("#bar-place").tap()
                    break
        wait_version_after(page, old)
        decisions += 1
        assert decisions < 200
    page.locator("#score-pad").wait_for()
    assert "Mountains/lakes" in page.locator("#score-pad").inner_text()
    shown = page.locator(".ground > g").count()
    page.goto(page.url)  # a page opened now, from the whole state, shows what the deltas built
    page.locator("#score-pad").wait_for()
    assert page.locator(".ground > g").count() == shown
    no_sideways_scroll(page)
    assert not pages.errors, pages.errors
