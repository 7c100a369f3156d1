"""`lctui import helmet-results`, `ruler-results` and `longbench-results`: the results an
original harness wrote, as runs beside lctui's own (analysis/*_import.py).

Every such command prints the files or lines it could not use one per line (unwrapped,
so that they can be grepped, control characters of file names escaped), then what it
imported; a large folder reports progress on stderr every 20 files. An import lands
whole or not at all (store/importing.py).
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

from lctui.cli.db_options import common_options, resolve_db
from lctui.cli.terminal import SafeConsole, plain

if TYPE_CHECKING:  # the analysis is imported when a command runs, not at start
    from lctui.analysis.harness_import import ImportSummary

_PROGRESS_EVERY = 20


def add_parsers(kinds: Any) -> None:
    """The result importers, as kinds of `lctui import`."""
    helmet = kinds.add_parser(
        "helmet-results",
        help="a folder of the original HELMET's result files (its eval.py --output_dir)",
        description="Load HELMET's per-dataset result JSONs (and its GPT-4 judge's "
        "-gpt4eval_o.json, ALCE's .json.score) as one run per model: HELMET's per-example "
        "scores under lctui's task names and metrics, its outputs and token counts. HELMET "
        "stored no prompt: imported examples say so. Files that cannot be read are listed "
        "and skipped; importing a folder again adds nothing.",
    )
    helmet.add_argument("folder")
    _model_option(helmet, "helmet")
    common_options(helmet)
    helmet.set_defaults(handler=cmd_import_helmet)

    ruler = kinds.add_parser(
        "ruler-results",
        help="RULER's prediction folders (its benchmark root, a model's folder or a pred folder)",
        description="Load RULER's predictions (pred/{task}.jsonl or chunked "
        "{task}-{i}.jsonl, as call_api.py writes them under ROOT/MODEL/BENCHMARK/LENGTH/) "
        "as one run per model: each prompt (its answer prefix split off with the data file "
        "beside it, data/{task}/validation.jsonl), output and gold answers, scored by "
        "lctui's recall scorer under RULER's metric; each task's mean is checked against "
        "evaluate.py's summary.csv. Files and lines that cannot be read are listed and "
        "skipped; importing a folder again adds nothing.",
    )
    ruler.add_argument("folder")
    _model_option(ruler, "ruler")
    ruler.add_argument(
        "--length",
        type=_positive,
        metavar="TOKENS",
        help="the length of prediction folders whose parent is not named after it "
        "(default: the length folder's name, else the rows' longest length rounded up "
        "to a power of two)",
    )
    common_options(ruler)
    ruler.set_defaults(handler=cmd_import_ruler)

    longbench = kinds.add_parser(
        "longbench-results",
        help="LongBench v2's result files (pred.py's results/{model}[_cot|_no_context].jsonl)",
        description="Load LongBench v2's result lines as one run per model: each answer "
        "(and the reasoning of a chain of thought, as its first call) under lctui's task "
        "of its mode, with the question's domain, difficulty and length bucket, scored "
        "by lctui's LongBench scorer and checked against the file's pred and judge. The "
        "files keep no prompt (only the context's first 1,000 characters): imported "
        "examples say so. RAG files are not imported. Files and lines that cannot be read "
        "are listed and skipped; importing again adds nothing.",
    )
    longbench.add_argument("source", metavar="FILE_OR_FOLDER")
    _model_option(longbench, "longbench")
    longbench.add_argument(
        "--length",
        type=_positive,
        metavar="TOKENS",
        default=None,
        help="the tokens pred.py cut prompts to (its model2maxlen: 120000, the default; "
        "200000 for Claude)",
    )
    common_options(longbench)
    longbench.set_defaults(handler=cmd_import_longbench)


def _model_option(parser: argparse.ArgumentParser, key: str) -> None:
    parser.add_argument(
        "--model",
        metavar="NAME",
        help=f"record the results under this model name (default: {key}:<the model's name "
        "in the files>)",
    )


def _positive(text: str) -> int:
    from lctui.analysis.harness_import import MOST_TOKENS

    digits = text.strip()
    if not (digits.isascii() and digits.isdigit() and len(digits) <= 12):
        raise argparse.ArgumentTypeError(f"{plain(text[:40])!r} is not a whole number of tokens")
    value = int(digits)
    if not 0 < value <= MOST_TOKENS:
        raise argparse.ArgumentTypeError(
            f"{value} is not a positive number of tokens (at most {MOST_TOKENS:,})"
        )
    return value


def _progress(done: int, total: int, path: Path) -> None:
    if total >= _PROGRESS_EVERY and (done % _PROGRESS_EVERY == 0 or done == total):
        print(f"read {done}/{total} file(s)", file=sys.stderr, flush=True)  # no data in it


def _report(summary: ImportSummary, what: str, source: str, db: Path) -> int:
    console = SafeConsole()
    for problem in summary.problems:
        # One line per file or line, unwrapped, so that it can be grepped.
        console.print(
            f"skipped or doubtful: {plain(problem)}", markup=False, highlight=False, soft_wrap=True
        )
    console.print(
        f"Imported {summary.added} new response(s) of {len(summary.models)} model(s) "
        f"({plain(', '.join(summary.models)) or 'none'}) from {summary.imported} of "
        f"{summary.files} {what} in {plain(source)} into {plain(db)}",
        markup=False,
        highlight=False,
        soft_wrap=True,
    )
    return 0


def cmd_import_helmet(args: argparse.Namespace) -> int:
    from lctui.analysis.helmet_import import import_helmet_results
    from lctui.store import open_store

    db = resolve_db(args).path
    with open_store(db) as store:
        summary = import_helmet_results(store, args.folder, model=args.model, progress=_progress)
    return _report(summary, "HELMET result file(s)", args.folder, db)


def cmd_import_ruler(args: argparse.Namespace) -> int:
    from lctui.analysis.ruler_import import import_ruler_results
    from lctui.store import open_store

    db = resolve_db(args).path
    with open_store(db) as store:
        summary = import_ruler_results(
            store, args.folder, model=args.model, length=args.length, progress=_progress
        )
    return _report(summary, "RULER prediction file(s)", args.folder, db)


def cmd_import_longbench(args: argparse.Namespace) -> int:
    from lctui.analysis.longbench_import import DEFAULT_LENGTH, import_longbench_results
    from lctui.store import open_store

    db = resolve_db(args).path
    with open_store(db) as store:
        summary = import_longbench_results(
            store,
            args.source,
            model=args.model,
            length=args.length or DEFAULT_LENGTH,
            progress=_progress,
        )
    return _report(summary, "LongBench v2 result file(s)", args.source, db)
