"""The service reads as its map (docs/server.md, "The map of the service"; issue 30): folders by
job, small modules, one interface to the storage, and no branch on the game anywhere but the
views of it."""

from __future__ import annotations

import ast
import re
from pathlib import Path

from repo import DOCS, SRC

SERVER = SRC / "dorf" / "server"
#: The longest module of the service, in lines.
MAX_LINES = 600
#: Modules at most loose at the top of the service (the rest in its folders).
MAX_LOOSE = 8
#: Where the game's own differences may be named: how a client sees a game.
VIEWS = {SERVER / "protocol" / "describe.py", SERVER / "protocol" / "views.py"}
#: A branch on the game: on its mode's name, or on the type of its state or view.
BRANCH = re.compile(
    r"""mode\s*(?:==|!=)\s*["']|mode\s+(?:not\s+)?in\s+\(["']|"""
    r"isinstance\([^)]*\b(?:CoopState|DuelState|HeadToHeadState|PlayerView|DuelView|HeadToHeadView)\b"
)


def modules() -> list[Path]:
    return sorted(SERVER.rglob("*.py"))


def test_no_module_of_the_service_is_over_600_lines() -> None:
    long = {
        str(p.relative_to(SERVER)): n for p in modules() if (n := len(p.read_text().splitlines())) > MAX_LINES
    }
    assert long == {}


def test_at_most_8_modules_are_loose_at_the_top_and_the_rest_are_in_folders_of_their_job() -> None:
    loose = sorted(p.name for p in SERVER.glob("*.py"))
    assert len(loose) <= MAX_LOOSE, loose
    folders = sorted(p.name for p in SERVER.iterdir() if p.is_dir() and p.name != "__pycache__")
    assert {"computer", "edge", "protocol", "round", "storage"} <= set(folders)
    assert all((SERVER / folder / "__init__.py").exists() for folder in folders), folders
    mapped = DOCS.joinpath("server.md").read_text(encoding="utf-8").split("## The map of the service")[1]
    for folder in folders:
        assert f"{folder}/" in mapped.split("##")[0], folder


def test_nothing_branches_on_the_game_but_the_views() -> None:
    found = [
        f"{p.relative_to(SERVER)}:{n}: {line.strip()}"
        for p in modules()
        if p not in VIEWS
        for n, line in enumerate(p.read_text().splitlines(), 1)
        if BRANCH.search(line)
    ]
    assert found == []


def test_the_check_catches_a_branch_on_the_game() -> None:
    for line in (
        'if mode == "duel":',
        "if isinstance(state, HeadToHeadState):",
        "elif session.mode != 'coop':",
    ):
        assert BRANCH.search(line), line
    assert not BRANCH.search("mode = MODES[name]")


def test_the_hub_is_handed_its_storage_and_never_asks_which() -> None:
    """``self.link is ...`` branches are gone, and only ``storage/__init__.py`` chooses a database."""
    for path in modules():
        text = path.read_text()
        assert "self.link is" not in text, path
        if path.parent.name != "storage":
            for node in ast.walk(ast.parse(text)):
                if isinstance(node, ast.ImportFrom) and node.module:
                    chosen = node.module in ("dorf.server.storage.sqlite", "dorf.server.storage.postgres")
                    assert not chosen, f"{path.relative_to(SERVER)} imports {node.module}"
