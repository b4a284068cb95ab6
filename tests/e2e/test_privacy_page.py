"""A player's data on its own page in real Chromium (issue 64, item 7): the footer leads to the
privacy notice; "Your data" downloads the export and deletes the account once its name is typed
again."""

from __future__ import annotations

import json
import secrets
from pathlib import Path

import pytest
from browsing import WIDE, Pages

pytestmark = pytest.mark.slow


def test_the_export_and_delete_buttons_on_the_players_page(
    pages: Pages, server_url: str, tmp_path: Path
) -> None:
    page = pages.new(*WIDE)
    page.goto(server_url + "/")
    page.wait_for_load_state("networkidle")
    name = f"Privy{secrets.randbelow(10**6)}"
    renamed = page.request.post(server_url + "/api/me/name", data={"name": name})
    assert renamed.ok, renamed.text()
    page.locator("footer a[href='/privacy']").click()
    page.wait_for_url("**/privacy")
    assert "Network addresses" in page.locator("main").inner_text()
    page.goto(f"{server_url}/@/{name}")
    page.locator("details#your-data > summary").click()
    with page.expect_download() as waiting:
        page.locator("#export-data").click()
    saved = tmp_path / "export.json"
    waiting.value.save_as(saved)
    data = json.loads(saved.read_text())
    assert data["format"] == "dorf-player-export/1" and data["player"]["name"] == name
    page.locator("#delete-account-name").fill(name)
    page.locator("#delete-account button[type=submit]").click()
    page.wait_for_url(server_url + "/")
    me = page.request.get(server_url + "/api/me").json()
    assert me["player"] is False
    assert page.request.get(f"{server_url}/api/players/{name}").status == 404
