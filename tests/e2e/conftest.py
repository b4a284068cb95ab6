"""Browser tests: a real server on a free port and Debian's headless Chromium driven by Playwright.

The server runs uvicorn in a thread on a temporary database.  Chromium is the
system one (``/usr/bin/chromium``, or ``$DORF_CHROMIUM``), launched through
its executable path: nothing is downloaded.  ``./run.sh test`` installs both;
without them these tests fail (they are never skipped).
A failed test leaves a screenshot of every page it had open in
``test-artifacts/`` (or ``$DORF_TEST_ARTIFACTS``).
"""

from __future__ import annotations

import os
import shutil
import socket
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

CHROMIUM_ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]
ARTIFACTS = Path(os.environ.get("DORF_TEST_ARTIFACTS", "test-artifacts"))


def _missing(reason: str) -> None:
    pytest.fail(f"browser tests cannot run: {reason}")


def _chromium() -> str:
    path = os.environ.get("DORF_CHROMIUM") or shutil.which("chromium") or "/usr/bin/chromium"
    if not Path(path).exists():
        _missing("no chromium (apt-get install chromium)")
    return path


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
        return port


@pytest.fixture(scope="session")
def server_url(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    import uvicorn

    from dorf.server.app import TRANSPORT_LIMIT, create_app
    from dorf.server.hub import ServerConfig

    db = tmp_path_factory.mktemp("server") / "dorf.sqlite3"
    app = create_app(ServerConfig(db=db, ai_workers=0, ai_delay=0.05))
    port = _free_port()
    config = uvicorn.Config(
        app, host="127.0.0.1", port=port, log_level="warning", ws_max_size=TRANSPORT_LIMIT
    )
    server = uvicorn.Server(config)
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    deadline = time.monotonic() + 20
    while not server.started:
        if time.monotonic() > deadline or not thread.is_alive():
            pytest.fail("the server did not start")
        time.sleep(0.05)
    yield f"http://127.0.0.1:{port}"
    server.should_exit = True
    thread.join(timeout=10)


@pytest.fixture(scope="session")
def browser() -> Iterator[Any]:
    try:
        from playwright.sync_api import sync_playwright
    except ImportError:
        _missing("playwright is not installed (pip install playwright)")
    path = _chromium()
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

    def new(self, width: int = 1280, height: int = 800) -> Any:
        context = self.browser.new_context(viewport={"width": width, "height": height})
        context.set_default_timeout(15_000)
        page = context.new_page()
        page.on("pageerror", lambda exc: self.errors.append(f"page error: {exc}"))
        page.on(
            "console", lambda msg: self.errors.append(f"console: {msg.text}") if msg.type == "error" else None
        )
        self.contexts.append(context)
        self.pages.append(page)
        return page


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
