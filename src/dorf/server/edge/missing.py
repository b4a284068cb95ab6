"""The page a browser gets for an address where there is nothing (HTTP 404).

A program asking the API keeps the project's JSON error (``{"error": {"code", "message"}}``);
a browser asking for a page (``Accept: text/html``, a path outside ``/api/``, ``/static/`` and
``/ws/``) gets a small HTML page instead: what is missing and the way home, in the language it
prefers (the words of the page's catalogs, ``lang/CODE.json``), styled with the site's CSS.

>>> from dorf.server.edge.assets import Assets
>>> page = MissingPages(Assets.from_package())
>>> b"/nowhere" in page.body("/nowhere", "en") and b'lang="en"' in page.body("/x", "en")
True
"""

from __future__ import annotations

import html
import json

from dorf.server.edge.assets import LANGUAGES, Assets

#: Paths whose 404 stays JSON whatever the client accepts: the API, the files, the sockets.
NOT_PAGES = ("/api/", "/static/", "/ws/")
#: The catalog keys the page says.
KEYS = ("missing.title", "missing.text", "missing.home", "nav.play")


def wants_page(method: str, path: str, accept: str | None) -> bool:
    """Whether a 404 answers a browser's request for a page (HTML) rather than a program's (JSON).

    >>> wants_page("GET", "/nowhere", "text/html,application/xhtml+xml,*/*;q=0.8")
    True
    >>> wants_page("GET", "/api/nowhere", "text/html"), wants_page("GET", "/x", "application/json")
    (False, False)
    """
    return method in ("GET", "HEAD") and not path.startswith(NOT_PAGES) and "text/html" in (accept or "")


class MissingPages:
    """The missing page in each language, its words read once from the catalogs."""

    def __init__(self, assets: Assets) -> None:
        self.build = assets.build
        self.words: dict[str, dict[str, str]] = {}
        for lang in LANGUAGES:
            catalog = json.loads(assets.files[f"lang/{lang}.json"].body)
            self.words[lang] = {key: str(catalog[key]) for key in KEYS}

    def body(self, path: str, lang: str) -> bytes:
        """The page for ``path`` in ``lang``."""
        words = self.words.get(lang) or self.words[LANGUAGES[0]]
        shown = html.escape(path if len(path) <= 80 else path[:79] + "…")
        text = html.escape(words["missing.text"]).replace("{path}", f"<code>{shown}</code>")
        static = f"/static/{self.build}"
        page = f"""<!doctype html>
<html lang="{lang}">
<head>
  <meta charset="utf-8">
  <meta name="viewport" content="width=device-width, initial-scale=1">
  <title>{html.escape(words["missing.title"])} · dorf</title>
  <link rel="icon" href="{static}/favicon.svg" type="image/svg+xml">
  <link rel="stylesheet" href="{static}/style.css">
</head>
<body>
  <header class="topbar">
    <a class="brand" href="/"><img src="{static}/favicon.svg" alt="" width="24" height="24"> dorf</a>
    <nav aria-label="main"><a href="/">{html.escape(words["nav.play"])}</a></nav>
  </header>
  <main id="app"><div class="lobby narrow"><section class="card missing" id="missing">
    <h1 class="page-title">{html.escape(words["missing.title"])}</h1>
    <p>{text}</p>
    <p><a class="button" id="missing-home" href="/">{html.escape(words["missing.home"])}</a></p>
  </section></div></main>
</body>
</html>
"""
        return page.encode()
