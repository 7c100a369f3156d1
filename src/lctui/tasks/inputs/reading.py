"""Reading an original's input files into examples that run exactly as they are.

`read_inputs` asks the kind where its files are and what their rows say, and makes
every row an `Example` whose user text is the row's text followed by its answer prefix
(`InputRow`): the prompt the original sends, byte for byte. The framework's part, the
same for every kind:

- options: `framing` and the kind's own (`check_options`), checked before any file is read;
- lengths: a file's own from its layout (then `--lengths`, if given, selects among
  them), else the one length the user gives, else an error saying what to pass; for a
  kind whose rows name their own (`lengths_in_rows`), each row's, `--lengths`
  selecting rows;
- ids: a hash of the kind, task, length, framing, the prompt, the gold answers, the
  answer budget, a second call's text (core.types.FollowUp), if any, and what the
  original puts before an output and parses it by, where the kind says
  (core.types.OUTPUT_PREFIX, PARSE_PREFIX, ROW_KEY), so that runs over the same inputs
  pair in every comparison, whatever tokenizer a model counts with, and a changed row is
  another example;
- where each example came from (`SOURCE`: kind, file, its SHA-256 digest, line, row)
  in its metadata, and every file read (`InputFileRecord`) for the run's command;
- bounds: a row that is no example, a row repeated and a file that cannot be read are
  named problems; more prompt text than MAX_TEXT_CHARS is refused whole.
"""

from __future__ import annotations

import dataclasses
import hashlib
from collections.abc import Collection, Iterator, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from lctui.core.errors import UserInputError
from lctui.core.hashing import stable_hash
from lctui.core.lengths import format_length
from lctui.core.types import (
    FOLLOW_UP,
    FRAMING,
    INPUT_TEMPERATURE,
    OUTPUT_PREFIX,
    PARSE_PREFIX,
    ROW_KEY,
    Example,
    JSONValue,
    ParamSpec,
)
from lctui.tasks.bounded_read import MIB
from lctui.tasks.inputs.base import (
    FRAMING_OPTION,
    FRAMINGS,
    InputFile,
    InputKind,
    InputRow,
    RowProblem,
)
from lctui.tasks.inputs.registry import INPUT_KINDS, input_kind
from lctui.tasks.params import check_value
from lctui.tasks.registry import all_tasks, get_task

# Where an example from an original's inputs came from (its metadata): kind, file,
# digest, line and row (its place among the file's rows, from 0).
SOURCE = "inputs"
# What the answer prefix was, before it joined the user text (its metadata).
ANSWER_PREFIX = "answer_prefix"
# The characters of prompt text one run holds at most (about as many bytes of memory for
# ASCII text): the examples of a run are held whole (the engine runs stored examples
# from memory); 13 RULER tasks x 100 rows at 128K are about 700 million.
MAX_TEXT_CHARS = 2048 * MIB
_DIGEST_PIECE = MIB


@dataclass(frozen=True)
class InputsArg:
    """`KIND:PATH` as the user wrote it."""

    kind: InputKind
    path: Path

    @property
    def label(self) -> str:
        return f"{self.kind.name}:{self.path}"


def parse_inputs_arg(text: str) -> InputsArg:
    """`KIND:PATH` (e.g. `ruler:benchmark_root/`); UserInputError naming the kinds."""
    name, sep, path = text.partition(":")
    if not sep or not path or name not in INPUT_KINDS:
        raise UserInputError(
            f"--inputs {text!r}: write KIND:PATH with KIND one of {', '.join(INPUT_KINDS)} "
            "(`lctui data inputs` says what each reads)"
        )
    return InputsArg(input_kind(name), Path(path).expanduser())


def option_specs(kind: InputKind) -> tuple[ParamSpec, ...]:
    """The options of `kind`: `framing` (its original's ways, its default first; none
    for a kind that decides each file's), then its own."""
    if not kind.framings:
        return kind.option_specs
    framing = ParamSpec(
        FRAMING_OPTION,
        kind.framings[0],
        "how each prompt is sent: completion (the model continues the text as it is) or "
        "user (one chat user message under the model's chat template)"
        + (f"; {kind.framing_help}" if kind.framing_help else ""),
        kind="choice",
        choices=kind.framings,
    )
    return (framing, *kind.option_specs)


def check_options(kind: InputKind, given: Mapping[str, Any]) -> dict[str, Any]:
    """`given` checked against the kind's options, the defaults of the others filled in."""
    specs = {spec.name: spec for spec in option_specs(kind)}
    unknown = sorted(set(given) - set(specs))
    if unknown:
        raise UserInputError(
            f"--input-option {unknown[0]}: {kind.name} inputs take "
            f"{', '.join(specs) or 'no options'}"
        )
    where = kind.name
    checked = {name: check_value(where, specs[name], value) for name, value in given.items()}
    return {name: checked.get(name, spec.default) for name, spec in specs.items()}


@dataclass(frozen=True)
class InputFileRecord:
    """One file a run read: what the run's command keeps of it (core.types.RUN_INPUTS)."""

    kind: str
    path: str
    digest: str  # SHA-256 of the file's bytes as read
    task: str
    length: int
    framing: str
    rows: int  # examples taken from it

    def as_dict(self) -> dict[str, JSONValue]:
        return {
            "kind": self.kind,
            "path": self.path,
            "sha256": self.digest,
            "task": self.task,
            "length": self.length,
            "framing": self.framing,
            "rows": self.rows,
        }


@dataclass(frozen=True)
class InputSet:
    """The examples of one `--inputs`, the files they came from, and what was not used."""

    examples: tuple[Example, ...]
    files: tuple[InputFileRecord, ...]
    problems: tuple[str, ...]

    @property
    def tasks(self) -> list[str]:
        return list(dict.fromkeys(e.task for e in self.examples))

    @property
    def lengths(self) -> list[int]:
        return sorted({e.length for e in self.examples})


def read_inputs(
    arg: InputsArg,
    *,
    options: Mapping[str, Any] | None = None,
    lengths: Sequence[int] | None = None,
    n: int | None = None,
    tasks: Collection[str] | None = None,
) -> InputSet:
    """The examples of `arg`'s files: at most `n` per file (all without), of the
    `tasks` named (all without), at `lengths` (see the module). UserInputError when
    nothing can be run, naming why."""
    kind = arg.kind
    chosen = check_options(kind, options or {})
    if not arg.path.exists():
        raise UserInputError(f"--inputs {arg.label}: no such file or folder")
    found, problems = kind.locate(arg.path, chosen)
    reader = _Reader(kind, chosen, n, lengths if kind.lengths_in_rows else None)
    for file in found:
        if tasks is not None and file.task not in tasks:
            continue
        if kind.lengths_in_rows:
            reader.read(file)
            continue
        length = _length_of(kind, file, lengths)
        if length is None:
            continue
        reader.read(dataclasses.replace(file, length=length))
    problems = [*problems, *reader.problems]
    if not reader.examples:
        why = "; ".join(problems[:3]) if problems else "no file of it holds a row asked for"
        raise UserInputError(f"--inputs {arg.label}: nothing to run ({why})")
    return InputSet(tuple(reader.examples), tuple(reader.files), tuple(problems))


def _length_of(kind: InputKind, file: InputFile, lengths: Sequence[int] | None) -> int | None:
    """The cell length of `file`; None when `lengths` leaves it out."""
    if file.length is not None:
        return file.length if not lengths or file.length in lengths else None
    if lengths is not None and len(lengths) == 1:
        return lengths[0]
    given = ", ".join(map(format_length, lengths)) if lengths else "none"
    raise UserInputError(
        f"{file.path}: cannot tell the length of its examples ({kind.length_hint}); pass the "
        f"one length they were made for with --lengths (e.g. --lengths 4k; given: {given})"
    )


class _Reader:
    """Rows to examples, file after file, with the problems met and the bound kept: at
    most `n` examples per file and length, of the `wanted` lengths (rows that name their
    own), all without."""

    def __init__(
        self,
        kind: InputKind,
        options: Mapping[str, Any],
        n: int | None,
        wanted: Sequence[int] | None = None,
    ) -> None:
        self.kind, self.options, self.n = kind, options, n
        self.wanted = set(wanted) if wanted else None
        self.examples: list[Example] = []
        self.files: list[InputFileRecord] = []
        self.problems: list[str] = []
        self._seen: dict[str, str] = {}  # example id -> where it was first read
        self._chars = 0

    def read(self, file: InputFile) -> None:
        """The examples of `file` (its length given, or each row's)."""
        if file.task not in {task.name for task in all_tasks()}:
            self.problems.append(f"{file.path}: task {file.task!r} is none of lctui's; not read")
            return
        framing = self.kind.framing_of(file, self.options)
        if framing not in FRAMINGS:  # a kind's bug, not the user's
            raise ValueError(f"{self.kind.name}: framing {framing!r} is none of {FRAMINGS}")
        taken: dict[int, int] = {}  # length -> examples taken
        try:
            digest = file_digest(file.path)
            for example in self._examples(file, digest, taken, framing):
                taken[example.length] = taken.get(example.length, 0) + 1
        except OSError as err:
            self.problems.append(f"{file.path}: not readable ({err.strerror or err})")
            return
        path = str(file.path)
        for length, count in sorted(taken.items()):
            self.files.append(
                InputFileRecord(self.kind.name, path, digest, file.task, length, framing, count)
            )

    def _examples(
        self, file: InputFile, digest: str, taken: Mapping[int, int], framing: str
    ) -> Iterator[Example]:
        for row in self.kind.rows(file, self.options):
            if file.length is not None and self._full(taken, file.length):
                return  # the file's one length is done: read no further
            if isinstance(row, RowProblem):
                self.problems.append(f"{file.path}:{row.line}: {row.why}")
                continue
            length = file.length if file.length is not None else row.length
            if length is None:  # a kind's slip: its rows must name their length
                raise AssertionError(f"{file.path}:{row.line}: a row without its length")
            if (self.wanted is not None and length not in self.wanted) or self._full(taken, length):
                continue
            position = taken.get(length, 0)
            where = f"{file.path}:{row.line}"
            if not _sendable(row.text + row.answer_prefix):
                self.problems.append(
                    f"{where}: its prompt holds a lone surrogate (JSON's "
                    "\\ud800), which no model can be sent"
                )
                continue
            example = self._example(row, length, digest, file, position, framing)
            first = self._seen.setdefault(example.example_id, where)
            if first != where:
                self.problems.append(f"{where}: the same example as {first}; run once")
                continue
            self._chars += len(example.user_text)
            if self._chars > MAX_TEXT_CHARS:
                raise UserInputError(
                    f"the inputs hold more than {MAX_TEXT_CHARS:,} characters of prompts (at "
                    f"{where}); run part of them at a time: --tasks, --lengths or --n"
                )
            self.examples.append(example)
            yield example

    def _full(self, taken: Mapping[int, int], length: int) -> bool:
        return self.n is not None and taken.get(length, 0) >= self.n

    def _example(
        self, row: InputRow, length: int, digest: str, file: InputFile, position: int, framing: str
    ) -> Example:
        task = get_task(row.task)
        user_text = row.text + row.answer_prefix
        start, end = row.context if row.context is not None else (0, len(row.text))
        identity: tuple[object, ...] = (
            row.task,
            length,
            framing,
            user_text,
            row.gold,
            row.max_new_tokens,
        )
        if FOLLOW_UP in row.metadata:  # the second call's text is prompt too
            identity = (*identity, row.metadata[FOLLOW_UP])
        # What the original puts before an output and parses it by scores it, and a row
        # key tells apart rows the original runs each: part of what the example is
        # (absent for most kinds, whose ids stay as they were).
        extra = [
            (k, row.metadata[k])
            for k in (OUTPUT_PREFIX, PARSE_PREFIX, ROW_KEY)
            if k in row.metadata
        ]
        if extra:
            identity = (*identity, extra)
        metadata: dict[str, JSONValue] = {
            **row.metadata,
            FRAMING: framing,
            ANSWER_PREFIX: row.answer_prefix,
            SOURCE: {
                "kind": self.kind.name,
                "file": str(file.path),
                "sha256": digest,
                "line": row.line,
                "row": position,
            },
        }
        if row.temperature is not None:
            metadata[INPUT_TEMPERATURE] = row.temperature
        return Example(
            example_id=f"{self.kind.name}-{stable_hash('inputs', self.kind.name, *identity)}",
            task=row.task,
            category=task.category,
            suite=self.kind.suite,
            length=length,
            seed=0,
            index=position,
            tokenizer="",  # counted by the original, in its own tokens
            params={},
            # The row's text is the context (spans are in it), or the part of it the
            # original's scorer reads as one; what follows it and the answer prefix are
            # the question, so that the user text is the original's prompt whole.
            preamble=row.text[:start],
            context=row.text[start:end],
            question=row.text[end:] + row.answer_prefix,
            answer_prefix="",
            gold=row.gold,
            max_new_tokens=row.max_new_tokens,
            prompt_tokens=row.prompt_tokens,
            depth=row.depth,
            spans=row.spans,
            metadata=metadata,
        )


def _sendable(text: str) -> bool:
    """Whether `text` can go to a model: UTF-8 has no lone surrogate."""
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


def file_digest(path: Path) -> str:
    """SHA-256 of a file's bytes, read a piece at a time."""
    digest = hashlib.sha256()
    with path.open("rb") as handle:
        while piece := handle.read(_DIGEST_PIECE):
            digest.update(piece)
    return digest.hexdigest()
