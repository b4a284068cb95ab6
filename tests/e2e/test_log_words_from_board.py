"""The log in words from the state the page holds (issues 60 and 61), in real Chromium, in English
and German: a log line carries no copy of its tile or task (a move must not pay for them), and
the page still says every line in words with its tile drawn small, reading the placed tile from
the area's tiles, the tile taken in the Head to Head draft from the seat's ``owned`` tiles and a
completed or failed task from the area's tasks (``boardLog`` in web/words.js)."""

from __future__ import annotations

import re
from typing import Any

import pytest
from browsing import HTTP, Pages, create, finished

pytestmark = pytest.mark.slow  # a real browser

#: An engine's code for a tile ("GGGGTT"): never in the words a person reads.
CODE = re.compile(r"\b[FGVMRTLPX]{6}\b")


def _watch(pages: Pages, url: str, game_id: str, lang: str) -> Any:
    page = pages.wide()
    page.goto(url + "/")
    page.evaluate(f"localStorage.setItem('dorf.lang', '{lang}')")
    page.goto(f"{url}/game/{game_id}")
    page.locator(".card-log ol.log li").first.wait_for(state="attached")
    return page


def _computers(mode: str, seed: int) -> dict[str, Any]:
    seats = [{"kind": "computer", "player": "random", "name": name} for name in ("Robo", "Mia")]
    return {"mode": mode, "seed": seed, "seats": seats}


def test_the_draft_of_the_log_is_said_from_the_state(server_url: str, pages: Pages) -> None:
    draft = create(server_url, _computers("head-to-head", 3))
    finished(server_url, draft["id"])
    drafted = HTTP.get(f"{server_url}/api/games/{draft['id']}").json()["log"]
    taken = sum(1 for line in drafted if line["kind"] == "pick")
    assert all(set(line) == {"turn", "seat", "kind", "text"} for line in drafted if line["kind"] == "pick")
    assert all("tile" not in line for line in drafted if line["kind"] == "place")
    for lang, took in (
        ("en", r"^\d+(Robo|Mia) took an? .+ tile"),
        ("de", r"^\d+(Robo|Mia) nahm ein Plättchen mit "),
    ):
        page = _watch(pages, server_url, draft["id"], lang)
        picks = page.locator(".card-log ol.log li.log-pick")
        assert picks.count() == taken > 0
        for line in (picks.first, picks.last):
            line.locator(".log-tile svg").wait_for(state="attached")
            text = line.inner_text().replace("\n", "")
            assert re.search(took, text) and not CODE.search(text), text
        placed = page.locator(".card-log ol.log li.log-place").last
        placed.locator(".log-tile svg").wait_for(state="attached")
        assert not CODE.search(page.locator(".card-log ol.log").inner_text())
    assert not pages.errors, pages.errors


def test_the_tasks_of_the_log_are_said_from_the_state(server_url: str, pages: Pages) -> None:
    duel = create(server_url, _computers("duel", 5))
    finished(server_url, duel["id"])
    log = HTTP.get(f"{server_url}/api/games/{duel['id']}").json()["log"]
    done = [line for line in log if line["kind"] in ("completed", "failed")]
    assert done and all("task" not in line and "at" in line for line in done), done
    assert all("tile" not in line for line in log if line["kind"] == "place")
    for lang, task in (
        ("en", r"(completed|failed) the [A-Z][a-z]+ \d+ task$"),
        ("de", r"(erfüllte|verfehlte) die Aufgabe [A-Z]\w+ \d+$"),
    ):
        page = _watch(pages, server_url, duel["id"], lang)
        lines = page.locator(".card-log ol.log li.log-completed, .card-log ol.log li.log-failed")
        assert lines.count() == len(done)
        text = lines.first.inner_text().replace("\n", "")
        assert re.search(task, text) and not CODE.search(text), text
        assert page.locator(".card-log ol.log li.log-place .log-tile svg").count() > 40
    assert not pages.errors, pages.errors
