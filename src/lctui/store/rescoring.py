"""Which stored generations to score (again), and their outputs, for `lctui rescore`.

A generation that succeeded but has no rule-based score is `unscored` in `results`
(store/views.py): its score row was lost, or never written. One whose latest
rule-based score an older version of its scorer made is `outdated`
(store/scorer_versions.py). These reads find such generations (or every generation
that succeeded, to score them all again); engine/rescore.py scores them and writes
through the store's writer, so the new score rows become the latest and the old ones
stay, superseded. Published scores (imported models: empty outputs) are never targets.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Literal

import pyarrow as pa

from lctui.store.read.source import Source, cursor_of
from lctui.store.scorer_versions import CURRENT_VERSION, PUBLISHED_BACKEND, version_params

# missing: no rule-based score; outdated: scored by an older scorer version; stale:
# either of those; all: every generation that succeeded.
Which = Literal["missing", "outdated", "stale", "all"]
WHICH: tuple[Which, ...] = ("missing", "outdated", "stale", "all")


@dataclass(frozen=True)
class ScoreTarget:
    """A stored generation to score: its id, the example it answered, and its cell."""

    generation_id: str
    example_id: str
    model: str
    task: str | None  # None while the generation's example is not stored
    length: int | None
    outdated: bool = False  # its latest rule-based score an older scorer version made


# Every attempt that succeeded, not only the latest per key: a run's summary counts its
# own latest attempts, which a later run may have superseded in `results`.
_TARGETS_SQL = f"""
    WITH s AS (
        SELECT gen_hash, bool_or(scorer_version < {CURRENT_VERSION}) AS outdated
        FROM rule_scores GROUP BY gen_hash
    )
    SELECT g.generation_id, g.example_id, coalesce(m.name, g.model_id) AS model, g.task,
           g.length, coalesce(s.outdated, false) AS outdated
    FROM generations AS g
    LEFT JOIN models AS m ON m.model_id = g.model_id
    LEFT JOIN s ON s.gen_hash = g.gen_hash
    WHERE g.status = 'ok' AND coalesce(m.backend, '') <> '{PUBLISHED_BACKEND}'
      AND CASE $which
          WHEN 'missing' THEN s.gen_hash IS NULL
          WHEN 'outdated' THEN coalesce(s.outdated, false)
          WHEN 'stale' THEN s.gen_hash IS NULL OR coalesce(s.outdated, false)
          ELSE true END
      AND ($run_id IS NULL OR g.run_id = $run_id)
      AND ($models IS NULL OR list_contains($models, coalesce(m.name, g.model_id))
           OR list_contains($models, g.model_id))
      AND ($tasks IS NULL OR list_contains($tasks, g.task))
      AND ($lengths IS NULL OR list_contains($lengths, g.length))
    ORDER BY g.example_id, g.generation_id
"""


def score_targets(
    src: Source,
    which: Which = "missing",
    *,
    versions: Mapping[str, int] | None = None,
    run_id: str | None = None,
    models: Sequence[str] | None = None,
    tasks: Sequence[str] | None = None,
    lengths: Sequence[int] | None = None,
) -> list[ScoreTarget]:
    """Generations that succeeded and are `which` (see WHICH), ordered by example so
    that consecutive targets share their example. `versions` maps each scorer to its
    current version (lctui.scoring.versions); without it no score is outdated. None
    means no filter; `models` matches names or fingerprints."""
    if which not in WHICH:
        raise ValueError(f"which must be one of {', '.join(WHICH)}, not {which!r}")
    params = {
        **version_params(versions),
        "which": which,
        "run_id": run_id,
        "models": None if models is None else list(models),
        "tasks": None if tasks is None else list(tasks),
        "lengths": None if lengths is None else [int(n) for n in lengths],
    }
    with cursor_of(src) as cur:
        rows = cur.execute(_TARGETS_SQL, params).fetchall()
    return [ScoreTarget(*row) for row in rows]


def stored_outputs(src: Source, generation_ids: Sequence[str]) -> dict[str, str]:
    """The output text of each of these generations (empty when none was stored)."""
    wanted = pa.table({"generation_id": pa.array(list(generation_ids), pa.large_string())})
    if wanted.num_rows == 0:
        return {}
    with cursor_of(src) as cur:
        cur.register("_lctui_wanted_generations", wanted)
        try:
            rows = cur.execute(
                "SELECT g.generation_id, g.output FROM generations AS g "
                "JOIN _lctui_wanted_generations AS w ON w.generation_id = g.generation_id"
            ).fetchall()
        finally:
            cur.unregister("_lctui_wanted_generations")
    return {str(gid): str(output or "") for gid, output in rows}
