"""Browser tests: a real server on a free port and Debian's headless Chromium driven by Playwright.

The server runs uvicorn in a thread on a temporary database (as the
screenshot script does: :mod:`dorf.server.screenshots`).  Chromium is the
system one (``/usr/bin/chromium``, or ``$DORF_CHROMIUM``), launched through
its executable path: nothing is downloaded.  ``./run.sh test`` installs both;
without them these tests fail (they are never skipped).
A failed test leaves a screenshot of every page it had open in
``test-artifacts/`` (or ``$DORF_TEST_ARTIFACTS``).

Viewports: :data:`WIDE` (1400 x 900, a laptop) and :data:`PHONE` (390 x 844, a
common phone, with touch).
"""

from __future__ import annotations

import os
import re
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from dorf.server.screenshots import CHROMIUM_ARGS, chromium_path, running_server

ARTIFACTS = Path(os.environ.get("DORF_TEST_ARTIFACTS", "test-artifacts"))
WIDE = (1400, 900)
PHONE = (390, 844)
#: Requests the page makes to find out what the server offers; a 404 only means "not offered here".
OPTIONAL_ROUTES = re.compile(r"/api/levels$|/api/games/[^/]+/hint$")


def _missing(reason: str) -> None:
    pytest.fail(f"browser tests cannot run: {reason}")


@pytest.fixture(scope="session")
def server_url(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    db = tmp_path_factory.mktemp("server") / "dorf.sqlite3"
    with running_server(db) as server:
        yield server.url


@pytest.fixture(scope="session")
def browser() -> Iterator[Any]:
    try:
        from playwright.sync_api import sync_playwright
    except ImportError:
        _missing("playwright is not installed (pip install playwright)")
    path = chromium_path()
    if path is None:
        _missing("no chromium (apt-get install chromium)")
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=path, args=CHROMIUM_ARGS)
        yield browser
        browser.close()


@pytest.hookimpl(wrapper=True, tryfirst=True)
def pytest_runtest_makereport(item: pytest.Item, call: pytest.CallInfo[None]) -> Any:
    report = yield
    if report.when == "call":
        item.stash[_FAILED] = report.failed
    return report


_FAILED = pytest.StashKey[bool]()


class Pages:
    """Browser contexts opened by a test; each page's console errors are kept."""

    def __init__(self, browser: Any) -> None:
        self.browser = browser
        self.contexts: list[Any] = []
        self.pages: list[Any] = []
        self.errors: list[str] = []

    def new(self, width: int = 1280, height: int = 800, touch: bool = False, locale: str = "en-US") -> Any:
        """A page in a context of its own; ``touch``: a phone (touch events, mobile viewport);
        ``locale``: the browser's language (its Accept-Language and navigator.language: the page
        speaks it), English unless given, whatever the machine's."""
        context = self.browser.new_context(
            viewport={"width": width, "height": height},
            has_touch=touch,
            is_mobile=touch,
            locale=locale,
            extra_http_headers={"Accept-Language": locale},
        )
        context.set_default_timeout(15_000)
        page = context.new_page()
        page.on("pageerror", lambda exc: self.errors.append(f"page error: {exc}"))
        page.on("console", lambda msg: self._console(msg))
        self.contexts.append(context)
        self.pages.append(page)
        return page

    def wide(self) -> Any:
        return self.new(*WIDE)

    def phone(self) -> Any:
        return self.new(*PHONE, touch=True)

    def _console(self, msg: Any) -> None:
        if msg.type != "error":
            return
        url = (msg.location or {}).get("url", "")
        if "status of 404" in msg.text and OPTIONAL_ROUTES.search(url):
            return
        self.errors.append(f"console: {msg.text} ({url})")


@pytest.fixture
def pages(browser: Any, request: pytest.FixtureRequest) -> Iterator[Pages]:
    opened = Pages(browser)
    yield opened
    if request.node.stash.get(_FAILED, False):
        ARTIFACTS.mkdir(parents=True, exist_ok=True)
        for i, page in enumerate(opened.pages):
            target = ARTIFACTS / f"{request.node.name}-{i}.png"
            try:
                page.screenshot(path=str(target), full_page=True)
            except Exception as exc:  # a crashed page has no picture
                print(f"no screenshot of page {i}: {exc}")
            else:
                print(f"screenshot: {target}")
    for context in opened.contexts:
        context.close()


def version(page: Any) -> int:
    """The version of the game the page shows (it counts the game's changes)."""
    return int(page.evaluate("document.body.dataset.version || '-1'"))


def wait_version_after(page: Any, old: int, limit: float = 30.0) -> None:
    """Wait until the page shows a newer version of the game. Polled with ``page.evaluate``,
    which the server's Content-Security-Policy allows; ``wait_for_function``'s string predicate
    is refused by it as soon as it has to poll."""
    deadline = time.monotonic() + limit
    while version(page) <= old:
        if time.monotonic() > deadline:
            raise AssertionError(f"the page still shows version {version(page)}, not newer than {old}")
        page.wait_for_timeout(20)


def start_from_lobby(
    page: Any, server_url: str, mode: str = "", names: tuple[str, ...] = (), computer: str = ""
) -> None:
    """Start a game on the front page: the mode's card (by its name), the players' names, and
    (``computer``, a level such as ``"easy"``) the second seat's player instead of the default."""
    page.goto(server_url + "/")
    if mode:
        page.locator("label.mode", has_text=mode).click()
    for i, name in enumerate(names):
        page.locator(".seat-name").nth(i).fill(name)
    if computer:
        page.locator(".seat-kind").nth(1).select_option(f"computer:{computer}")
    page.locator("#start").click()
    page.wait_for_url(re.compile(r"/game/"))
