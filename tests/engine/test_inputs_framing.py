"""Examples from an original's inputs reach the model as the original sends them
(engine/framing.py): a completion is the user text alone, whatever the model would
choose; a user message is the one chat turn holding it; a model that would send them
otherwise is refused before any request; the run cannot reframe or cut them; and the
same inputs pair across models.

The models are real hf backends on tiny random checkpoints (helpers/tiny_hf.py) and the
openai backend built without a server; the inputs are files in the `prompts` kind's
format with invented text.
"""

from __future__ import annotations

import asyncio
import dataclasses
import json
import os
from pathlib import Path
from typing import Any

import duckdb
import pytest

from helpers.tiny_hf import CHATML, make_tiny_checkpoint
from lctui.backends import load_backend, resolve_model
from lctui.backends.openai_backend import OpenAIBackend
from lctui.backends.resilience import ServerInfo, read_settings
from lctui.core.errors import UserInputError
from lctui.core.types import Example, ModelSpec
from lctui.engine import Engine, RunOutcome, RunRequest
from lctui.engine.framing import check_framing
from lctui.store import open_store
from lctui.tasks import get_task
from lctui.tasks.inputs import parse_inputs_arg, read_inputs

os.environ.setdefault("HF_HUB_OFFLINE", "1")

# Words of the tiny tokenizer, so the tiny model reads them; a tab, a double space and a
# trailing newline that any reformatting would lose.
ROWS: list[dict[str, Any]] = [
    {
        "input": "the secret number is  a blue cat .\n\twhat is",
        "answer_prefix": " the",
        "outputs": ["cat"],
    },
    {"input": "a cat sat on the mat .\n", "answer_prefix": "", "outputs": ["mat"]},
]


@pytest.fixture(scope="module")
def checkpoints(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    root = tmp_path_factory.mktemp("tiny-inputs")
    return {
        "chat": make_tiny_checkpoint(root / "chat", seed=1, chat_template=CHATML),
        "bare": make_tiny_checkpoint(root / "bare", seed=2, chat_template=None),
    }


def tiny(path: Path, name: str = "tiny") -> ModelSpec:
    return ModelSpec(name, "hf", str(path), {"max_context": 4096, "dtype": "float32"})


def inputs(tmp_path: Path, framing: str = "completion") -> list[Example]:
    path = tmp_path / "inputs" / "niah_single_1.jsonl"
    path.parent.mkdir(exist_ok=True)
    path.write_text("".join(json.dumps(r) + "\n" for r in ROWS), encoding="utf-8")
    found = read_inputs(
        parse_inputs_arg(f"prompts:{path}"), lengths=[1024], options={"framing": framing}
    )
    return list(found.examples)


def request(models: list[ModelSpec], examples: list[Example], **kw: Any) -> RunRequest:
    return RunRequest(
        models=models, tasks=[get_task("niah_single_1")], lengths=[1024], examples=examples, **kw
    )


def run(db: Path, req: RunRequest) -> list[dict[str, Any]]:
    with open_store(db) as store:
        outcome: RunOutcome = asyncio.run(Engine(store, load_backend, lambda e: None).run(req))
    assert outcome.errors == 0
    with duckdb.connect(str(db), read_only=True) as con:
        rows = con.execute(
            "SELECT m.name, g.example_id, g.prompt_head, g.prompt_tail, g.config, "
            "e.preamble || e.context || e.question FROM generations g "
            "JOIN models m USING (model_id) JOIN examples e USING (example_id) "
            "ORDER BY m.name, e.idx"
        ).fetchall()
    keys = ("model", "example_id", "head", "tail", "config", "user_text")
    return [dict(zip(keys, row, strict=True)) for row in rows]


def test_a_completion_is_the_text_alone_on_a_model_with_a_chat_template(
    checkpoints: dict[str, Path], tmp_path: Path
) -> None:
    rows = run(tmp_path / "r.duckdb", request([tiny(checkpoints["chat"])], inputs(tmp_path)))
    expected = [r["input"] + r["answer_prefix"] for r in ROWS]
    assert [r["head"] + r["user_text"] + r["tail"] for r in rows] == expected
    assert {json.loads(r["config"])["prompt_format_used"] for r in rows} == {"plain"}


def test_a_user_message_is_the_chat_turn_holding_the_whole_prompt(
    checkpoints: dict[str, Path], tmp_path: Path
) -> None:
    examples = inputs(tmp_path, "user")
    rows = run(tmp_path / "r.duckdb", request([tiny(checkpoints["chat"])], examples))
    for row, source in zip(rows, ROWS, strict=True):
        content = source["input"] + source["answer_prefix"]
        assert row["head"] + row["user_text"] + row["tail"] == (
            f"<|im_start|>user\n{content}<|im_end|>\n<|im_start|>assistant\n"
        )
        assert json.loads(row["config"])["prompt_format_used"] == "chat"


def test_a_model_that_would_frame_them_otherwise_is_refused_before_any_request(
    checkpoints: dict[str, Path], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    db = tmp_path / "r.duckdb"
    with pytest.raises(UserInputError, match="cannot send these inputs as one chat user message"):
        run(db, request([tiny(checkpoints["bare"])], inputs(tmp_path, "user")))
    with duckdb.connect(str(db), read_only=True) as con:
        assert con.execute("SELECT count(*) FROM generations").fetchone() == (0,)
    monkeypatch.setenv("LCTUI_UNIT_KEY", "k")
    spec = ModelSpec(
        "srv", "openai", params={"base_url": "http://h:1", "api_key_env": "LCTUI_UNIT_KEY"}
    )
    chat_endpoint = OpenAIBackend("srv", read_settings(spec), ServerInfo(("srv",), 8192, True))
    with pytest.raises(UserInputError, match="endpoint = 'completions' and prompt_format"):
        check_framing(spec, chat_endpoint, inputs(tmp_path))
    check_framing(spec, chat_endpoint, inputs(tmp_path, "user"))  # one user message: sent so
    completions = dataclasses.replace(spec, params={**spec.params, "endpoint": "completions"})
    plain = OpenAIBackend("srv", read_settings(completions), ServerInfo(("srv",), 8192, True))
    check_framing(completions, plain, inputs(tmp_path))


def test_the_run_cannot_reframe_or_cut_them(tmp_path: Path) -> None:
    gold = resolve_model("gold", {})
    with pytest.raises(UserInputError, match="--prompt-format chat: examples from an original"):
        request([gold], inputs(tmp_path), prompt_format="chat")
    with pytest.raises(UserInputError, match="--truncate: examples from an original's inputs"):
        request([gold], inputs(tmp_path), truncate=True)


def test_the_same_inputs_pair_across_models(checkpoints: dict[str, Path], tmp_path: Path) -> None:
    models = [tiny(checkpoints["chat"], "tiny-a"), tiny(checkpoints["bare"], "tiny-b")]
    rows = run(
        tmp_path / "r.duckdb", request([*models, resolve_model("gold", {})], inputs(tmp_path))
    )
    by_model: dict[str, list[str]] = {}
    for row in rows:
        by_model.setdefault(row["model"], []).append(row["example_id"])
    assert len(by_model) == 3
    assert len({tuple(ids) for ids in by_model.values()}) == 1


def test_inputs_over_the_window_are_refused_without_offering_a_cut(tmp_path: Path) -> None:
    path = tmp_path / "root" / "8192" / "data" / "vt" / "validation.jsonl"
    path.parent.mkdir(parents=True)
    row = {"input": "a cat sat", "outputs": ["CAT"], "length": 7000, "answer_prefix": " "}
    path.write_text(json.dumps(row) + "\n", encoding="utf-8")
    examples = list(read_inputs(parse_inputs_arg(f"ruler:{tmp_path / 'root'}")).examples)
    assert examples[0].prompt_tokens == 7000 - 30  # RULER's count less vt's budget
    small = ModelSpec("gold-4k", "gold", params={"max_context": 4096}, reference=True)
    req = RunRequest(models=[small], tasks=[get_task("vt")], lengths=[8192], examples=examples)
    with pytest.raises(UserInputError, match="run as they are") as refused:
        run(tmp_path / "r.duckdb", req)
    assert "--truncate" not in str(refused.value)
