"""The Duel at the terminal: one revealed tile, placed by each player in their own area.

Each turn the tile is revealed once; the player who starts places it, then
the other (or whoever is still to place it: a tile that fits nowhere in one
area is set aside for that player only, and announced).  The second to place
sees the first's area as it was before the turn; both placements are
reported once both are made.  Both areas are shown, each
player's active tasks (connection tasks count neighbouring tiles, double
tasks show both territories) and the score so far.  The end shows both score
pads and the winner, or a shared win for equal totals.
"""

from __future__ import annotations

from dorf.games.duel import DuelState, DuelTurn
from dorf.rules.area import PlayArea
from dorf.rules.scoring import DuelScorePad, score_duel
from dorf.terminal.screen import changes_text, short_tile_text, tile_text
from dorf.terminal.two_player import COMMON_HELP, PLACE_HELP, TwoPlayerSession


class DuelSession(TwoPlayerSession[DuelState]):
    """A Duel at the terminal, hot-seat or against the computer."""

    mode = "duel"
    title = "The Duel"
    help_text = f"{PLACE_HELP}\nCommands:\n{COMMON_HELP}"

    def enter(self, text: str, player: int) -> bool:
        return self.place(text, player)

    def prompt(self, player: int) -> str:
        return f"{self.name(player)}, turn {self.state.turn}> "

    def where(self) -> str:
        return f"turn {self.state.turn}"

    # --- reports -----------------------------------------------------------------------

    def mark(self, player: int) -> int:
        return len(self.state.turns)

    def report(self, mark: int, player: int) -> list[str]:
        turn = self.state.turns[mark - 1]
        placement = turn.placements[player]
        head = f"Turn {turn.number}: {self.name(player)} placed {tile_text(turn.revealed)} at {placement}."
        lines = [head + changes_text(turn.changes[player])]
        for new in self.state.turns[mark:]:
            lines += self.set_aside_lines(new)
        return lines

    def set_aside_lines(self, turn: DuelTurn) -> list[str]:
        """A revealed tile that fits nowhere in one area (or both), announced."""
        tile = short_tile_text(turn.revealed)
        if all(turn.set_aside):
            return [f"Turn {turn.number}: {tile} fits in neither area and is set aside."]
        return [
            f"Turn {turn.number}: {tile} fits nowhere in {self.name(p)}'s area: set aside for "
            f"{self.name(p)}; {self.name(1 - p)} places it."
            for p in (0, 1)
            if turn.set_aside[p]
        ]

    # --- the screen --------------------------------------------------------------------

    def screen(self, player: int) -> list[str]:
        state = self.state
        other = 1 - player
        revealed = state.revealed
        assert revealed is not None
        if other in state.to_move():
            then = f"{self.name(other)} places the same tile next."
        elif state.turns[-1].set_aside[other]:
            then = f"It fits nowhere in {self.name(other)}'s area: set aside for {self.name(other)}."
        else:
            then = f"{self.name(other)} has placed it."
        return [
            self.console.title(f"The Duel, turn {state.turn}: {self.name(player)} to place"),
            f"Tiles left: {state.landscapes_left()} landscape, {state.task_tiles_left()} task",
            *self.player_lines(other),
            *self.player_lines(player),
            f"Tile to place: {tile_text(revealed)}. {then}",
            *self.tile_lines(player),
        ]

    def scorer(self, area: PlayArea) -> DuelScorePad:
        return score_duel(area)

    def score_text(self, player: int) -> str:
        pad = score_duel(self.shown(player))
        return (
            f"Score now {pad.total}: tasks {sum(pad.tasks.values())}, flags {sum(pad.flags.values())}, "
            f"longest track {pad.longest_track}, longest river {pad.longest_river}"
        )

    def result_lines(self) -> list[str]:
        totals = [pad.total for pad in self.pads()]
        winner = self.state.winner()
        if winner is None:
            return [f"Both score {totals[0]}: a shared win."]
        return [f"{self.name(winner)} wins, {totals[winner]} to {totals[1 - winner]}."]
