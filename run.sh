#!/usr/bin/env bash
# Install dorf into ./.venv (once) and run it.
#   ./run.sh [serve] [ARGS]  install, then serve the browser game at http://127.0.0.1:8000/
#                          (./run.sh --port 8765 serves on port 8765)
#   ./run.sh play ARGS     install, then play in the terminal
#   ./run.sh test          install with test tools and every extra (and Debian's chromium-headless-shell
#                          for the browser tests and postgresql for the PostgreSQL ones, if missing), then
#                          lint, type-check and test; where a C compiler is (and always in CI) the
#                          compiled core must have been built
#   ./run.sh bench ARGS    install, then run the benchmark
#
# Every install builds the compiled core (src/dorf/rules/_accel.c) and the planner's quick
# evaluation (src/dorf/players/_quick.c) where a C compiler and the Python headers are, and falls
# back silently to their Python forms where not.
set -euo pipefail
cd "$(dirname "$0")"
# The environment is made with $PYTHON if set; else with the system's Python 3.11 or newer where it
# can make one and has its C headers (Debian's /usr/bin/python3, built with profile-guided and
# link-time optimisation, runs dorf's Python about a quarter quicker than a Python built without,
# such as pyenv's default: docs/commands.md#running-the-tests); else with python3.
system_python() {
  [ -x /usr/bin/python3 ] && /usr/bin/python3 -c 'import sys, sysconfig, os.path
sys.exit(sys.version_info < (3, 11) or not os.path.exists(os.path.join(sysconfig.get_path("include"), "Python.h")))' 2>/dev/null
}
if [ ! -x .venv/bin/python ]; then
  if [ -n "${PYTHON:-}" ]; then
    "$PYTHON" -m venv .venv
  elif ! { system_python && /usr/bin/python3 -m venv .venv 2>/dev/null; }; then
    rm -rf .venv  # no venv module (Debian's python3-venv) or no headers: the python3 on the path
    python3 -m venv .venv
  fi
fi
# Everything the test suite exercises: the test tools and every optional extra.
TEST_EXTRAS=test,web,rl,openspiel,ray,plot,learn
PIP=(.venv/bin/python -m pip install --quiet --disable-pip-version-check)
# pip installs dorf with the extras asked for, unless the last install here (.venv/.dorf-installed
# lists its extras) has them all and is newer than what an install is built from (pyproject.toml,
# setup.py, the C files; the Python files are read in place): a second start begins at once.
STAMP=.venv/.dorf-installed
install() {
  local want=$1 had="" missing=""
  if [ -f "$STAMP" ]; then had=",$(cat "$STAMP"),"; fi
  for extra in ${want//,/ }; do
    [[ "$had" == *",$extra,"* ]] || missing=$extra
  done
  if [ -n "$had" ] && [ -z "$missing" ] && [ -z "$(find pyproject.toml setup.py src/dorf \( -name pyproject.toml \
      -o -name setup.py -o -name '*.c' \) -newer "$STAMP" -print -quit)" ]; then
    return 0
  fi
  # Before issue 64 the distribution was called dorf (another project's name on the package
  # index): an install of that name here would keep its own bin/dorf and package path.
  if .venv/bin/python -m pip show --quiet dorf >/dev/null 2>&1; then
    .venv/bin/python -m pip uninstall --yes --quiet dorf
  fi
  "${PIP[@]}" -e ".${want:+[$want]}"
  printf '%s\n' ${had//,/ } ${want//,/ } | sort -u | paste -sd, - >"$STAMP"
}
# No command, or options only (./run.sh --port 8765): serve with them.
if [ $# -eq 0 ] || [[ "$1" == -* ]]; then
  command=serve
else
  command=$1
  shift
fi
case "$command" in
  test)
    # The browser tests run Debian's headless shell of Chromium (dorf.testing.browser).
    if ! command -v chromium-headless-shell >/dev/null && [ ! -x "${DORF_CHROMIUM:-/usr/lib/chromium/chromium-headless-shell}" ]; then
      if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
        apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium-headless-shell >/dev/null
      else
        echo "run.sh: the browser tests need Debian's chromium-headless-shell: sudo apt-get install chromium-headless-shell" >&2
      fi
    fi
    # The PostgreSQL tests run a throwaway server of their own (dorf.testing.pgcluster): only the
    # binaries are needed, not the system's cluster ($DORF_PG_BIN: a folder with others).
    has_postgres() { compgen -G "/usr/lib/postgresql/*/bin/initdb" >/dev/null || [ -x "${DORF_PG_BIN:-/nonexistent}/initdb" ]; }
    if ! has_postgres; then
      if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
        apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq postgresql >/dev/null
      else
        echo "run.sh: the PostgreSQL tests need Debian's postgresql: sudo apt-get install postgresql" >&2
      fi
    fi
    if has_postgres; then
      export DORF_REQUIRE_POSTGRES=1
    fi
    install "$TEST_EXTRAS"
    # A test fails if the compiled core silently did not build where it should have.
    if [ -n "${CI:-}" ] || command -v "${CC:-cc}" >/dev/null 2>&1; then
      export DORF_REQUIRE_COMPILED="${DORF_REQUIRE_COMPILED:-1}"
    fi
    .venv/bin/ruff check src tests
    .venv/bin/ruff format --check src tests
    .venv/bin/mypy
    # Byte code and pytest's rewritten test modules are cached between runs even where the
    # environment asks Python not to write them (PYTHONDONTWRITEBYTECODE): a second run collects
    # in half the time.
    unset PYTHONDONTWRITEBYTECODE
    exec .venv/bin/python -m pytest "$@"
    ;;
  serve)
    install web
    exec .venv/bin/dorf serve "$@"
    ;;
  *)
    install ""
    exec .venv/bin/dorf "$command" "$@"
    ;;
esac
