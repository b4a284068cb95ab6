"""docs/server.md documents every message type, error code and option of the server."""

from __future__ import annotations

import re

from dorf.server.cli import add_serve_parser
from dorf.server.protocol.messages import CLIENT_TYPES
from repo import ROOT

DOC = (ROOT / "docs" / "server.md").read_text(encoding="utf-8")


def test_every_client_message_type_is_documented() -> None:
    for kind in CLIENT_TYPES:
        assert f'{{"type": "{kind}"' in DOC, kind


def test_every_error_code_is_documented() -> None:
    codes: set[str] = set()
    for path in (ROOT / "src" / "dorf" / "server").rglob("*.py"):
        codes |= set(re.findall(r'ProtocolError\(\s*"([a-z-]+)"', path.read_text(encoding="utf-8")))
    assert codes >= {"bad-json", "too-large", "illegal", "out-of-turn", "not-your-seat"}
    table = DOC.split("| code | when |")[1]
    for code in sorted(codes - {"broken", "campaign", "bad-record"}):
        assert f"`{code}`" in table, code


def test_every_serve_option_is_documented() -> None:
    import argparse

    parser = argparse.ArgumentParser()
    serve = add_serve_parser(parser.add_subparsers())
    for action in serve._actions:
        for option in action.option_strings:
            if option.startswith("--") and option != "--help":
                assert f"`{option}" in DOC, option
