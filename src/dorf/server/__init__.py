"""Play in the browser: ``dorf serve``, a satellite of the rules engine (it reads the engine's
public API only, through the one interface every game's state has).

- :mod:`.cli`, :mod:`.config`: the command and its options;
- :mod:`.hub`: the composition root: builds the storage's roles, the round's roles and the
  features, and connects them (the round's events to the features that subscribe);
- :mod:`.edge`: HTTP routes, each client's websocket loop, the checks at the door, the page's files;
- :mod:`.protocol`: the messages in and out, a game's description, deltas, compact JSON;
- :mod:`.round`: one game, a file per job: the session, the games in memory, moves and undos,
  ends and clocks, seats and tokens, clients, deltas to them, following other servers, the
  events it publishes, the preview;
- :mod:`.players`, :mod:`.lobby`, :mod:`.daily`: the features, subscribed to the round's events;
- :mod:`.computer`: the computer seats, the pool of workers, hints and replays;
- :mod:`.storage`: one interface, a file per database (SQLite written behind, PostgreSQL by
  compare-and-set) and the bus between servers;
- :mod:`.campaigns`: the groups' campaigns (members, Next game, games recorded by themselves).

``docs/server.md`` opens with the map of the service and the path of one move.  The browser UI
is plain HTML, CSS and JavaScript modules in :mod:`dorf.web`.  The load and capacity benchmarks
and the screenshots are tools of their own (:mod:`dorf.lab`), with the test cluster and launcher
(:mod:`dorf.testing`).  FastAPI and uvicorn are needed only here (``pip install 'dorf-games[web]'``).
"""
