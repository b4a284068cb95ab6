"""Log lines with time, level and request id, as text or JSON, without addresses unless asked
(edge/logs.py); ``HEAD`` wherever ``GET`` is (edge/head.py); the version in ``/api/health``."""

from __future__ import annotations

import json
import logging
import re
import subprocess
import sys
import time
import urllib.request
from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient
from test_server_helpers import ADDRESS, addressed

import dorf
from dorf.server.config import ServerConfig
from dorf.server.edge.logs import JsonFormatter, RedactInvites, RequestIdFilter, RequestIds, TextFormatter
from dorf.server.hub import create_app
from dorf.testing.net import free_port

#: A text line: ISO time (UTC, milliseconds), level, [request id], logger: message.
TEXT_LINE = re.compile(r"(\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z) ([A-Z]+) \[([^\]]+)\] ([\w.-]+): (.*)")
REQUEST_ID = re.compile(r"[0-9a-f]{16}")


@pytest.fixture(scope="module")
def client(tmp_path_factory: pytest.TempPathFactory) -> Iterator[TestClient]:
    """A server trusting the proxy 10.0.0.2; a request's address is its x-test-address header."""
    db = tmp_path_factory.mktemp("logs") / "dorf.sqlite3"
    config = ServerConfig(db=db, ai_workers=0, daily_expert="greedy", trusted_proxies=("10.0.0.2",))
    with TestClient(addressed(create_app(config))) as test_client:
        yield test_client


# --- HEAD and the version ---------------------------------------------------------------------


@pytest.mark.parametrize("path", ["/", "/api/health", "/static/style.css", "/metrics"])
def test_head_answers_where_get_does_with_its_headers_and_no_body(client: TestClient, path: str) -> None:
    headers = {ADDRESS: "127.0.0.1", "Accept-Encoding": "identity"}
    got, head = client.get(path, headers=headers), client.head(path, headers=headers)
    assert got.status_code == head.status_code == 200
    assert head.content == b"" and head.headers["content-type"] == got.headers["content-type"]
    if path not in ("/metrics", "/api/health"):  # their bodies change from one request to the next
        assert head.headers.get("etag") == got.headers.get("etag")
        assert int(head.headers["content-length"]) == len(got.content)


def test_head_where_get_is_refused_is_refused_too(client: TestClient) -> None:
    assert client.head("/api/replay").status_code == client.get("/api/replay").status_code == 405
    assert client.head("/no/such/thing").status_code == 404


def test_health_says_the_version(client: TestClient) -> None:
    health = client.get("/api/health").json()
    assert health["ok"] is True and "games" in health and "connections" in health  # the old keys stay
    assert health["version"] == dorf.__version__


# --- request ids ------------------------------------------------------------------------------


def test_every_answer_carries_a_request_id_of_its_own(client: TestClient) -> None:
    first, second = client.get("/api/health"), client.head("/")
    ids = [first.headers["x-request-id"], second.headers["x-request-id"]]
    assert all(REQUEST_ID.fullmatch(i) for i in ids) and ids[0] != ids[1]


def test_a_request_id_is_taken_only_from_a_trusted_proxy(client: TestClient) -> None:
    given = {"X-Request-Id": "proxy-7f3a"}
    assert (
        client.get("/api/health", headers={ADDRESS: "10.0.0.2", **given}).headers["x-request-id"]
        == "proxy-7f3a"
    )
    stranger = client.get("/api/health", headers={ADDRESS: "192.0.2.7", **given}).headers["x-request-id"]
    assert REQUEST_ID.fullmatch(stranger)
    forged = client.get("/api/health", headers={ADDRESS: "10.0.0.2", "X-Request-Id": "a b\nINFO forged"})
    assert REQUEST_ID.fullmatch(forged.headers["x-request-id"])  # a proxy's unusable id: a new one


def test_a_line_logged_while_serving_names_the_request(caplog: pytest.LogCaptureFixture) -> None:
    """dorf's own lines logged during a request carry its id (the same as the answer's header),
    and the text and JSON formats say time, level and id."""
    logger = logging.getLogger("dorf.server.test-logs")

    async def app(scope: Any, receive: Any, send: Any) -> None:
        logger.warning("doing the %s thing", "inner")
        await send({"type": "http.response.start", "status": 204, "headers": []})
        await send({"type": "http.response.body", "body": b""})

    handler = logging.Handler()
    lines: list[logging.LogRecord] = []
    handler.emit = lines.append  # type: ignore[method-assign]
    handler.addFilter(RequestIdFilter())
    logger.addHandler(handler)
    try:
        answer = TestClient(RequestIds(app)).get("/")
    finally:
        logger.removeHandler(handler)
    (record,) = lines
    text = TEXT_LINE.fullmatch(TextFormatter().format(record))
    assert text is not None
    assert text.group(2) == "WARNING" and text.group(3) == answer.headers["x-request-id"]
    assert text.group(5) == "doing the inner thing"
    stamp = datetime.strptime(text.group(1), "%Y-%m-%dT%H:%M:%S.%fZ").replace(tzinfo=UTC)
    assert abs((stamp - datetime.now(UTC)).total_seconds()) < 600  # the time in UTC
    parsed = json.loads(JsonFormatter().format(record))
    assert parsed["level"] == "warning" and parsed["request_id"] == answer.headers["x-request-id"]
    assert parsed["message"] == "doing the inner thing" and parsed["logger"] == "dorf.server.test-logs"


def access_record(address: str = "192.0.2.7:5000") -> logging.LogRecord:
    """An access line as uvicorn logs it."""
    args = (address, "GET", "/join/g1/s3cret", "1.1", 200)
    return logging.LogRecord("uvicorn.access", logging.INFO, "", 0, '%s - "%s %s HTTP/%s" %d', args, None)


def test_an_access_line_as_json_parses_with_its_fields() -> None:
    record = access_record()
    RedactInvites().filter(record)  # on uvicorn's access logger (redact_access_log)
    RequestIdFilter().filter(record)
    line = json.loads(JsonFormatter().format(record))
    assert line["level"] == "info" and line["logger"] == "uvicorn.access" and line["request_id"] == "-"
    assert (line["method"], line["path"], line["status"]) == ("GET", "/join/g1/…", 200)
    assert line["message"] == '"GET /join/g1/… HTTP/1.1" 200'
    assert datetime.strptime(line["time"], "%Y-%m-%dT%H:%M:%S.%fZ")


def test_no_address_in_the_access_log_unless_asked() -> None:
    record = access_record()
    for formatter in (TextFormatter(), JsonFormatter()):
        assert "192.0.2.7" not in formatter.format(record)
    assert "192.0.2.7:5000 - " in TextFormatter(addresses=True).format(record)
    assert json.loads(JsonFormatter(addresses=True).format(record))["client"] == "192.0.2.7:5000"
    handshake = logging.LogRecord(
        "uvicorn.error",
        logging.INFO,
        "",
        0,
        '%s - "WebSocket %s" [accepted]',
        ("192.0.2.7:5000", "/ws/g1"),
        None,
    )
    assert TextFormatter().format(handshake).endswith('uvicorn.error: "WebSocket /ws/g1" [accepted]')


# --- the real server's lines (a process: slow) ------------------------------------------------


def serve_lines(tmp_path: Path, *options: str) -> tuple[list[str], str]:
    """The log lines of ``dorf serve --log-level info OPTIONS`` that served ``GET /api/health``
    and the page of an invitation, and the health answer's request id."""
    port = free_port()
    command = [
        sys.executable,
        "-m",
        "dorf.cli",
        "serve",
        "--port",
        str(port),
        "--db",
        str(tmp_path / "d.sqlite3"),
    ]
    command += ["--ai-workers", "0", "--daily-expert", "greedy", "--log-level", "info", *options]
    errors = (tmp_path / "stderr.txt").open("wb")
    server = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=errors)
    try:
        deadline = time.monotonic() + 30
        while True:
            try:
                with urllib.request.urlopen(f"http://127.0.0.1:{port}/api/health", timeout=2) as answer:
                    request_id = answer.headers["X-Request-Id"]
                break
            except OSError:
                assert server.poll() is None, (tmp_path / "stderr.txt").read_text()
                assert time.monotonic() < deadline, "the server did not answer"
                time.sleep(0.1)
        with urllib.request.urlopen(f"http://127.0.0.1:{port}/join/g1/s3cret-code", timeout=2):
            pass
    finally:
        server.terminate()
        server.wait(timeout=15)
        errors.close()
    return (tmp_path / "stderr.txt").read_text().splitlines(), request_id


@pytest.mark.slow
def test_the_served_access_log_has_time_level_and_request_id_and_no_address(tmp_path: Path) -> None:
    lines, request_id = serve_lines(tmp_path)
    access = [TEXT_LINE.fullmatch(line) for line in lines if "uvicorn.access" in line]
    assert all(access) and len(access) >= 2, lines
    health = next(m for m in access if m is not None and "/api/health" in m.group(5))
    assert health.group(2) == "INFO" and health.group(3) == request_id
    assert health.group(5).startswith('"GET /api/health HTTP/1.1" 200')
    assert not any("127.0.0.1:" in line for line in lines if "uvicorn.access" in line)
    assert not any("s3cret-code" in line for line in lines)  # the invitation's code stays out
    assert all(
        TEXT_LINE.fullmatch(line) for line in lines if line and not line.startswith((" ", "Traceback"))
    )
