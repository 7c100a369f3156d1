"""HELMET's metrics of its real-data categories, rule for rule, as pure functions.

- Re-ranking (MS MARCO): the ranking `id > id > ...` read defensively
  (`parse_ranking`), NDCG@10 against graded relevance labels through trec_eval's
  bindings (`pytrec_eval`, as HELMET), rounded to 5 decimals as HELMET stores it.
- In-context learning: the label on the answer line (`parse_output` with the task's
  prefix), exact match after HELMET's normalisation; no credit from the raw output.
- Long-document QA: ROUGE-L F1 through `rouge-score` (its default tokenizer, Porter
  stemming), the best over the gold answers and over the raw output and its answer line.
- InfiniteBench multiple choice: EM of the raw output and its answer line, or the gold
  option's text `"B. ..."` occurring in the raw output (case-insensitive).

tests/parity/helmet_real.jsonl holds HELMET's own results for outputs written to reach
each of these rules, and lctui's equal them on every row. Where HELMET's rule credits
what it should not (the letter "A" normalises to "", an article), lctui gives HELMET's
value and its scorer says so in a rubric point (scoring/helmet_scorers.py).
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from functools import cache, lru_cache
from typing import TYPE_CHECKING, Any

from lctui.scoring.metrics import DEFAULT_ANSWER_PREFIX, Golds, parse_output
from lctui.scoring.normalize import normalize_answer

if TYPE_CHECKING:
    from rouge_score.rouge_scorer import RougeScorer

# rouge-score and pytrec_eval are imported where first used: rouge-score pulls in
# nltk (about 1.5 s), which every `lctui` command would otherwise pay at start.

NDCG_CUT = 10
# HELMET rounds each example's NDCG to 5 decimals before averaging them.
NDCG_DECIMALS = 5
# Brackets and colons go before the ids are read: "[ID: 3]" and "ID3" both become "3".
_RANKING_NOISE = str.maketrans("", "", "[]:")
# A run of integers joined by ">" (a single integer is a run of one).
_RANKING_RUN = re.compile(r"\d+(?:\s*>\s*\d+)*")


@dataclass(frozen=True)
class ParsedRanking:
    """The ids of a ranking in the order given, each once, as HELMET reads them.

    `ids` may hold ids that name no passage; `named` is every id the run named, in
    order, repeats included. When the output holds no integer at all, HELMET ranks the
    whole cleaned output as one "id" (which matches nothing): `found` is then False.
    """

    ids: tuple[str, ...]
    named: tuple[str, ...]
    found: bool

    @property
    def entries(self) -> int:
        return len(self.named)

    def run_scores(self) -> dict[str, float]:
        """The ranking as a trec run, scored as HELMET: the id at place i of the named
        ids (repeats included) scores len(named) - i, a repeat keeps its first score."""
        scores: dict[str, float] = {}
        for place, doc in enumerate(self.named):
            scores.setdefault(doc, float(len(self.named) - place))
        return scores


def parse_ranking(output: str) -> ParsedRanking:
    """Read `output` as HELMET reads a ranking.

    Brackets and colons are dropped, the text is lower-cased and every "id" deleted
    (so "ID3", "[ID: 3]" and "id 3" all give 3; so does "valid3"); then the longest run
    of integers joined by ">" is the ranking (the first of equally long runs). Repeats
    keep their first place. Ids stay strings: "03" is not "3".
    """
    cleaned = output.translate(_RANKING_NOISE).lower().replace("id", "")
    longest = ""
    for run in _RANKING_RUN.finditer(cleaned):
        if len(run.group(0)) > len(longest):
            longest = run.group(0)
    if not longest:
        return ParsedRanking(ids=(cleaned,), named=(cleaned,), found=False)
    named = [part.strip() for part in longest.split(">")]
    named = [part for part in named if part.isdigit()]
    return ParsedRanking(ids=tuple(dict.fromkeys(named)), named=tuple(named), found=True)


def ndcg_at_10(ranking: ParsedRanking, qrels: Mapping[str, int]) -> float:
    """trec_eval's ndcg_cut.10 of `ranking` against graded labels, rounded as HELMET.

    `qrels` maps every passage id of the prompt to its relevance label (0 = not
    relevant); ids the ranking names that are not in it count as not relevant.
    """
    if not qrels:
        raise ValueError("cannot compute NDCG without relevance labels (qrels)")
    import pytrec_eval

    judged = {str(doc): int(label) for doc, label in qrels.items()}
    # Ids of no passage keep their places under stand-in names: any text can reach the
    # run (the whole output when it holds no integer), and trec_eval's C code cannot
    # take every string (a lone surrogate in a run id crashes the process).
    run = {}
    for place, (doc, score) in enumerate(ranking.run_scores().items()):
        if doc not in judged:
            doc = f"unjudged-{place}"
            while doc in judged:
                doc += "'"
        run[doc] = score
    evaluator = pytrec_eval.RelevanceEvaluator({"q": judged}, {f"ndcg_cut.{NDCG_CUT}"})
    result: dict[str, dict[str, float]] = evaluator.evaluate({"q": run})
    return round(float(result["q"][f"ndcg_cut_{NDCG_CUT}"]), NDCG_DECIMALS)


def _golds_list(golds: Golds) -> list[str]:
    listed = [golds] if isinstance(golds, str) else list(golds)
    if not listed:
        raise ValueError("cannot score against an empty list of gold answers")
    return listed


@dataclass(frozen=True)
class LabelMatch:
    """HELMET's ICL result: the answer line read and whether it is the gold label."""

    parsed: str
    exact_match: float


def icl_label_match(output: str, gold: str, prefix: str) -> LabelMatch:
    """Exact match of the label on the answer line of `output` (HELMET's ICL rule).

    Only the answer line counts (the rest of the line after `prefix`, else the first
    line), compared after normalisation: "Label: 12." matches 12.
    """
    parsed = parse_output(output, prefix)
    return LabelMatch(parsed, float(normalize_answer(parsed) == normalize_answer(gold)))


@cache
def _rouge_l() -> RougeScorer:
    """rouge-score's ROUGE-L with its own tokenizer and Porter stemmer, as HELMET uses it.

    The one change: each word's stem is remembered. Stemming is most of the time of a
    long output (a 1 MB one takes about 1.5 s unremembered), and a stem depends on the
    word alone, so the tokens, and the scores, are the same.
    """
    from nltk.stem import porter
    from rouge_score import tokenize, tokenizers
    from rouge_score.rouge_scorer import RougeScorer

    class RememberingStemmer:
        def __init__(self) -> None:
            self.stem = lru_cache(maxsize=1 << 16)(porter.PorterStemmer().stem)

    class StemmingTokenizer(tokenizers.Tokenizer):
        def __init__(self) -> None:
            self.stemmer = RememberingStemmer()

        def tokenize(self, text: str) -> list[str]:
            tokens: list[str] = tokenize.tokenize(text, self.stemmer)
            return tokens

    return RougeScorer(["rougeL"], tokenizer=StemmingTokenizer())


@dataclass(frozen=True)
class RougeL:
    """ROUGE-L of one text against one gold answer."""

    f1: float
    precision: float
    recall: float
    gold: str


def rouge_l(prediction: str, golds: Golds) -> RougeL:
    """ROUGE-L of `prediction` against the gold answer that gives the highest F1."""
    scored = []
    for gold in _golds_list(golds):
        score = _rouge_l().score(target=gold, prediction=prediction)["rougeL"]
        scored.append(RougeL(score.fmeasure, score.precision, score.recall, gold))
    # max() keeps the first of equal F1s, as HELMET's max over a list does.
    return max(scored, key=lambda result: result.f1)


@dataclass(frozen=True)
class QaRouge:
    """HELMET's ROUGE-L F1 of a long-QA answer: the better of raw output and answer line."""

    f1: float
    best: RougeL  # the ROUGE-L (of raw or answer line) that gave f1
    parsed: str


def qa_rouge_l(output: str, golds: Golds, prefix: str = DEFAULT_ANSWER_PREFIX) -> QaRouge:
    """ROUGE-L F1 as HELMET's default post-processing takes it for InfiniteBench QA."""
    parsed = parse_output(output, prefix)
    raw = rouge_l(output, golds)
    # Whitespace makes no token: an answer line that is the whole output scores the same.
    line = raw if parsed == output.strip() else rouge_l(parsed, golds)
    best = line if line.f1 > raw.f1 else raw
    return QaRouge(f1=best.f1, best=best, parsed=parsed)


@dataclass(frozen=True)
class ChoiceMatch:
    """HELMET's InfiniteBench MC result and the rule that decided it."""

    exact_match: float
    parsed: str
    by_option_text: bool  # the gold option's "X. text" occurs in the raw output
    by_normalised_match: bool  # the output or its answer line equals a gold once normalised


def choice_match(output: str, golds: Sequence[str]) -> ChoiceMatch:
    """InfiniteBench MC as HELMET scores it; `golds` is (letter, "letter. option text").

    EM of the raw output or of its answer line ("Answer:") against both golds, or 1 when
    the second gold occurs in the raw output, case-insensitively. Normalisation deletes
    the articles, so the letter "A" normalises to "" and only an output that normalises
    to "" too ("", "A", "The") equals it.
    """
    if isinstance(golds, str) or len(golds) != 2:
        raise ValueError(f"an InfiniteBench MC gold is (letter, 'letter. option'), not {golds!r}")
    parsed = parse_output(output)
    normalised = [normalize_answer(gold) for gold in golds]
    equal = any(normalize_answer(text) in normalised for text in (output, parsed))
    by_text = golds[1].lower() in output.lower()
    return ChoiceMatch(float(equal or by_text), parsed, by_text, equal)


def as_qrels(value: Any) -> dict[str, int]:
    """Relevance labels from example metadata: {passage id: integer label}."""
    if not isinstance(value, Mapping) or not value:
        raise ValueError("metadata 'qrels' must map each passage id to its relevance label")
    labels: dict[str, int] = {}
    for doc, label in value.items():
        if isinstance(label, bool) or not isinstance(label, (int, str)):
            raise ValueError(f"metadata 'qrels': the label of {doc!r} is not an integer")
        if not str(doc).isprintable() or not str(doc).isascii():
            # trec_eval's C code takes them as C strings: a lone surrogate crashes it.
            raise ValueError(f"metadata 'qrels': passage id {doc!r} is not printable ASCII")
        labels[str(doc)] = int(label)
    return labels
