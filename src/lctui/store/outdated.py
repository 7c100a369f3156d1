"""The stored scores an older version of their scorer made, counted per run and cell.

`lctui run`, `report`, `compare`, `correlate`, `export-report` and the TUI name the
runs these come from, and `lctui rescore --run ID` scores them again
(store/scorer_versions.py has the column and what its values mean).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from lctui.store.read.source import Source, cursor_of
from lctui.store.scorer_versions import CURRENT_VERSION, version_params


@dataclass(frozen=True)
class OutdatedScores:
    """Latest rule-based scores of one run, model, task and length that an older version
    of their scorer made: `count` rows made by `version` where `current` is today's."""

    run_id: str
    model: str
    task: str | None  # None while the generation's example is not stored
    length: int | None
    scorer: str
    version: int
    current: int
    count: int


# `{generations}`: latest_generations (what `results` shows) or generations (every
# attempt, as a run's summary and `lctui rescore` see them). Only the outdated score
# rows are joined, so this costs a scan of the scores when nothing is outdated.
_OUTDATED_SQL = f"""
    WITH old AS (
        SELECT gen_hash, scorer, scorer_version, {CURRENT_VERSION} AS current
        FROM rule_scores
        WHERE scorer_version < {CURRENT_VERSION}
          AND ($scorer_names IS NULL OR list_contains($scorer_names, scorer))
    )
    SELECT g.run_id, coalesce(m.name, g.model_id) AS model, g.task, g.length, s.scorer,
           s.scorer_version AS version, s.current, count(*) AS count
    FROM old AS s
    JOIN {{generations}} AS g ON g.gen_hash = s.gen_hash
    LEFT JOIN models AS m ON m.model_id = g.model_id
    WHERE g.status = 'ok'
      AND ($run_id IS NULL OR g.run_id = $run_id)
      AND ($models IS NULL OR list_contains($models, coalesce(m.name, g.model_id))
           OR list_contains($models, g.model_id))
      AND ($tasks IS NULL OR list_contains($tasks, g.task))
      AND ($lengths IS NULL OR list_contains($lengths, g.length))
      AND ($with_reference OR NOT coalesce(m.reference, false))
    GROUP BY ALL
    ORDER BY g.run_id, model, g.task, g.length, s.scorer, version
"""


def outdated_scores(
    src: Source,
    versions: Mapping[str, int],
    *,
    run_id: str | None = None,
    models: Sequence[str] | None = None,
    tasks: Sequence[str] | None = None,
    lengths: Sequence[int] | None = None,
    scorers: Sequence[str] | None = None,
    every_attempt: bool = False,
    with_reference: bool = True,
) -> list[OutdatedScores]:
    """The latest rule-based scores an older version of their scorer made, counted per
    run, model, task, length, scorer and version.

    `versions` maps each scorer to its current version. By default only the latest
    generation per key counts (what `results` shows); `every_attempt` counts every
    generation that succeeded. None means no filter; `models` matches names or
    fingerprints; `with_reference=False` leaves reference pseudo-models (gold) out.
    """
    params: dict[str, Any] = {
        **version_params(versions),
        "scorer_names": None if scorers is None else list(scorers),
        "run_id": run_id,
        "models": None if models is None else list(models),
        "tasks": None if tasks is None else list(tasks),
        "lengths": None if lengths is None else [int(n) for n in lengths],
        "with_reference": with_reference,
    }
    generations = "generations" if every_attempt else "latest_generations"
    with cursor_of(src) as cur:
        rows = cur.execute(_OUTDATED_SQL.format(generations=generations), params).fetchall()
    return [OutdatedScores(*row) for row in rows]
