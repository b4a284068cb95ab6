"""The examples of docs/engine.md run as written (the README's, moved there, among them)."""

from __future__ import annotations

import doctest

from repo import DOCS

DOC = DOCS / "engine.md"


def test_engine_md_examples() -> None:
    result = doctest.testfile(str(DOC), module_relative=False, optionflags=doctest.ELLIPSIS)
    assert result.attempted >= 15 and result.failed == 0
