#!/usr/bin/env bash
# Set up .venv (if needed) and run the whole test suite, slow tests included, on
# LCTUI_TEST_WORKERS pytest-xdist workers (default 3: on 2 cores many tests wait on
# processes, pipes and screens rather than compute). The tests that load a model share
# one worker (`--dist loadgroup`, tests/conftest.py). `scripts/test.sh -n 0 TEST` runs
# TEST in this process, without workers.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/bootstrap.sh dev
exec .venv/bin/python -m pytest -n "${LCTUI_TEST_WORKERS:-3}" --dist loadgroup "$@"
