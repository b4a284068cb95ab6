"""docs/campaign.md says what the campaign does."""

from __future__ import annotations

import json
import re
import textwrap

from dorf.campaign.cli import add_parser
from dorf.campaign.pad import FIELD_NAMES, Limits, read_pad
from dorf.campaign.sheet import parse_sheet
from dorf.cli import build_parser
from repo import DOCS

DOC = (DOCS / "campaign.md").read_text(encoding="utf-8")


def _block(kind: str) -> str:
    found = re.findall(rf"```{kind}\n(.*?)\n *```", DOC, re.S)
    assert found, kind
    return textwrap.dedent(str(found[0]))


def test_the_example_sheet_reads_and_its_fork_works() -> None:
    sheet = parse_sheet(_block("tsv") + "\n", "docs/campaign.md")
    assert sheet.name == "our kitchen-table sheet"
    walk = sheet.advance((), 3)
    assert walk.reached == ("c1", "c2", "box1", "c3", "split") and walk.waiting == "split"
    assert sheet.advance(walk.reached, 1, {"split": "right"}).reached == ("right",)


def test_the_example_pad_reads() -> None:
    assert read_pad(json.loads(_block("json")), Limits.base()).total == 77


def test_every_condition_field_is_documented() -> None:
    for name in FIELD_NAMES:
        assert f"`{name}`" in DOC, name


def test_every_action_is_documented() -> None:
    parser = build_parser()
    sub = next(a for a in parser._actions if a.dest == "command")
    campaign = sub.choices["campaign"]  # type: ignore[attr-defined]
    actions = next(a for a in campaign._actions if a.dest == "campaign_command")
    for action in actions.choices:
        assert re.search(rf"\| `{action}[ `]", DOC) or f"`{action} NAME`" in DOC, action
    assert callable(add_parser)
