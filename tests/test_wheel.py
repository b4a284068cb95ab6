"""The wheel (issue 64): ``pip wheel .`` makes ``dorf-games``, which carries every file dorf reads at
run time, and installed into a fresh environment its ``dorf serve`` serves the page and a move,
built with a C compiler (the compiled parts in it) and without one (``CC=false``: every compile
fails, and setup.py's ``optional=True`` leaves the pure-Python fallback).

Both wheels are built at once, each from a copy of the sources (no build folder of the tree
reused), with the tests' own environment as the build environment: it holds what
pyproject.toml's ``build-system`` asks for (the test extra names it too), which the test checks.  The
fresh environment (``python -m venv --without-pip``) gets the wheel alone from pip, without its
index; the web extra's packages are borrowed from the environment running the tests (a ``.pth``
line after the new environment's own folder), as an install from the package index takes one
to two minutes here (docs/hosting.md, "Installing by name").
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
import sysconfig
import tomllib
import urllib.request
import zipfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pip
import pytest

from dorf.testing.net import post
from repo import ROOT

pytestmark = [pytest.mark.slow, pytest.mark.skipif(sys.platform != "linux", reason="a venv's bin/ folder")]

KINDS = ("compiled", "pure")
#: The compiled parts (setup.py).
COMPILED = ("dorf/rules/_accel", "dorf/players/_quick", "dorf/rl/_vector")
#: What is in the source folder but not shipped: caches, the tree's own builds, the egg-info.
NOT_SHIPPED = ("__pycache__", "*.pyc", "*.so", "*.egg-info")


def shipped_sources(src: Path) -> set[str]:
    """Every file of ``src/dorf`` a wheel must hold, as the wheel names it (``dorf/web/main.js``)."""
    found = set()
    for path in (src / "dorf").rglob("*"):
        parts = path.relative_to(src).parts
        if path.is_file() and not any(Path(part).match(pattern) for part in parts for pattern in NOT_SHIPPED):
            found.add("/".join(parts))
    return found


def pip_in(environment: Path) -> list[str]:
    """The tests' own pip, run by ``environment``'s Python: what ``pip --python`` does, without
    the first pip process, which only starts this one."""
    return [str(environment / "bin" / "python"), str(Path(pip.__file__).parent)]


def has_compiler() -> bool:
    command = (os.environ.get("CC") or sysconfig.get_config_var("CC") or "cc").split()
    return bool(command) and shutil.which(command[0]) is not None


def unmet_build_requirements() -> list[str]:
    """What pyproject.toml's ``build-system`` asks for and this environment lacks."""
    from importlib.metadata import PackageNotFoundError, version

    from packaging.requirements import Requirement

    wanted = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["build-system"]["requires"]
    unmet = []
    for text in wanted:
        requirement = Requirement(text)
        try:
            if requirement.specifier.contains(version(requirement.name), prereleases=True):
                continue
        except PackageNotFoundError:
            pass
        unmet.append(text)
    return unmet


@pytest.fixture(scope="module")
def wheels(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """The two wheels, built side by side with this environment as the build environment: it
    holds what ``build-system.requires`` asks for (the test extra names it), checked here; pip's
    isolated build environment would fetch the same from the package index for each wheel."""
    unmet = unmet_build_requirements()
    assert not unmet, f"the test environment lacks the build requirements {unmet} (pip install -e '.[test]')"
    root = tmp_path_factory.mktemp("wheels")
    pip = pip_in(Path(sys.executable).parent.parent)
    builds = {}
    for kind in KINDS:
        tree = root / kind / "tree"
        shutil.copytree(
            ROOT / "src" / "dorf", tree / "src" / "dorf", ignore=shutil.ignore_patterns(*NOT_SHIPPED)
        )
        for name in ("pyproject.toml", "setup.py", "README.md"):
            shutil.copy(ROOT / name, tree / name)
        env = dict(os.environ)
        if kind == "pure":
            env["CC"] = "false"  # a compiler that always fails: as on a machine without one
        command = [
            *pip,
            "wheel",
            "--no-build-isolation",
            "--no-deps",
            "-q",
            "-w",
            str(root / kind),
            str(tree),
        ]
        builds[kind] = subprocess.Popen(
            command, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True
        )
    for kind, build in builds.items():
        said, _ = build.communicate(timeout=600)
        assert build.returncode == 0, f"{kind}: {said}"
    return {kind: next((root / kind).glob("dorf_games-*.whl")) for kind in KINDS}


def test_the_wheel_is_dorf_games_and_carries_every_file(wheels: dict[str, Path]) -> None:
    for kind, wheel in wheels.items():
        expected = shipped_sources(wheel.parent / "tree" / "src")  # the copy it was built from
        assert {"dorf/web/index.html", "dorf/web/main.js", "dorf/data/base.tsv"} <= expected
        with zipfile.ZipFile(wheel) as archive:
            names = set(archive.namelist())
            info = next(name for name in names if name.endswith(".dist-info/METADATA"))
            metadata = archive.read(info).decode()
            entry = archive.read(info.replace("METADATA", "entry_points.txt")).decode()
        assert "Name: dorf-games\n" in metadata and "dorf = dorf.cli:main" in entry
        assert not expected - names, f"{kind}: not in the wheel: {sorted(expected - names)}"
        built = sorted(name.split(".")[0] for name in names if name.endswith(".so"))
        if kind == "pure":
            assert built == [], built
        elif has_compiler():
            assert built == sorted(COMPILED), built


def fresh_environment(folder: Path, wheel: Path) -> Path:
    """A new virtual environment holding ``wheel`` (its ``bin/`` folder); the web extra's packages
    come from this environment's folders, after its own."""
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(folder)], check=True)
    install = [
        *pip_in(folder),
        "install",
        "--no-deps",
        "--no-index",
        "--no-compile",
        "-q",
    ]
    subprocess.run([*install, str(wheel)], check=True)
    own = folder / "lib" / f"python{sys.version_info.major}.{sys.version_info.minor}" / "site-packages"
    borrowed = dict.fromkeys([sysconfig.get_paths()["purelib"], sysconfig.get_paths()["platlib"]])
    (own / "zz-borrowed-web-extra.pth").write_text("\n".join(borrowed) + "\n")
    return folder / "bin"


@contextmanager
def serving(bin_folder: Path, cwd: Path) -> Iterator[str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("DORF_") and k != "PYTHONPATH"}
    env["XDG_DATA_HOME"] = str(cwd / "data")
    command = [str(bin_folder / "dorf"), "serve", "--port", "0", "--db", "dorf.sqlite3", "--ai-workers", "0"]
    process = subprocess.Popen(
        command, cwd=cwd, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
    )
    try:
        assert process.stdout is not None and process.stderr is not None
        line = process.stdout.readline()
        assert line.startswith("dorf: playing at http://127.0.0.1:"), line + process.stderr.read()
        yield line.split()[3].rstrip("/")
    finally:
        process.terminate()
        process.wait(timeout=30)


def fetch(url: str) -> str:
    with urllib.request.urlopen(url, timeout=20) as response:
        assert response.status == 200
        text: str = response.read().decode()
        return text


@pytest.mark.parametrize("kind", KINDS)
def test_a_fresh_environment_serves_the_page_and_a_move(
    kind: str, wheels: dict[str, Path], tmp_path: Path
) -> None:
    from test_server_helpers import Socket, legal_move
    from websockets.sync.client import connect

    bin_folder = fresh_environment(tmp_path / "env", wheels[kind])
    where = subprocess.run(
        [
            str(bin_folder / "python"),
            "-c",
            "import dorf, dorf.rules.area as a; print(dorf.__file__, a.backend())",
        ],
        capture_output=True,
        text=True,
        check=True,
    ).stdout.split()
    assert where[0].startswith(str(tmp_path / "env")), where  # the wheel's dorf, not the tree's
    assert where[1] == ("pure" if kind == "pure" or not has_compiler() else "compiled"), where
    (tmp_path / "run").mkdir()
    with serving(bin_folder, tmp_path / "run") as base:
        page = fetch(base + "/")
        script = re.search(r'<script type="module" src="(/static/[^"]*main\.js)"', page)
        style = re.search(r'<link rel="stylesheet" href="(/static/[^"]*style\.css)"', page)
        assert script and style, page
        assert "import" in fetch(base + script[1]) and "{" in fetch(base + style[1])
        made = post(base + "/api/games", {"mode": "coop", "seats": [{"kind": "here"}]})
        with connect(base.replace("http://", "ws://") + f"/ws/{made['id']}", open_timeout=10) as ws:
            sock = Socket(_Adapter(ws))
            sock.receive()
            sock.hello([made["tokens"]["0"]])
            reply = sock.request(legal_move(sock.sync(), 0))
            assert reply["type"] == "ok" and reply["version"] == 1, reply
            sock.wait_saved(1)
        assert json.loads(fetch(base + "/api/games/" + made["id"]))["version"] == 1
    assert (tmp_path / "run" / "dorf.sqlite3").exists()


class _Adapter:
    """websockets' client with the two methods :class:`Socket` uses."""

    def __init__(self, ws: object) -> None:
        self.ws = ws

    def receive_json(self) -> object:
        return json.loads(self.ws.recv(timeout=20))  # type: ignore[attr-defined]

    def send_text(self, text: str) -> None:
        self.ws.send(text)  # type: ignore[attr-defined]
