"""Players in programs of their own: any language, JSON lines on standard input and output
(``dorf-bot/1``, ``docs/bots.md``), named wherever dorf takes a player as ``cmd:COMMAND``.

- :mod:`dorf.bots.protocol`: the messages (``start``, ``decide``, ``end``), the legal moves a
  seat is shown, and how an answer is read (or the decision :class:`~dorf.bots.protocol.Lost`);
- :mod:`dorf.bots.process`: a program's process: found from its ``cmd:`` spec, started under
  its supervisor (:mod:`dorf.bots.supervisor`: whatever it starts ends with it; its
  :class:`~dorf.bots.process.Limits`), written to and read from with a deadline;
- :mod:`dorf.bots.seat`: one seat's program across a game (:class:`~dorf.bots.seat.Bot`:
  restarts, the first legal move for a lost decision) and, for the server's computer seats,
  :class:`~dorf.bots.seat.BotCommands`;
- :mod:`dorf.bots.player`: a program as a :class:`~dorf.players.Player` of a game played in this
  process (``dorf simulate``, ``dorf play``): :class:`~dorf.bots.player.BotPlayer`;
- :mod:`dorf.bots.online`: ``dorf bot``, a seat of a game on a server, through its websocket.

A program is shown exactly what its seat's page shows (``dorf.server.round.session.GameSession
.document``), hence the imports of :mod:`dorf.server`; the server never imports this package
(``dorf.cli`` hands it a :class:`~dorf.bots.seat.BotCommands`).
"""
