"""The dataset catalog covers every task once, and the length rules of `lctui data check`
(tasks/reach.py) count what they say they count."""

from __future__ import annotations

import pytest

from lctui.cli.data import reach_text
from lctui.core.errors import UserInputError
from lctui.tasks import all_tasks
from lctui.tasks.catalog import HELMET_RELEASE, Archive, catalog, downloads_of, select_datasets
from lctui.tasks.reach import any_length, by_document, by_unit_count, up_to


def test_every_task_reads_exactly_one_catalogued_dataset() -> None:
    listed = [name for dataset in catalog() for name in dataset.tasks]
    assert sorted(listed) == sorted(t.name for t in all_tasks())
    assert len({d.name for d in catalog()}) == len(catalog())
    data_tasks = {t.name for t in all_tasks() if t.needs_data}
    for dataset in catalog():
        # A task that reads a dataset has somewhere to get it; a built-in one needs none.
        needs = data_tasks.intersection(dataset.tasks)
        assert bool(needs) == bool(dataset.downloads) != bool(dataset.builtin), dataset.name
        assert dataset.licence and dataset.homepage.startswith("https://"), dataset.name


def test_a_name_selects_a_dataset_a_tasks_dataset_or_a_suites() -> None:
    assert [d.name for d in select_datasets("icl_trec_fine")] == ["trec"]
    assert [d.name for d in select_datasets("trec")] == ["trec"]
    assert {d.suite for d in select_datasets("helmet")} == {"helmet"}
    with pytest.raises(UserInputError, match="no dataset 'nope'"):
        select_datasets("nope")


def test_downloads_come_once_each_archives_last() -> None:
    found = downloads_of(select_datasets("helmet"))
    assert found.count(HELMET_RELEASE) == 1 and found[-1] == HELMET_RELEASE
    assert not any(isinstance(d, Archive) for d in found[:-1])


def test_reach_counts_questions_per_length_and_says_it() -> None:
    lengths = [4096, 8192, 16384]
    whole = up_to(lengths, 8192, 5, "file")
    assert (whole.filled(), whole.unfilled()) == ((4096, 8192), (16384,))
    assert reach_text(whole) == "4k, 8k: all 5 questions; not 16k (estimated)"
    # Beyond the known lengths a length needs proportionally more documents.
    docs = by_unit_count([8192, 262144], [30, 1400, 1399], {8192: 30, 131072: 700}, "docs")
    assert docs.rows == (3, 1) and docs.partly() == ((262144, 1),)
    stories = by_document(lengths, [1000.0, 5000.0, 20000.0], 4096, "stories")
    assert stories.total == 2 and stories.rows == (2, 1, 1)
    assert (
        reach_text(stories)
        == "4k: all 2 questions; 8k: 1 of 2 questions; 16k: 1 of 2 questions (estimated)"
    )
    none = by_document(lengths, [100.0], 4096, "stories")
    assert none.filled() == () and reach_text(none).startswith("none:")
    assert reach_text(any_length(lengths, "generated")) == "any length"
