"""lctui's LongBench v2 prompts are cut and laid out as the original's
(tests/parity/longbench_structure.jsonl, made by THUDM/LongBench's own pred.py).

Cut rows: the original's query_llm cut lctui's uncut user text (instruction, the whole
context, question) to lctui's user-text budget at each length, counting with tiktoken
as it does for API models; lctui's example of the same question must hold exactly the
text the original sent (same hash), cut where the original cut it: its instruction and
the context's head are the original's first tokens, the context's tail and its question
the original's last. The contexts include prose up to 140,000 words and texts whose
cut is hard (special-token text, Chinese without spaces, code, emoji, stray whitespace,
a long run without spaces).

Template row: the order of document, question, options and reasoning in each call, the
option lines, the `<text>` tags, the answer sentence asked for, temperature and new
tokens per call, as the original's get_pred sends them.
"""

from __future__ import annotations

import hashlib
from collections import defaultdict
from functools import cache
from pathlib import Path
from typing import Any

import pytest

from helpers.longbench_data import (
    MARKERS,
    STRUCTURE_CONTEXTS,
    marker_row,
    structure_rows,
    write_longbench,
)
from helpers.parity_fixtures import load_fixture
from lctui.core.types import Example, FollowUp
from lctui.engine.follow_up import follow_up_example
from lctui.suites.longbench.tasks.task import CUT_ROOM, LongBenchV2
from lctui.tasks import get_task
from lctui.tasks.datasets import DataSource
from lctui.tasks.tokenizers import reference_tokenizer

FIXTURE = load_fixture("longbench_structure")
CUTS: dict[tuple[str, str, int], list[dict[str, Any]]] = defaultdict(list)
for _row in FIXTURE.rows:
    if _row["kind"] == "cut":
        CUTS[_row["task"], _row["tokenizer"], _row["length"]].append(_row)
(TEMPLATES,) = [row for row in FIXTURE.rows if row["kind"] == "templates"]
REGENERATE = "the inputs changed: regenerate with scripts/parity/longbench_structure.py"


def sha256(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


@cache
def _data(folder: Path) -> list[dict[str, Any]]:
    rows = structure_rows()
    write_longbench(folder, rows)
    return rows


@pytest.fixture(scope="module")
def structure_data(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, list[dict[str, Any]]]:
    folder = tmp_path_factory.mktemp("longbench-structure")
    return folder, _data(folder)


def _task(name: str, folder: Path) -> LongBenchV2:
    task = get_task(name).with_data(DataSource(folder=folder))
    assert isinstance(task, LongBenchV2)
    return task


@pytest.mark.parametrize("cell", sorted(CUTS), ids=lambda c: "-".join(map(str, c)))
def test_lctui_keeps_the_text_the_originals_cut_sends(
    cell: tuple[str, str, int], structure_data: tuple[Path, list[dict[str, Any]]]
) -> None:
    folder, rows = structure_data
    name, tokenizer_name, length = cell
    task, tokenizer = _task(name, folder), reference_tokenizer(tokenizer_name)
    for row in CUTS[cell]:
        example = task.generate(length, 0, row["index"], tokenizer)
        where = f"{cell} {row['context']}"
        uncut = example.preamble + rows[row["index"]]["context"].strip() + example.question
        assert sha256(uncut) == row["input_sha256"], f"{where}: {REGENERATE}"
        budget = length - example.max_new_tokens - example.template_overhead - CUT_ROOM
        assert budget == row["max_len"], where
        assert example.truncated == row["cut"], where
        assert sha256(example.user_text) == row["kept_sha256"], where
        if row["cut"]:
            info = example.metadata["cut"]
            preamble, question = tokenizer.count_batch([example.preamble, example.question])
            assert (preamble + info["head_tokens"], info["tail_tokens"] + question) == (
                row["head_tokens"],
                row["tail_tokens"],
            ), where
            assert example.prompt_tokens - example.template_overhead == row["max_len"], where


def test_the_fixture_cuts_every_kind_of_context_and_leaves_short_ones_whole() -> None:
    cut = defaultdict(set)
    for rows in CUTS.values():
        for row in rows:
            cut[row["context"]].add(row["cut"])
    assert sorted(cut) == sorted(name for name, _, _ in STRUCTURE_CONTEXTS)
    assert cut["prose_300"] == {False} and cut["prose_140k"] == {True}
    assert all(True in seen for name, seen in cut.items() if name not in ("prose_300", "prose_3k"))
    assert {r["tokenizer"] for rows in CUTS.values() for r in rows} == {"o200k_base", "cl100k_base"}


def _structure(prompt: str) -> dict[str, Any]:
    """What the fixture records of a prompt: the markers' order, how each option's line
    starts, the lines around the document, whether the answer sentence is asked for."""
    found = sorted((prompt.index(m), name) for name, m in MARKERS.items() if m in prompt)
    lines = prompt.split("\n")
    doc = next((i for i, line in enumerate(lines) if MARKERS["document"] in line), None)
    return {
        "order": [name for _, name in found],
        "choice_line_starts": {
            name: line[: line.index(m)]
            for name, m in MARKERS.items()
            if name.startswith("choice_")
            for line in lines
            if m in line
        },
        "document_between": None if doc is None else [lines[doc - 1], lines[doc + 1]],
        "asks_answer_sentence": "The correct answer is (" in prompt,
        "markers_each_once": all(prompt.count(m) <= 1 for m in MARKERS.values()),
    }


def _calls(example: Example, temperature: float) -> list[dict[str, Any]]:
    """lctui's calls for `example`, as the fixture records the original's."""
    calls = [
        {
            **_structure(example.user_text),
            "temperature": temperature,
            "max_tokens": example.max_new_tokens,
        }
    ]
    follow_up = FollowUp.of(example.metadata)
    if follow_up is not None:
        second = follow_up_example(example, follow_up, MARKERS["reasoning"])
        calls.append(
            {
                **_structure(second.user_text),
                "temperature": temperature,
                "max_tokens": second.max_new_tokens,
            }
        )
    return calls


@pytest.mark.parametrize(
    ("mode", "task_name"),
    [
        ("direct", "longbench_v2"),
        ("cot", "longbench_v2_cot"),
        ("no_context", "longbench_v2_no_context"),
    ],
)
def test_each_call_lays_out_its_parts_as_the_original(
    mode: str, task_name: str, tmp_path: Path
) -> None:
    assert TEMPLATES["markers"] == MARKERS, REGENERATE
    write_longbench(tmp_path, [marker_row()])
    task = _task(task_name, tmp_path)
    example = task.generate(8192, 0, 0, reference_tokenizer("o200k_base"))
    assert _calls(example, task.temperature) == TEMPLATES["modes"][mode]["calls"]
