"""The optional compiled parts (the core dorf.rules._accel, the planner's dorf.players._quick and the
batched environments' dorf.rl._vector): built where a C compiler is, skipped where not.

Everything else about the package is in pyproject.toml.  ``optional=True`` makes a failed
compile a warning, and dorf then runs its pure-Python play area (docs/engine.md).
"""

import sys

from setuptools import Extension, setup

FLAGS = [] if sys.platform == "win32" else ["-O2", "-ffp-contract=off", "-std=c11"]

setup(
    ext_modules=[
        Extension(
            "dorf.rules._accel",
            sources=["src/dorf/rules/_accel.c"],
            extra_compile_args=FLAGS,
            optional=True,
        ),
        Extension(
            "dorf.rl._vector",
            sources=["src/dorf/rl/_vector.c"],
            extra_compile_args=FLAGS,
            optional=True,
        ),
        Extension(
            "dorf.players._quick",
            sources=["src/dorf/players/_quick.c"],
            extra_compile_args=FLAGS,
            optional=True,
        ),
    ]
)
