"""The three games by name, as data: what a record, the server or a command line needs to make one.

>>> [mode.name for mode in MODES.values()]
['coop', 'duel', 'head-to-head']
>>> MODES["coop"].players, MODES["duel"].players, MODES["duel"].title
((1, 6), (2, 2), 'The Duel')
>>> MODES["head-to-head"].new(seed=3).mode
'head-to-head'
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from dorf.games.coop import MAX_PLAYERS, CoopGame
from dorf.games.duel import DuelGame
from dorf.games.headtohead import HeadToHeadGame
from dorf.games.state import GameState
from dorf.rules.tiles import TileSet, load_tileset


@dataclass(frozen=True)
class Mode:
    """One of the games: its name in records and on the server, its title, the tile set it is
    played with, how many players it takes, and how a game of it is dealt."""

    name: str
    title: str
    tileset: str
    players: tuple[int, int]
    _deal: Callable[[int, int, TileSet], GameState]
    #: Whether a finished game of it goes into a campaign (the Board Game has one; the Duel and
    #: Head to Head none).
    campaign: bool = False

    def new(self, seed: int, players: int | None = None, tileset: TileSet | None = None) -> GameState:
        """A new game of this mode (``players``: the fewest it takes unless given); ValueError if
        it cannot be dealt (a tile set without markers for its task tiles, a wrong count)."""
        count = self.players[0] if players is None else players
        low, high = self.players
        if not low <= count <= high:
            span = str(low) if low == high else f"{low} to {high}"
            raise ValueError(f"{self.title} is for {span} players, not {count}")
        return self._deal(seed, count, tileset or load_tileset(self.tileset))

    def seat_range(self) -> str:
        """How many players, in words: ``1 to 6``, ``2``."""
        low, high = self.players
        return str(low) if low == high else f"{low} to {high}"


def _coop(seed: int, players: int, tileset: TileSet) -> GameState:
    return CoopGame(seed=seed, players=players, tileset=tileset).new_state()


def _duel(seed: int, players: int, tileset: TileSet) -> GameState:
    return DuelGame(seed=seed, tileset=tileset).new_state()


def _head_to_head(seed: int, players: int, tileset: TileSet) -> GameState:
    return HeadToHeadGame(seed=seed, tileset=tileset).new_state()


#: The games by the name records and the server give them.
MODES: dict[str, Mode] = {
    mode.name: mode
    for mode in (
        Mode("coop", "The Board Game", "base", (1, MAX_PLAYERS), _coop, campaign=True),
        Mode("duel", "The Duel", "duel", (2, 2), _duel),
        Mode("head-to-head", "Head to Head", "head-to-head", (2, 2), _head_to_head),
    )
}
