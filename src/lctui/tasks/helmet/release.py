"""HELMET tasks on files of its data release: test files per unit count (`_k{K}_`,
the largest present is the pool) and a demonstration file, found in the run's data
source (tasks/datasets.py). What RAG and re-ranking share: which file is read, why a
task cannot run, its data problems and the file as part of an example's identity."""

from __future__ import annotations

from abc import abstractmethod
from collections.abc import Sequence
from pathlib import Path
from typing import ClassVar, Protocol

from lctui.core.errors import UserInputError
from lctui.tasks.base import Task
from lctui.tasks.datasets import DataProblem
from lctui.tasks.reach import HELMET_LENGTHS, Reach, up_to

RELEASE_URL = "https://huggingface.co/datasets/princeton-nlp/HELMET (data.tar.gz)"


class HasProblems(Protocol):
    @property
    def problems(self) -> tuple[DataProblem, ...]: ...

    @property
    def rows(self) -> Sequence[object]: ...


class ReleaseTask(Task):
    """A HELMET task whose rows are in `test_path(K)` for the first K of `file_counts`
    present (largest first), and whose demonstrations are in `demo_path`."""

    suite: ClassVar[str] = "helmet"
    needs_data: ClassVar[bool] = True
    # Largest first; HELMET uses the file of the i-th smallest count for HELMET_LENGTHS[i].
    file_counts: ClassVar[tuple[int, ...]]

    @abstractmethod
    def test_path(self, count: int) -> str:
        """The release path of the test file with `count` units per row."""

    @property
    @abstractmethod
    def demo_path(self) -> str:
        """The release path of the demonstration file."""

    @abstractmethod
    def load_problems(self) -> HasProblems:
        """The loaded data (its rows' problems are what `data_problems` reports)."""

    def test_release_path(self) -> str | None:
        """The test file read: the one with the most units per row that the source has."""
        if self.data is None:
            return None
        for count in self.file_counts:
            if self.data.locate(self.test_path(count)) is not None:
                return self.test_path(count)
        return None

    def unavailable(self) -> str | None:
        largest = self.file_counts[0]
        counts = "_k{" + ",".join(map(str, self.file_counts)) + "}_"
        wanted = self.test_path(largest).replace(f"_k{largest}_", counts)
        where = f"get HELMET's data release from {RELEASE_URL}"
        if self.data is None:
            return f"no data: pass --data DIR or set data_dir in lctui.toml ({where})"
        if self.test_release_path() is None:
            return f"{self.data.label} has no {wanted}; {where}"
        if self.data.locate(self.demo_path) is None:
            return f"{self.data.label} has no {self.demo_path} (the demonstrations); {where}"
        return None

    def release_files(self) -> tuple[str, Path, Path]:
        """(the test file's release path, the test file, the demonstration file); a
        UserInputError saying why when the source lacks them."""
        reason = self.unavailable()
        if reason is not None:
            raise UserInputError(f"task {self.name}: {reason}")
        assert self.data is not None
        release = self.test_release_path()
        assert release is not None
        test_file, demo_file = self.data.locate(release), self.data.locate(self.demo_path)
        assert test_file is not None and demo_file is not None
        return release, test_file, demo_file

    def data_problems(self) -> tuple[DataProblem, ...]:
        if self.unavailable() is not None:
            return ()
        return self.load_problems().problems

    def data_files(self) -> tuple[Path, ...]:
        if self.data is None:
            return ()
        paths = [self.test_path(count) for count in self.file_counts] + [self.demo_path]
        found = (self.data.locate(path) for path in paths)
        return tuple(path for path in found if path is not None)

    def data_reach(self, lengths: Sequence[int]) -> Reach:
        """Up to the length HELMET uses the largest file present for: an example's
        passages come from one row of it, so past that length its prompt comes out short."""
        release = self.test_release_path()
        assert release is not None
        count = next(c for c in self.file_counts if self.test_path(c) == release)
        by_count = dict(zip(sorted(self.file_counts), HELMET_LENGTHS, strict=True))
        rows = len(self.load_problems().rows)
        how = (
            f"largest file present: k{count}, the file HELMET uses at "
            f"{by_count[count] // 1024}K (each row holds {count} passages)"
        )
        return up_to(lengths, by_count[count], rows, how)

    def _identity(self, length: int, seed: int, index: int, tokenizer: str) -> tuple[object, ...]:
        # Which release file the rows come from is part of what the example is.
        return (*super()._identity(length, seed, index, tokenizer), self.test_release_path())
