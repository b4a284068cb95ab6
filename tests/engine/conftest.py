"""The engine's tests run on both play-area backends: the compiled core and the pure Python one.

Every test here gets an extra parameter, ``[compiled]`` and ``[pure]``, and runs with
``PlayArea()`` making areas of that backend (``dorf.rules.area.use_backend``), except the
property tests (``test_property*``): those play many random games against the from-scratch
reference on the default backend only, since ``test_backends.py`` plays random games of every
mode on both backends in step and compares everything after every placement (so the pure
backend matches the reference wherever the compiled one does).  ``test_backends.py`` compares
the two itself and takes no parameter.

Where the compiled core is not built (no C compiler, or DORF_PURE=1) everything runs once,
pure; ``test_backends.py`` fails that run if DORF_REQUIRE_COMPILED=1 (as ``./run.sh test`` sets
it where a C compiler is).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from dorf.rules.area import COMPILED

AVAILABLE = ["compiled", "pure"] if COMPILED is not None else ["pure"]
#: Modules that run on the default backend only (see above).
ONE_BACKEND = ("test_property", "test_backends")


def pytest_generate_tests(metafunc: pytest.Metafunc) -> None:
    stem = Path(metafunc.definition.fspath).stem
    if not stem.startswith(ONE_BACKEND):
        metafunc.parametrize("engine_backend", AVAILABLE, indirect=True)
