"""``dorf simulate --backend ray``: the same games as the local backend, on a real local Ray instance.

Ray is an optional extra of dorf; the test command (``./run.sh test``) installs it, and these
tests run a real local Ray instance.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from dorf.commands.simulate import Simulation, run_games

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def local_ray() -> Iterator[Any]:
    """Ray, imported here (about 1 s) rather than when every pytest worker collects this module."""
    import ray  # type: ignore[import-untyped, unused-ignore]

    started = not ray.is_initialized()
    if started:
        ray.init(address="local", num_cpus=2, include_dashboard=False, log_to_driver=False)
    yield ray
    if started:
        ray.shutdown()


def _without_seconds(results: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [{k: v for k, v in r.items() if k != "seconds"} for r in results]


def test_ray_runs_the_same_games_as_one_local_worker(local_ray: Any) -> None:
    for simulation in (
        Simulation("coop", "greedy", games=3, seed=12),
        Simulation("head-to-head", "greedy", "random", games=2, seed=2),
    ):
        jobs = simulation.jobs()
        on_ray = run_games(jobs, workers=2, backend="ray")
        assert local_ray.is_initialized()  # an instance the caller started is left running
        assert [r["game"] for r in on_ray] == list(range(simulation.games))
        assert _without_seconds(on_ray) == _without_seconds(run_games(jobs, workers=1))
