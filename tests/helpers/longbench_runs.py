"""A results file of LongBench v2 runs for the TUI's tests, built once per session.

- gold (the reference pseudo-model) through the real CLI and engine on a small release
  (`longbench_rows`, contexts of 300, 3,000 and 30,000 words): longbench_v2 and
  longbench_v2_cot at 4K, three questions each: one context kept whole, one cut
  after tokenising it whole, one cut from its two ends (whole_tokens unknown); the
  chain of thought stores both calls;
- "answerer" (not a reference) answering 12 direct questions at 4K (`ANSWERS`: right,
  wrong, naming no option, failed requests) and 6 chain-of-thought ones (right, wrong
  and unparsed in turn), scored by the real scorer (`write_answered_run`).
"""

from __future__ import annotations

import shutil
from pathlib import Path

from helpers.longbench_data import (
    FIXTURE_WORDS,
    longbench_rows,
    write_answered_run,
    write_longbench,
)
from lctui.cli import main as cli_main
from lctui.core.types import Example
from lctui.store import open_store
from lctui.tasks import get_task
from lctui.tasks.datasets import DataSource
from lctui.tasks.tokenizers import reference_tokenizer

LENGTH = 4096
GOLD_N = 3
# What the answerer's direct answer to question i is (the errors fail instead).
RIGHT, WRONG, UNPARSED, ERROR = "right", "wrong", "unparsed", "error"
ANSWERS = (RIGHT,) * 5 + (WRONG,) * 3 + (UNPARSED,) * 2 + (ERROR,) * 2
COT_ANSWERS = (RIGHT, WRONG, UNPARSED) * 2
_TEMPLATE: dict[str, Path] = {}


def answer(example: Example, kind: str) -> str:
    """An answer of `kind` to `example`: its sentence naming the gold option, another
    option (in Markdown bold), or no option at all."""
    gold = example.gold[0]
    other = "ABCD"[("ABCD".index(gold) + 1) % 4]
    if kind == RIGHT:
        return f"The text supports it. The correct answer is ({gold})"
    if kind == WRONG:
        return f"Having weighed all four, **The correct answer is ({other})**"
    return "All four options look plausible to me."


def longbench_examples(task: str, n: int, folder: Path | None = None) -> list[Example]:
    """The first `n` examples of `task` at 4K (o200k_base) on the session's release (or
    on `folder`)."""
    bound = get_task(task).with_data(DataSource(folder=folder or _TEMPLATE["data"]))
    o200k = reference_tokenizer("o200k_base")
    return [bound.generate(LENGTH, 0, i, o200k) for i in range(n)]


def _build(root: Path) -> Path:
    folder = root / "data"
    write_longbench(folder, longbench_rows(len(ANSWERS), words=FIXTURE_WORDS))
    _TEMPLATE["data"] = folder
    db = root / "longbench.duckdb"
    args = ["run", "--model", "gold", "--tasks", "longbench_v2,longbench_v2_cot"]
    args += ["--lengths", "4k", "--n", str(GOLD_N), "--data", str(folder), "--db", str(db)]
    assert cli_main(args) == 0
    direct = longbench_examples("longbench_v2", len(ANSWERS), folder)
    cot = longbench_examples("longbench_v2_cot", len(COT_ANSWERS), folder)
    errors = [i for i, kind in enumerate(ANSWERS) if kind == ERROR]
    with open_store(db) as store:
        outputs = [answer(e, kind) for e, kind in zip(direct, ANSWERS, strict=True)]
        write_answered_run(store, direct, outputs, errors=errors)
        outputs = [answer(e, kind) for e, kind in zip(cot, COT_ANSWERS, strict=True)]
        write_answered_run(store, cot, outputs, run_id="run-lb-cot")
        store.flush(force=True)
    return db


def longbench_db(root: Path, target: Path) -> Path:
    """A copy at `target` of the session's LongBench v2 results file (built under `root`
    the first time)."""
    if "db" not in _TEMPLATE:
        _TEMPLATE["db"] = _build(root)
    shutil.copy(_TEMPLATE["db"], target)
    return target
