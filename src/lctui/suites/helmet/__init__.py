"""HELMET: its report (the seven category means and the overall per model and length,
report.py) and the import of HELMET's result files (importer.py, datasets.py).

Declared here without importing either: they load when they run."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from lctui.core.suites import Importer, Suite, SuiteReport, register


def _report(src: Any, models: Sequence[str] | None, run_id: str | None) -> SuiteReport | None:
    from lctui.suites.helmet.report import report

    return report(src, models, run_id)


def _import(store: Any, source: str, model: str | None, _: Mapping[str, Any], progress: Any) -> Any:
    from lctui.suites.helmet.importer import import_helmet_results

    return import_helmet_results(store, source, model=model, progress=progress)


SUITE = register(
    Suite(
        name="helmet",
        title="HELMET categories (0-100)",
        about="HELMET's seven category means and their overall per model and length, "
        "0-100; * after a mean: some of its datasets have no score (never counted as 0); "
        "-: none scored.",
        report=_report,
        empty="{db} holds no scores of HELMET's tasks{wanted}; run some with "
        "`lctui run --tasks helmet --db PATH`",
        importers=(
            Importer(
                kind="helmet-results",
                help="a folder of the original HELMET's result files (its eval.py --output_dir)",
                description="Load HELMET's per-dataset result JSONs (and its GPT-4 judge's "
                "-gpt4eval_o.json, ALCE's .json.score) as one run per model: HELMET's "
                "per-example scores under lctui's task names and metrics, its outputs and "
                "token counts. HELMET stored no prompt: imported examples say so. Files that "
                "cannot be read are listed and skipped; importing a folder again adds nothing.",
                source="folder",
                what="HELMET result file(s)",
                model_key="helmet",
                run=_import,
            ),
        ),
    )
)
