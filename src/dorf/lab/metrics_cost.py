"""What ``/metrics`` costs the server: ``python -m dorf.lab.metrics_cost``.

Times, best of five runs of 10,000 calls each, what a move and a request add
(:mod:`dorf.server.edge.metrics`): one increment of a Prometheus counter, the handler every
move's :class:`~dorf.server.round.events.GameChanged` calls (:meth:`Metrics.changed`), a request
counted by route (:meth:`Metrics.request`), a write timed (:meth:`Metrics.wrote`), and one
scrape of the whole text.  Set beside the server's processor time a move (``python -m
dorf.lab.loadtest``'s ``server_cpu_ms_per_move``) it says whether the metrics make a move dearer.
"""

from __future__ import annotations

import argparse
import timeit
from collections.abc import Callable
from typing import Any

from prometheus_client import CollectorRegistry, Counter

from dorf.server.edge.metrics import Metrics, Readings

#: Calls a run, and runs (the best is kept).
CALLS = 10_000
RUNS = 5


class _Session:
    """What :meth:`Metrics.changed` reads of a game's session."""

    mode = "coop"
    epoch = 0
    ending = None


class _Game:
    session = _Session()


class _Changed:
    game = _Game()


def best(call: Callable[[], Any], calls: int = CALLS, runs: int = RUNS) -> float:
    """The best of ``runs`` runs of ``calls`` calls of ``call``, in seconds a call."""
    return min(timeit.repeat(call, number=calls, repeat=runs)) / calls


def measure(calls: int = CALLS) -> dict[str, float]:
    """Microseconds a call of each thing measured."""
    metrics = Metrics(Readings(*[lambda: 0] * 7))
    counter = Counter("dorf_lab", "an increment", ["mode"], registry=CollectorRegistry()).labels("coop")
    event: Any = _Changed()
    for route in ("/", "/api/games/{game_id}", "/api/games/{game_id}/move", "/static/{path:path}"):
        metrics.request(route, "GET", 200)
    return {
        "counter increment": best(counter.inc, calls) * 1e6,
        "a move heard (Metrics.changed)": best(lambda: metrics.changed(event), calls) * 1e6,
        "a request counted (Metrics.request)": best(lambda: metrics.request("/", "GET", 200), calls) * 1e6,
        "a write timed (Metrics.wrote)": best(lambda: metrics.wrote(0.001), calls) * 1e6,
        "a scrape (Metrics.text)": best(metrics.text, max(1, calls // 100)) * 1e6,
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m dorf.lab.metrics_cost", description=__doc__.split("\n")[0]
    )
    parser.add_argument("--calls", type=int, default=CALLS, help=f"calls a run (default {CALLS})")
    args = parser.parse_args(argv)
    print(f"best of {RUNS} runs of {args.calls} calls (a scrape: {max(1, args.calls // 100)} calls)")
    for what, micros in measure(args.calls).items():
        print(f"{what:40} {micros:9.2f} µs")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
