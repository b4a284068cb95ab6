"""Argument types shared by the ``dorf`` subcommands: each turns bad text into one clear line.

>>> positive("3"), integer("-2")
(3, -2)
"""

from __future__ import annotations

import argparse
from collections.abc import Callable


def integer(text: str) -> int:
    """Any whole number (a seed)."""
    try:
        return int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a whole number") from None


def positive(text: str) -> int:
    """A whole number of at least 1 (a count)."""
    value = integer(text)
    if value < 1:
        raise argparse.ArgumentTypeError(f"{text!r} must be at least 1")
    return value


def bounded(
    low: float, high: float, *, cast: type[int] | type[float] = int, what: str = ""
) -> Callable[[str], float]:
    """An argument type for a number from ``low`` to ``high``: ``bounded(0, 65535, what="port")``."""
    label = f"{what} " if what else ""

    def read(text: str) -> float:
        try:
            value = cast(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"{label}{text!r} is not a number") from None
        if not low <= value <= high:
            raise argparse.ArgumentTypeError(f"{label}{value} is not {low} to {high}")
        return value

    return read
