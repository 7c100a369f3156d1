"""HELMET's InfiniteBench items (data.py `load_infbench`, 4526dfb): long QA, multiple
choice and book summaries, made from the hub's files as its loader makes them.

- The data: `xinrongzhang2022/infinitebench`'s `longbook_{qa,choice,sum}_eng.jsonl`
  (HELMET's `load_dataset`, its split by the dataset's name), found in the hub cache
  or under the inputs' folder as `hub/xinrongzhang2022/infinitebench/FILE`; rows of
  {id, context, input, answer, options}, read with HELMET's features (an integer id,
  lists of text), or the file is one problem, as HELMET's load fails.
- Each row: the question is its `input`; a multiple-choice row's options are lettered
  A-D on four lines and its answers become (letter, "letter. option").
- With shots, a row's demonstrations are the first `shots` of the other rows (by id)
  in `Dataset.shuffle(seed)`'s order, each filled with the loader's demo template (or
  f-string), joined, and wrapped in the f-string its `add_demos` returns (all read
  from the checkout); they are drawn from every row, before the length filter.
- Rows whose context has fewer Llama-2 tokens than `filter_length`'s bound are left
  out; a longer context than the dataset name's last number of tokens is cut at a
  token's end, `truncate_llama2`'s postfix appended (with the Llama-2 tokenizer that
  HELMET loads, `llama_tokenizer`, offsets counted with the special tokens).
- `max_test_samples` rows in `Dataset.shuffle(seed)`'s order.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any

from lctui.core.errors import UserInputError
from lctui.tasks.bounded_read import shown
from lctui.tasks.datasets import DataSource, JsonLines, hub_path
from lctui.tasks.helmet.kilt import shuffled
from lctui.tasks.inputs.helmet_cut import hf_tokenizer
from lctui.tasks.inputs.helmet_fstrings import FString
from lctui.tasks.inputs.helmet_items import HelmetItem, ItemProblem, Sampling
from lctui.tasks.inputs.helmet_templates import (
    DATA_MODULE,
    LoaderTemplates,
    call_number,
    text_default,
)

INFBENCH_REPO = "xinrongzhang2022/infinitebench"
LLAMA_TOKENIZER = "meta-llama/Llama-2-7b-hf"  # what truncate_llama2 and filter_length load
# load_infbench's branches in its order: (the name's part, the split's file stem, task).
SPLITS = (
    ("qa_eng", "longbook_qa_eng", "infbench_qa"),
    ("choice_eng", "longbook_choice_eng", "infbench_mc"),
    ("sum_eng", "longbook_sum_eng", "infbench_sum"),
)
LETTERS = "ABCD"
COLUMNS = ("id", "context", "input", "answer", "options")  # load_infbench's features


def infbench_split(dataset: str) -> tuple[str, str] | None:
    """(the split's file stem, lctui's task) of an InfiniteBench dataset name."""
    for part, stem, task in SPLITS:
        if part in dataset:
            return stem, task
    return None


def infbench_file(inputs: Path, dataset: str) -> Path | None:
    """The split's file under the inputs' folder (`hub/ORG/NAME/FILE`) or in the hub cache."""
    split = infbench_split(dataset)
    if split is None:
        return None
    source = DataSource(folder=inputs if inputs.is_dir() else None)
    return source.locate(hub_path(INFBENCH_REPO, f"{split[0]}.jsonl"))


@dataclass(frozen=True)
class LongCut:
    """HELMET's filter_length and truncate_llama2: counted and cut with Llama-2's tokenizer."""

    tokenizer: Any
    min_length: int
    postfix: str

    def fitted(self, context: str, max_length: int) -> str | None:
        """The context as HELMET shows it, or None when filter_length leaves it out."""
        tokens = self.tokenizer(context, return_offsets_mapping=True)
        count = len(tokens["input_ids"])
        if count < self.min_length:
            return None
        if count <= max_length:
            return context
        separator = len(self.tokenizer(self.postfix)["input_ids"])
        return context[: tokens["offset_mapping"][max_length - separator][1]] + self.postfix


@cache
def long_cut(checkout: Path, loader: str, tokenizer: str) -> LongCut:
    try:
        loaded = hf_tokenizer(tokenizer)
    except UserInputError as err:
        raise UserInputError(
            f"{err} (HELMET filters and cuts long documents with {LLAMA_TOKENIZER}'s "
            "tokenizer: --input-option llama_tokenizer=PATH_OR_HUB_ID)"
        ) from None
    return LongCut(
        loaded,
        call_number(checkout, loader, "filter_length", 1),
        text_default(checkout / DATA_MODULE, "truncate_llama2", "postfix_text"),
    )


class _FileFails(ValueError):
    """Why HELMET's loader fails on the whole file."""


def _row(row: Mapping[str, Any], line: int, choice: bool) -> dict[str, Any]:
    """A row as HELMET's features read it and process_example updates it."""
    values: dict[str, Any] = {
        k: row.get(k) for k in ("id", "context", "input", "answer", "options")
    }
    if set(row) - set(values):
        raise _FileFails(f"line {line}: columns beyond HELMET's features: {sorted(row)}")
    if type(values["id"]) is not int:
        raise _FileFails(f"line {line}: 'id' is no integer: {shown(values['id'])}")
    for key in ("context", "input"):
        if not isinstance(values[key], str):
            raise _FileFails(f"line {line}: {key!r} is no text")
    for key in ("answer", "options"):
        listed = values[key]
        if not isinstance(listed, list) or not all(isinstance(a, str) for a in listed):
            raise _FileFails(f"line {line}: {key!r} is no list of texts: {shown(listed)}")
    values.update(question=values["input"], demo="")
    if choice:
        options, answer = values["options"], values["answer"]
        if len(options) < len(LETTERS) or not answer or answer[0] not in options:
            raise _FileFails(f"line {line}: not four options with the answer among them")
        letter = LETTERS[options.index(answer[0])]
        values["options"] = "\n".join(f"{c}. {o}" for c, o in zip(LETTERS, options, strict=False))
        values["answer"] = [letter, f"{letter}. {answer[0]}"]
    return values


def _demo_text(templates: LoaderTemplates, others: list[dict[str, Any]], sampling: Sampling) -> str:
    if sampling.shots > len(others):
        raise _FileFails(f"{len(others) + 1} rows for {sampling.shots} shots (HELMET fails)")
    picked = [others[i] for i in shuffled(len(others), sampling.seed)[: sampling.shots]]
    joined = templates.joined_list("demo")
    item = joined.item
    texts = [item.fill(x) if isinstance(item, FString) else item.format(**x) for x in picked]
    return templates.returned_text("demo").fill({"demo": joined.separator.join(texts)})


def infbench_items(
    loaded: JsonLines, templates: LoaderTemplates, sampling: Sampling, cut: LongCut
) -> list[HelmetItem | ItemProblem]:
    choice = "choice_eng" in sampling.dataset
    first = loaded.lines[0] if loaded.lines else 1
    try:
        max_length = int(sampling.dataset.split("_")[-1])
        rows = [_row(r, n, choice) for r, n in zip(loaded.rows, loaded.lines, strict=True)]
        if sampling.shots > 0:
            for row in rows:
                others = [r for r in rows if r["id"] != row["id"]]
                row["demo"] = _demo_text(templates, others, sampling)
    except ValueError as err:  # _FileFails, or no length at the name's end
        return [ItemProblem(first, f"HELMET's load_infbench fails on this file: {err}")]
    except (KeyError, IndexError, TypeError, AttributeError) as err:
        why = f"HELMET's demonstration template cannot be filled ({type(err).__name__}: {err})"
        return [ItemProblem(first, why)]
    kept: list[tuple[dict[str, Any], int]] = []
    for row, line in zip(rows, loaded.lines, strict=True):
        context = cut.fitted(row["context"], max_length)
        if context is not None:
            kept.append(({**row, "context": context}, line))
    if sampling.max_test_samples is not None:
        order = shuffled(len(kept), sampling.seed)[: min(sampling.max_test_samples, len(kept))]
        kept = [kept[i] for i in order]
    return [_item(row, line, choice, "sum_eng" in sampling.dataset) for row, line in kept]


def _item(row: dict[str, Any], line: int, choice: bool, summary: bool) -> HelmetItem | ItemProblem:
    if not row["answer"] or not all(a.strip() for a in row["answer"]):
        return ItemProblem(line, "no answer, or a blank one, to score against")
    metadata: dict[str, Any] = {
        "scorer": "helmet_mc" if choice else "helmet_rouge",
        "gold_mode": "any",
        "asked_text": "" if summary else row["question"],
    }
    if choice:
        metadata["options"] = row["options"].split("\n")
    return HelmetItem(line, row, tuple(row["answer"]), metadata)
