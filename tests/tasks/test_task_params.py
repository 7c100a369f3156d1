"""Task parameters by declaration: each is typed and bounded, combinations a task cannot
build are refused, and generation stays linear up to the bounds."""

from __future__ import annotations

import random
import subprocess
import sys
import textwrap
from typing import Any

import pytest

from lctui.core.errors import UserInputError
from lctui.tasks import all_tasks, get_task
from lctui.tasks.sampling import distinct


@pytest.mark.parametrize("name", [t.name for t in all_tasks() if t.params])
def test_every_parameter_is_declared_and_its_default_fits(name: str) -> None:
    task = get_task(name)
    assert {spec.name for spec in task.param_specs} == set(task.params)
    assert task.with_params(task.params).params == task.params
    for param in task.info().params:
        assert param.kind in ("int", "number", "choice", "numbers"), param
        assert param.help and param.allowed(), param


@pytest.mark.parametrize(
    ("name", "overrides", "message"),
    [
        ("niah_single_1", {"num_keys": "x"}, "niah_single_1.num_keys must be an integer, got 'x'"),
        ("niah_single_1", {"num_keys": 2.0}, "must be an integer, got 2.0"),
        ("niah_single_1", {"num_keys": False}, "must be an integer, got False"),
        ("niah_single_1", {"num_keys": 10_001}, "num_keys must be within 1..10000"),
        ("niah_single_1", {"value_digits": 0}, "value_digits must be within 1..20, got 0"),
        ("niah_single_1", {"depths": [1000, -5]}, "depths must hold numbers within 0..100"),
        ("niah_single_1", {"depths": [50, "50"]}, "depths must be a list of numbers"),
        ("niah_single_1", {"key_kind": "name"}, "key_kind must be one of word, uuid"),
        ("json_kv", {"depths": [0, 101]}, "json_kv.depths must hold numbers within 0..100"),
        ("vt", {"num_hops": 0}, "vt.num_hops must be within 1..1000, got 0"),
        ("vt", {"name_length": 1, "num_hops": 30}, "num_chains x (num_hops + 1) = 31 distinct"),
        ("vt", {"name_length": 1, "num_chains": 14, "num_hops": 1}, "= 28 distinct"),
        # Three-letter names share the solved example's pool: its 11 names count too.
        (
            "vt",
            {"name_length": 3, "num_chains": 70, "num_hops": 250},
            "(the solved example's) = 17581",
        ),
        ("vt", {"value_digits": 1, "num_chains": 9}, "num_chains + 1 = 10 distinct numbers"),
        ("cwe", {"common_freq": 3}, "cwe.common_freq (3) must be larger than rare_freq (3)"),
        ("fwe", {"alpha": float("inf")}, "fwe.alpha must be a finite number, got inf"),
        ("fwe", {"alpha": 1}, "fwe.alpha must be within 1.01..10, got 1"),
        ("fwe", {"num_answers": 5, "vocab_size": 5}, "num_answers (5) must be smaller"),
        ("fwe", {"word_letters": 2, "vocab_size": 677}, "word_letters=2 gives only 676"),
    ],
)
def test_bad_values_and_combinations_are_refused_naming_the_parameter(
    name: str, overrides: dict[str, Any], message: str
) -> None:
    with pytest.raises(UserInputError, match=f"^{name}") as caught:
        get_task(name).with_params(overrides)
    assert message in str(caught.value)
    assert "\n" not in str(caught.value)


@pytest.mark.parametrize(
    ("name", "overrides"),
    [
        ("vt", {"name_length": 1, "num_hops": 25}),  # 26 names: every one-letter name
        ("vt", {"value_digits": 1, "num_chains": 8}),  # 9 numbers for 9 chains
        ("fwe", {"word_letters": 2, "vocab_size": 676}),
        ("niah_single_1", {"depths": [], "num_keys": 1, "value_digits": 20}),
        ("fwe", {"alpha": 2}),  # an integer is a number
    ],
)
def test_values_at_the_limits_are_accepted_and_build(name: str, overrides: dict[str, Any]) -> None:
    from lctui.tasks.tokenizers import reference_tokenizer

    task = get_task(name).with_params(overrides)
    example = task.generate(4096, 0, 0, reference_tokenizer("o200k_base"))
    assert example.gold and all(example.gold)
    if name == "vt" and overrides.get("name_length") == 1:
        assert len(set(example.gold)) == 26 and all(len(g) == 1 for g in example.gold)


def test_distinct_draws_match_the_list_check_they_replace() -> None:
    def by_list(rng: random.Random, count: int) -> list[int]:
        out: list[int] = []
        while len(out) < count:
            value = rng.randrange(50)
            if value not in out:
                out.append(value)
        return out

    rng_a, rng_b = random.Random(7), random.Random(7)
    assert distinct(lambda: rng_a.randrange(50), 50) == by_list(rng_b, 50)
    with pytest.raises(UserInputError, match="could not draw 51 distinct values"):
        distinct(lambda: rng_a.randrange(50), 51)


@pytest.mark.slow
def test_largest_declared_vt_and_needle_counts_build_without_hanging() -> None:
    """101 x 1001 distinct names and 10,000 keys, the declared maxima, build and end in
    the "too short" error after drawing every name and key.

    A guard against hangs (a subprocess with a timeout), not a timing: the list checks
    that `distinct` replaced took 48 s for the vt case on the machine it was written
    on, 0.8 s with the set.
    """
    script = textwrap.dedent("""
        from lctui.core.errors import UserInputError
        from lctui.tasks import get_task
        from lctui.tasks.tokenizers import reference_tokenizer
        tok = reference_tokenizer("o200k_base")
        cases = [
            ("vt", {"num_hops": 1000, "num_chains": 100, "name_length": 4}),
            ("niah_multikey_1", {"num_keys": 10000, "num_queries": 100, "num_values": 100}),
        ]
        for name, params in cases:
            try:
                get_task(name).with_params(params).generate(2048, 0, 0, tok)
            except UserInputError as exc:
                assert "too short" in str(exc), exc
                print(name, "too short")
    """)
    result = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, timeout=180
    )
    assert result.returncode == 0, result.stderr
    assert result.stdout.split() == ["vt", "too", "short", "niah_multikey_1", "too", "short"]
