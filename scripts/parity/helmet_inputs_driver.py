"""Run princeton-nlp/HELMET's own load_data (data.py) on the config entries of the
invented checkout that scripts/parity/helmet_inputs.py writes, and make each row's
prompt as its model classes do (`user_template.format(**item)`, and the prompt
template: user, the loader's joiner, system) with the invented checkout's templates in
place of HELMET's sentences.

Glue for tests/parity/helmet_inputs_prompts.jsonl, run by hand, never in CI, under the
python of a venv with the real `datasets` package (helmet_rag_driver.py's stand-ins for
what the loaders never call). It imports data.py from the snapshot folder given as the
first argument and contains none of its code. As eval.py does, Python's `random` is
seeded with the seed just before each load_data.

    python helmet_inputs_driver.py HELMET_DIR < {"checkout": DIR, "cases": [...]}

A case: dataset, test, demo (paths relative to the checkout), shots, seed,
max_test_samples, user and system (the invented templates). Per case it returns, per
row in HELMET's order, the SHA-256 and length of the user text and of the whole prompt.
"""

from __future__ import annotations

import hashlib
import json
import os
import random
import sys
import types
from pathlib import Path

from helmet_rag_driver import import_helmet_data


def _digest(text: str) -> dict[str, object]:
    return {"sha256": hashlib.sha256(text.encode("utf-8")).hexdigest(), "chars": len(text)}


def main() -> None:
    helmet = Path(sys.argv[1]).resolve()
    request = json.load(sys.stdin)
    helmet_data = import_helmet_data(helmet)
    os.chdir(request["checkout"])
    out = []
    for case in request["cases"]:
        args = types.SimpleNamespace(
            max_test_samples=case["max_test_samples"], shots=case["shots"], seed=case["seed"]
        )
        random.seed(case["seed"])  # eval.py, just before load_data
        loaded = helmet_data.load_data(args, case["dataset"], case["test"], case["demo"])
        user, system = loaded["user_template"], loaded["system_template"]
        whole = loaded["prompt_template"]
        if not (whole.startswith(user) and whole.endswith(system)):
            raise SystemExit(f"{case['dataset']}: prompt_template is not user + joiner + system")
        joiner = whole[len(user) : len(whole) - len(system)]
        rows = []
        for item in loaded["data"]:
            text = case["user"].format(**item)
            prompt = text + joiner + case["system"].format(**item)
            rows.append({"user": _digest(text), "prompt": _digest(prompt)})
        out.append({"dataset": case["dataset"], "joiner": joiner, "rows": rows})
    json.dump(out, sys.stdout)


if __name__ == "__main__":
    main()
