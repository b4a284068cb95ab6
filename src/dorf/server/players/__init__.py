"""The people who play: players (a name kept by a cookie, a password, API tokens for bots) and
their ratings.

- :mod:`.names`: readable random names, and which names a player may take;
- :mod:`.accounts`: :class:`~.accounts.Player`, and :class:`~.accounts.Players` (``hub.players``):
  the player of a request or a socket, names, passwords, sign-in, tokens;
- :mod:`.glicko`: Glicko-2 with lichess's settings;
- :mod:`.ratings`: which games are rated, and the ratings after one.
"""
