"""A bot account on a real server (issue 31): ``dorf bot --token-file F`` (or ``$DORF_TOKEN``)
plays the seats of its player, rated against a computer level; another player's token holds no
seat and changes nothing.  (That the cookie is ``Secure`` behind a trusted proxy that says HTTPS is
checked in test_server_edge, on a ``dorf serve`` with a trusted proxy.)"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import urllib.request
from http.cookiejar import CookieJar
from pathlib import Path
from typing import Any

import pytest

from dorf.testing.servers import launch
from repo import ROOT

EXAMPLES = ROOT / "examples" / "bots"


class Browser:
    """HTTP with cookies of its own (a person's browser) or a bearer token (a bot)."""

    def __init__(self, base: str, token: str | None = None) -> None:
        self.base = base
        self.token = token
        self.opener = urllib.request.build_opener(urllib.request.HTTPCookieProcessor(CookieJar()))

    def call(self, method: str, path: str, body: Any = None, headers: dict[str, str] | None = None) -> Any:
        data = None if body is None else json.dumps(body).encode()
        request = urllib.request.Request(self.base + path, data=data, method=method, headers=headers or {})
        if data is not None:
            request.add_header("Content-Type", "application/json")
        if self.token is not None:
            request.add_header("Authorization", f"Bearer {self.token}")
        with self.opener.open(request, timeout=30) as response:
            return json.loads(response.read())


@pytest.mark.slow  # a server process and a dorf bot process
def test_a_bot_account_plays_rated_with_its_api_token(tmp_path: Path) -> None:
    with launch(tmp_path / "dorf.sqlite3", ai_delay=0) as server:
        owner = Browser(server.url)
        name = owner.call("POST", "/api/me", {})["name"]
        token = owner.call("POST", "/api/me/tokens", {})["token"]
        bot = Browser(server.url, token)
        assert bot.call("POST", "/api/me", {}) == {**owner.call("POST", "/api/me", {}), "bot": True}
        # A rated Duel against the easy level; the bot account takes the online seat.
        seats = [{"kind": "computer", "player": "easy"}, {"kind": "online"}]
        made = owner.call("POST", "/api/games", {"mode": "duel", "rated": True, "seats": seats})
        joined = bot.call("POST", f"/api/games/{made['id']}/join", {"invite": made["invites"]["1"]})
        assert joined["seat"] == 1
        # Another player's token holds no seat of the game: refused, nothing played.
        other = Browser(server.url)
        other.call("POST", "/api/me", {})
        stranger = other.call("POST", "/api/me/tokens", {})["token"]
        command = [sys.executable, "-m", "dorf.cli", "bot", "--server", server.url, f"--game={made['id']}"]
        program = ["--", sys.executable, str(EXAMPLES / "greedy_bot.py")]
        env = {**os.environ, "DORF_TOKEN": stranger}
        refused = subprocess.run([*command, *program], capture_output=True, text=True, timeout=60, env=env)
        assert refused.returncode == 2 and "the API token's player holds no seat" in refused.stderr, (
            refused.stderr
        )
        state = owner.call("GET", f"/api/games/{made['id']}")
        assert 1 in state["waiting"] and not state["over"]  # the bot's seat has not moved
        # The bot's own token, from a file: it plays its seat to the end.
        path = tmp_path / "token"
        path.write_text(token + "\n")
        env = {k: v for k, v in os.environ.items() if k != "DORF_TOKEN"}
        played = subprocess.run(
            [*command, f"--token-file={path}", *program], capture_output=True, text=True, timeout=120, env=env
        )
        assert played.returncode == 0, played.stderr
        assert f"dorf bot: game {made['id']} is over" in played.stdout
        profile = owner.call("GET", f"/api/players/{name}")
        assert profile["bot"] is True and profile["ratings"]["duel"]["games"] == 1
        assert profile["games"][0]["opponent"] == "Computer (easy)"
        players = owner.call("GET", f"/api/games/{made['id']}/players")["players"]
        assert [(p["name"], p["bot"]) for p in players] == [("Computer (easy)", True), (name, True)]
