"""The daily challenge's days: today's date (UTC), a day's seed, a day as text, a streak.

A day's seed is an HMAC of the day with the server's secret (kept in the database, made on the
first start): nobody without the secret can know it, and every server of a shared database
derives the same one.

>>> seed = day_seed(b"k" * 32, "2026-12-02")
>>> seed == day_seed(b"k" * 32, "2026-12-02") != day_seed(b"k" * 32, "2026-12-03"), 0 < seed < 2**63
(True, True)
>>> read_day("2026-12-02"), streak(["2026-12-02", "2026-12-01", "2026-11-29"], "2026-12-02")
('2026-12-02', 2)
>>> streak(["2026-12-01", "2026-11-30"], "2026-12-02"), streak(["2026-11-30"], "2026-12-02")
(2, 0)
"""

from __future__ import annotations

import hashlib
import hmac
import re
from collections.abc import Callable, Iterable
from datetime import UTC, date, datetime, timedelta
from pathlib import Path

from dorf.server.protocol.messages import ProtocolError

DAY = re.compile(r"\d{4}-\d{2}-\d{2}")


def day_seed(secret: bytes, day: str) -> int:
    """The seed of ``day``'s shuffle: 63 bits of HMAC-SHA256 of the day under ``secret``."""
    digest = hmac.new(secret, f"dorf daily challenge {day}".encode(), hashlib.sha256).digest()
    return int.from_bytes(digest[:8], "big") >> 1 or 1


def read_day(value: object) -> str:
    """A day as ``YYYY-MM-DD`` (ProtocolError ``bad-date`` for anything else)."""
    if isinstance(value, str) and DAY.fullmatch(value):
        try:
            return date.fromisoformat(value).isoformat()
        except ValueError:
            pass
    raise ProtocolError("bad-date", "a day is written YYYY-MM-DD (2026-12-02)")


def day_before(day: str) -> str:
    return (date.fromisoformat(day) - timedelta(days=1)).isoformat()


def streak(days: Iterable[str], today: str) -> int:
    """Days in a row played (``days`` newest first), up to today or, if today is not played yet,
    up to yesterday."""
    count, expected = 0, today
    for day in days:
        if count == 0 and day != today:
            expected = day_before(today)
        if day != expected:
            break
        count += 1
        expected = day_before(day)
    return count


class Today:
    """Today's date, UTC, from the clock (seconds since 1970); for tests, from a file holding
    ``YYYY-MM-DD`` that they change to turn the day (``--today-file``)."""

    def __init__(self, clock: Callable[[], float], path: str | Path | None = None) -> None:
        self.clock = clock
        self.path = None if path is None else Path(path)

    def __call__(self) -> str:
        if self.path is not None:
            try:
                return read_day(self.path.read_text(encoding="utf-8").strip())
            except (OSError, ProtocolError):
                pass  # a file being written, or gone: the clock's day
        return datetime.fromtimestamp(self.clock(), UTC).date().isoformat()


__all__ = ["Today", "day_before", "day_seed", "read_day", "streak"]
