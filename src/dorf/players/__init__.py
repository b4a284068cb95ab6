"""Computer players: a view in, a decision out.

The registry (:func:`make_player`) names them; :mod:`dorf.players.greedy` and
:mod:`dorf.players.search` hold the evaluation and the look-ahead, and
:mod:`dorf.players.coach` weighs a recorded game's decisions.
"""

from dorf.players.registry import Decision, GreedyPlayer, Player, RandomPlayer, View, make_player

__all__ = ["Decision", "GreedyPlayer", "Player", "RandomPlayer", "View", "make_player"]
