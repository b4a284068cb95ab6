"""How many random games the property tests play, in each tier.

A property test runs in both tiers (:func:`tiers`): ``[quick]`` plays one small game in the quick
tier (``pytest -m "not slow"``), the same every run (derandomised: the simplest game first; a
test of small random boards plays its first few); ``[many]``, marked slow, plays
``examples(count)`` random games in the whole run.

Every slow-tier count is multiplied by ``$DORF_PROPERTY_SCALE`` (default 1): the default
suite plays enough games to cover every rule in a few seconds a test;
``DORF_PROPERTY_SCALE=3 pytest -m slow`` plays about what earlier releases did,
``DORF_PROPERTY_SCALE=20`` is a night's soak.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis.strategies import SearchStrategy

SCALE = float(os.environ.get("DORF_PROPERTY_SCALE", "1"))


def examples(count: int) -> int:
    """``count`` random games at scale 1, scaled."""
    return max(1, round(count * SCALE))


@dataclass(frozen=True)
class Games:
    """How many games a property test plays, and whether they are the quick tier's fixed ones."""

    count: int
    quick: bool


def tiers(count: int, quick: int = 1) -> pytest.MarkDecorator:
    """Parametrise a property test by its ``games``: ``quick`` fixed games in the quick tier,
    ``examples(count)`` random ones in the slow tier."""
    return pytest.mark.parametrize(
        "games",
        [
            pytest.param(Games(quick, quick=True), id="quick"),
            pytest.param(Games(examples(count), quick=False), id="many", marks=pytest.mark.slow),
        ],
    )


def play(games: Games, test: Callable[..., None], **strategies: SearchStrategy[Any]) -> None:
    """Run the property ``test`` on ``games`` examples of ``strategies`` (keyword arguments)."""
    checked = settings(
        max_examples=games.count,
        derandomize=games.quick,
        deadline=None,
        suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
    )
    checked(given(**strategies)(test))()
