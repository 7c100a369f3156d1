"""LongBench v2's prompts in our own wording, with the original's structure.

Every mode shows the question, then its four options as `(A) ...` to `(D) ...`, and asks
for one closing sentence of the form `The correct answer is (X)`: the original's
answer reading (suites/longbench/scoring.py) looks for exactly that sentence, so the form is
part of the benchmark, not of its wording.

- direct: an instruction, the document between `<text>` and `</text>`, the question
  and options, the answer form.
- cot, first call: the same up to the options, then a cue to reason step by step.
- cot, second call: the instruction, a note that the document is left out, the
  question and options, the same cue followed by the first call's reasoning, then a
  request for the single most likely option in the answer form.
- no_context: the question and options and the answer form, no document.
"""

from __future__ import annotations

from dataclasses import dataclass

from lctui.suites.longbench.tasks.data import LETTERS

ANSWER_FORM = (
    'End your reply with the sentence "The correct answer is (X)", where X is the '
    "letter of the option you choose."
)
INSTRUCTION = "Read the document below, then answer the multiple-choice question after it."
DOCUMENT_OPEN = "\n\n<text>\n"
DOCUMENT_CLOSE = "\n</text>\n\n"
REASONING_CUE = "Work through the question step by step:"
DOCUMENT_LEFT_OUT = "(The document was shown before; it is too long to show again.)"
FINAL_ASK = "Given that reasoning, which one option is most likely right? " + ANSWER_FORM
NO_CONTEXT_ASK = "Choose the one option most likely to be right. " + ANSWER_FORM


@dataclass(frozen=True)
class Prompt:
    """The parts of one example's prompt: preamble + context + question."""

    preamble: str
    question: str


def question_block(question: str, choices: tuple[str, ...]) -> str:
    """The question and its options, as the original lays them out (texts stripped)."""
    options = "\n".join(
        f"({letter}) {choice.strip()}" for letter, choice in zip(LETTERS, choices, strict=True)
    )
    return f"Question: {question.strip()}\nOptions:\n{options}"


def direct_prompt(question: str, choices: tuple[str, ...]) -> Prompt:
    return Prompt(
        INSTRUCTION + DOCUMENT_OPEN,
        DOCUMENT_CLOSE + question_block(question, choices) + "\n\n" + ANSWER_FORM,
    )


def reasoning_prompt(question: str, choices: tuple[str, ...]) -> Prompt:
    return Prompt(
        INSTRUCTION + DOCUMENT_OPEN,
        DOCUMENT_CLOSE + question_block(question, choices) + "\n\n" + REASONING_CUE,
    )


def answer_call(question: str, choices: tuple[str, ...]) -> tuple[str, str]:
    """The second call's text around the reasoning: (before, after)."""
    before = (
        f"{INSTRUCTION}\n\n{DOCUMENT_LEFT_OUT}\n\n"
        f"{question_block(question, choices)}\n\n{REASONING_CUE} "
    )
    return before, "\n\n" + FINAL_ASK


def no_context_prompt(question: str, choices: tuple[str, ...]) -> Prompt:
    return Prompt("", question_block(question, choices) + "\n\n" + NO_CONTEXT_ASK)


def reference_answer(letter: str) -> str:
    """What a perfect model replies (the gold pseudo-model's output)."""
    return f"The correct answer is ({letter})"
