"""How to play (issue 61): the page is served like every page of the site, in the language the
browser prefers, its module among the page's files, and every page's header links to it."""

from __future__ import annotations

import re
from pathlib import Path

from test_server_helpers import served

from dorf.server.edge.assets import web_root


def test_how_to_play_is_a_page_of_the_site_in_the_browsers_language(db: Path) -> None:
    with served(db) as client:
        english = client.get("/how-to-play")
        assert english.status_code == 200
        assert english.headers["content-type"].startswith("text/html")
        assert '<html lang="en"' in english.text
        # Every page's header (the game pages' too) links to it.
        assert 'href="/how-to-play"' in english.text
        assert 'href="/how-to-play"' in client.get("/game/abc").text
        german = client.get("/how-to-play", headers={"Accept-Language": "de-DE,de;q=0.9"})
        assert german.status_code == 200 and '<html lang="de"' in german.text
        build = re.search(r'src="/static/([0-9a-f]{10})/main.js"', english.text)
        assert build, english.text
        module = client.get(f"/static/{build.group(1)}/howto.js")
        assert module.status_code == 200
        assert module.content == (web_root() / "howto.js").read_bytes()
        assert "howToPlayPage" in module.text
        # A path under it is no page: the API's answer to an unknown path, as before.
        assert client.get("/how-to-play/nothing").status_code == 404
