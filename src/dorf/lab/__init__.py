"""The lab: tools that drive many games from the command line, on top of the engine.

- :mod:`dorf.lab.simulate`: many games between named players, their scores and
  win rates (``dorf simulate``), in processes or on a Ray cluster;
- :mod:`dorf.lab.bench`: the engine's speed (``dorf bench``);
- :mod:`dorf.lab.tune`: the planner's weights tuned by playing (``dorf tune``);
- :mod:`dorf.lab.bots`: players in a program of their own, any language, over JSON lines
  (``cmd:COMMAND`` players, ``dorf bot``; ``docs/bots.md``).
"""
