"""HELMET's in-context-learning items (data.py `load_icl`, 4526dfb), made from the hub's
files as its loader makes them (the draws are tasks/helmet/icl_data.py's, checked
against HELMET's own code there).

- The data: TREC (coarse or fine labels), BANKING77, CLINC150 (`clinc_oos` plus: its
  validation split asked) and NLU (its train split cut 90/10 by
  `train_test_split(test_size=0.1, seed)`), the Parquet files of the hub (cache) or of
  PATH/hub/ORG/NAME/; HELMET's loader picks the dataset by the name's words, in its
  order.
- The shots: the number before `shot` in the name; only `..._balance` names are run
  (HELMET's other draw, `np.random.choice` over the split, is not followed).
- The asked rows: all of them, or, when the split has more than `max_test_samples`, that
  many label-balanced ones of `Dataset.shuffle(seed)`'s order.
- Each asked row: its seed is (sha256(text) + seed) mod 2**31; it draws the balanced
  demonstrations from the train split and shuffles `range(num_labels)` into the integer
  shown for each label (`..._natural_label`: the label's name instead); each
  demonstration is the loader's item template filled with its text and label, joined
  by blank lines: the context; the question is the row's text, the answer its label.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from lctui.tasks.datasets import DataSource
from lctui.tasks.helmet.icl import DATASETS
from lctui.tasks.helmet.icl_data import (
    IclRow,
    IclSpec,
    balanced,
    label_groups,
    label_mapping,
    label_names,
    permuted,
    read_rows,
    row_seed,
    split_off_test,
)
from lctui.tasks.inputs.helmet_items import (
    HelmetItem,
    ItemProblem,
    RowFails,
    Sampling,
    family_of,
    filled,
)

DEMO_JOINER = "\n\n"
# Where each of load_icl's datasets is and what HELMET reads of it: the ICL tasks' own
# declarations (tasks/helmet/icl.py), by lctui's task.
SPECS = {task: spec for task, (spec, _) in DATASETS.items()}


def icl_spec(dataset: str) -> tuple[str, IclSpec] | None:
    """(lctui's task, where and what) of an ICL dataset name, as load_icl picks it."""
    family = family_of(dataset)
    if family is None or family.loader != "load_icl":
        return None
    return family.task, SPECS[family.task]


@dataclass(frozen=True)
class IclFiles:
    train: Path
    test: Path | None


def icl_files(inputs: Path, dataset: str) -> IclFiles | str:
    """The dataset's files under the inputs' folder (`hub/ORG/NAME/...`) or in the hub
    cache, or what is missing."""
    found = icl_spec(dataset)
    assert found is not None
    spec = found[1]
    source = DataSource(folder=inputs if inputs.is_dir() else None)
    train = source.locate(spec.release_path(spec.train))
    test = source.locate(spec.release_path(spec.test)) if spec.test else None
    if train is None or (spec.test and test is None):
        return f"{spec.repo}'s {spec.train}{' and ' + spec.test if spec.test else ''}"
    return IclFiles(train, test)


def icl_items(
    files: IclFiles, item_template: str, sampling: Sampling
) -> list[HelmetItem | ItemProblem]:
    found = icl_spec(sampling.dataset)
    assert found is not None
    spec = found[1]
    try:
        shots = int(sampling.dataset.split("shot")[0].split("_")[-1])
    except ValueError:
        return [ItemProblem(1, f"{sampling.dataset}: no number of shots before 'shot'")]
    if "balance" not in sampling.dataset:
        why = f"{sampling.dataset}: only balanced draws (`..._balance`) are followed"
        return [ItemProblem(1, why)]
    train, problems = read_rows(files.train, spec)
    made: list[HelmetItem | ItemProblem] = [ItemProblem(p.line, p.reason) for p in problems]
    if files.test is None:
        train_rows, asked = split_off_test(train, sampling.seed)
    else:
        train_rows = list(train)
        asked_rows, test_problems = read_rows(files.test, spec)
        made += [ItemProblem(p.line, p.reason) for p in test_problems]
        asked = list(asked_rows)
    limit = sampling.max_test_samples
    if limit is not None and len(asked) > limit:
        asked = balanced(permuted(asked, sampling.seed), limit, sampling.seed, _label)
    names = label_names(files.train, spec.label_field)
    natural = "natural_label" in sampling.dataset
    if natural and names is None:
        return [*made, ItemProblem(1, "natural labels, but the files name no labels")]
    groups = label_groups(train_rows)
    for row in asked:
        try:
            shown = names if natural else None
            made.append(
                _item(row, train_rows, shots, spec, shown, item_template, sampling.seed, groups)
            )
        except RowFails as err:
            made.append(ItemProblem(row.line, str(err)))
    return made


def _label(row: IclRow) -> int:
    return row.label


def _item(
    row: IclRow,
    train: list[IclRow],
    shots: int,
    spec: IclSpec,
    names: tuple[str, ...] | None,
    item_template: str,
    seed: int,
    groups: int,
) -> HelmetItem:
    local = row_seed(row.text, seed)
    demos = balanced(train, shots, local, _label) if groups else []
    shown: list[str] = (
        list(names[: spec.num_labels])
        if names is not None
        else [str(i) for i in label_mapping(spec.num_labels, local)]
    )
    context = DEMO_JOINER.join(
        filled(item_template, {"text": d.text, "label": shown[d.label]}, "a demonstration")
        for d in demos
    )
    answer = shown[row.label]
    return HelmetItem(
        row.line,
        {"text": row.text, "context": context, "question": row.text, "answer": answer},
        (answer,),
        {
            "scorer": "helmet_icl",
            "asked_label": row.label,
            "asked_text": row.text,
            "shots": len(demos),
        },
    )
