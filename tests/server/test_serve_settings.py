"""``dorf serve``'s options from the environment and a config file (issue 64): every option has a
variable (``DORF_PORT``...), a flag wins over the environment, the environment over the file;
``--print-config`` says where each value came from with secrets hidden; a bad value is one line
naming its variable; a PostgreSQL URL in ``DORF_DB`` means PostgreSQL.  And ``dorf --version``."""

from __future__ import annotations

import argparse
import functools
import json
import os
import subprocess
import sys
import urllib.error
import urllib.request
from pathlib import Path

import pytest

import dorf
from dorf.cli import build_parser, main
from dorf.db import default_path
from dorf.server.cli import serve_parser, settle_serve
from dorf.server.settings import SettingsError, describe, options, settle, variable
from dorf.testing.net import free_port
from repo import ROOT

#: A value each option takes whose default says nothing (None, or an empty list).
SAMPLES = {"db": "games.sqlite3", "allowed_host": "club.example", "trusted_proxy": "10.0.0.0/8"}


@pytest.fixture(autouse=True)
def unset(monkeypatch: pytest.MonkeyPatch) -> None:
    """No variable of the test's environment sets an option here."""
    for option in options(serve_parser()):
        monkeypatch.delenv(option.variable, raising=False)


@functools.cache
def parser() -> argparse.ArgumentParser:
    return build_parser()


def settled(argv: list[str], environ: dict[str, str]) -> tuple[dict[str, object], dict[str, str]]:
    args = parser().parse_args(["serve", *argv])
    found = settle_serve(args, argv, environ)
    return found.values, found.sources


def run(argv: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    code = main(argv)
    out, err = capsys.readouterr()
    return code, out, err


def test_every_option_has_a_variable_that_sets_it() -> None:
    """Read off the parser: an option added to ``dorf serve`` has its variable without more work."""
    tried = 0
    for option in options(serve_parser()):
        if option.name == "config":
            continue
        default = option.default
        if option.is_flag:
            text, expected = "yes", option.action.const
        elif option.dest in SAMPLES:
            text = SAMPLES[option.dest]
            expected = option.convert(text, "")
            expected = [expected] if option.is_list else expected
        elif default is None or isinstance(default, list):
            continue  # an option whose values the test cannot guess (a path: any text is one)
        else:
            text, expected = str(default), default
        values, sources = settled([], {option.variable: text})
        assert sources[option.dest] == option.variable, option.name
        assert values[option.dest] == expected, option.name
        tried += 1
    assert tried >= 25
    assert variable("--max-connections-per-address") == "DORF_MAX_CONNECTIONS_PER_ADDRESS"


def test_a_flag_wins_over_the_environment_which_wins_over_the_file(tmp_path: Path) -> None:
    config = tmp_path / "dorf.toml"
    config.write_text('port = 9001\nai_workers = 1\nhost = "0.0.0.0"\nallowed-host = ["a.example"]\n')
    environ = {"DORF_CONFIG": str(config), "DORF_PORT": "9002", "DORF_AI_WORKERS": "3"}
    values, sources = settled(["--port", "9003", "--allowed-host", "b.example"], environ)
    assert (values["port"], sources["port"]) == (9003, "--port")
    assert (values["ai_workers"], sources["ai_workers"]) == (3, "DORF_AI_WORKERS")
    assert (values["host"], sources["host"]) == ("0.0.0.0", str(config))
    assert values["allowed_host"] == ["b.example"]  # a repeated flag replaces the file's list whole
    assert (values["ai_delay"], sources["ai_delay"]) == (0.4, "default")
    values, sources = settled(["--config", str(tmp_path / "dorf.toml")], {})
    assert (values["port"], sources["config"]) == (9001, "--config")
    values, _ = settled([], {"DORF_TRUSTED_PROXY": "10.0.0.0/8, 192.0.2.1 ::1"})
    assert values["trusted_proxy"] == ["10.0.0.0/8", "192.0.2.1", "::1"]
    values, sources = settled([], {"DORF_PORT": "  "})  # empty: unset
    assert (values["port"], sources["port"]) == (8000, "default")


def test_print_config_says_each_source_and_hides_the_password(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    config = tmp_path / "dorf.toml"
    config.write_text('log-level = "info"\nallow-bot-commands = true\n')
    monkeypatch.setenv("DORF_CONFIG", str(config))
    monkeypatch.setenv("DORF_DB", "postgresql://dorf:s3cret@db.example:5432/dorf")
    monkeypatch.setenv("DORF_AI_WORKERS", "0")
    code, out, err = run(["serve", "--print-config", "--port", "8200"], capsys)
    assert (code, err) == (0, "")
    lines = {line.split("=")[0].strip(): line for line in out.splitlines()}
    assert lines["port"].split("#")[-1].strip() == "--port"
    assert lines["db"].split("#")[-1].strip() == "DORF_DB"
    assert lines["ai-workers"].startswith("ai-workers = 0 ")
    assert lines["log-level"].split("#")[-1].strip() == str(config)
    assert "allow-bot-commands = true" in out and "max-spectators = 32" in out
    assert "s3cret" not in out and "postgresql://dorf:***@db.example:5432/dorf" in out
    assert out.splitlines()[-1] == "# games in PostgreSQL: postgresql://dorf:***@db.example:5432/dorf"
    printed = "\n".join(line for line in out.splitlines() if "***" not in line)
    import tomllib

    assert tomllib.loads(printed)["port"] == 8200  # the printed text is itself a config file


def test_secrets_are_hidden_by_their_name() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--metrics-token", default=None)
    parser.add_argument("--admin-secret", default=None)
    parser.add_argument("--mail-password", default="hunter2")
    parser.add_argument("--relay", default="https://relay:pw@mail.example/")
    found = settle(parser, {}, {"DORF_METRICS_TOKEN": "t0ken"}, {"admin-secret": "s3cret"})
    text = describe(parser, found)
    assert not any(word in text for word in ("t0ken", "s3cret", "hunter2", ":pw@")), text
    assert text.count('"***"') == 3 and "https://relay:***@mail.example/" in text
    with pytest.raises(SettingsError) as refused:
        settle(parser, {}, {}, {"mail-password": ["a"]})
    assert "mail-password" in str(refused.value)


@pytest.mark.parametrize(
    ("environ", "file_text", "said"),
    [
        ({"DORF_PORT": "abc"}, None, "DORF_PORT=abc: port 'abc' is not a number"),
        ({"DORF_PORT": "70000"}, None, "DORF_PORT=70000: port 70000 is not 0 to 65535"),
        ({"DORF_LOG_LEVEL": "loud"}, None, "DORF_LOG_LEVEL=loud: not one of debug, info, warning, error"),
        (
            {"DORF_ALLOW_BOT_COMMANDS": "maybe"},
            None,
            "DORF_ALLOW_BOT_COMMANDS=maybe: say 1 or true or 0 or false",
        ),
        ({"DORF_TRUSTED_PROXY": "10.0.0.0/8,nonsense"}, None, "DORF_TRUSTED_PROXY=nonsense: not an address"),
        ({}, 'port = "x"', "dorf.toml: port=x: port 'x' is not a number"),
        ({}, "prot = 8080", "dorf.toml: no option 'prot'"),
        ({}, "port = [1]", "dorf.toml: port: a string or a number, not [1]"),
        ({}, 'allow-bot-commands = "yes"', "dorf.toml: allow-bot-commands: true or false"),
        ({}, 'config = "other.toml"', "dorf.toml: no option 'config'"),
        ({}, "port = 1\nport = 2", "not TOML"),
        ({}, "port = 1\nport_ = 2", "no option 'port_'"),
        ({"DORF_CONFIG": "missing.toml"}, None, "cannot read config file missing.toml: No such file"),
    ],
)
def test_a_bad_value_is_one_line_naming_it(
    environ: dict[str, str],
    file_text: str | None,
    said: str,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    monkeypatch.chdir(tmp_path)
    for name, value in environ.items():
        monkeypatch.setenv(name, value)
    if file_text is not None:
        (tmp_path / "dorf.toml").write_text(file_text)
        monkeypatch.setenv("DORF_CONFIG", "dorf.toml")
    code, out, err = run(["serve", "--print-config"], capsys)
    assert code == 2 and out == ""
    assert err.count("\n") == 1 and err.startswith("dorf serve: ") and said in err, err
    assert not list(tmp_path.glob("*.sqlite3"))


def test_a_postgresql_url_in_dorf_db_is_no_file(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """Before: DORF_DB=postgresql://... made a SQLite file named ``postgresql:`` in the folder."""
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "data"))
    monkeypatch.setenv("DORF_DB", "postgresql://dorf@db.example/dorf")
    assert default_path() == tmp_path / "data" / "dorf" / "dorf.sqlite3"  # the campaigns' file
    code, out, _ = run(["serve", "--print-config"], capsys)
    assert code == 0 and out.splitlines()[-1] == "# games in PostgreSQL: postgresql://dorf@db.example/dorf"
    monkeypatch.setenv("DORF_DB", str(tmp_path / "games.sqlite3"))
    code, out, _ = run(["serve", "--print-config"], capsys)
    assert out.splitlines()[-1] == f"# games in the SQLite file {tmp_path / 'games.sqlite3'}"
    assert list(tmp_path.iterdir()) == []


def test_dorf_version(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as done:
        main(["--version"])
    assert done.value.code == 0
    assert capsys.readouterr().out == f"dorf {dorf.__version__}\n"


def test_every_variable_is_documented() -> None:
    text = (ROOT / "docs" / "commands.md").read_text(encoding="utf-8")
    missing = [option.variable for option in options(serve_parser()) if f"`{option.variable}`" not in text]
    assert not missing, f"docs/commands.md, 'dorf serve from the environment': add {missing}"


@pytest.mark.slow
def test_a_server_from_the_environment_and_a_file_on_postgresql(pg_url: str, tmp_path: Path) -> None:
    """A real ``dorf serve`` told everything by variables and a file: its port, PostgreSQL from
    ``DORF_DB``, the host names it answers for from the file."""
    folder = tmp_path / "run"
    folder.mkdir()
    config = folder / "dorf.toml"
    config.write_text('allowed-host = ["club.example"]\nai-workers = 0\nlog-level = "error"\n')
    port = free_port()
    env = {key: value for key, value in os.environ.items() if not key.startswith("DORF_")}
    env |= {"DORF_PORT": str(port), "DORF_DB": pg_url, "DORF_CONFIG": str(config)}
    env["XDG_DATA_HOME"] = str(tmp_path / "data")
    process = subprocess.Popen(
        [sys.executable, "-m", "dorf.cli", "serve"],
        cwd=folder,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        assert process.stdout is not None
        line = process.stdout.readline()
        assert line.startswith(f"dorf: playing at http://127.0.0.1:{port}/  (games in postgresql://"), line
        base = f"http://127.0.0.1:{port}"
        request = urllib.request.Request(
            base + "/api/games",
            json.dumps({"mode": "coop", "seats": [{"kind": "here"}]}).encode(),
            {"Content-Type": "application/json", "Host": "club.example"},
            method="POST",
        )
        with urllib.request.urlopen(request, timeout=10) as response:
            game = json.loads(response.read())["id"]
        with pytest.raises(urllib.error.HTTPError) as refused:
            urllib.request.urlopen(urllib.request.Request(base + "/", headers={"Host": "other.example"}))
        assert refused.value.code == 400
    finally:
        process.terminate()
        process.wait(timeout=30)
    import psycopg

    with psycopg.connect(pg_url) as conn:
        assert conn.execute("SELECT count(*) FROM server_game WHERE id = %s", (game,)).fetchone() == (1,)
    assert sorted(path.name for path in folder.iterdir()) == ["dorf.toml"]  # no file "postgresql:"
