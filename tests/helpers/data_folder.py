"""A `--data` folder holding every dataset lctui reads, as a user's copy would lay it out,
for the tests of `lctui data`: the committed HELMET fixtures (tests/fixtures/helmet: the
release's kilt/, msmarco/, alce/ and key points, HELMET's prompts/, the hub-origin
datasets under hub/ORG/NAME/), a small LongBench v2 data.json and RULER's invented SQuAD
and HotpotQA files (tests/fixtures/ruler_qa) under ruler/.
"""

from __future__ import annotations

import shutil
from pathlib import Path

from helpers.helmet_data import HELMET_FIXTURES
from helpers.longbench_data import longbench_rows, write_longbench
from helpers.ruler_qa_data import write_ruler_qa

LONGBENCH_ROWS = 6


def write_data_folder(folder: Path) -> Path:
    """Every dataset of the catalog into `folder` (created); returns it."""
    for part in ("kilt", "msmarco", "alce", "prompts"):
        shutil.copytree(HELMET_FIXTURES / part, folder / part)
    for part in ("infbench", "multi_lexsum"):
        shutil.copytree(HELMET_FIXTURES / "summ" / part, folder / part)
    for group in ("summ", "longqa", "icl"):
        shutil.copytree(HELMET_FIXTURES / group / "hub", folder / "hub", dirs_exist_ok=True)
    write_longbench(folder, longbench_rows(LONGBENCH_ROWS))
    write_ruler_qa(folder)
    return folder
