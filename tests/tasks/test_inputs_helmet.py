"""The `helmet` input kind on an invented checkout (helpers/helmet_inputs.py: HELMET's
loaders' form, our sentences) and invented release files: each prompt is the checkout's
templates filled as HELMET's loaders fill them (written out by hand here), with HELMET's
draws of rows and demonstrations, its lengths and answer budgets from the configs, its
way of sending per model class and use_chat_template, and its cut; what HELMET's code
would fail on is named."""

from __future__ import annotations

import hashlib
import json
import random
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from helpers.helmet_inputs import (
    ASQA_FILE,
    CITE,
    CITE_INSTRUCTION,
    KV_FILE,
    NQ_DEMOS,
    NQ_FILE,
    POPQA_DEMOS,
    POPQA_FILE,
    RANK_DEMOS,
    RANK_FILE,
    SMALL,
    config_text,
    read_jsonl,
    write_checkout,
)
from helpers.tiny_hf import make_hf_tokenizer
from lctui.core.errors import UserInputError
from lctui.core.types import FRAMING, OUTPUT_PREFIX, PARSE_PREFIX, Example
from lctui.engine.citing import example_docs
from lctui.scoring import score_example
from lctui.tasks.inputs import InputSet, parse_inputs_arg, read_inputs
from lctui.tasks.tokenizers import reference_tokenizer

NONE = {"tokenizer": "none"}


def read(root: Path, **options: Any) -> InputSet:
    return read_inputs(parse_inputs_arg(f"helmet:{root}"), options={**NONE, **options})


def of_task(found: InputSet, task: str) -> list[Example]:
    return [e for e in found.examples if e.task == task]


def demo_order(count: int, key: str) -> list[int]:
    """The order HELMET's Dataset.shuffle(seed=sha256(key) % 2**31) gives `count` rows."""
    seed = int(hashlib.sha256(key.encode("utf-8")).hexdigest(), 16) % 2**31
    return [int(i) for i in np.random.default_rng(seed).permutation(count)]


def test_json_kv_is_the_checkouts_template_on_helmets_shuffled_rows(tmp_path: Path) -> None:
    root = write_checkout(tmp_path / "HELMET")
    found = read(root, configs="small.yaml")
    rows = read_jsonl(root / "data" / KV_FILE)
    order = [int(i) for i in np.random.default_rng(42).permutation(len(rows))][:3]
    expected = [
        f"{rows[i]['context']}\n\nGive the value that the key below has.\n\n"
        + "".join(f"K: {k}\nV: {v}\n\n" for k, v in rows[i]["demos"][:2])
        + f"K: {rows[i]['question']}\nV:"
        for i in order
    ]
    examples = of_task(found, "json_kv")
    assert [e.user_text for e in examples] == expected
    first = examples[0]
    assert (first.length, first.max_new_tokens, first.gold) == (
        4096,
        100,
        (rows[order[0]]["answer"],),
    )
    assert first.metadata[FRAMING] == "completion"
    assert first.metadata["answer_prefix"] == "\nV:"
    # eval.py scores "V:" + output; its JSON KV parser looks for "v:".
    assert (first.metadata[OUTPUT_PREFIX], first.metadata[PARSE_PREFIX]) == ("V:", "v:")
    assert first.metadata["inputs"]["line"] == order[0] + 1
    assert first.metadata["helmet"]["config"] == "small.yaml"


def test_rag_rows_and_demonstrations_are_helmets_draws(tmp_path: Path) -> None:
    config = config_text(
        [
            ("kilt_nq", NQ_FILE, NQ_DEMOS, 8192, 20),
            ("kilt_popqa_2.5", POPQA_FILE, POPQA_DEMOS, 8192, 20),
        ],
        max_test_samples=2,
    )
    root = write_checkout(tmp_path / "HELMET", {"rag.yaml": config})
    found = read(root)
    rows = read_jsonl(root / "data" / NQ_FILE)
    demos = read_jsonl(root / "data" / NQ_DEMOS)
    # random.seed(42); random.sample(sorted(questions), 2): every row of those, in order.
    drawn = set(random.Random(42).sample(sorted({r["question"] for r in rows}), 2))
    asked = [r for r in rows if r["question"] in drawn]

    def passages(row: dict[str, Any]) -> str:
        return "\n\n".join(f"Note [{c['title']}]: {c['text']}" for c in row["ctxs"])

    def expected(row: dict[str, Any]) -> str:
        picked: list[dict[str, Any]] = []
        for i in demo_order(len(demos), row["question"]):
            if demos[i]["question"] not in {d["question"] for d in picked}:
                picked.append(demos[i])
        shown = "".join(
            f"{passages(d)}\n\nAsk: {d['question']}\nReply: {d['answers'][0]}\n\n"
            for d in picked[:2]
        )
        return (
            f"Read the notes and reply in a few words.\n\n{shown}{passages(row)}\n\n"
            f"Ask: {row['question']}\nReply:"
        )

    nq = of_task(found, "kilt_nq")
    assert [e.user_text for e in nq] == [expected(r) for r in asked]
    assert nq[0].gold == tuple(asked[0]["answers"])
    assert nq[0].metadata["value_pattern"]
    # The passages the context lists, titled as in the prompt.
    spans = [s for s in nq[0].spans if s.kind == "passage"]
    assert len(spans) == len(asked[0]["ctxs"])
    assert nq[0].user_text[spans[0].start : spans[0].end].startswith("Note [")

    # PopQA: rows under 10**2.5 views; a row's demonstrations never hold its own id.
    popqa = of_task(found, "kilt_popqa")
    rows = read_jsonl(root / "data" / POPQA_FILE)
    popular = {r["question"] for r in rows if np.log10(r["s_pop"]) >= 2.5}
    assert popqa and not example_questions(popqa) & popular
    for example in popqa:
        question = example_questions([example]).pop()
        assert example.user_text.count(f"Ask: {question}\n") == 1


def example_questions(examples: list[Example]) -> set[str]:
    """The asked question of each example (the last `Ask:` line)."""
    return {e.user_text.rsplit("Ask: ", 1)[1].split("\n", 1)[0] for e in examples}


def test_reranking_reads_the_joiner_and_passage_template_of_the_checkout(tmp_path: Path) -> None:
    root = write_checkout(tmp_path / "HELMET")
    found = read(root, configs="small.yaml")
    rows = read_jsonl(root / "data" / RANK_FILE)
    demos = read_jsonl(root / "data" / RANK_DEMOS)
    drawn = set(random.Random(42).sample(sorted({r["qid"] for r in rows}), 3))
    asked = [r for r in rows if r["qid"] in drawn]
    # More than twice as many demo rows as asked rows: the asked queries leave the pool.
    pool = [d for d in demos if d["qid"] not in drawn] if len(demos) > 2 * len(asked) else None

    def listed(row: dict[str, Any]) -> str:
        return "\n\n".join(f"<{c['id']}> Note: {c['text']}" for c in row["ctxs"])

    def ranking(row: dict[str, Any]) -> str:
        return " > ".join(c["id"] for c in sorted(row["ctxs"], key=lambda c: -c["label"]))

    def expected(row: dict[str, Any]) -> str:
        candidates = pool if pool is not None else [d for d in demos if d["qid"] != row["qid"]]
        picked: list[dict[str, Any]] = []
        for i in demo_order(len(candidates), row["qid"]):
            if candidates[i]["qid"] not in {d["qid"] for d in picked}:
                picked.append(candidates[i])
        shown = "".join(
            f"{listed(d)}\n\nFind: {d['query']}\nOrder: {ranking(d)}\n\n" for d in picked[:2]
        )
        return f"Order the notes by use.\n\n{shown}{listed(row)}\n\nFind: {row['query']} || Order:"

    examples = of_task(found, "msmarco_rerank")
    assert [e.user_text for e in examples] == [expected(r) for r in asked]
    assert examples[0].gold == (ranking(asked[0]),)
    assert examples[0].metadata["qrels"] == {c["id"]: c["label"] for c in asked[0]["ctxs"]}
    assert examples[0].metadata["scorer"] == "helmet_rerank"
    assert examples[0].max_new_tokens == 200


def test_the_framing_follows_the_model_class_and_use_chat_template(tmp_path: Path) -> None:
    root = write_checkout(tmp_path / "HELMET")
    local = read(root)
    chat = of_task(local, "kilt_triviaqa")  # chat.yaml: use_chat_template true
    assert {e.metadata[FRAMING] for e in chat} == {"user"}
    assert {(e.length, e.max_new_tokens) for e in chat} == {(2048, 30)}
    assert not any(e.user_text.endswith("Reply:") for e in chat)  # no answer prefix
    assert {e.metadata[OUTPUT_PREFIX] for e in chat} == {""}  # eval.py adds none
    completions = of_task(local, "kilt_nq")
    assert {e.metadata[FRAMING] for e in completions} == {"completion"}
    # load_qa parses with its answer prefix (a name, not a constant), not utils.py's default.
    assert {e.metadata[PARSE_PREFIX] for e in completions} == {"Reply:"}
    assert {e.metadata[PARSE_PREFIX] for e in of_task(local, "msmarco_rerank")} == {"Result:"}

    # TgiVllmModel: one user message, whatever the config; the prefix still scored.
    served = of_task(read(root, client="serving"), "kilt_nq")
    assert {e.metadata[FRAMING] for e in served} == {"user"}
    assert [e.user_text + "\nReply:" for e in served] == [e.user_text for e in completions]
    assert {e.metadata[OUTPUT_PREFIX] for e in served} == {"Reply:"}
    # --use_chat_template True on a local model: the chat template, no prefix scored.
    forced = of_task(read(root, use_chat_template=True), "kilt_nq")
    assert {(e.metadata[FRAMING], e.metadata[OUTPUT_PREFIX]) for e in forced} == {("user", "")}
    # The same text sent another way is another example (they pair only with their own).
    assert not {e.example_id for e in served} & {e.example_id for e in forced}


def test_lengths_select_config_entries_and_n_caps_each_file(tmp_path: Path) -> None:
    root = write_checkout(tmp_path / "HELMET")
    found = read_inputs(
        parse_inputs_arg(f"helmet:{root / 'data'}"),
        options={**NONE, "helmet": str(root)},
        lengths=[2048],
        n=2,
    )
    assert {(e.task, e.length) for e in found.examples} == {("kilt_triviaqa", 2048)}
    assert len(found.examples) == 2
    one = read_inputs(
        parse_inputs_arg(f"helmet:{root / 'data' / KV_FILE}"),
        options={**NONE, "helmet": str(root)},
    )
    assert {e.task for e in one.examples} == {"json_kv"}


def test_helmets_cut_of_a_local_model_ends_the_context_at_a_token(tmp_path: Path) -> None:
    folder = tmp_path / "tok"
    make_hf_tokenizer().save_pretrained(folder)
    config = config_text([("json_kv", KV_FILE, "", 120, 20)], max_test_samples=1, shots=0)
    root = write_checkout(tmp_path / "HELMET", {"tiny.yaml": config})
    whole = read(root).examples[0]
    cut = read(root, tokenizer=str(folder)).examples[0]
    tokenizer = make_hf_tokenizer()
    prompt = whole.user_text
    tokens = len(tokenizer(prompt)["input_ids"])
    assert tokens > 100  # the invented prompt is over the length: HELMET cuts it
    context = prompt[: prompt.index("\n\nGive the value")]
    offsets = tokenizer([context], return_offsets_mapping=True)["offset_mapping"][0]
    kept = context[: offsets[-(tokens - 100)][0]]
    assert cut.user_text == kept + whole.user_text[len(context) :]
    assert cut.metadata["helmet"]["cut_tokens"] == tokens - 100


def test_helmets_cut_of_an_openai_model_decodes_the_kept_tokens(tmp_path: Path) -> None:
    config = config_text([("json_kv", KV_FILE, "", 400, 50)], max_test_samples=1, shots=0)
    root = write_checkout(tmp_path / "HELMET", {"tiny.yaml": config})
    whole = read(root, client="openai").examples[0]
    cut = read(root, client="openai", tokenizer="o200k_base").examples[0]
    encoding = reference_tokenizer("o200k_base")
    tokens = len(encoding.encode("Role: user\nContent: " + whole.user_text))
    room = 400 - 50 - 100
    context = whole.user_text[: whole.user_text.index("\n\nGive the value")]
    kept = encoding.decode(encoding.encode(context)[: -(tokens - room)])
    assert cut.user_text == kept + whole.user_text[len(context) :]
    with pytest.raises(UserInputError, match="client=openai"):
        read(root, tokenizer="o200k_base")


def test_what_cannot_run_is_named(tmp_path: Path) -> None:
    config = config_text([*SMALL, ("narrativeqa_130772", "", "", 4096, 20)])
    root = write_checkout(tmp_path / "HELMET", {"small.yaml": config, "odd.yaml": "- a list\n"})
    rows = read_jsonl(root / "data" / KV_FILE)
    del rows[0]["num_kvs"]
    (root / "data" / KV_FILE).write_text("\n".join(json.dumps(r) for r in rows) + "\n")
    found = read(root, max_test_samples=100)
    problems = "\n".join(found.problems)
    assert "narrativeqa_130772 not run" in problems
    assert "odd.yaml:1: not a `key: value` line" in problems
    assert f"{KV_FILE}:1: no 'num_kvs'" in problems
    with pytest.raises(UserInputError, match="tokenizer=PATH_OR_HUB_ID"):
        read_inputs(parse_inputs_arg(f"helmet:{root}"))
    with pytest.raises(UserInputError, match="no checkout of HELMET"):
        read(root / "data")
    (root / "data.py").write_text("def load_json_kv(path):\n    user_template = 'x'\n")
    with pytest.raises(
        UserInputError, match=r"load_json_kv\(\) assigns no string `system_template"
    ):
        read(root, configs="small.yaml")


def test_the_scorers_put_helmets_prefix_before_the_output(tmp_path: Path) -> None:
    root = write_checkout(tmp_path / "HELMET")
    completion = of_task(read(root), "kilt_nq")[0]
    chat = of_task(read(root, use_chat_template=True), "kilt_nq")[0]
    gold = completion.gold[0]
    # eval.py scores "Reply:" + output without chat template: the answer line is found.
    assert score_example(completion, f" {gold}\nmore").value == 1.0
    assert score_example(chat, f"Reply: {gold}").value == 1.0
    assert score_example(completion, " nothing of it").value == 0.0


def test_rows_making_the_same_prompt_each_run_as_helmet_runs_each(tmp_path: Path) -> None:
    config = config_text([("kilt_nq", NQ_FILE, NQ_DEMOS, 8192, 20)], max_test_samples=None, shots=0)
    root = write_checkout(tmp_path / "HELMET", {"all.yaml": config})
    path = root / "data" / NQ_FILE
    rows = read_jsonl(path)
    # A row twice (as depth variants of a question become once HELMET's cut takes the
    # passages where they differ): eval.py runs and scores both.
    path.write_text("\n".join(json.dumps(r) for r in [*rows, rows[0]]) + "\n")
    found = read(root)
    assert not found.problems
    examples = of_task(found, "kilt_nq")
    assert len(examples) == len(rows) + 1
    assert examples[0].user_text == examples[-1].user_text
    assert examples[0].example_id != examples[-1].example_id


def test_alce_is_the_prompts_file_filled_as_load_alce_fills_it(tmp_path: Path) -> None:
    config = config_text(CITE, use_chat_template=False, max_test_samples=None, shots=2)
    root = write_checkout(tmp_path / "HELMET", {"cite.yaml": config})
    found = read(root)
    assert not found.problems
    rows = json.loads((root / "data" / ASQA_FILE).read_text())
    demos = json.loads((root / "prompts" / "asqa_ours.json").read_text())["demos"]
    draws = random.Random(42)  # eval.py seeds random, then the loader draws per row

    def docs(listed: list[dict[str, Any]]) -> str:
        return "\n\n".join(
            f"Note [{i}] ({d['title']}): {d['text']}" for i, d in enumerate(listed, 1)
        )

    expected = []
    for row in rows:
        shown = "".join(
            f"{CITE_INSTRUCTION}\n\nAsk: {d['question']}\n\n{docs(d['docs'])}\n\n"
            f"Reply: {d['answer']}\n\n\n"
            for d in draws.sample(demos, 2)
        )
        expected.append(
            f"{shown}{CITE_INSTRUCTION}\n\nAsk: {row['question']}\n\n{docs(row['docs'][:8])}"
            "\n\nReply:"
        )
    asqa = of_task(found, "alce_asqa")
    assert [e.user_text for e in asqa] == expected
    first = asqa[0]
    assert first.gold == tuple(p["short_answers"][0] for p in rows[0]["qa_pairs"])
    assert (first.metadata["scorer"], first.metadata["citations"]) == ("helmet_alce_asqa", "asqa")
    # What `lctui cite-score` reads: each document's title and text in the prompt.
    cited = example_docs(first)
    assert [(d.title, d.text) for d in cited] == [
        (d["title"], d["text"]) for d in rows[0]["docs"][:8]
    ]
    qampari = of_task(found, "alce_qampari")
    assert {e.user_text.rsplit("Ask: ", 1)[1].count("Note [") for e in qampari} == {5}
    assert score_example(first, " " + " and ".join(first.gold)).value == 1.0


def test_what_alce_cannot_run_is_named(tmp_path: Path) -> None:
    config = config_text(CITE[:1], max_test_samples=2, shots=5)
    root = write_checkout(tmp_path / "HELMET", {"cite.yaml": config})
    with pytest.raises(UserInputError, match="has 4 demonstrations for 5 shots"):
        read(root)
    (root / "prompts" / "asqa_ours.json").unlink()
    with pytest.raises(UserInputError, match=r"prompts file prompts/asqa_ours\.json is not in"):
        read(root)
