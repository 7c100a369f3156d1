"""Task groups for the launch screen and `lctui tasks` (tasks/groups.py): RULER's, then
HELMET's categories in HELMET's order (its recall with three RULER needle tasks), then
LIFBench and LongBench v2; `lctui tasks` lists each task once, in that order, naming its groups."""

from __future__ import annotations

import json

import pytest

from lctui.cli import main
from lctui.core.suites import listing_order
from lctui.tasks import all_tasks
from lctui.tasks.groups import HELMET_CATEGORIES, task_groups


def test_groups_follow_helmets_order_and_recall_holds_the_ruler_needles() -> None:
    groups = task_groups(all_tasks())
    labels = [g.label for g in groups]
    assert labels == [
        "synthetic (RULER)",
        "qa (RULER)",
        "recall (HELMET)",
        "rag (HELMET)",
        "cite (HELMET)",
        "rerank (HELMET)",
        "icl (HELMET)",
        "longqa (HELMET)",
        "summ (HELMET)",
        "lifbench (LIFBENCH)",
        "multichoice (LONGBENCH)",
    ]
    assert [t.name for t in groups[-1].tasks] == [
        "longbench_v2",
        "longbench_v2_cot",
        "longbench_v2_no_context",
    ]
    assert [t.name for t in groups[1].tasks] == ["qa_1", "qa_2"]
    recall = [t.name for t in groups[2].tasks]
    assert recall == ["json_kv", "niah_multikey_2", "niah_multikey_3", "niah_multivalue"]
    assert "niah_multikey_2" in [t.name for t in groups[0].tasks]  # RULER keeps it too
    assert [t.name for t in groups[3].tasks] == [
        "kilt_nq",
        "kilt_triviaqa",
        "kilt_hotpotqa",
        "kilt_popqa",
    ]
    assert HELMET_CATEGORIES == ("recall", "rag", "cite", "rerank", "icl", "longqa", "summ")


def test_the_seven_categories_come_in_helmets_order_whatever_the_task_order() -> None:
    """Stand-ins for the families other modules add (kilt_nq under another category)
    are placed by their category alone."""
    from lctui.tasks.helmet.rag import KiltRag

    made: list[KiltRag] = []
    for category in ("summ", "icl", "longqa", "cite"):
        cls = type(f"Fake{category}", (KiltRag,), {"category": category})
        task = next(t for t in all_tasks() if t.name == "kilt_nq")
        clone: KiltRag = object.__new__(cls)
        clone.__dict__.update(task.__dict__)
        made.append(clone)
    order = [g.category for g in task_groups([*made, *all_tasks()]) if g.suite == "helmet"]
    assert order == ["recall", "rag", "cite", "rerank", "icl", "longqa", "summ"]


def test_lctui_tasks_lists_each_task_once_in_group_order(
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert main(["tasks", "--format", "json"]) == 0
    rows = json.loads(capsys.readouterr().out)
    names = [r["name"] for r in rows]
    assert len(names) == len(set(names)) == len(all_tasks())
    assert names.index("fwe") < names.index("json_kv") < names.index("kilt_nq")
    assert names.index("msmarco_rerank") < names.index("lifbench_repeat")
    by_name = {r["name"]: r for r in rows}
    assert by_name["niah_multikey_3"]["groups"] == ["synthetic (RULER)", "recall (HELMET)"]
    assert by_name["json_kv"]["groups"] == ["recall (HELMET)"]
    assert main(["tasks"]) == 0
    table = capsys.readouterr().out
    assert "recall" in table and "(HELMET)" in table and "(RULER)" in table


def test_the_registry_lists_rulers_tasks_first_then_helmets_then_suites_by_name() -> None:
    suites = list(dict.fromkeys(t.suite for t in all_tasks()))
    assert suites[:2] == ["ruler", "helmet"]
    assert suites[2:] == sorted(suites[2:])
    names = [t.name for t in all_tasks()]
    assert names[:13] == [t.name for t in all_tasks() if t.suite == "ruler"]
    # A suite named before RULER alphabetically still comes after the leading ones.
    assert listing_order("aaa") > listing_order("helmet") > listing_order("ruler")
