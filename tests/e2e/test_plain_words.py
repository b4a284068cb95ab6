"""What players met (issue 61) in real Chromium, in English and German: another's daily board
speaks of its player by name and offers no practice, and a closed day links the expert's board;
the log and the replay say tiles in words with the tile drawn small; the turn of the tile is said
among the turns that fit; the phone's preview says what the desktop's does, in short; an unknown
player's page and the German header on a phone; a computer level named alike everywhere; the
seekers of quick pairing see how many look in each pool, and how long they have waited.

With ``DORF_SHOTS=DIR`` each test leaves screenshots of what it looked at in DIR."""

from __future__ import annotations

import os
import random
import re
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from browsing import PHONE, WIDE, Pages, create, decide_elsewhere, finished, place_by_clicking

from dorf.testing.servers import launch

pytestmark = pytest.mark.slow  # a real browser

DAY, NEXT = "2026-12-02", "2026-12-03"
GAME_URL = re.compile(r"/game/[^/#]+")
#: An engine's code for a tile ("GGGGTT"): never in the words a person reads.
CODE = re.compile(r"\b[FGVMRTLPX]{6}\b")
#: "turn 2 of 4 that fit" (or "the only turn that fits"): never "rotation 3".
TURN_EN = re.compile(r"^(turn \d of \d that fit|the only turn that fits)$")
TURN_DE = re.compile(r"^(passende Drehung \d von \d|die einzige passende Drehung)$")


def shot(page: Any, name: str) -> None:
    """A screenshot for the eye (``DORF_SHOTS``), none otherwise."""
    folder = os.environ.get("DORF_SHOTS")
    if folder:
        Path(folder).mkdir(parents=True, exist_ok=True)
        size = page.viewport_size or {"width": 0}
        page.screenshot(path=str(Path(folder) / f"{name}-{size['width']}.png"))


def speak(page: Any, lang: str) -> None:
    """The page again in ``lang``, as the EN/DE switch leaves it (remembered by the browser)."""
    page.evaluate(f"localStorage.setItem('dorf.lang', '{lang}')")
    page.reload()


@pytest.fixture
def daily(tmp_path: Path) -> Iterator[tuple[str, Path]]:
    """A server whose today is the date in a file (the test turns the day by writing it)."""
    today = tmp_path / "today"
    today.write_text(DAY + "\n")
    settings = {"ai_delay": 0, "today_file": today, "daily_expert": "greedy", "daily_coach": "planner:1"}
    with launch(tmp_path / "dorf.sqlite3", **settings) as server:
        yield server.url, today


def test_another_players_daily_board_speaks_of_them_and_the_expert_board_is_linked(
    pages: Pages, daily: tuple[str, Path]
) -> None:
    url, today = daily
    # Ann plays her daily game from a client of her own (her cookie makes her a player): her
    # page is not what this test looks at.
    with httpx.Client(base_url=url, timeout=30.0) as ann:
        me = ann.post("/api/me", json={}).json()
        made = ann.post("/api/daily", json={}).json()
        decide_elsewhere(url, made["id"], made["tokens"]["0"])
        for _ in range(600):  # the expert's game, played in the think pool
            if ann.get("/api/daily").json()["expert"] is not None:
                break
            time.sleep(0.1)
    today.write_text(NEXT + "\n")

    # Cy, who is not Ann, views her board from the closed day's page (the expert's linked too).
    for size, lang in ((WIDE, "en"), (PHONE, "de")):
        cy = pages.new(*size, touch=size == PHONE, locale="de-DE" if lang == "de" else "en-US")
        cy.goto(f"{url}/daily/{DAY}")
        link = cy.locator("#daily-expert-board")
        link.wait_for()
        assert link.get_attribute("href") == f"/game/daily-expert-{DAY}"
        shot(cy, f"daily-day-{lang}")
        cy.locator(f'tr[data-name="{me["name"]}"] a.daily-board').click()
        cy.wait_for_url(re.compile(f"/game/{made['id']}$"))
        expert = cy.locator("#card-daily .daily-expert[data-expert]")
        expert.wait_for(state="attached")  # on a phone, in the sheet
        said = expert.text_content() or ""
        assert me["name"] in said, said
        if lang == "en":
            assert not re.search(r"\byou\b", said), said
        else:
            assert not re.search(r"\bdu\b", said), said
        texts = cy.locator("#card-daily, #daily-end").all_text_contents()
        assert not any("(practice)" in text or "(Übung)" in text for text in texts), texts
        assert cy.locator("#daily-again").count() == 0
        shot(cy, f"daily-another-{lang}")
        # The expert's own board: its game of the day, said to be the expert's.
        cy.goto(f"{url}/game/daily-expert-{DAY}")
        cy.locator("#daily-expert-own").wait_for(state="attached")
        shot(cy, f"daily-expert-board-{lang}")
    assert not pages.errors, pages.errors


def test_the_log_and_the_turn_speak_in_words(server_url: str, pages: Pages) -> None:
    made = create(server_url, {"mode": "coop", "seed": 5, "seats": [{"kind": "here", "name": "Lea"}]})
    tokens = ",".join(made["tokens"].values())
    page = pages.wide()
    page.goto(f"{server_url}/game/{made['id']}#t={tokens}")
    page.locator(".legal-cell").first.wait_for()
    turn = page.locator(".card-tile .rot-no")
    assert turn.inner_text() == "as drawn"  # no cell chosen: how it is turned, in words
    # A cell chosen: which of the turns that fit there (never the engine's rotation number).
    page.locator(".legal-cell").first.click()
    page.locator(".card-preview .score-delta").wait_for()
    assert TURN_EN.match(turn.inner_text()), turn.inner_text()
    page.keyboard.press("r")
    assert TURN_EN.match(turn.inner_text()), turn.inner_text()
    shot(page, "game-turn-en")
    page.keyboard.press("Escape")
    place_by_clicking(page, random.Random(2))
    line = page.locator(".card-log ol.log li").first
    line.locator(".log-tile svg").wait_for()
    text = line.inner_text()
    assert re.search(r"Lea placed an? .+ tile", text) and not CODE.search(text), text
    assert re.search(r", a [A-Z][a-z]+(/[A-Za-z]+)? \d+ task$", text), text  # the first tile's task
    shot(page, "game-log-en")

    speak(page, "de")
    line = page.locator(".card-log ol.log li").first
    line.locator(".log-tile svg").wait_for()
    assert re.search(r"Lea legte ein Plättchen mit .+, Aufgabe \S+ \d+$", line.inner_text()), (
        line.inner_text()
    )
    page.locator(".legal-cell").first.click()
    page.locator(".card-preview .score-delta").wait_for()
    assert TURN_DE.match(turn.inner_text()), turn.inner_text()
    shot(page, "game-log-de")
    assert not pages.errors, pages.errors


def test_the_phone_preview_says_the_points_tasks_and_longest_changes_in_short(
    server_url: str, pages: Pages
) -> None:
    made = create(server_url, {"mode": "coop", "seed": 5, "seats": [{"kind": "here", "name": "Lea"}]})
    tokens = ",".join(made["tokens"].values())
    phone = pages.phone()
    phone.goto(f"{server_url}/game/{made['id']}#t={tokens}")
    phone.locator(".legal-cell").first.wait_for()
    phone.locator(".legal-cell").first.tap()
    bar = phone.locator("#bar-text")
    bar.filter(has_text=re.compile(r"[+-]\d+ points?")).wait_for()
    assert "→ " not in bar.inner_text().split(" · ")[0], bar.inner_text()
    shot(phone, "game-phone-preview-en")
    speak(phone, "de")
    phone.locator(".legal-cell").first.wait_for()
    phone.locator(".legal-cell").first.tap()
    bar.filter(has_text=re.compile(r"[+-]\d+ Punkte?")).wait_for()
    shot(phone, "game-phone-preview-de")
    assert not pages.errors, pages.errors


def test_the_replay_says_each_move_in_words_with_the_tile_drawn_small(server_url: str, pages: Pages) -> None:
    page = pages.wide()
    done = create(
        server_url, {"mode": "coop", "seats": [{"kind": "computer", "player": "random", "name": "Robo"}]}
    )
    finished(server_url, done["id"])
    page.goto(f"{server_url}/replay/{done['id']}")
    first = page.locator("ol.log li[data-step='1']")
    first.locator(".log-tile svg").wait_for()
    assert re.search(r"Robo placed an? .+ tile", first.inner_text()), first.inner_text()
    assert not CODE.search(page.locator("ol.log").inner_text())
    shot(page, "replay-en")
    speak(page, "de")
    first.locator(".log-tile svg").wait_for()
    assert re.search(r"Robo legte ein Plättchen mit ", first.inner_text()), first.inner_text()
    assert not CODE.search(page.locator("#step-text").inner_text())
    shot(page, "replay-de")
    assert not pages.errors, pages.errors


def test_an_unknown_player_a_computer_level_and_the_german_header_on_a_phone(
    server_url: str, pages: Pages
) -> None:
    for lang, said in (
        ("de-DE", "Es gibt keinen Spieler 'NobodyHere'."),
        ("en-US", "there is no player 'NobodyHere'"),
    ):
        page = pages.new(*PHONE, touch=True, locale=lang)
        page.goto(server_url + "/@/NobodyHere")
        page.locator(".player-page .card p").filter(has_text="NobodyHere").wait_for()
        assert page.locator(".player-page .card p").inner_text() == said
        page.locator("#me-link").wait_for()
        # The header on one line: its menu, the language switch and the player's link side by side.
        tops = page.evaluate(
            "[...document.querySelectorAll('header.topbar nav, header.topbar .lang-switch, #me-link')]"
            ".map((e) => Math.round(e.getBoundingClientRect().top))"
        )
        assert max(tops) - min(tops) <= 8, tops
        shot(page, f"player-unknown-{lang[:2]}")

    # A rated Duel against the easy computer: "Computer (Easy)" in the game as on the profile.
    page = pages.wide()
    page.goto(server_url + "/")
    page.context.request.post(server_url + "/api/me", data={})
    body = {
        "mode": "duel",
        "rated": True,
        "seats": [{"kind": "here"}, {"kind": "computer", "player": "easy"}],
    }
    duel = page.context.request.post(server_url + "/api/games", data=body).json()
    page.goto(f"{server_url}/game/{duel['id']}#t={','.join(duel['tokens'].values())}")
    seats = page.locator(".card-turn ul.seats")
    seats.filter(has_text="Computer (Easy)").wait_for()
    assert "Computer (easy)" not in seats.inner_text() and "easy" not in seats.inner_text()
    shot(page, "game-computer-en")
    speak(page, "de")
    seats.filter(has_text="Computer (Leicht)").wait_for()
    # the unknown player's 404, and nothing else
    assert all("/api/players/NobodyHere" in error for error in pages.errors), pages.errors


def test_seekers_see_how_many_look_in_each_pool_and_how_long_they_waited(
    server_url: str, pages: Pages
) -> None:
    ann, bob = pages.wide(), pages.new(*PHONE, touch=True, locale="de-DE")
    for page, clock in ((ann, "15+10"), (bob, "1d")):
        page.goto(server_url + "/")
        page.locator("#pair-mode").select_option("duel")
        page.locator(f'button.clock-choice[data-clock="{clock}"]').click()
        page.locator("#pair-rated").check()
    ann.locator("#seek").click()
    ann.locator("#seek-waited").filter(has_text=re.compile(r"^Waiting \d+:\d\d$")).wait_for()
    # Bob, choosing another clock, learns that someone waits with 15+10 (how many, never who).
    pool = bob.locator('#seek-pools .seek-pool[data-clock="15+10"][data-rated="true"]')
    pool.wait_for()
    assert pool.get_attribute("data-count") == "1"
    assert bob.locator('button.clock-choice[data-clock="15+10"] .looking-count').inner_text() == "1"
    assert "Gerade suchen:" in bob.locator("#seek-pools").inner_text()
    bob.locator("#seek").click()
    bob.locator("#seek-waited").filter(has_text=re.compile(r"^Wartet seit \d+:\d\d$")).wait_for()
    ann.locator('#seek-pools .seek-pool[data-clock="1d"][data-count="1"]').wait_for()
    assert ann.locator('button.clock-choice[data-clock="1d"] .looking-count').inner_text() == "1"
    shot(ann, "lobby-seekers-en")
    shot(bob, "lobby-seekers-de")
    ann.locator("#seek-cancel").click()
    pool.wait_for(state="detached")  # Ann stopped looking: Bob's page says so
    assert ann.locator("#seek-waited").inner_text() == ""
    bob.locator("#seek-cancel").click()
    assert not pages.errors, pages.errors
