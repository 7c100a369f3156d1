"""Invented long-document QA data in the layouts of NarrativeQA's and InfiniteBench's hub
repositories, at any story length.

`write_longqa_release(root, sentences=...)` writes, under `root/hub/ORG/NAME/` (where
`--data root` finds hub-origin files) or straight into a hub-cache snapshot folder
(`prefix=False`):
- `deepmind/narrativeqa/data/{test,train}-00000-of-00001.parquet`: rows with `document`
  {id, kind, url, word_count, summary {text, title}, text}, `question` {text, tokens},
  `answers` [{text, tokens}], each story repeated on each of its questions;
- `xinrongzhang2022/infinitebench/longbook_{qa,choice}_eng.jsonl`: rows {id, context,
  input, answer, options}.
Every story, name and fact is made up. The committed fixtures
(tests/fixtures/helmet/longqa, written by tests/fixtures/helmet/make_longqa.py) are
these at 160 sentences a story (about 2,600 o200k_base tokens); tests write longer ones.
"""

from __future__ import annotations

import json
import random
from pathlib import Path
from typing import Any

from helpers.cached_folder import cached_folder

LONGQA_FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "helmet" / "longqa"
NARRATIVEQA = "deepmind/narrativeqa"
INFBENCH = "xinrongzhang2022/infinitebench"
NQA_TEST = "data/test-00000-of-00001.parquet"
NQA_TRAIN = "data/train-00000-of-00001.parquet"
IB_QA = "longbook_qa_eng.jsonl"
IB_MC = "longbook_choice_eng.jsonl"
FIXTURE_SENTENCES = 160

_SYLLABLES = ["bra", "dun", "mor", "vel", "kio", "tas", "fen", "lor", "quin", "sab", "reth", "oma"]
_PLACES = ["harbour", "mill", "orchard", "lighthouse", "market", "chapel", "ferry", "forge"]
_FILLER = [
    "{a} walked along the {p} while the rain kept falling on the roofs of the town.",
    "Nobody in the {p} remembered when {a} had last spoken to {b} about the old debts.",
    "In the evening {b} counted the lamps of the {p} and wrote the number in a ledger.",
    "The letters from {a} arrived every week, and {b} read them twice before sleeping.",
    "A cart full of barrels rolled past the {p}, and the driver waved at {a}.",
    "{b} mended the fence behind the {p} and thought about the winter ahead.",
]


def _name(rng: random.Random) -> str:
    return "".join(rng.choice(_SYLLABLES) for _ in range(2)).capitalize()


def story(rng: random.Random, hero: str, friend: str, place: str, sentences: int) -> str:
    """A made-up story: its facts first, then `sentences` sentences of everyday detail."""
    facts = [
        f"{hero} kept the {place} of the northern town for many years.",
        f"{hero} had a sister called {friend}, who sailed to the southern islands.",
        f"When the storm came, {hero} hid the keys of the {place} inside a clay jar.",
    ]
    lines = [
        rng.choice(_FILLER).format(a=rng.choice([hero, friend]), b=_name(rng), p=place)
        for _ in range(sentences)
    ]
    return " ".join(facts + lines)


def _questions(hero: str, friend: str, place: str) -> list[tuple[str, list[str], list[str]]]:
    """(question, answers, wrong options) about one story."""
    return [
        (f"What did {hero} keep?", [f"the {place}", f"The {place} of the northern town"], []),
        (f"Who is {hero}'s sister?", [friend, f"{friend}, who sailed south"], []),
        (f"Where did {hero} hide the keys?", ["inside a clay jar", "in a clay jar"], []),
    ]


def _wrong(rng: random.Random, right: str) -> list[str]:
    picks = [f"{rng.choice(['under', 'behind', 'beside'])} the {p}" for p in _PLACES]
    return [p for p in dict.fromkeys(picks) if p != right][:3]


def narrativeqa_rows(stories: int, sentences: int, seed: int) -> list[dict[str, Any]]:
    rng = random.Random(seed)
    rows = []
    for s in range(stories):
        hero, friend, place = _name(rng), _name(rng), rng.choice(_PLACES)
        text = story(rng, hero, friend, place, sentences)
        document = {
            "id": f"{seed:02d}{s:02d}beefcafe{s:04d}",
            "kind": "gutenberg" if s % 2 == 0 else "movie",
            "url": f"https://example.org/stories/{seed}/{s}",
            "word_count": len(text.split()),
            "summary": {"text": f"{hero} keeps a {place}.", "title": f"The {place} of {hero}"},
            "text": text,
        }
        for question, answers, _ in _questions(hero, friend, place):
            rows.append(
                {
                    "document": document,
                    "question": {"text": question, "tokens": question.split()},
                    "answers": [{"text": a, "tokens": a.split()} for a in answers],
                }
            )
    return rows


def infbench_rows(count: int, sentences: int, seed: int, choice: bool) -> list[dict[str, Any]]:
    rng = random.Random(seed)
    rows = []
    for i in range(count):
        hero, friend, place = _name(rng), _name(rng), rng.choice(_PLACES)
        text = story(rng, hero, friend, place, sentences)
        question, answers, _ = _questions(hero, friend, place)[i % 3]
        row: dict[str, Any] = {"id": i, "context": text, "input": question}
        if choice:
            right = answers[0]
            options = [right, *_wrong(rng, right)]
            rng.shuffle(options)
            row.update(answer=[right], options=options)
        else:
            row.update(answer=answers[:1], options=[])
        rows.append(row)
    return rows


def _parquet(path: Path, rows: list[dict[str, Any]]) -> None:
    import pyarrow as pa
    import pyarrow.parquet as pq

    path.parent.mkdir(parents=True, exist_ok=True)
    pq.write_table(pa.Table.from_pylist(rows), path)


def _jsonl(path: Path, rows: list[dict[str, Any]]) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))


def write_narrativeqa(folder: Path, stories: int = 3, sentences: int = FIXTURE_SENTENCES) -> Path:
    """NarrativeQA's test (`stories` stories, three questions each) and train split (four
    stories, for demonstrations) into `folder` (a repository's root)."""
    _parquet(folder / NQA_TEST, narrativeqa_rows(stories, sentences, seed=1))
    _parquet(folder / NQA_TRAIN, narrativeqa_rows(4, 20, seed=2))
    return folder


def write_infbench(folder: Path, rows: int = 6, sentences: int = FIXTURE_SENTENCES) -> Path:
    """InfiniteBench's QA and multiple-choice files (`rows` rows each) into `folder`."""
    _jsonl(folder / IB_QA, infbench_rows(rows, sentences, seed=3, choice=False))
    _jsonl(folder / IB_MC, infbench_rows(rows, sentences, seed=4, choice=True))
    return folder


def write_longqa_release(root: Path, sentences: int = FIXTURE_SENTENCES, rows: int = 6) -> Path:
    """Both datasets under `root/hub/ORG/NAME/` (the layout `--data root` reads)."""
    write_narrativeqa(root / "hub" / NARRATIVEQA, stories=max(1, rows // 2), sentences=sentences)
    write_infbench(root / "hub" / INFBENCH, rows=rows, sentences=sentences)
    return root


def cached_longqa_release(cache: Path, sentences: int) -> Path:
    """`write_longqa_release(..., sentences)` kept under `cache` between sessions
    (helpers.cached_folder: rewritten when this module or `sentences` changes)."""
    return cached_folder(
        cache,
        "longqa-release",
        lambda folder: write_longqa_release(folder, sentences=sentences),
        __file__,
        str(sentences),
    )
