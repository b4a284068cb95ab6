"""Issue 25, item 8: accessibility.

axe-core (the copy the PyPI package axe-playwright-python ships) checks every screen on a phone and
on a wide screen: the lobby, a cooperative game in play, the Duel against the computer, the Head to
Head draft, the score pad at the end of a game, the campaigns and the replay.  A violation of impact
serious or critical fails; the others are named in the message.  Then the problems found by hand:
the score pad is a named dialog that takes the focus and gives it back, the link fields have labels,
the seat names are readable, and the game page has its one h1.
"""

from __future__ import annotations

import re
from functools import cache
from pathlib import Path
from typing import Any

import pytest
from browsing import HTTP, PHONE, WIDE, Pages, create, finished

pytestmark = pytest.mark.slow

#: axe's impacts that fail a test; the others (moderate, minor) are only reported.
FAILING = ("serious", "critical")
SIZES = pytest.mark.parametrize("size", [WIDE, PHONE], ids=["wide", "phone"])


@cache
def axe_source() -> str:
    import axe_playwright_python

    return (Path(axe_playwright_python.__file__).parent / "axe.min.js").read_text(encoding="utf-8")


def axe_violations(page: Any, rules: tuple[str, ...] = ()) -> list[dict[str, Any]]:
    """What axe finds wrong on the page as it is now (only ``rules``, when given)."""
    return _violations(page, rules)


def _violations(page: Any, rules: tuple[str, ...] = (), within: tuple[str, ...] = ()) -> list[dict[str, Any]]:
    """axe's violations on the page, or only in the parts ``within`` selects (their elements and
    what is in them: the document's own rules, such as its title and language, are left out)."""
    # Evaluated rather than added as a <script>: served with its Content-Security-Policy, a page
    # refuses inline scripts.
    if not page.evaluate("typeof window.axe === 'object'"):
        page.evaluate(axe_source() + "\n;0")
    options: dict[str, Any] = {"resultTypes": ["violations"]}
    if rules:
        options["runOnly"] = {"type": "rule", "values": list(rules)}
    # Only the violations come back: axe's whole answer (every rule that passed, with a node of
    # each) is many times larger, and crosses from the page to the test for nothing.
    violations: list[dict[str, Any]] = page.evaluate(
        "([within, options]) => axe.run(within.length ? { include: within.map((s) => [s]) } : document,"
        " options).then((found) => found.violations)",
        [list(within), options],
    )
    return violations


class Audit:
    """axe's findings on the screens of one test: ``check`` after each screen, ``done`` at the end."""

    def __init__(self, page: Any) -> None:
        self.page = page
        # axe in every document the page opens, from the browser's own copy: not sent again for
        # each screen (an init script is not the page's, so its Content-Security-Policy allows it).
        page.add_init_script(script=axe_source() + "\n;0")
        self.lines: list[str] = []
        self.failing = 0

    def check(self, screen: str, within: tuple[str, ...] = ()) -> None:
        """axe on the page as it is now; only in the parts ``within`` selects when the rest is as
        the next check sees it (a dialog opened over the page, which is checked once it is
        closed)."""
        if within:  # each part is there: a check of nothing would find nothing
            assert all(self.page.locator(part).count() for part in within), (screen, within)
        for v in _violations(self.page, within=within):
            where = ", ".join(" ".join(node["target"]) for node in v["nodes"][:4])
            self.lines.append(f"{screen}: [{v['impact']}] {v['id']}: {v['help']} ({where})")
            self.failing += v["impact"] in FAILING

    def done(self) -> None:
        assert not self.failing, "axe found:\n" + "\n".join(self.lines)


def computers(count: int, seed: int) -> dict[str, Any]:
    """A cooperative game the computer plays to its end by itself."""
    seats = [{"kind": "computer", "player": "random", "name": f"P{i + 1}"} for i in range(count)]
    return {"mode": "coop", "seed": seed, "seats": seats}


def open_game(page: Any, server_url: str, made: dict[str, Any]) -> None:
    tokens = ",".join(made["tokens"].values())
    page.goto(f"{server_url}/game/{made['id']}" + (f"#t={tokens}" if tokens else ""))


def press(page: Any, selector: str) -> None:
    """A tap on a phone, a click elsewhere."""
    target = page.locator(selector)
    if page.evaluate("matchMedia('(pointer: coarse)').matches"):
        target.tap()
    else:
        target.click()


def contrast(foreground: str, background: str) -> float:
    """WCAG's contrast ratio of two colours, each ``#rrggbb`` or ``rgb(r, g, b)``."""

    def luminance(colour: str) -> float:
        if colour.startswith("#"):
            channels = [int(colour[i : i + 2], 16) for i in (1, 3, 5)]
        else:
            channels = [int(float(x)) for x in re.findall(r"[\d.]+", colour)[:3]]
        scaled = [c / 255 for c in channels]
        linear = [c / 12.92 if c <= 0.03928 else ((c + 0.055) / 1.055) ** 2.4 for c in scaled]
        return 0.2126 * linear[0] + 0.7152 * linear[1] + 0.0722 * linear[2]

    light, dark = sorted((luminance(foreground), luminance(background)), reverse=True)
    return (light + 0.05) / (dark + 0.05)


def one_h1(page: Any, text: str | None = None) -> None:
    """The page has exactly one h1 (saying ``text``, when given)."""
    h1 = page.locator("h1")
    assert h1.count() == 1, page.url
    if text is not None:
        assert h1.text_content() == text, page.url


@pytest.fixture(scope="module")
def played(server_url: str) -> tuple[dict[str, Any], dict[str, Any]]:
    """Games the computer plays to their ends while the screens before them are looked at (at
    each size: they are only read): a cooperative one and a Duel."""
    robots = [{"kind": "computer", "player": "random", "name": n} for n in ("Ann", "Bob")]
    return create(server_url, computers(1, 6)), create(
        server_url, {"mode": "duel", "seed": 6, "seats": robots}
    )


@SIZES
def test_axe_finds_nothing_serious_on_any_screen_and_each_has_exactly_one_h1(
    server_url: str, pages: Pages, size: tuple[int, int], played: tuple[dict[str, Any], dict[str, Any]]
) -> None:
    phone = size == PHONE
    done, duel_done = played
    page = pages.new(*size, touch=phone)
    audit = Audit(page)

    page.goto(server_url + "/")
    page.locator("#start").wait_for()
    one_h1(page)
    audit.check("lobby")
    press(page, "label.mode:has-text('The Duel')")
    page.locator(".seat-kind").nth(1).select_option("online")
    press(page, "summary:has-text('More')")
    audit.check("lobby, the Duel with an online seat, More open")

    coop = create(server_url, {"mode": "coop", "seed": 3, "seats": [{"kind": "here", "name": "Ann"}]})
    duel = create(
        server_url,
        {
            "mode": "duel",
            "seed": 3,
            "seats": [{"kind": "here", "name": "Ann"}, {"kind": "computer", "player": "easy", "name": "Bob"}],
        },
    )
    against = [{"kind": "here"}, {"kind": "computer", "player": "random"}]
    draft = create(server_url, {"mode": "head-to-head", "seed": 3, "seats": against})
    for screen, made, ready in (
        ("cooperative game", coop, ".legal-cell"),
        ("Duel against the computer", duel, ".legal-cell"),
        ("Head to Head draft", draft, "#draft-pool .pool-tile"),
    ):
        open_game(page, server_url, made)
        page.locator(ready).first.wait_for()
        one_h1(page, HTTP.get(f"{server_url}/api/games/{made['id']}").json()["mode_name"])
        audit.check(screen)
        if phone:  # the panel is a sheet there
            press(page, "#bar-more")
            page.locator("#panel.open").wait_for()
            audit.check(f"{screen}, its sheet")
            press(page, ".sheet-close")

    for mode, made in (("cooperative", done), ("Duel", duel_done)):
        finished(server_url, made["id"])
        page.goto(f"{server_url}/game/{made['id']}")
        page.locator("#score-pad").wait_for(timeout=60_000)
        # The pad alone, over the finished game (inert behind it): the game is checked next,
        # the pad closed (the log of a whole game is most of axe's work on this page).
        audit.check(f"the score pad at the end of a {mode} game", within=(".modal",))
        press(page, "#pad-close")
        audit.check(f"a finished {mode} game")
        if phone:
            press(page, "#bar-more")
            page.locator("#panel.open").wait_for()
            audit.check(f"a finished {mode} game, its sheet")

    name = f"Accessible {size[0]}"
    page.request.post(server_url + "/api/campaigns", data={"name": name})  # this browser's campaign
    page.goto(server_url + "/campaigns")
    page.locator("#campaign-list li").first.wait_for()
    page.locator("#campaign-name").wait_for()
    one_h1(page)
    audit.check("campaigns")
    page.goto(f"{server_url}/campaigns/{name}")
    page.locator("#achievements").wait_for()
    audit.check("a campaign")

    page.goto(server_url + "/replay")
    page.locator("#record-file").wait_for()
    one_h1(page)
    audit.check("replay, no record yet")
    page.goto(f"{server_url}/replay/{done['id']}")
    page.locator("#step-label").wait_for()
    audit.check("replay of a finished game")
    audit.done()
    assert not pages.errors, pages.errors


@pytest.fixture(scope="module")
def six_computers(server_url: str) -> dict[str, Any]:
    """A cooperative game of six computer seats (every seat colour in the log), played by
    themselves: what the score pad's and the seat names' tests look at once it is over."""
    made = create(server_url, computers(6, 6))
    finished(server_url, made["id"])  # before a page opens it: no page draws each move
    return made


def test_the_score_pad_is_a_named_dialog_that_takes_the_focus_and_gives_it_back(
    server_url: str, pages: Pages, six_computers: dict[str, Any]
) -> None:
    made = six_computers
    page = pages.wide()
    page.goto(f"{server_url}/game/{made['id']}")
    page.locator("#score-pad").wait_for(timeout=60_000)
    dialog = page.get_by_role("dialog", name="Final score")
    assert dialog.is_visible()
    assert dialog.get_attribute("aria-modal") == "true"
    in_pad = "!!document.activeElement?.closest('#score-pad')"
    page.wait_for_function(in_pad)
    # What is behind it is out of reach: Tab goes round the pad (and the browser's own controls).
    assert page.evaluate("[...document.querySelectorAll('.game, .topbar')].every((n) => n.inert)")
    for _ in range(8):
        page.keyboard.press("Tab")
        assert page.evaluate(f"{in_pad} || document.activeElement === document.body"), page.evaluate(
            "document.activeElement.outerHTML"
        )

    # Escape closes it; opened by the game's end, it gives the focus to the Score pad button.
    page.keyboard.press("Escape")
    page.locator(".modal").wait_for(state="hidden")
    page.wait_for_function("document.activeElement?.id === 'pad-button'")
    assert not page.evaluate("document.querySelector('.game').inert")
    # Opened from a button, by the keyboard, the focus goes back to that button.
    page.keyboard.press("Enter")
    dialog.wait_for()
    page.wait_for_function(in_pad)
    page.locator("#pad-close").focus()
    page.keyboard.press("Enter")
    page.locator(".modal").wait_for(state="hidden")
    page.wait_for_function("document.activeElement?.id === 'pad-button'")
    page.locator("#score-pad-button").click()
    page.wait_for_function(in_pad)
    page.keyboard.press("Escape")
    page.wait_for_function("document.activeElement?.id === 'score-pad-button'")

    # On a phone: the bar's Score button.
    phone = pages.phone()
    phone.goto(f"{server_url}/game/{made['id']}")
    phone.locator("#score-pad").wait_for()
    phone.wait_for_function(in_pad)
    phone.locator("#pad-close").tap()
    phone.wait_for_function("document.activeElement?.id === 'bar-score'")
    phone.locator("#bar-score").tap()
    phone.get_by_role("dialog", name="Final score").wait_for()
    phone.wait_for_function(in_pad)
    phone.locator("#pad-close").tap()
    phone.wait_for_function("document.activeElement?.id === 'bar-score'")
    assert not pages.errors, pages.errors


def test_the_watch_invite_and_another_device_link_fields_have_labels(server_url: str, pages: Pages) -> None:
    page = pages.wide()
    page.goto(server_url + "/")
    page.locator("label.mode", has_text="The Duel").click()
    page.locator(".seat-kind").nth(1).select_option("online")
    page.locator("#start").click()
    page.wait_for_url(re.compile(r"/game/"))
    game_id = page.url.rstrip("/").split("/")[-1]
    watch = page.get_by_role("textbox", name="Watch:")
    assert watch.input_value() == f"{server_url}/game/{game_id}"
    invite = page.get_by_role("textbox", name="Your opponent's link:")  # the Duel's words (issue 63)
    assert f"/join/{game_id}/" in invite.input_value()
    page.locator("summary", has_text="Play on another device").click()
    device = page.get_by_role("textbox", name="link to play on another device")
    assert device.input_value().startswith(f"{server_url}/game/{game_id}#t=")
    assert axe_violations(page, ("label",)) == []
    assert not pages.errors, pages.errors


def test_seat_names_are_shown_at_a_contrast_of_at_least_4_5_to_1(
    server_url: str, pages: Pages, six_computers: dict[str, Any]
) -> None:
    made = six_computers  # every seat colour in the log
    page = pages.wide()
    page.goto(f"{server_url}/game/{made['id']}")
    page.locator("#score-pad").wait_for(timeout=60_000)
    page.locator("#pad-close").click()
    colours = page.evaluate("async () => (await import('/static/hex.js')).SEAT_COLORS")
    card = page.evaluate("getComputedStyle(document.querySelector('#card-log')).backgroundColor")
    low = {c: round(contrast(c, card), 2) for c in colours if contrast(c, card) < 4.5}
    assert not low, f"seat colours under 4.5:1 on {card}: {low}"
    # As shown: each name in the log on what is behind it.
    shown = page.evaluate(
        """() => [...document.querySelectorAll('.log .who')].map((who) => {
            let node = who, behind = 'rgb(255, 255, 255)';
            while (node) {
              const bg = getComputedStyle(node).backgroundColor;
              if (bg !== 'transparent' && !bg.endsWith(', 0)')) { behind = bg; break; }
              node = node.parentElement;
            }
            return [who.textContent, getComputedStyle(who).color, behind];
        })"""
    )
    assert {name for name, _, _ in shown} == {f"P{i}" for i in range(1, 7)}
    low = {(n, c, b): round(contrast(c, b), 2) for n, c, b in shown if contrast(c, b) < 4.5}
    assert not low, low
    assert not pages.errors, pages.errors
