"""The learning tests' JAX programs are tiny and run a few steps each: compiling them is most of
their time, so XLA compiles them here without its optimisation passes (about half the compile
time; the programs compute the same, the tests check what they compute, not how fast), and keeps
what it compiled in pytest's cache folder (JAX's persistent compilation cache, keyed by the
program, the flags and the JAX version): a later run loads the same programs instead of compiling
them again.  Read when JAX starts its backend, which no test does before the test modules are
collected."""

from __future__ import annotations

import os
from pathlib import Path

QUICK_COMPILE = "--xla_backend_optimization_level=0"

if QUICK_COMPILE not in os.environ.get("XLA_FLAGS", ""):
    os.environ["XLA_FLAGS"] = f"{os.environ.get('XLA_FLAGS', '')} {QUICK_COMPILE}".strip()

#: Every program kept, however quick its compile or small (JAX keeps only those over a second); a
#: folder a test process (xdist worker), as JAX writes an entry in place, with no lock.
COMPILED_CACHE = {
    "JAX_COMPILATION_CACHE_DIR": str(
        Path(__file__).resolve().parents[2]
        / ".pytest_cache"
        / "d"
        / f"jax-{os.environ.get('PYTEST_XDIST_WORKER', 'main')}"
    ),
    "JAX_PERSISTENT_CACHE_MIN_COMPILE_TIME_SECS": "0",
    "JAX_PERSISTENT_CACHE_MIN_ENTRY_SIZE_BYTES": "0",
}
for name, value in COMPILED_CACHE.items():
    os.environ.setdefault(name, value)
