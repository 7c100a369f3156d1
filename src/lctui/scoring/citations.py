"""Citation recall and precision of ALCE (as HELMET's eval_alce.py computes them).

Pure rules: whether a text entails a claim is asked of an `Entailment` callable
(premise, hypothesis) -> bool, which the engine backs with an NLI model
(backends/nli.py) or the LLM judge (engine/citing.py). Per output:

- the output is prepared as ALCE prepares it (runs of newlines become one space,
  "<|im_end|>" is removed); its sentences are, for ASQA, the sentence tokenizer's
  sentences of at least 5 characters, and for QAMPARI the comma-separated items (after
  stripping a final period or comma), each read as the question followed by the item;
- a sentence's citations are the numbers after each "[" ("[1][2]", "[1, 2]" reads 1
  only, as ALCE's pattern does), document numbers from 1; the claim is the sentence
  with its citation marks removed;
- recall: a sentence counts when it cites, every cited number names a document of
  the example (a number is an index into the document list after subtracting 1, so,
  as in ALCE, "[0]" names the last document), and the first 3 cited documents, joined,
  entail the claim; recall = counted sentences / sentences;
- precision: a sentence's citations (up to 3) count in the denominator when its
  citations are in range; in a supported sentence with several citations a citation
  is needed when its document alone entails the claim, or when the other citations
  without it do not; a supported sentence with one citation has it needed; the
  citations of an unsupported sentence are not; precision = needed / counted
  citations (0 when there are none);
- the LLM judge can decide entailment instead (`entailment_prompt`, `read_entailment`):
  a reply without a verdict counts as not entailed;
- an output with no sentence at all (ASQA: empty or only short fragments) has no
  citation scores: ALCE leaves it out of its means.

ALCE reports means x 100; the values here are the unscaled shares.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import lru_cache

from lctui.core.text import shorten
from lctui.core.types import RubricPoint, Score, ScoreStatus
from lctui.scoring.helmet_alce import prepare_output
from lctui.scoring.judge import JudgePrompt
from lctui.scoring.rubric import ORI, RECOG, make_point

CITATION_SCORER = "alce_citations"
RECALL_METRIC, PRECISION_METRIC = "citation_rec", "citation_prec"
AT_MOST_CITATIONS = 3  # eval_alce.py's --at_most_citations default, as HELMET runs it
MIN_SENTENCE_CHARS = 5

Entailment = Callable[[str, str], bool]

_NEWLINES = re.compile(r"\n+")
_CITED_NUMBER = re.compile(r"\[\d+")


@dataclass(frozen=True)
class CitedDoc:
    title: str
    text: str


@dataclass(frozen=True)
class SentenceVerdict:
    """How one sentence of the output fares."""

    sentence: str  # as written, citation marks included
    claim: str  # what is checked: citation marks removed
    cited: tuple[int, ...]  # document numbers as written (from 1), before the cut to 3
    in_range: bool
    supported: bool  # the cited documents jointly entail the claim
    needed: tuple[bool, ...]  # per counted citation: does it count for precision
    overcited: tuple[int, ...]  # numbers of the citations found unnecessary

    @property
    def counted(self) -> tuple[int, ...]:
        """The citations that enter precision (in range, at most 3)."""
        return self.cited[:AT_MOST_CITATIONS] if self.cited and self.in_range else ()


@dataclass(frozen=True)
class CitationResult:
    sentences: tuple[SentenceVerdict, ...]
    recall: float | None  # None: no sentence, ALCE leaves the output out
    precision: float | None


def prepared(output: str) -> str:
    """The output as ALCE's citation check reads it: newline runs as spaces, no end token."""
    return _NEWLINES.sub(" ", output).replace("<|im_end|>", "")


@lru_cache(maxsize=1)
def _sentence_splitter() -> tuple[Callable[[str], list[str]], str]:
    """nltk's English Punkt model when it is installed (what ALCE uses), else Punkt
    untrained (the same algorithm without its list of abbreviations)."""
    import nltk
    from nltk.tokenize.punkt import PunktSentenceTokenizer

    try:
        nltk.data.find("tokenizers/punkt_tab/english/")
    except LookupError:
        return PunktSentenceTokenizer().tokenize, "punkt-untrained"
    return nltk.sent_tokenize, "punkt"


def splitter_name() -> str:
    return _sentence_splitter()[1]


def split_sentences(output: str, question: str, qampari: bool) -> list[str]:
    """The sentences ALCE checks citations of (module docstring)."""
    text = prepared(output)
    if qampari:
        items = text.rstrip().rstrip(".").rstrip(",").split(",")
        return [question + " " + item.strip() for item in items]
    return [s for s in _sentence_splitter()[0](text) if len(s.strip()) >= MIN_SENTENCE_CHARS]


def format_doc(doc: CitedDoc) -> str:
    """A document as the entailment model reads it (ALCE's layout)."""
    return f"Title: {doc.title}\n{doc.text}"


def judge_sentence(sentence: str, docs: Sequence[CitedDoc], entails: Entailment) -> SentenceVerdict:
    claim = prepare_output(sentence).strip()
    cited = tuple(int(mark[1:]) for mark in _CITED_NUMBER.findall(sentence))
    indices = [number - 1 for number in cited]
    in_range = bool(indices) and all(i < len(docs) for i in indices)
    if not in_range:
        return SentenceVerdict(sentence, claim, cited, False, False, (), ())
    refs = indices[:AT_MOST_CITATIONS]

    def joined(ids: Sequence[int]) -> str:
        return "\n".join(format_doc(docs[i]) for i in ids)

    supported = entails(joined(refs), claim)
    if not supported:
        return SentenceVerdict(sentence, claim, cited, True, False, (False,) * len(refs), ())
    if len(refs) == 1:
        return SentenceVerdict(sentence, claim, cited, True, True, (True,), ())
    needed: list[bool] = []
    overcited: list[int] = []
    for ref in refs:
        if entails(format_doc(docs[ref]), claim):
            needed.append(True)
            continue
        rest = list(refs)
        rest.remove(ref)  # the first occurrence, as ALCE removes it
        if entails(joined(rest), claim):
            needed.append(False)
            overcited.append(ref + 1)
        else:
            needed.append(True)
    return SentenceVerdict(sentence, claim, cited, True, True, tuple(needed), tuple(overcited))


def citation_result(
    output: str, question: str, docs: Sequence[CitedDoc], entails: Entailment, qampari: bool
) -> CitationResult:
    """ALCE's citation recall and precision of one output (module docstring)."""
    sentences = split_sentences(output, question, qampari)
    if not sentences:
        return CitationResult((), None, None)
    verdicts = tuple(judge_sentence(s, docs, entails) for s in sentences)
    recall = sum(v.supported for v in verdicts) / len(verdicts)
    counted = sum(len(v.counted) for v in verdicts)
    needed = sum(sum(v.needed) for v in verdicts)
    return CitationResult(verdicts, recall, needed / counted if counted else 0.0)


def _sentence_point(index: int, verdict: SentenceVerdict, docs: int) -> RubricPoint:
    shown = shorten(verdict.claim, 80, one_line=True)
    cited = "".join(f"[{n}]" for n in verdict.cited)
    if not verdict.cited:
        why = f"sentence {shown!r} cites no document"
    elif not verdict.in_range:
        why = f"sentence {shown!r} cites {cited}, not all of them among the {docs} documents"
    elif verdict.supported:
        why = f"sentence {shown!r}: {cited} entail it"
        if verdict.overcited:
            why += "; not needed: " + "".join(f"[{n}]" for n in verdict.overcited)
    else:
        why = f"sentence {shown!r}: {cited} do not entail it"
    return make_point(f"sentence {index}", 1.0, float(verdict.supported), why, (ORI, RECOG))


def citation_score(result: CitationResult, docs: int, decider: str) -> Score:
    """The citation score of one output: value = recall, precision in extras, one rubric
    point per sentence (earned when its citations support it). `decider` names what
    decided entailment (an NLI model, an LLM judge)."""
    if result.recall is None or result.precision is None:
        why = "no sentence to check: ALCE leaves this output out of its citation means"
        point = make_point("sentences", 1.0, 0.0, why)
        return Score(
            CITATION_SCORER,
            RECALL_METRIC,
            0.0,
            ScoreStatus.UNPARSED,
            (),
            why,
            (point,),
            {"decider": decider, "sentence_splitter": splitter_name()},
        )
    verdicts = result.sentences
    counted = sum(len(v.counted) for v in verdicts)
    needed = sum(sum(v.needed) for v in verdicts)
    explanation = (
        f"citation recall {result.recall:.2f} ({sum(v.supported for v in verdicts)} of "
        f"{len(verdicts)} sentences supported), precision {result.precision:.2f} "
        f"({needed} of {counted} citations needed); entailment by {decider}"
    )
    return Score(
        CITATION_SCORER,
        RECALL_METRIC,
        result.recall,
        ScoreStatus.OK,
        tuple(v.claim for v in verdicts),
        explanation,
        tuple(_sentence_point(i, v, docs) for i, v in enumerate(verdicts, 1)),
        {
            PRECISION_METRIC: result.precision,
            "sentences": len(verdicts),
            "citations": counted,
            "needed_citations": needed,
            "cited": [list(v.cited) for v in verdicts],
            "decider": decider,
            "sentence_splitter": splitter_name(),
        },
    )


# -- the LLM judge as the entailment decider ------------------------------------------

ROLE_ENTAIL = "entail"
_VERDICT_WORD = re.compile(r"\b(entailed|not entailed|yes|no|1|0)\b", re.IGNORECASE)


def entailment_prompt(premise: str, hypothesis: str) -> JudgePrompt:
    """What the LLM judge is asked in place of the NLI model (our own wording)."""
    text = (
        "Decide whether the source text below, taken as true, is enough to establish the "
        "claim after it. Do not use outside knowledge.\n\n"
        f"Source text:\n{premise}\n\nClaim:\n{hypothesis}\n\n"
        "Reply with one word: entailed if the source text establishes the claim, "
        "not entailed otherwise."
    )
    return JudgePrompt(ROLE_ENTAIL, text, 16)


def read_entailment(reply: str) -> bool | None:
    """The judge's verdict: its first verdict word, or None when it gives none."""
    found = _VERDICT_WORD.search(reply)
    if found is None:
        return None
    return found.group(1).lower() in ("entailed", "yes", "1")
