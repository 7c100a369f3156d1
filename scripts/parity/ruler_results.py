"""Regenerate tests/fixtures/ruler/results/: prediction folders written by RULER's own code.

Glue, run by hand, never in CI. It lays out a `benchmark_root` as RULER's run.sh does
(`{model}/synthetic/{length}/data` and `/pred`) and runs, for every task, the snapshot's
own data/prepare.py (which runs its generator), pred/call_api.py (which writes the
prediction rows) and eval/evaluate.py (which merges chunk files and writes summary.csv,
or summary-{task}.csv for one task). Counting is tiktoken o200k_base
(`--tokenizer_type openai`). Stand-ins, for what needs a download, a GPU or NeMo:

- the model: call_api.py's `vllm` client is replaced by one that answers each prompt
  with an output chosen here (every answer, some, none, upper-cased, empty, with
  control characters), so the files reach every branch of RULER's metrics;
- NeMo's `read_manifest` (a JSON-lines reader); its `write_manifest` is RULER's own copy
  (scripts/data/manifest_utils.py);
- nltk's punkt model (a download): an untrained Punkt tokenizer splits the essay
  haystack's sentences (the same algorithm);
- the wording of the prompts is ours (OUR_WORDING, OUR_NEEDLE, OUR_NOISE below), put
  in place of the snapshot's in the scratch copy that runs;
- the essay haystack is State of the Union prose (lctui's corpus) instead of Paul
  Graham's essays; english_words.json (a Git LFS file in the snapshot, read only past
  ~8,000 cwe words) is empty; qa_1 and qa_2 read small SQuAD and HotpotQA files
  invented here (our own questions and paragraphs).

    PYTHONPATH=src python scripts/parity/ruler_results.py --ruler PATH/TO/RULER \
        --python PATH/TO/venv/bin/python [--commit HASH]

The snapshot's Python needs numpy, scipy, tiktoken, nltk, wonderwords, pyyaml, tqdm,
pandas and tenacity. It writes tests/fixtures/ruler/results/ and README.md there.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import tempfile
from pathlib import Path

from ruler_common import ROOT, check_snapshot, command_line, run_in_snapshot_python, snapshot_commit

from lctui.tasks.corpora import sotu_speeches

OUT = ROOT / "tests/fixtures/ruler/results"
TASKS = (
    "niah_single_1", "niah_single_2", "niah_single_3", "niah_multikey_1", "niah_multikey_2",
    "niah_multikey_3", "niah_multivalue", "niah_multiquery", "vt", "cwe", "fwe", "qa_1", "qa_2",
)  # fmt: skip
LLAMA, QWEN = "Llama-3.1-8B-Instruct", "Qwen2.5-7B-Instruct"
# One job per prediction folder: both models at 1024 tokens on the same data (RULER's
# seed and tokenizer: the same prompts, so lctui pairs them), one task at 2048 that
# evaluate.py scores alone (summary-{task}.csv), and a folder left as call_api.py writes
# chunks (`{task}-{i}.jsonl`), before evaluate.py merges them, without its data folder.
JOBS = [
    {"model": LLAMA, "length": 1024, "template": "meta-llama3", "tasks": TASKS, "styles": 0},
    {"model": QWEN, "length": 1024, "template": "meta-llama3", "tasks": TASKS, "styles": 3},
    {"model": LLAMA, "length": 2048, "template": "base", "tasks": ["niah_single_1"], "styles": 1},
    {
        "model": QWEN, "length": 2048, "template": "base", "tasks": ["niah_single_2"],
        "styles": 2, "chunks": 2, "evaluate": False, "keep_data": False,
    },
]  # fmt: skip
SAMPLES = 2
ESSAY_SPEECHES = 12
# Our own wording for what RULER's generators write into every prompt (its
# data/synthetic/constants.py templates and answer prefixes, niah.py's needle sentence,
# the noise sentences of niah.py and variable_tracking.py): the fixtures hold whole
# prompts, and the original's sentences stay out of the repository. The structure is
# kept: the placeholders, the first ten characters of each answer prefix unique at the
# end of the prompt (RULER cuts the prefix off there), the words niah.py rewrites for a
# single needle ("are", "Some"), and the question after the context's last line.
OUR_WORDING = {
    "niah": {
        "template": "Hidden in the text below: some secret {type_needle_v}. Keep them in "
        "mind, questions on the {type_needle_v} follow.\n{context}\nWhich secret "
        "{type_needle_v} does the text give for {query}?",
        "answer_prefix": " The secret {type_needle_v} for {query} in the text are",
    },
    "variable_tracking": {
        "template": "Follow the chains of assignments hidden in the text below.\n\n{context}"
        "\nQuestion: Which variables end up holding the value {query}?",
        "answer_prefix": " Answer: Following the assignments, {num_v} variables hold the "
        "value {query}: ",
    },
    "common_words_extraction": {
        "template": "Here is a numbered list of words; a few of them come up far more often "
        "than the rest.\n{context}\nQuestion: Which 10 words come up most often in the list?",
        "answer_prefix": " Answer: The 10 words that come up most often:",
    },
    "freq_words_extraction": {
        "template": "Below is a coded text of made-up words. Keep count of each word. "
        "{context}\nQuestion: Leaving out the dots '....', which three words occur most "
        "often in the coded text?",
        "answer_prefix": " Answer: The three words that occur most often:",
    },
    "qa": {
        "template": "Use only the documents below to answer the question; reply with the "
        "answer alone.\n\n{context}\n\nQuestion: {query}",
        "answer_prefix": " Answer:",
    },
}
OUR_NEEDLE = "The secret {type_needle_v} for {key} is {value}."
OUR_NOISE = "The river runs east. The hills lie still. A cart rolls by. Then all is quiet."

# Our stand-ins, loaded into every process of the snapshot's Python (sitecustomize).
SHIM = r"""
import hashlib, importlib.util, json, os, sys, types

import nltk, nltk.tokenize
from nltk.tokenize.punkt import PunktSentenceTokenizer
_untrained = PunktSentenceTokenizer()

def _sent_tokenize(text, language="english"):
    return _untrained.tokenize(text)

nltk.tokenize.sent_tokenize = _sent_tokenize
nltk.sent_tokenize = _sent_tokenize
_find = nltk.data.find

def _find_without_punkt(resource, *args, **kwargs):
    if "punkt" in str(resource):
        return resource
    return _find(resource, *args, **kwargs)

nltk.data.find = _find_without_punkt

def _package(name):
    module = sys.modules.get(name) or types.ModuleType(name)
    module.__path__ = []
    sys.modules[name] = module
    return module

for _name in ("nemo", "nemo.collections", "nemo.collections.asr", "nemo.collections.asr.parts",
              "nemo.collections.asr.parts.utils"):
    _package(_name)
_spec = importlib.util.spec_from_file_location(
    "ruler_manifest_utils", os.path.join(os.environ["RULER_SCRIPTS"], "data", "manifest_utils.py"))
_ruler_manifest = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(_ruler_manifest)
_manifest = types.ModuleType("nemo.collections.asr.parts.utils.manifest_utils")

def read_manifest(path):
    with open(path, encoding="utf-8") as handle:
        return [json.loads(line) for line in handle if line.strip()]

_manifest.read_manifest = read_manifest
_manifest.write_manifest = _ruler_manifest.write_manifest
sys.modules[_manifest.__name__] = _manifest

class VLLMClient:
    def __init__(self, **kwargs):
        with open(os.environ["STANDIN_ANSWERS"], encoding="utf-8") as handle:
            self.answers = json.load(handle)

    def process_batch(self, prompts, **kwargs):
        digest = lambda p: hashlib.sha1(p.encode("utf-8")).hexdigest()
        return [{"text": [self.answers.get(digest(p), "")]} for p in prompts]

_clients = types.ModuleType("client_wrappers")
_clients.VLLMClient = VLLMClient
sys.modules["client_wrappers"] = _clients
"""

GLUE = r"""
import hashlib, json, os, shutil, subprocess, sys
from pathlib import Path

ruler, work, jobs_path, out, essay_path, shim = map(Path, sys.argv[1:7])
OUR_NEEDLE = os.environ["OUR_NEEDLE"]
OUR_NOISE = os.environ["OUR_NOISE"]
scripts = work / "scripts"
shutil.copytree(ruler / "scripts", scripts)
folder = scripts / "data" / "synthetic" / "json"
(folder / "PaulGrahamEssays.json").write_text(json.dumps({"text": essay_path.read_text()}))
(folder / "english_words.json").write_text("{}")
# Our wording in place of the snapshot's: its templates, answer prefixes, needle and noise
# sentences never enter the fixtures (the files hold whole prompts).
synthetic = scripts / "data" / "synthetic"
with open(synthetic / "constants.py", "a", encoding="utf-8") as handle:
    handle.write("\n" + "".join(
        f"TASKS[{task!r}][{key!r}] = {text!r}\n"
        for task, texts in json.loads(os.environ["OUR_WORDING"]).items()
        for key, text in texts.items()))
for name in ("niah.py", "variable_tracking.py"):
    path = synthetic / name
    lines = path.read_text().splitlines(keepends=True)
    for i, line in enumerate(lines):
        stripped = line.strip()
        if stripped.startswith("needle = "):
            lines[i] = line[: line.index("needle")] + f"needle = {OUR_NEEDLE!r}\n"
        elif stripped.startswith("haystack = \"") and "grass" in stripped:
            lines[i] = line[: line.index("haystack")] + f"haystack = {OUR_NOISE!r}\n"
    path.write_text("".join(lines))
topics = ["harbour", "orchard", "glacier", "lantern", "meadow", "quarry"]
paragraphs = [
    f"The {t} of the valley was first described in {1800 + 7 * i}. Visitors said the {t} "
    f"held {i + 3} old stones and a bell that rang at dusk."
    for i, t in enumerate(topics)
]
squad = {"data": [
    {"title": f"Article {a}", "paragraphs": [
        {"context": paragraphs[2 * a + p], "qas": [
            {"question": f"In which year was the {topics[2 * a + p]} first described?",
             "answers": [{"text": str(1800 + 7 * (2 * a + p))}], "is_impossible": False},
            {"question": f"Who painted the {topics[2 * a + p]}?", "answers": [],
             "is_impossible": True}]}
        for p in range(2)]}
    for a in range(3)]}
(folder / "squad.json").write_text(json.dumps(squad))
hotpot = [
    {"question": f"How many old stones did the {topics[i]} hold?", "answer": str(i + 3),
     "context": [[f"The {topics[i]}", [paragraphs[i]]],
                 [f"The {topics[i - 1]}", [paragraphs[i - 1]]]]}
    for i in range(len(topics))
]
(folder / "hotpotqa.json").write_text(json.dumps(hotpot))
env = {**os.environ, "PYTHONPATH": str(shim), "RULER_SCRIPTS": str(scripts),
       "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ['PATH']}"}

def run(*args, cwd=scripts):
    done = subprocess.run([sys.executable, *map(str, args)], env=env, cwd=cwd,
                          capture_output=True, text=True)
    if done.returncode != 0:
        raise SystemExit(f"{args}: {done.stderr[-3000:]}")
    return done

def prepare(task, data, length, template, chunks, chunk):
    run("data/prepare.py", "--save_dir", data, "--benchmark", "synthetic", "--task", task,
        "--tokenizer_path", "o200k_base", "--tokenizer_type", "openai",
        "--max_seq_length", length, "--model_template_type", template,
        "--num_samples", SAMPLES, "--chunk_amount", chunks, "--chunk_idx", chunk)

STYLES = ["all", "some", "upper", "none", "empty", "noisy"]

def answer(style, golds):
    if style == "all":
        return " " + ", ".join(golds) + "."
    if style == "some":
        return " " + golds[0] + " and 0000000."
    if style == "upper":
        return " " + " ".join(g.upper() for g in golds)
    if style == "none":
        return " I could not find it in the text."
    if style == "empty":
        return ""
    return "\x01\t " + golds[-1] + "\n\n"

SAMPLES = int(os.environ["RULER_SAMPLES"])
for job in json.loads(jobs_path.read_text()):
    results = out / job["model"] / "synthetic" / str(job["length"])
    pred = results / "pred"
    pred.mkdir(parents=True, exist_ok=True)
    chunks = job.get("chunks", 0)
    answers = {}
    data_dirs = {}
    for t, task in enumerate(job["tasks"]):
        dirs = [results / "data"] if not chunks else [results / f"data_{c}" for c in range(chunks)]
        data_dirs[task] = dirs
        for c, data in enumerate(dirs):
            prepare(task, data, job["length"], job["template"], max(1, chunks), c)
            rows = [json.loads(l) for l in open(data / task / "validation.jsonl", encoding="utf-8")]
            for i, row in enumerate(rows):
                style = STYLES[(job["styles"] + t + i + c) % len(STYLES)]
                prompt = row["input"] + row.get("answer_prefix", "")
                digest = hashlib.sha1(prompt.encode("utf-8")).hexdigest()
                answers[digest] = answer(style, row["outputs"])
    (work / "answers.json").write_text(json.dumps(answers))
    env["STANDIN_ANSWERS"] = str(work / "answers.json")
    for task in job["tasks"]:
        for c, data in enumerate(data_dirs[task]):
            chunk_args = ["--chunk_amount", chunks, "--chunk_idx", c] if chunks else []
            run("pred/call_api.py", "--data_dir", data, "--save_dir", pred, "--benchmark",
                "synthetic", "--task", task, "--server_type", "vllm", "--model_name_or_path",
                job["model"], "--temperature", "0.0", "--top_k", "1", "--top_p", "1.0",
                "--batch_size", "1", *chunk_args)
    if job.get("evaluate", True):
        run("eval/evaluate.py", "--data_dir", pred, "--benchmark", "synthetic")
    if chunks or not job.get("keep_data", True):
        for dirs in data_dirs.values():
            for data in dirs:
                shutil.rmtree(data, ignore_errors=True)
    print(f"{job['model']} at {job['length']}: {len(job['tasks'])} task(s)", file=sys.stderr)
"""


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n\n")[0])
    parser.add_argument("--ruler", type=Path, required=True, help="the RULER snapshot folder")
    parser.add_argument("--python", required=True, help="a Python with RULER's dependencies")
    parser.add_argument("--commit", help="the snapshot's commit (default: its git HEAD)")
    args = parser.parse_args()
    check_snapshot(args.ruler)
    commit = snapshot_commit(args.ruler, args.commit)
    command = command_line()
    speeches = sotu_speeches()[-ESSAY_SPEECHES:]
    essay = " ".join(sentence for _, sentences in speeches for sentence in sentences)
    shutil.rmtree(OUT, ignore_errors=True)
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        (folder / "shim").mkdir()
        (folder / "shim" / "sitecustomize.py").write_text(SHIM)
        (folder / "essay.txt").write_text(essay)
        (folder / "jobs.json").write_text(json.dumps(JOBS))
        os.environ.setdefault("TIKTOKEN_CACHE_DIR", str(_tiktoken_cache()))
        os.environ["RULER_SAMPLES"] = str(SAMPLES)
        os.environ["OUR_WORDING"] = json.dumps(OUR_WORDING)
        os.environ["OUR_NEEDLE"], os.environ["OUR_NOISE"] = OUR_NEEDLE, OUR_NOISE
        run_in_snapshot_python(
            args.python,
            GLUE,
            str(args.ruler.resolve()),
            str(folder / "work"),
            str(folder / "jobs.json"),
            str(OUT),
            str(folder / "essay.txt"),
            str(folder / "shim"),
        )
    _readme(commit, command)


def _tiktoken_cache() -> Path:
    from lctui.tasks.tokenizers import reference_tokenizer

    reference_tokenizer("o200k_base")  # makes sure the vocabulary is in the cache
    return Path(os.environ["TIKTOKEN_CACHE_DIR"])


def _readme(commit: str, command: str) -> None:
    files = sorted(str(p.relative_to(OUT)) for p in OUT.rglob("*") if p.is_file())
    text = f"""# RULER prediction folders (test fixtures of `lctui import ruler-results`)

Written by NVIDIA/RULER's own code, commit {commit}: data/prepare.py (its generators),
pred/call_api.py and eval/evaluate.py, laid out as its run.sh lays out a benchmark_root,
with a stand-in model whose answers are chosen per prompt, State of the Union prose as
the essay haystack and invented SQuAD/HotpotQA files; the prompts' wording (templates,
answer prefixes, needle and noise sentences) is ours, put in place of RULER's in the
scratch copy that ran, so no sentence of RULER's is in these files; see
scripts/parity/ruler_results.py.

    {command}

Files:

""" + "\n".join(f"- {f}" for f in files)
    (OUT / "README.md").write_text(text + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()
