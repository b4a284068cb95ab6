"""How many random games the property tests play.

Every count is multiplied by ``$DORF_PROPERTY_SCALE`` (default 1): the default
suite plays enough games to cover every rule in a few seconds a test;
``DORF_PROPERTY_SCALE=3 pytest -m slow`` plays about what earlier releases did,
``DORF_PROPERTY_SCALE=20`` is a night's soak.
"""

from __future__ import annotations

import os

SCALE = float(os.environ.get("DORF_PROPERTY_SCALE", "1"))


def examples(count: int) -> int:
    """``count`` random games at scale 1, scaled."""
    return max(1, round(count * SCALE))
