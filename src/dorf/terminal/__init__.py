"""The terminal front end: ``dorf play`` and ``dorf replay`` (:mod:`dorf.terminal.play`)."""
