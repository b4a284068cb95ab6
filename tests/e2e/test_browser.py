"""Playing in a real browser: a whole solo game by clicking, and a Duel between two browsers."""

from __future__ import annotations

import json
import random
import re
from typing import Any

import pytest
from browsing import (
    GAIN,
    HTTP,
    Pages,
    create,
    decide_elsewhere,
    finished,
    place_by_clicking,
    start_from_lobby,
    tokens_of,
    version,
    wait_turn,
    wait_until,
    wait_version_after,
)

pytestmark = pytest.mark.slow


def what_it_shows(page: Any) -> dict[str, Any]:
    """What a page shows of a game: its version, tiles on each board, the log, the scores."""
    shown: dict[str, Any] = page.evaluate(
        """() => ({
          version: document.body.dataset.version,
          tiles: [...document.querySelectorAll('.area-pane')]
            .map((p) => p.querySelectorAll('.ground > g').length),
          log: [...document.querySelectorAll('.log li')].map((li) => li.textContent),
          score: document.querySelector('.card-score')?.textContent,
        })"""
    )
    # The score card names the longest river and track of the area in view, which is the page's
    # choice (the area of whoever placed last), not the game's.
    shown["score"] = re.sub(r"longest river \d+ · longest track \d+", "", shown["score"] or "")
    return shown


#: Whether the page's seat has a tile to place now, the game's version, and whether it is over.
TURN = """() => ({
  version: Number(document.body.dataset.version || -1),
  over: document.body.dataset.over === "1",
  moves: document.body.dataset.mine === "1" && !!document.querySelector(".legal-cell"),
})"""


def same_as_a_fresh_page(page: Any, fresh: Any) -> None:
    """A page that followed the game through deltas shows what a page opened now shows."""
    fresh.goto(page.url)
    fresh.locator(".card-turn").wait_for()
    wait_version_after(fresh, version(page) - 1)
    assert what_it_shows(page) == what_it_shows(fresh)
    fresh.close()


def open_solo_game(page: Any, server_url: str) -> None:
    """A solo game (as the lobby starts one by default, here made through the API: starting from
    the lobby is another test's point) opened in the page."""
    made = create(server_url, {"mode": "coop", "seats": [{"kind": "here"}]})
    page.goto(f"{server_url}/game/{made['id']}#t={made['tokens']['0']}")


def test_a_solo_game_by_clicking_to_the_score_pad(server_url: str, pages: Pages) -> None:
    page = pages.new()
    page.goto(server_url + "/")
    page.locator("#practice").check()  # undo is for practice games
    page.locator("#start").click()
    page.wait_for_url(re.compile(r"/game/"))
    page.locator(".legal-cell").first.wait_for()
    assert page.locator(".banner").inner_text().startswith("Your turn")
    assert page.locator("#undo-button").count() == 0  # nothing to take back at move 0

    # Rotating: the button, the R key and the mouse wheel all turn the tile.
    rotation = page.locator(".card-tile .rot-no")
    assert rotation.inner_text() == "as drawn"
    page.locator("#rotate-button").click()
    assert rotation.get_attribute("data-rot") == "1"
    page.keyboard.press("r")
    assert rotation.get_attribute("data-rot") == "2"
    page.mouse.move(300, 300)
    page.mouse.wheel(0, 120)
    wait_until(page, "document.querySelector('.card-tile .rot-no').dataset.rot === '3'")

    rng = random.Random(3)
    moves = 0
    while page.evaluate("document.body.dataset.over") != "1":
        place_by_clicking(page, rng)
        moves += 1
        if moves == 3:  # undo once in the middle of the game
            tiles = page.locator(".ground > g").count()
            old = version(page)
            page.get_by_role("button", name="↶ Undo").click()
            wait_version_after(page, old)
            assert page.locator(".ground > g").count() == tiles - 1
        if moves == 5:
            # The middle of the game from another device while the page is closed (a page that
            # follows every move is the Duel's point); open again, the end by clicks again.
            game_url = page.url
            game_id = game_url.split("/game/")[1].split("#")[0]
            tokens = tokens_of(page, game_id)
            page.goto("about:blank")
            decide_elsewhere(server_url, game_id, tokens, until=lambda game: game["turn"] >= 45)
            page.goto(game_url)
            page.locator(".legal-cell").first.wait_for()
        assert moves < 200
    pad = page.locator("#score-pad")
    pad.wait_for()
    assert "Final score" in pad.inner_text()
    total = pad.locator("tr.total td").inner_text()
    assert int(total) >= 0
    assert pad.get_by_role("link", name="Download record").get_attribute("href").endswith("/record")
    assert page.locator(".log li").count() >= moves - 1  # one was undone
    assert not pages.errors, pages.errors


def test_a_duel_between_two_browsers(server_url: str, pages: Pages) -> None:
    ann = pages.new()
    ann.goto(server_url + "/")
    ann.locator("label.mode", has_text="The Duel").click()
    ann.locator(".seat-name").nth(0).fill("Ann")
    ann.locator(".seat-kind").nth(1).select_option("online")
    ann.locator("#start").click()
    ann.wait_for_url(re.compile(r"/game/"))
    invite = ann.locator(".invite-link").input_value()
    watch = ann.locator(".watch-link").input_value()
    assert "/join/" in invite

    bob = pages.new()
    bob.goto(invite)
    bob.locator("#join-name").fill("Bob")
    bob.locator("#join-button").click()
    bob.wait_for_url(re.compile(r"/game/"))
    bob.locator(".legal-cell").first.wait_for()
    wait_until(ann, "document.querySelector('.card-share').textContent.includes('Bob has joined')")

    spectator = pages.new(900, 700)
    spectator.goto(watch)
    spectator.locator(".card-turn").wait_for()

    rng = random.Random(5)
    # Ann places first: her page says Bob is placing the same tile, on his board and on the tile card.
    place_by_clicking(ann, rng)
    wait_version_after(spectator, 1)  # the spectator was told that Ann placed, and sees no tile of hers
    assert what_it_shows(spectator)["tiles"] == [0, 0]
    same_as_a_fresh_page(spectator, spectator.context.new_page())
    assert "Bob is placing this tile" in ann.locator("#tile-whose").text_content()
    assert ann.locator('.area-pane[data-area="1"] .banner').inner_text() == "Bob is placing this tile"
    assert "Your turn" not in ann.locator('.area-pane[data-area="0"] .banner').inner_text()
    # The first rounds by clicking; the middle of the game from the players' other devices (over
    # the websocket, as a page plays), the spectator's page following every move meanwhile and
    # the players' pages closed (each page follows a move alike; drawing each of ~70 moves on three
    # pages is most of this test's time); the players open the game again and click the last
    # landscapes, all three pages following those moves.
    players = [ann, bob]
    game_id = ann.url.split("/game/")[1].split("#")[0]
    rounds = 0
    for _ in range(400):
        shown = [page.evaluate(TURN) for page in players]
        if all(s["over"] for s in shown):
            break
        if rounds == 3:
            tokens = tokens_of(ann, game_id) + tokens_of(bob, game_id)
            addresses = [page.url for page in players]
            for page in players:
                page.goto("about:blank")
            game = decide_elsewhere(server_url, game_id, tokens, until=lambda game: game["left"][0][1] <= 1)
            for page, address in zip(players, addresses, strict=True):
                page.goto(address)
            for page in (*players, spectator):
                wait_version_after(page, game["version"] - 1)
            rounds += 1
            continue
        movers = [page for page, s in zip(players, shown, strict=True) if s["moves"]]
        for page in movers:
            place_by_clicking(page, rng)
        rounds += bool(movers)
        if not movers:  # a page has not heard of the last placement yet: wait for the one behind
            behind, seen = min(zip(players, shown, strict=True), key=lambda ps: ps[1]["version"])
            wait_version_after(behind, seen["version"])
    for page in players:
        page.locator("#score-pad").wait_for()
        assert re.search(r"wins|shared victory", page.locator("#score-pad").inner_text())
    wait_until(spectator, "document.body.dataset.over === '1'")
    same_as_a_fresh_page(spectator, spectator.context.new_page())
    same_as_a_fresh_page(ann, ann.context.new_page())
    same_as_a_fresh_page(bob, bob.context.new_page())
    assert "Game over" in spectator.locator("#turn-line").inner_text()
    assert spectator.locator(".card-turn").inner_text().count("You are watching") == 1
    assert not pages.errors, pages.errors


def test_head_to_head_draft_against_the_computer(server_url: str, pages: Pages) -> None:
    page = pages.new()
    start_from_lobby(page, server_url, "Head to Head")
    for _ in range(3):
        wait_until(page, "document.body.dataset.mine === '1'")
        old = version(page)
        page.locator("#draft-pool button.pool-tile").first.click()
        wait_version_after(page, old)
    wait_until(page, "document.querySelectorAll('.owned .pool-tile:not(.flag-tile)').length >= 6")
    assert page.locator(".owned .pool-tile.flag-tile").count() == 4  # two multicoloured flag tiles each
    assert not pages.errors, pages.errors


def test_the_replay_viewer_steps_through_a_finished_game(server_url: str, pages: Pages) -> None:

    made = HTTP.post(
        server_url + "/api/games",
        json={"mode": "coop", "seed": 4, "seats": [{"kind": "computer", "player": "random"}]},
    ).json()
    finished(server_url, made["id"])  # before the page opens it: no page draws each move
    page = pages.new()
    page.goto(f"{server_url}/game/{made['id']}")
    page.locator("#score-pad").wait_for()
    page.goto(f"{server_url}/replay/{made['id']}")
    label = page.locator("#step-label")
    label.wait_for()
    last = int(label.inner_text().split("/")[1])
    assert label.inner_text() == f"{last} / {last}"
    page.locator("#replay-back").click()
    assert label.inner_text() == f"{last - 1} / {last}"
    assert page.locator(".ground > g").count() == last - 1 or page.locator(".ground > g").count() < last
    page.keyboard.press("ArrowRight")
    assert page.locator(".ground > g").count() >= 1
    assert not pages.errors, pages.errors


def test_playing_with_the_keyboard_alone(server_url: str, pages: Pages) -> None:
    page = pages.new()
    open_solo_game(page, server_url)
    page.locator(".legal-cell").first.wait_for()
    for _ in range(4):
        old = version(page)
        page.keyboard.press("n")
        page.locator("#place-button").wait_for()
        page.keyboard.press("Shift+R")
        page.keyboard.press("Enter")
        wait_version_after(page, old)
    assert page.locator(".ground > g").count() == 4
    assert not pages.errors, pages.errors


def test_the_next_tile_is_placeable_before_the_last_moves_ok_arrives(server_url: str, pages: Pages) -> None:
    # The server sends the game's new state before its "ok" for the move: a player who sees the
    # next tile may place it at once. Here every "ok" is held back, so that order happens each time.
    page = pages.new()
    held: list[str] = []

    def relay(ws: Any) -> None:
        server = ws.connect_to_server()

        def forward(message: str | bytes) -> None:
            if isinstance(message, str) and json.loads(message).get("type") == "ok":
                held.append(message)
            else:
                ws.send(message)

        server.on_message(forward)

    page.route_web_socket(re.compile(r"/ws"), relay)
    open_solo_game(page, server_url)
    page.locator(".legal-cell").first.wait_for()
    for _ in range(3):
        old = version(page)
        page.keyboard.press("n")
        page.keyboard.press("Enter")
        wait_version_after(page, old)
    assert page.locator(".ground > g").count() == 3
    assert len(held) == 3
    assert not pages.errors, pages.errors


def test_each_page_loads_only_the_modules_it_uses(server_url: str, pages: Pages) -> None:
    loaded: dict[str, set[str]] = {}
    page = pages.new()  # one page going from path to path: a module the cache holds is requested too
    names: set[str] = set()
    page.on("request", lambda r: names.add(r.url.rsplit("/", 1)[-1]))
    for path in ("/campaigns", "/", "/replay"):
        names.clear()
        page.goto(server_url + path)
        page.wait_for_load_state("networkidle")
        loaded[path] = {n for n in names if n.endswith(".js")}
    # i18n.js: the words of the page's language; players.js: the header's player (every page has
    # them); attention.js: what waits for the player elsewhere, said in the tab (issue 63).
    shared = {"main.js", "i18n.js", "players.js", "util.js", "attention.js"}
    assert loaded["/campaigns"] == {*shared, "campaigns.js"}
    assert "game.js" not in loaded["/"] and "board.js" not in loaded["/"] and "lobby.js" in loaded["/"]
    assert "game.js" not in loaded["/replay"] and "replay.js" in loaded["/replay"]
    assert not pages.errors, pages.errors


def test_the_seed_is_not_offered_with_an_online_seat(server_url: str, pages: Pages) -> None:
    page = pages.new()
    page.goto(server_url + "/")
    page.locator("label.mode", has_text="The Duel").click()
    page.locator("details summary").click()
    assert page.locator("#seed").is_enabled()
    page.locator(".seat-kind").nth(1).select_option("online")
    assert page.locator("#seed").is_disabled()
    assert page.locator("#seed").get_attribute("placeholder") == "drawn by the server"
    page.locator(".seat-kind").nth(1).select_option("here")
    assert page.locator("#seed").is_enabled()
    assert not pages.errors, pages.errors


def test_a_hint_against_the_computer_is_shown_though_the_computer_moved_meanwhile(
    server_url: str, pages: Pages
) -> None:

    # A computer that thinks about a second: its hidden placement comes while the coach thinks.
    seats = [{"kind": "here"}, {"kind": "computer", "player": "search:1s"}]
    made = HTTP.post(server_url + "/api/games", json={"mode": "head-to-head", "seats": seats}).json()
    # The draft but its last picks from another device of the seat's, the computer picking between.
    decide_elsewhere(server_url, made["id"], made["tokens"]["0"], until=lambda game: len(game["pool"]) <= 2)
    page = pages.wide()
    page.goto(f"{server_url}/game/{made['id']}#t={made['tokens']['0']}")
    hints = 0
    while hints < 1:  # one hint, once the draft is done
        shown = wait_turn(page)
        old = shown["version"]
        if shown["phase"] == "draft":
            page.locator("#draft-pool button.pool-tile").first.click()
            wait_version_after(page, old)
            continue
        page.locator("#hint-button").click()
        # The coach thinks for a second or so: the button says so meanwhile, and cannot be pressed twice.
        assert page.locator("#hint-button").inner_text() in ("Thinking…", "Hint")
        hint = page.locator("#hint-text")
        hint.wait_for(timeout=20_000)  # never silently dropped when the computer placed meanwhile
        assert "bad" not in (hint.get_attribute("class") or ""), hint.inner_text()
        assert page.locator("#hint-button").inner_text() == "Hint"
        page.locator(".ghost.selected").wait_for()
        page.locator("#place-button").click()
        wait_version_after(page, old)
        hints += 1
    assert not pages.errors, pages.errors


@pytest.mark.parametrize("size", [(360, 740), (390, 844)])
def test_both_scores_stay_visible_on_a_phone(server_url: str, pages: Pages, size: tuple[int, int]) -> None:

    seats = [{"kind": "here", "name": "Annemarie-Louise"}, {"kind": "computer", "player": "random"}]
    made = HTTP.post(server_url + "/api/games", json={"mode": "duel", "seats": seats}).json()
    page = pages.new(*size, touch=True)
    page.goto(f"{server_url}/game/{made['id']}#t={made['tokens']['0']}")
    page.locator(".area-tabs .tab").first.wait_for()
    boxes = page.evaluate(
        """() => [...document.querySelectorAll('.area-tabs .tab')].map((tab) => {
            const score = tab.querySelector('.tab-score');
            const t = tab.getBoundingClientRect(), s = score.getBoundingClientRect();
            return { tab: [t.left, t.right], score: [s.left, s.right], text: score.textContent };
        })"""
    )
    assert len(boxes) == 2
    for box in boxes:
        assert box["text"].strip().startswith("·") and box["text"].strip()[1:].strip().isdigit(), box
        assert box["tab"][0] <= box["score"][0] and box["score"][1] <= box["tab"][1] + 0.5, box  # not cut
        assert box["tab"][1] <= size[0] + 0.5, box  # on the screen
    assert not pages.errors, pages.errors


def test_on_a_phone_the_hint_keeps_the_score_preview_and_adds_its_reason(
    server_url: str, pages: Pages
) -> None:

    body = {"mode": "coop", "seed": 3, "practice": True, "seats": [{"kind": "here"}]}
    made = HTTP.post(server_url + "/api/games", json=body).json()
    page = pages.new(390, 844, touch=True)
    page.goto(f"{server_url}/game/{made['id']}#t={made['tokens']['0']}")
    page.locator(".legal-cell").first.wait_for()
    page.locator("#bar-hint").tap()
    page.locator(".ghost.selected").wait_for()  # the coach's placement, shown on the board
    page.locator("#bar-text", has_text=GAIN).wait_for()  # with the score it gives
    words = page.evaluate("document.getElementById('hint-text').textContent").removeprefix("Coach: ")
    bar = page.locator("#bar-text").inner_text()
    assert words and words in bar, (words, bar)
    assert page.locator("#bar-hint").inner_text() == "Hint"
    assert not pages.errors, pages.errors
