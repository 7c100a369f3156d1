#!/usr/bin/env bash
# Re-record sample_runs/: the embedded SmolLM2-135M on the synthetic suite at 1K-8K,
# one example per task x length (seed 0), exported as Parquet. About 15 minutes on 2 cores.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/bootstrap.sh
db="$(mktemp -d)/record.duckdb"
.venv/bin/lctui run --model smollm2-135m --tasks synthetic --lengths 1k,2k,4k,8k --n 1 \
  --seed 0 --db "$db"
rm -rf sample_runs/smollm2-synthetic
.venv/bin/lctui export sample_runs/smollm2-synthetic --db "$db"
