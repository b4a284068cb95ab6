"""The examples of docs/rl.md run as written."""

from __future__ import annotations

import doctest

from repo import DOCS

DOC = DOCS / "rl.md"


def test_rl_md_examples() -> None:
    result = doctest.testfile(str(DOC), module_relative=False, optionflags=doctest.ELLIPSIS)
    assert result.attempted > 0 and result.failed == 0
