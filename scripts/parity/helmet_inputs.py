"""Regenerate tests/parity/helmet_inputs_prompts.jsonl: the prompts HELMET's own
load_data makes of the invented checkout's release files (tests/helpers/helmet_inputs.py),
per config entry and row, as SHA-256 and length, for the helmet inputs kind's test.

Run by hand from the repository root with lctui's python, never in CI:

    PYTHONPATH=src python scripts/parity/helmet_inputs.py \
        --helmet PATH/TO/HELMET --python PATH/TO/originals-venv/bin/python

HELMET's loaders run in its venv (helmet_inputs_driver.py) with their template
sentences swapped for the invented checkout's (read from both data.py files with
lctui's own reader here, at run time: HELMET's never enter this repository), so the
items (rows drawn, demonstrations, documents, cuts, order) are HELMET's code's and the
sentences ours, as lctui reads them from the invented data.py with `ast`.
"""

from __future__ import annotations

import sys
import tempfile
from pathlib import Path

from helmet_common import ROOT, parity_parser, run_driver, snapshot_commit, write_fixture

sys.path.insert(0, str(ROOT / "tests"))  # the invented checkout (tests/helpers)

from helpers.helmet_inputs import BOOKS_REPO, PARITY_CONFIGS, write_checkout
from helpers.tiny_hf import make_char_tokenizer
from lctui.tasks.inputs.helmet_configs import read_configs
from lctui.tasks.inputs.helmet_fstrings import FString
from lctui.tasks.inputs.helmet_items import family_of
from lctui.tasks.inputs.helmet_templates import (
    DATA_MODULE,
    LoaderTemplates,
    loader_templates,
    text_default,
)

DRIVER = Path(__file__).resolve().parent / "helmet_inputs_driver.py"


def _parts(value: object) -> list[str]:
    """The texts of a template: itself, or an f-string's literal parts."""
    if isinstance(value, str):
        return [value]
    if isinstance(value, FString):
        return [part for part in value.parts if isinstance(part, str)]
    return []


def _pairs(theirs: LoaderTemplates, ours: LoaderTemplates) -> list[tuple[str, str]]:
    pairs: list[tuple[str, str]] = []
    for name, value in ours.values.items():
        if name != "prompt_template":  # made of the others, no constant
            pairs += zip(_parts(theirs.values.get(name)), _parts(value), strict=True)
    for name, joined in ours.joined.items():
        pairs += zip(_parts(theirs.joined[name].item), _parts(joined.item), strict=True)
    for key, fstring in ours.returned.items():
        pairs += zip(_parts(theirs.returned[key]), _parts(fstring), strict=True)
    return pairs


def replacements(helmet: Path, root: Path, datasets: list[str]) -> dict[str, str]:
    """HELMET's sentences (read from the snapshot at run time, never stored) paired with
    the invented checkout's, per loader the entries run."""
    swap: dict[str, str] = {}
    pairs: list[tuple[str, str]] = [
        (
            text_default(where / DATA_MODULE, "truncate_llama2", "postfix_text"),
            text_default(root / DATA_MODULE, "truncate_llama2", "postfix_text"),
        )
        for where in (helmet,)
    ]
    for dataset in datasets:
        family = family_of(dataset)
        assert family is not None
        pairs += _pairs(
            loader_templates(helmet, family.loader, dataset),
            loader_templates(root, family.loader, dataset),
        )
    for theirs, ours in pairs:
        if theirs == ours:
            continue
        if swap.setdefault(theirs, ours) != ours:
            raise SystemExit("one of HELMET's sentences pairs with two invented ones")
    return swap


def hub_files(hub: Path) -> dict[str, dict[str, str]]:
    """The invented hub repositories' files per split, by the name HELMET loads them by."""
    books = hub / BOOKS_REPO
    files = {BOOKS_REPO: {p.stem: str(p) for p in sorted(books.glob("*.jsonl"))}}
    for name, repo in (
        ("CogComp/trec", "CogComp/trec"),
        ("PolyAI/banking77", "PolyAI/banking77"),
        ("xingkunliuxtracta/nlu_evaluation_data", "xingkunliuxtracta/nlu_evaluation_data"),
    ):
        splits = sorted((hub / repo / "default").glob("*/0000.parquet"))
        files[name] = {p.parent.name: str(p) for p in splits}
    clinc = sorted((hub / "clinc/clinc_oos/plus").glob("*.parquet"))
    files["clinc_oos"] = {p.name.split("-")[0]: str(p) for p in clinc}
    return files


def main() -> None:
    parser = parity_parser(__doc__, "helmet_inputs_prompts.jsonl")
    args = parser.parse_args()
    commit = snapshot_commit(args.helmet, args.commit)
    with tempfile.TemporaryDirectory() as folder:
        root = write_checkout(Path(folder) / "HELMET", PARITY_CONFIGS)
        tokenizer = Path(folder) / "tokenizer"
        make_char_tokenizer().save_pretrained(tokenizer)
        entries, problems = read_configs(root, [])
        if problems:
            raise SystemExit("\n".join(problems))
        cases = [
            {
                "dataset": entry.dataset,
                "test": entry.test_file,
                "demo": entry.demo_file,
                "shots": entry.shots,
                "seed": entry.seed,
                "max_test_samples": entry.max_test_samples,
            }
            for entry in entries
        ]
        request = {
            "checkout": str(root),
            "replace": sorted(
                replacements(args.helmet, root, [e.dataset for e in entries]).items()
            ),
            "tokenizer": str(tokenizer),
            "hub": hub_files(root / "hub"),
            "cases": cases,
        }
        found = run_driver(args.python, args.helmet, "", request, DRIVER)
    rows = []
    for entry, case in zip(entries, found, strict=True):
        for index, row in enumerate(case["rows"]):
            rows.append(
                {
                    "config": entry.config,
                    "dataset": entry.dataset,
                    "length": entry.input_max_length,
                    "index": index,
                    "joiner": case["joiner"],
                    "user": row["user"],
                    "prompt": row["prompt"],
                }
            )
    notes = (
        "HELMET's load_data (data.py) on the invented checkout of tests/helpers/helmet_inputs.py "
        "(PARITY_CONFIGS: its files, InfiniteBench's as a hub repository read by the hub's "
        "JSON builder), its template sentences swapped for the invented ones, Llama-2's "
        "tokenizer stood in for by helpers/tiny_hf.make_char_tokenizer, random seeded just "
        "before as eval.py does; per row the SHA-256 and length of the user text and of the "
        "prompt template filled"
    )
    write_fixture(args.out, commit, notes, rows)


if __name__ == "__main__":
    main()
