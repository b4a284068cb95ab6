"""A one-line progress bar on a terminal, for the long runs of ``dorf learn`` (both methods:
:mod:`dorf.rl.learn` and :mod:`dorf.rl.ppo`)."""

from __future__ import annotations

import time
from typing import TextIO


class Bar:
    """A one-line progress bar on a terminal (``\\r`` updates); silent when not enabled."""

    def __init__(self, total: int, stream: TextIO, enabled: bool) -> None:
        self.total, self.stream, self.enabled = total, stream, enabled
        self.count = 0
        self.started = time.perf_counter()

    def step(self, label: str = "games") -> None:
        self.count += 1
        if self.enabled:
            elapsed = time.perf_counter() - self.started
            filled = 30 * self.count // max(self.total, 1)
            eta = elapsed / self.count * (self.total - self.count)
            self.stream.write(
                f"\r[{'#' * filled}{'.' * (30 - filled)}] {self.count}/{self.total} {label}"
                f"  {elapsed:.0f} s  eta {eta:.0f} s "
            )
            self.stream.flush()

    def close(self) -> None:
        if self.enabled:
            self.stream.write("\r\033[K")
            self.stream.flush()
