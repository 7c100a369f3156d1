#!/usr/bin/env bash
# Set up .venv (if needed) and run the whole test suite, slow tests included.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/bootstrap.sh dev
exec .venv/bin/python -m pytest "$@"
