"""Every model reads the same examples: an example depends on its tokenizer, never on
the model's prompt template, so runs of different models pair for a comparison; the
window is still checked per model, with its own template.

The second and third models are real hf backends on tiny random checkpoints (a few
hundred KB, built here) whose chat templates differ from gold's plain prompt: one is
ChatML, one frames every prompt with a long system turn (more than the allowance).
"""

from __future__ import annotations

import asyncio
import dataclasses
import json
import os
from pathlib import Path

import duckdb
import pytest

from helpers.tiny_hf import CHATML, chatml_with_system, make_tiny_checkpoint
from lctui.analysis.compare import compare
from lctui.backends import load_backend
from lctui.cli import main
from lctui.core.errors import UserInputError
from lctui.core.types import ModelSpec
from lctui.engine import Engine, RunOutcome, RunRequest
from lctui.engine.plan import plan_run
from lctui.store import open_store
from lctui.tasks import select_tasks
from lctui.tasks.base import truncate_example
from lctui.tasks.budget import TEMPLATE_ALLOWANCE
from lctui.tasks.tokenizers import reference_tokenizer

os.environ.setdefault("HF_HUB_OFFLINE", "1")

GOLD = ModelSpec(name="gold", backend="gold", reference=True)
WINDOW = 4096  # the tiny models' window (their positions are rotary: any length runs)


@pytest.fixture(scope="module")
def checkpoints(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """Three tiny checkpoints sharing one tokenizer: ChatML, plain, and a long system turn."""
    root = tmp_path_factory.mktemp("tiny-templates")
    return {
        "chat": make_tiny_checkpoint(root / "chat", seed=1, chat_template=CHATML),
        "plain": make_tiny_checkpoint(root / "plain", seed=2, chat_template=None),
        "verbose": make_tiny_checkpoint(
            root / "verbose", seed=3, chat_template=chatml_with_system(90)
        ),
    }


def tiny(checkpoints: dict[str, Path], kind: str, window: int = WINDOW) -> ModelSpec:
    return ModelSpec(
        name=f"tiny-{kind}",
        backend="hf",
        path=str(checkpoints[kind]),
        params={"max_context": window, "dtype": "float32"},
    )


def run(db: Path, request: RunRequest) -> RunOutcome:
    with open_store(db) as store:
        return asyncio.run(Engine(store, load_backend, lambda event: None).run(request))


def examples_by_model(db: Path) -> dict[str, set[str]]:
    with duckdb.connect(str(db), read_only=True) as con:
        rows = con.execute("SELECT model, example_id FROM results").fetchall()
    out: dict[str, set[str]] = {}
    for model, example_id in rows:
        out.setdefault(str(model), set()).add(str(example_id))
    return out


def test_models_with_different_templates_read_the_same_examples(
    checkpoints: dict[str, Path], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    db = tmp_path / "shared.duckdb"
    chat = tiny(checkpoints, "chat")
    tasks = select_tasks("niah_single_1,vt")
    request = RunRequest(
        models=[GOLD, chat], tasks=tasks, lengths=[1024], n=2, tokenizer="o200k_base"
    )
    backends = [load_backend(GOLD), load_backend(chat)]
    framings = [b.template_overhead("Answer:") for b in backends]
    assert framings[0] != framings[1]  # the templates really differ
    outcome = run(db, request)
    assert outcome.done + outcome.errors == 8
    by_model = examples_by_model(db)
    assert by_model["gold"] == by_model["tiny-chat"] and len(by_model["gold"]) == 4
    with duckdb.connect(str(db), read_only=True) as con:
        assert con.execute("SELECT count(*) FROM examples").fetchone() == (4,)
        # Each example reserves the allowance plus its own answer prefix's tokens.
        allowances = {
            overhead - json.loads(metadata).get("prefix_tokens", 0)
            for overhead, metadata in con.execute(
                "SELECT template_overhead, metadata FROM examples"
            ).fetchall()
        }
        # Each model's real prompt size is recorded: the same text, framed differently.
        sizes = dict(
            con.execute(
                "SELECT model, max(prompt_tokens) FROM results WHERE task = 'vt' GROUP BY model"
            ).fetchall()
        )
    assert allowances == {TEMPLATE_ALLOWANCE}
    assert sizes["gold"] != sizes["tiny-chat"]
    with open_store(db, read_only=True) as store:
        result = compare(store, "gold", "tiny-chat")
    assert sum(c.n for c in result.cells) == 4 and result.only_a == result.only_b == 0
    capsys.readouterr()
    assert main(["compare", "gold", "tiny-chat", "--db", str(db), "--format", "json"]) == 0
    assert '"only_a": 0' in capsys.readouterr().out


def test_checkpoints_sharing_a_tokenizer_share_examples_without_a_shared_tokenizer(
    checkpoints: dict[str, Path], tmp_path: Path
) -> None:
    """Base vs instruct: two checkpoints of one family (one tokenizer), one with a chat
    template and one without, counting each with its own tokenizer, read one example."""
    db = tmp_path / "family.duckdb"
    chat, plain = tiny(checkpoints, "chat"), tiny(checkpoints, "plain")
    assert load_backend(chat).tokenizer.name == load_backend(plain).tokenizer.name
    request = RunRequest(
        models=[chat, plain],
        tasks=select_tasks("niah_single_1"),
        lengths=[512],
        n=2,
        tokenizer="model",
    )
    outcome = run(db, request)
    assert outcome.done + outcome.errors == 4
    by_model = examples_by_model(db)
    assert by_model["tiny-chat"] == by_model["tiny-plain"] and len(by_model["tiny-chat"]) == 2


def test_several_models_read_the_same_examples_unless_each_counts_with_its_own(
    checkpoints: dict[str, Path], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Issue 24: gold and a model with a tokenizer of its own, run together without a
    tokenizer named, read the same examples (o200k_base), so Compare pairs every one;
    `--tokenizer model` is what makes each build its own (and nothing pairs)."""
    chat = tiny(checkpoints, "chat")
    assert load_backend(chat).tokenizer.name != "o200k_base"
    tasks = select_tasks("niah_single_1,niah_multikey_1")
    shared = run(tmp_path / "shared.duckdb", RunRequest([GOLD, chat], tasks, [1024], n=2))
    assert shared.done + shared.errors == 8
    by_model = examples_by_model(tmp_path / "shared.duckdb")
    assert by_model["gold"] == by_model["tiny-chat"] and len(by_model["gold"]) == 4
    with open_store(tmp_path / "shared.duckdb", read_only=True) as store:
        result = compare(store, "gold", "tiny-chat")
    assert sum(c.n for c in result.cells) == 4 and result.only_a == result.only_b == 0

    own = RunRequest([GOLD, chat], tasks, [1024], n=2, tokenizer="model")
    apart = run(tmp_path / "own.duckdb", own)
    assert apart.done + apart.errors == 8
    by_model = examples_by_model(tmp_path / "own.duckdb")
    assert not by_model["gold"] & by_model["tiny-chat"]

    # The command line has the same default, and says so.
    db, config = tmp_path / "cli.duckdb", tmp_path / "lctui.toml"
    config.write_text(
        f'[models.tiny-chat]\nbackend = "hf"\npath = "{checkpoints["chat"]}"\n'
        f'max_context = {WINDOW}\ndtype = "float32"\n',
        encoding="utf-8",
    )
    argv = ["run", "-m", "gold", "-m", "tiny-chat", "-t", "niah_single_1", "-l", "1k", "-n", "2"]
    capsys.readouterr()
    assert main([*argv, "--db", str(db), "--config", str(config)]) == 0
    out = " ".join(capsys.readouterr().out.split())
    assert "2 models: every example counts with o200k_base" in out
    stored = examples_by_model(db)
    assert len(stored) == 2 and len({frozenset(ids) for ids in stored.values()}) == 1


def test_the_window_is_checked_per_model_with_its_own_template(
    checkpoints: dict[str, Path],
) -> None:
    """At length = window, a model whose template fits in the allowance fits; one whose
    template takes more than the allowance is refused (or cut with --truncate) alone."""
    length = 1024
    verbose = tiny(checkpoints, "verbose", window=length)
    small_gold = ModelSpec("gold-1k", "gold", params={"max_context": length}, reference=True)
    verbose_backend, gold_backend = load_backend(verbose), load_backend(small_gold)
    (task,) = select_tasks("niah_single_1")
    framing = verbose_backend.template_overhead(task.answer_prefix)
    assert framing > TEMPLATE_ALLOWANCE
    request = RunRequest(
        models=[small_gold, verbose],
        tasks=select_tasks("niah_single_1"),
        lengths=[length],
        n=1,
        tokenizer="o200k_base",
    )
    plan_run(request).model(small_gold, gold_backend)  # gold's plain prompt fits
    with pytest.raises(UserInputError) as refused:
        plan_run(request).model(verbose, verbose_backend)
    message = str(refused.value)
    assert "window of 1024 tokens" in message and f"takes {framing} tokens" in message
    assert f"more than the {TEMPLATE_ALLOWANCE}" in message and "--truncate" in message
    assert f"up to {length + TEMPLATE_ALLOWANCE - framing} tokens" in message

    truncating = dataclasses.replace(request, truncate=True)
    (gold_item,) = list(plan_run(truncating).model(small_gold, gold_backend).items())
    (cut_item,) = list(plan_run(truncating).model(verbose, verbose_backend).items())
    assert gold_item.truncate_to is None  # gold reads the shared example as it is
    assert cut_item.example_id.startswith(gold_item.example_id + "-t")
    assert cut_item.truncate_to is not None
    o200k = reference_tokenizer("o200k_base")
    example = gold_item.task.generate(length, 0, 0, o200k)
    cut = truncate_example(example, cut_item.truncate_to, o200k)
    assert cut.example_id == cut_item.example_id and cut.truncated
    # The verbose model's prompt (the cut user text in its template) and answer fit.
    assert o200k.count(cut.user_text) + framing + cut.max_new_tokens <= length


def test_lifbench_counts_with_its_papers_tokenizer_unless_the_run_names_one(
    checkpoints: dict[str, Path], tmp_path: Path
) -> None:
    """LIFBench measures lengths in o200k_base tokens: its examples count with it by
    default, also beside tasks that count with the model's own; --tokenizer wins."""
    chat = tiny(checkpoints, "chat", window=16384)
    backend = load_backend(chat)
    own = backend.tokenizer.name
    tasks = select_tasks("niah_single_1,lifbench_single_query_id")

    def counted_with(tokenizer: str | None) -> dict[str, str]:
        request = RunRequest([chat], tasks, [3072], n=1, tokenizer=tokenizer)
        return {
            i.task.name: str(i.tokenizer and i.tokenizer.name)
            for i in plan_run(request).model(chat, backend).items()
        }

    assert counted_with(None) == {"niah_single_1": own, "lifbench_single_query_id": "o200k_base"}
    assert set(counted_with("cl100k_base").values()) == {"cl100k_base"}
    assert set(counted_with("model").values()) == {own}

    db = tmp_path / "lifbench.duckdb"
    outcome = run(db, RunRequest([chat], tasks, [3072], n=1))
    assert outcome.done + outcome.errors == 2
    with duckdb.connect(str(db), read_only=True) as con:
        stored = dict(con.execute("SELECT task, tokenizer FROM examples").fetchall())
        (model_tokenizer,) = con.execute("SELECT tokenizer FROM models").fetchone() or ("",)
    assert stored == {"niah_single_1": own, "lifbench_single_query_id": "o200k_base"}
    assert model_tokenizer == own  # the model's own tokenizer, whatever its examples count with


def test_run_says_which_tasks_count_with_their_papers_tokenizer(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    args = ["run", "--model", "gold", "--tasks", "lifbench_single_query_id,niah_single_1"]
    assert main([*args, "--lengths", "3k", "--n", "1", "--db", str(tmp_path / "n.duckdb")]) == 0
    out = " ".join(capsys.readouterr().out.split())
    assert "1 task(s) (lifbench_single_query_id) count with o200k_base, as their paper does" in out
    assert main(["run", "--model", "gold", "--tasks", "niah_single_1", "--tokenizer", "gpt2"]) == 2
    assert "unknown tokenizer 'gpt2'" in capsys.readouterr().err
