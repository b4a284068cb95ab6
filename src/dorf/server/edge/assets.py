"""The page's files, served compressed and cached.

The browser UI is a handful of small files shipped in the package
(``dorf/web/``).  :class:`Assets` reads them once when the app is made, keeps
each as it is and compressed with gzip (level 9, once, not per request), and
names the whole set by a short hash of its contents, the *build*:

- ``/static/BUILD/NAME`` is cached for a year (``immutable``): a new version
  of dorf has another build, so another address.  The page refers to its
  files there, and the modules it imports (relative addresses) follow.
- ``/static/NAME`` is the same file to be checked each time (``no-cache``,
  with an ``ETag``: an unchanged file is answered ``304 Not Modified``).

A client that accepts gzip gets the compressed bytes (``Content-Encoding:
gzip``, ``Vary: Accept-Encoding``).

Files in folders of ``dorf/web/`` (the catalogs of words, ``lang/de.json``)
are served by their path, ``/static/BUILD/lang/de.json``, and are part of the
build.  The page itself says its language (``<html lang>``): the one of
:data:`LANGUAGES` the browser prefers (``Accept-Language``), see
:meth:`Assets.page` and :func:`preferred_language`.

>>> assets = Assets.from_package()
>>> name, gz = assets.files["main.js"].body, assets.files["main.js"].gzipped
>>> len(gz) < len(name), len(assets.build)
(True, 10)
"""

from __future__ import annotations

import gzip
import hashlib
import mimetypes
import re
from dataclasses import dataclass
from importlib import resources
from pathlib import Path

#: Files of the web folder that are not served.
PRIVATE = ("__init__.py",)
#: How long a file at its build's address may be cached, in seconds.
YEAR = 31_536_000
#: The languages the page speaks (a catalog ``lang/CODE.json`` each), the first the default.
LANGUAGES = ("en", "de")
_HTML_LANG = re.compile(rb'<html lang="[A-Za-z-]*"')


@dataclass(frozen=True)
class Asset:
    """One file: its bytes, the same gzipped, its type and its entity tag."""

    body: bytes
    gzipped: bytes
    media_type: str
    etag: str


#: Each body compressed so far, by its SHA-256: a process that makes several apps (the tests make
#: hundreds) compresses each file once.
_GZIPPED: dict[bytes, bytes] = {}


def _gzipped(body: bytes, key: bytes) -> bytes:
    """``body`` gzipped (level 9), ``key`` its SHA-256."""
    known = _GZIPPED.get(key)
    if known is None:
        known = _GZIPPED[key] = gzip.compress(body, 9, mtime=0)
    return known


def web_root() -> Path:
    """The folder of the browser UI shipped in the package."""
    return Path(str(resources.files("dorf.web")))


class Assets:
    """The files of the page, read and compressed once."""

    def __init__(self, files: dict[str, bytes]) -> None:
        self.files: dict[str, Asset] = {}
        digest = hashlib.sha256()
        for name in sorted(files):
            body = files[name]
            digest.update(name.encode() + b"\0" + body + b"\0")
            media = mimetypes.guess_type(name)[0] or "application/octet-stream"
            if media.startswith("text/") or media in ("application/javascript", "image/svg+xml"):
                media += "; charset=utf-8"
            key = hashlib.sha256(body)
            self.files[name] = Asset(
                body, _gzipped(body, key.digest()), media, '"' + key.hexdigest()[:16] + '"'
            )
        #: Names this set of files: part of the long-cached addresses.
        self.build = digest.hexdigest()[:10]

    @classmethod
    def from_package(cls, root: Path | None = None) -> Assets:
        folder = root or web_root()
        files = {
            path.relative_to(folder).as_posix(): path.read_bytes()
            for path in sorted(folder.rglob("*"))
            if path.is_file()
            and path.name not in PRIVATE
            and not any(part.startswith((".", "_")) for part in path.relative_to(folder).parts[:-1])
            and not path.name.startswith(".")
        }
        return cls(files)

    def page(self, name: str = "index.html", lang: str = LANGUAGES[0]) -> Asset:
        """A page with its references to ``/static/`` turned into this build's addresses, in
        language ``lang`` (its ``<html lang>``)."""
        text = self.files[name].body.replace(b'"/static/', f'"/static/{self.build}/'.encode())
        text = _HTML_LANG.sub(f'<html lang="{lang}"'.encode(), text, count=1)
        key = hashlib.sha256(text)
        return Asset(
            text, _gzipped(text, key.digest()), self.files[name].media_type, '"' + key.hexdigest()[:16] + '"'
        )

    def find(self, path: str) -> tuple[Asset, bool] | None:
        """The file at ``/static/PATH`` and whether its address names this build (None: no
        such file).  An address of another build is not found: its files are not these."""
        name = path
        built = False
        head, _, rest = path.partition("/")
        if rest and head == self.build:
            name, built = rest, True
        elif rest and re.fullmatch(r"[0-9a-f]{10}", head):
            return None  # another build's
        asset = self.files.get(name)
        return None if asset is None else (asset, built)


def preferred_language(header: str | None, languages: tuple[str, ...] = LANGUAGES) -> str:
    """The language of ``languages`` an ``Accept-Language`` header prefers (the first of them
    if it names none): by quality, then by order; ``de-AT`` is German.

    >>> preferred_language("de-DE,de;q=0.9,en;q=0.8"), preferred_language("en-GB,de;q=0.5")
    ('de', 'en')
    >>> preferred_language("fr-FR, de;q=0.7, en;q=0.3"), preferred_language("fr"), preferred_language(None)
    ('de', 'en', 'en')
    >>> preferred_language("de;q=0, en;q=0.1")
    'en'
    """
    best: tuple[float, int, str] | None = None
    for order, part in enumerate((header or "").split(",")):
        tag, _, params = part.strip().partition(";")
        code = tag.strip().lower().split("-")[0]
        if code not in languages:
            continue
        quality = 1.0
        params = params.strip()
        if params.startswith("q="):
            try:
                quality = float(params[2:])
            except ValueError:
                continue
        if quality <= 0:
            continue
        if best is None or (-quality, order) < (best[0], best[1]):
            best = (-quality, order, code)
    return languages[0] if best is None else best[2]


def accepts_gzip(header: str | None) -> bool:
    """Whether an ``Accept-Encoding`` header takes gzip (``q=0`` refuses it).

    >>> accepts_gzip("gzip, deflate, br"), accepts_gzip("br;q=1, gzip;q=0"), accepts_gzip(None)
    (True, False, False)
    """
    if not header:
        return False
    for part in header.split(","):
        coding, _, params = part.strip().partition(";")
        if coding.strip().lower() in ("gzip", "*"):
            quality = params.strip().removeprefix("q=")
            try:
                return not params.strip() or float(quality) > 0
            except ValueError:
                return False
    return False


def headers_for(asset: Asset, built: bool, gzipped: bool) -> dict[str, str]:
    """The response headers of a file."""
    out = {
        "Content-Type": asset.media_type,
        "ETag": asset.etag,
        "Cache-Control": f"public, max-age={YEAR}, immutable" if built else "no-cache",
        "Vary": "Accept-Encoding",
        "X-Content-Type-Options": "nosniff",
    }
    if gzipped:
        out["Content-Encoding"] = "gzip"
    return out


def main() -> None:
    """``python -m dorf.server.edge.assets``: each file's size as it is and gzipped, and the build."""
    assets = Assets.from_package()
    for name, asset in sorted(assets.files.items()):
        print(f"{name:<16} {len(asset.body):>7} bytes  {len(asset.gzipped):>6} gzipped")
    plain = sum(len(a.body) for a in assets.files.values())
    zipped = sum(len(a.gzipped) for a in assets.files.values())
    print(f"{'all':<16} {plain:>7} bytes  {zipped:>6} gzipped  (build {assets.build})")


if __name__ == "__main__":
    main()
