"""How the browser tests and the pictures (``dorf.lab.screenshots``) run Chromium: Debian's (or
``$DORF_CHROMIUM``), launched through Playwright by its path, headless, nothing downloaded."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

#: The features Playwright (1.65) disables itself, which a --disable-features of ours would undo.
PLAYWRIGHT_DISABLED = (
    "AvoidUnnecessaryBeforeUnloadCheckSync",
    "DestroyProfileOnBrowserClose",
    "HttpsUpgrades",
    "HttpsFirstBalancedModeAutoEnable",
    "LensOverlay",
    "MediaRouter",
    "PaintHolding",
    "ThirdPartyStoragePartitioning",
    "AvoidCorsURLLoaderRestartOnRedirect",
    "OptimizationHints",
    "NetworkTimeServiceQuerying",
    "AimEnabled",
    "PreconnectToSearch",
)
#: The address bar's popups, each a web page Chromium renders ahead for every new window.
OMNIBOX_POPUPS = ("WebUIOmniboxPopup", "WebUIOmniboxFullPopup", "WebUIOmniboxAimPopup")

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
    # Chromium keeps only the last --disable-features: Playwright's own list (its
    # chromiumSwitches: HTTP stays HTTP, no paint holding, no calls home...) is repeated here, then
    # ours.  Chromium 156 prepares the address bar's web popups for every window, a browser context
    # being one: a renderer of its own, about 1.2 s of CPU per context opened on the 2-core VM
    # (measured per process); a page under test never opens the address bar.
    "--disable-features=" + ",".join((*PLAYWRIGHT_DISABLED, *OMNIBOX_POPUPS)),
]


def chromium_path() -> str | None:
    """Debian's Chromium (or ``$DORF_CHROMIUM``), or None when there is none."""
    path = os.environ.get("DORF_CHROMIUM") or shutil.which("chromium") or "/usr/bin/chromium"
    return path if Path(path).exists() else None
