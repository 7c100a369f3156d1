"""LongBench v2's table: per model, mode and length, accuracy overall, by difficulty
(easy, hard), by length bucket (short, medium, long) and by domain, each also
"compensated" (an answer that names no option counts 0.25, the original's flag).

Computed as the original's result script does: the accuracy of a group is the share of
its answered questions that were right, in percent with one decimal. The original
drops a question whose response came back empty (it is asked again on the next run);
lctui scores it as unparsed, so `n` counts every answered question and `unparsed`
says how many named no option. Errors (failed requests) are in no group and counted
apart (`left_out`).
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from lctui.store.read.longbench import LongBenchCount, longbench_counts
from lctui.store.read.source import Source

SCALE = 100.0  # the original's tables are in percent
GUESS_CREDIT = 0.25  # what the compensated accuracy credits an answer naming no option
OVERALL = "overall"
# The original's columns after the overall one, and the groups they read.
DIFFICULTY_GROUPS: tuple[str, ...] = ("easy", "hard")
BUCKET_GROUPS: tuple[str, ...] = ("short", "medium", "long")
HEADINGS: dict[str, str] = {
    OVERALL: "Overall",
    "easy": "Easy",
    "hard": "Hard",
    "short": "Short",
    "medium": "Medium",
    "long": "Long",
}
# The three modes (tasks) in the original's words.
MODES: dict[str, str] = {
    "longbench_v2": "direct answer",
    "longbench_v2_cot": "chain of thought",
    "longbench_v2_no_context": "no context",
}
# Short names of the six domains for narrow tables.
DOMAIN_HEADINGS: dict[str, str] = {
    "Single-Document QA": "1-Doc",
    "Multi-Document QA": "M-Doc",
    "Long In-context Learning": "ICL",
    "Long-dialogue History Understanding": "Dialog",
    "Code Repository Understanding": "Code",
    "Long Structured Data Understanding": "Table",
}


@dataclass(frozen=True)
class Group:
    """The answers of one group of questions."""

    n: int
    correct: float
    unparsed: int

    @property
    def accuracy(self) -> float | None:
        """Percent right, None when the group has no answer."""
        return None if not self.n else round(SCALE * self.correct / self.n, 1)

    @property
    def compensated(self) -> float | None:
        """Percent right with every answer that names no option counted as 0.25."""
        if not self.n:
            return None
        return round(SCALE * (self.correct + GUESS_CREDIT * self.unparsed) / self.n, 1)


@dataclass(frozen=True)
class LongBenchScores:
    """One model's LongBench v2 results in one mode at one length."""

    model: str
    task: str
    length: int
    groups: dict[str, Group]  # OVERALL, easy, hard, short, medium, long, each domain
    left_out: int  # errors and unscored answers, in no group

    @property
    def overall(self) -> Group:
        return self.groups[OVERALL]

    def domains(self) -> list[str]:
        """The domains with answers, in the paper's order, then any other."""
        known = [d for d in DOMAIN_HEADINGS if d in self.groups]
        fixed = {OVERALL, *DIFFICULTY_GROUPS, *BUCKET_GROUPS, *DOMAIN_HEADINGS}
        return known + sorted(g for g in self.groups if g not in fixed)

    def as_dict(self) -> dict[str, Any]:
        return {
            "model": self.model,
            "task": self.task,
            "length": self.length,
            "left_out": self.left_out,
            "groups": {
                name: {
                    "n": g.n,
                    "unparsed": g.unparsed,
                    "accuracy": g.accuracy,
                    "compensated": g.compensated,
                }
                for name, g in self.groups.items()
            },
        }


def longbench_scores(counts: Iterable[LongBenchCount]) -> list[LongBenchScores]:
    """The table's rows from the stored counts, ordered by model, task and length."""
    sums: dict[tuple[str, str, int], dict[str, list[float]]] = defaultdict(
        lambda: defaultdict(lambda: [0, 0.0, 0])
    )
    left_out: dict[tuple[str, str, int], int] = defaultdict(int)
    for c in counts:
        key = (c.model, c.task, c.length)
        left_out[key] += c.left_out
        if not c.n:
            continue
        for group in (OVERALL, c.difficulty, c.bucket, c.domain):
            total = sums[key][group]
            total[0] += c.n
            total[1] += c.correct
            total[2] += c.unparsed
    rows = []
    for key in sorted(set(sums) | set(left_out)):
        groups = {
            name: Group(int(n), correct, int(unparsed))
            for name, (n, correct, unparsed) in sums[key].items()
        }
        groups.setdefault(OVERALL, Group(0, 0.0, 0))
        rows.append(LongBenchScores(*key, groups=groups, left_out=left_out[key]))
    return rows


def longbench_table(
    src: Source, models: Sequence[str] | None = None, *, run_id: str | None = None
) -> list[LongBenchScores]:
    """LongBench v2's table over the latest scores of `models` (all when None); with
    `run_id`, over that run's results alone."""
    return longbench_scores(longbench_counts(src, models, run_id=run_id))


def shown(value: float | None) -> str:
    """A percentage as the report and the TUI show it: one decimal, `-` for none."""
    return "-" if value is None else f"{value:.1f}"
