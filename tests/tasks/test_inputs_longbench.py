"""The `longbench` input kind (tasks/inputs/longbench.py) on LongBench v2 rows in the
dataset's format (helpers/longbench_data.py, our text) and a checkout in THUDM/LongBench's
layout with templates of our wording (helpers/longbench_inputs.py): every prompt is the
template filled and cut as pred.py fills and cuts it (restated in the helper), with
pred.py's budgets, temperature and second call, its max_len and tokenizer from the
checkout's config."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import Any

import pytest

from helpers.hub_cache import hub_repo
from helpers.longbench_data import longbench_rows, write_longbench
from helpers.longbench_inputs import (
    MODES,
    TEMPLATES,
    bpe_tokenizer,
    pred_cut_hf,
    pred_cut_tiktoken,
    pred_fill,
    write_checkout,
)
from lctui.core.errors import UserInputError
from lctui.core.types import FollowUp
from lctui.tasks.inputs import parse_inputs_arg, read_inputs
from lctui.tasks.inputs.longbench import LongBenchKind
from lctui.tasks.tokenizers import reference_tokenizer

REASONING = "  First, the passage says $Q$ twice; so (B).\n"


def odd_rows(n: int, words: tuple[int, ...] = (200,)) -> list[dict[str, Any]]:
    """Rows whose fields hold what a careless filler gets wrong: stray whitespace, CRLF,
    a later placeholder inside an earlier field, special-token text, non-ASCII."""
    rows = longbench_rows(n, words=words)
    rows[0]["context"] = "\r\n  " + rows[0]["context"] + " Ærø 🚢 $Q$ <|endoftext|>\n\n"
    rows[1]["question"] = "  Which of $C_A$ and $C_B$ holds?\t"
    rows[2 % n]["choice_D"] = " none of them \n"
    return rows


def lb_arg(data: Path) -> Any:
    return parse_inputs_arg(f"longbench:{data}")


def options(checkout: Path, model: str, **more: Any) -> dict[str, Any]:
    return {"checkout": str(checkout), "model": model, **more}


def test_every_mode_is_the_template_filled_as_pred_py_fills_it(tmp_path: Path) -> None:
    rows = odd_rows(4)
    data = write_longbench(tmp_path, rows)
    checkout = write_checkout(tmp_path / "LongBench", {"gpt-test": 100_000})
    found = read_inputs(lb_arg(data), options=options(checkout, "gpt-test"))
    assert found.problems == ()
    for task, template in MODES.items():
        mine = [e for e in found.examples if e.task == task]
        assert [e.user_text for e in mine] == [pred_fill(TEMPLATES[template], r) for r in rows]
        assert {e.length for e in mine} == {100_000}  # the model's max_len
        assert {e.metadata["framing"] for e in mine} == {"user"}
        assert {e.metadata["temperature"] for e in mine} == {0.1}
        assert {e.max_new_tokens for e in mine} == {1024 if task.endswith("cot") else 128}
        assert [e.metadata["longbench_id"] for e in mine] == [r["_id"] for r in rows]
        assert all(e.metadata["cut"]["cut"] is False for e in mine)
    cot = [e for e in found.examples if e.task == "longbench_v2_cot"]
    for example, row in zip(cot, rows, strict=True):
        second = FollowUp.of(example.metadata)
        assert second is not None and second.max_new_tokens == 128
        expected = pred_fill(TEMPLATES["0shot_cot_ans.txt"], row, REASONING.strip())
        assert second.before + REASONING.strip() + second.after == expected
    recorded = cot[0].metadata["longbench_checkout"]
    assert recorded["templates"] == {
        name: hashlib.sha256(TEMPLATES[name].encode()).hexdigest()
        for name in ("0shot_cot.txt", "0shot_cot_ans.txt")
    }
    assert (recorded["model"], recorded["max_len"], recorded["tokenizer"]) == (
        "gpt-test",
        100_000,
        "o200k_base",
    )


def test_a_model_of_model2path_is_cut_with_its_tokenizer_as_pred_py_cuts(tmp_path: Path) -> None:
    from transformers import AutoTokenizer

    tokenizer_dir = bpe_tokenizer(tmp_path / "tok")
    rows = odd_rows(4, words=(60, 900))
    data = write_longbench(tmp_path, rows)
    checkout = write_checkout(tmp_path / "lb", {"tiny": 300}, {"tiny": str(tokenizer_dir)})
    tasks = {"longbench_v2", "longbench_v2_no_context"}
    found = read_inputs(lb_arg(data), options=options(checkout, "tiny"), tasks=tasks)
    hf = AutoTokenizer.from_pretrained(tokenizer_dir)
    assert hf.encode("a")[0] == hf.bos_token_id  # encode adds a BOS, which pred.py counts
    for task in tasks:
        mine = [e for e in found.examples if e.task == task]
        prompts = [pred_fill(TEMPLATES[MODES[task]], r) for r in rows]
        assert [e.user_text for e in mine] == [pred_cut_hf(hf, p, 300) for p in prompts]
    cut = [e for e in found.examples if e.metadata["cut"]["cut"]]
    lines = {e.metadata["data_line"] for e in cut}
    assert {2, 4} <= lines and 3 not in lines  # the 900-word contexts are cut, 60 words not
    assert {e.prompt_tokens for e in cut} == {300}
    assert {(e.metadata["cut"]["head_tokens"], e.metadata["cut"]["tail_tokens"]) for e in cut} == {
        (150, 150)
    }


def test_a_gpt_model_is_cut_with_tiktoken_as_pred_py_cuts(tmp_path: Path) -> None:
    import tiktoken

    reference_tokenizer("o200k_base")  # the offline vocabulary tiktoken reads
    rows = odd_rows(4, words=(60, 900))
    rows[3]["context"] += " <|endoftext|> tail" * 40
    data = write_longbench(tmp_path, rows)
    checkout = write_checkout(tmp_path / "lb", {"gpt-test": 301})
    found = read_inputs(lb_arg(data), options=options(checkout, "gpt-test"), tasks={"longbench_v2"})
    encoding = tiktoken.get_encoding("o200k_base")
    prompts = [pred_fill(TEMPLATES["0shot.txt"], r) for r in rows]
    assert [e.user_text for e in found.examples] == [
        pred_cut_tiktoken(encoding, p, 301) for p in prompts
    ]
    assert [e.metadata["cut"]["cut"] for e in found.examples] == [False, True, False, True]


def test_the_second_call_is_part_of_the_examples_identity(tmp_path: Path) -> None:
    data = write_longbench(tmp_path, longbench_rows(2))
    one = write_checkout(tmp_path / "one", {"gpt-test": 100_000})
    other = dict(TEMPLATES)
    other["0shot_cot_ans.txt"] = other["0shot_cot_ans.txt"].replace("So which one?", "Which?")
    two = write_checkout(tmp_path / "two", {"gpt-test": 100_000}, templates=other)

    def ids(checkout: Path) -> dict[str, list[str]]:
        found = read_inputs(lb_arg(data), options=options(checkout, "gpt-test"))
        return {t: [e.example_id for e in found.examples if e.task == t] for t in MODES}

    first, second = ids(one), ids(two)
    assert first["longbench_v2"] == second["longbench_v2"]
    assert set(first["longbench_v2_cot"]).isdisjoint(second["longbench_v2_cot"])


def test_rows_that_pred_py_would_send_otherwise_are_named_problems(tmp_path: Path) -> None:
    rows = longbench_rows(4)
    rows[1]["question"] = "Does $COT$ appear?"
    rows[2]["answer"] = "E"
    data = write_longbench(tmp_path, rows)
    checkout = write_checkout(tmp_path / "lb", {"gpt-test": 100_000})
    found = read_inputs(lb_arg(data), options=options(checkout, "gpt-test"))
    lines = {t: [e.metadata["data_line"] for e in found.examples if e.task == t] for t in MODES}
    assert lines == {
        "longbench_v2": [1, 2, 4],
        "longbench_v2_cot": [1, 4],
        "longbench_v2_no_context": [1, 2, 4],
    }
    assert sum("answer 'E' is not one of A, B, C, D" in p for p in found.problems) == 3
    assert [p for p in found.problems if "$COT$" in p] == [
        f"{data}:2: its question or options hold $COT$, which pred.py also fills with the "
        "reasoning; lctui's second call takes it once"
    ]

    # A second call that could reach max_len would be cut by pred.py, never by lctui.
    short = write_checkout(tmp_path / "short", {"gpt-test": 1000})
    found = read_inputs(lb_arg(data), options=options(short, "gpt-test"))
    assert not [e for e in found.examples if e.task == "longbench_v2_cot"]
    assert sum("may reach max_len 1000" in p for p in found.problems) == 2  # lines 1 and 4


def test_the_checkouts_config_decides_unless_it_lacks_the_model(tmp_path: Path) -> None:
    data = write_longbench(tmp_path, longbench_rows(1))
    checkout = write_checkout(tmp_path / "lb", {"gpt-test": 4096, "Local-7B": 8192})

    def read(**given: Any) -> Any:
        return read_inputs(lb_arg(data), options={"checkout": str(checkout), **given})

    with pytest.raises(UserInputError, match=r"need your checkout.*checkout=PATH"):
        read_inputs(lb_arg(data), options={"model": "gpt-test"})
    with pytest.raises(UserInputError, match=r"GLM-4-9B-Chat.*not in.*tokenizer="):
        read()  # pred.py's default model, which this config lacks
    with pytest.raises(
        UserInputError, match=r"in config/model2maxlen.json but not config/model2path"
    ):
        read(model="Local-7B")
    with pytest.raises(UserInputError, match=r"drop max_len and tokenizer"):
        read(model="gpt-test", max_len=2048)
    assert {e.length for e in read(model="gpt-test").examples} == {4096}
    # A model the config lacks: the options, pred.py's max_len by default.
    assert {e.length for e in read(model="gpt-other").examples} == {120_000}
    found = read(model="mine", tokenizer="cl100k_base", max_len=2048)
    assert found.examples[0].metadata["longbench_checkout"]["tokenizer"] == "cl100k_base"
    assert {e.length for e in found.examples} == {2048}
    with pytest.raises(UserInputError, match=r"cannot load tokenizer"):
        read(model="mine", tokenizer=str(tmp_path / "no-such-tokenizer"))
    with pytest.raises(UserInputError, match=r"no checkout of THUDM/LongBench"):
        read_inputs(lb_arg(data), options={"checkout": str(tmp_path), "model": "gpt-test"})


def test_a_missing_or_outside_template_leaves_its_mode_out(tmp_path: Path) -> None:
    data = write_longbench(tmp_path, longbench_rows(2))
    checkout = write_checkout(tmp_path / "lb", {"gpt-test": 100_000})
    (checkout / "prompts" / "0shot_cot_ans.txt").unlink()
    secret = tmp_path / "secret.txt"
    secret.write_text("not a template $DOC$")
    (checkout / "prompts" / "0shot_no_context.txt").unlink()
    (checkout / "prompts" / "0shot_no_context.txt").symlink_to(secret)
    found = read_inputs(lb_arg(data), options=options(checkout, "gpt-test"))
    assert {e.task for e in found.examples} == {"longbench_v2"}
    assert any("0shot_cot_ans.txt: no such file" in p for p in found.problems)
    assert any("0shot_no_context.txt: a link to outside the checkout" in p for p in found.problems)
    assert not any("not a template" in e.user_text for e in found.examples)


def test_the_data_is_found_where_users_keep_it(tmp_path: Path) -> None:
    rows = longbench_rows(2)
    kind = LongBenchKind()
    opts = options(write_checkout(tmp_path / "lb", {"gpt-test": 100_000}), "gpt-test")
    text = json.dumps(rows)
    layouts: dict[str, Path] = {}
    layouts["file"] = tmp_path / "copy.json"
    layouts["data folder"] = write_longbench(tmp_path / "data", rows).parent.parent
    home = tmp_path / "hf_home"
    hub_repo(home, "THUDM/LongBench-v2").joinpath("data.json").write_text(text)
    layouts["HF_HOME"], layouts["hub cache"] = home, home / "hub"
    layouts["hf download"] = tmp_path / "dl"
    (tmp_path / "dl" / "hub" / "THUDM" / "LongBench-v2").mkdir(parents=True)
    (tmp_path / "dl" / "hub" / "THUDM" / "LongBench-v2" / "data.json").write_text(text)
    layouts["file"].write_text(text)
    for name, path in layouts.items():
        files, problems = kind.locate(path, read_options(opts))
        assert [f.task for f in files] == list(MODES), name
        assert files[0].path.name == "data.json" or name == "file"
        assert problems == []
        found = read_inputs(lb_arg(path), options=opts, tasks={"longbench_v2"})
        assert [e.metadata["longbench_id"] for e in found.examples] == [r["_id"] for r in rows]
    with pytest.raises(UserInputError, match=r"holds no LongBench v2 data.json"):
        kind.locate(tmp_path / "lb", read_options(opts))


def read_options(given: dict[str, Any]) -> dict[str, Any]:
    from lctui.tasks.inputs import check_options

    return check_options(LongBenchKind(), given)


def test_a_jsonl_or_parquet_copy_reads_alike(tmp_path: Path) -> None:
    import pyarrow as pa
    import pyarrow.parquet as pq

    rows = odd_rows(3)
    lines = tmp_path / "v2.jsonl"
    lines.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    parquet = tmp_path / "v2.parquet"
    pq.write_table(pa.Table.from_pylist(rows), parquet)
    checkout = write_checkout(tmp_path / "lb", {"gpt-test": 100_000})
    texts = []
    for path in (lines, parquet):
        found = read_inputs(
            lb_arg(path), options=options(checkout, "gpt-test"), tasks={"longbench_v2"}
        )
        texts.append([e.user_text for e in found.examples])
        assert found.files[0].path == str(path)
    assert texts[0] == texts[1] == [pred_fill(TEMPLATES["0shot.txt"], r) for r in rows]
