"""HELMET's in-context-learning datasets on the hub, and how HELMET draws from them.

Facts from HELMET's loader (princeton-nlp/HELMET 4526dfb, data.py load_icl, configs/icl.yaml):
- TREC (CogComp/trec: train/test, `text`, `coarse_label` with 6 labels or `fine_label`
  with 50), BANKING77 (PolyAI/banking77: train/test, `text`, `label`, 77), CLINC150
  (clinc_oos config `plus`: train/validation, `text`, `intent`, 151) and NLU
  (xingkunliuxtracta/nlu_evaluation_data: one train split, `text`, `label`, 68, split
  90/10 by `Dataset.train_test_split(test_size=0.1, seed)`);
- a test split over `max_test_samples` (500) rows is shuffled with the seed
  (`Dataset.shuffle`: numpy's default_rng(seed).permutation) and then label-balanced;
- balanced drawing (`balance_labels`, seeded with `random.Random(seed)`): the rows are
  grouped by label (groups in order of first appearance); rounds = ceil(n / groups);
  each group draws `rounds % size` distinct rows with `sample`, then more with
  `sample` until it has `rounds`; round i holds every group's i-th draw, shuffled;
  the rounds are joined and cut to n;
- each asked row has its own seed: (sha256(text) + seed) mod 2**31; it seeds the
  balanced draw of the demonstrations from the train split and the shuffle of
  `range(num_labels)` that maps each label to the integer shown for it;
- a demonstration reads `{text}\\nlabel: {integer}`, demonstrations joined by blank lines.

Three of the repositories are script-based (their loading script builds the splits);
the hub keeps a Parquet conversion of each on the `refs/convert/parquet` branch, laid
out `CONFIG/SPLIT/0000.parquet`, which is what lctui reads. clinc/clinc_oos holds
Parquet files on its main branch. The label names come from the Parquet files' own
schema metadata (the `datasets` features written with them).
"""

from __future__ import annotations

import hashlib
import math
import random
import threading
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TypeVar

from lctui.core.json_bounds import loads
from lctui.tasks.datasets import HUB_CACHE_ONLY, DataProblem, DataSource, hub_path, read_records
from lctui.tasks.helmet.kilt import shuffled

PARQUET_BRANCH = "refs/convert/parquet"
MAX_TEST_SAMPLES = 500
NLU_TEST_SHARE = 0.1


@dataclass(frozen=True)
class IclSpec:
    """Where one ICL dataset lives on the hub and which fields HELMET reads."""

    repo: str
    train: str  # the file of the demonstration split, inside the repository
    test: str | None  # the asked split's file; None: split off the train file (NLU)
    revision: str | None  # the branch the files are on (None: main)
    label_field: str
    num_labels: int
    text_field: str = "text"

    def release_path(self, path: str) -> str:
        return hub_path(self.repo, path, self.revision)


@dataclass(frozen=True)
class IclRow:
    text: str
    label: int
    line: int  # the row's number in its file (1-based)


@dataclass(frozen=True)
class IclData:
    """The rows HELMET draws from: demonstrations (train) and the asked test rows, in order."""

    train: tuple[IclRow, ...]
    test: tuple[IclRow, ...]
    label_names: tuple[str, ...] | None
    train_file: str
    test_file: str
    problems: tuple[DataProblem, ...]


def locate(spec: IclSpec, path: str, data: DataSource | None) -> Path | None:
    """`path` of the dataset: under `<data dir>/hub/ORG/NAME/`, else on its branch in the
    hub (cache)."""
    source = data if data is not None else HUB_CACHE_ONLY
    return source.locate(spec.release_path(path))


def label_names(path: Path, field: str) -> tuple[str, ...] | None:
    """The class names of `field` that `datasets` wrote into a Parquet file's schema."""
    if path.suffix.lower() != ".parquet":
        return None
    import pyarrow as pa
    import pyarrow.parquet as pq

    try:
        meta = (pq.read_schema(path).metadata or {}).get(b"huggingface")
        features = loads(meta.decode("utf-8"))["info"]["features"] if meta else {}
    except (OSError, ValueError, KeyError, TypeError, pa.ArrowException):
        return None
    described = features.get(field) if isinstance(features, dict) else None
    names = described.get("names") if isinstance(described, dict) else None
    if isinstance(names, list) and all(isinstance(n, str) for n in names):
        return tuple(names)
    return None


def read_rows(path: Path, spec: IclSpec) -> tuple[tuple[IclRow, ...], tuple[DataProblem, ...]]:
    """The usable rows of one split file; rows without text or with a label outside the
    dataset's labels are reported with their number and skipped."""
    loaded = read_records(path)
    rows: list[IclRow] = []
    problems = list(loaded.problems)
    for record, line in zip(loaded.rows, loaded.lines, strict=True):
        problem = _problem(record, spec)
        if problem:
            problems.append(DataProblem(loaded.path, line, problem))
            continue
        rows.append(IclRow(record[spec.text_field], int(record[spec.label_field]), line))
    return tuple(rows), tuple(problems)


def _problem(record: Mapping[str, Any], spec: IclSpec) -> str:
    text, label = record.get(spec.text_field), record.get(spec.label_field)
    if not isinstance(text, str) or not text.strip():
        return f"no '{spec.text_field}' text"
    if isinstance(label, bool) or not isinstance(label, int):
        return f"'{spec.label_field}' is not an integer label"
    if not 0 <= label < spec.num_labels:
        return f"'{spec.label_field}' {label} is outside 0..{spec.num_labels - 1}"
    return ""


T = TypeVar("T")


def permuted(items: Sequence[T], seed: int) -> list[T]:
    """`items` in the order `datasets.Dataset.shuffle(seed=seed)` puts them."""
    return [items[i] for i in shuffled(len(items), seed)]


def split_off_test(rows: Sequence[T], seed: int) -> tuple[list[T], list[T]]:
    """(train, test) as `Dataset.train_test_split(test_size=0.1, seed=seed)` splits them."""
    n_test = math.ceil(NLU_TEST_SHARE * len(rows))
    order = shuffled(len(rows), seed)
    return [rows[i] for i in order[n_test:]], [rows[i] for i in order[:n_test]]


def balanced_rounds(
    rows: Sequence[T], rounds: int, seed: int, label_of: Callable[[T], int]
) -> list[T]:
    """`rounds` rounds of HELMET's balanced draw (module docstring): every label once
    per round, each round shuffled. The first n of these are HELMET's n-shot draw
    whenever `rounds` = ceil(n / labels)."""
    rand = random.Random(seed)
    groups: dict[int, list[T]] = {}
    for row in rows:
        groups.setdefault(label_of(row), []).append(row)
    drawn: list[list[T]] = [[] for _ in range(rounds)]
    for members in groups.values():
        picks = rand.sample(range(len(members)), rounds % len(members))
        while len(picks) < rounds:
            # Rows are drawn again only when a label has fewer rows than rounds.
            picks += rand.sample(range(len(members)), min(rounds - len(picks), len(members)))
        for i, pick in enumerate(picks):
            drawn[i].append(members[pick])
    for one_round in drawn:
        rand.shuffle(one_round)
    return [row for one_round in drawn for row in one_round]


def balanced(rows: Sequence[T], n: int, seed: int, label_of: Callable[[T], int]) -> list[T]:
    """HELMET's n-row balanced draw."""
    labels = len({label_of(row) for row in rows})
    if n <= 0 or not labels:
        return []
    return balanced_rounds(rows, math.ceil(n / labels), seed, label_of)[:n]


def row_seed(text: str, seed: int) -> int:
    """The seed of an asked row: (sha256 of its text + the run's seed) mod 2**31."""
    return (int(hashlib.sha256(text.encode("utf-8")).hexdigest(), 16) + seed) % 2**31


def label_mapping(num_labels: int, seed: int) -> list[int]:
    """mapping[label] = the integer shown for it: range(num_labels) shuffled by `seed`
    (HELMET seeds the global `random` with it; a private generator draws the same)."""
    mapping = list(range(num_labels))
    random.Random(seed).shuffle(mapping)
    return mapping


def _label(row: IclRow) -> int:
    return row.label


def test_rows(rows: Sequence[IclRow], seed: int) -> list[IclRow]:
    """The asked rows in HELMET's order: all of them when there are at most 500, else
    500 label-balanced ones from the shuffled split."""
    if len(rows) <= MAX_TEST_SAMPLES:
        return list(rows)
    return balanced(permuted(rows, seed), MAX_TEST_SAMPLES, seed, _label)


def demonstrations(train: Sequence[IclRow], rounds: int, seed: int) -> list[IclRow]:
    return balanced_rounds(train, rounds, seed, _label)


def label_groups(train: Sequence[IclRow]) -> int:
    return len({row.label for row in train})


_LOADED: dict[tuple[IclSpec, str, str, str, int], IclData] = {}
_LOCK = threading.Lock()


def load(spec: IclSpec, train_file: Path, test_file: Path | None, seed: int) -> IclData:
    """The train rows and HELMET's asked rows for `seed` (kept per dataset, files and
    seed: TREC's two tasks read the same files with different label fields)."""
    key = (spec, str(train_file), str(test_file), _stamp(train_file, test_file), seed)
    with _LOCK:
        if key in _LOADED:
            return _LOADED[key]
    train, problems = read_rows(train_file, spec)
    if test_file is None:
        split_train, test = split_off_test(train, seed)
        data = IclData(
            tuple(split_train),
            tuple(test_rows(test, seed)),
            label_names(train_file, spec.label_field),
            str(train_file),
            str(train_file),
            problems,
        )
    else:
        asked, test_problems = read_rows(test_file, spec)
        data = IclData(
            train,
            tuple(test_rows(asked, seed)),
            label_names(train_file, spec.label_field),
            str(train_file),
            str(test_file),
            (*problems, *test_problems),
        )
    with _LOCK:
        _LOADED[key] = data
    return data


def _stamp(*paths: Path | None) -> str:
    parts = []
    for path in paths:
        if path is not None:
            stat = path.stat()
            parts.append(f"{stat.st_mtime_ns}:{stat.st_size}")
    return "/".join(parts)
