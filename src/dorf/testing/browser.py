"""How the browser tests and the pictures (``dorf.lab.screenshots``) run Chromium: Debian's (or
``$DORF_CHROMIUM``), launched through Playwright by its path, headless, nothing downloaded.

Debian's ``chromium-headless-shell`` is preferred when installed: the same Blink and V8 as the
``chromium`` package, built without the browser's windows and services (what Playwright itself
runs for headless Chromium).  A test suite's browser process then costs about a fifth of the CPU
the full browser's does (measured per process over ``tests/e2e`` on the 2-core VM)."""

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


#: Where Debian's packages put them, the headless shell first.
DEBIAN_CHROMIUMS = ("/usr/lib/chromium/chromium-headless-shell", "/usr/bin/chromium")


def chromium_path() -> str | None:
    """``$DORF_CHROMIUM``, else Debian's headless shell, else Debian's Chromium; None when none is
    installed."""
    given = os.environ.get("DORF_CHROMIUM")
    if given:
        return given if Path(given).exists() else None
    found = [path for path in DEBIAN_CHROMIUMS if Path(path).exists()]
    found += [path for name in ("chromium-headless-shell", "chromium") if (path := shutil.which(name))]
    return found[0] if found else None
