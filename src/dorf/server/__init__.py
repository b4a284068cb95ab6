"""Play in the browser: ``dorf serve``.

A satellite of the rules engine (it only reads the engine's public API):

- :mod:`dorf.server.sessions`: a game of any mode, its seats, views, preview;
- :mod:`dorf.server.storage`: games in the shared SQLite database (``server_`` tables);
- :mod:`dorf.server.hub`: games in memory, tokens, moves, clients, computer seats;
- :mod:`dorf.server.workers`: the pool of workers that think for computer seats (and hints, replays);
- :mod:`dorf.server.limits`: the Host check, creation limits, hints and replays in flight,
  Origin checks, the pages' policy;
- :mod:`dorf.server.app`: the ASGI app (FastAPI): pages, HTTP API, websockets;
- :mod:`dorf.server.protocol`: strict reading of client messages;
- :mod:`dorf.server.views`, :mod:`dorf.server.replay`: JSON for the browser;
- :mod:`dorf.server.loadtest`, :mod:`dorf.server.capacity`: the load and capacity benchmarks.

The browser UI is plain HTML, CSS and JavaScript modules in :mod:`dorf.web`.
FastAPI and uvicorn are needed only here (``pip install 'dorf[web]'``).
"""
