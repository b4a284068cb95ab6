#!/usr/bin/env bash
# Install dorf into ./.venv (once) and run it.
#   ./run.sh [play ARGS]   install, then play in the terminal
#   ./run.sh test          install with test tools, then lint, type-check and test
#   ./run.sh bench ARGS    install, then run the benchmark
set -euo pipefail
cd "$(dirname "$0")"
PY=${PYTHON:-python3}
if [ ! -x .venv/bin/python ]; then
  "$PY" -m venv .venv
fi
command=${1:-play}
[ $# -gt 0 ] && shift
case "$command" in
  test)
    .venv/bin/python -m pip install --quiet --disable-pip-version-check -e '.[test]'
    .venv/bin/ruff check src tests
    .venv/bin/ruff format --check src tests
    .venv/bin/mypy
    exec .venv/bin/python -m pytest "$@"
    ;;
  *)
    .venv/bin/python -m pip install --quiet --disable-pip-version-check -e .
    exec .venv/bin/dorf "$command" "$@"
    ;;
esac
