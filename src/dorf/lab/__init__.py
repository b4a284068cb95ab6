"""The developer's benchmarks and research tools, run as ``python -m dorf.lab.NAME`` (they may
import :mod:`dorf.testing`; no command of dorf imports them):

- :mod:`dorf.lab.loadtest`: the load benchmark, many games and clients at once on loopback;
- :mod:`dorf.lab.capacity`: what the server holds up to (memory, start-up, thinking under load);
- :mod:`dorf.lab.pairing`: how long the lobby takes to pair many seeks at once;
- :mod:`dorf.lab.leaderboards`: the leaderboards' queries on a database of many players;
- :mod:`dorf.lab.clocks`: what the clocks cost, CPU per live clocked game;
- :mod:`dorf.lab.clairvoyant`: a bound, the planner that sees the real stack order;
- :mod:`dorf.lab.screenshots`: the pictures in ``docs/screenshots/``, from seeded games.

The product's commands that drive many games (``dorf simulate``, ``dorf tune``, ``dorf bench``)
are :mod:`dorf.commands`; players in a program of their own (``cmd:COMMAND``, ``dorf bot``) are
:mod:`dorf.bots`.
"""
