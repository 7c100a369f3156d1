"""A task's declared prompt format (Task.prompt_format): HELMET runs recall, RAG,
re-ranking and ICL without the chat template, so json_kv (and the RAG/re-ranking
tasks) default to "plain" on a model that has one; a run's or a model's explicit
prompt_format wins; the window check counts the same framing the request uses; every
stored generation names the format its prompt was framed in.

The models are real hf backends on tiny random checkpoints (helpers/tiny_hf.py).
"""

from __future__ import annotations

import asyncio
import json
import os
from pathlib import Path

import duckdb
import pytest

from helpers.tiny_hf import CHATML, chatml_with_system, make_tiny_checkpoint
from lctui.backends import load_backend
from lctui.core.errors import UserInputError
from lctui.core.types import ModelSpec
from lctui.engine import Engine, RunOutcome, RunRequest
from lctui.engine.plan import plan_run
from lctui.store import open_store
from lctui.tasks import all_tasks, select_tasks

os.environ.setdefault("HF_HUB_OFFLINE", "1")


@pytest.fixture(scope="module")
def checkpoints(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    root = tmp_path_factory.mktemp("tiny-formats")
    return {
        "chat": make_tiny_checkpoint(root / "chat", seed=1, chat_template=CHATML),
        "verbose": make_tiny_checkpoint(
            root / "verbose", seed=3, chat_template=chatml_with_system(90)
        ),
    }


def tiny(path: Path, window: int = 4096, **params: object) -> ModelSpec:
    return ModelSpec(
        name="tiny",
        backend="hf",
        path=str(path),
        params={"max_context": window, "dtype": "float32", **params},
    )


def run_and_read(db: Path, request: RunRequest) -> dict[str, tuple[str, str, str]]:
    """task -> (prompt_head, config's prompt_format, the format used) of its generation."""
    with open_store(db) as store:
        outcome: RunOutcome = asyncio.run(
            Engine(store, load_backend, lambda event: None).run(request)
        )
    assert outcome.errors == 0
    with duckdb.connect(str(db), read_only=True) as con:
        rows = con.execute("SELECT task, prompt_head, config FROM generations").fetchall()
    out = {}
    for task, head, config in rows:
        cfg = json.loads(config)
        out[str(task)] = (str(head), cfg["prompt_format"], cfg["prompt_format_used"])
    return out


def test_helmet_tasks_declare_plain_where_helmet_runs_without_the_template() -> None:
    declared = {t.name: t.prompt_format for t in all_tasks()}
    assert declared["json_kv"] == "plain"
    assert {declared[t] for t in ("kilt_nq", "kilt_popqa", "msmarco_rerank")} == {"plain"}
    assert {declared[t] for t in ("icl_trec_coarse", "icl_nlu")} == {"plain"}
    # HELMET runs citations, long-document QA and summaries with the chat template.
    with_template = ("alce_asqa", "narrativeqa", "infbench_mc", "infbench_sum", "multi_lexsum")
    assert {declared[t] for t in with_template} == {"auto"}
    assert declared["niah_single_1"] == declared["lifbench_repeat"] == "auto"


def test_task_default_applies_when_run_and_model_say_auto(
    checkpoints: dict[str, Path], tmp_path: Path
) -> None:
    tasks = select_tasks("json_kv,niah_single_1")
    request = RunRequest(models=[tiny(checkpoints["chat"])], tasks=tasks, lengths=[1024], n=1)
    got = run_and_read(tmp_path / "a.duckdb", request)
    assert got["json_kv"] == ("", "plain", "plain")
    assert got["niah_single_1"] == ("<|im_start|>user\n", "auto", "chat")


def test_an_explicit_model_or_run_format_wins_over_the_task(
    checkpoints: dict[str, Path], tmp_path: Path
) -> None:
    tasks = select_tasks("json_kv,niah_single_1")
    model_chat = tiny(checkpoints["chat"], prompt_format="chat")
    got = run_and_read(
        tmp_path / "m.duckdb", RunRequest(models=[model_chat], tasks=tasks, lengths=[1024], n=1)
    )
    assert got["json_kv"] == ("<|im_start|>user\n", "chat", "chat")
    run_plain = RunRequest(
        models=[model_chat], tasks=tasks, lengths=[1024], n=1, prompt_format="plain"
    )
    got = run_and_read(tmp_path / "r.duckdb", run_plain)
    assert got["niah_single_1"] == ("", "plain", "plain")
    with pytest.raises(UserInputError, match="unknown prompt format 'chatty'"):
        RunRequest(models=[model_chat], tasks=tasks, lengths=[1024], prompt_format="chatty")


def test_the_window_counts_the_framing_of_the_tasks_own_format(
    checkpoints: dict[str, Path],
) -> None:
    """At length = window, the verbose template (more than the allowance) does not fit;
    json_kv, plain by default, does: its budget is checked with the plain framing its
    request will have, and its work item carries that format."""
    spec = tiny(checkpoints["verbose"], window=1024)
    backend = load_backend(spec)
    fits = RunRequest(models=[spec], tasks=select_tasks("json_kv"), lengths=[1024], n=1)
    plan_run(fits).model(spec, backend)
    [item] = list(plan_run(fits).model(spec, backend).items())
    assert item.config.prompt_format == "plain" and item.truncate_to is None
    chat = RunRequest(models=[spec], tasks=select_tasks("niah_single_1"), lengths=[1024], n=1)
    with pytest.raises(UserInputError, match="niah_single_1"):
        plan_run(chat).model(spec, backend)
    forced = RunRequest(
        models=[spec], tasks=select_tasks("json_kv"), lengths=[1024], n=1, prompt_format="chat"
    )
    with pytest.raises(UserInputError, match="json_kv"):
        plan_run(forced).model(spec, backend)
