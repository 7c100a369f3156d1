"""LIFBench: its tasks and contexts (tasks/), LIFEval, its rubric scorer (scoring/), its
report (LIFEval's ARS, IFP per capability and IFS per perspective; report.py) and the
import of its published per-response score files (importer.py), each loaded when it
is first used."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from lctui.core.suites import Importer, Suite, SuiteReport, SuiteScorer, register

SCORER = "lifeval"


def _report(src: Any, models: Sequence[str] | None, run_id: str | None) -> SuiteReport | None:
    from lctui.suites.lifbench.report import report

    return report(src, models, run_id)


def _import(store: Any, source: str, _m: str | None, _o: Mapping[str, Any], _p: Any) -> Any:
    from lctui.analysis.harness_import import ImportSummary
    from lctui.suites.lifbench.importer import import_lifbench_scores

    read = import_lifbench_scores(store, source)
    return ImportSummary(read.files, read.files, read.rows, read.added, read.models)


def _tasks() -> Sequence[Any]:
    from lctui.suites.lifbench.tasks import lifbench_tasks

    return lifbench_tasks()


def _datasets() -> Sequence[Any]:
    from lctui.suites.lifbench.tasks.catalog import DATASETS

    return DATASETS


def _scorer() -> Any:
    from lctui.suites.lifbench.scoring.scorer import score_lifeval

    return score_lifeval


SUITE = register(
    Suite(
        name="lifbench",
        aliases=("lifeval",),
        title="LIFEval",
        about="LIFEval's ARS and IFP per capability (higher is better) and IFS per "
        "perspective (lower is more stable), from the stored lifeval rubric points.",
        report=_report,
        tasks=_tasks,
        # lifeval 1: LIFEval's rubric points and ARS (scoring/).
        scorers=(
            SuiteScorer(
                SCORER,
                1,
                _scorer,
                "score = LIFEval's ARS, the earned weight of the rubric points over their "
                "total weight: the points are the score",
            ),
        ),
        datasets=_datasets,
        empty="{db} holds no lifeval scores{wanted}; import some with "
        "`lctui import lifbench-scores DIR --db PATH`",
        importers=(
            Importer(
                kind="lifbench-scores",
                help="a folder of LIFBench `{scenario}-{task}.csv` score files",
                description="Load the original LIFBench's per-response score files "
                "(`{scenario}-{task}.csv`) as LIFEval scores of the models they name. A "
                "file that cannot be read stops the import, and nothing of it is kept.",
                source="folder",
                what="LIFBench score file(s)",
                model_key="lifbench",
                run=_import,
                names_model=False,
            ),
        ),
    )
)
