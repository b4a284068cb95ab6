"""Play in the browser: ``dorf serve``, a satellite of the rules engine (it reads the engine's
public API only, through the one interface every game's state has).

- :mod:`.cli`, :mod:`.config`: the command and its options;
- :mod:`.hub`: the master: the games in memory, handed a storage and a bus;
- :mod:`.edge`: HTTP routes, each client's websocket loop, the checks at the door, the page's files;
- :mod:`.protocol`: the messages in and out, a game's description, deltas, compact JSON;
- :mod:`.round`: one game, a file per job: the session, moves and undos, seats and tokens,
  clients, deltas to them, the preview;
- :mod:`.computer`: the computer seats, the pool of workers, hints and replays;
- :mod:`.storage`: one interface, a file per database (SQLite written behind, PostgreSQL by
  compare-and-set) and the bus between servers;
- :mod:`.campaigns`: the campaign page's API.

``docs/server.md`` opens with the map of the service and the path of one move.  The browser UI
is plain HTML, CSS and JavaScript modules in :mod:`dorf.web`.  The load and capacity benchmarks
and the screenshots are tools of their own (:mod:`dorf.lab`), with the test cluster and launcher
(:mod:`dorf.testing`).  FastAPI and uvicorn are needed only here (``pip install 'dorf[web]'``).
"""
