"""Argument types shared by the ``dorf`` subcommands: each turns bad text into one clear line.

>>> positive("3"), integer("-2")
(3, -2)
"""

from __future__ import annotations

import argparse


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
