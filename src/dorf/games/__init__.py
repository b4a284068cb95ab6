"""The three games' flows on top of the rules core: seats, the cooperative game, the Duel, Head to Head."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:  # mypy checks that every game's state and view has the one interface
    from dorf.games.coop import CoopState, PlayerView
    from dorf.games.duel import DuelState, DuelView
    from dorf.games.headtohead import HeadToHeadState, HeadToHeadView
    from dorf.games.state import GameState, GameView

    def _states(c: CoopState, d: DuelState, h: HeadToHeadState) -> tuple[GameState, ...]:
        return c, d, h

    def _views(c: PlayerView, d: DuelView, h: HeadToHeadView) -> tuple[GameView, ...]:
        return c, d, h
