"""Run princeton-nlp/HELMET's own load_data (data.py) on the config entries of the
invented checkout that scripts/parity/helmet_inputs.py writes, with the invented
checkout's sentences in place of HELMET's, and make each row's prompt as its model
classes do (`user_template.format(**item)`; the prompt template: user, the loader's
joiner, system).

Glue for tests/parity/helmet_inputs_prompts.jsonl, run by hand, never in CI, under the
python of a venv with the real `datasets` and `transformers` (helmet_rag_driver.py's
stand-ins for what the loaders never call). It contains none of HELMET's code: it
parses data.py from the snapshot folder given as the first argument, swaps the string
constants the request pairs (HELMET's template sentences, read from the snapshot by
lctui's own reader at run time, for the invented ones), and runs the rest as it is.
Around it: `AutoTokenizer.from_pretrained` (HELMET's Llama-2 tokenizer) gives the
request's tokenizer folder, and `load_dataset` of a hub repository the request names
reads the files the request names per split (JSON lines, or the Parquet conversion the
hub keeps of a script-based repository), with HELMET's own features where it gives
them (the hub's JSON and Parquet builders, offline). As eval.py does, Python's
`random` is seeded with the seed just before each load_data.

    python helmet_inputs_driver.py HELMET_DIR < {"checkout", "replace", "tokenizer", "hub", "cases"}

A case: dataset, test, demo (paths relative to the checkout), shots, seed,
max_test_samples. Per case it returns, per row in HELMET's order, the SHA-256 and
length of the user text and of the whole prompt.
"""

from __future__ import annotations

import ast
import hashlib
import json
import os
import random
import sys
import types
from pathlib import Path
from typing import Any

from helmet_rag_driver import STAND_INS, _install_stand_ins


def _digest(text: str) -> dict[str, object]:
    return {"sha256": hashlib.sha256(text.encode("utf-8")).hexdigest(), "chars": len(text)}


class _Swap(ast.NodeTransformer):
    def __init__(self, pairs: dict[str, str]) -> None:
        self.pairs = pairs
        self.used: set[str] = set()

    def visit_Constant(self, node: ast.Constant) -> ast.Constant:
        if isinstance(node.value, str) and node.value in self.pairs:
            self.used.add(node.value)
            return ast.copy_location(ast.Constant(self.pairs[node.value]), node)
        return node


def import_swapped(helmet: Path, pairs: dict[str, str]) -> types.ModuleType:
    import datasets  # noqa: F401  # the real one, before the stand-ins exist

    _install_stand_ins()
    sys.path.insert(0, str(helmet))
    path = helmet / "data.py"
    swap = _Swap(pairs)
    tree = ast.fix_missing_locations(swap.visit(ast.parse(path.read_text(encoding="utf-8"))))
    missing = set(pairs) - swap.used
    if missing:
        raise SystemExit(f"{len(missing)} sentences to swap are not constants of {path}")
    module = types.ModuleType("data")
    module.__file__ = str(path)
    sys.modules["data"] = module
    exec(compile(tree, str(path), "exec"), module.__dict__)
    for name in STAND_INS:
        sys.modules.pop(name, None)
    return module


def _patch(module: types.ModuleType, tokenizer: str, hub: dict[str, dict[str, str]]) -> None:
    import datasets
    from transformers import AutoTokenizer

    class _Tokenizer:
        @staticmethod
        def from_pretrained(*_args: Any, **_kwargs: Any) -> Any:
            return AutoTokenizer.from_pretrained(tokenizer)

    module.AutoTokenizer = _Tokenizer  # type: ignore[attr-defined]
    real = datasets.load_dataset

    def load_dataset(path: str, *args: Any, **kwargs: Any) -> Any:
        if path in hub:
            files = hub[path]
            kwargs.pop("trust_remote_code", None)  # the script's data: the hub's own Parquet
            parquet = all(f.endswith(".parquet") for f in files.values())
            return real("parquet" if parquet else "json", data_files=files, **kwargs)
        return real(path, *args, **kwargs)

    datasets.load_dataset = load_dataset  # load_infbench imports it when it runs
    module.load_dataset = load_dataset  # type: ignore[attr-defined]  # data.py's own name


def main() -> None:
    helmet = Path(sys.argv[1]).resolve()
    request = json.load(sys.stdin)
    helmet_data = import_swapped(helmet, dict(request["replace"]))
    _patch(helmet_data, request["tokenizer"], request["hub"])
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
            text = user.format(**item)
            rows.append({"user": _digest(text), "prompt": _digest(whole.format(**item))})
        out.append({"dataset": case["dataset"], "joiner": joiner, "rows": rows})
    json.dump(out, sys.stdout)


if __name__ == "__main__":
    main()
