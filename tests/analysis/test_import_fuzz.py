"""Malformed files thrown at the four importers, `lctui import runs` and `lctui data check`
(issue 25.1): no internal error, no partial import, no run left `running`, no message
quoting a linked file or holding a raw control character. The cases and their checks
are tests/helpers/fuzz_files.py and fuzz_imports.py; bench/fuzz_importers.py runs
thousands of them."""

from __future__ import annotations

from pathlib import Path

import pytest

from helpers.fuzz_imports import TARGETS, Tally, fuzz_data_check, fuzz_importer

DATA = "data"
CI_CASES = 30  # per target: the whole test stays well under a minute
MORE_CASES = 250


def _fuzz(target: str, cases: int, seed: int, work: Path) -> Tally:
    if target == DATA:
        return fuzz_data_check(2 * cases, seed, work)
    return fuzz_importer(target, cases, seed, work)


@pytest.mark.parametrize("target", [*TARGETS, DATA])
def test_malformed_files_never_crash_nor_import_in_part(tmp_path: Path, target: str) -> None:
    tally = _fuzz(target, CI_CASES, 0, tmp_path)
    assert tally.cases >= CI_CASES
    assert tally.failures == [], tally.line()


@pytest.mark.slow
@pytest.mark.parametrize("target", [*TARGETS, DATA])
def test_many_more_malformed_files(tmp_path: Path, target: str) -> None:
    tally = _fuzz(target, MORE_CASES, 1, tmp_path)
    assert tally.failures == [], tally.line()
