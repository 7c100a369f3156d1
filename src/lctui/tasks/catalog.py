"""Every dataset lctui's tasks read, declared once: what it is, its licence, where to get it
and which tasks read it (`lctui data list | check | fetch`).

Where a dataset's files are and whether they are usable is not declared here: the
tasks say it (`Task.data_files`, `Task.unavailable`, `Task.data_problems`,
`Task.data_reach`), so there is one truth about where a task looks. This module says
how the files get there. A download is one of three kinds:

- `HubFiles`: files of a Hugging Face dataset repository, fetched with huggingface_hub
  into the standard hub cache, or into `DIR/hub/ORG/NAME` for `--data DIR` (the layout
  tasks/datasets.py reads);
- `WebFile`: one file over plain HTTPS into `DIR/PATH`, PATH being where the task looks;
- `Archive`: a tarball unpacked into DIR (HELMET's data release: 11.3 GB to download,
  about 34 GB unpacked), fetched only when asked with `--yes`.

Licences are those stated on the datasets' cards and pages; where a card states none,
the entry says where to read the terms. Adding a dataset is one `Dataset(...)` entry, here
or in its suite's `Suite.datasets`.
"""

from __future__ import annotations

import shlex
from dataclasses import dataclass

from lctui.core.errors import UserInputError
from lctui.core.suites import all_suites
from lctui.tasks.helmet.alce import DATASETS as ALCE
from lctui.tasks.helmet.icl import DATASETS as ICL
from lctui.tasks.helmet.icl_data import IclSpec
from lctui.tasks.helmet.summ_data import (
    INFBENCH_KEY_POINTS,
    INFBENCH_REPO,
    LEXSUM_CONFIG,
    LEXSUM_KEY_POINTS,
    LEXSUM_REPO,
    LEXSUM_REVISION,
)

HUB = "https://huggingface.co/datasets/"
DIR = "DIR"  # how a command names the data folder when the user gave none


@dataclass(frozen=True)
class HubFiles:
    """Files of hub dataset `repo` at `revision` (None: main): the `files` named, or
    those matching `include` (one glob), or the whole repository."""

    repo: str
    revision: str | None = None
    files: tuple[str, ...] = ()
    include: str | None = None
    size: str = ""  # the size the hub shows, when known

    @property
    def url(self) -> str:
        tree = f"/tree/{self.revision.replace('/', '%2F')}" if self.revision else ""
        return f"{HUB}{self.repo}{tree}"

    def patterns(self) -> list[str] | None:
        """What snapshot_download's allow_patterns takes (None: everything)."""
        if self.files:
            return list(self.files)
        return [self.include] if self.include else None

    def command(self, folder: str | None) -> str:
        """The `hf download` command (huggingface_hub >= 0.34) that fetches these files
        into the hub cache, or under `folder` where tasks look for them."""
        parts = ["hf", "download", self.repo, *self.files, "--repo-type", "dataset"]
        if self.revision:
            parts += ["--revision", self.revision]
        if self.include:
            parts += ["--include", self.include]
        if folder is not None:
            parts += ["--local-dir", f"{folder}/hub/{self.repo}"]
        return shlex.join(parts)

    def describe(self) -> str:
        what = ", ".join(self.files) or (self.include or "all files")
        at = f" (revision {self.revision})" if self.revision else ""
        size = f", {self.size}" if self.size else ""
        return f"hub dataset {self.repo}{at}: {what}{size}"


@dataclass(frozen=True)
class WebFile:
    """One file at `url`, saved as `path` under the data folder (where the task looks)."""

    url: str
    path: str

    def command(self, folder: str | None) -> str:
        target = f"{folder or DIR}/{self.path}"
        return shlex.join(["curl", "-fL", "--create-dirs", "-o", target, self.url])

    def describe(self) -> str:
        return f"{self.path} from {self.url}"


@dataclass(frozen=True)
class Archive:
    """A gzipped tarball at `url`, unpacked into the data folder; big enough to be
    fetched only on request (`--yes`)."""

    title: str
    url: str
    download_bytes: int
    unpacked_bytes: int
    holds: str  # what in it lctui reads

    @property
    def file(self) -> str:
        return self.url.rsplit("/", 1)[1]

    def command(self, folder: str | None) -> str:
        target = folder or DIR
        archive = f"{target}/{self.file}"
        fetch = shlex.join(["curl", "-fL", "-C", "-", "--create-dirs", "-o", archive, self.url])
        return f"{fetch} && {shlex.join(['tar', '-xzf', archive, '-C', target])}"

    def describe(self) -> str:
        return (
            f"{self.title} ({self.file}: {self.download_bytes / 1e9:.1f} GB to download, about "
            f"{self.unpacked_bytes / 1e9:.0f} GB unpacked; it holds {self.holds})"
        )


Download = HubFiles | WebFile | Archive


@dataclass(frozen=True)
class Dataset:
    """One dataset: its name in `lctui data`, the tasks reading it, licence, homepage and
    how to get it (`builtin` says what the tasks use instead when nothing is needed)."""

    name: str
    suite: str
    title: str
    tasks: tuple[str, ...]
    licence: str
    homepage: str
    downloads: tuple[Download, ...] = ()
    builtin: str = ""
    note: str = ""


HELMET_RELEASE = Archive(
    "HELMET's data release",
    f"{HUB}princeton-nlp/HELMET/resolve/main/data.tar.gz",
    download_bytes=11_300_000_000,  # as the hub lists it
    unpacked_bytes=34_000_000_000,  # HELMET's README: "about 34GB in storage"
    holds="the KILT RAG files, MS MARCO re-ranking, ALCE, JSON KV and the judge's key points",
)
HELMET_PROMPTS = "https://raw.githubusercontent.com/princeton-nlp/HELMET/main/"
KEY_POINTS_NOTE = "{}: the judge's key points, from HELMET's data release (optional)"


def _kilt(name: str, title: str, licence: str, homepage: str) -> Dataset:
    return Dataset(
        name=name,
        suite="helmet",
        title=f"{title} (HELMET RAG, KILT passages)",
        tasks=(name,),
        licence=licence,
        homepage=homepage,
        downloads=(HELMET_RELEASE,),
    )


def _alce(name: str, title: str, licence: str) -> Dataset:
    demos = ALCE[name][1].demos
    return Dataset(
        name=name,
        suite="helmet",
        title=f"{title} (HELMET citations, ALCE)",
        tasks=(name,),
        licence=licence,
        homepage="https://github.com/princeton-nlp/ALCE",
        downloads=(WebFile(HELMET_PROMPTS + demos, demos), HELMET_RELEASE),
        note=f"{demos}: HELMET's demonstrations, from its GitHub repository (MIT)",
    )


def _icl(name: str, title: str, tasks: tuple[str, ...], licence: str) -> Dataset:
    spec: IclSpec = ICL[tasks[0]][0]
    folder = spec.train.split("/", 1)[0] + "/*"  # the config's folder: train and test
    return Dataset(
        name=name,
        suite="helmet",
        title=f"{title} (HELMET in-context learning)",
        tasks=tasks,
        licence=licence,
        homepage=f"{HUB}{spec.repo}",
        downloads=(HubFiles(spec.repo, spec.revision, include=folder),),
    )


CATALOG: tuple[Dataset, ...] = (
    Dataset(
        name="json_kv",
        suite="helmet",
        title="HELMET's JSON key-value recall",
        tasks=("json_kv",),
        licence="-",
        homepage="https://github.com/princeton-nlp/HELMET",
        builtin="generated by lctui: random UUID pairs",
    ),
    _kilt(
        "kilt_nq",
        "Natural Questions",
        "CC BY-SA 3.0",
        "https://ai.google.com/research/NaturalQuestions",
    ),
    _kilt(
        "kilt_triviaqa",
        "TriviaQA",
        "see https://nlp.cs.washington.edu/triviaqa/",
        "https://nlp.cs.washington.edu/triviaqa/",
    ),
    _kilt("kilt_hotpotqa", "HotpotQA", "CC BY-SA 4.0", "https://hotpotqa.github.io/"),
    _kilt("kilt_popqa", "PopQA", f"see {HUB}akariasai/PopQA", f"{HUB}akariasai/PopQA"),
    _alce(
        "alce_asqa",
        "ASQA",
        "see https://github.com/google-research/language/tree/master/language/asqa",
    ),
    _alce("alce_qampari", "QAMPARI", "see https://samsam3232.github.io/qampari/"),
    Dataset(
        name="msmarco",
        suite="helmet",
        title="MS MARCO passages (HELMET re-ranking)",
        tasks=("msmarco_rerank",),
        licence="MS MARCO terms: non-commercial research use only",
        homepage="https://microsoft.github.io/msmarco/",
        downloads=(HELMET_RELEASE,),
    ),
    _icl(
        "trec",
        "TREC question classification",
        ("icl_trec_coarse", "icl_trec_fine"),
        f"see {HUB}CogComp/trec (none stated)",
    ),
    _icl("banking77", "BANKING77", ("icl_banking77",), "CC BY 4.0"),
    _icl("clinc150", "CLINC150", ("icl_clinc150",), "CC BY 3.0"),
    _icl("nlu", "NLU evaluation data", ("icl_nlu",), "CC BY 4.0"),
    Dataset(
        name="narrativeqa",
        suite="helmet",
        title="NarrativeQA (HELMET long-document QA)",
        tasks=("narrativeqa",),
        licence="Apache-2.0",
        homepage=f"{HUB}deepmind/narrativeqa",
        downloads=(HubFiles("deepmind/narrativeqa", include="data/*"),),
    ),
    Dataset(
        name="infinitebench",
        suite="helmet",
        title="InfiniteBench En.QA, En.MC, En.Sum (HELMET long QA, summarization)",
        tasks=("infbench_qa", "infbench_mc", "infbench_sum"),
        licence="Apache-2.0",
        homepage=f"{HUB}xinrongzhang2022/InfiniteBench",
        downloads=(
            HubFiles(
                INFBENCH_REPO,
                files=(
                    "longbook_qa_eng.jsonl",
                    "longbook_choice_eng.jsonl",
                    "longbook_sum_eng.jsonl",
                ),
                size="563 MB",
            ),
        ),
        note=KEY_POINTS_NOTE.format(INFBENCH_KEY_POINTS),
    ),
    Dataset(
        name="multi_lexsum",
        suite="helmet",
        title="Multi-LexSum (HELMET summarization)",
        tasks=("multi_lexsum",),
        licence="ODC-By",
        homepage=f"{HUB}{LEXSUM_REPO}",
        downloads=(HubFiles(LEXSUM_REPO, LEXSUM_REVISION, include=f"{LEXSUM_CONFIG}/*"),),
        note=KEY_POINTS_NOTE.format(LEXSUM_KEY_POINTS),
    ),
)


def catalog() -> tuple[Dataset, ...]:
    """Every dataset, suite by suite (core/suites.py's order): those a suite declares,
    HELMET's those above."""
    here = {"helmet": CATALOG}
    return tuple(
        d
        for suite in all_suites()
        for d in here.get(suite.name, suite.datasets() if suite.datasets else ())
    )


def select_datasets(name: str) -> list[Dataset]:
    """The datasets `name` stands for: a dataset, a task (its datasets) or a suite."""
    every = catalog()
    found = [d for d in every if name in (d.name, d.suite) or name in d.tasks]
    if not found:
        names = ", ".join(d.name for d in every)
        suites = ", ".join(dict.fromkeys(d.suite for d in every))
        raise UserInputError(
            f"no dataset {name!r}: name a dataset ({names}), a task that reads one, "
            f"or a suite ({suites}); `lctui data list` shows them"
        )
    return found


def downloads_of(datasets: list[Dataset]) -> list[Download]:
    """The downloads of `datasets`, each once, small files before archives (a task
    missing only a small file is then complete without the archive)."""
    unique = list(dict.fromkeys(d for dataset in datasets for d in dataset.downloads))
    return sorted(unique, key=lambda d: isinstance(d, Archive))
