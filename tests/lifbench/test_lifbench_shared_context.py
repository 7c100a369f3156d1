"""LIFBench examples share their context per scenario, seed and length, as in the original.

Shares reached at 32K (o200k_base, seed 0, two tasks or two indices): List 99.1 %,
MultiDoc 99.6 %, OneDoc 99.8 % of the prompt is a common character prefix (only the
last filler units, the tail block or closing document and the question differ). At
3K the shares are lower (List 91 %, MultiDoc 85 %: one document of five differs,
OneDoc 98 %), so the tests assert > 90 % at 32K for every scenario.
"""

from __future__ import annotations

from collections.abc import Sequence

import pytest

from lctui.core.protocols import Tokenizer
from lctui.core.types import Example
from lctui.suites.lifbench.tasks.list_context import parse_list
from lctui.suites.lifbench.tasks.multidoc_context import parse_docs
from lctui.suites.lifbench.tasks.onedoc_context import doc_stream, parse_tagged
from lctui.suites.lifbench.tasks.shared import (
    LifbenchTask,
    Stream,
    StreamCache,
    clear_streams,
    shared_prefix,
)
from lctui.tasks import get_task, select_tasks
from lctui.tasks.tokenizers import TiktokenTokenizer, reference_tokenizer

LENGTH = 32768
SCENARIOS = {
    "list": ["lifbench_single_query_id", "lifbench_offset_query_element"],
    "multidoc": ["lifbench_find_dup_text", "lifbench_batch_label"],
    "onedoc": ["lifbench_repeat", "lifbench_qa"],
}
LONG_TEXT = 10_000  # characters: a whole prompt, not a unit or a block


class CountingTokenizer:
    """A proxy that records the length of every text the wrapped tokenizer counts."""

    def __init__(self, inner: Tokenizer) -> None:
        self._inner = inner
        self.name = inner.name
        self.counted: list[int] = []  # characters per count() call
        self.batched: list[int] = []  # characters per count_batch() call

    def encode(self, text: str) -> list[int]:
        return self._inner.encode(text)

    def decode(self, ids: Sequence[int]) -> str:
        return self._inner.decode(ids)

    def count(self, text: str) -> int:
        self.counted.append(len(text))
        return self._inner.count(text)

    def count_batch(self, texts: Sequence[str]) -> list[int]:
        self.batched.append(sum(map(len, texts)))
        return self._inner.count_batch(texts)


def _task(name: str) -> LifbenchTask:
    task = get_task(name)
    assert isinstance(task, LifbenchTask)
    return task


def _share(a: Example, b: Example) -> float:
    return shared_prefix(a.user_text, b.user_text) / max(len(a.user_text), len(b.user_text))


@pytest.mark.parametrize("scenario", sorted(SCENARIOS))
def test_prompts_of_a_scenario_share_over_90_percent_of_their_prefix(
    scenario: str, o200k: TiktokenTokenizer
) -> None:
    first, second = (_task(name) for name in SCENARIOS[scenario])
    a = first.generate(LENGTH, seed=0, index=0, tokenizer=o200k)
    b = second.generate(LENGTH, seed=0, index=3, tokenizer=o200k)
    c = first.generate(LENGTH, seed=0, index=5, tokenizer=o200k)
    assert a.question != b.question and a.question != c.question
    assert _share(a, b) > 0.9 and _share(a, c) > 0.9, (_share(a, b), _share(a, c))
    other_seed = first.generate(LENGTH, seed=1, index=0, tokenizer=o200k)
    assert other_seed.context != a.context and _share(a, other_seed) < 0.1


def test_every_list_task_asks_over_the_same_list(o200k: TiktokenTokenizer) -> None:
    examples = [
        task.generate(LENGTH, seed=0, index=2, tokenizer=o200k)
        for task in select_tasks("lifbench")
        if isinstance(task, LifbenchTask) and task.scenario == "list"
    ]
    assert len(examples) == 6
    lists = [parse_list(e.context) for e in examples]
    shortest = min(len(items) for items in lists)
    for example, items in zip(examples, lists, strict=True):
        assert _share(examples[0], example) > 0.9
        assert items[:10] == lists[0][:10] and items[-10:] == lists[0][-10:]  # head, tail
        assert items[: shortest - 12] == lists[0][: shortest - 12]  # all but the end


def test_context_key_names_the_shared_context_without_building(o200k: TiktokenTokenizer) -> None:
    keys: dict[str, set[str]] = {}
    for task in select_tasks("lifbench"):
        assert isinstance(task, LifbenchTask)
        example = task.generate(3072, seed=4, index=1, tokenizer=o200k)
        key = task.context_key(3072, 4, 1, "o200k_base")
        assert key is not None and example.metadata["context_key"] == key
        assert task.context_key(3072, 4, 9, "o200k_base") == key  # any index
        assert task.context_key(3072, 5, 1, "o200k_base") != key
        assert task.context_key(6144, 4, 1, "o200k_base") != key
        assert task.context_key(3072, 4, 1, "cl100k_base") != key
        keys.setdefault(task.scenario, set()).add(key)
    assert all(len(found) == 1 for found in keys.values()), keys
    assert len(set.union(*keys.values())) == 3
    assert get_task("niah_single_1").context_key(3072, 4, 1, "o200k_base") is None


@pytest.mark.parametrize("scenario", sorted(SCENARIOS))
def test_a_second_example_reuses_the_counts_and_tokenises_once(
    scenario: str, o200k: TiktokenTokenizer
) -> None:
    first, second = (_task(name) for name in SCENARIOS[scenario])
    counting = CountingTokenizer(o200k)
    first.generate(LENGTH, seed=7, index=0, tokenizer=counting)
    counting.counted.clear()
    counting.batched.clear()
    example = second.generate(LENGTH, seed=7, index=4, tokenizer=counting)
    long_counts = [n for n in counting.counted if n > LONG_TEXT]
    assert 1 <= len(long_counts) <= 2, long_counts  # the verification of the prompt
    assert sum(counting.batched) < LONG_TEXT, counting.batched  # no units counted again
    assert sum(counting.counted) < 2.5 * len(example.user_text)


@pytest.mark.parametrize("scenario", sorted(SCENARIOS))
def test_contexts_do_not_depend_on_what_was_built_before(
    scenario: str, o200k: TiktokenTokenizer
) -> None:
    task = _task(SCENARIOS[scenario][0])
    clear_streams()
    fresh = task.generate(6144, seed=8, index=2, tokenizer=o200k)
    clear_streams()
    task.generate(28672, seed=8, index=2, tokenizer=o200k)  # grows the stream further first
    task.generate(3072, seed=8, index=2, tokenizer=o200k)
    assert task.generate(6144, seed=8, index=2, tokenizer=o200k) == fresh


def _untagged(context: str) -> str:
    """A OneDoc document less its inserted sentences (tagged and probes)."""
    stream = doc_stream(0, reference_tokenizer("o200k_base"))
    for needle in stream.needles:
        context = context.replace(" " + needle.text, "")
    return context


def test_the_stream_does_not_depend_on_the_length(o200k: TiktokenTokenizer) -> None:
    short, long = (
        _task("lifbench_single_query_id").generate(n, seed=0, index=0, tokenizer=o200k)
        for n in (3072, LENGTH)
    )
    assert parse_list(short.context)[:10] == parse_list(long.context)[:10]
    short, long = (
        _task("lifbench_extract").generate(n, seed=0, index=0, tokenizer=o200k)
        for n in (3072, LENGTH)
    )
    assert parse_tagged(short.context) == parse_tagged(long.context)
    # The tagged and probe sentences sit at depths of each length's document; the
    # document around them is one text: the short one's (less its partial last
    # sentence) begins the long one's.
    short_doc, long_doc = (_untagged(e.context) for e in (short, long))
    kept = short_doc[: short_doc.rindex(". ") + 1]
    assert len(kept) > 5_000 and long_doc.startswith(kept)
    short, long = (
        _task("lifbench_batch_label").generate(n, seed=0, index=0, tokenizer=o200k)
        for n in (3072, LENGTH)
    )
    whole = short.metadata["n_docs"] - 2  # the last one or two close the collection
    assert parse_docs(short.context)[:whole] == parse_docs(long.context)[:whole]


def test_stream_cache_keeps_the_most_recent_few(o200k: TiktokenTokenizer) -> None:
    made: list[int] = []

    def make(seed: int, tokenizer: Tokenizer) -> Stream:
        made.append(seed)
        return Stream()

    cache = StreamCache(make, size=2)
    first = cache.get(1, o200k)
    assert cache.get(1, o200k) is first and made == [1]
    cache.get(2, o200k)
    cache.get(1, o200k)  # 1 is now the most recent
    cache.get(3, o200k)  # drops 2
    assert len(cache) == 2 and cache.get(1, o200k) is first
    cache.get(2, o200k)
    assert made == [1, 2, 3, 2]
