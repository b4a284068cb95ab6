"""Where the repository's parts are, for tests in any folder: ``ROOT``, ``SRC``, ``DOCS``."""

from __future__ import annotations

from pathlib import Path

#: The repository's root (this file's folder's parent).
ROOT = Path(__file__).resolve().parent.parent
SRC = ROOT / "src"
DOCS = ROOT / "docs"
