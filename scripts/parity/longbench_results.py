"""Regenerate tests/fixtures/longbench/results/: result files written by LongBench v2's pred.py.

Glue, run by hand, never in CI. It runs THUDM/LongBench's own pred.py (the LongBench v2
one at the repository root) in a scratch copy of the snapshot, once per model and mode
(direct, --cot, --no_context), on questions we invented (tests/helpers/longbench_data.py:
our questions over State of the Union prose), so the files have the original's exact
name (`results/{model}[_cot|_no_context].jsonl`) and lines; then its result.py, whose
table (result.txt) the tests compare with `lctui report --suite longbench`. Stand-ins,
for what needs a download, a GPU or a server:

- `datasets.load_dataset` returns the invented questions;
- the OpenAI client answers each call with an output chosen here per question and call
  (right, wrong, with Markdown asterisks, without parentheses, naming no option, empty:
  pred.py skips a question whose answer comes back empty);
- `transformers.AutoTokenizer` (pred.py only counts tokens to cut prompts over 120,000
  tokens, which these are not): one token per character;
- `torch.multiprocessing` is Python's multiprocessing (one process, --n_proc 1).

    PYTHONPATH=src:tests python scripts/parity/longbench_results.py \
        --longbench PATH/TO/LongBench --python PATH/TO/venv/bin/python [--commit HASH]

The snapshot's Python needs tqdm and tiktoken. It writes tests/fixtures/longbench/results/
(with result.txt beside the result files) and README.md there.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import tempfile
from pathlib import Path

from helmet_common import ROOT, command_line, snapshot_commit
from longbench_common import check_checkout

from helpers.longbench_data import longbench_rows

OUT = ROOT / "tests/fixtures/longbench/results"
QUESTIONS = 8  # every difficulty and bucket in every file, so result.py divides by no 0
WORDS = (300, 700)  # contexts longer than the 1,000 characters the files keep
# (model, mode, the answer style of each question in turn). Qwen answers in all three
# modes, Llama directly: two models on the same questions, which lctui pairs.
RUNS = [
    ("Qwen2.5-7B-Instruct", "direct", "right wrong stars bare none right wrong right"),
    ("Qwen2.5-7B-Instruct", "cot", "right right wrong none stars empty bare right"),
    ("Qwen2.5-7B-Instruct", "no_context", "wrong right wrong wrong none right wrong bare"),
    ("Llama-3.1-8B-Instruct", "direct", "wrong wrong right none empty right stars right"),
]

# Our stand-ins, loaded into every process of the snapshot's Python (sitecustomize).
SHIM = r"""
import json, multiprocessing, os, sys, types

def _module(name, **attrs):
    module = types.ModuleType(name)
    module.__dict__.update(attrs)
    sys.modules[name] = module
    return module

_rows = json.load(open(os.environ["STANDIN_ROWS"], encoding="utf-8"))
_answers = json.load(open(os.environ["STANDIN_ANSWERS"], encoding="utf-8"))

def load_dataset(*args, **kwargs):
    return _rows

_module("datasets", load_dataset=load_dataset)

class _Tokenizer:
    def encode(self, text, **kwargs):
        return [ord(c) for c in text]

    def decode(self, ids, **kwargs):
        return "".join(chr(i) for i in ids)

class AutoTokenizer:
    @staticmethod
    def from_pretrained(*args, **kwargs):
        return _Tokenizer()

_module("transformers", AutoTokenizer=AutoTokenizer)
_module("torch").multiprocessing = multiprocessing
sys.modules["torch.multiprocessing"] = multiprocessing

def _reply(messages, max_tokens, **kwargs):
    prompt = messages[-1]["content"]
    row = next(r for r in _rows if r["question"] in prompt)
    answers = _answers[row["_id"]]
    if max_tokens > 128:
        text = answers["reasoning"]
    elif answers.get("reasoning") and answers["reasoning"] in prompt:
        text = answers["after_reasoning"]
    else:
        text = answers["answer"]
    message = types.SimpleNamespace(content=text)
    return types.SimpleNamespace(choices=[types.SimpleNamespace(message=message)])

class OpenAI:
    def __init__(self, *args, **kwargs):
        completions = types.SimpleNamespace(create=_reply)
        self.chat = types.SimpleNamespace(completions=completions)

_module("openai", OpenAI=OpenAI)
"""


def _answer(style: str, gold: str, number: int) -> str:
    wrong = "ABCD"[("ABCD".index(gold) + 1) % 4]
    return {
        "right": f"Reading the text, the correct answer is ({gold}). "
        f"The correct answer is ({gold})",
        "wrong": f"The correct answer is ({wrong})",
        "stars": f"**The correct answer is ({gold})**",
        "bare": f"The correct answer is {gold}",
        "none": f"Question {number} cannot be settled from what I read; maybe {gold}.",
        "empty": "",
    }[style]


def _answers(rows: list[dict[str, object]], styles: list[str], cot: bool) -> dict[str, object]:
    table: dict[str, object] = {}
    for i, (row, style) in enumerate(zip(rows, styles, strict=True)):
        text = _answer(style, str(row["answer"]), i)
        if cot:
            # The reasoning call gets the style's text only when it is empty (pred.py
            # drops the question then); otherwise it reasons and the answer call answers.
            reasoning = "" if style == "empty" else f"Step by step about question {i}: ..."
            table[str(row["_id"])] = {"reasoning": reasoning, "after_reasoning": text}
        else:
            table[str(row["_id"])] = {"answer": text}
    return table


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n\n")[0])
    parser.add_argument("--longbench", type=Path, required=True, help="the LongBench snapshot")
    parser.add_argument("--python", required=True, help="a Python with tqdm and tiktoken")
    parser.add_argument("--commit", help="the snapshot's commit (default: its git HEAD)")
    args = parser.parse_args()
    check_checkout(args.longbench)
    commit = snapshot_commit(args.longbench, args.commit)
    command = command_line()
    rows = longbench_rows(QUESTIONS, words=WORDS)
    shutil.rmtree(OUT, ignore_errors=True)
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        work = folder / "LongBench"
        shutil.copytree(args.longbench, work, ignore=shutil.ignore_patterns(".git"))
        (folder / "shim").mkdir()
        (folder / "shim" / "sitecustomize.py").write_text(SHIM)
        (folder / "rows.json").write_text(json.dumps(rows))
        for model, mode, styles in RUNS:
            answers = _answers(rows, styles.split(), mode == "cot")
            (folder / "answers.json").write_text(json.dumps(answers))
            flags = {"direct": [], "cot": ["--cot"], "no_context": ["--no_context"]}[mode]
            _run(args.python, work, folder, ["pred.py", "--model", model, "--n_proc", "1", *flags])
        _run(args.python, work, folder, ["result.py"])
        shutil.copytree(work / "results", OUT)
        shutil.copy(work / "result.txt", OUT / "result.txt")
    _readme(commit, command)


def _run(python: str, work: Path, folder: Path, argv: list[str]) -> None:
    env = {
        **{k: v for k, v in os.environ.items() if k != "PYTHONPATH"},
        "PYTHONPATH": str(folder / "shim"),
        "STANDIN_ROWS": str(folder / "rows.json"),
        "STANDIN_ANSWERS": str(folder / "answers.json"),
    }
    done = subprocess.run([python, *argv], cwd=work, env=env, capture_output=True, text=True)
    if done.returncode != 0:
        raise SystemExit(f"{argv} failed:\n{done.stderr[-4000:]}")


def _readme(commit: str, command: str) -> None:
    files = sorted(str(p.relative_to(OUT)) for p in OUT.rglob("*") if p.is_file())
    text = f"""# LongBench v2 result files (test fixtures of `lctui import longbench-results`)

Written by THUDM/LongBench's own pred.py and result.py (LongBench v2), commit {commit},
on questions we invented (tests/helpers/longbench_data.py: our questions over State of
the Union prose), with stand-ins for the dataset download, the model server and the
tokenizer; see scripts/parity/longbench_results.py. result.txt is result.py's table of
these files.

    {command}

Files:

""" + "\n".join(f"- {f}" for f in files)
    (OUT / "README.md").write_text(text + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()
