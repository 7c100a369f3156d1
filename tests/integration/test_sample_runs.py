"""The shipped sample runs are what a new run of the command that recorded them stores:
the same examples and generation keys, so such a run skips them and pairs with them.

FAILS UNTIL THE SAMPLE RUNS (src/lctui/resources/sample_runs/) ARE RE-RECORDED
(scripts/record_sample_runs.sh): the files shipped before issue 15 hold examples fitted
to SmolLM2's own template (32 tokens) under a tokenizer named after the model
(`smollm2-135m`); examples now reserve the fixed template allowance and a Hugging Face
tokenizer is named by its content (`hf-...`). Re-recording, not this test, is the fix.
"""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from lctui.backends import load_backend, resolve_model
from lctui.cli import main
from lctui.engine import RunRequest
from lctui.engine.plan import plan_run
from lctui.resources import sample_runs_dir
from lctui.store import open_store
from lctui.store.transfer import import_parquet
from lctui.tasks import select_tasks
from lctui.tasks.budget import TEMPLATE_ALLOWANCE

# What scripts/record_sample_runs.sh runs.
TASKS, LENGTHS, N, SEED = "synthetic", [1024, 2048, 4096, 8192], 1, 0


@pytest.mark.slow
@pytest.mark.model
def test_a_new_run_of_the_recording_command_skips_the_sample_runs(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    db = tmp_path / "samples.duckdb"
    with open_store(db) as store:
        assert import_parquet(store, sample_runs_dir() / "smollm2-synthetic") > 0
    spec = resolve_model("smollm2-135m", {})
    request = RunRequest([spec], select_tasks(TASKS), LENGTHS, n=N, seed=SEED)
    backend = load_backend(spec)
    try:
        items = list(plan_run(request).model(spec, backend).items())
        tokenizer, fingerprint = backend.tokenizer.name, backend.fingerprint
    finally:
        asyncio.run(backend.close())
    with open_store(db, read_only=True) as store:
        stored = store.stored_keys([item.gen_key for item in items])
        cur = store.cursor()
        shipped = cur.execute(
            "SELECT list(DISTINCT e.tokenizer), list(DISTINCT e.template_overhead), "
            "list(DISTINCT g.model_id) FROM generations g JOIN examples e USING (example_id)"
        ).fetchone()
        cur.close()
    missing = [f"{i.task.name}@{i.length}" for i in items if i.gen_key not in stored]
    assert not missing, (
        f"{len(missing)} of {len(items)} generations a new run would make are not in "
        f"the sample runs (shipped: tokenizer, template allowance, model id = {shipped}; now: "
        f"{tokenizer}, {TEMPLATE_ALLOWANCE}, "
        f"{fingerprint}). Re-record them with scripts/record_sample_runs.sh."
    )
    capsys.readouterr()
    args = ["run", "--model", "smollm2-135m", "--tasks", TASKS, "--lengths", "1k"]
    assert main([*args, "--n", str(N), "--seed", str(SEED), "--db", str(db)]) == 0
    assert "Nothing to do" in capsys.readouterr().out
