"""The examples of one heatmap cell (model x task x length, optionally one needle-depth
bucket), filtered by outcome and limited: the results screen's list under the heatmap."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Literal

from lctui.store.read.cells import DEPTH_BUCKET
from lctui.store.read.source import Source, cursor_of

ExampleFilter = Literal["all", "failures", "unparsed", "errors"]

_FILTER_SQL: dict[ExampleFilter, str] = {
    "all": "TRUE",
    "failures": "(status = 'unparsed' OR (status = 'ok' AND score < 1))",
    "unparsed": "status = 'unparsed'",
    "errors": "status = 'error'",
}

# One row per generation: the results view repeats a generation once per metric.
_EXAMPLES_SQL = """
    SELECT generation_id, idx, seed, depth, status, score,
           left(regexp_replace(
               CASE WHEN status = 'error' THEN 'error: ' || coalesce(error, explanation, '')
                    ELSE coalesce(output, '') END,
               '\\s+', ' ', 'g'), $chars) AS head
    FROM results
    WHERE model = $model AND task = $task AND length = $length
      AND ($depth IS NULL OR round(depth / $bucket) * $bucket = $depth)
      AND {where}
    QUALIFY row_number() OVER (PARTITION BY generation_id ORDER BY metric NULLS LAST) = 1
    ORDER BY seed, idx, generation_id
    LIMIT $limit
"""


@dataclass(frozen=True)
class ExampleRow:
    """One generation of a cell: its example, outcome and the start of its output (or
    of its error) on one line."""

    generation_id: str
    idx: int | None
    seed: int | None
    depth: float | None
    status: str
    score: float | None
    head: str


def cell_examples(
    src: Source,
    *,
    model: str,
    task: str,
    length: int,
    depth: float | None = None,
    which: ExampleFilter = "all",
    limit: int,
    head_chars: int,
    bucket: float = DEPTH_BUCKET,
) -> list[ExampleRow]:
    """The cell's generations (latest per example) that pass `which`, by seed and index,
    at most `limit`; `depth` is a bucket of `bucket` percent, None for every depth."""
    params: dict[str, Any] = {
        "model": model,
        "task": task,
        "length": length,
        "depth": depth,
        "bucket": bucket,
        "limit": limit,
        "chars": head_chars,
    }
    with cursor_of(src) as cur:
        rows = cur.execute(_EXAMPLES_SQL.format(where=_FILTER_SQL[which]), params).fetchall()
    return [ExampleRow(*row) for row in rows]
