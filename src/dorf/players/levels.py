"""Levels for people: ``easy``, ``medium``, ``hard`` and ``expert``, each a player at a fixed budget.

The levels are data (``dorf/data/levels.json``): a name, the label a lobby
shows, the player spec it stands for, and what it was measured to do in each
mode (its mean solo score, or how often it beats the level below), with the
commands that measured it in ``docs/players.md``.

>>> [level.name for level in levels()]
['easy', 'medium', 'hard', 'expert']
>>> level_spec("medium") is not None, level_spec("greedy")
(True, None)
"""

from __future__ import annotations

import functools
import json
from dataclasses import dataclass
from importlib import resources

LEVELS_FILE = "levels.json"
MODES = ("coop", "duel", "head-to-head")


@dataclass(frozen=True)
class Level:
    """A level: its name, label, player spec and measured figure in each mode."""

    name: str
    label: str
    player: str
    figures: dict[str, str]

    def as_json(self, mode: str = "coop") -> dict[str, object]:
        """The ``GET /api/levels`` entry: ``figure`` for ``mode``, and ``figures`` for every mode."""
        return {
            "name": self.name,
            "player": self.name,
            "spec": self.player,
            "label": self.label,
            "figure": self.figures.get(mode, ""),
            "figures": dict(self.figures),
        }


@functools.cache
def _read() -> tuple[Level, ...]:
    """The levels file, read once and kept: two threads that ask at once may both read it, but
    each makes its own tuple (filling one shared list, they could each append every level)."""
    text = resources.files("dorf.data").joinpath(LEVELS_FILE).read_text(encoding="utf-8")
    found = []
    for entry in json.loads(text)["levels"]:
        figures = {mode: str(entry["figures"][mode]) for mode in MODES}
        found.append(Level(entry["name"], entry["label"], entry["player"], figures))
    return tuple(found)


def levels() -> list[Level]:
    """The levels, easiest first (read once from the package's data)."""
    return list(_read())


def level_spec(name: str) -> str | None:
    """The player spec a level stands for, or None if ``name`` is not a level."""
    for level in levels():
        if level.name == name:
            return level.player
    return None


__all__ = ["LEVELS_FILE", "Level", "level_spec", "levels"]
