"""The page's files go out compressed and cached: gzip when the browser takes it, a long cache at
the build's address, a check with the ETag at the plain one."""

from __future__ import annotations

import re
from pathlib import Path

from test_server_helpers import served

from dorf.server.edge.assets import web_root


def test_static_files_are_gzipped_for_a_browser_that_takes_it(db: Path) -> None:
    plain = (web_root() / "game.js").read_bytes()
    with served(db) as client:
        zipped = client.get("/static/game.js", headers={"Accept-Encoding": "gzip, br"})
        assert zipped.status_code == 200 and zipped.headers["content-encoding"] == "gzip"
        assert zipped.headers["vary"] == "Accept-Encoding"
        assert zipped.content == plain  # the client unzipped it
        assert int(zipped.headers["content-length"]) < len(plain) / 2
        raw = client.get("/static/game.js", headers={"Accept-Encoding": "identity"})
        assert "content-encoding" not in raw.headers and raw.content == plain
        assert raw.headers["content-type"].startswith("text/javascript")


def test_the_page_refers_to_its_build_which_is_cached_for_a_year(db: Path) -> None:
    with served(db) as client:
        page = client.get("/game/abc")
        assert page.headers["cache-control"] == "no-cache"
        found = re.search(r'src="/static/([0-9a-f]{10})/main.js"', page.text)
        assert found, page.text
        build = found.group(1)
        built = client.get(f"/static/{build}/board.js")
        assert built.status_code == 200
        assert built.headers["cache-control"] == "public, max-age=31536000, immutable"
        assert client.get("/static/0123456789/board.js").status_code == 404  # another build's
        assert client.get("/static/nothing.js").status_code == 404
        assert client.get("/static/__init__.py").status_code == 404


def test_an_unchanged_file_is_answered_not_modified(db: Path) -> None:
    with served(db) as client:
        first = client.get("/static/style.css", headers={"Accept-Encoding": "gzip"})
        tag = first.headers["etag"]
        again = client.get("/static/style.css", headers={"Accept-Encoding": "gzip", "If-None-Match": tag})
        assert again.status_code == 304 and again.content == b""
        other = client.get("/static/style.css", headers={"Accept-Encoding": "identity", "If-None-Match": tag})
        assert other.status_code == 200  # the plain file is another representation
        assert other.content == (web_root() / "style.css").read_bytes()


def test_the_catalogs_of_words_are_served_with_the_build(db: Path) -> None:
    with served(db) as client:
        page = client.get("/")
        found = re.search(r'src="/static/([0-9a-f]{10})/main.js"', page.text)
        assert found, page.text
        for lang in ("en", "de"):
            plain = (web_root() / "lang" / f"{lang}.json").read_bytes()
            built = client.get(
                f"/static/{found.group(1)}/lang/{lang}.json", headers={"Accept-Encoding": "gzip"}
            )
            assert built.status_code == 200 and built.content == plain
            assert built.headers["content-type"].startswith("application/json")
            assert built.headers["cache-control"] == "public, max-age=31536000, immutable"
            assert client.get(f"/static/lang/{lang}.json").headers["cache-control"] == "no-cache"
        assert client.get("/static/lang/fr.json").status_code == 404
        assert client.get("/static/__pycache__/x.pyc").status_code == 404


def test_a_changed_catalog_is_another_build(tmp_path: Path) -> None:
    from dorf.server.edge.assets import Assets

    for name in ("main.js", "lang/de.json"):
        (tmp_path / name).parent.mkdir(exist_ok=True)
        (tmp_path / name).write_text("{}")
    before = Assets.from_package(tmp_path)
    assert set(before.files) == {"main.js", "lang/de.json"}
    assert before.find(f"{before.build}/lang/de.json") == (before.files["lang/de.json"], True)
    (tmp_path / "lang" / "de.json").write_text('{"a": "b"}')
    assert Assets.from_package(tmp_path).build != before.build


def test_the_page_says_the_language_the_browser_prefers(db: Path) -> None:
    with served(db) as client:
        for header, lang in (
            ("de-DE,de;q=0.9,en;q=0.8", "de"),
            ("en-GB,en;q=0.9,de;q=0.5", "en"),
            ("fr-FR,de;q=0.5", "de"),
            ("fr-FR", "en"),
            ("", "en"),
        ):
            page = client.get("/game/abc", headers={"Accept-Language": header} if header else {})
            assert f'<html lang="{lang}">' in page.text, header
            assert "Accept-Language" in page.headers["vary"]
        german = client.get("/", headers={"Accept-Language": "de", "Accept-Encoding": "gzip"})
        english = client.get("/", headers={"Accept-Language": "en", "Accept-Encoding": "gzip"})
        assert german.headers["etag"] != english.headers["etag"]  # another page: a cache keeps both
