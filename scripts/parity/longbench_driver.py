"""Run THUDM/LongBench's own LongBench v2 code (pred.py, result.py) on inputs lctui wrote;
JSON in on stdin, JSON out.

Glue for the parity fixtures (tests/parity/longbench_*.jsonl), run by hand, never in CI,
under the python of a venv with tiktoken (scripts/parity/longbench_metrics.py and
longbench_structure.py start it). It imports pred.py from the LongBench checkout given
as the first argument (working in that folder, since pred.py reads its prompts and
configs by relative path at import) and contains none of its code: the modules pred.py
imports but never calls for an API model (datasets, transformers, torch, tqdm) are inert
stand-ins, and `openai.OpenAI` is a stand-in client that answers from the request and
records each call instead of reaching a server.

    python longbench_driver.py LONGBENCH_DIR answers   < {"items": [...]}
    python longbench_driver.py LONGBENCH_DIR results   < {"sets": {NAME: [...]}}
    python longbench_driver.py LONGBENCH_DIR truncate  < {"texts": [...], "cases": [...]}
    python longbench_driver.py LONGBENCH_DIR templates < {"item": {...}, "reasoning": str}

answers: the items (pred.py's fields plus "output": what the stand-in model replies)
go through pred.py's get_pred in the direct mode with an API model; returned per item:
whether get_pred wrote its result line, and the line's response, pred and judge.

results: each set's items go through get_pred into results/NAME.jsonl of a folder of
its own, then result.py runs there as the original runs it, and again as a scratch copy
with its `compensated` flag set to True; returned per set: the lines written and both
runs' numbers (Overall, Easy, Hard, Short, Medium, Long) or the error a run ended with.

truncate: each case {"text" (an index into texts), "encoding", "max_len"} goes through
pred.py's query_llm
for an API model whose max_len is the case's, with tiktoken's `encoding`; returned per
case: the number of tokens of the text, whether the prompt sent differs from the text,
the first and last tokens kept, and the sha256 of the prompt sent (no text).

templates: get_pred in each mode (direct, cot, no_context) on one item whose fields are
markers; returned per mode and call: the order in which the markers appear in the
prompt sent, the line each choice marker starts with, the lines around the document
marker, whether the prompt names the answer sentence, the call's temperature and
max_tokens, and the keys of the result line written. No prompt text is returned.
"""

from __future__ import annotations

import hashlib
import json
import os
import subprocess
import sys
import tempfile
import types
from collections.abc import Callable
from pathlib import Path
from typing import Any, ClassVar

API_MODEL = "gpt-4o-2024-08-06"  # pred.py tokenises with tiktoken for "gpt" models
PROBE_MODEL = "gpt-parity-probe"  # a max_len of our choosing for query_llm's cut
ANSWER_SENTENCE = "The correct answer is ("  # what the original's reader looks for
COLUMNS = ("Overall", "Easy", "Hard", "Short", "Medium", "Long")


class StandInClient:
    """`openai.OpenAI` for pred.py: answers each chat request with `reply(prompt,
    max_tokens)` and records the request."""

    reply: ClassVar[Callable[[str, int], str]] = staticmethod(lambda prompt, max_tokens: "")
    calls: ClassVar[list[dict[str, Any]]] = []

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        completions = types.SimpleNamespace(create=self._create)
        self.chat = types.SimpleNamespace(completions=completions)

    def _create(self, model: str, messages: list[dict[str, str]], **kwargs: Any) -> Any:
        prompt = messages[0]["content"]
        StandInClient.calls.append({"model": model, "prompt": prompt, **kwargs})
        text = StandInClient.reply(prompt, int(kwargs["max_tokens"]))
        message = types.SimpleNamespace(content=text)
        return types.SimpleNamespace(choices=[types.SimpleNamespace(message=message)])


def _install_stand_ins() -> None:
    datasets = types.ModuleType("datasets")
    datasets.load_dataset = lambda *a, **k: []  # type: ignore[attr-defined]
    openai = types.ModuleType("openai")
    openai.OpenAI = StandInClient  # type: ignore[attr-defined]
    transformers = types.ModuleType("transformers")
    transformers.AutoTokenizer = object  # type: ignore[attr-defined]
    torch = types.ModuleType("torch")
    torch_mp = types.ModuleType("torch.multiprocessing")
    torch.multiprocessing = torch_mp  # type: ignore[attr-defined]
    tqdm = types.ModuleType("tqdm")
    tqdm.tqdm = lambda items, *a, **k: items  # type: ignore[attr-defined]
    for name, module in (
        ("datasets", datasets),
        ("openai", openai),
        ("transformers", transformers),
        ("torch", torch),
        ("torch.multiprocessing", torch_mp),
        ("tqdm", tqdm),
    ):
        sys.modules[name] = module


def import_pred(longbench: Path) -> Any:
    """pred.py of the checkout `longbench`, imported in that folder with the stand-ins."""
    _install_stand_ins()
    os.chdir(longbench)
    sys.path.insert(0, str(longbench))
    import pred  # LongBench's pred.py

    return pred


def _args(cot: bool = False, no_context: bool = False) -> Any:
    return types.SimpleNamespace(model=API_MODEL, cot=cot, no_context=no_context, rag=0)


def _item(row: dict[str, Any]) -> dict[str, Any]:
    """The fields pred.py's main keeps of a dataset row."""
    keys = ("_id", "domain", "sub_domain", "difficulty", "length", "question")
    return {
        **{k: row[k] for k in keys},
        **{f"choice_{x}": row[f"choice_{x}"] for x in "ABCD"},
        "answer": row["answer"],
        "context": row["context"],
    }


def _replying_by_question(items: list[dict[str, Any]]) -> Callable[[str, int], str]:
    """A reply function that answers each item's prompt with the item's "output" (each
    question appears in its own prompt only)."""
    outputs = [(item["question"].strip(), item["output"]) for item in items]

    def reply(prompt: str, max_tokens: int) -> str:
        found = [output for question, output in outputs if question in prompt]
        if len(found) != 1:
            raise SystemExit(f"{len(found)} items match a prompt: questions must be unique")
        return str(found[0])

    return reply


def _predict(pred: Any, items: list[dict[str, Any]], path: Path) -> list[dict[str, Any]]:
    """get_pred's result lines for `items` in the direct mode, written to `path`."""
    StandInClient.reply = staticmethod(_replying_by_question(items))
    with path.open("w", encoding="utf-8") as fout:
        pred.get_pred([_item(row) for row in items], _args(), fout)
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]


def answers(pred: Any, request: dict[str, Any]) -> list[dict[str, Any]]:
    with tempfile.TemporaryDirectory() as tmp:
        written = {
            line["_id"]: line for line in _predict(pred, request["items"], Path(tmp) / "a.jsonl")
        }
    out = []
    for item in request["items"]:
        line = written.get(item["_id"])
        out.append(
            {"_id": item["_id"], "written": line is not None}
            if line is None
            else {
                "_id": item["_id"],
                "written": True,
                "response": line["response"],
                "pred": line["pred"],
                "judge": line["judge"],
            }
        )
    return out


def _result_numbers(folder: Path, script: Path) -> dict[str, Any]:
    done = subprocess.run(
        [sys.executable, str(script)], cwd=folder, capture_output=True, text=True, check=False
    )
    if done.returncode != 0:
        last = done.stderr.strip().splitlines()[-1]
        return {"error": last.split(":")[0]}
    lines = (folder / "result.txt").read_text(encoding="utf-8").splitlines()
    if lines[0].split("\t")[1:] != list(COLUMNS) or len(lines) != 2:
        raise SystemExit(f"result.py wrote an unexpected table: {lines}")
    return dict(zip(COLUMNS, map(float, lines[1].split("\t")[1:]), strict=True))


def results(pred: Any, longbench: Path, request: dict[str, Any]) -> dict[str, Any]:
    source = (longbench / "result.py").read_text(encoding="utf-8")
    flag = "compensated = False"
    if source.count(flag) != 1:
        raise SystemExit(f"result.py does not set `{flag}` exactly once")
    out = {}
    for name, items in request["sets"].items():
        with tempfile.TemporaryDirectory() as tmp:
            folder = Path(tmp)
            (folder / "results").mkdir()
            lines = _predict(pred, items, folder / "results" / f"{name}.jsonl")
            (folder / "result.py").write_text(source, encoding="utf-8")
            (folder / "result_compensated.py").write_text(
                source.replace(flag, "compensated = True"), encoding="utf-8"
            )
            out[name] = {
                "lines": [{k: line[k] for k in ("_id", "pred", "judge")} for line in lines],
                "plain": _result_numbers(folder, folder / "result.py"),
                "compensated": _result_numbers(folder, folder / "result_compensated.py"),
            }
    return out


class _Recording:
    """A tiktoken encoding that remembers the ids query_llm encodes and decodes."""

    def __init__(self, encoding: Any) -> None:
        self.encoding = encoding
        self.encoded: list[int] = []
        self.decoded: list[int] | None = None

    def encode(self, text: str, **kwargs: Any) -> list[int]:
        self.encoded = self.encoding.encode(text, **kwargs)
        return list(self.encoded)

    def decode(self, ids: list[int], **kwargs: Any) -> str:
        self.decoded = list(ids)
        return str(self.encoding.decode(ids, **kwargs))


def _split(encoded: list[int], kept: list[int]) -> tuple[int, int]:
    """(head, tail): `kept` is the first `head` and the last `tail` of `encoded`. When
    several splits fit (the token after the head equals the tail's first), the one
    nearest halves, the head the smaller."""
    prefix = next(
        (i for i, (a, b) in enumerate(zip(kept, encoded, strict=False)) if a != b), len(kept)
    )
    pairs = zip(reversed(kept), reversed(encoded), strict=False)
    suffix = next((i for i, (a, b) in enumerate(pairs) if a != b), len(kept))
    low, high = max(0, len(kept) - suffix), min(prefix, len(kept))
    if low > high:
        raise SystemExit("the prompt sent is not a head and a tail of the text's tokens")
    head = min(max(len(kept) // 2, low), high)
    return head, len(kept) - head


def truncate(pred: Any, request: dict[str, Any]) -> list[dict[str, Any]]:
    import tiktoken

    out = []
    for case in request["cases"]:
        text = request["texts"][case["text"]]
        pred.maxlen_map[PROBE_MODEL] = case["max_len"]
        tokenizer = _Recording(tiktoken.get_encoding(case["encoding"]))
        StandInClient.calls.clear()
        StandInClient.reply = staticmethod(lambda prompt, max_tokens: "reply")
        pred.query_llm(text, PROBE_MODEL, tokenizer, StandInClient(), 0.1, 128)
        sent = StandInClient.calls[-1]["prompt"]
        cut = tokenizer.decoded is not None
        head, tail = _split(tokenizer.encoded, tokenizer.decoded) if cut else (0, 0)
        out.append(
            {
                "tokens": len(tokenizer.encoded),
                "cut": cut,
                "sent_differs": sent != text,
                "head_tokens": head,
                "tail_tokens": tail,
                "sent_sha256": hashlib.sha256(sent.encode("utf-8")).hexdigest(),
            }
        )
    return out


def _structure(prompt: str, markers: dict[str, str]) -> dict[str, Any]:
    found = sorted((prompt.index(m), name) for name, m in markers.items() if m in prompt)
    lines = prompt.split("\n")
    doc_line = next((i for i, line in enumerate(lines) if markers["document"] in line), None)
    return {
        "order": [name for _, name in found],
        "choice_line_starts": {
            name: line[: line.index(m)]
            for name, m in markers.items()
            if name.startswith("choice_")
            for line in lines
            if m in line
        },
        "document_between": None
        if doc_line is None
        else [lines[doc_line - 1], lines[doc_line + 1]],
        "asks_answer_sentence": ANSWER_SENTENCE in prompt,
        "markers_each_once": all(prompt.count(m) <= 1 for m in markers.values()),
    }


def templates(pred: Any, request: dict[str, Any]) -> dict[str, Any]:
    item, reasoning = request["item"], request["reasoning"]
    markers = {
        "document": item["context"],
        "question": item["question"],
        **{f"choice_{x}": item[f"choice_{x}"] for x in "ABCD"},
        "reasoning": reasoning,
    }
    out = {}
    for mode, args in (
        ("direct", _args()),
        ("cot", _args(cot=True)),
        ("no_context", _args(no_context=True)),
    ):
        StandInClient.calls.clear()
        # The reasoning call (1,024 tokens in the original) gets the reasoning marker.
        StandInClient.reply = staticmethod(
            lambda prompt, max_tokens: (
                reasoning if max_tokens > 128 else "The correct answer is (A)"
            )
        )
        with tempfile.TemporaryDirectory() as tmp:
            path = Path(tmp) / "out.jsonl"
            with path.open("w", encoding="utf-8") as fout:
                pred.get_pred([_item(item)], args, fout)
            line = json.loads(path.read_text(encoding="utf-8"))
        out[mode] = {
            "calls": [
                {
                    **_structure(call["prompt"], markers),
                    "temperature": call["temperature"],
                    "max_tokens": call["max_tokens"],
                }
                for call in StandInClient.calls
            ],
            "result_keys": sorted(line),
        }
    return out


def main() -> None:
    longbench, mode = Path(sys.argv[1]).resolve(), sys.argv[2]
    request = json.load(sys.stdin)
    pred = import_pred(longbench)
    if mode == "answers":
        result: Any = answers(pred, request)
    elif mode == "results":
        result = results(pred, longbench, request)
    elif mode == "truncate":
        result = truncate(pred, request)
    elif mode == "templates":
        result = templates(pred, request)
    else:
        raise SystemExit(f"unknown mode {mode!r}")
    json.dump(result, sys.stdout)


if __name__ == "__main__":
    main()
