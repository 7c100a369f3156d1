"""Regenerate tests/parity/helmet_jsonkv_structure.jsonl: the structure of HELMET's JSON KV
prompts (pair counts and settings per length, order of the parts, token use), from
HELMET's own configs and loader.

Run by hand from the repository root with lctui's python, never in CI:

    PYTHONPATH=src python scripts/parity/helmet_jsonkv.py \
        --helmet PATH/TO/HELMET --litm PATH/TO/lost-in-the-middle \
        --python PATH/TO/originals-venv/bin/python

Rows (tokens counted with o200k_base, lctui's reference tokenizer):
- "length": HELMET's settings per length (scripts/generate_configs.py: input length,
  pairs in the data file, generation length; configs/recall.yaml: shots, chat template);
- "prompt": the prompt HELMET's load_json_kv builds from an lctui example's own data
  (its object, key, value and demonstrations), named by task, length, seed, index and
  tokenizer: token count, budget use, the order of its parts, demonstrations used;
- "litm": prompts on rows that lost-in-the-middle's get_kv_retrieval_prompt renders (the
  renderer HELMET's loader cites; HELMET's data files themselves are not public in the
  repository): tokens per pair of the object, prompt tokens, budget use.
No prompt text is stored.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from helmet_common import parity_parser, run_driver, snapshot_commit, write_fixture

from lctui.tasks import get_task
from lctui.tasks.tokenizers import reference_tokenizer

SEED, INDICES, TOKENIZER = 0, (0, 1), "o200k_base"
LITM_PER_LENGTH = 2


def _order(places: dict[str, int]) -> list[str]:
    """The part names in the order they occur (a part not found would be -1: kept first)."""
    return [name for name, _ in sorted(places.items(), key=lambda item: item[1])]


def main() -> int:
    parser = parity_parser(__doc__, "helmet_jsonkv_structure.jsonl")
    parser.add_argument("--litm", type=Path, help="lost-in-the-middle checkout (litm rows)")
    args = parser.parse_args()
    commit = snapshot_commit(args.helmet, args.commit)
    litm_commit = snapshot_commit(args.litm, None) if args.litm else None
    tokenizer = reference_tokenizer(TOKENIZER)
    task = get_task("json_kv")
    # HELMET's lengths first (no example needed), then lctui's examples at each of them.
    configs = run_driver(args.python, args.helmet, "jsonkv", {"rows": []})["configs"]
    named: dict[str, dict[str, Any]] = {}
    requests = []
    for length in configs["lengths"]:
        for index in INDICES:
            where = {"task": "json_kv", "length": length["input_length"], "seed": SEED}
            where.update(index=index, tokenizer=TOKENIZER)
            example = task.generate(where["length"], SEED, index, tokenizer)
            row_id = f"{where['length']}-{index}"
            named[row_id] = where
            requests.append(
                {
                    "id": row_id,
                    "context": example.context,
                    "question": example.metadata["key"],
                    "answer": example.gold[0],
                    "demos": example.metadata["demos"],
                    "num_kvs": example.metadata["num_kvs"],
                }
            )
    request = {"rows": requests, "litm": str(args.litm) if args.litm else None}
    request["litm_per_length"] = LITM_PER_LENGTH
    built = run_driver(args.python, args.helmet, "jsonkv", request)
    generation = {c["input_length"]: c["generation_max_length"] for c in configs["lengths"]}
    rows: list[dict[str, Any]] = []
    for length in configs["lengths"]:
        rows.append(
            {
                "kind": "length",
                "name": length["name"],
                "length": length["input_length"],
                "num_kvs": length["num_kvs"],
                "generation_max_length": length["generation_max_length"],
                "shots": configs["shots"],
                "use_chat_template": configs["use_chat_template"],
            }
        )
    for prompt in built["prompts"]:
        where = named[prompt["id"]]
        tokens = tokenizer.count(prompt["prompt"])
        rows.append(
            {
                "kind": "prompt",
                "example": where,
                "num_kvs": next(r["num_kvs"] for r in requests if r["id"] == prompt["id"]),
                "prompt_tokens": tokens,
                "budget_use": round((tokens + generation[where["length"]]) / where["length"], 4),
                "parts_order": _order(prompt["places"]),
                "demos_used": prompt["demos_used"],
                "answer_prefix_at_end": prompt["prefix_at_end"],
            }
        )
    for prompt in built["litm"]:
        tokens = tokenizer.count(prompt["prompt"])
        rows.append(
            {
                "kind": "litm",
                "length": prompt["length"],
                "num_kvs": prompt["num_kvs"],
                "context_tokens": tokenizer.count(prompt["context"]),
                "prompt_tokens": tokens,
                "budget_use": round((tokens + generation[prompt["length"]]) / prompt["length"], 4),
                "gold_index": prompt["gold_index"],
            }
        )
    notes = (
        "HELMET's JSON KV settings (scripts/generate_configs.py, configs/recall.yaml) and "
        "prompts built by its load_json_kv without chat template (recall.yaml), counted "
        "with o200k_base. 'prompt' rows: HELMET's loader on the data of lctui's example "
        "(object, key, value, demonstrations) named in the row. 'litm' rows: HELMET's loader "
        "on rows rendered by nelson-liu/lost-in-the-middle's get_kv_retrieval_prompt "
        f"(commit {litm_commit}), seed 0. budget_use = (prompt tokens + generation length) "
        "/ length."
    )
    write_fixture(args.out, commit, notes, rows)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
