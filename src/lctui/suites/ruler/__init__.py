"""RULER: its tasks (tasks/) and the import of RULER's prediction folders (importer.py,
files.py), each loaded when first used. RULER has no report of its own: its tasks show
in the heatmap and the curves."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from lctui.core.suites import Importer, ImportOption, Suite, register


def _import(
    store: Any, source: str, model: str | None, options: Mapping[str, Any], progress: Any
) -> Any:
    from lctui.suites.ruler.importer import import_ruler_results

    length = options.get("length")
    return import_ruler_results(store, source, model=model, length=length, progress=progress)


def _tasks() -> Sequence[Any]:
    from lctui.suites.ruler.tasks import ruler_tasks

    return ruler_tasks()


def _datasets() -> Sequence[Any]:
    from lctui.suites.ruler.tasks.catalog import DATASETS

    return DATASETS


SUITE = register(
    Suite(
        name="ruler",
        title="RULER",
        about="RULER's synthetic tasks and QA.",
        tasks=_tasks,
        datasets=_datasets,
        importers=(
            Importer(
                kind="ruler-results",
                help="RULER's prediction folders (its benchmark root, a model's folder or a "
                "pred folder)",
                description="Load RULER's predictions (pred/{task}.jsonl or chunked "
                "{task}-{i}.jsonl, as call_api.py writes them under "
                "ROOT/MODEL/BENCHMARK/LENGTH/) as one run per model: each prompt (its answer "
                "prefix split off with the data file beside it, data/{task}/validation.jsonl), "
                "output and gold answers, scored by lctui's recall scorer under RULER's "
                "metric; each task's mean is checked against evaluate.py's summary.csv. Files "
                "and lines that cannot be read are listed and skipped; importing a folder "
                "again adds nothing.",
                source="folder",
                what="RULER prediction file(s)",
                model_key="ruler",
                run=_import,
                options=(
                    ImportOption(
                        "--length",
                        "TOKENS",
                        "the length of prediction folders whose parent is not named after it "
                        "(default: the length folder's name, else the rows' longest length "
                        "rounded up to a power of two)",
                    ),
                ),
            ),
        ),
    )
)
