"""Why two sides of a comparison have no pair: what differs between their examples.

`compare` pairs generations by example id. When no example was scored on both sides,
`explain_no_pairs` looks at what each side's examples were built with (tokenizer,
lengths, seeds, tasks, template allowance, task parameters, indices) and says which
differ, so the user knows what to run again; `NoPairs` carries that sentence.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from lctui.core.errors import UserInputError
from lctui.core.lengths import format_length
from lctui.store.pairing import TRAITS, example_traits, shared_examples
from lctui.store.samples import SAMPLE_NOTE

if TYPE_CHECKING:
    from lctui.store.read.source import Source

SHOWN_VALUES = 4
_NAMES = {
    "tokenizer": "tokenizers",
    "length": "lengths",
    "seed": "seeds",
    "task": "tasks",
    "template_overhead": "template allowances",
    "params": "task parameters",
    "idx": "example indices",
}
_FIX = (
    "run both on the same tasks, lengths and --seed, counting with the same tokenizer "
    "(--tokenizer o200k_base makes every model read the same examples)"
)


@dataclass(frozen=True)
class Side:
    """One side of a comparison as resolved in the database."""

    spec: str  # as the user wrote it
    model_ids: tuple[str, ...]
    run_id: str | None
    model: str = ""  # the model's name (the spec of a model side)
    sample: bool = False  # a run lctui ships as a sample (store/samples.py)

    @property
    def label(self) -> str:
        """The spec, with SAMPLE_NOTE after a sample run's."""
        return f"{self.spec} ({SAMPLE_NOTE})" if self.sample else self.spec


class NoPairs(UserInputError):
    """Two sides share no example scored on both; the message says why."""


def _shown(trait: str, values: set[str]) -> str:
    def key(v: str) -> tuple[int, float | str]:
        try:
            return (0, float(v))
        except ValueError:
            return (1, v)

    ordered = sorted(values, key=key)
    if trait == "length":
        ordered = [format_length(int(v)) for v in ordered]
    elif trait == "template_overhead":
        ordered = [f"{v} tokens" for v in ordered]
    more = len(ordered) - SHOWN_VALUES
    text = ", ".join(ordered[:SHOWN_VALUES]) + (f" and {more} more" if more > 0 else "")
    return text or "none"


def _trait_differences(
    a: dict[str, set[str]], b: dict[str, set[str]], names: tuple[str, str]
) -> tuple[list[str], list[str]]:
    """(traits with no value in common, traits whose values differ) as phrases."""
    disjoint: list[str] = []
    differing: list[str] = []
    for trait in TRAITS:
        if a[trait] == b[trait]:
            continue
        phrase = (
            f"{_NAMES[trait]} ({names[0]}: {_shown(trait, a[trait])}; "
            f"{names[1]}: {_shown(trait, b[trait])})"
        )
        if trait == "params":  # JSON texts: naming them helps nobody
            phrase = _NAMES[trait]
        (differing if a[trait] & b[trait] else disjoint).append(phrase)
    return disjoint, differing


def explain_no_pairs(
    src: Source,
    a: Side,
    b: Side,
    errors: tuple[int, int] = (0, 0),
    unscored: tuple[int, int] = (0, 0),
) -> str:
    """One sentence on why `a` and `b` share no example scored on both sides.

    `errors`: the pairs compare left out because A's or B's generation failed;
    `unscored`: those left out because A's or B's generation has no score.
    """
    names = (a.label, b.label)
    shared = shared_examples(src, (a.model_ids, a.run_id), (b.model_ids, b.run_id))
    if shared:
        failed = [f"{n} failed on {spec}" for n, spec in zip(errors, names, strict=True) if n]
        missing = [
            f"{n} not scored on {spec}" for n, spec in zip(unscored, names, strict=True) if n
        ]
        fixes = (["run the same command again to retry the failed ones"] if failed else []) + (
            ["lctui rescore scores the missing ones"] if missing else []
        )
        why = ", ".join(failed + missing)
        return (
            f"{a.label} and {b.label} share {shared} example(s), but none was scored on both "
            f"sides{f' ({why})' if why else ''}: "
            f"{'; '.join(fixes) or 'run the same command again to retry them'}"
        )
    traits_a, total_a, stored_a = example_traits(src, a.model_ids, a.run_id)
    traits_b, total_b, stored_b = example_traits(src, b.model_ids, b.run_id)
    head = f"{a.label} and {b.label} share no example, so nothing pairs"
    for spec, total, stored in ((a.label, total_a, stored_a), (b.label, total_b, stored_b)):
        if stored < total:
            return (
                f"{head}: {total - stored} of the {total} examples of {spec} are not stored in "
                "this file, so what they were built with is unknown; import them with their run"
            )
    disjoint, differing = _trait_differences(traits_a, traits_b, names)
    if disjoint:
        return (
            f"{head}: their examples have different {'; '.join(disjoint)}. To compare them, {_FIX}"
        )
    if differing:
        return (
            f"{head}: no example matches in every respect (they differ in "
            f"{'; '.join(differing)}). To compare them, {_FIX}"
        )
    return (
        f"{head}: their examples were built with the same tokenizer, lengths, seeds and tasks "
        "but have different ids, so a task's code changed between the runs; run one side "
        "again to rebuild its examples with this version"
    )
