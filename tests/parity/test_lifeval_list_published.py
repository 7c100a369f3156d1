"""The List points lctui can award are the values the published LIFBench scores show.

The published per-response files (shared/data/lifbench-scores, read in place) were
made by the original's rules; if lctui's rules are the same, each point takes the
same set of values: e.g. format 0.2 and 0.3 for single-entry answers, num's
([n' == n] + 2 max(0, 1 - |n' - n| / n)) / 3 over the array sizes 2, 4, 6, 8, 10.
A battery of outputs on real examples reaches every value lctui can award: for
multi_query_id every count of right entries (0 to n) and every list length (0 to 2n,
beyond which num stays 0) of every array; for the single-entry tasks every kind of
answer (the entry, another one, the named one, two, none) bare, inside text of a
length within and beyond the entries', and near-missed.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from functools import cache

import pytest

from helpers.lifbench_data import published_folder, read_published
from lctui.core.types import Example
from lctui.scoring import score_example
from lctui.suites.lifbench.tasks.list_context import parse_list
from lctui.suites.lifbench.tasks.list_tasks import ListTask
from lctui.tasks import get_task
from lctui.tasks.tokenizers import reference_tokenizer

SINGLE = ("single_query_id", "offset_query_id", "offset_query_element")
BLUR = ("blur_offset_query_id", "blur_offset_query_element")
DIGITS = 9  # the CSVs print Python's repr of each float; compare rounded


@cache
def _published() -> dict[str, dict[str, set[float]]]:
    """task -> point -> the values of that point in the published file."""
    out: dict[str, dict[str, set[float]]] = {}
    for task, rows in read_published(published_folder()).items():
        points = [c for c in rows[0] if c not in ("model", "ins_id", "param_id", "length")]
        points.remove("total_score")
        out[task] = {p: {round(float(r[p]), DIGITS) for r in rows} for p in points}
    return out


def _examples(task: str) -> Iterator[Example]:
    """Every variable sample of `task` at 3K, over two seeds (uuid and sentence answers)."""
    spec_task = get_task(f"lifbench_{task}")
    assert isinstance(spec_task, ListTask)
    n_expr, n_var = len(spec_task.spec.expressions), len(spec_task.spec.variables)
    tokenizer = reference_tokenizer("o200k_base")
    for seed in (0, 1):
        for variable in range(n_var):
            for expression in (0, n_expr - 1):
                index = variable * n_expr + expression
                yield spec_task.generate(3072, seed, index, tokenizer)


def _is_uuid(item: str) -> bool:
    return len(item) == 32 and all(c in "0123456789abcdef" for c in item)


def _single_battery(example: Example) -> Iterator[str]:
    meta = example.metadata
    items = parse_list(example.context)
    right = meta["expected"][0]
    pivot = meta["pivot"]
    uuid = next(e for e in items if _is_uuid(e) and e != right)
    sentence = next(e for e in items if not _is_uuid(e) and e != right)
    named = items[pivot - 1]
    neighbour = items[pivot + 1] if pivot + 1 < len(items) else items[0]
    far = items[-1] if meta.get("direction") == "after" else items[0]
    for answer in (right, uuid, sentence, named, neighbour, far):
        yield answer
        yield f"{answer}."
        yield f"The entry is {answer}, I think, as the list shows it above here."
        yield " ".join([answer] * 2)
        yield f"{answer}\n{named}"
        yield answer.upper()
        yield answer[:-1] + ("0" if answer[-1] != "0" else "1")
    yield "no entry is there"
    yield "That entry is not one I can find in this list, so I cannot give it."


def _multi_battery(example: Example) -> Iterator[str]:
    meta = example.metadata
    expected: list[str] = list(meta["expected"])
    n = len(expected)
    others = [e for e in parse_list(example.context) if e not in expected][: 2 * n + 1]
    for right in range(n + 1):
        for wrong in range(2 * n + 2 - right):
            answer = expected[:right] + others[:wrong]
            yield json.dumps(answer)
            yield json.dumps(answer[::-1])
    yield "Here: " + json.dumps(expected)
    yield "Here: " + json.dumps([1, 2])
    yield json.dumps([1, *expected])
    yield json.dumps({"a": expected[0]})
    yield "\n".join(expected)


def _awarded(task: str) -> dict[str, set[float]]:
    """point -> the values lctui's rubric awards over the battery of `task`."""
    out: dict[str, set[float]] = {}
    battery = _multi_battery if task == "multi_query_id" else _single_battery
    for example in _examples(task):
        for output in battery(example):
            for p in score_example(example, output).points:
                out.setdefault(p.name, set()).add(round(p.earned, DIGITS))
    return out


@pytest.mark.parametrize("task", [*SINGLE, "multi_query_id", *BLUR])
def test_every_point_takes_the_published_values(task: str) -> None:
    published = _published()[task]
    awarded = _awarded(task)
    assert set(awarded) == set(published)
    for name, values in published.items():
        assert awarded[name] == values, (
            f"{task}.{name}: only lctui awards {sorted(awarded[name] - values)}; "
            f"only the published files hold {sorted(values - awarded[name])}"
        )
