"""The shipped ``deploy/`` files, run for real (issue 64): Debian's nginx and Caddy, each with a
certificate made here and listening with TLS on a loopback port other than 443, in front of one
``dorf serve`` set by deploy/systemd/dorf.env (``DORF_TRUSTED_PROXY=127.0.0.1``,
``DORF_ALLOWED_HOST=dorf.test``); through each, a visitor's player cookie comes back ``Secure``,
a game is made and a move is played over ``wss://``.  ``systemd-analyze verify`` takes the units
without a word, and nginx takes docs/server.md's several-servers example.

Each configuration is the shipped file with its site name, ports and paths replaced (every
replaced text must be found in it), so a fault in the file is a fault here.
"""

from __future__ import annotations

import contextlib
import http.client
import json
import os
import shutil
import socket
import ssl
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import websockets.sync.client as websockets_sync

from dorf.testing.net import free_ports
from dorf.testing.servers import Running, launch
from repo import ROOT

pytestmark = pytest.mark.slow

DEPLOY = ROOT / "deploy"
NAME = "dorf.test"
NGINX = "/usr/sbin/nginx"
CADDY = "/usr/bin/caddy"
#: The name and port the shipped files are written for.
SHIPPED_NAME = "dorf.example.org"
SHIPPED_UPSTREAM = "127.0.0.1:8000"


def replaced(text: str, *pairs: tuple[str, str]) -> str:
    """``text`` with each ``(old, new)`` replaced everywhere; an ``old`` not in it fails the test
    (the shipped file changed under the test)."""
    for old, new in pairs:
        assert old in text, f"{old!r} is not in the shipped file"
        text = text.replace(old, new)
    return text


@pytest.fixture(scope="module")
def certificate(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    """A self-signed certificate for :data:`NAME` and its key, made by openssl."""
    if shutil.which("openssl") is None:
        pytest.skip("no openssl (apt-get install openssl)")
    folder = tmp_path_factory.mktemp("tls")
    cert, key = folder / "cert.pem", folder / "key.pem"
    key_kind = ["-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes", "-days", "2"]
    names = ["-subj", f"/CN={NAME}", "-addext", f"subjectAltName=DNS:{NAME}"]
    files = ["-keyout", str(key), "-out", str(cert)]
    subprocess.run(["openssl", "req", "-x509", *key_kind, *names, *files], check=True, capture_output=True)
    return cert, key


def settings_file() -> dict[str, str]:
    """The variables deploy/systemd/dorf.env sets (its lines ``NAME=VALUE``), for :data:`NAME`."""
    text = replaced((DEPLOY / "systemd" / "dorf.env").read_text(encoding="utf-8"), (SHIPPED_NAME, NAME))
    lines = [line.strip() for line in text.splitlines() if line.strip() and not line.lstrip().startswith("#")]
    return dict(line.split("=", 1) for line in lines)


@pytest.fixture(scope="module")
def dorf(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Running]:
    """One ``dorf serve`` process behind both proxies, set as deploy/systemd/dorf.env sets it
    (``DORF_ALLOWED_HOST``, ``DORF_TRUSTED_PROXY``), but on a free port and a file of the test."""
    db = tmp_path_factory.mktemp("dorf") / "dorf.sqlite3"
    variables = settings_file()
    assert variables["DORF_TRUSTED_PROXY"] == "127.0.0.1" and variables["DORF_ALLOWED_HOST"] == NAME
    with pytest.MonkeyPatch.context() as patch:
        for name, value in variables.items():
            patch.setenv(name, value)  # launch's --host, --port and --db flags win over these
        server = launch(db, process=True, player_limit=1)  # a new player a minute from one address
    with server:
        yield server


def _port(server: Running) -> int:
    return int(server.url.rsplit(":", 1)[1])


def _wait_listening(port: int, process: subprocess.Popen[bytes], log: Path) -> None:
    deadline = time.monotonic() + 20
    while True:
        if process.poll() is not None:
            raise AssertionError(f"the proxy stopped at start: {log.read_text(errors='replace')[-800:]}")
        with contextlib.suppress(OSError), socket.create_connection(("127.0.0.1", port), timeout=1):
            return
        if time.monotonic() > deadline:
            raise AssertionError(
                f"the proxy did not listen in 20 s: {log.read_text(errors='replace')[-800:]}"
            )
        time.sleep(0.05)


@contextlib.contextmanager
def running(command: list[str], port: int, log: Path, env: dict[str, str] | None = None) -> Iterator[None]:
    with log.open("wb") as out:
        process = subprocess.Popen(command, stdout=out, stderr=subprocess.STDOUT, env=env)
    try:
        _wait_listening(port, process, log)
        yield
    finally:
        process.terminate()
        try:
            process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()


def _nginx_checked(prefix: Path, site: str) -> list[str]:
    """The command that runs nginx with ``site`` (a file of ``server`` blocks) in an ``http``
    block of a main file of its own under ``prefix``, once ``nginx -t`` has taken it."""
    (prefix / "dorf.conf").write_text(site, encoding="utf-8")
    temp = "\n".join(
        f"    {kind}_temp_path {prefix / kind};"
        for kind in ("client_body", "proxy", "fastcgi", "uwsgi", "scgi")
    )
    # As root, nginx's workers would run as nobody, who cannot enter the test's temp folders.
    user = "user root;\n" if os.geteuid() == 0 else ""
    main = (
        f"{user}daemon off;\nworker_processes 1;\npid {prefix / 'nginx.pid'};\n"
        f"error_log {prefix / 'error.log'};\nevents {{ worker_connections 64; }}\n"
        f"http {{\n    access_log {prefix / 'access.log'};\n{temp}\n    include {prefix / 'dorf.conf'};\n}}\n"
    )
    (prefix / "nginx.conf").write_text(main, encoding="utf-8")
    command = [NGINX, "-p", str(prefix), "-c", str(prefix / "nginx.conf")]
    checked = subprocess.run([*command, "-t"], capture_output=True, text=True, check=False)
    assert checked.returncode == 0, checked.stderr
    return command


@pytest.fixture(scope="module")
def nginx(
    dorf: Running, certificate: tuple[Path, Path], tmp_path_factory: pytest.TempPathFactory
) -> Iterator[tuple[int, int]]:
    """Debian's nginx with deploy/nginx/dorf.conf: (its HTTPS port, its plain HTTP port)."""
    if not os.access(NGINX, os.X_OK):
        pytest.skip("no nginx (apt-get install nginx-light)")
    prefix = tmp_path_factory.mktemp("nginx")
    https, plain = free_ports(2)
    cert, key = certificate
    site = replaced(
        (DEPLOY / "nginx" / "dorf.conf").read_text(encoding="utf-8"),
        ("listen 443 ssl", f"listen 127.0.0.1:{https} ssl"),
        ("listen [::]:443 ssl", f"listen [::1]:{https} ssl"),
        ("listen 80;", f"listen 127.0.0.1:{plain};"),
        ("listen [::]:80;", f"listen [::1]:{plain};"),
        (f"/etc/letsencrypt/live/{SHIPPED_NAME}/fullchain.pem", str(cert)),
        (f"/etc/letsencrypt/live/{SHIPPED_NAME}/privkey.pem", str(key)),
        (SHIPPED_NAME, NAME),
        (SHIPPED_UPSTREAM, f"127.0.0.1:{_port(dorf)}"),
    )
    command = _nginx_checked(prefix, site)
    with running(command, https, prefix / "nginx.out"):
        yield https, plain


@pytest.fixture(scope="module")
def caddy(
    dorf: Running, certificate: tuple[Path, Path], tmp_path_factory: pytest.TempPathFactory
) -> Iterator[int]:
    """Debian's Caddy with deploy/caddy/Caddyfile: its HTTPS port."""
    if not os.access(CADDY, os.X_OK):
        pytest.skip("no caddy (apt-get install caddy)")
    folder = tmp_path_factory.mktemp("caddy")
    (https,) = free_ports(1)
    cert, key = certificate
    site = replaced(
        (DEPLOY / "caddy" / "Caddyfile").read_text(encoding="utf-8"),
        (f"{SHIPPED_NAME} {{", f"{NAME}:{https} {{\n\ttls {cert} {key}"),
        (SHIPPED_UPSTREAM, f"127.0.0.1:{_port(dorf)}"),
    )
    # The test's own global options: no admin endpoint, no redirect listener on port 80, no
    # certificate authority asked, everything written under the test's folder.
    options = (
        f"{{\n\tadmin off\n\tauto_https disable_redirects\n\tstorage file_system {folder / 'data'}\n}}\n\n"
    )
    config = folder / "Caddyfile"
    config.write_text(options + site, encoding="utf-8")
    env = {**os.environ, "HOME": str(folder), "XDG_DATA_HOME": str(folder), "XDG_CONFIG_HOME": str(folder)}
    command = [CADDY, "run", "--config", str(config), "--adapter", "caddyfile"]
    with running(command, https, folder / "caddy.out", env):
        yield https


def _tls(cert: Path) -> ssl.SSLContext:
    """A client that trusts the test's certificate and nothing else."""
    context = ssl.create_default_context(cafile=str(cert))
    context.set_alpn_protocols(["http/1.1"])
    return context


def _connect(port: int, source: str) -> socket.socket:
    """A connection to the proxy at 127.0.0.1:``port`` from the loopback address ``source``
    (127.0.0.2...: every 127.x.y.z is this machine), so that the client's address is not the
    proxy's."""
    return socket.create_connection(("127.0.0.1", port), 10, source_address=(source, 0))


def _request(
    port: int,
    cert: Path,
    method: str,
    path: str,
    body: Any = None,
    cookie: str | None = None,
    source: str = "127.0.0.2",
) -> tuple[int, http.client.HTTPResponse, Any]:
    """``method path`` to ``https://dorf.test:port`` as the page would send it (``Origin`` the
    site's own), from ``source``: the status, the response and its JSON."""
    context = _tls(cert)
    connection = http.client.HTTPSConnection(NAME, port, context=context, timeout=10)
    connection.sock = context.wrap_socket(_connect(port, source), server_hostname=NAME)
    headers = {"Origin": f"https://{NAME}:{port}", "Content-Type": "application/json"}
    if cookie is not None:
        headers["Cookie"] = cookie
    data = None if body is None else json.dumps(body).encode()
    with contextlib.closing(connection):
        connection.request(method, path, body=data, headers=headers)
        response = connection.getresponse()
        raw = response.read()
    return response.status, response, json.loads(raw) if raw.startswith((b"{", b"[")) else raw


def _play_a_move(port: int, cert: Path, source: str) -> None:
    """Through the proxy at ``port``, from ``source``: a visitor becomes a player (a ``Secure``
    cookie), makes a game and plays its first move over the websocket."""
    status, response, me = _request(port, cert, "POST", "/api/me", source=source)
    assert status == 200, me
    cookie_header = response.getheader("set-cookie") or ""
    attributes = [part.strip().lower() for part in cookie_header.split(";")]
    assert cookie_header.startswith("dorf_player=") and "secure" in attributes, cookie_header
    cookie = cookie_header.split(";", 1)[0]

    status, _, made = _request(port, cert, "POST", "/api/games", {"mode": "coop", "seed": 5}, cookie, source)
    assert status == 201, made
    gid, tokens = made["id"], list(made["tokens"].values())

    sock = _connect(port, source)
    with websockets_sync.connect(
        f"wss://{NAME}:{port}/ws/{gid}",
        sock=sock,
        ssl=_tls(cert),
        server_hostname=NAME,
        origin=f"https://{NAME}:{port}",
        additional_headers={"Cookie": cookie},
        open_timeout=10,
    ) as ws:
        ws.send(json.dumps({"type": "hello", "tokens": tokens}))
        ws.send(json.dumps({"type": "ping", "id": "sync"}))
        state: dict[str, Any] = {}
        while True:
            message = json.loads(ws.recv(timeout=10))
            if message["type"] == "state":
                state = message
            if message.get("id") == "sync":
                break
        seat = state["game"]["waiting"][0]
        q, r, rots = state["you"]["legal"][str(seat)][0]
        ws.send(json.dumps({"type": "move", "seat": seat, "at": [q, r], "rot": rots[0], "id": "m"}))
        while True:
            message = json.loads(ws.recv(timeout=10))
            if message.get("id") == "m":
                assert message["type"] == "ok", message
                break
    status, _, game = _request(port, cert, "GET", f"/api/games/{gid}", source=source)
    assert status == 200 and game["turn"] == 1, game


def _limits_count_the_client(port: int, cert: Path, played_from: str, other: str) -> None:
    """The server (``--player-limit 1``) counts new players by the address the proxy saw, not the
    proxy's own: another client may still become a player, the one who did may not again."""
    status, _, me = _request(port, cert, "POST", "/api/me", source=other)
    assert status == 200, me
    status, _, me = _request(port, cert, "POST", "/api/me", source=played_from)
    assert status == 429 and me["error"]["code"] == "rate-limited", me


def test_nginx_serves_a_game_over_tls_with_a_secure_cookie(
    nginx: tuple[int, int], certificate: tuple[Path, Path]
) -> None:
    https, plain = nginx
    _play_a_move(https, certificate[0], "127.0.0.2")
    _limits_count_the_client(https, certificate[0], "127.0.0.2", "127.0.0.3")
    # plain HTTP is sent to HTTPS
    connection = http.client.HTTPConnection("127.0.0.1", plain, timeout=10)
    connection.request("GET", "/lobby?x=1", headers={"Host": NAME})
    answer = connection.getresponse()
    assert answer.status == 301 and answer.getheader("location") == f"https://{NAME}/lobby?x=1"
    connection.close()


def test_caddy_serves_a_game_over_tls_with_a_secure_cookie(
    caddy: int, certificate: tuple[Path, Path]
) -> None:
    _play_a_move(caddy, certificate[0], "127.0.0.4")
    _limits_count_the_client(caddy, certificate[0], "127.0.0.4", "127.0.0.5")


def test_the_systemd_units_verify(tmp_path: Path) -> None:
    """``systemd-analyze verify`` says nothing about the units (an unknown option, a bad value or
    a missing program is a line of its output); their programs are this environment's dorf and
    the shipped dorf-backup, since the check looks for them."""
    analyze = shutil.which("systemd-analyze")
    if analyze is None:
        pytest.skip("no systemd-analyze (apt-get install systemd)")
    dorf = Path(sys.executable).parent / "dorf"
    assert dorf.exists(), f"no {dorf}: pip install -e . first"
    units = {
        "dorf.service": ("/opt/dorf/bin/dorf", str(dorf)),
        "dorf-backup.service": ("/usr/local/bin/dorf-backup", str(DEPLOY / "dorf-backup")),
        "dorf-backup.timer": ("dorf-backup", "dorf-backup"),
    }
    for name, program in units.items():
        unit = replaced((DEPLOY / "systemd" / name).read_text(encoding="utf-8"), program)
        (tmp_path / name).write_text(unit, encoding="utf-8")
    checked = subprocess.run(
        [analyze, "verify", *(str(tmp_path / name) for name in units)],
        capture_output=True,
        text=True,
        check=False,
    )
    said = (checked.stdout + checked.stderr).strip()
    assert checked.returncode == 0 and not said, said


def test_the_several_servers_example_of_server_md_is_nginx_that_passes_host_and_scheme(
    certificate: tuple[Path, Path], tmp_path: Path
) -> None:
    """docs/server.md's load balancer: nginx takes it, and each location passes the Host with its
    port and X-Forwarded-Proto (issue 64 found ``Host $host`` and no scheme)."""
    if not os.access(NGINX, os.X_OK):
        pytest.skip("no nginx (apt-get install nginx-light)")
    doc = (ROOT / "docs" / "server.md").read_text(encoding="utf-8")
    block = doc.split("**Behind a load balancer.**", 1)[1].split("```nginx\n", 1)[1].split("```", 1)[0]
    cert, key = certificate
    (port,) = free_ports(1)
    site = replaced(
        block,
        ("listen 443 ssl", f"listen 127.0.0.1:{port} ssl"),
        (f"/etc/letsencrypt/live/{SHIPPED_NAME}/fullchain.pem", str(cert)),
        (f"/etc/letsencrypt/live/{SHIPPED_NAME}/privkey.pem", str(key)),
    )
    _nginx_checked(tmp_path, site)
    passes = block.count("proxy_pass ")
    assert passes >= 1  # every location (one since issue 63: the campaigns are in the shared database)
    assert block.count("proxy_set_header Host $http_host;") == passes
    assert block.count("proxy_set_header X-Forwarded-Proto $scheme;") == passes
