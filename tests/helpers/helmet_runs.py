"""Stored runs of HELMET's tasks for report, TUI and correlation tests: examples that
carry HELMET's task names and categories (issue 12's table), each scored on the metric(s)
HELMET's table reads, written through the real store writer."""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping, Sequence

from helpers.store_factories import make_example, make_generation
from lctui.core.types import ModelSpec, Score, ScoreStatus
from lctui.scoring.citations import CITATION_SCORER, PRECISION_METRIC, RECALL_METRIC
from lctui.store import Store

# task -> (category, ((scorer, metric), ...)): what each HELMET task is scored on (ALCE's
# citation score row carries both citation_rec and, in its extras, citation_prec).
HELMET_TASKS: dict[str, tuple[str, tuple[tuple[str, str], ...]]] = {
    "json_kv": ("synthetic", (("recall", "subem"),)),
    "niah_multikey_2": ("synthetic", (("recall", "string_match_all"),)),
    "niah_multikey_3": ("synthetic", (("recall", "string_match_all"),)),
    "niah_multivalue": ("synthetic", (("recall", "string_match_all"),)),
    **{
        t: ("rag", (("recall", "subem"),))
        for t in ("kilt_nq", "kilt_triviaqa", "kilt_hotpotqa", "kilt_popqa")
    },
    "alce_asqa": (
        "cite",
        (
            ("helmet_alce_asqa", "str_em"),
            (CITATION_SCORER, RECALL_METRIC),
        ),
    ),
    "alce_qampari": (
        "cite",
        (
            ("helmet_alce_qampari", "qampari_rec_top5"),
            (CITATION_SCORER, RECALL_METRIC),
        ),
    ),
    "msmarco_rerank": ("rerank", (("helmet_rerank", "ndcg@10"),)),
    **{
        t: ("icl", (("helmet_icl", "em"),))
        for t in ("icl_trec_coarse", "icl_trec_fine", "icl_banking77", "icl_clinc150", "icl_nlu")
    },
    "narrativeqa": ("longqa", (("judge", "judge_qa"),)),
    "infbench_qa": ("longqa", (("helmet_rouge", "rougeL_f1"),)),
    "infbench_mc": ("longqa", (("helmet_mc", "em"),)),
    "infbench_sum": ("summ", (("judge", "judge_summ"),)),
    "multi_lexsum": ("summ", (("judge", "judge_summ"),)),
}

# Tasks of other suites a test puts next to HELMET's (never a HELMET category).
OTHER_TASKS: dict[str, tuple[str, tuple[tuple[str, str], ...]]] = {
    "lifbench_repeat": ("lifbench", (("lifeval", "lifeval_ars"),)),
    "niah_single_1": ("synthetic", (("recall", "string_match_all"),)),
}


def write_helmet_run(
    store: Store,
    model: str,
    values: Mapping[tuple[str, int], Sequence[float]],
    run_id: str | None = None,
) -> None:
    """One finished run of `model`: for each (task, length), one example per value, each
    scored `value` on every metric of its task (as HELMET_TASKS or OTHER_TASKS list them)."""
    model_id = f"fp-{model}"
    run_id = run_id or f"run-{model}"
    store.add_model(
        ModelSpec(name=model, backend="hf", path=f"/m/{model}"), model_id, "o200k_base", 131072
    )
    store.start_run(run_id, {"argv": ["run"]})
    for (task, length), scores in values.items():
        category, metrics = {**HELMET_TASKS, **OTHER_TASKS}[task]
        for i, value in enumerate(scores):
            example = dataclasses.replace(
                make_example(i, task=task, length=length),
                example_id=f"ex-{task}-{length}-{i}",
                category=category,
                suite=(
                    "ruler"
                    if task.startswith("niah")
                    else "lifbench"
                    if task.startswith("lifbench")
                    else "helmet"
                ),
            )
            gid = f"g-{model}-{task}-{length}-{i}"
            store.add_example(example)
            store.add_generation(
                make_generation(
                    example, f"k-{model}-{task}-{length}-{i}", gid, run_id=run_id, model_id=model_id
                ),
                {"max_new_tokens": 32},
            )
            for scorer, metric in metrics:
                # The citation scorer stores recall as its value, precision in its extras.
                extras = {PRECISION_METRIC: value} if scorer == CITATION_SCORER else {}
                score = Score(scorer, metric, value, ScoreStatus.OK, (), "fixture", extras=extras)
                store.add_score(gid, score)
    store.finish_run(run_id, "finished")
