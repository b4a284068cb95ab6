"""The commands that drive many games from the command line, on top of the engine:

- :mod:`dorf.commands.simulate`: many games between named players, their scores and
  win rates (``dorf simulate``), in processes or on a Ray cluster;
- :mod:`dorf.commands.bench`: the engine's speed (``dorf bench``);
- :mod:`dorf.commands.tune`: the planner's weights tuned by playing (``dorf tune``).

``dorf learn``'s options are :mod:`dorf.commands.learn` (its run: :mod:`dorf.rl.cli`); the
developer's benchmarks and research tools (``python -m dorf.lab.NAME``) are :mod:`dorf.lab`;
players in a program of their own (``cmd:COMMAND``, ``dorf bot``) are :mod:`dorf.bots`.
"""
