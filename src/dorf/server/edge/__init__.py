"""The HTTP and websocket edge (lila-ws's part): the app's routes, each client's socket loop,
the checks at the door (hosts, origins, limits) and the page's files."""
