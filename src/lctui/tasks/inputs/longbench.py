"""The `longbench` kind: the user's copy of LongBench v2 (the hub dataset
THUDM/LongBench-v2) made into prompts by the user's own checkout of THUDM/LongBench,
as its pred.py makes and sends them.

pred.py fills a template of its prompts/ with each question (0shot.txt; 0shot_cot.txt
with --cot, whose reply 0shot_cot_ans.txt then takes in a second call; 0shot_no_context.txt
with --no_context), cuts the prompt's middle to the model's max_len tokens and sends it as
one chat user message through the OpenAI client, at temperature 0.1 with 128 new
tokens (1,024 for the reasoning). Each mode is lctui's task of that mode
(`longbench_v2`, `longbench_v2_cot`, `longbench_v2_no_context`; `--tasks` picks), its
examples at the cell length max_len, scored by lctui's `longbench` scorer (the
original's answer reading, checked on tests/parity/longbench_metrics.jsonl) and shown
in `lctui report --suite longbench` as result.py's table. The templates and the cut
come from the checkout (tasks/inputs/longbench_checkout.py), read at run time.

What differs from pred.py, and why: pred.py drops a question whose reply came back
empty (it asks it again on its next run) where lctui scores it as naming no option; it
cuts the chain of thought's second call too when that reaches max_len, which lctui's
second call never is (a question whose second call could, with a whole reasoning, is
a named problem, never run); RAG (`--rag N`) is not run (lctui has no retrieval mode).
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from lctui.core.errors import UserInputError
from lctui.core.text import escape_unprintable
from lctui.core.types import FOLLOW_UP, USER_MESSAGE, FollowUp, JSONValue
from lctui.suites.longbench.tasks.data import (
    DATA_FILE,
    HUB_REPO,
    HUB_REPO_RENAMED,
    LongBenchRow,
    read_longbench,
)
from lctui.suites.longbench.tasks.task import (
    ANSWER_TOKENS,
    REASONING_TOKENS,
    TEMPERATURE,
    cut_metadata,
    row_metadata,
)
from lctui.tasks.bounded_read import within
from lctui.tasks.inputs.base import InputFile, InputKind, InputRow, RowProblem
from lctui.tasks.inputs.longbench_checkout import (
    COT,
    COT_ANSWER,
    DIRECT,
    NO_CONTEXT,
    OPTIONS,
    REASONING,
    Checkout,
    PromptCut,
    fill,
    read_checkout,
)

# Tokens a second call's reasoning may take beyond its budget once decoded and counted
# again: a question whose second call could then reach max_len is not run.
_REASONING_SLACK = 64
_REVISION_CHARS = 64  # a hub cache's refs/main: a commit hash


@dataclass(frozen=True)
class Mode:
    """One of pred.py's modes: its template, answer budget and second template."""

    name: str  # as lctui's LongBench tasks and suites/longbench/analysis.py call it
    template: str
    max_new_tokens: int
    second: str | None = None


MODES: dict[str, Mode] = {
    "longbench_v2": Mode("direct", DIRECT, ANSWER_TOKENS),
    "longbench_v2_cot": Mode("cot", COT, REASONING_TOKENS, COT_ANSWER),
    "longbench_v2_no_context": Mode("no_context", NO_CONTEXT, ANSWER_TOKENS),
}


class LongBenchKind(InputKind):
    name = "longbench"
    suite = "longbench"
    title = "LongBench v2's questions, prompted and cut as your checkout's pred.py does"
    files = (
        f"LongBench v2's {DATA_FILE} (or the same rows as JSON lines or Parquet): give the "
        f"file, a folder holding it (a --data folder's longbench_v2/{DATA_FILE}, hf download's "
        f"hub/{HUB_REPO}/) or a Hugging Face hub cache (HF_HOME or its hub/); the prompts "
        "come from your checkout of THUDM/LongBench (checkout=PATH, read at run time)"
    )
    origin = (
        f"hf download {HUB_REPO} {DATA_FILE} --repo-type dataset, and git clone "
        "https://github.com/THUDM/LongBench (its pred.py's prompts/ and config/)"
    )
    length_hint = "the model's max_len in the checkout's config, or max_len=..."
    framings = (USER_MESSAGE,)
    framing_help = "pred.py sends each prompt as one chat user message (the OpenAI client)"
    option_specs = OPTIONS

    def locate(self, path: Path, options: Mapping[str, Any]) -> tuple[list[InputFile], list[str]]:
        checkout = read_checkout(options)
        assert checkout.cut is not None
        data, problems = data_file(path)
        found: list[InputFile] = []
        for task, mode in MODES.items():
            lacking = [checkout.missing[t] for t in _templates(mode) if t in checkout.missing]
            if lacking:
                problems.append(f"{lacking[0]}: {task} (pred.py's {mode.name} mode) not read")
            elif mode.second is not None and REASONING not in checkout.templates[mode.second]:
                problems.append(
                    f"{checkout.path / 'prompts' / mode.second}: no {REASONING}, where pred.py "
                    f"puts the reasoning: {task} not read"
                )
            else:
                found.append(InputFile(data, task, checkout.cut.max_len))
        return found, problems

    def rows(self, file: InputFile, options: Mapping[str, Any]) -> Iterator[InputRow | RowProblem]:
        checkout = read_checkout(options)
        assert checkout.cut is not None
        mode = MODES[file.task]
        cut = PromptCut(checkout.cut)
        loaded = read_longbench(file.path)
        problems = {p.line: p.reason for p in loaded.problems}
        for row in loaded.rows:
            for line in sorted(n for n in problems if n < row.line):
                yield RowProblem(line, problems.pop(line))
            yield _row(file.task, mode, row, checkout, cut)
        for line in sorted(problems):
            yield RowProblem(line, problems[line])


def _templates(mode: Mode) -> tuple[str, ...]:
    return (mode.template,) if mode.second is None else (mode.template, mode.second)


def data_file(path: Path) -> tuple[Path, list[str]]:
    """The LongBench v2 file `path` is or holds, and a line for each other copy found
    there (not read); UserInputError when it holds none."""
    if path.is_file():
        return path.resolve(), []
    root = path.resolve()
    candidates = [
        root / DATA_FILE,
        root / "longbench_v2" / DATA_FILE,
        *(root / "hub" / repo / DATA_FILE for repo in (HUB_REPO, HUB_REPO_RENAMED)),
        *(
            snapshot / DATA_FILE
            for folder in (root, root / "hub")
            for repo in (HUB_REPO, HUB_REPO_RENAMED)
            if (snapshot := _cached_snapshot(folder, repo)) is not None
        ),
    ]
    found = [c for c in candidates if c.is_file() and within(root, c)]
    if not found:
        raise UserInputError(
            f"{escape_unprintable(str(path))} holds no LongBench v2 {DATA_FILE} (looked for "
            f"{DATA_FILE}, longbench_v2/{DATA_FILE}, hub/{HUB_REPO}/{DATA_FILE} and a hub "
            f"cache's datasets--{HUB_REPO.replace('/', '--')}); give the file itself"
        )
    others = [
        f"{escape_unprintable(str(c))}: another copy of LongBench v2; not read (give it as "
        "the path to read it)"
        for c in found[1:]
    ]
    return found[0], others


def _cached_snapshot(folder: Path, repo: str) -> Path | None:
    """The snapshot of dataset `repo` that a hub cache in `folder` names as main."""
    entry = folder / f"datasets--{repo.replace('/', '--')}"
    try:
        revision = (entry / "refs" / "main").read_text(encoding="ascii").strip()
    except (OSError, UnicodeDecodeError):
        return None
    if not revision.isalnum() or len(revision) > _REVISION_CHARS:
        return None
    return entry / "snapshots" / revision


def _row(
    task: str, mode: Mode, row: LongBenchRow, checkout: Checkout, cut: PromptCut
) -> InputRow | RowProblem:
    assert checkout.cut is not None
    sent = cut(fill(checkout.templates[mode.template], row))
    metadata: dict[str, JSONValue] = {
        **row_metadata(row, mode.name),
        "data_line": row.line,
        "cut": cut_metadata(sent),
        "longbench_checkout": {
            "path": str(checkout.path),
            "templates": {t: checkout.digests[t] for t in _templates(mode)},
            **checkout.cut.as_dict(),
        },
    }
    if mode.second is not None:
        second = fill(checkout.templates[mode.second], row)
        if second.count(REASONING) != 1:
            return RowProblem(
                row.line,
                f"its question or options hold {REASONING}, which pred.py also fills with the "
                "reasoning; lctui's second call takes it once",
            )
        before, after = second.split(REASONING)
        reach = cut.count(before + after) + REASONING_TOKENS + _REASONING_SLACK
        if reach > checkout.cut.max_len:
            return RowProblem(
                row.line,
                f"its second call may reach max_len {checkout.cut.max_len} with a whole "
                "reasoning, where pred.py would cut it and lctui does not",
            )
        metadata[FOLLOW_UP] = FollowUp(before, after, ANSWER_TOKENS).as_dict()
    return InputRow(
        line=row.line,
        task=task,
        text=sent.text,
        answer_prefix="",
        gold=(row.answer,),
        max_new_tokens=mode.max_new_tokens,
        prompt_tokens=sent.kept_tokens,
        metadata=metadata,
        temperature=TEMPERATURE,
    )
