"""Regenerate tests/fixtures/helmet/results/: result files written by HELMET's own code.

Glue, run by hand, never in CI. It runs princeton-nlp/HELMET's eval.py `run_test` (the
function that post-processes every output, computes the per-example metrics and writes
the result JSON and its `.score` file), its GPT-4 judge scripts' `check_metrics`
(scripts/eval_gpt4_longqa.py, eval_gpt4_summ.py: they write `-gpt4eval_o.json`) and
eval_alce.py's `main` (`.json.score`) on a few examples we invented, so that the files
have the original's exact names and structure. What needs a GPU, a download or an API
is replaced by inert stand-ins named here: the model (its outputs and token counts are
given per case), torch's DataLoader (iterates the items in order), the GPT-4 judge (its
answers are given per case), the data loaders of NarrativeQA, Multi-LexSum and ALCE
(they download their data: invented rows stand in, with HELMET's
default_post_process as its load_data adds it). KILT, JSON KV and MS MARCO run through
HELMET's own loaders on invented rows (shots 0, so no demo file is read). ALCE is scored
without --citations (that needs the NLI model). Run it with a python that has HELMET's
light dependencies (numpy, tqdm, pyyaml, rouge_score, pytrec_eval; lctui's venv has
them), from the repository root:

    python scripts/parity/helmet_results.py --helmet PATH/TO/HELMET \
        --commit 4526dfbdc512bd9ff721da336bff4e3e75ecfd27

It writes the files under tests/fixtures/helmet/results/<model>/ and README.md there.
"""

from __future__ import annotations

import argparse
import contextlib
import io
import json
import os
import shutil
import sys
import types
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
from helmet_common import ROOT, command_line, snapshot_commit

OUT = ROOT / "tests/fixtures/helmet/results"
LLAMA = "meta-llama/Llama-3.1-8B-Instruct"
QWEN = "Qwen/Qwen2.5-7B-Instruct"


class StandInModel:
    """The model eval.py's run_test calls: prepare_inputs, tokenizer.decode, generate_batch."""

    def __init__(self, outputs: list[tuple[str, int, int]]) -> None:
        self.outputs = outputs
        self.tokenizer = types.SimpleNamespace(decode=lambda ids, **k: "(prompt not kept)")

    def prepare_inputs(self, item: Any, data: Any) -> dict[str, Any]:
        return {"input_ids": [[0]]}

    def generate_batch(self, inputs: list[Any], **kwargs: Any) -> list[dict[str, Any]]:
        return [
            {"output": text, "input_len": n_in, "output_len": n_out}
            for text, n_in, n_out in self.outputs[: len(inputs)]
        ]


class StandInJudge:
    """The GPT-4 judge the judge scripts call: its answers are given per case."""

    def __init__(self, answers: list[str]) -> None:
        self.answers = answers

    def generate_batch(self, prompt: list[str], **kwargs: Any) -> list[dict[str, Any]]:
        return [{"output": a} for a in self.answers[: len(prompt)]]


class DataLoader:
    def __init__(self, dataset: Any, collate_fn: Any, **kwargs: Any) -> None:
        self.dataset, self.collate_fn = dataset, collate_fn

    def __iter__(self) -> Any:
        for i in range(len(self.dataset)):
            yield self.collate_fn([self.dataset[i]])


def _table(driver: Any) -> Any:
    class Table(driver.Rows):  # type: ignore[misc,name-defined]
        """The stand-in dataset, with the column reads load_qa adds to it."""

        @property
        def column_names(self) -> list[str]:
            return list(self.rows[0]) if self.rows else []

        def __getitem__(self, key: Any) -> Any:
            if isinstance(key, str):
                return [row[key] for row in self.rows]
            return self.rows[key]

        def filter(self, fn: Any, *args: Any, **kwargs: Any) -> Any:
            return Table([row for row in self.rows if fn(row)])

        def map(self, fn: Any, *args: Any, **kwargs: Any) -> Any:
            return Table([{**row, **fn(row)} for row in self.rows])

    return Table


def _load(helmet: Path) -> tuple[Any, Any, Any]:
    import helmet_driver  # the stand-ins of torch, datasets and transformers

    helmet_data, _ = helmet_driver._load_helmet(helmet)
    sys.modules["torch.utils.data"].DataLoader = DataLoader  # type: ignore[attr-defined]
    model_utils = types.ModuleType("model_utils")
    for name in ("OpenAIModel", "AnthropicModel", "TgiVllmModel"):
        setattr(model_utils, name, type(name, (), {}))
    model_utils.load_LLM = None  # type: ignore[attr-defined]
    sys.modules["model_utils"] = model_utils
    import eval as helmet_eval  # HELMET's eval.py

    return helmet_driver, helmet_data, helmet_eval


def _args(
    helmet_eval: Any, dataset: str, model: str, length: int, gen: int, n: int, chat: bool
) -> Any:
    sys.argv = [
        "eval.py",
        "--datasets", dataset, "--model_name_or_path", model, "--tag", "v1",
        "--output_dir", os.path.relpath(OUT / model.rsplit("/", 1)[-1]),
        "--test_files", f"data/{dataset}/test.jsonl", "--demo_files", "",
        "--input_max_length", str(length), "--generation_max_length", str(gen),
        "--max_test_samples", str(n), "--shots", "0", "--no_cuda",
        "--use_chat_template", str(chat),
    ]  # fmt: skip
    args = helmet_eval.parse_arguments()
    # What eval.py's main does per dataset before run_test.
    args.input_max_length, args.generation_max_length = length, gen
    return args


def _run(
    parts: tuple[Any, Any, Any],
    dataset: str,
    model: str,
    length: int,
    gen: int,
    rows: list[dict[str, Any]],
    outputs: list[tuple[str, int, int]],
    loader: dict[str, Any] | None = None,
    chat: bool = True,
) -> Path:
    driver, helmet_data, helmet_eval = parts
    args = _args(helmet_eval, dataset, model, length, gen, len(rows), chat)
    os.makedirs(args.output_dir, exist_ok=True)
    if loader is None:  # HELMET's own loader on the invented rows
        helmet_data.load_dataset = lambda *a, **k: {"train": _table(driver)(rows)}
        helmet_eval.load_data = helmet_data.load_data
    else:  # a loader that downloads: the rows stand in, post-processed as load_data does
        stand_in = {"data": driver.Rows(rows), "post_process": helmet_data.default_post_process}
        helmet_eval.load_data = lambda *a, **k: {**stand_in, **loader}
    with contextlib.redirect_stderr(io.StringIO()):
        return Path(helmet_eval.run_test(args, StandInModel(outputs), dataset, args.test_files, ""))


def _passages(qid: str, labels: tuple[int, ...]) -> list[dict[str, Any]]:
    return [
        {"id": f"{qid}{i:02d}", "text": f"passage {i}", "label": label}
        for i, label in enumerate(labels)
    ]


def _ctxs(*texts: str) -> list[dict[str, str]]:
    return [{"title": f"Doc {i}", "text": t, "id": str(i)} for i, t in enumerate(texts)]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--helmet", type=Path, required=True, help="HELMET checkout")
    parser.add_argument("--commit", help="its commit, when the folder is no git checkout")
    cli = parser.parse_args()
    commit = snapshot_commit(cli.helmet, cli.commit)
    command = command_line()  # before eval.py's parser gets its own sys.argv
    shutil.rmtree(OUT, ignore_errors=True)
    parts = _load(cli.helmet.resolve())
    qa = [
        {"id": "q1", "question": "who wrote the tin drum", "answers": ["Günter Grass"],
         "ctxs": _ctxs("The Tin Drum is a 1959 novel by Günter Grass.")},
        {"id": "q2", "question": "capital of australia", "answers": ["Canberra"],
         "ctxs": _ctxs("Sydney is the largest city in Australia.")},
        {"id": "q3", "question": "how many legs has a spider", "answers": ["eight", "8"],
         "ctxs": _ctxs("Spiders have eight legs.")},
    ]  # fmt: skip
    _run(parts, "kilt_nq", LLAMA, 8192, 20, qa, [
        (" Günter Grass", 7900, 5), (" Sydney", 7890, 4), (" 8 legs", 7912, 3),
    ], chat=False)  # fmt: skip
    _run(parts, "kilt_nq", LLAMA, 16384, 20, qa, [
        ("Answer: Gunter Grass", 16200, 5), ("Canberra", 16190, 3), ("Answer: six", 16210, 4),
    ])  # fmt: skip
    _run(parts, "kilt_nq", QWEN, 8192, 20, qa, [
        ("Answer: Grass", 7700, 3), ("Answer: Canberra", 7710, 4), ("Answer: eight", 7720, 4),
    ])  # fmt: skip
    kv = [
        {"question": "k-1a2b", "answer": "v-9f8e", "demos": [], "num_kvs": 300},
        {"question": "k-3c4d", "answer": "v-7d6c", "demos": [], "num_kvs": 300},
    ]
    _run(parts, "json_kv", LLAMA, 8192, 100, kv, [
        (' "v-9f8e"', 8100, 9), (" v-0000", 8101, 8),
    ], chat=False)  # fmt: skip
    marco = [
        {"qid": "m1", "query": "what is a kiwi",
         "ctxs": _passages("1", (3, 2, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0))},
        {"qid": "m2", "query": "boil an egg",
         "ctxs": _passages("2", (0, 3, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0))},
    ]  # fmt: skip
    _run(parts, "msmarco_rerank_psg", LLAMA, 8192, 200, marco, [
        (" 100 > 101 > 102 > 103", 8000, 12), (" [202] > [201] > 209", 8010, 9),
    ], chat=False)  # fmt: skip
    story = [
        {"id": "n1", "context": "long story", "question": "Where do they go?",
         "answer": ["To the North Pole", "the north pole"]},
        {"id": "n2", "context": "long story", "question": "Who is the captain?",
         "answer": ["Nemo"]},
    ]  # fmt: skip
    nqa = _run(parts, "narrativeqa_8000", LLAMA, 8192, 100, story, [
        ("They go to the North Pole.", 8150, 8), ("The captain is Ahab.", 8140, 7),
    ], {"system_template": "Answer:"})  # fmt: skip
    lex = [
        {"id": "x1", "context": "documents", "question": "", "answer": "The court ruled.",
         "summary/long": "The court ruled for the plaintiffs. The case closed."},
    ]  # fmt: skip
    lexsum = _run(parts, "multi_lexsum_8000", LLAMA, 8192, 400, lex, [
        ("Plaintiffs sued; the court ruled for them. It closed in 2010.", 8120, 20),
    ], {"system_template": "Summary:"})  # fmt: skip
    asqa = [
        {"id": "a1", "question": "Who won?", "answer": "Both teams won titles.",
         "qa_pairs": [{"short_answers": ["Lakers"]}, {"short_answers": ["Celtics"]}],
         "docs": [{"title": "T", "text": "Lakers won in 2010."}]},
    ]  # fmt: skip
    alce = _run(parts, "alce_asqa_30", LLAMA, 8192, 300, asqa, [
        ("The Lakers won [1]. The Heat won [2].", 8050, 12),
    ], {"system_template": "Answer:"})  # fmt: skip
    _judge(cli.helmet.resolve(), nqa.resolve(), lexsum.resolve())
    import eval_alce  # HELMET's eval_alce.py

    with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):
        eval_alce.main(["--f", str(alce), "--no_rouge"])
    _readme(commit, command)
    return 0


def _judge(helmet: Path, nqa: Path, lexsum: Path) -> None:
    sys.path.insert(0, str(helmet / "scripts"))
    import eval_gpt4_longqa  # HELMET's scripts/eval_gpt4_longqa.py
    import eval_gpt4_summ  # HELMET's scripts/eval_gpt4_summ.py

    qa_answers = [
        'Correct place, fluent. {"fluency": 1, "correctness": 3}',
        'Wrong name. {"fluency": 1, "correctness": 0}',
    ]
    sink = io.StringIO()
    with contextlib.redirect_stdout(sink):
        eval_gpt4_longqa.check_metrics(
            StandInJudge(qa_answers), str(nqa), str(nqa).replace(".json", "-gpt4eval_o.json")
        )
    summ_answers = [
        'Fluent text. {"fluency": 1}',
        'Key point 1 is covered, 2 is not. {"recall": 1}',
        'Sentence 1 is supported; 2 is not. {"precision": 1, "sentence_count": 2}',
    ]
    here = Path.cwd()
    work = lexsum.parent / "_judge_data"
    (work / "data/multi_lexsum").mkdir(parents=True)
    keypoints = {"id": "x1", "summary/short_keypoints": ["The court ruled.", "Case closed."]}
    (work / "data/multi_lexsum/multi_lexsum_val.jsonl").write_text(json.dumps(keypoints) + "\n")
    os.chdir(work)
    try:
        with contextlib.redirect_stdout(sink):
            eval_gpt4_summ.check_metrics(
                StandInJudge(summ_answers),
                str(lexsum),
                str(lexsum).replace(".json", "-gpt4eval_o.json"),
            )
    finally:
        os.chdir(here)
        shutil.rmtree(work)


def _readme(commit: str, command: str) -> None:
    files = sorted(str(p.relative_to(OUT)) for p in OUT.rglob("*") if p.is_file())
    text = f"""# HELMET result files (test fixtures of `lctui import helmet-results`)

Written by princeton-nlp/HELMET's own code, commit {commit}, on examples we invented
(no HELMET data, prompt or output is in them), with inert stand-ins for the model, the
GPT-4 judge and the loaders that download data; see scripts/parity/helmet_results.py.

    {command}

Files:

""" + "\n".join(f"- {f}" for f in files)
    (OUT / "README.md").write_text(text + "\n", encoding="utf-8")


if __name__ == "__main__":
    sys.exit(main())
