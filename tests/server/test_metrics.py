"""``/metrics`` (edge/metrics.py): read back by the Prometheus client's own parser; a move counts,
an undo does not; the token and the loopback rule; two apps in one process keep apart."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient
from prometheus_client.parser import text_string_to_metric_families
from test_server_helpers import ADDRESS, addressed, create, legal_move, socket

from dorf.server.config import ServerConfig
from dorf.server.edge.metrics import Metrics, Readings
from dorf.server.hub import create_app

Samples = dict[tuple[str, tuple[tuple[str, str], ...]], float]
#: The metrics of docs/server.md ("Metrics and logs"), as the parser names them (a counter's
#: family without ``_total``).
DOCUMENTED = (
    "dorf_build_info",
    "dorf_games_live",
    "dorf_connections",
    "dorf_moves",
    "dorf_storage_write_seconds",
    "dorf_think_jobs",
    "dorf_lobby_seeks_waiting",
    "dorf_daily_attempts",
    "dorf_http_requests",
)
LOOPBACK = {ADDRESS: "127.0.0.1"}


def settings(**more: Any) -> ServerConfig:
    return ServerConfig(**{"ai_workers": 0, "ai_delay": 0.0, "daily_expert": "greedy", **more})


@pytest.fixture(scope="module")
def client(tmp_path_factory: pytest.TempPathFactory) -> Iterator[TestClient]:
    """A server without a metrics token; a request's address is its x-test-address header."""
    db = tmp_path_factory.mktemp("metrics") / "dorf.sqlite3"
    with TestClient(addressed(create_app(settings(db=db)))) as test_client:
        yield test_client


def scrape(client: TestClient, **headers: str) -> tuple[Samples, set[str]]:
    """Every sample of ``/metrics`` (by name and labels) and the families' names, as Prometheus'
    parser reads them."""
    response = client.get("/metrics", headers={**LOOPBACK, **headers})
    assert response.status_code == 200, response.text
    assert response.headers["content-type"].startswith("text/plain; version=0.0.4")
    samples: Samples = {}
    names = set()
    for family in text_string_to_metric_families(response.text):
        names.add(family.name)
        for sample in family.samples:
            samples[sample.name, tuple(sorted(sample.labels.items()))] = sample.value
    return samples, names


def moves(samples: Samples, mode: str) -> float:
    return samples.get(("dorf_moves_total", (("mode", mode),)), 0.0)


def test_every_documented_metric_is_read_back_by_prometheus_parser(client: TestClient) -> None:
    samples, names = scrape(client)
    assert set(DOCUMENTED) <= names
    assert samples["dorf_connections", (("kind", "lobby"),)] == 0
    assert ("dorf_think_jobs", (("state", "waiting"),)) in samples
    version = client.get("/api/health").json()["version"]
    assert samples["dorf_build_info", (("version", version),)] == 1
    doc = (Path(__file__).parents[2] / "docs" / "server.md").read_text(encoding="utf-8")
    missing = [name for name in DOCUMENTED if f"`{name}" not in doc]
    assert not missing, f"docs/server.md does not name {missing}"


def test_a_move_counts_an_undo_does_not(client: TestClient) -> None:
    made = create(client, seats=[{"kind": "here"}], practice=True)
    before, _ = scrape(client)
    with socket(client, made["id"], [made["tokens"]["0"]]) as sock:
        assert sock.request(legal_move(sock.sync(), 0))["type"] == "ok"
        sock.wait_saved(1)
        during, _ = scrape(client)
        assert during["dorf_connections", (("kind", "game"),)] == 1
        assert sock.request({"type": "undo", "seat": 0})["type"] == "ok"
        assert sock.request(legal_move(sock.sync(), 0))["type"] == "ok"
        sock.wait_saved(3)
    after, _ = scrape(client)
    assert moves(during, "coop") == moves(before, "coop") + 1
    assert moves(after, "coop") == moves(before, "coop") + 2  # the undo is no move
    assert after["dorf_games_live", ()] >= 1
    # every change written: the move, the undo, the move again (one transaction each, or fewer)
    written = after["dorf_storage_write_seconds_count", ()] - before["dorf_storage_write_seconds_count", ()]
    assert 1 <= written <= 3
    route = ("dorf_http_requests_total", (("method", "POST"), ("route", "/api/games"), ("status", "201")))
    assert after[route] >= 1


def test_requests_are_counted_by_route_template_not_path(client: TestClient) -> None:
    client.get("/api/games/no-such-game")
    client.get("/no/such/page")
    samples, _ = scrape(client)
    template = ("method", "GET"), ("route", "/api/games/{game_id}"), ("status", "404")
    assert samples["dorf_http_requests_total", template] >= 1
    assert (
        samples["dorf_http_requests_total", (("method", "GET"), ("route", "(unmatched)"), ("status", "404"))]
        >= 1
    )
    assert not any("no-such-game" in str(labels) for _, labels in samples)


@pytest.mark.parametrize(
    "headers",
    [
        {ADDRESS: "192.0.2.7"},
        {**LOOPBACK, "X-Forwarded-For": "192.0.2.7"},
        {**LOOPBACK, "X-Real-IP": "192.0.2.7"},
    ],
    ids=["another-machine", "forwarded", "real-ip"],
)
def test_without_a_token_only_this_machine_reads_them(client: TestClient, headers: dict[str, str]) -> None:
    refused = client.get("/metrics", headers=headers)
    assert refused.status_code == 403
    assert refused.json()["error"]["code"] == "forbidden" and "dorf_" not in refused.text


def test_a_token_is_asked_of_everyone_and_accepted(tmp_path: Path) -> None:
    with TestClient(
        addressed(create_app(settings(db=tmp_path / "dorf.sqlite3", metrics_token="s3cret")))
    ) as client:
        for headers in ({}, {"Authorization": "Bearer guess"}, {"Authorization": "Basic s3cret"}, LOOPBACK):
            refused = client.get("/metrics", headers=headers)
            assert refused.status_code == 401, headers
            assert refused.headers["www-authenticate"].startswith("Bearer")
            assert refused.json()["error"]["code"] == "unauthorized"
        answered = client.get("/metrics", headers={ADDRESS: "192.0.2.7", "Authorization": "Bearer s3cret"})
        assert answered.status_code == 200
        assert "dorf_moves" in {family.name for family in text_string_to_metric_families(answered.text)}


def test_two_apps_in_one_process_keep_their_own_registries() -> None:
    def readings(games: int) -> Readings:
        return Readings(*([lambda: games] + [lambda: 0] * 6))

    first, second = Metrics(readings(3)), Metrics(readings(5))  # no duplicate-timeseries error
    first.request("/", "GET", 200)
    assert b"dorf_games_live 3.0" in first.text() and b"dorf_games_live 5.0" in second.text()
    assert b'route="/"' in first.text() and b'route="/"' not in second.text()


@pytest.mark.storage
def test_each_storage_times_its_writes(db: Path) -> None:
    """SQLite's writer and PostgreSQL's committer both time their transactions."""
    with TestClient(addressed(create_app(settings(db=db)))) as client:
        made = create(client, seats=[{"kind": "here"}])
        with socket(client, made["id"], [made["tokens"]["0"]]) as sock:
            assert sock.request(legal_move(sock.sync(), 0))["type"] == "ok"
            sock.wait_saved(1)
        samples, _ = scrape(client)
    assert samples["dorf_storage_write_seconds_count", ()] >= 1
    assert samples["dorf_storage_write_seconds_sum", ()] > 0
    assert moves(samples, "coop") == 1
