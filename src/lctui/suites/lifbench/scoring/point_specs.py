"""LIFEval's scoring points per LIFBench task: name, weight and capabilities.

The single source for both the rubric programs and the import of published scores
(suites/lifbench/importer.py). Names are the column names of the published per-point
CSVs (`shared/data/lifbench-scores/`); weights and capabilities are those of the
original evaluation code (LIFBench's paper, LIFEval), which the published scores used.
"""

from __future__ import annotations

from dataclasses import dataclass

from lctui.scoring.rubric import FMT, LOGIC, NUM, ORI, RECOG, SPAT


@dataclass(frozen=True)
class PointSpec:
    """One scoring point of a task: its weight and the capabilities it tests."""

    name: str
    weight: float
    capabilities: tuple[str, ...]
    # False only where the original scorer can award more than the full weight (see
    # find_dup_text below); the published scores keep such values, so must we.
    bounded: bool = True


@dataclass(frozen=True)
class TaskSpec:
    """A LIFBench task: its scenario and its scoring points in rubric order."""

    name: str
    scenario: str  # "list" | "multidoc" | "onedoc", as in the published file names
    points: tuple[PointSpec, ...]

    @property
    def total(self) -> float:
        """R_t: the sum of the point weights."""
        return sum(p.weight for p in self.points)


def _task(name: str, scenario: str, *points: tuple[str, float, tuple[str, ...]]) -> TaskSpec:
    return TaskSpec(name, scenario, tuple(PointSpec(n, w, caps) for n, w, caps in points))


def _unbounded(task: TaskSpec, point: str) -> TaskSpec:
    points = tuple(
        PointSpec(p.name, p.weight, p.capabilities, bounded=False) if p.name == point else p
        for p in task.points
    )
    return TaskSpec(task.name, task.scenario, points)


LIFEVAL_TASKS: dict[str, TaskSpec] = {
    t.name: t
    for t in (
        _task(
            "single_query_id",
            "list",
            ("format", 1, (FMT,)),
            ("correct", 2, (RECOG,)),
            ("ori", 1, (ORI,)),
        ),
        _task(
            "multi_query_id",
            "list",
            ("format", 2, (FMT,)),
            ("num", 3, (NUM,)),
            ("correct", 3, (RECOG,)),
            ("order", 2, (SPAT,)),
        ),
        _task(
            "offset_query_id",
            "list",
            ("format", 1, (FMT,)),
            ("correct", 2, (RECOG, SPAT)),
            ("ori", 1, (ORI,)),
        ),
        _task(
            "offset_query_element",
            "list",
            ("format", 1, (FMT,)),
            ("correct", 2, (SPAT,)),
            ("ori", 1, (ORI,)),
        ),
        _task(
            "blur_offset_query_id",
            "list",
            ("ori", 1, (ORI,)),
            ("position", 3, (SPAT,)),
            ("format", 1, (FMT,)),
        ),
        _task(
            "blur_offset_query_element",
            "list",
            ("ori", 1, (ORI,)),
            ("position", 3, (SPAT,)),
            ("format", 1, (FMT,)),
        ),
        # The original `ori` check of find_dup_text can earn more than its weight
        # (27 published rows hold 1.5 to 6.5, giving total_score up to 2.125); the
        # published ARS and the paper's tables include those values, so they are kept.
        _unbounded(
            _task(
                "find_dup_text",
                "multidoc",
                ("correct", 4, (LOGIC, RECOG)),
                ("num_text", 5, (NUM, LOGIC)),
                ("ori", 6, (ORI,)),
                ("format", 5, (FMT,)),
            ),
            "ori",
        ),
        _task(
            "batch_label",
            "multidoc",
            ("candi_ori", 3, (ORI,)),
            ("logit_correct", 3, (LOGIC,)),
            ("num_doc", 3, (NUM, RECOG)),
            ("format", 5, (FMT,)),
        ),
        _task("qa", "onedoc", ("correct", 3, (LOGIC,)), ("format", 2, (FMT,))),
        _task(
            "repeat",
            "onedoc",
            ("format", 3, (FMT,)),
            ("ori", 2, (ORI,)),
            ("hit", 2, (RECOG,)),
            ("num", 4, (NUM,)),
            ("correct", 3, (LOGIC,)),
        ),
        _task(
            "extract",
            "onedoc",
            ("format", 4, (FMT,)),
            ("correct", 4, (RECOG,)),
            ("order", 4, (SPAT,)),
            ("ori", 2, (ORI,)),
        ),
    )
}

# The length intervals of LIFBench, in thousands (x 1024) of tokens.
LIFBENCH_LENGTHS: tuple[int, ...] = (3, 6, 13, 28, 60, 120)
