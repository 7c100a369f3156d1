"""LIFBench's own pipeline, run by the snapshot's Python for scripts/parity/e2e_lifbench.py.

Our glue, never imported by lctui or its tests. It imports LIFBench's modules from the
snapshot at run time and runs them as they are, with these stand-ins:

- `prompts WORK SOURCES.json`: LIFBench's data/ConstructContext.py functions build its
  three meta input files from our invented material (add_key_evidence_token tags our
  prose, generate_retrived_list_text_to_limit_tokens lists our entries,
  make_duplcated_list and generate_doc_list_text_to_limit_tokens lay out our
  documents), then data/PromptGenerate.py writes WORK/data/prompts/*.json with the
  snapshot's own data/meta/tasks.json (copied to WORK/data/meta). ConstructContext
  imports `datasets` at the top and never calls it here: an empty module stands in.
- `infer WORK MODEL BASE_URL KEY`: evaluation/ApiInference.py's inference() with its
  LLMApi pointed at BASE_URL (LLMApi's module settings API_BASE and API_KEY). The
  released ApiInference.py skips every file but batch_label (`if 'batch_label' not in
  task_file: continue`, a line left from debugging); that one line is taken out of the
  source before it runs, so it infers every task file as Inference.py does. Nothing
  else of it is changed.
- `evaluate WORK MODEL`: evaluation/Evaluator.py's get_all for MODEL (its judges score
  every output and write data/scores/*.csv and data/results/*.xlsx), then its
  get_total_score_df printed and written to data/results/total_score.json. The
  judges' `eval()` of model output is ast.literal_eval (the same value for every
  Python literal; anything else fails, as eval's errors do), so no output is run as code.

nltk's sent_tokenize without the punkt download is an untrained Punkt tokenizer (the
shim e2e_lifbench.py puts on PYTHONPATH as sitecustomize).
"""

from __future__ import annotations

import ast
import json
import shutil
import sys
import types
from pathlib import Path
from typing import Any

FILTER_LINE = "if 'batch_label' not in task_file: continue"


def _snapshot_path(snapshot: Path, folder: str) -> None:
    sys.path.insert(0, str(snapshot / folder))


def build_prompts(snapshot: Path, work: Path, sources: Path) -> None:
    material = json.loads(sources.read_text(encoding="utf-8"))
    stand_in = types.ModuleType("datasets")
    stand_in.load_dataset = None  # type: ignore[attr-defined]  # never called here
    sys.modules.setdefault("datasets", stand_in)
    _snapshot_path(snapshot, "data")
    import ConstructContext as cc  # the original

    meta = work / "data" / "meta"
    meta.mkdir(parents=True, exist_ok=True)
    (work / "data" / "prompts").mkdir(parents=True, exist_ok=True)
    shutil.copy(snapshot / "data" / "meta" / "tasks.json", meta / "tasks.json")
    intervals = material["intervals"]

    onedoc: dict[str, Any] = {"info": [], "inputs": []}
    for interval in intervals:
        text = cc.truncate_text_to_target_token(material["prose"], interval * 1024)
        tagged, label = cc.add_key_evidence_token(text)
        onedoc["inputs"].append({"input_text": tagged, "label": label, "length": interval})
    listed: dict[str, Any] = {"info": material["entries"], "inputs": []}
    for interval in intervals:
        text, k = cc.generate_retrived_list_text_to_limit_tokens(
            material["entries"], interval * 1024
        )
        listed["inputs"].append({"input_text": text, "length": interval, "label": k})
    docs, groups = cc.make_duplcated_list(material["documents"], dupli_ratio=0.25, doc_num=5)
    multidoc: dict[str, Any] = {"info": {"doc_list": docs, "dupli_idxs": groups}, "inputs": []}
    for interval in intervals:
        text, k = cc.generate_doc_list_text_to_limit_tokens(docs, interval * 1024)
        multidoc["inputs"].append({"input_text": text, "length": interval, "label": k})
    for name, value in (("onedoc", onedoc), ("list", listed), ("multidoc", multidoc)):
        (meta / f"{name}_input.json").write_text(json.dumps(value, indent=2, ensure_ascii=False))

    import os

    os.chdir(work)  # PromptGenerate reads data/meta and writes data/prompts from the cwd
    import PromptGenerate  # the original

    PromptGenerate.PromptGenerator().generate_prompts()


def infer(snapshot: Path, work: Path, model: str, base_url: str, key: str) -> None:
    _snapshot_path(snapshot, "evaluation")
    import LLMApi  # the original

    LLMApi.API_BASE, LLMApi.API_KEY = base_url, key
    path = snapshot / "evaluation" / "ApiInference.py"
    source = path.read_text(encoding="utf-8")
    lines = source.split("\n")
    found = [i for i, line in enumerate(lines) if line.strip() == FILTER_LINE]
    if len(found) != 1:
        sys.exit(f"{path}: the batch_label filter line is not there once ({len(found)})")
    del lines[found[0]]
    module = types.ModuleType("ApiInference")
    module.__file__ = str(path)
    exec(compile("\n".join(lines), str(path), "exec"), module.__dict__)
    (work / "data" / "outputs").mkdir(parents=True, exist_ok=True)
    try:
        module.inference(model_name=model, benchmark_base_dir=str(work / "data"))
    except SystemExit as done:
        if done.code not in (0, None):
            raise


def evaluate(snapshot: Path, work: Path, model: str) -> None:
    _snapshot_path(snapshot, "evaluation")
    import EvaluateFunc  # the original

    EvaluateFunc.eval = ast.literal_eval  # type: ignore[attr-defined]
    import Evaluator  # the original

    data = work / "data"
    for folder in ("scores", "results"):
        (data / folder).mkdir(exist_ok=True)
    evaluator = Evaluator.Evaluator(data_dir=str(data))
    evaluator.get_all(models=[model])
    table = evaluator.get_total_score_df()
    print("LIFBench get_total_score_df:")
    print(table.to_string())
    # Its table as JSON for the report: task (and avg, wavg) -> the model's number.
    row = {str(k): float(v) for k, v in table.loc[model].items()}
    (data / "results" / "total_score.json").write_text(json.dumps(row, indent=2))


def main() -> None:
    mode, snapshot, work = sys.argv[1], Path(sys.argv[2]), Path(sys.argv[3])
    if mode == "prompts":
        build_prompts(snapshot, work, Path(sys.argv[4]))
    elif mode == "infer":
        infer(snapshot, work, *sys.argv[4:7])
    elif mode == "evaluate":
        evaluate(snapshot, work, sys.argv[4])
    else:
        sys.exit(f"unknown mode {mode!r}")


if __name__ == "__main__":
    main()
