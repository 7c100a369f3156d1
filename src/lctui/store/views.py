"""The documented views that `lctui query`, the TUI and the analysis read.

Later issues may add columns to these views but never rename or drop one. All of them
see only the LATEST generation per `gen_key` (by `started_at`, then `generation_id`):
an error followed by a successful retry, or a re-run, shows once, as its newest
attempt. Re-scoring appends score rows; the views pick the latest per (generation,
scorer, metric) and the rubric points written with it.

`results`: one row per latest generation and rule-based metric (LLM-judge scores are
in `judge_scores`, so means over `results` never mix the two).

    run_id          run that produced this generation
    model           model name (models.name; the fingerprint if the model is unknown)
    task, category  task name and its category (examples)
    length          target context length in tokens (the budget asked for)
    prompt_tokens   tokens the model actually read (from the backend, else as built)
    example_id, generation_id
    status          the score status (ok | unparsed | error) where a rule-based score
                    exists; else `unscored` for a generation that succeeded but has no
                    such score (its score is missing: never a 0, left out of every mean
                    and counted apart; `lctui rescore` scores it), else the generation
                    status (error | cancelled)
    score           score value in [0, 1]; NULL for errors and unscored generations
    output          generated text
    gen_key         (model, example, generation config) key shared by retries
    seed, idx       example seed and index within (task, length, seed)
    depth           needle depth in percent of the context, NULL if the task has none
    metric          metric name of the score
    score_status    status of the score row alone (NULL when there is no score)
    error           generation error message, NULL when it succeeded
    ttft_s, latency_s, output_tokens
    reference       true for the gold pseudo-model (it echoes the answer)
    model_id        model fingerprint
    suite           benchmark suite of the task
    scorer          scorer name
    generation_status  status of the generation row alone
    finish_reason, config_hash, started_at, scored_at
    extracted       JSON list of answers the scorer extracted
    explanation     the scorer's explanation
    repaired        true when the generation's text (output, error) was changed to be
                    storable: lone UTF-16 surrogates replaced with U+FFFD
    scorer_version  version of the scorer's rules that made the score
                    (lctui.scoring.versions); 0 for scores stored before versions were
                    recorded, NULL for those no lctui scorer made (errors, published
                    scores imported with `lctui import lifbench-scores`); a score whose
                    version is older than its scorer's current one is flagged, and
                    `lctui rescore` scores it again

`results_core`: the same rows as `results` without the columns read from the example
(prompt_tokens, seed, idx, depth, suite); aggregates over it skip the join with the
examples table (the task, category and length are copied onto each generation).

`rubric`: one row per rubric point of the latest score of each latest generation.

    run_id, model, task, category, length, example_id, generation_id, reference
    scorer, idx     scorer and the point's position in its rubric
    point           the point's name
    capabilities    VARCHAR[] of capabilities the point tests
    weight          the point's weight
    earned          fraction in [0, 1] of the weight that was earned
    explanation     why it was (not) earned
    scorer_version  that of the score the point was written with (as in `results`)

`judge_scores`: one row per latest generation and judge metric (judge_qa, judge_summ):
run_id, model, task, length, example_id, generation_id, metric, score, status,
explanation, scored_at, scorer_version; the judge's points are in `rubric` (scorer
'judge').

Re-scoring (`lctui rescore`) appends score rows: the newest becomes the latest and the
views show it; the older rows stay in `scores` (and their points in `rubric_points`)
with `latest` false, superseded but auditable.

Accounting: `run_model_stats` and `judge_stats` (store/stats_views.py).

Helper views: `latest_generations` (generations, latest per gen_key),
`latest_scores` (scores, latest per generation, scorer and metric) and `rule_scores`
(the latest scores of every scorer but the LLM judge).

LIFEval's metrics (ARS per response, task, length and model; IFP per capability; IFS
per perspective) are the `lifeval_*` views, documented in store/lifeval_views.py.
"""

from __future__ import annotations

import re

import duckdb

from lctui.store.lifeval_views import LIFEVAL_VIEWS
from lctui.store.stats_views import STATS_VIEWS

# The status of a latest generation `g` with its latest rule-based score `s` (NULL when
# it has none): a generation that succeeded without a score is `unscored`, never `ok`,
# so that no mean can read its missing score as a 0 (store/read/, analysis/).
# Scores that stand beside a generation's own score and never enter its means: the LLM
# judge's (the `judge_scores` view) and ALCE's citation scores (`lctui cite-score`).
SIDE_SCORERS = ("judge", "alce_citations")
RULE_SCORE = "scorer NOT IN (" + ", ".join(f"'{s}'" for s in SIDE_SCORERS) + ")"
RESULT_STATUS = "coalesce(s.status, CASE WHEN g.status = 'ok' THEN 'unscored' ELSE g.status END)"

# The columns of `results` (name, SQL); those reading the example (e.) are left out of
# `results_core`, which then needs no join with the examples table.
_RESULT_COLUMNS: tuple[tuple[str, str], ...] = (
    ("run_id", "g.run_id"),
    ("model", "coalesce(m.name, g.model_id)"),
    ("task", "g.task"),
    ("category", "g.category"),
    ("length", "g.length"),
    ("prompt_tokens", "coalesce(nullif(g.prompt_tokens, 0), e.prompt_tokens)"),
    ("example_id", "g.example_id"),
    ("generation_id", "g.generation_id"),
    ("status", RESULT_STATUS),
    ("score", "s.value"),
    ("output", "g.output"),
    ("gen_key", "g.gen_key"),
    ("seed", "e.seed"),
    ("idx", "e.idx"),
    ("depth", "e.depth"),
    ("metric", "s.metric"),
    ("score_status", "s.status"),
    ("error", "g.error"),
    ("ttft_s", "g.ttft_s"),
    ("latency_s", "g.latency_s"),
    ("output_tokens", "g.output_tokens"),
    ("reference", "coalesce(m.reference, false)"),
    ("model_id", "g.model_id"),
    ("suite", "e.suite"),
    ("scorer", "s.scorer"),
    ("generation_status", "g.status"),
    ("finish_reason", "g.finish_reason"),
    ("config_hash", "g.config_hash"),
    ("started_at", "g.started_at"),
    ("scored_at", "s.scored_at"),
    ("extracted", "s.extracted"),
    ("explanation", "s.explanation"),
    ("repaired", "coalesce(g.repaired, false)"),
    ("scorer_version", "s.scorer_version"),
)


_READS_EXAMPLE = re.compile(r"\be\.")


def _results_sql(*, with_examples: bool) -> str:
    columns = ",\n            ".join(
        f"{sql} AS {name}" if sql != f"g.{name}" else sql
        for name, sql in _RESULT_COLUMNS
        if with_examples or not _READS_EXAMPLE.search(sql)
    )
    examples = "\n        LEFT JOIN examples AS e ON e.example_id = g.example_id" * with_examples
    return f"""
        SELECT
            {columns}
        FROM latest_generations AS g{examples}
        LEFT JOIN models AS m ON m.model_id = g.model_id
        LEFT JOIN rule_scores AS s ON s.gen_hash = g.gen_hash
    """


VIEWS: dict[str, str] = {
    # The `latest` flags are kept by the writer and the import (store/latest.py).
    "latest_generations": "SELECT * EXCLUDE (latest) FROM generations WHERE latest",
    "latest_scores": "SELECT * EXCLUDE (latest) FROM scores WHERE latest",
    # What means are taken over: every latest score but the LLM judge's (judge_scores).
    # The citation scores (lctui cite-score) stand beside a generation's own score too.
    "rule_scores": f"SELECT * FROM latest_scores WHERE {RULE_SCORE}",
    "results": _results_sql(with_examples=True),
    "results_core": _results_sql(with_examples=False),
    "judge_scores": """
        SELECT
            g.run_id,
            coalesce(m.name, g.model_id) AS model,
            g.task,
            g.length,
            g.example_id,
            g.generation_id,
            s.metric,
            s.value AS score,
            s.status,
            s.explanation,
            s.scored_at,
            s.scorer_version
        FROM latest_generations AS g
        JOIN latest_scores AS s ON s.gen_hash = g.gen_hash AND s.scorer = 'judge'
        LEFT JOIN models AS m ON m.model_id = g.model_id
    """,
    # Points of one scorer share the scored_at of the score row written with them.
    "rubric": """
        WITH latest_points AS (SELECT * FROM rubric_points WHERE latest)
        SELECT
            g.run_id,
            coalesce(m.name, g.model_id) AS model,
            g.task,
            g.category,
            g.length,
            g.example_id,
            g.generation_id,
            coalesce(m.reference, false) AS reference,
            p.scorer,
            p.idx,
            p.name AS point,
            p.capabilities,
            p.weight,
            p.earned,
            p.explanation,
            p.scorer_version
        FROM latest_generations AS g
        JOIN latest_points AS p ON p.gen_hash = g.gen_hash
        LEFT JOIN models AS m ON m.model_id = g.model_id
    """,
}


def create_views(con: duckdb.DuckDBPyConnection, *, temporary: bool = False) -> None:
    """(Re)create every view from the current SQL; views hold no data.

    `temporary` views live in this connection only (they shadow the file's own views),
    which is how a read-only connection sees an older file through the current views.
    """
    kind = "TEMPORARY VIEW" if temporary else "VIEW"
    for name, sql in {**VIEWS, **LIFEVAL_VIEWS, **STATS_VIEWS}.items():
        con.execute(f"CREATE OR REPLACE {kind} {name} AS {sql}")
