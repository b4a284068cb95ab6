"""The words of each mode on invitations (issue 63, item 6), in English and German: an opponent
in the Duel and Head to Head, the other players in the cooperative game, on the card's title,
its note, each link's label, a seat still waiting, and the join page.  Cheap: the catalogs and
the modules that choose the words (the browser test of the card's title is in
tests/e2e/test_player_paths.py)."""

from __future__ import annotations

import json
import re
from typing import Any

import pytest

from dorf.server.edge.assets import web_root

WEB = web_root()
#: The texts of an invitation that differ by mode (``KEY.versus``, ``KEY.coop``).
INVITATION = ("share.invite_title", "share.invite_note", "share.invite_for", "share.waits", "join.invites")
#: What names the other side of a game of two, in each language.
OPPONENT = {
    "en": re.compile(r"\bopponent|against\b|one against"),
    "de": re.compile(r"Gegner|heraus|gegen dich"),
}
TOGETHER = {
    "en": re.compile(r"together|other players?|with you|seat", re.IGNORECASE),
    "de": re.compile(r"gemeinsam|Mitspiel|mit dir|Platz"),
}


def catalog(lang: str) -> dict[str, Any]:
    words: dict[str, Any] = json.loads((WEB / "lang" / f"{lang}.json").read_text(encoding="utf-8"))
    return words


def forms(value: Any) -> list[str]:
    return list(value.values()) if isinstance(value, dict) else [value]


@pytest.mark.parametrize("lang", ["en", "de"])
def test_each_mode_has_its_own_words_on_an_invitation(lang: str) -> None:
    words = catalog(lang)
    for key in INVITATION:
        versus, coop = words[f"{key}.versus"], words[f"{key}.coop"]
        assert versus != coop, key
        assert key not in words, f"{key}: one text for every mode is left"
        for text in forms(versus):
            assert OPPONENT[lang].search(text), (key, text)
        for text in forms(coop):
            assert not OPPONENT[lang].search(text), (key, text)
            assert TOGETHER[lang].search(text), (key, text)


def test_the_card_and_the_join_page_choose_the_words_of_their_game() -> None:
    cards = (WEB / "cards.js").read_text(encoding="utf-8")
    lobby = (WEB / "lobby.js").read_text(encoding="utf-8")
    for key in ("share.invite_title", "share.invite_note", "share.invite_for", "share.waits"):
        assert f"t(`{key}.${{words}}`" in cards, key
        assert f't("{key}"' not in cards, key
    assert 'const words = game.mode === "coop" ? "coop" : "versus";' in cards
    assert 't(`join.invites.${game.mode === "coop" ? "coop" : "versus"}`' in lobby
