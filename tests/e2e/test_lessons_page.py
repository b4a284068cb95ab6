"""The coach's lessons at the end of a daily game, in real Chromium on a phone (issue 61, item 13):
the list reads on a 390 x 844 screen without sideways scrolling, in words a player uses; "Show"
puts the lesson on the board as its legend says (the coach's cell gold, yours dashed), with both
cells in view, for the coach's placement and for yours.  Pictures go to ``$DORF_SHOTS``."""

from __future__ import annotations

import datetime
import os
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from browsing import PHONE, Pages, no_sideways_scroll, tokens_of
from test_daily_page import GAME_URL, play, speak, started
from test_daily_page import first as first_legal

from dorf.testing.servers import launch

pytestmark = pytest.mark.slow
TODAY = datetime.datetime.now(datetime.UTC).date().isoformat()

#: A cell's outline and a legend's key, as drawn: the stroke's colour and whether it is dashed.
STYLE = """(node) => {
  const s = getComputedStyle(node);
  return [s.stroke, s.strokeDasharray !== "none" && s.strokeDasharray !== ""];
}"""
KEY = """(node) => {
  const s = getComputedStyle(node, "::before");
  return [s.borderTopColor, s.borderTopStyle === "dashed"];
}"""


@pytest.fixture
def server(tmp_path: Path) -> Iterator[str]:
    """A server whose coach is a quick planner (the lessons in about a second)."""
    today = tmp_path / "today"
    today.write_text(TODAY + "\n")
    settings = {"ai_delay": 0, "today_file": today, "daily_expert": "greedy", "daily_coach": "planner:1"}
    with launch(tmp_path / "dorf.sqlite3", page_policy=True, **settings) as launched:
        yield launched.url


def shoot(page: Any, name: str) -> None:
    """A screenshot for the eye (``DORF_SHOTS``), none otherwise."""
    folder = os.environ.get("DORF_SHOTS")
    if folder:
        Path(folder).mkdir(parents=True, exist_ok=True)
        page.screenshot(path=str(Path(folder) / f"{name}.png"))


def inside(page: Any, selector: str, box: dict[str, float]) -> None:
    """Every node of ``selector`` lies within ``box`` (the lesson's board, as shown)."""
    for node in page.locator(selector).all():
        cell = node.bounding_box()
        assert cell is not None, selector
        middle = (cell["x"] + cell["width"] / 2, cell["y"] + cell["height"] / 2)
        assert box["x"] <= middle[0] <= box["x"] + box["width"], (selector, cell, box)
        assert box["y"] <= middle[1] <= box["y"] + box["height"], (selector, cell, box)


def rgb(colour: str) -> tuple[int, ...]:
    return tuple(int(x) for x in re.findall(r"\d+", colour)[:3])


def test_the_lessons_read_on_a_phone_and_show_both_cells_as_the_legend_says(
    pages: Pages, server: str
) -> None:
    page = pages.new(*PHONE, touch=True)
    page.goto(server + "/")
    page.locator("#daily-play").wait_for()
    # A player first (POST /api/me), as a visitor becomes one (reading pages makes nobody).
    assert page.evaluate(
        "fetch('/api/me', {method: 'POST', headers: {'Content-Type': 'application/json'}, body: '{}'})"
        ".then((r) => r.status)"
    ) in (200, 201)
    made = started(page, "#daily-play")
    gid = GAME_URL.search(page.url).group(1)  # type: ignore[union-attr]
    assert gid == made["id"]
    # The first legal placement each turn: a long line, so that a lesson's two cells lie far apart.
    token = tokens_of(page, gid)[0]
    play(server, gid, token, first_legal)
    end = page.locator("#daily-end")
    end.locator("li.lesson").first.wait_for(timeout=45_000)
    lessons = page.context.request.post(f"{server}/api/games/{gid}/lessons", data={"token": token}).json()[
        "lessons"
    ]
    assert lessons and end.locator("li.lesson").count() == len(lessons)
    # In a player's words: a lead line, then what the coach's placement does, one reason a line.
    first = end.locator("li.lesson").first
    assert first.locator(".lesson-why").inner_text().startswith("The coach's placement")
    assert first.locator(".lesson-reasons li").count() == len(lessons[0]["reasons"])
    for text in end.locator(".lesson-reasons li").all_inner_texts():
        assert "the other" not in text and "sampled" not in text and "cell fewer" not in text, text
    no_sideways_scroll(page)
    shoot(page, "lessons-en-phone-list")

    # Show each lesson whose two cells differ: both in view, drawn as the legend says.
    def apart(lesson: dict[str, Any]) -> int:
        (q, r), (cq, cr) = lesson["played"]["at"], lesson["preferred"]["at"]
        return (abs(q - cq) + abs(r - cr) + abs(q + r - cq - cr)) // 2

    farthest = max(range(len(lessons)), key=lambda i: apart(lessons[i]))
    for i in [farthest]:
        end.locator("li.lesson .lesson-show").nth(i).tap()
        board = page.locator("#lesson-board")
        board.locator(".ghost").first.wait_for()
        for mine in (False, True):
            if mine:
                page.locator("#lesson-yours").tap()
                page.locator("#lesson-yours[aria-pressed=true]").wait_for()
                board.locator(".ghost").first.wait_for()
            box = board.bounding_box()
            assert box is not None
            inside(page, "#lesson-board .lesson-preferred, #lesson-board .lesson-played", box)
            coach = board.locator(".lesson-preferred").evaluate(STYLE)
            coach_key = page.locator(".lesson-key.preferred").evaluate(KEY)
            assert rgb(coach[0]) == rgb(coach_key[0]) and not coach[1] and not coach_key[1]
            if lessons[i]["played"]["at"] != lessons[i]["preferred"]["at"]:
                yours = board.locator(".lesson-played").evaluate(STYLE)
                yours_key = page.locator(".lesson-key.played").evaluate(KEY)
                assert yours[1] and yours_key[1] and rgb(yours[0]) == rgb(yours_key[0])
            # The tile shown is outlined only as the legend says (no gold selection of its own).
            assert board.locator(".ghost.selected").count() == 0
            no_sideways_scroll(page)
            shoot(page, f"lessons-en-phone-show-{'yours' if mine else 'coach'}-{apart(lessons[i])}-apart")

    # In German: the lead line and every reason in German words (read from the server's English).
    english = end.locator(".lesson-reasons li").all_inner_texts()
    speak(page, "de")
    end.locator("li.lesson").first.wait_for(timeout=30_000)
    assert end.locator(".lesson-why").first.inner_text().startswith("Der Platz des Coachs")
    german = end.locator(".lesson-reasons li").all_inner_texts()
    assert len(german) == len(english)
    assert all(g != e for g, e in zip(german, english, strict=True)), german
    no_sideways_scroll(page)
    shoot(page, "lessons-de-phone-list")
