"""The lab: tools that drive many games from the command line, on top of the engine.

- :mod:`dorf.lab.simulate`: many games between named players, their scores and
  win rates (``dorf simulate``), in processes or on a Ray cluster;
- :mod:`dorf.lab.bench`: the engine's speed (``dorf bench``);
- :mod:`dorf.lab.tune`: the planner's weights tuned by playing (``dorf tune``).

And the developer's tools, run as ``python -m dorf.lab.NAME`` (they may import
:mod:`dorf.testing`; no command of dorf imports them):

- :mod:`dorf.lab.loadtest`: the load benchmark, many games and clients at once on loopback;
- :mod:`dorf.lab.capacity`: what the server holds up to (memory, start-up, thinking under load);
- :mod:`dorf.lab.screenshots`: the pictures in ``docs/screenshots/``, from seeded games.

Players in a program of their own (``cmd:COMMAND``, ``dorf bot``) are :mod:`dorf.bots`.
"""
