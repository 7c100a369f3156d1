"""The importers and `lctui data check` against the broken files of fuzz_files.py: what
each case must satisfy, counted for tests/analysis/test_import_fuzz.py and
bench/fuzz_importers.py.

Every case runs on a real DuckDB file that already holds the clean import. An import
either refuses with an error a user can act on (LctuiError) and leaves the file as it
was, or imports, adding exactly the generations it says and leaving no run `running`.
Any other exception is an internal error. No message (problem line or error) may
quote the file a link outside led to, nor hold a raw control character.
`data check` reads each broken file through the tasks that read it: only LctuiError
may escape, with the same rule on what its problems say.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import traceback
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from helpers.data_folder import write_data_folder
from helpers.fuzz_files import SHADOW_MARK, Breaker, Case
from helpers.harness_results import LONGBENCH_RESULTS, RULER_LLAMA, RULER_RESULTS
from helpers.helmet_data import HELMET_FIXTURES
from helpers.lifbench_data import write_csv
from lctui.analysis.harness_import import ImportSummary
from lctui.core.errors import LctuiError
from lctui.store import Store, open_store
from lctui.store.transfer import export_parquet, import_parquet
from lctui.suites.helmet.importer import import_helmet_results
from lctui.suites.lifbench.importer import import_lifbench_scores
from lctui.suites.longbench.importer import import_longbench_results
from lctui.suites.ruler.importer import import_ruler_results

HELMET_FILES = ("kilt_nq_v1_test_in8192", "msmarco_rerank", "narrativeqa", "alce_asqa")
RULER_TASKS = ("niah_single_1", "niah_multivalue", "cwe", "fwe", "qa_1", "vt")
_COUNTED = ("generations", "scores", "rubric_points", "examples", "runs", "models")
_CONTROLS = frozenset(chr(c) for c in (*range(0x20), 0x7F)) - {"\n"}


@dataclass
class Tally:
    """What the cases of one target gave."""

    target: str
    cases: int = 0
    imported: int = 0  # imports that went through
    reported: int = 0  # of them, those that named a problem the clean files do not have
    refused: int = 0  # clean errors a user can act on
    internal: list[str] = field(default_factory=list)  # exceptions of any other kind
    partial: list[str] = field(default_factory=list)  # writes that broke the all-or-nothing
    leaks: list[str] = field(default_factory=list)  # messages quoting the outside file

    @property
    def failures(self) -> list[str]:
        return [*self.internal, *self.partial, *self.leaks]

    def line(self) -> str:
        return (
            f"{self.target}: {self.cases} cases, {self.imported} imported ({self.reported} "
            f"naming problems), {self.refused} refused, {len(self.internal)} internal errors, "
            f"{len(self.partial)} partial imports, {len(self.leaks)} leaks"
        )


Run = Callable[[Store, Path], Any]  # the import; its ImportSummary, or generations added


@dataclass(frozen=True)
class Target:
    name: str
    build: Callable[[Path], Path]  # writes the clean folder; the folder imported
    run: Run


def _copy_helmet(folder: Path) -> Path:
    model = folder / "Llama-3.1-8B-Instruct"
    model.mkdir(parents=True)
    for path in sorted((HELMET_FIXTURES / "results").rglob("*.json*")):
        if path.name.startswith(HELMET_FILES) and "Llama" in str(path.parent):
            shutil.copy(path, model / path.name)
    return folder


def _copy_ruler(folder: Path) -> Path:
    source = RULER_RESULTS / RULER_LLAMA / "synthetic" / "1024"
    target = folder / RULER_LLAMA / "synthetic" / "1024"
    (target / "pred").mkdir(parents=True)
    for task in RULER_TASKS:
        shutil.copy(source / "pred" / f"{task}.jsonl", target / "pred")
        (target / "data" / task).mkdir(parents=True)
        shutil.copy(source / "data" / task / "validation.jsonl", target / "data" / task)
    shutil.copy(source / "pred" / "summary.csv", target / "pred")
    return folder


def _copy_longbench(folder: Path) -> Path:
    folder.mkdir(parents=True)
    for path in sorted(LONGBENCH_RESULTS.glob("Qwen*.jsonl")):
        shutil.copy(path, folder)
    return folder


QA_HEADER = ("model", "ins_id", "param_id", "length", "correct", "format", "total_score")
OFFSET_HEADER = ("model", "ins_id", "param_id", "length", "format", "correct", "ori", "total_score")


def _write_lifbench(folder: Path) -> Path:
    folder.mkdir(parents=True)
    qa = [
        (m, i, p, n, 1.0, 0.0, 0.6)
        for m in ("m", "k")
        for i in (0, 1)
        for p in (0, 1)
        for n in (3, 6)
    ]
    write_csv(folder / "onedoc-qa.csv", QA_HEADER, qa)
    offset = [(m, 0, p, 3, 1, 1, 0, 0.75) for m in ("m", "k") for p in (0, 1, 2)]
    write_csv(folder / "list-offset_query_id.csv", OFFSET_HEADER, offset)
    return folder


def _export_runs(folder: Path) -> Path:
    """A folder of `lctui export`: the LongBench fixtures' runs as Parquet."""
    with open_store(folder.parent / "export.duckdb") as store:
        import_longbench_results(store, LONGBENCH_RESULTS)
        export_parquet(store, folder)
    return folder


TARGETS: dict[str, Target] = {
    target.name: target
    for target in (
        Target("helmet-results", _copy_helmet, import_helmet_results),
        Target("ruler-results", _copy_ruler, import_ruler_results),
        Target("longbench-results", _copy_longbench, import_longbench_results),
        Target("lifbench-scores", _write_lifbench, import_lifbench_scores),
        Target("runs", _export_runs, import_parquet),
    )
}


def _count(cur: Any, sql: str) -> Any:
    row = cur.execute(sql).fetchone()
    return row[0] if row else None


def _counts(store: Store) -> dict[str, Any]:
    """What a refused or undone import must leave as it was: the rows, the runs' states,
    the latest flags and the results pivot."""
    cur = store.cursor()
    try:
        counts = {t: _count(cur, f"SELECT count(*) FROM {t}") for t in _COUNTED}
        counts["running"] = _count(cur, "SELECT count(*) FROM runs WHERE status = 'running'")
        counts["run states"] = _count(
            cur, "SELECT string_agg(run_id || status, ',' ORDER BY run_id) FROM runs"
        )
        counts["latest"] = _count(cur, "SELECT count(*) FROM generations WHERE latest")
        counts["cells"] = _count(cur, "SELECT (sum(n), round(sum(total), 6)) FROM result_cells")
    finally:
        cur.close()
    return counts


def _raised_at(exc: BaseException) -> str:
    frames = traceback.extract_tb(exc.__traceback__)
    mine = [f for f in frames if "/lctui/" in f.filename] or frames
    last = mine[-1]
    return f"{Path(last.filename).name}:{last.lineno}"


def _messages(result: Any) -> list[str]:
    return list(result.problems) if isinstance(result, ImportSummary) else []


def _check_texts(tally: Tally, case: Case, texts: Iterable[str]) -> None:
    for text in texts:
        if SHADOW_MARK in text or _CONTROLS & set(text):
            tally.leaks.append(f"{case}: {text[:300]!r}")


def import_case(
    tally: Tally, store: Store, run: Run, folder: Path, case: Case, clean: frozenset[str]
) -> None:
    """Import the broken folder of `case` and check what it did (`clean`: the problems
    the unbroken folder has)."""
    tally.cases += 1
    before = _counts(store)
    try:
        result = run(store, folder)
    except LctuiError as err:
        tally.refused += 1
        _check_texts(tally, case, [str(err)])
        if _counts(store) != before:
            tally.partial.append(f"{case}: refused ({err}), but the file changed")
        return
    except Exception as exc:  # what the fuzz is for: any other exception is a bug
        where = _raised_at(exc)
        tally.internal.append(f"{case}: {type(exc).__name__}: {str(exc)[:200]} at {where}")
        with contextlib.suppress(Exception):
            store.flush(force=True)  # what a crashed import left buffered, as closing would
        if _counts(store) != before:
            tally.partial.append(f"{case}: crashed, and the file changed")
        return
    tally.imported += 1
    _check_texts(tally, case, _messages(result))
    tally.reported += not set(_messages(result)) <= clean
    after = _counts(store)
    added = result if isinstance(result, int) else result.added
    if after["running"]:
        tally.partial.append(f"{case}: imported, but {after['running']} run(s) left running")
    if after["generations"] - before["generations"] != added:
        tally.partial.append(
            f"{case}: said {added} added, wrote {after['generations'] - before['generations']}"
        )


def fuzz_importer(name: str, cases: int, seed: int, work: Path, first: int = 0) -> Tally:
    """`cases` broken copies of the target's folder imported: the even cases into one
    file that holds the clean import (the import adds only what the case changed), the
    odd ones into an empty file (where everything is new, so that a crash part way
    would leave rows behind)."""
    target = TARGETS[name]
    folder = target.build(work / name / "files")
    breaker = Breaker(folder, work / name / "outside")
    files = breaker.files()
    tally = Tally(name)
    empty, fresh = work / name / "empty.duckdb", work / name / "fresh.duckdb"
    with open_store(empty):
        pass
    with open_store(work / name / "runs.duckdb") as store:
        clean = frozenset(_messages(target.run(store, folder)))
        for number in range(first, first + cases):
            case = breaker.case(number, seed, files)
            try:
                if number % 2 == 0:
                    import_case(tally, store, target.run, folder, case, clean)
                    continue
                shutil.copy(empty, fresh)
                with open_store(fresh) as other:
                    import_case(tally, other, target.run, folder, case, clean)
            finally:
                breaker.restore()
    return tally


# -- lctui data check ----------------------------------------------------------------------

_CACHES = ("_LOADED", "_SETS", "_PARSED", "_CACHE", "_WALKS", "_TOTALS", "_MEAN_TOKENS")


def forget_loaded_files() -> None:
    """Drop what the dataset loaders keep of the files they read (per path and time),
    so a long fuzz does not keep every broken copy."""
    import sys

    for name, module in list(sys.modules.items()):
        if name.startswith("lctui.tasks"):
            for cache in _CACHES:
                kept = getattr(module, cache, None)
                if isinstance(kept, dict):
                    kept.clear()


def fuzz_data_check(cases: int, seed: int, work: Path, lengths: Sequence[int] = (8192,)) -> Tally:
    """`cases` broken copies of the data folder, each read by the tasks that read the
    files it broke, as `lctui data check` reads them."""
    from lctui.cli.data_option import tasks_by_name
    from lctui.tasks.data_status import check_task
    from lctui.tasks.datasets import parse_source

    folder = write_data_folder(work / "data" / "files")
    breaker = Breaker(folder, work / "data" / "outside")
    tasks = tasks_by_name(parse_source(str(folder)))
    readers: dict[Path, list[str]] = {}
    for name, task in sorted(tasks.items()):
        if task.unavailable() is None:
            for path in task.data_files():
                readers.setdefault(path.resolve(), []).append(name)
    files = [p for p in breaker.files() if p.resolve() in readers]
    # Looked up by the path as it was: a case may turn a file into a link.
    readers = {p: readers[p.resolve()] for p in files}
    tally = Tally("data check")
    stamp = 1_000_000_000_000_000_000
    for number in range(cases):
        case = breaker.case(number, seed, files)
        tally.cases += 1
        try:
            for path in case.paths:
                if path.exists():
                    # A new modification time: the loaders keep files per path and time.
                    os.utime(path, ns=(stamp + number, stamp + number), follow_symlinks=False)
            names = sorted({n for p in case.paths for n in readers[p]})
            reported = False
            for name in names:
                try:
                    check = check_task(tasks[name], lengths)
                except LctuiError as err:
                    _check_texts(tally, case, [str(err)])
                    continue
                except Exception as exc:
                    tally.internal.append(
                        f"{case}: {name}: {type(exc).__name__}: {str(exc)[:200]} at "
                        f"{_raised_at(exc)}"
                    )
                    continue
                texts = [str(p) for p in check.problems] + [check.error or "", check.missing or ""]
                reported |= check.malformed or check.missing is not None
                _check_texts(tally, case, texts)
            tally.imported += 1
            tally.reported += reported
        finally:
            breaker.restore()
            forget_loaded_files()
    return tally
