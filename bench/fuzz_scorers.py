"""Fuzz every scorer with 100,000 outputs a model may write: crashes, slowest, time per output.

The outputs come from the strategies of the property test (tests/scoring/fuzz_outputs.py):
junk of every kind, each example's own material in its answer formats, runs that make
patterns backtrack, deep nesting and 1 MB outputs; large outputs are drawn rarely
(`--small-per-large`), so the run takes minutes, not hours. The outputs are split
evenly over the registered tasks and the judge's reply reader. Needs the dev extra
(hypothesis); not part of the test suite.

    python bench/fuzz_scorers.py [--n 100000] [--seed 0] [--tasks 'lifbench_*']

Prints, per task, the outputs run, the crashes (a scorer raised, or its score was out
of range: should be 0), the slowest score and the CPU time per output; then the
totals and the slowest score of all. `--save DIR` writes each crashing output there,
and each task's slowest.
"""

from __future__ import annotations

import argparse
import fnmatch
import sys
import time
import traceback
import warnings
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))

from hypothesis import HealthCheck, Phase, given, seed, settings
from hypothesis import strategies as st

from helpers.fuzz_outputs import (
    JUNK,
    TASKS,
    example_of,
    judge_replies,
    outputs,
    score_output,
    score_problems,
    verdict_problems,
)
from lctui.scoring.judge import (
    QA,
    SUMM,
    JudgeTask,
    judge_prompts,
    judge_score,
    parse_reply,
)

TARGET_S = 1.0  # issue 10.6: no score slower than this (CPU time of the scoring thread)
JUDGE = "judge"
QA_TASK = JudgeTask(QA, "When was the treaty signed?", ("1840", "in 1840"))
SUMM_TASK = JudgeTask(SUMM, "Sum up the report.", (), ("a treaty", "a war", "a vote"), "A. B. C.")
SUMMARIES = st.one_of(
    st.lists(st.sampled_from(("The treaty was signed.", "War broke out!")), max_size=45).map(
        " ".join
    ),
    JUNK,
)


@dataclass
class Tally:
    """What one task's outputs did."""

    name: str
    outputs: int = 0
    cpu_s: float = 0.0
    wall_s: float = 0.0
    slowest_s: float = 0.0
    slowest_output: str = ""
    crashes: list[tuple[str, str]] = field(default_factory=list)  # (what, output)

    def note(self, cpu_s: float, wall_s: float, output: str, problem: str | None) -> None:
        self.outputs += 1
        self.cpu_s += cpu_s
        self.wall_s += wall_s
        if cpu_s > self.slowest_s:
            self.slowest_s, self.slowest_output = cpu_s, output
        if problem is not None:
            self.crashes.append((problem, output))


def _timed(work: Callable[[], list[str]]) -> tuple[float, float, str | None]:
    """(CPU seconds, wall seconds, problem) of calling `work`, which returns problems."""
    cpu, wall = time.thread_time(), time.perf_counter()
    try:
        problems = work()
        problem = "; ".join(problems) if problems else None
    except Exception as exc:  # a crash is what we count, not a reason to stop
        frame = traceback.extract_tb(exc.__traceback__)[-1]
        where = f"{Path(frame.filename).name}:{frame.lineno}"
        problem = f"{type(exc).__name__} at {where}: {str(exc)[:200]}"
    return time.thread_time() - cpu, time.perf_counter() - wall, problem


def _run(
    strategy: st.SearchStrategy,
    check: Callable[[Any], list[str]],
    tally: Tally,
    count: int,
    at: int,
) -> None:
    @seed(at)
    @settings(
        max_examples=count,
        phases=[Phase.generate],
        database=None,
        deadline=None,
        suppress_health_check=list(HealthCheck),
    )
    @given(strategy)
    def one(drawn: object) -> None:
        cpu, wall, problem = _timed(lambda: check(drawn))
        output = drawn[-1] if isinstance(drawn, tuple) else drawn
        tally.note(cpu, wall, str(output), problem)

    one()


def fuzz_task(task: str, count: int, at: int, small_per_large: int) -> Tally:
    example = example_of(task)
    tally = Tally(task)

    def check(output: str) -> list[str]:
        return score_problems(example, score_output(example, output))

    _run(outputs(example, small_per_large=small_per_large), check, tally, count, at)
    return tally


def fuzz_judge(count: int, at: int, small_per_large: int) -> Tally:
    tally = Tally(JUDGE)

    def check(drawn: tuple[str, str]) -> list[str]:
        summary, reply = drawn
        problems: list[str] = []
        for task in (replace(QA_TASK, output=summary), replace(SUMM_TASK, output=summary)):
            prompts = judge_prompts(task)
            parsed = {p.role: parse_reply(p, reply) for p in prompts}
            for p in prompts:
                problems += verdict_problems(p, parsed[p.role])
            score = judge_score(task, parsed, {p.role: reply for p in prompts})
            if score.value is None or not 0.0 <= score.value <= 1.0:
                problems.append(f"judge score {score.value!r} outside [0, 1]")
        return problems

    strategy = st.tuples(SUMMARIES, judge_replies(small_per_large))
    _run(strategy, check, tally, count, at)
    return tally


def _save(folder: Path, tally: Tally) -> None:
    """Each crashing output, and the slowest, as files named after the task."""
    folder.mkdir(parents=True, exist_ok=True)
    found = [*tally.crashes, (f"slowest: {tally.slowest_s:.3f} s CPU", tally.slowest_output)]
    for k, (what, output) in enumerate(found):
        name = f"{tally.name}-slowest.txt" if k == len(tally.crashes) else f"{tally.name}-{k}.txt"
        (folder / name).write_text(f"{what}\n{output}", encoding="utf-8", errors="surrogatepass")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "--outputs", "--n", type=int, default=100_000, help="in all, split over tasks"
    )
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--tasks", default="*", help="a glob of task names (and 'judge')")
    parser.add_argument(
        "--small-per-large", type=int, default=20, help="kinds of small output per large one"
    )
    parser.add_argument("--save", type=Path, help="write each crashing output to this folder")
    args = parser.parse_args()
    warnings.simplefilter("ignore")  # hypothesis warns about .example()-style use and reprs
    every = (*TASKS, JUDGE)
    names = [t for t in every if fnmatch.fnmatchcase(t, args.tasks)]
    count = max(1, args.outputs // len(names))
    print(f"{len(names)} scorers x {count:,} outputs, seed {args.seed}", flush=True)
    print(
        f"{'task':<36} {'outputs':>8} {'crashes':>8} {'slowest s':>10} {'chars':>10} {'ms/out':>8}"
    )
    tallies = []
    for name in names:
        at = args.seed * 1_000 + every.index(name)  # a task draws the same with --tasks
        tally = (
            fuzz_judge(count, at, args.small_per_large)
            if name == JUDGE
            else fuzz_task(name, count, at, args.small_per_large)
        )
        tallies.append(tally)
        print(
            f"{name:<36} {tally.outputs:>8,} {len(tally.crashes):>8} {tally.slowest_s:>10.3f} "
            f"{len(tally.slowest_output):>10,} {tally.cpu_s / max(1, tally.outputs) * 1e3:>8.2f}",
            flush=True,
        )
        for what, output in tally.crashes[:3]:
            print(f"    {what}\n      output ({len(output):,} chars): {output[:120]!r}")
        if args.save is not None:
            _save(args.save, tally)
    total = sum(t.outputs for t in tallies)
    cpu, wall = sum(t.cpu_s for t in tallies), sum(t.wall_s for t in tallies)
    crashes = sum(len(t.crashes) for t in tallies)
    worst = max(tallies, key=lambda t: t.slowest_s)
    print(
        f"\n{total:,} outputs, {crashes} crashes; slowest score: {worst.name}, an output of "
        f"{len(worst.slowest_output):,} characters, {worst.slowest_s:.3f} s CPU "
        f"({worst.slowest_s / TARGET_S:.2f}x the {TARGET_S:g} s target); "
        f"{cpu / total * 1e3:.2f} ms CPU ({wall / total * 1e3:.2f} ms wall) per output"
    )


if __name__ == "__main__":
    main()
