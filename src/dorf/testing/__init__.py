"""What the tests and the developer tools (``dorf.lab.loadtest``, ``capacity``, ``screenshots``)
share; never imported by the product (``tests/test_architecture.py`` checks it).

- :mod:`dorf.testing.net`: a free loopback port, JSON over HTTP with the server's errors;
- :mod:`dorf.testing.servers`: a dorf server on loopback, in a thread of this process or as a
  ``dorf serve`` process, answering once :func:`~dorf.testing.servers.launch` returns;
- :mod:`dorf.testing.browser`: how the browser tests and the pictures run Chromium;
- :mod:`dorf.testing.pgcluster`: a throwaway PostgreSQL cluster (psycopg).
"""
