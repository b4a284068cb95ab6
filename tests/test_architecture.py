"""The package's layers, read from the imports themselves (docs/engine.md, "Layers").

Every ``import`` and ``from ... import`` in ``src/dorf`` (at module level or
inside a function) is checked: a part of dorf may import only itself, the parts
listed for it below, and, for the engine (rules, games, formats, players), the
standard library alone.  The engine's C sources are read too: they may not name
what belongs to a layer above them (see "the compiled sources" below).
"""

from __future__ import annotations

import ast
import functools
import re
import sys
from pathlib import Path

import pytest

from repo import SRC as REPO_SRC

SRC = REPO_SRC / "dorf"

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
    "lab": {*ENGINE, "arguments", "server", "bots", "testing"},
    "server": {*ENGINE, "campaign", "db", "arguments"},
    # players in programs of their own: shown what the page shows (server's GameSession.document)
    "bots": {*ENGINE, "arguments", "server"},
    # what the tests and the developer's tools share (servers on loopback, PostgreSQL, Chromium)
    "testing": {"server"},
    "dorf": {*ENGINE},
}
ALLOWED["cli"] = set(ALLOWED) - {"cli", "dorf", "testing"}


def part_of(path: Path) -> str:
    relative = path.relative_to(SRC)
    if len(relative.parts) == 1:
        return "dorf" if relative.stem == "__init__" else relative.stem
    return relative.parts[0]


@functools.cache
def _tree(source: str) -> ast.Module:
    """A source's syntax tree, parsed once for every check that reads it (none changes it)."""
    return ast.parse(source)


def parse(path: Path) -> ast.Module:
    return _tree(path.read_text(encoding="utf-8"))


def imported_modules(path: Path) -> list[tuple[int, str]]:
    tree = parse(path)
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
#: the layers and their satellites, the tools grouped in ``lab``.  Two more than the 14 before
#: issue 30: ``bots`` (players in programs of their own are product code, out of ``lab``) and
#: ``testing`` (what the tests and the tools share, kept out of the product's parts).
TOP_LEVEL = 16


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


#: The developer's tools (``python -m dorf.lab.NAME``) and what the tests and the tools share:
#: no other module of dorf may import them, whatever its part's layer allows.
TOOLS = (
    "dorf.lab.loadtest",
    "dorf.lab.capacity",
    "dorf.lab.screenshots",
    "dorf.lab.clocks",
    "dorf.lab.pairing",
    "dorf.lab.clairvoyant",
    "dorf.lab.leaderboards",
    "dorf.testing",
)


def _module_of(path: Path) -> str:
    return ".".join(("dorf", *path.relative_to(SRC).with_suffix("").parts)).removesuffix(".__init__")


def _is_tool(module: str) -> bool:
    return any(module == tool or module.startswith(tool + ".") for tool in TOOLS)


def tool_imports() -> list[str]:
    """Every import of a tool by a module that is not one (``from dorf.lab import loadtest``
    and ``from . import capacity`` too)."""
    problems = []
    for path in sorted(SRC.rglob("*.py")):
        if _is_tool(_module_of(path)):
            continue
        lines: dict[int, list[str]] = {}
        for line, module in imported_modules(path):
            lines.setdefault(line, []).append(module)
        for node in ast.walk(parse(path)):
            if isinstance(node, ast.ImportFrom):
                base = lines[node.lineno][0]
                lines[node.lineno] += [f"{base}.{alias.name}" for alias in node.names]
        for line, modules in sorted(lines.items()):
            tool = next((module for module in modules if _is_tool(module)), None)
            if tool is not None:
                where = f"{path.relative_to(SRC.parent)}:{line} imports {tool}"
                problems.append(f"{where}: a product module may not import a tool")
    return problems


def test_no_product_module_imports_a_tool() -> None:
    assert tool_imports() == []


@pytest.mark.parametrize(
    ("path", "source"),
    [
        ("lab/simulate.py", "from dorf.lab.loadtest import run\n"),
        ("lab/simulate.py", "from . import capacity\n"),
        ("lab/bench.py", "from dorf.lab import screenshots\n"),
        ("server/hub.py", "from dorf.testing.net import free_port\n"),
        ("bots/seat.py", "import dorf.testing.servers\n"),
    ],
)
def test_the_check_catches_a_product_module_importing_a_tool(
    path: str, source: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    fake = tmp_path / "dorf"
    for name, text in ((path, source), ("lab/loadtest.py", "from dorf.testing.servers import launch\n")):
        (fake / name).parent.mkdir(parents=True, exist_ok=True)
        (fake / name).write_text(text, encoding="utf-8")  # a tool may import dorf.testing
    monkeypatch.setattr(sys.modules[__name__], "SRC", fake)
    found = tool_imports()
    assert len(found) == 1 and found[0].startswith(f"dorf/{path}:1 "), found
    assert found[0].endswith("a product module may not import a tool"), found


# --- the compiled sources ---------------------------------------------------------------
#
# A compiled part of the engine can reach a layer above it without importing it: by reading
# that layer's objects by attribute name (``PyObject_GetAttr(seat, "_landscapes")``) or by
# being handed its types at set-up.  The import check cannot see that, so the C sources are
# read for the names themselves, comments included: every identifier, and the words inside
# it (``seat_push``, ``TurnType``).

#: Parts whose names are ordinary words in a C comment ("its arguments", "the data").
COMMON_WORDS = {"arguments", "data", "dorf"}
#: What the games layer keeps besides its classes: seats, their turns and players, the tile
#: revealed, the tile set aside.  The rules core names none of it.
GAMES_WORDS = {
    word
    for lower in ("seat", "seats", "turn", "turns", "revealed", "set_aside", "player", "players")
    for word in (lower, lower.capitalize())
}
IDENTIFIER = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
WORD = re.compile(r"[A-Z]?[a-z0-9]+|[A-Z]+(?![a-z])")


def words_in(line: str) -> set[str]:
    """Every identifier of a line of C and the words it is made of: each run of its parts
    between ``_`` (``str_set_aside``: ``set_aside``, ``aside``, ...), each word of a part at
    its capitals (``RevealedType``: ``Revealed``, ``Type``)."""
    found = set()
    for identifier in IDENTIFIER.findall(line):
        found.add(identifier)
        parts = [part for part in identifier.split("_") if part]
        for start in range(len(parts)):
            found.update("_".join(parts[start:end]) for end in range(start + 1, len(parts) + 1))
            found.update(WORD.findall(parts[start]))
    return found


def games_names() -> set[str]:
    """The games layer's classes and the private attributes its objects keep (``self._x = ...``)."""
    names = set()
    for path in sorted((SRC / "games").rglob("*.py")):
        for node in ast.walk(parse(path)):
            if isinstance(node, ast.ClassDef):
                names.add(node.name)
            elif (
                isinstance(node, ast.Attribute)
                and isinstance(node.ctx, ast.Store)
                and isinstance(node.value, ast.Name)
                and node.value.id == "self"
                and node.attr.startswith("_")
                and not node.attr.startswith("__")
            ):
                names.add(node.attr)
    return names


def forbidden_in_c(part: str, games: set[str]) -> set[str]:
    """The names a C source of ``part`` may not contain: the parts it may not import, and, where
    it may not import the games layer, that layer's classes, private attributes and words; in
    any part but games, the games layer's private attributes (what no other layer reads)."""
    words = {other for other in ALLOWED if other != part and other not in ALLOWED[part]} - COMMON_WORDS
    if "games" not in ALLOWED[part] and part != "games":
        words |= games | GAMES_WORDS
    elif part != "games":
        words |= {name for name in games if name.startswith("_")}
    return words


def c_violations() -> list[str]:
    problems = []
    games = games_names()
    for path in sorted(SRC.rglob("*.[ch]")):
        part = part_of(path)
        if part not in ENGINE:
            continue
        forbidden = forbidden_in_c(part, games)
        where = path.relative_to(SRC.parent)
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
            for name in sorted(words_in(line) & forbidden):
                problems.append(f"{where}:{number} names {name}: {part} may not know it")
    return problems


def test_the_compiled_sources_name_nothing_above_their_layer() -> None:
    """The rules core's C (``rules/_accel.c``) knows only itself: no seat, turn, player, games
    layer or server; the players' C (``players/_quick.c``) names no layer above the players and
    none of the games layer's private attributes."""
    read = {path.relative_to(SRC).as_posix() for path in SRC.rglob("*.[ch]")}
    assert read >= {"rules/_accel.c", "players/_quick.c"}, read
    assert c_violations() == []


@pytest.mark.parametrize(
    ("path", "line", "name"),
    [
        ("rules/_accel.c", 'PyObject *stack = PyObject_GetAttrString(obj, "_landscapes");', "_landscapes"),
        ("rules/_accel.c", "static PyObject *RevealedType;", "Revealed"),
        ("rules/_accel.c", "/* the same steps as Seat.push_move */", "Seat"),
        ("rules/_accel.c", "seat_push(PyObject *module, PyObject *arg)", "seat"),
        ("rules/_accel.c", "static PyObject *str_set_aside;", "set_aside"),
        ("rules/_accel.c", "long number = PyList_GET_SIZE(turns) + 1;", "turns"),
        ("rules/_accel.c", '#include "../games/coop.h"', "games"),
        ("rules/_accel.c", "/* as the server shows it */", "server"),
        ("players/_quick.c", 'PyObject *draw = PyObject_GetAttrString(obj, "_task_of");', "_task_of"),
        ("players/_quick.c", "/* what the terminal draws */", "terminal"),
    ],
)
def test_the_check_catches_a_compiled_source_naming_a_layer_above(
    path: str, line: str, name: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    fake = tmp_path / "dorf"
    seat = "class Seat:\n    def __init__(self):\n        self._landscapes = self._task_of = None\n"
    sources = {
        "games/seat.py": seat,
        "rules/_accel.c": "/* The play area: tasks, legal moves, flags. */\n",
        "players/_quick.c": "/* The quick evaluation (dorf.players), checked on random games. */\n",
    }
    sources[path] += line + "\n"
    for relative, text in sources.items():
        (fake / relative).parent.mkdir(parents=True, exist_ok=True)
        (fake / relative).write_text(text, encoding="utf-8")
    monkeypatch.setattr(sys.modules[__name__], "SRC", fake)
    found = c_violations()
    assert found == [f"dorf/{path}:2 names {name}: {path.split('/')[0]} may not know it"], found
