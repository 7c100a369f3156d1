"""The DuckDB schema, its forward migrations, and the documented views.

Views (stable; later versions add columns, never remove or rename them):

- `results`: one row per generation key, the latest attempt only, with its score:
  run_id, model, task, category, length (target tokens), prompt_tokens, example_id,
  generation_id, status (ok | unparsed | error), score, output, plus gen_key, suite,
  seed, idx, depth, truncated, metric, score_status, generation_status, error,
  ttft_s, latency_s, output_tokens, spurious, reference, model_id, started_at.
- `rubric`: one row per rubric point of the latest generation of each key:
  generation_id, model, task, length, point, capabilities, weight, earned,
  explanation, idx.
"""

from __future__ import annotations

from collections.abc import Callable

import duckdb

SCHEMA_VERSION = 1

_INITIAL = """
CREATE TABLE models (
    model_id TEXT PRIMARY KEY,           -- backend fingerprint
    name TEXT NOT NULL,
    backend TEXT NOT NULL,
    path TEXT,
    params JSON,
    tokenizer TEXT,
    max_context INTEGER,
    reference BOOLEAN NOT NULL DEFAULT FALSE,
    created_at TIMESTAMP DEFAULT current_timestamp
);
CREATE TABLE runs (
    run_id TEXT PRIMARY KEY,
    started_at TIMESTAMP,
    finished_at TIMESTAMP,
    status TEXT,                         -- running | finished | cancelled | failed
    command JSON,
    lctui_version TEXT,
    host TEXT
);
CREATE TABLE examples (
    example_id TEXT PRIMARY KEY,         -- hash of (task, params, length, seed, index, tokenizer)
    task TEXT NOT NULL,
    category TEXT,
    suite TEXT,
    length INTEGER,
    seed INTEGER,
    idx INTEGER,
    tokenizer TEXT,
    params JSON,
    preamble TEXT,
    context TEXT,                        -- stored once per example, shared by all models
    question TEXT,
    answer_prefix TEXT,
    gold JSON,
    max_new_tokens INTEGER,
    prompt_tokens INTEGER,
    template_overhead INTEGER,
    depth DOUBLE,
    spans JSON,
    truncated BOOLEAN,
    metadata JSON
);
CREATE TABLE generations (
    generation_id TEXT PRIMARY KEY,
    gen_key TEXT NOT NULL,               -- (model fingerprint, example id, config hash)
    run_id TEXT,
    model_id TEXT,
    example_id TEXT,
    config_hash TEXT,
    config JSON,
    status TEXT,                         -- ok | error | cancelled
    output TEXT,
    prompt_tokens INTEGER,
    output_tokens INTEGER,
    ttft_s DOUBLE,
    latency_s DOUBLE,
    finish_reason TEXT,
    error TEXT,
    started_at TIMESTAMP,
    prompt_head TEXT,                    -- prompt = head + preamble + context + question + tail
    prompt_tail TEXT
);
CREATE INDEX generations_key ON generations (gen_key);
CREATE TABLE scores (
    generation_id TEXT,
    scorer TEXT,
    metric TEXT,
    value DOUBLE,
    status TEXT,                         -- ok | unparsed | error
    extracted JSON,
    explanation TEXT,
    extras JSON,
    scored_at TIMESTAMP DEFAULT current_timestamp
);
CREATE TABLE rubric_points (
    generation_id TEXT,
    scorer TEXT,
    idx INTEGER,
    name TEXT,
    capabilities TEXT[],
    weight DOUBLE,
    earned DOUBLE,
    explanation TEXT
);
CREATE TABLE judge_calls (
    call_id TEXT PRIMARY KEY,
    generation_id TEXT,
    judge_model TEXT,
    prompt_hash TEXT,
    prompt TEXT,
    response TEXT,
    parsed JSON,
    created_at TIMESTAMP
);
"""

_VIEWS = """
CREATE OR REPLACE VIEW latest_generations AS
SELECT * FROM generations
QUALIFY row_number() OVER (
    PARTITION BY gen_key ORDER BY started_at DESC, generation_id DESC
) = 1;

CREATE OR REPLACE VIEW results AS
SELECT
    g.run_id,
    m.name AS model,
    e.task,
    e.category,
    e.length,
    g.prompt_tokens,
    g.example_id,
    g.generation_id,
    coalesce(s.status, g.status) AS status,
    s.value AS score,
    g.output,
    g.gen_key,
    e.suite,
    e.seed,
    e.idx,
    e.depth,
    e.truncated,
    s.metric,
    s.status AS score_status,
    g.status AS generation_status,
    g.error,
    g.ttft_s,
    g.latency_s,
    g.output_tokens,
    TRY_CAST(json_extract(s.extras, '$.spurious') AS INTEGER) AS spurious,
    m.reference,
    g.model_id,
    g.started_at
FROM latest_generations g
JOIN examples e USING (example_id)
LEFT JOIN models m ON m.model_id = g.model_id
LEFT JOIN scores s ON s.generation_id = g.generation_id;

CREATE OR REPLACE VIEW rubric AS
SELECT
    r.generation_id,
    m.name AS model,
    e.task,
    e.length,
    r.name AS point,
    r.capabilities,
    r.weight,
    r.earned,
    r.explanation,
    r.idx
FROM rubric_points r
JOIN latest_generations g USING (generation_id)
JOIN examples e ON e.example_id = g.example_id
LEFT JOIN models m ON m.model_id = g.model_id;
"""

Migration = Callable[[duckdb.DuckDBPyConnection], None]


def _migration_1(con: duckdb.DuckDBPyConnection) -> None:
    con.execute(_INITIAL)


# Index i holds the migration from version i to i + 1. Append, never edit.
MIGRATIONS: list[Migration] = [_migration_1]


def create_views(con: duckdb.DuckDBPyConnection) -> None:
    con.execute(_VIEWS)
