"""Issue 25, items 3, 7 and 10: a phone on its side gets the bar beside the board and plays a whole
game by taps; late in a game a tap on small cells first zooms in to targets a finger can hit; the
board reads as a landscape (the preview in words, edge letters behind the Aa switch, and on the
ghost tile a mark for each edge that meets a tile: joined or not)."""

from __future__ import annotations

import random
import re
from typing import Any

import pytest
from browsing import (
    GAIN,
    HTTP,
    PHONE,
    Pages,
    create,
    decide_elsewhere,
    inside_viewport,
    no_sideways_scroll,
    tappable_cells,
    version,
    wait_turn,
    wait_until,
    wait_version_after,
)

from dorf.lab.screenshots import Table

pytestmark = pytest.mark.slow

SIDEWAYS = (844, 390)
#: How the preview says the tile is turned.
TURNED = r"(as drawn|turned round|turned [12] steps? (anti)?clockwise)"
#: The neighbour across edge d (dorf.rules.hexgrid.DIRECTIONS); it faces back with edge d + 3.
DIRECTIONS = ((0, -1), (1, -1), (1, 0), (0, 1), (-1, 1), (-1, 0))

#: The bounding boxes of the highlighted cells of the acting area, [width, height] each.
LEGAL_BOXES = """() => [...document.querySelectorAll('.area-pane.acting .legal-cell')]
    .map((c) => { const r = c.getBoundingClientRect(); return [r.width, r.height]; })"""


#: The centres of the highlighted cells wholly on the board's part of the screen, under no
#: button, once there are any (looked for at each frame the page draws).
CELLS_IN_VIEW = """(ms) => new Promise((resolve) => {
  const end = performance.now() + ms;
  const look = () => {
    const b = document.querySelector(".area-pane.acting svg.board").getBoundingClientRect();
    const points = [...document.querySelectorAll(".area-pane.acting .legal-cell")]
      .map((cell) => [cell.getBoundingClientRect(), cell])
      .filter(([r]) => r.left >= b.left && r.right <= b.right && r.top >= b.top && r.bottom <= b.bottom)
      .map(([r, cell]) => [r.x + r.width / 2, r.y + r.height / 2, cell])
      .filter(([x, y, cell]) => document.elementFromPoint(x, y) === cell)
      .map(([x, y]) => [x, y]);
    if (points.length) resolve(points);
    else if (performance.now() > end) resolve(null);
    else requestAnimationFrame(look);
  };
  look();
})"""


def cells_in_view(page: Any) -> list[list[float]]:
    """The centres of the highlighted cells wholly on the board's part of the screen, under no button."""
    points: list[list[float]] | None = page.evaluate(CELLS_IN_VIEW, 15_000)
    assert points, "no highlighted cell wholly in view"
    return points


#: Resolves once the board's view (the transform of what it draws) stays the same from one frame
#: to the next: the board has fitted itself to its size.
STEADY = """() => new Promise((resolve) => {
  let last = null;
  const look = () => {
    const now = document.querySelector("svg.board > g")?.getAttribute("transform") ?? null;
    if (now !== null && now === last) resolve(now);
    else { last = now; requestAnimationFrame(look); }
  };
  requestAnimationFrame(look);
})"""


def box(page: Any, selector: str) -> dict[str, float]:
    found = page.locator(selector).bounding_box()
    assert found is not None, f"{selector} is not shown"
    return dict(found)


def test_a_phone_on_its_side_has_the_bar_beside_the_board_and_plays_the_end_of_a_game_by_taps(
    server_url: str, pages: Pages
) -> None:
    made = create(server_url, {"mode": "coop", "seed": 21, "seats": [{"kind": "here", "name": "Ann"}]})
    page = pages.new(*SIDEWAYS, touch=True)
    for path in ("/", "/replay", "/campaigns"):
        page.goto(server_url + path)
        page.locator("main .card, main section").first.wait_for()
        no_sideways_scroll(page)
    page.goto(f"{server_url}/game/{made['id']}#t={made['tokens']['0']}")
    page.locator(".legal-cell").first.wait_for()
    width, height = SIDEWAYS
    # The bar stands beside the board; the board keeps most of the height and the width.
    board, bar = box(page, "svg.board"), box(page, ".bottom-bar")
    assert board["height"] >= 0.8 * height and board["width"] >= 0.65 * width, board
    assert bar["x"] >= board["x"] + board["width"] - 1 and bar["height"] >= board["height"], (bar, board)
    for selector in ("#bar-place", ".bar-tile", "#bar-rotate-left", "#bar-rotate-right", "#bar-more"):
        inside_viewport(page, selector)
    # A touch screen: no keyboard tips; no legend or banner over the cells.
    assert page.evaluate("matchMedia('(hover: none) and (pointer: coarse)').matches")
    assert page.evaluate("getComputedStyle(document.querySelector('.note.keys')).display") == "none"
    assert not page.locator(".legend").is_visible() and not page.locator(".banner").is_visible()
    no_sideways_scroll(page)

    # The first 40 turns (of 48) from another device while the page is closed (a page that
    # follows every move is another test's point); open again, the rest by taps.  (From there a
    # tap near the bottom edge zoomed in about the finger and left the chosen tile's lower side
    # off the screen: the board now moves it into view.)
    page.goto("about:blank")
    decide_elsewhere(server_url, made["id"], made["tokens"]["0"], until=lambda game: game["turn"] >= 40)
    page.goto(f"{server_url}/game/{made['id']}#t={made['tokens']['0']}")
    page.locator(".legal-cell").first.wait_for()
    rng = random.Random(5)
    moves = 0
    while not (shown := wait_turn(page))["over"]:
        cells = cells_in_view(page)
        x, y = cells[rng.randrange(len(cells))]
        old = shown["version"]
        page.touchscreen.tap(x, y)  # chooses the cell (or zooms in to it first: never places)
        page.locator(".ghost.selected").wait_for()
        # Each chosen tile is on the screen, clear of the bar, and so is Place.
        ghost = box(page, ".ghost.selected .ghost-outline")
        assert ghost["x"] >= 0 and ghost["y"] >= 0 and ghost["y"] + ghost["height"] <= height, ghost
        assert ghost["x"] + ghost["width"] <= bar["x"] + 1, (ghost, bar)
        inside_viewport(page, "#bar-place")
        if moves % 2:
            page.touchscreen.tap(x, y)  # a second tap on the same cell places
        else:
            page.locator("#bar-place").tap()
        wait_version_after(page, old)
        moves += 1
        assert moves < 200
    page.locator("#score-pad").wait_for()
    inside_viewport(page, "#pad-close")
    page.locator("#pad-close").tap()
    for selector in ("#bar-new", "#bar-replay"):
        inside_viewport(page, selector)
    no_sideways_scroll(page)
    assert not pages.errors, pages.errors


def test_late_in_a_game_on_a_phone_a_tap_on_small_cells_zooms_in_before_placing(
    server_url: str, pages: Pages
) -> None:
    table = Table(server_url, "coop", 8, ["Ann"], ("random",))
    table.play(44)  # a big landscape: fitted to a phone, its cells are smaller than a finger
    page = pages.new(*PHONE, touch=True)
    page.goto(table.page_url())
    page.locator(".legal-cell").first.wait_for()
    page.evaluate(STEADY)  # the board fits itself to its size
    before = page.evaluate(LEGAL_BOXES)
    assert max(h for _, h in before) < 44, before
    assert "zoom in" in page.locator("#bar-text").inner_text()
    cells = tappable_cells(page)
    x, y = cells[len(cells) // 2]
    old = version(page)
    page.touchscreen.tap(x, y)
    page.locator(".ghost.selected").wait_for()
    # The tap zoomed in about where it landed: every highlighted cell is now a finger's target.
    wait_until(page, f"({LEGAL_BOXES})().every(([w, h]) => w >= 44 && h >= 44)")
    assert version(page) == old  # the zoom never places
    ghost = box(page, ".ghost.selected .ghost-outline")
    assert ghost["x"] <= x <= ghost["x"] + ghost["width"] and ghost["y"] <= y <= ghost["y"] + ghost["height"]
    assert GAIN.search(page.locator("#bar-text").inner_text())  # the preview of the chosen cell
    page.touchscreen.tap(x, y)  # the same cell again, now large: placed
    wait_version_after(page, old)
    assert min(min(w, h) for w, h in page.evaluate(LEGAL_BOXES)) >= 44
    assert not pages.errors, pages.errors


def test_the_preview_says_where_in_words_and_edge_letters_wait_behind_the_switch(
    server_url: str, pages: Pages
) -> None:
    made = create(server_url, {"mode": "coop", "seed": 3, "seats": [{"kind": "here"}]})
    page = pages.wide()
    page.goto(f"{server_url}/game/{made['id']}#t={made['tokens']['0']}")
    page.locator(".legal-cell").first.wait_for()
    old = version(page)
    page.keyboard.press("n")
    page.keyboard.press("Enter")  # one tile on the board
    wait_version_after(page, old)
    page.locator(".legal-cell").first.click()
    title = page.locator("#preview-title")
    for _ in range(3):
        text = title.inner_text()
        assert re.fullmatch(rf"Place here, {TURNED}", text, re.I), text
        assert not re.search(r"-?\d+\s*,\s*-?\d+|rotation", text, re.I), text
        page.keyboard.press("r")
    # Edge letters on the tile's card, on the ghost tile and on the tile placed: none by default.
    letters = [".card-tile .edge-letter", ".ghost .edge-letter", ".lines .edge-letter"]
    assert [page.locator(s).count() for s in letters] == [0, 0, 0]
    page.locator(".letters-tool").click()
    assert [page.locator(s).count() for s in letters] == [6, 6, 6]
    page.locator(".letters-tool").click()
    assert page.locator(".edge-letter").count() == 0
    assert not pages.errors, pages.errors


def joins(a: str, b: str) -> bool:
    """Whether two facing edges join (as dorf.rules.area.contact_counts counts them)."""
    return a == b or (a == "X" and b in "FGV") or (b == "X" and a in "FGV")


def test_the_ghost_tile_marks_each_edge_that_meets_a_tile_joined_or_not(
    server_url: str, pages: Pages
) -> None:
    table = Table(server_url, "coop", 4, ["Ann"], ("random",))
    table.play(12)
    state = HTTP.get(f"{server_url}/api/games/{table.id}").json()
    edges_at = {tuple(t["at"]): t["edges"] for t in state["areas"][0]["tiles"]}
    face = state["revealed"][0]["face"]
    page = pages.wide()
    page.goto(table.page_url())
    page.locator(".legal-cell").first.wait_for()
    cells = page.locator(".legal-cell").evaluate_all("(cs) => cs.map((c) => c.dataset.at)")
    legal = [tuple(map(int, at.split(","))) for at in cells]

    def around(q: int, r: int) -> list[str | None]:
        """Per edge of cell (q, r), the letter of the tile edge it faces (None where no tile is)."""
        return [
            edges[(d + 3) % 6] if (edges := edges_at.get((q + dq, r + dr))) else None
            for d, (dq, dr) in enumerate(DIRECTIONS)
        ]

    seen = {"ok": 0, "bad": 0}
    # The cells with the most neighbours: there both kinds of marks show.
    for q, r in sorted(legal, key=lambda at: -sum(e is not None for e in around(*at)))[:3]:
        page.locator(f'.legal-cell[data-at="{q},{r}"]').click()
        page.mouse.move(5, 5)
        page.locator(".ghost.selected").wait_for()
        for _ in range(3):
            k = int(page.locator(".card-tile .rot-no").get_attribute("data-rot") or "0")
            edges = face[6 - k :] + face[: 6 - k] if k else face
            facing = around(q, r)
            ok = sum(1 for mine, theirs in zip(edges, facing, strict=True) if theirs and joins(mine, theirs))
            bad = sum(1 for theirs in facing if theirs) - ok
            shown = {kind: page.locator(f".ghost .edge-match.{kind}").count() for kind in ("ok", "bad")}
            assert shown == {"ok": ok, "bad": bad}, ((q, r), k, edges, facing, shown)
            seen["ok"] += ok
            seen["bad"] += bad
            page.keyboard.press("r")  # the next rotation that fits here
    assert seen["ok"] and seen["bad"], seen
    assert not pages.errors, pages.errors
