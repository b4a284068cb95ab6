"""API tokens on the player's own page in real Chromium (issue 60): made with a label, listed
with when each was made and last used, and revoked with a button, after which the token names
nobody."""

from __future__ import annotations

import json
import secrets
import urllib.error
import urllib.request

import pytest
from browsing import WIDE, Pages

pytestmark = pytest.mark.slow


def me_with(server_url: str, token: str) -> int:
    """The status of ``GET /api/me`` sent with an API token (as a bot sends it)."""
    request = urllib.request.Request(server_url + "/api/me", headers={"Authorization": f"Bearer {token}"})
    try:
        with urllib.request.urlopen(request, timeout=30) as answer:
            json.loads(answer.read())
            return int(answer.status)
    except urllib.error.HTTPError as error:
        return int(error.code)


def test_tokens_are_listed_and_revoked_on_the_players_page(pages: Pages, server_url: str) -> None:
    page = pages.new(*WIDE)
    page.goto(server_url + "/")
    page.wait_for_load_state("networkidle")  # whatever the front page asks of /api/me
    name = f"Tokens{secrets.randbelow(10**6)}"
    renamed = page.request.post(server_url + "/api/me/name", data={"name": name})
    assert renamed.ok, renamed.text()
    page.goto(f"{server_url}/@/{name}")
    page.locator("#account").wait_for()
    folded = page.locator("details#bot-makers > summary")  # the tokens are folded away for bot makers
    if folded.count():
        folded.click()
    page.locator("#no-tokens").wait_for()
    page.locator("#token-label").fill("test bot")
    page.locator("#make-token").click()
    item = page.locator("#token-list li.token-item")
    item.wait_for()
    token = page.locator("#token-shown").inner_text()
    assert token.startswith("dorf_")
    assert "test bot" in item.inner_text() and "never used" in item.inner_text()
    assert token not in item.inner_text()
    # Used by a bot, the list says when; revoked, it names nobody.
    assert me_with(server_url, token) == 200
    page.reload()
    page.locator("#account").wait_for()
    if folded.count():
        folded.click()
    item.wait_for()
    assert "last used" in item.inner_text(), item.inner_text()
    item.locator("button.revoke").click()
    page.locator("#no-tokens").wait_for()
    assert item.count() == 0
    assert me_with(server_url, token) == 401
    assert page.locator("#sign-out-everywhere").is_visible()
