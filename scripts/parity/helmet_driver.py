"""Run princeton-nlp/HELMET's own code on rows lctui wrote; JSON in on stdin, JSON out.

Glue for the parity fixtures (tests/parity/helmet_*.jsonl), run by hand, never in CI.
It runs under the python of a venv that has HELMET's light dependencies (rouge_score,
nltk, pyyaml), not lctui's: scripts/parity/helmet_metrics.py and helmet_jsonkv.py start
it. It imports HELMET's utils.py and data.py from the snapshot folder given as the
first argument and contains none of their code: the imports HELMET does but these
functions never use (torch, datasets, transformers, pytrec_eval) are inert stand-ins.

    python helmet_driver.py HELMET_DIR metrics   < {"rows": [...]}
    python helmet_driver.py HELMET_DIR jsonkv    < {"rows": [...], "litm": DIR | null, ...}
    python helmet_driver.py HELMET_DIR real      < {"rows": [...]}
    python helmet_driver.py HELMET_DIR alce      < {"rows": [...]}

metrics: each row {"task": "json_kv" | "qa", "gold", "output", "use_chat_template",
"prefix"} is scored by the post-processing HELMET's loader returns (load_json_kv's, or
default_post_process for "qa"), after what eval.py does first: without chat template,
the answer prefix is put in front of the output. For json_kv the prefix is lctui's
(the row's "prefix"): HELMET's parse_output takes the prefix as an argument, and the
loader's call of it is given lctui's instead of HELMET's own.

real: each row {"kind": "rerank" | "icl" | "qa" | "mc", "output", "use_chat_template",
"prefix", ...} is scored by the post-processing HELMET's loader for that category
returns (load_msmarco_rerank's with the row's "ctxs", load_icl's, default_post_process
as load_infbench uses it for QA, load_infbench's choice post-processing), after eval.py's
prefix step. The loaders run on empty stand-in datasets: only their post_process is
used. This mode needs the real pytrec_eval (pytrec-eval-terrier) in that python.

alce: each row {"dataset": "asqa" | "qampari", "output", "groups"} is written as a
one-example results file (ASQA: qa_pairs with the groups as short_answers; QAMPARI:
the groups as answers) and scored by eval_alce.py's main with --no_rouge, as HELMET
runs it without --citations; the numbers it writes next to the file are returned.

jsonkv: HELMET's pair counts and settings per length (scripts/generate_configs.py,
configs/recall.yaml), and for each row (lctui's pairs, key, value and demonstrations)
the prompt load_json_kv builds, with the places of its parts; with "litm", also prompts
on rows rendered by lost-in-the-middle's get_kv_retrieval_prompt (the renderer HELMET's
loader cites). Prompts are returned for counting, never stored.
"""

from __future__ import annotations

import contextlib
import importlib.util
import json
import random
import re
import sys
import types
import uuid
from pathlib import Path
from typing import Any, ClassVar


def _install_stand_ins() -> None:
    torch = types.ModuleType("torch")
    torch_utils = types.ModuleType("torch.utils")
    torch_data = types.ModuleType("torch.utils.data")
    torch_data.Dataset = type("Dataset", (), {})  # type: ignore[attr-defined]
    torch.utils = torch_utils  # type: ignore[attr-defined]
    torch_utils.data = torch_data  # type: ignore[attr-defined]
    torch.Tensor = type("Tensor", (), {})  # type: ignore[attr-defined]
    datasets = types.ModuleType("datasets")
    datasets.load_dataset = lambda *a, **k: {"train": Rows([])}  # type: ignore[attr-defined]
    datasets.load_from_disk = lambda *a, **k: Rows([])  # type: ignore[attr-defined]
    datasets.Dataset = Rows  # type: ignore[attr-defined]
    for feature in ("Value", "Sequence", "Features"):
        setattr(datasets, feature, lambda *a, **k: None)
    transformers = types.ModuleType("transformers")
    transformers.AutoTokenizer = StandInTokenizer  # type: ignore[attr-defined]
    transformers.AutoModelForSeq2SeqLM = object  # type: ignore[attr-defined]
    transformers.pipeline = None  # type: ignore[attr-defined]
    for name, module in (
        ("torch", torch),
        ("torch.utils", torch_utils),
        ("torch.utils.data", torch_data),
        ("datasets", datasets),
        ("transformers", transformers),
        ("pytrec_eval", types.ModuleType("pytrec_eval")),
    ):
        sys.modules.setdefault(name, module)


class StandInTokenizer:
    """What the loaders ask of a tokenizer before their data (empty here) is touched."""

    @staticmethod
    def from_pretrained(*args: Any, **kwargs: Any) -> Any:
        return lambda text, **k: {"input_ids": text.split()}


class _Label:
    names: ClassVar[list[str]] = [f"label{i}" for i in range(200)]


class Rows:
    """The few `datasets.Dataset` methods HELMET's loaders call, over a list of dicts."""

    features: ClassVar[dict[str, Any]] = {
        "coarse_label": _Label,
        "fine_label": _Label,
        "label": _Label,
    }

    def __init__(self, rows: list[dict[str, Any]]) -> None:
        self.rows = rows

    def filter(self, fn: Any, *args: Any, **kwargs: Any) -> Rows:
        return Rows([row for row in self.rows if fn(row)])

    def map(self, fn: Any, *args: Any, **kwargs: Any) -> Rows:
        return Rows([{**row, **fn(row)} for row in self.rows])

    def shuffle(self, *args: Any, **kwargs: Any) -> Rows:
        return self

    def select(self, *args: Any, **kwargs: Any) -> Rows:
        return self

    def __len__(self) -> int:
        return len(self.rows)

    def __getitem__(self, index: int) -> dict[str, Any]:
        return self.rows[index]


def _load_helmet(helmet: Path) -> tuple[Any, Any]:
    import rouge_score.rouge_scorer  # noqa: F401  (the real one, before the torch stand-in)

    # The real one where installed (mode real needs it), else the stand-in.
    with contextlib.suppress(ImportError):
        import pytrec_eval  # noqa: F401

    _install_stand_ins()
    sys.path.insert(0, str(helmet))
    import data as helmet_data  # HELMET's data.py
    import utils as helmet_utils  # HELMET's utils.py

    return helmet_data, helmet_utils


def _json_kv_loader(helmet_data: Any, rows: list[dict[str, Any]], shots: int) -> Any:
    helmet_data.load_dataset = lambda *a, **k: {"train": Rows(rows)}
    return helmet_data.load_json_kv("rows.jsonl", shots=shots)


def score(helmet: Path, rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
    helmet_data, helmet_utils = _load_helmet(helmet)
    original_parse = helmet_utils.parse_output
    json_kv_post_process = _json_kv_loader(helmet_data, [], shots=0)["post_process"]
    results = []
    for row in rows:
        prefix = row["prefix"]
        test_item = {"answer": row["gold"]}
        if row["task"] == "json_kv":
            # The loader's closure calls data.parse_output(prediction, <HELMET's prefix>):
            # it gets lctui's prefix instead, lower-cased as HELMET writes its own.
            helmet_data.parse_output = lambda output, _prefix, p=prefix: original_parse(
                output, p.lower()
            )
            post_process = json_kv_post_process
        else:
            helmet_data.parse_output = original_parse
            post_process = helmet_data.default_post_process
        output = {"output": row["output"]}
        if not row["use_chat_template"]:
            output["output"] = prefix + output["output"]  # eval.py, before post_process
        metrics, others = post_process(output, test_item)
        results.append(
            {
                "exact_match": float(metrics["exact_match"]),
                "f1": float(metrics["f1"]),
                "substring_exact_match": float(metrics["substring_exact_match"]),
                "parsed_output": others.get("parsed_output"),
            }
        )
    helmet_data.parse_output = original_parse
    return results


class _AnySplit(dict):  # type: ignore[type-arg]
    """load_dataset's answer for the ICL and InfiniteBench loaders: every split empty."""

    def __missing__(self, key: str) -> Rows:
        return Rows([])


def _real_post_processes(helmet_data: Any) -> dict[str, Any]:
    """HELMET's post-processing per category, from its own loaders (on empty data)."""
    datasets_module = sys.modules["datasets"]
    datasets_module.load_dataset = lambda *a, **k: _AnySplit()  # type: ignore[attr-defined]
    helmet_data.load_dataset = lambda *a, **k: _AnySplit()
    icl = helmet_data.load_icl("icl_trec_coarse_6600shot_balance")
    choice = helmet_data.load_infbench("infbench_choice_eng_130862")
    qa = helmet_data.load_infbench("infbench_qa_eng_130862")
    return {"icl": icl, "mc": choice, "qa": qa}


def _rerank_loader(helmet_data: Any, row: dict[str, Any]) -> Any:
    sample = {"qid": "q", "query": "query", "ctxs": row["ctxs"]}
    helmet_data.load_dataset = lambda *a, **k: {"train": Rows([sample])}
    return helmet_data.load_msmarco_rerank("rows.jsonl", "demos.jsonl", shots=0)


def real(helmet: Path, rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
    helmet_data, _ = _load_helmet(helmet)
    loaders = _real_post_processes(helmet_data)
    results = []
    for row in rows:
        if row["kind"] == "rerank":
            loader = _rerank_loader(helmet_data, row)
            test_item = loader["data"][0]
        else:
            loader = loaders[row["kind"]]
            test_item = {"answer": row["gold"]}
        output = {"output": row["output"]}
        if not row["use_chat_template"]:
            # eval.py, before post_process: the loader's own system template in front.
            output["output"] = loader["system_template"] + output["output"]
        metrics, others = loader["post_process"](output, test_item)
        parsed = others.get("parsed_output")
        results.append(
            {
                "metrics": {k: float(v) for k, v in metrics.items()},
                "parsed_output": parsed,
            }
        )
    return results


def alce(helmet: Path, rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
    import io
    import tempfile

    _load_helmet(helmet)
    import eval_alce  # HELMET's eval_alce.py

    results = []
    with tempfile.TemporaryDirectory() as folder:
        for index, row in enumerate(rows):
            item: dict[str, Any] = {"output": row["output"], "question": "question"}
            if row["dataset"] == "asqa":
                item["qa_pairs"] = [{"short_answers": group} for group in row["groups"]]
            else:
                item["answers"] = row["groups"]
            path = Path(folder) / f"alce_{row['dataset']}_{index}.json"
            path.write_text(json.dumps({"data": [item]}))
            with contextlib.redirect_stdout(io.StringIO()):
                eval_alce.main(["--f", str(path), "--no_rouge"])
            results.append(json.loads(Path(f"{path}.score").read_text()))
    return results


def _generate_configs(helmet: Path) -> Any:
    spec = importlib.util.spec_from_file_location(
        "helmet_generate_configs", helmet / "scripts" / "generate_configs.py"
    )
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)  # definitions only: its main() is guarded
    return module


def _configs(helmet: Path) -> dict[str, Any]:
    import yaml

    recall = yaml.safe_load((helmet / "configs" / "recall.yaml").read_text())
    lengths = []
    for name, config in _generate_configs(helmet).master_mapping["json_kv"].items():
        found = re.search(r"test_k(\d+)_", config["test_files"])
        assert found is not None
        lengths.append(
            {
                "name": name,
                "input_length": config["input_length"],
                "num_kvs": int(found.group(1)),
                "generation_max_length": config["generation_max_length"],
                "test_file": config["test_files"],
            }
        )
    return {
        "lengths": lengths,
        "shots": recall["shots"],
        "use_chat_template": recall["use_chat_template"],
    }


def _prompt(helmet_data: Any, row: dict[str, Any], shots: int) -> dict[str, Any]:
    loader = _json_kv_loader(helmet_data, [row], shots)
    item = loader["data"][0]
    prompt = loader["prompt_template"].format(**item)  # no chat template: recall.yaml
    between = loader["user_template"].split("{context}", 1)[1].split("{demos}", 1)[0]
    places = {
        "context": prompt.find(row["context"]),
        "instruction": prompt.find(between.strip()),
        "question": prompt.rfind(row["question"]),
    }
    for i, (key, _value) in enumerate(row["demos"][:shots], 1):
        places[f"demo_{i}"] = prompt.find(key)
    used = sum(1 for key, _value in row["demos"] if key in prompt)
    return {
        "id": row["id"],
        "prompt": prompt,
        "context": row["context"],
        "places": places,
        "demos_used": used,
        "prefix_at_end": prompt.endswith(loader["system_template"]),
    }


def _litm_rows(litm: Path, configs: dict[str, Any], per_length: int, seed: int) -> list[Any]:
    sys.path.insert(0, str(litm / "src"))
    from lost_in_the_middle.prompting import get_kv_retrieval_prompt

    rng = random.Random(seed)
    rows = []
    for length in configs["lengths"]:
        for index in range(per_length):
            pairs: dict[str, str] = {}
            while len(pairs) < length["num_kvs"]:
                key = str(uuid.UUID(int=rng.getrandbits(128), version=4))
                pairs[key] = str(uuid.UUID(int=rng.getrandbits(128), version=4))
            records = list(pairs.items())
            key, value = rng.choice(records)
            rendered = get_kv_retrieval_prompt(records, key)
            # The object is the text from its first brace to its last one.
            context = rendered[rendered.index("{") : rendered.rindex("}") + 1]
            demos = [
                [str(uuid.UUID(int=rng.getrandbits(128), version=4)) for _ in range(2)]
                for _ in range(configs["shots"])
            ]
            rows.append(
                {
                    "id": f"litm-{length['name']}-{index}",
                    "length": length["input_length"],
                    "context": context,
                    "question": key,
                    "answer": value,
                    "demos": demos,
                    "num_kvs": length["num_kvs"],
                    "gold_index": [k for k, _ in records].index(key),
                }
            )
    return rows


def structure(helmet: Path, request: dict[str, Any]) -> dict[str, Any]:
    helmet_data, _ = _load_helmet(helmet)
    configs = _configs(helmet)
    shots = configs["shots"]
    prompts = [_prompt(helmet_data, row, shots) for row in request["rows"]]
    litm = []
    if request.get("litm"):
        rows = _litm_rows(Path(request["litm"]), configs, request["litm_per_length"], 0)
        for row in rows:
            built = _prompt(helmet_data, row, shots)
            built.update(length=row["length"], num_kvs=row["num_kvs"], gold_index=row["gold_index"])
            litm.append(built)
    return {"configs": configs, "prompts": prompts, "litm": litm}


def main(argv: list[str]) -> int:
    helmet, mode = Path(argv[1]), argv[2]
    request = json.load(sys.stdin)
    if mode == "metrics":
        result: Any = score(helmet, request["rows"])
    elif mode == "alce":
        result = alce(helmet, request["rows"])
    elif mode == "real":
        result = real(helmet, request["rows"])
    elif mode == "jsonkv":
        result = structure(helmet, request)
    else:
        raise SystemExit(f"unknown mode {mode!r}: metrics, real, alce or jsonkv")
    json.dump(result, sys.stdout, ensure_ascii=False)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
