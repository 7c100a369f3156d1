"""The judge's pure parts on fixed, hand-checked strings: prompts, parsing, scores."""

from __future__ import annotations

from collections.abc import Mapping

import pytest

from helpers.example_factory import make_test_example
from lctui.backends.openai_batch import batch_request_line, batch_result
from lctui.core.types import Example, ScoreStatus
from lctui.scoring.judge import (
    QA,
    ROLE_PRECISION,
    ROLE_QA,
    ROLE_RECALL,
    SUMM,
    JudgePrompt,
    JudgeTask,
    find_json_object,
    judge_prompts,
    judge_score,
    judge_task,
    parse_reply,
    sentences,
)

QA_PROMPT = JudgePrompt(ROLE_QA, "", 256)
RECALL_2 = JudgePrompt(ROLE_RECALL, "", 192, items=2)
PRECISION_3 = JudgePrompt(ROLE_PRECISION, "", 240, items=3)


def _example(metadata: Mapping[str, object], gold: tuple[str, ...] = ()) -> Example:
    return make_test_example(
        task="toy",
        category="test",
        suite="test",
        context="A very long document that the judge must never see. " * 50,
        question="\n\nWhere was the treaty signed?",
        gold=gold,
        prompt_tokens=900,
        metadata=metadata,
    )


def test_qa_task_and_prompt_hold_question_answers_and_output_but_not_the_document() -> None:
    task = judge_task(_example({"judge": "qa", "gold": ["Utrecht", "in Utrecht"]}), "In Utrecht.")
    assert task == JudgeTask(
        QA, "Where was the treaty signed?", ("Utrecht", "in Utrecht"), output="In Utrecht."
    )
    (prompt,) = judge_prompts(task)
    assert prompt.role == ROLE_QA and prompt.items == 0
    assert "Where was the treaty signed?" in prompt.text
    assert "- Utrecht\n- in Utrecht" in prompt.text
    assert "Answer to grade:\nIn Utrecht." in prompt.text
    assert "long document that the judge must never see" not in prompt.text
    # Without gold in the metadata, the example's gold answers are the references.
    fallback = judge_task(_example({"judge": "qa"}, gold=("Utrecht",)), "x")
    assert fallback is not None and fallback.answers == ("Utrecht",)


def test_summary_prompts_number_key_points_and_summary_sentences() -> None:
    meta = {"judge": "summ", "key_points": ["A fire broke out", "The mayor resigned"]}
    output = "A fire broke out in May. Nobody was hurt!\nThe mayor stayed."
    task = judge_task(_example(meta, gold=("A fire broke out; the mayor resigned.",)), output)
    assert task is not None and task.kind == SUMM
    recall, precision = judge_prompts(task)
    assert recall.role == ROLE_RECALL and recall.items == 2
    assert "1. A fire broke out\n2. The mayor resigned" in recall.text
    assert precision.role == ROLE_PRECISION and precision.items == 3
    assert (
        "1. A fire broke out in May.\n2. Nobody was hurt!\n3. The mayor stayed." in precision.text
    )
    assert "Reference summary:\nA fire broke out; the mayor resigned." in precision.text


def test_bad_judge_metadata_is_refused_and_no_judge_means_none() -> None:
    assert judge_task(_example({}), "x") is None
    with pytest.raises(ValueError, match="unknown judge kind"):
        judge_task(_example({"judge": "essay"}), "x")
    with pytest.raises(ValueError, match="key_points"):
        judge_task(_example({"judge": "summ"}, gold=("ref",)), "x")
    with pytest.raises(ValueError, match="no gold"):
        judge_task(_example({"judge": "qa"}), "x")


def test_sentences_split_on_end_punctuation_and_lines() -> None:
    assert sentences("One. Two? Three!\n- Four\n\n") == ["One.", "Two?", "Three!", "Four"]
    assert sentences("   ") == []


@pytest.mark.parametrize(
    ("reply", "fluency", "correctness"),
    [
        ('{"reason": "ok", "fluency": 1, "correctness": 3}', 1, 3),
        ('```json\n{"fluency": 1, "correctness": 2}\n```', 1, 2),
        ('Sure. {"reason": "names the city", "fluency": true, "correctness": "2"} Done.', 1, 2),
        ('{"bad json": } then {"fluency": 0, "correctness": 1}', 0, 1),
        ("Fluency: 1\nCorrectness: 2/3\n", 1, 2),
        ('{"reason": "no grades"}\nfluency = 1\ncorrectness = 0', 1, 0),
    ],
)
def test_qa_replies_parse_from_json_spans_and_lines(
    reply: str, fluency: int, correctness: int
) -> None:
    parsed = parse_reply(QA_PROMPT, reply)
    assert parsed is not None
    assert (parsed["fluency"], parsed["correctness"]) == (fluency, correctness)


@pytest.mark.parametrize(
    "reply",
    [
        "The answer is right.",
        '{"fluency": 1, "correctness": 5}',  # out of range: not a guess of 3
        '{"fluency": 1}',
        "correctness: 2",
        '{"fluency": 1, "correctness": 2.5}',
        "",
    ],
)
def test_qa_replies_without_a_complete_verdict_are_unparsed(reply: str) -> None:
    assert parse_reply(QA_PROMPT, reply) is None


def test_list_replies_by_id_in_any_order_by_mapping_and_by_lines() -> None:
    by_id = (
        '{"points": [{"id": 2, "supported": false, "reason": "absent"}, '
        '{"id": 1, "supported": "yes"}]}'
    )
    parsed = parse_reply(RECALL_2, by_id)
    assert parsed == {
        "verdicts": [{"supported": True, "reason": ""}, {"supported": False, "reason": "absent"}]
    }
    mapping = parse_reply(RECALL_2, 'verdict: {"points": {"1": true, "2": "no"}}')
    assert mapping is not None and [v["supported"] for v in mapping["verdicts"]] == [True, False]
    lines = parse_reply(RECALL_2, "Point 1: supported\nPoint 2: not supported")
    assert lines is not None and [v["supported"] for v in lines["verdicts"]] == [True, False]
    # One verdict short: unparsed, not a silent "unsupported".
    assert parse_reply(RECALL_2, '{"points": [{"id": 1, "supported": true}]}') is None
    assert parse_reply(RECALL_2, '{"points": [{"id": 1, "supported": "maybe"}, true]}') is None


def test_precision_replies_need_fluency() -> None:
    reply = '{"fluency": 1, "sentences": [true, false, {"supported": true, "reason": "stated"}]}'
    parsed = parse_reply(PRECISION_3, reply)
    assert parsed is not None and parsed["fluency"] == 1
    assert [v["supported"] for v in parsed["verdicts"]] == [True, False, True]
    assert parsed["verdicts"][2]["reason"] == "stated"
    assert parse_reply(PRECISION_3, '{"sentences": [true, false, true]}') is None


def test_find_json_object_never_evaluates_and_takes_the_first_object() -> None:
    assert find_json_object('__import__("os").system("true")') is None
    assert find_json_object('[1, 2] {"a": {"b": 1}} {"c": 2}') == {"a": {"b": 1}}


def test_qa_score_multiplies_fluency_and_correctness_and_explains_each_point() -> None:
    task = JudgeTask(QA, "Where and when?", ("Paris, 1889",), output="Paris.")
    verdict = {
        "fluency": 1,
        "correctness": 2,
        "reason": "the answer names the city but not the year",
    }
    score = judge_score(task, {ROLE_QA: verdict}, {ROLE_QA: "..."}, {"judge": "j"})
    assert score.scorer == "judge" and score.metric == "judge_qa"
    assert score.status is ScoreStatus.OK and score.value == pytest.approx(2 / 3)
    fluency, correctness = score.points
    assert (fluency.name, fluency.earned) == ("fluency", 1.0)
    assert correctness.earned == pytest.approx(2 / 3)
    assert correctness.explanation == (
        "correctness 2/3: the judge says: the answer names the city but not the year"
    )
    assert score.extras["judge"] == "j" and score.extras["correctness"] == 2
    unfluent = judge_score(task, {ROLE_QA: {**verdict, "fluency": 0}}, {})
    assert unfluent.value == 0.0 and unfluent.status is ScoreStatus.OK


def test_summary_score_is_f1_of_recall_and_precision_times_fluency() -> None:
    task = JudgeTask(
        SUMM,
        "Summarize.",
        (),
        ("fire", "mayor resigned"),
        "ref",
        "A fire. It rained. The mayor left.",
    )
    recall = {
        "verdicts": [{"supported": True, "reason": "stated"}, {"supported": False, "reason": ""}]
    }
    precision = {
        "fluency": 1,
        "verdicts": [{"supported": s, "reason": ""} for s in (True, False, True)],
    }
    score = judge_score(task, {ROLE_RECALL: recall, ROLE_PRECISION: precision}, {})
    # recall 1/2, precision 2/3: F1 = 2 * (1/2 * 2/3) / (1/2 + 2/3) = 4/7
    assert score.value == pytest.approx(4 / 7) and score.metric == "judge_summ"
    names = [p.name for p in score.points]
    assert names == ["fluency", "recall 1", "recall 2", "precision 1", "precision 2", "precision 3"]
    assert score.points[1].explanation == "key point 'fire' covered: the judge says: stated"
    assert (
        score.points[2].explanation
        == "key point 'mayor resigned' not covered: the judge gave no reason"
    )
    assert "sentence 'It rained.' not backed" in score.points[4].explanation
    no_fluency = judge_score(
        task, {ROLE_RECALL: recall, ROLE_PRECISION: {**precision, "fluency": 0}}, {}
    )
    assert no_fluency.value == 0.0


def test_unreadable_reply_or_empty_output_is_unparsed_never_a_silent_zero() -> None:
    task = JudgeTask(QA, "Q?", ("a",), output="an answer")
    score = judge_score(task, {ROLE_QA: None}, {ROLE_QA: "I think it is fine"})
    assert score.status is ScoreStatus.UNPARSED and score.value == 0.0
    assert (
        "qa reply could not be read" in score.explanation
        and "I think it is fine" in score.explanation
    )
    assert score.points[0].earned == 0.0
    empty = JudgeTask(QA, "Q?", ("a",), output="  ")
    assert judge_prompts(empty) == ()
    assert judge_score(empty, {}, {}).status is ScoreStatus.UNPARSED


def test_batch_lines_round_trip() -> None:
    prompt = JudgePrompt(ROLE_QA, "grade this", 256)
    line = batch_request_line("h1", "gpt-x", prompt)
    assert line["url"] == "/v1/chat/completions" and line["body"]["max_tokens"] == 256
    assert line["body"]["messages"] == [{"role": "user", "content": "grade this"}]
    ok = {
        "custom_id": "h1",
        "response": {
            "status_code": 200,
            "body": {
                "choices": [{"message": {"content": '{"fluency": 1}'}}],
                "usage": {"prompt_tokens": 12, "completion_tokens": 5},
            },
        },
    }
    custom_id, reply, error = batch_result(ok)
    assert custom_id == "h1" and error is None and reply is not None
    assert (reply.text, reply.prompt_tokens, reply.output_tokens) == ('{"fluency": 1}', 12, 5)
    failed = {"custom_id": "h2", "response": {"status_code": 429, "body": {"error": "slow down"}}}
    assert batch_result(failed)[1] is None and "slow down" in str(batch_result(failed)[2])
