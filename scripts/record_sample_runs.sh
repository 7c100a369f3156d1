#!/usr/bin/env bash
# Re-record the shipped sample runs (src/lctui/resources/sample_runs/, package data): the
# embedded SmolLM2-135M on the synthetic suite at 1K-8K, one example per task x length
# (seed 0), exported as Parquet. About 15 minutes on 2 cores.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/bootstrap.sh
tmp="$(mktemp -d)"
run=(.venv/bin/lctui run --model smollm2-135m --tasks synthetic --lengths 1k,2k,4k,8k --n 1
  --seed 0)
"${run[@]}" --db "$tmp/record.duckdb"
out=src/lctui/resources/sample_runs/smollm2-synthetic
rm -rf "$out"
.venv/bin/lctui export "$out" --db "$tmp/record.duckdb"
# The exported runs must be what the same command stores: imported into a fresh file,
# a new run of it has nothing to do (tests/integration/test_sample_runs.py checks it too).
.venv/bin/lctui import runs "$out" --db "$tmp/check.duckdb"
"${run[@]}" --db "$tmp/check.duckdb" | tee "$tmp/check.log"
grep -q "Nothing to do" "$tmp/check.log" || {
  echo "the exported sample runs do not match what the command stores" >&2; exit 1; }
