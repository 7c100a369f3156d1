"""LongBench v2: its tasks and dataset (tasks/), its scorer (scoring.py), its report
(accuracy per model, mode and length, as its result script; report.py), what the
inspector adds for its questions (view.py) and the import of pred.py's result files
(importer.py).

Declared here without importing any of them: they load when first used."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from lctui.core.suites import (
    ExampleView,
    Importer,
    ImportOption,
    Suite,
    SuiteReport,
    SuiteScorer,
    register,
)

SCORER = "longbench"


def _report(src: Any, models: Sequence[str] | None, run_id: str | None) -> SuiteReport | None:
    from lctui.suites.longbench.report import report

    return report(src, models, run_id)


def _import(
    store: Any, source: str, model: str | None, options: Mapping[str, Any], progress: Any
) -> Any:
    from lctui.suites.longbench.importer import DEFAULT_LENGTH, import_longbench_results

    length = options.get("length") or DEFAULT_LENGTH
    return import_longbench_results(store, source, model=model, length=length, progress=progress)


def _tasks() -> Sequence[Any]:
    from lctui.suites.longbench.tasks import longbench_tasks

    return longbench_tasks()


def _datasets() -> Sequence[Any]:
    from lctui.suites.longbench.tasks.catalog import DATASETS

    return DATASETS


def _scorer() -> Any:
    from lctui.suites.longbench.scoring import score_longbench

    return score_longbench


def _facts(metadata: Mapping[str, Any], short: bool) -> str:
    from lctui.suites.longbench.view import example_facts

    return example_facts(metadata, short)


def _answer_span(output: str) -> tuple[int, int] | None:
    from lctui.suites.longbench.view import answer_span

    return answer_span(output)


SUITE = register(
    Suite(
        name="longbench",
        title="LongBench v2 accuracy (%)",
        about="LongBench v2's accuracy per model, mode and length: overall (and "
        "compensated: an answer naming no option counts 0.25), easy/hard, "
        "short/medium/long and per domain, in percent as the original's result script.",
        report=_report,
        empty="{db} holds no LongBench v2 scores{wanted}; run some with `lctui run --tasks "
        "longbench --data DIR --db PATH` or import the original's results with "
        "`lctui import longbench-results FILE`",
        tasks=_tasks,
        # longbench 1: LongBench v2's answer reading and accuracy (scoring.py).
        scorers=(SuiteScorer(SCORER, 1, _scorer),),
        datasets=_datasets,
        example_view=ExampleView(_facts, _answer_span),
        importers=(
            Importer(
                kind="longbench-results",
                help="LongBench v2's result files (pred.py's "
                "results/{model}[_cot|_no_context].jsonl)",
                description="Load LongBench v2's result lines as one run per model: each "
                "answer (and the reasoning of a chain of thought, as its first call) under "
                "lctui's task of its mode, with the question's domain, difficulty and length "
                "bucket, scored by lctui's LongBench scorer and checked against the file's "
                "pred and judge. The files keep no prompt (only the context's first 1,000 "
                "characters): imported examples say so. RAG files are not imported. Files "
                "and lines that cannot be read are listed and skipped; importing again adds "
                "nothing.",
                source="FILE_OR_FOLDER",
                what="LongBench v2 result file(s)",
                model_key="longbench",
                run=_import,
                options=(
                    ImportOption(
                        "--length",
                        "TOKENS",
                        "the tokens pred.py cut prompts to (its model2maxlen: 120000, the "
                        "default; 200000 for Claude)",
                    ),
                ),
            ),
        ),
    )
)
