"""Browser tests: a real server on a free port and Debian's headless Chromium driven by Playwright.

The server runs uvicorn in a thread on a temporary database
(:func:`dorf.testing.servers.launch`, as for the screenshots), one for the test process; its
computer seats move as soon as they have thought (``ai_delay=0``: a person's pause is for people).
Chromium is the system one (Debian's headless shell, else ``/usr/bin/chromium``, or
``$DORF_CHROMIUM``: :func:`dorf.testing.browser.chromium_path`), launched through its executable
path: nothing is downloaded.  Pages ask for reduced motion unless a test says otherwise.
``./run.sh test`` installs both; without them these tests fail (they are never skipped).
A failed test leaves a screenshot of every page it had open in
``test-artifacts/`` (or ``$DORF_TEST_ARTIFACTS``).

What the tests share besides these fixtures (the pages, the viewports :data:`~browsing.WIDE` and
:data:`~browsing.PHONE`, waiting for the page's game) is in ``browsing.py``: a module of its own,
since ``from conftest import`` finds whichever folder's conftest was imported last.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from browsing import Pages

from dorf.testing.browser import CHROMIUM_ARGS, chromium_path
from dorf.testing.servers import launch

ARTIFACTS = Path(os.environ.get("DORF_TEST_ARTIFACTS", "test-artifacts"))


def _missing(reason: str) -> None:
    pytest.fail(f"browser tests cannot run: {reason}")


@pytest.fixture(scope="session")
def server_url(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    db = tmp_path_factory.mktemp("server") / "dorf.sqlite3"
    with launch(db, ai_delay=0) as server:
        yield server.url


@pytest.fixture(scope="session")
def browser() -> Iterator[Any]:
    try:
        from playwright.sync_api import sync_playwright
    except ImportError:
        _missing("playwright is not installed (pip install playwright)")
    path = chromium_path()
    if path is None:
        _missing("no chromium (apt-get install chromium-headless-shell)")
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
    opened.close()
