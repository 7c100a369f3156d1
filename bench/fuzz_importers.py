"""Throw thousands of malformed files at the importers and `lctui data check`: internal
errors, partial imports and leaks (all should be 0), and how long a case takes.

The cases come from tests/helpers/fuzz_files.py (the harnesses' own files and the data
folder, one to three of them broken per case) and are checked by
tests/helpers/fuzz_imports.py, as the CI-sized test tests/analysis/test_import_fuzz.py
does with fewer. Not part of the test suite.

    python bench/fuzz_importers.py [--cases 2000] [--seed 1] [--targets helmet-results,...]

Prints one line per target (`helmet-results`, `ruler-results`, `longbench-results`,
`lifbench-scores`, `runs`, `data`) and every failure with the case that made it (run
the same seed again to make it again).
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))

from helpers.fuzz_imports import TARGETS, Tally, fuzz_data_check, fuzz_importer

DATA = "data"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--cases", type=int, default=2000, help="cases per target")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument(
        "--targets", default=",".join([*TARGETS, DATA]), help="comma-separated targets"
    )
    args = parser.parse_args()
    failures = 0
    total = 0
    with tempfile.TemporaryDirectory(prefix="lctui-fuzz-") as work:
        for name in args.targets.split(","):
            start = time.perf_counter()
            folder = Path(work, name)
            tally: Tally = (
                fuzz_data_check(args.cases, args.seed, folder)
                if name == DATA
                else fuzz_importer(name, args.cases, args.seed, folder)
            )
            took = time.perf_counter() - start
            print(f"{tally.line()}; {1000 * took / max(1, tally.cases):.0f} ms a case", flush=True)
            for failure in tally.failures:
                print(f"  {failure[:600]}")
            failures += len(tally.failures)
            total += tally.cases
    print(f"{total} cases, {failures} failures")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
