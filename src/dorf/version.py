"""dorf's version, in one place: the front door (``dorf.__version__``), ``dorf --version``, the
build (pyproject.toml reads it) and the server (``/api/health``, ``/metrics``) all read it here.
Standard library only, importing nothing."""

VERSION = "0.2.0"
