"""The package's layers, read from the imports themselves (docs/engine.md, "Layers").

Every ``import`` and ``from ... import`` in ``src/dorf`` (at module level or
inside a function) is checked: a part of dorf may import only itself, the parts
listed for it below, and, for the engine (rules, games, formats, players), the
standard library alone.  The engine's C sources are read too: they may not name
what belongs to a layer above them (see "the compiled sources" below).

Inside ``dorf.server`` the units (``round``, ``storage``, ``config.py``, ...) have
levels of their own (``SERVER_LEVELS``, "the server's inner layers" below), and no
module of ``src/dorf`` may reach itself through its imports ("no import circle").
Imports under ``if TYPE_CHECKING:`` and inside functions count everywhere.
"""

from __future__ import annotations

import ast
import functools
import itertools
import re
import sys
from collections.abc import Iterator
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
    "version": set(),
    "arguments": set(),
    "data": set(),
    "web": set(),
    "terminal": {*ENGINE},
    "campaign": {*ENGINE, "db"},
    "rl": {*ENGINE, "terminal"},
    # the product's commands that drive many games: dorf simulate, dorf tune, dorf bench
    "commands": {*ENGINE, "arguments", "bots"},
    # the developer's benchmarks and research tools (python -m dorf.lab.NAME)
    "lab": {*ENGINE, "server", "testing"},
    "server": {*ENGINE, "campaign", "db", "arguments", "version"},
    # players in programs of their own: shown what the page shows (server's GameSession.document)
    "bots": {*ENGINE, "arguments", "server"},
    # what the tests and the developer's tools share (servers on loopback, PostgreSQL, Chromium)
    "testing": {"server"},
    "dorf": {*ENGINE, "version"},
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
    for node in import_statements(tree):
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
#: the layers and their satellites, the developer's tools grouped in ``lab``.  Two more than the 14
#: before issue 30: ``bots`` (players in programs of their own are product code, out of ``lab``) and
#: ``testing`` (what the tests and the tools share, kept out of the product's parts); one more in
#: issue 62: ``commands`` (``dorf simulate``, ``dorf tune``, ``dorf bench``, out of ``lab`` too);
#: one more in issue 64: ``version.py`` (the version the front door, the build and the server read).
TOP_LEVEL = 18


def test_the_top_level_reads_as_the_layers_and_their_satellites() -> None:
    entries = sorted(
        p.name
        for p in SRC.iterdir()
        if p.name not in ("__init__.py", "py.typed", "__pycache__") and not p.name.endswith(".egg-info")
    )
    assert len(entries) <= TOP_LEVEL, entries


@pytest.mark.slow
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


#: The developer's tools (``python -m dorf.lab.NAME``: all of ``lab`` since the product's commands
#: moved to ``commands``) and what the tests and the tools share: no other module of dorf may import
#: them, whatever its part's layer allows.
TOOLS = ("dorf.lab", "dorf.testing")


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


@pytest.mark.slow
def test_no_product_module_imports_a_tool() -> None:
    assert tool_imports() == []


@pytest.mark.parametrize(
    ("path", "source"),
    [
        ("commands/simulate.py", "from dorf.lab.loadtest import run\n"),
        ("commands/simulate.py", "from dorf.lab import capacity\n"),
        ("commands/bench.py", "from dorf.lab import screenshots\n"),
        ("commands/tune.py", "from ..lab import capacity\n"),
        ("cli.py", "import dorf.lab.clairvoyant\n"),
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
COMMON_WORDS = {"arguments", "data", "dorf", "version"}
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


# --- the server's inner layers ----------------------------------------------------------
#
# Inside ``dorf.server`` a *unit* is a folder (``round``, ``storage``, ...) or a top-level
# module (``config.py``, ``cli.py``, ``campaigns.py``, the composition root).


def module_name(path: Path, src: Path) -> str:
    """``src/dorf/server/round/moves.py`` as ``dorf.server.round.moves`` (a package by its name)."""
    return ".".join((src.name, *path.relative_to(src).with_suffix("").parts)).removesuffix(".__init__")


def import_statements(tree: ast.Module) -> Iterator[ast.Import | ast.ImportFrom]:
    """Every import of a module, at any depth: statements only are walked (an import is one),
    not the expressions, which makes it several times quicker than ``ast.walk``."""
    todo: list[ast.AST] = [tree]
    while todo:
        node = todo.pop()
        if isinstance(node, (ast.Import, ast.ImportFrom)):
            yield node
        for field in ("body", "orelse", "finalbody", "handlers", "cases"):
            children = getattr(node, field, None)
            if isinstance(children, list):
                todo.extend(reversed(children))


@functools.cache
def import_graph(src: Path) -> dict[str, dict[str, int]]:
    """Every module of the package at ``src`` and the modules of it that it imports, each with
    the line of its first import: module level, inside functions and under ``TYPE_CHECKING``
    alike (an import is an import wherever it stands).  ``from a import b`` names ``a.b`` where
    that is a module, ``a`` otherwise; an import of a name inside a module names the module.
    The parents a submodule's import runs as well (``a`` for ``a.b``) are not counted: a
    package's ``__init__`` re-exporting its own modules would otherwise always be a circle.
    The compiled modules (``rules/_accel.c``, ``players/_quick.c``) are leaves: they import
    nothing of dorf, and ``from dorf.players import _quick`` names them, not ``dorf.players``."""
    paths = {module_name(path, src): path for path in sorted(src.rglob("*.py"))}
    compiled = {module_name(path, src) for path in src.rglob("*.c")} - set(paths)
    known = set(paths) | compiled
    graph: dict[str, dict[str, int]] = {}
    for module, path in paths.items():
        package = module if path.name == "__init__.py" else module.rpartition(".")[0]
        edges = graph.setdefault(module, {})
        for node in import_statements(parse(path)):
            if isinstance(node, ast.Import):
                named = [alias.name for alias in node.names]
            else:
                base = node.module or ""
                if node.level:
                    anchor = package.rsplit(".", node.level - 1)[0] if node.level > 1 else package
                    base = f"{anchor}.{base}" if base else anchor
                named = [
                    f"{base}.{alias.name}" if f"{base}.{alias.name}" in known else base
                    for alias in node.names
                ]
            for name in named:
                if name in compiled:
                    continue
                while name and name not in paths:  # a name inside a module: the module
                    name = name.rpartition(".")[0]
                if name and name != module:
                    edges.setdefault(name, node.lineno)
    return graph


#: The units the composition root may be called (one module: lila's ``Env``).
ROOTS = ("env", "hub")
#: The server's units from the top down: a unit may import itself and the units of the levels
#: below its own, never one of its own level or above.  ``cli`` (``dorf serve``) is the top; the
#: composition root builds the storage, the events, the roles and the features and connects
#: them, so it alone imports them all and nothing but ``cli`` imports it; ``edge`` (HTTP,
#: websockets, the checks at the door) calls the features and the round and is imported by
#: nobody but those two.  The features (``lobby``, ``daily``, ``campaigns``) never import one
#: another (they hear of games through the round's events); they may use the players
#: (accounts, ratings, leaders) and the computer (the daily challenge's expert and coach).  The
#: computer seats play in the round; the round (one game's session, moves, seats, clocks, the
#: events it publishes) knows no feature and speaks the protocol (messages, what a client
#: sees, deltas); storage is below them all and imports no feature; ``config`` (the options,
#: plain values) may be imported by every unit and imports none.  ``dorf.server``'s own
#: ``__init__`` imports nothing of the server, and every unit may import it (it runs first
#: anyway).
SERVER_LEVELS: tuple[frozenset[str], ...] = tuple(
    frozenset(level)
    for level in (
        {"cli", "admin", "upkeep"},
        set(ROOTS),
        {"edge"},
        {"lobby", "daily", "campaigns"},
        {"players"},
        {"computer"},
        {"round"},
        {"protocol"},
        {"storage"},
        {"config", "settings"},
    )
)
SERVER = "dorf.server"


def server_unit(module: str) -> str | None:
    """The unit of a module of ``dorf.server`` (``__init__`` for the package itself)."""
    if module == SERVER:
        return "__init__"
    if not module.startswith(SERVER + "."):
        return None
    return module.split(".")[2]


def server_allowed(unit: str) -> set[str]:
    """The units ``unit`` may import (besides itself)."""
    for depth, level in enumerate(SERVER_LEVELS):
        if unit in level:
            return set().union(*SERVER_LEVELS[depth + 1 :])
    return set()


def server_violations(src: Path | None = None) -> list[str]:
    """Every import inside ``dorf.server`` that goes up or sideways in :data:`SERVER_LEVELS`."""
    src = SRC if src is None else src
    problems = []
    for module, edges in sorted(import_graph(src).items()):
        unit = server_unit(module)
        if unit is None:
            continue
        for target, line in sorted(edges.items(), key=lambda edge: edge[1]):
            other = server_unit(target)
            if other in (None, unit, "__init__") or other in server_allowed(unit):
                continue  # the package itself runs before any of its modules anyway
            where = f"{module}:{line} imports {target}"
            if other in ROOTS:
                problems.append(f"{where}: only cli imports the composition root ({other})")
            elif other == "edge":
                problems.append(f"{where}: nothing but cli and the composition root imports edge")
            elif unit == "__init__":
                problems.append(f"{where}: dorf.server's own __init__ imports nothing of the server")
            else:
                problems.append(f"{where}: {unit} may not import {other}")
    return problems


def server_units(src: Path) -> set[str]:
    server = src / "server"
    return {p.stem for p in server.glob("*.py") if p.stem != "__init__"} | {
        p.name for p in server.iterdir() if p.is_dir() and p.name != "__pycache__"
    }


def test_every_unit_of_the_server_has_a_level() -> None:
    placed = set().union(*SERVER_LEVELS)
    units = server_units(SRC)
    assert units <= placed, f"unplaced in SERVER_LEVELS: {sorted(units - placed)}"
    roots = sorted(units & set(ROOTS))
    assert len(roots) == 1, f"one composition root, {roots}"


@pytest.mark.slow
def test_the_server_imports_follow_its_layers() -> None:
    found = server_violations()
    levels = " > ".join(", ".join(sorted(level)) for level in SERVER_LEVELS)
    assert not found, f"imports against SERVER_LEVELS ({levels}): {len(found)}\n" + "\n".join(found)


def _write(root: Path, files: dict[str, str]) -> Path:
    for relative, text in files.items():
        (root / relative).parent.mkdir(parents=True, exist_ok=True)
        (root / relative).write_text(text, encoding="utf-8")
    return root


def test_the_checks_count_type_checking_and_local_imports(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """An import under ``if TYPE_CHECKING:`` or inside a function is an import for every check."""
    source = (
        "from typing import TYPE_CHECKING\n"
        "if TYPE_CHECKING:\n"
        "    from dorf.server.hub import Hub\n"
        "def f():\n"
        "    try:\n"
        "        from ..protocol import wire\n"
        "    finally:\n"
        "        from . import clock\n"
    )
    fake = _write(
        tmp_path / "dorf",
        {
            "server/hub.py": "",
            "server/round/moves.py": source,
            "server/round/clock.py": "",
            "server/protocol/__init__.py": "",
            "server/protocol/wire.py": "",
        },
    )
    assert import_graph(fake)["dorf.server.round.moves"] == {
        "dorf.server.hub": 3,
        "dorf.server.protocol.wire": 6,
        "dorf.server.round.clock": 8,
    }
    monkeypatch.setattr(sys.modules[__name__], "SRC", fake)
    assert sorted(imported_modules(fake / "server/round/moves.py")) == [
        (1, "typing"),
        (3, "dorf.server.hub"),
        (6, "dorf.server.protocol"),
        (8, "dorf.server.round"),
    ]


@pytest.mark.parametrize(
    ("path", "source", "expected"),
    [
        (
            "server/round/moves.py",
            "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from dorf.server.hub import Hub\n",
            "dorf.server.round.moves:3 imports dorf.server.hub: only cli imports the composition root (hub)",
        ),
        (
            "server/lobby/lobby.py",
            "def f():\n    from dorf.server.edge import limits\n",
            "dorf.server.lobby.lobby:2 imports dorf.server.edge.limits: nothing but cli and the composition"
            " root imports edge",
        ),
        (
            "server/round/seats.py",
            "from ..players.ratings import rate\n",
            "dorf.server.round.seats:1 imports dorf.server.players.ratings: round may not import players",
        ),
        (
            "server/daily/challenge.py",
            "from dorf.server.lobby import pairing\n",
            "dorf.server.daily.challenge:1 imports dorf.server.lobby.pairing: daily may not import lobby",
        ),
        (
            "server/storage/base.py",
            "from dorf.server.lobby.pairing import Seek\n",
            "dorf.server.storage.base:1 imports dorf.server.lobby.pairing: storage may not import lobby",
        ),
        (
            "server/config.py",
            "from dorf.server.storage import Storage\n",
            "dorf.server.config:1 imports dorf.server.storage: config may not import storage",
        ),
        (
            "server/__init__.py",
            "from dorf.server.config import ServerConfig\n",
            "dorf.server:1 imports dorf.server.config: dorf.server's own __init__ imports nothing of the"
            " server",
        ),
        (
            "server/edge/app.py",
            "from dorf.server.env import Env\n",
            "dorf.server.edge.app:1 imports dorf.server.env: only cli imports the composition root (env)",
        ),
    ],
)
def test_the_check_catches_an_import_against_the_server_layers(
    path: str, source: str, expected: str, tmp_path: Path
) -> None:
    fake = _write(
        tmp_path / "dorf",
        {
            "server/hub.py": "from dorf.server.round import moves\nfrom dorf.server.edge import limits\n",
            "server/env.py": "",
            "server/cli.py": "from dorf.server import hub\n",
            "server/edge/limits.py": "from dorf.server.lobby import pairing\n",
            "server/lobby/pairing.py": "from dorf.server.players import ratings\n",
            "server/players/ratings.py": "from dorf.server.config import Options\n",
            "server/storage/__init__.py": "",
            "server/config.py": "",
            path: source,
        },
    )
    assert server_violations(fake) == [expected]


# --- no import circle -------------------------------------------------------------------


def knots(graph: dict[str, dict[str, int]]) -> list[set[str]]:
    """The knots of modules that reach one another through their imports (strongly connected
    components of two modules or more, by Tarjan's algorithm), in the order of their first
    module."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[set[str]] = []

    def enter(node: str) -> Iterator[str]:
        index[node] = low[node] = len(index)
        stack.append(node)
        on_stack.add(node)
        return iter(sorted(graph.get(node, ())))

    for start in sorted(graph):
        if start in index:
            continue
        work = [(start, enter(start))]  # iterative, so a long chain does not hit the recursion limit
        while work:
            node, targets = work[-1]
            for target in targets:
                if target not in index:
                    work.append((target, enter(target)))
                    break
                if target in on_stack:
                    low[node] = min(low[node], index[target])
            else:
                work.pop()
                if work:
                    low[work[-1][0]] = min(low[work[-1][0]], low[node])
                if low[node] == index[node]:
                    knot = set(stack[stack.index(node) :])
                    del stack[stack.index(node) :]
                    on_stack -= knot
                    if len(knot) > 1:
                        found.append(knot)
    return sorted(found, key=min)


def circle_in(graph: dict[str, dict[str, int]], knot: set[str]) -> list[str]:
    """The shortest circle of a knot through its first module, as ``[a, b, ..., a]``."""
    first = min(knot)
    came_from: dict[str, str] = {}
    frontier = [first]
    while first not in came_from:  # breadth first, inside the knot
        following = []
        for node in frontier:
            for target in sorted(graph[node]):
                if target in knot and target not in came_from:
                    came_from[target] = node
                    following.append(target)
        frontier = following
    path = [first]
    while path[-1] != first or len(path) == 1:
        path.append(came_from[path[-1]])
    return path[::-1]


def circles(graph: dict[str, dict[str, int]]) -> list[str]:
    """One circle for each knot, as ``a:LINE -> b:LINE -> ... -> a`` (the line of each step's
    import), followed by the knot's size and modules."""
    found = []
    for knot in knots(graph):
        circle = circle_in(graph, knot)
        steps = " -> ".join(f"{a}:{graph[a][b]}" for a, b in itertools.pairwise(circle))
        found.append(
            f"{steps} -> {circle[-1]}\n    (a knot of {len(knot)} modules: {', '.join(sorted(knot))})"
        )
    return found


def test_no_import_circle_in_the_package() -> None:
    """No module of ``src/dorf`` reaches itself through its imports, whether they stand at
    module level, inside a function or under ``TYPE_CHECKING``."""
    found = circles(import_graph(SRC))
    assert not found, f"import circles: {len(found)} (module:line of each import):\n" + "\n".join(found)


def test_the_check_catches_a_circle_in_a_graph() -> None:
    graph = {
        "a": {"b": 1},
        "b": {"c": 2},
        "c": {"a": 3, "d": 4},
        "d": {"e": 5},
        "e": {"d": 6},
        "f": {"a": 7},
    }
    assert knots(graph) == [{"a", "b", "c"}, {"d", "e"}]
    assert [circle_in(graph, knot) for knot in knots(graph)] == [["a", "b", "c", "a"], ["d", "e", "d"]]
    assert circles(graph) == [
        "a:1 -> b:2 -> c:3 -> a\n    (a knot of 3 modules: a, b, c)",
        "d:5 -> e:6 -> d\n    (a knot of 2 modules: d, e)",
    ]
    assert circles({"a": {"b": 1}, "b": {"c": 1}, "c": {"a": 1, "b": 2}}) == [
        "a:1 -> b:1 -> c:1 -> a\n    (a knot of 3 modules: a, b, c)"
    ]
    assert circles({"a": {"b": 1}, "b": {"c": 1}, "c": {}}) == []


def test_the_check_catches_a_circle_in_a_package(tmp_path: Path) -> None:
    fake = _write(
        tmp_path / "dorf",
        {
            "__init__.py": "",
            "server/__init__.py": "",
            "server/round/__init__.py": "from .moves import Mover\n",  # re-exporting is no circle
            "server/round/moves.py": "from typing import TYPE_CHECKING\n"
            "if TYPE_CHECKING:\n    from dorf.server.hub import Hub\nclass Mover: ...\n",
            "server/hub.py": "def build():\n    from dorf.server.round import moves\n",
            # a compiled module is a leaf, not the package that holds it
            "players/__init__.py": "from .evaluation import value\n",
            "players/evaluation.py": "def value():\n    from dorf.players import _quick\n",
            "players/_quick.c": "/* the quick evaluation */\n",
        },
    )
    assert import_graph(fake)["dorf.players.evaluation"] == {}
    assert circles(import_graph(fake)) == [
        "dorf.server.hub:2 -> dorf.server.round.moves:3 -> dorf.server.hub\n"
        "    (a knot of 2 modules: dorf.server.hub, dorf.server.round.moves)"
    ]
