"""What the examples of one side of a comparison were built with, and what two sides share.

A comparison pairs generations by example id, and an id is a hash of what built the
example (task, parameters, length, seed, index, tokenizer, template allowance). When
two sides share no example, these values say which of them differ.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from lctui.store.read.source import Source, cursor_of

# Example columns that enter an example's id, in the order a reason names them.
TRAITS = ("tokenizer", "length", "seed", "task", "template_overhead", "params", "idx")

# A trait read as an expression rather than its column: the template allowance is an
# example's template_overhead less its own answer prefix's tokens (RULER-style prefixes
# that name the asked key vary in length from example to example).
_EXPRESSIONS = {
    "template_overhead": (
        "e.template_overhead - coalesce(TRY_CAST(e.metadata->>'prefix_tokens' AS INTEGER), 0)"
    ),
}
_VALUES = ", ".join(f"list(DISTINCT ({_EXPRESSIONS.get(t, 'e.' + t)})::VARCHAR)" for t in TRAITS)
_SIDE = "list_contains($1, g.model_id) AND ($2 IS NULL OR g.run_id = $2)"
_TRAITS_SQL = f"""
    SELECT {_VALUES},
           count(DISTINCT g.example_id) AS examples,
           count(DISTINCT e.example_id) AS stored
    FROM generations AS g LEFT JOIN examples AS e USING (example_id)
    WHERE {_SIDE}
"""
_SHARED_SQL = f"""
    SELECT count(*) FROM (
        SELECT example_id FROM generations AS g WHERE {_SIDE}
        INTERSECT
        SELECT example_id FROM generations AS g
        WHERE list_contains($3, g.model_id) AND ($4 IS NULL OR g.run_id = $4)
    )
"""


def example_traits(
    src: Source, model_ids: Sequence[str], run_id: str | None
) -> tuple[dict[str, set[str]], int, int]:
    """The distinct values of every trait among a side's examples (as text), the number
    of examples its generations name, and how many of those are stored."""
    with cursor_of(src) as cur:
        row: Any = cur.execute(_TRAITS_SQL, [list(model_ids), run_id]).fetchone()
    values = {trait: {v for v in row[i] or () if v is not None} for i, trait in enumerate(TRAITS)}
    return values, int(row[len(TRAITS)]), int(row[len(TRAITS) + 1])


def shared_examples(
    src: Source,
    a: tuple[Sequence[str], str | None],
    b: tuple[Sequence[str], str | None],
) -> int:
    """How many example ids both sides have a generation of (scored or not)."""
    with cursor_of(src) as cur:
        row: Any = cur.execute(_SHARED_SQL, [list(a[0]), a[1], list(b[0]), b[1]]).fetchone()
    return int(row[0])


# Each side's latest generation per example (as the `latest` flags order attempts), and
# how many examples both sides have and how many of those are one generation on both.
_SAME_SQL = f"""
    WITH g AS (
        SELECT example_id, generation_id, started_at, {_SIDE} AS in_a,
               list_contains($3, g.model_id) AND ($4 IS NULL OR g.run_id = $4) AS in_b
        FROM generations AS g
    ), latest_a AS (
        SELECT example_id, generation_id FROM g WHERE in_a
        QUALIFY row_number() OVER (
            PARTITION BY example_id ORDER BY started_at DESC NULLS LAST, generation_id DESC
        ) = 1
    ), latest_b AS (
        SELECT example_id, generation_id FROM g WHERE in_b
        QUALIFY row_number() OVER (
            PARTITION BY example_id ORDER BY started_at DESC NULLS LAST, generation_id DESC
        ) = 1
    )
    SELECT count(*), count(*) FILTER (WHERE a.generation_id = b.generation_id)
    FROM latest_a AS a JOIN latest_b AS b USING (example_id)
"""


def same_generations(
    src: Source,
    a: tuple[Sequence[str], str | None],
    b: tuple[Sequence[str], str | None],
) -> tuple[int, int]:
    """(examples both sides have, of which the latest generation is the same one on both
    sides): a model and one of its runs overlap so."""
    with cursor_of(src) as cur:
        # fetchall: the caller's cursor may go on to another query, which a result
        # left unread would refuse
        ((shared, same),) = cur.execute(_SAME_SQL, [list(a[0]), a[1], list(b[0]), b[1]]).fetchall()
    return int(shared), int(same)
