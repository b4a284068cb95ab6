"""How the browser tests and the pictures (``dorf.lab.screenshots``) run Chromium: Debian's (or
``$DORF_CHROMIUM``), launched through Playwright by its path, headless, nothing downloaded."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

#: Chromium's arguments: headless, quiet, nothing downloaded.
CHROMIUM_ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--hide-scrollbars",
    "--font-render-hinting=none",
]


def chromium_path() -> str | None:
    """Debian's Chromium (or ``$DORF_CHROMIUM``), or None when there is none."""
    path = os.environ.get("DORF_CHROMIUM") or shutil.which("chromium") or "/usr/bin/chromium"
    return path if Path(path).exists() else None
