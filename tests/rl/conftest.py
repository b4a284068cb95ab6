"""The learning tests' JAX programs are tiny and run a few steps each: compiling them is most of
their time, so XLA compiles them here without its optimisation passes (about half the compile
time; the programs compute the same, the tests check what they compute, not how fast).  Read when
JAX starts its backend, which no test does before the test modules are collected."""

from __future__ import annotations

import os

QUICK_COMPILE = "--xla_backend_optimization_level=0"

if QUICK_COMPILE not in os.environ.get("XLA_FLAGS", ""):
    os.environ["XLA_FLAGS"] = f"{os.environ.get('XLA_FLAGS', '')} {QUICK_COMPILE}".strip()
