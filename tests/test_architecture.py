"""The package's layers, read from the imports themselves (docs/engine.md, "Layers").

Every ``import`` and ``from ... import`` in ``src/dorf`` (at module level or
inside a function) is checked: a part of dorf may import only itself, the parts
listed for it below, and, for the engine (rules, games, formats, players), the
standard library alone.
"""

from __future__ import annotations

import ast
import sys
from pathlib import Path

import pytest

SRC = Path(__file__).resolve().parent.parent / "src" / "dorf"

ENGINE = ("rules", "games", "formats", "players")
#: Each part of dorf and the other parts it may import.  A part is a subpackage
#: or a top-level module of dorf; ``dorf`` itself is the front door.
ALLOWED: dict[str, set[str]] = {
    "rules": set(),
    "games": {"rules"},
    "formats": {"rules", "games"},
    "players": {"rules", "games", "formats"},
    "db": set(),
    "arguments": set(),
    "data": set(),
    "web": set(),
    "terminal": {*ENGINE},
    "campaign": {*ENGINE, "db"},
    "rl": {*ENGINE, "terminal"},
    "lab": {*ENGINE, "arguments", "server"},
    "server": {*ENGINE, "campaign", "db", "arguments"},
    "dorf": {*ENGINE},
}
ALLOWED["cli"] = set(ALLOWED) - {"cli", "dorf"}


def part_of(path: Path) -> str:
    relative = path.relative_to(SRC)
    if len(relative.parts) == 1:
        return "dorf" if relative.stem == "__init__" else relative.stem
    return relative.parts[0]


def imported_modules(path: Path) -> list[tuple[int, str]]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    package = ".".join(("dorf", *path.relative_to(SRC).with_suffix("").parts[:-1]))
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found += [(node.lineno, alias.name) for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.rsplit(".", node.level - 1)[0] if node.level > 1 else package
                found.append((node.lineno, f"{base}.{node.module}" if node.module else base))
            else:
                found.append((node.lineno, node.module or ""))
    return found


def violations() -> list[str]:
    problems = []
    for path in sorted(SRC.rglob("*.py")):
        part = part_of(path)
        for line, module in imported_modules(path):
            where = f"{path.relative_to(SRC.parent)}:{line} imports {module}"
            top = module.split(".")[0]
            if top == "__future__":
                continue
            if top != "dorf":
                if part in ENGINE and top not in sys.stdlib_module_names:
                    problems.append(f"{where}: the engine uses the standard library only")
                continue
            names = module.split(".")
            target = names[1] if len(names) > 1 else "dorf"
            if target != part and target not in ALLOWED[part]:
                problems.append(f"{where}: {part} may not import {target}")
    return problems


def test_every_part_of_the_package_has_a_place_in_the_layers() -> None:
    parts = {part_of(p) for p in SRC.rglob("*.py")} | {p.name for p in SRC.iterdir() if p.is_dir()}
    parts.discard("__pycache__")
    assert parts <= set(ALLOWED), f"unplaced: {sorted(parts - set(ALLOWED))}"


#: The most entries ``src/dorf`` may hold (besides ``__init__.py``, ``py.typed`` and caches):
#: the layers and their satellites, the tools grouped in ``lab``.
TOP_LEVEL = 14


def test_the_top_level_reads_as_the_layers_and_their_satellites() -> None:
    entries = sorted(
        p.name
        for p in SRC.iterdir()
        if p.name not in ("__init__.py", "py.typed", "__pycache__") and not p.name.endswith(".egg-info")
    )
    assert len(entries) <= TOP_LEVEL, entries


def test_imports_follow_the_layers() -> None:
    assert violations() == []


def test_the_engine_layers_only_look_down() -> None:
    order = list(ENGINE)
    for i, part in enumerate(order):
        assert ALLOWED[part] == set(order[:i]), part


@pytest.mark.parametrize(
    ("part", "source", "expected"),
    [
        ("rules", "import numpy\n", "the engine uses the standard library only"),
        ("rules", "from dorf.games.coop import CoopGame\n", "rules may not import games"),
        ("games", "from dorf.players import make_player\n", "games may not import players"),
        ("players", "from dorf.terminal.render import legend\n", "players may not import terminal"),
    ],
)
def test_the_check_catches_an_upward_import(
    part: str, source: str, expected: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    fake = tmp_path / "dorf"
    (fake / part).mkdir(parents=True)
    (fake / part / "bad.py").write_text(source, encoding="utf-8")
    monkeypatch.setattr(sys.modules[__name__], "SRC", fake)
    found = violations()
    assert len(found) == 1 and found[0].endswith(expected), found


def test_the_front_door() -> None:
    import dorf
    from dorf import (  # noqa: F401  (the names the README promises)
        CoopGame,
        DuelGame,
        HeadToHeadGame,
        Hex,
        Placement,
        load_record,
        make_player,
        read_board,
    )

    assert dorf.__version__
    assert all(hasattr(dorf, name) for name in dorf.__all__)
