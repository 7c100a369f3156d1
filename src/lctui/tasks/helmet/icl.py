"""HELMET's in-context-learning category (TREC coarse and fine, BANKING77, CLINC150, NLU),
in our own wording, on the user's copy of the datasets' hub files.

The structure is HELMET's: an instruction, then many solved examples `text\\nlabel: N`
separated by blank lines, then the asked text and the answer prefix `label:`; each label
is shown as an integer, a shuffle of 0..labels-1 seeded per asked row; 20 new tokens;
exact match of the parsed label (the `helmet_icl` scorer). The asked rows, the
balanced demonstrations and the label map are drawn as HELMET draws them
(tasks/helmet/icl_data.py), with HELMET's seed 42 plus the run's seed.

Where HELMET fixes the number of demonstrations per length (`{N}shot_balance`), lctui
fits it to the length: the demonstrations are units tokenised once per tokenizer
(tasks/budget.py's piece cache), n is the largest count whose prompt fits, and the n
shown are HELMET's n-shot draw. The gap that whole demonstrations leave is filled with
the next demonstration of that draw, its text cut to fit and its label kept, so every
prompt lands within the synthetic tasks' tolerance.
"""

from __future__ import annotations

import bisect
import math
import random
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import ClassVar

from lctui.core.errors import UserInputError
from lctui.core.protocols import Tokenizer
from lctui.core.types import ParamSpec
from lctui.tasks.base import Draft, Task
from lctui.tasks.budget import (
    Budget,
    Fitted,
    fit_to_budget,
    longest_fitting,
    piece_counts,
    prefix_sums,
)
from lctui.tasks.datasets import DataProblem
from lctui.tasks.helmet.icl_data import (
    PARQUET_BRANCH,
    IclData,
    IclRow,
    IclSpec,
    demonstrations,
    label_groups,
    label_mapping,
    load,
    locate,
    row_seed,
)
from lctui.tasks.reach import Reach, any_length, estimate_tokens

HELMET_SEED = 42  # HELMET's default --seed: a run's seed s draws as HELMET's 42 + s
MAX_NEW_TOKENS = 20
SEPARATOR = "\n\n"
ANSWER_PREFIX = "label:"
INSTRUCTION = (
    "Each text below is followed by its label, a number. Learn from these examples which "
    "number goes with which kind of text, then label the last text the same way. Reply "
    "with one line: 'label:' and the number."
)
_MAX_SEARCHES = 12

DATASETS: dict[str, tuple[IclSpec, str]] = {
    "icl_trec_coarse": (
        IclSpec(
            "CogComp/trec",
            "default/train/0000.parquet",
            "default/test/0000.parquet",
            PARQUET_BRANCH,
            "coarse_label",
            6,
        ),
        "TREC coarse: question types (6)",
    ),
    "icl_trec_fine": (
        IclSpec(
            "CogComp/trec",
            "default/train/0000.parquet",
            "default/test/0000.parquet",
            PARQUET_BRANCH,
            "fine_label",
            50,
        ),
        "TREC fine: question types (50)",
    ),
    "icl_banking77": (
        IclSpec(
            "PolyAI/banking77",
            "default/train/0000.parquet",
            "default/test/0000.parquet",
            PARQUET_BRANCH,
            "label",
            77,
        ),
        "BANKING77: banking intents (77)",
    ),
    "icl_clinc150": (
        IclSpec(
            "clinc/clinc_oos",
            "plus/train-00000-of-00001.parquet",
            "plus/validation-00000-of-00001.parquet",
            None,
            "intent",
            151,
        ),
        "CLINC150: intents of many domains (150 and out-of-scope)",
    ),
    "icl_nlu": (
        IclSpec(
            "xingkunliuxtracta/nlu_evaluation_data",
            "default/train/0000.parquet",
            None,
            PARQUET_BRANCH,
            "label",
            68,
        ),
        "NLU: home-assistant intents (68)",
    ),
}


_MEAN_TOKENS: dict[tuple[str, str, int], float] = {}


def _mean_text_tokens(data: IclData, tokenizer: Tokenizer) -> float:
    """The mean tokens of a train text (with the newline after it), once per split."""
    key = (data.train_file, tokenizer.name, len(data.train))
    if key not in _MEAN_TOKENS:
        counts = piece_counts(tokenizer).counts([r.text + "\n" for r in data.train])
        _MEAN_TOKENS[key] = sum(counts) / len(counts)
    return _MEAN_TOKENS[key]


def _within(fit: _Fit, budget: Budget) -> bool:
    return fit.fitted.tokens >= budget.target - budget.tolerance


def demo_text(row: IclRow, mapping: list[int]) -> str:
    return f"{row.text}\n{ANSWER_PREFIX} {mapping[row.label]}"


@dataclass(frozen=True)
class _Fit:
    rounds: int
    fitted: Fitted
    shown: int  # demonstrations in the prompt, the cut one included


class HelmetIcl(Task):
    category: ClassVar[str] = "icl"
    suite: ClassVar[str] = "helmet"
    metric: ClassVar[str] = "em"
    needs_data: ClassVar[bool] = True
    prompt_format: ClassVar[str] = "plain"  # HELMET: use_chat_template False
    param_specs: ClassVar[tuple[ParamSpec, ...]] = ()

    def __init__(self, name: str, spec: IclSpec, title: str) -> None:
        super().__init__(
            name,
            f"{title}: label a text from many labelled examples (HELMET ICL)",
            MAX_NEW_TOKENS,
            ANSWER_PREFIX,
            {},
        )
        self.spec = spec

    def _files(self) -> tuple[Path | None, Path | None]:
        train = locate(self.spec, self.spec.train, self.data)
        test = None if self.spec.test is None else locate(self.spec, self.spec.test, self.data)
        return train, test

    def _where(self) -> str:
        branch = f" (branch {self.spec.revision})" if self.spec.revision else ""
        return (
            f"download https://huggingface.co/datasets/{self.spec.repo}{branch} into "
            f"DATA/hub/{self.spec.repo} (hf download {self.spec.repo} --repo-type "
            f"dataset{' --revision ' + self.spec.revision if self.spec.revision else ''} "
            f"--local-dir DATA/hub/{self.spec.repo}) and pass --data DATA, or into the hub cache"
        )

    def unavailable(self) -> str | None:
        train, test = self._files()
        where = self.data.label if self.data is not None else "the hub cache"
        for path, file in ((self.spec.train, train), (self.spec.test, test)):
            if path is not None and file is None:
                return f"{where} has no hub/{self.spec.repo}/{path}; {self._where()}"
        return None

    def _load(self, seed: int) -> IclData:
        reason = self.unavailable()
        if reason is not None:
            raise UserInputError(f"task {self.name}: {reason}")
        train, test = self._files()
        assert train is not None
        data = load(self.spec, train, test, HELMET_SEED + seed)
        if not data.test or not data.train:
            raise UserInputError(
                f"task {self.name}: {data.test_file} holds no usable row (see `lctui tasks`)"
            )
        return data

    def data_problems(self) -> tuple[DataProblem, ...]:
        if self.unavailable() is not None:
            return ()
        return self._load(0).problems

    def data_files(self) -> tuple[Path, ...]:
        return tuple(path for path in self._files() if path is not None)

    def data_reach(self, lengths: Sequence[int]) -> Reach:
        """Any length: the demonstrations are drawn in rounds, every label once per
        round, and a label's rows are drawn again once all were shown."""
        train = self._load(0).train
        tokens, measured = estimate_tokens([row.text + "\n" for row in train])
        how = (
            f"any length: demonstrations repeat once a label's rows run out (the "
            f"{len(train):,} training texts hold about {sum(tokens):,.0f} tokens before "
            f"the first repeat, from {measured})"
        )
        return any_length(lengths, how)

    def _identity(self, length: int, seed: int, index: int, tokenizer: str) -> tuple[object, ...]:
        return (*super()._identity(length, seed, index, tokenizer), self.spec)

    def build(self, rng: random.Random, budget: Budget, tokenizer: Tokenizer, index: int) -> Draft:
        data = self._load(budget.seed)
        helmet_seed = HELMET_SEED + budget.seed
        position = index % len(data.test)
        row = data.test[position]
        seed = row_seed(row.text, helmet_seed)
        mapping = label_mapping(self.spec.num_labels, seed)
        preamble = INSTRUCTION + SEPARATOR
        question = f"{SEPARATOR}{row.text}"
        ask = _Asked(
            data.train,
            seed,
            mapping,
            preamble,
            question,
            label_groups(data.train),
            _mean_text_tokens(data, tokenizer),
        )
        fit = self._fit(ask, budget, tokenizer)
        names = data.label_names
        shown_names = {
            str(mapping[label]): (names[label] if names and label < len(names) else str(label))
            for label in range(self.spec.num_labels)
        }
        context = fit.fitted.text[len(preamble) : len(fit.fitted.text) - len(question)]
        return Draft(
            preamble=preamble,
            context=context,
            question=question,
            gold=(str(mapping[row.label]),),
            tokens=fit.fitted.tokens,
            metadata={
                "scorer": "helmet_icl",
                "label_names": dict(sorted(shown_names.items(), key=lambda kv: int(kv[0]))),
                "asked_label": row.label,
                "asked_text": question,
                "shots": fit.shown,
                "cut_shot": bool(fit.fitted.tail),
                "rounds": fit.rounds,
                # The shown shots are the first of HELMET's draw of this many shots.
                "draw_shots": fit.rounds * ask.labels,
                "helmet_seed": helmet_seed,
                "test_position": position,
                "data_file": data.test_file,
                "data_line": row.line,
                "row_key": row.text,
            },
        )

    def _fit(self, ask: _Asked, budget: Budget, tokenizer: Tokenizer) -> _Fit:
        """The largest n whose prompt fits, the n shown being HELMET's n-shot draw.

        HELMET's draw of n rows takes the first n of ceil(n / labels) rounds, and the
        rounds depend on their number, so the search runs over the number of rounds:
        fit within the units of r rounds, and move r until the fitted n needs r rounds.
        """
        labels = ask.labels
        counts = piece_counts(tokenizer)
        fixed = tokenizer.count(ask.preamble + ask.question)
        if fixed > budget.target:
            raise UserInputError(
                f"a length of {budget.length} tokens is too short for {self.name}: its "
                f"fixed parts alone need about {fixed + budget.reserve + budget.overhead} tokens"
            )
        room = budget.target - fixed
        # A label line is counted with the blank line after it, as it reads.
        label_lines = [f"{ANSWER_PREFIX} {m}{SEPARATOR}" for m in ask.mapping]
        label_tokens = counts.counts(label_lines)  # by original label
        # Start from the mean tokens of a train text and of a label line (the same for
        # every search of this row, so its result never depends on what ran before).
        per_demo = ask.text_tokens + sum(label_tokens) / len(label_tokens)
        rounds = max(1, math.ceil(room / per_demo / labels))
        tried: dict[int, _Fit | None] = {}
        estimated: set[int] = set()
        for _ in range(_MAX_SEARCHES):
            # The prefix sums say which way to move before a prompt is built and counted;
            # a count of rounds the estimate sent the search back to is verified.
            verify = rounds in estimated
            estimated.add(rounds)
            fit, per_round, move = _fit_rounds(
                ask, rounds, labels, fixed, label_tokens, budget, tokenizer, verify
            )
            if move == 0:
                tried[rounds] = fit
                if fit is None or fit.shown <= (rounds - 1) * labels:
                    move = -1
                elif fit.shown == rounds * labels and not _within(fit, budget):
                    move = 1
                else:
                    return fit
            if move < 0:
                nxt = min(rounds - 1, math.ceil(room / per_round)) if rounds > 1 else 0
            else:
                nxt = max(rounds + 1, math.ceil(room / per_round))
            if nxt < 1 or nxt in tried:
                break
            rounds = nxt
        # At a round boundary n and n + 1 shots may both miss the tolerance (n whole
        # rounds leave a gap, one round more is too long for n + 1): then the first n
        # of the draw of one round more are shown, a start of HELMET's draw for it.
        fits = [f for f in tried.values() if f is not None]
        if not fits:
            raise UserInputError(
                f"could not fit demonstrations of {self.name} under {budget.length} tokens "
                f"with {tokenizer.name}"
            )
        return max(
            fits,
            key=lambda f: (
                _within(f, budget),
                f.rounds == math.ceil(f.shown / labels),
                f.fitted.tokens,
            ),
        )


@dataclass(frozen=True)
class _Asked:
    """One asked row with what its prompt is built from."""

    train: tuple[IclRow, ...]
    seed: int  # the row's own seed: its demonstrations and its label map
    mapping: list[int]
    preamble: str
    question: str
    labels: int  # the labels the train split holds: a round of the draw shows each once
    text_tokens: float  # the mean tokens of a train text (with its newline)


def _fit_rounds(
    ask: _Asked,
    rounds: int,
    labels: int,
    fixed: int,
    label_tokens: list[int],
    budget: Budget,
    tokenizer: Tokenizer,
    verify: bool,
) -> tuple[_Fit | None, float, int]:
    """The fit within `rounds` rounds of the draw, the tokens a round takes, and 0; or,
    unless `verify`, when the prefix sums already show that the count that fits needs
    fewer (-1) or more (1) rounds, no fit and that direction."""
    demos = demonstrations(ask.train, rounds, ask.seed)
    # A text is counted with the newline after it: BPE joins a final "?" and "\n".
    text_counts = piece_counts(tokenizer).counts([d.text + "\n" for d in demos])
    prefix = prefix_sums(
        [t + label_tokens[d.label] for t, d in zip(text_counts, demos, strict=True)]
    )
    per_round = max(1.0, prefix[-1] / rounds)
    if not verify:
        room = budget.target - fixed
        whole = max(0, bisect.bisect_right(prefix, room) - 1)
        if whole < len(demos) and whole + 1 <= (rounds - 1) * labels:
            return None, per_round, -1
        if whole == len(demos) and room - prefix[-1] > budget.tolerance:
            return None, per_round, 1
    texts = [demo_text(d, ask.mapping) for d in demos]

    def build_text(n: int, tail: str) -> str:
        shown = SEPARATOR.join(texts[:n] + ([tail] if tail else []))
        return ask.preamble + shown + ask.question

    def partial(n: int, room: int) -> tuple[str, int]:
        words = demos[n].text.split(" ")
        label_line = f"\n{ANSWER_PREFIX} {ask.mapping[demos[n].label]}"
        text, tokens = longest_fitting(
            lambda k: SEPARATOR + " ".join(words[:k]) + label_line,
            len(words) - 1,  # a cut text: the whole one is a whole unit
            room,
            tokenizer,
        )
        return (text[len(SEPARATOR) :], tokens) if text else ("", 0)

    try:
        fitted = fit_to_budget(
            build_text, prefix, fixed, budget, tokenizer, tail=partial, what="demonstration list"
        )
    except UserInputError:
        return None, per_round, 0
    return _Fit(rounds, fitted, fitted.units + (1 if fitted.tail else 0)), per_round, 0


def icl_tasks() -> list[Task]:
    return [HelmetIcl(name, spec, title) for name, (spec, title) in DATASETS.items()]
