"""The List data has the original's structure: uuid1 identifiers and the original's positions.

LIFBench's identifiers are `uuid.uuid1().hex` made in one tight loop: they share all
but their first eight hex digits, so any wrong identifier is a near miss of the right
one under LIFEval's rule (Levenshtein distance <= 32 / 6 + 3). The recorded
distribution below is that of random pairs of 90,000 real uuid1 values made in one
loop (Python 3.11, Linux; FACTS of the parity work: "every pair within 3-6"); ours,
made without a clock from the seed, must match it.
"""

from __future__ import annotations

import random
from collections import Counter
from itertools import pairwise

import pytest
from rapidfuzz.distance import Levenshtein

from lctui.suites.lifbench.tasks.list_context import MULTI_SIZES, parse_list
from lctui.suites.lifbench.tasks.list_tasks import ListTask
from lctui.suites.lifbench.tasks.list_uuids import BATCH_SIZE, Uuid1Source, uuid1_hex
from lctui.tasks import get_task
from lctui.tasks.tokenizers import TiktokenTokenizer

# Share of random pairs of real uuid1 values at each Levenshtein distance (200,000 pairs).
REAL_UUID1_DISTANCES = {1: 0.00003, 2: 0.0013, 3: 0.0177, 4: 0.1279, 5: 0.4146, 6: 0.4385}
NEAR_MISS_LIMIT = 32 / 6 + 3
SINGLE_TASKS = (
    "single_query_id",
    "offset_query_id",
    "offset_query_element",
    "blur_offset_query_id",
    "blur_offset_query_element",
)


def _pair_distances(values: list[str], pairs: int, seed: int) -> Counter[int]:
    rng = random.Random(seed)
    return Counter(Levenshtein.distance(*rng.sample(values, 2)) for _ in range(pairs))


def test_uuid1_hex_has_the_rfc_layout() -> None:
    import uuid

    real = uuid.UUID(fields=(0x12345678, 0x9ABC, 0x1DEF, 0x80 | 0x2A, 0x3B, 0x0123456789AB))
    assert uuid1_hex(0x0DEF9ABC12345678, 0x2A3B, 0x0123456789AB) == real.hex
    assert uuid.UUID(hex=real.hex).version == 1


def test_identifiers_share_their_suffix_and_every_pair_is_a_near_miss() -> None:
    for seed in range(3):
        source = Uuid1Source(random.Random(seed))
        values = [source.take() for _ in range(3000)]
        assert len(set(values)) == len(values)
        assert len({v[8:] for v in values}) == 1  # one loop: only time_low differs
        assert all(v[12] == "1" and v[16] in "89ab" for v in values)  # version 1, RFC variant
        distances = _pair_distances(values, 20_000, seed)
        assert max(distances) <= NEAR_MISS_LIMIT
        total = sum(distances.values())
        shares = {d: distances[d] / total for d in set(distances) | set(REAL_UUID1_DISTANCES)}
        gap = sum(abs(shares.get(d, 0) - REAL_UUID1_DISTANCES.get(d, 0)) for d in shares) / 2
        assert gap < 0.03, shares  # total variation distance from the real loop's


def test_a_new_loop_starts_when_a_batch_is_used_up() -> None:
    source = Uuid1Source(random.Random(5))
    first = {source.take()[8:] for _ in range(BATCH_SIZE)}
    assert len(first) == 1
    assert source.take()[8:] not in first  # another loop: another clock sequence and node


def test_list_entries_are_uuids_from_one_loop_and_sentences(o200k: TiktokenTokenizer) -> None:
    example = get_task("lifbench_single_query_id").generate(13312, 4, 0, o200k)
    items = parse_list(example.context)
    uuids = [i for i in items if len(i) == 32 and all(c in "0123456789abcdef" for c in i)]
    sentences = [i for i in items if i not in uuids]
    assert 0.4 < len(uuids) / len(items) < 0.6
    assert len({u[8:] for u in uuids}) == 1
    assert all(s.isascii() and 5 <= len(s.split()) <= 40 for s in sentences)
    neighbours = [Levenshtein.distance(a, b) for a, b in pairwise(uuids)]
    assert max(neighbours) <= NEAR_MISS_LIMIT
    assert sum(d >= 4 for d in neighbours) / len(neighbours) > 0.9  # random picks, not a run


@pytest.mark.parametrize("length", [3072, 13312, 28672])
def test_positions_are_two_in_the_head_two_in_the_middle_two_in_the_tail(
    length: int, o200k: TiktokenTokenizer
) -> None:
    per_task: dict[str, list[tuple[int, int]]] = {}
    for name in SINGLE_TASKS:
        task = get_task(f"lifbench_{name}")
        assert isinstance(task, ListTask)
        n_expr = len(task.spec.expressions)
        found = []
        for variable in range(len(task.spec.variables)):
            meta = task.generate(length, 2, variable * n_expr, o200k).metadata
            found.append((meta["pivot"], meta["list_size"]))
        per_task[name] = found
    single = per_task["single_query_id"]
    (head_a, _), (head_b, _) = single[:2]
    assert min(head_a, head_b) >= 2 and max(head_a, head_b) <= 11 and head_a != head_b
    assert all(12 <= p <= k - 10 for p, k in single[2:4]) and single[2][0] != single[3][0]
    from_end = [k - p for p, k in single[4:]]  # k - 9 <= p <= k - 1
    assert all(1 <= d <= 9 for d in from_end) and from_end[0] != from_end[1]
    # The same six positions for every task at the seed and length (the list's end may
    # differ by a filler item, so tail positions are compared from the end).
    for found in per_task.values():
        assert [p for p, _ in found[:4]] == [p for p, _ in single[:4]]
        assert [k - p for p, k in found[4:]] == from_end


def test_middle_positions_spread_over_the_whole_middle(o200k: TiktokenTokenizer) -> None:
    task = get_task("lifbench_single_query_id")
    assert isinstance(task, ListTask)
    depths = []
    for seed in range(12):
        for variable in (2, 3):
            meta = task.generate(6144, seed, variable * len(task.spec.expressions), o200k).metadata
            depths.append((meta["pivot"] - 12) / (meta["list_size"] - 21))
    assert min(depths) < 0.25 and max(depths) > 0.75  # not only around the middle


def test_multi_query_id_asks_five_arrays_of_2_4_6_8_10_over_the_whole_list(
    o200k: TiktokenTokenizer,
) -> None:
    task = get_task("lifbench_multi_query_id")
    assert isinstance(task, ListTask)
    n_expr = len(task.spec.expressions)
    assert MULTI_SIZES == (2, 4, 6, 8, 10)  # sorted(random.sample(range(2, 11), 5)) at seed 0
    assert tuple(sorted(random.Random(0).sample(range(2, 11), 5))) == MULTI_SIZES
    everywhere: list[float] = []
    for seed in range(3):
        for variable, size in enumerate(MULTI_SIZES):
            meta = task.generate(6144, seed, variable * n_expr, o200k).metadata
            positions = meta["expected_positions"]
            assert len(positions) == len(set(positions)) == size
            assert all(1 <= p <= meta["list_size"] for p in positions)
            everywhere += [p / meta["list_size"] for p in positions]
    assert positions != sorted(positions) or size <= 2  # asked in drawn order, not sorted
    assert min(everywhere) < 0.1 and max(everywhere) > 0.9
