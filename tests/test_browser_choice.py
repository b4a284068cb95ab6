"""Which Chromium the browser tests and the pictures run (:func:`dorf.testing.browser.chromium_path`):
the one named by ``$DORF_CHROMIUM`` when it exists, else Debian's headless shell before its full
browser, and none when none is installed (the browser tests then fail, saying what to install)."""

from __future__ import annotations

from pathlib import Path

import pytest

from dorf.testing import browser


def test_the_named_chromium_is_used_and_a_missing_one_is_none(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    named = tmp_path / "my-chromium"
    named.write_text("")
    monkeypatch.setenv("DORF_CHROMIUM", str(named))
    assert browser.chromium_path() == str(named)
    monkeypatch.setenv("DORF_CHROMIUM", str(tmp_path / "gone"))
    assert browser.chromium_path() is None


def test_debians_headless_shell_comes_before_its_browser(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    shell, full = tmp_path / "chromium-headless-shell", tmp_path / "chromium"
    monkeypatch.delenv("DORF_CHROMIUM", raising=False)
    monkeypatch.setenv("PATH", str(tmp_path / "bin"))
    monkeypatch.setattr(browser, "DEBIAN_CHROMIUMS", (str(shell), str(full)))
    assert browser.chromium_path() is None
    full.write_text("")
    assert browser.chromium_path() == str(full)
    shell.write_text("")
    assert browser.chromium_path() == str(shell)
