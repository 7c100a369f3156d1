"""What an input kind is: the files of an original benchmark's own inputs, read as they are.

A kind (one module per original, registered in tasks/inputs/registry.py) knows two
things: where its files lie under the path a user gives (`InputKind.locate`: each file
with its task and, where the layout says it, its length) and what one file's rows
say (`InputKind.rows`: each row as an `InputRow`, or why it cannot be one). Everything
else is the framework's (tasks/inputs/reading.py): options, lengths, ids, the file's
digest, where each example came from, bounds and problems. A kind never rewords,
trims or refills what the file holds: the prompt the model reads is the row's text and
answer prefix, joined as the original joins them.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, ClassVar

from lctui.core.types import COMPLETION, USER_MESSAGE, JSONValue, ParamSpec, Span

# How the original sends a prompt (core/types.py): the model continues the text as it
# is, or the text is one chat user message under the model's chat template.
FRAMINGS = (COMPLETION, USER_MESSAGE)
FRAMING_OPTION = "framing"


@dataclass(frozen=True)
class InputFile:
    """One file of inputs under the user's path, and what its place in the layout says."""

    path: Path
    task: str  # lctui's name of the task whose examples the file holds
    # The cell length its layout names; None: the user says, or (`lengths_in_rows`) each
    # row does.
    length: int | None = None


@dataclass(frozen=True)
class InputRow:
    """One row of a file as the original sends it.

    The model reads `text + answer_prefix`, joined with nothing between (a kind whose
    original joins them otherwise puts the separator in one of them), framed as the
    run's framing says. `text` is the row's prompt, byte for byte, without the answer
    prefix. Where the original's scorer reads one part of the prompt as its context
    (`context`), that part is the example's context, the text before it its preamble and
    the text after it (with the answer prefix) its question: the user text is the same.
    Spans are character offsets in that context (the whole text without `context`).
    """

    line: int  # the file's line (or item) the row is on, from 1
    task: str
    text: str
    answer_prefix: str
    gold: tuple[str, ...]
    max_new_tokens: int
    # The prompt's tokens as the original counted them (its own tokenizer); 0: unknown.
    prompt_tokens: int = 0
    # What the task's scorer reads (`scorer`, `metric` and its own keys) and anything
    # else of the row worth keeping; the framework adds where the row came from.
    metadata: Mapping[str, JSONValue] = field(default_factory=dict)
    spans: tuple[Span, ...] = ()
    depth: float | None = None  # in percent of the text, where the task has one
    temperature: float | None = None  # the original's, when it is not the task's
    # The cell length the row names itself, for a kind whose files mix lengths
    # (`InputKind.lengths_in_rows`: LIFBench's records each name their length interval).
    length: int | None = None
    # [start, end) of the part of `text` the original's scorer reads as its context
    # (LIFBench's list or documents, between its markers); None: the whole text.
    context: tuple[int, int] | None = None


@dataclass(frozen=True)
class RowProblem:
    """Why one row of a file is no example (its line, and the reason, said plainly)."""

    line: int
    why: str


class InputKind:
    """An original benchmark's input files, as `lctui run --inputs KIND:PATH` reads them.

    A subclass sets the class attributes (what `lctui data inputs` says of it) and the
    two methods. `framings` are the ways its original sends a prompt, the default
    first; `option_specs` declare its own options (`--input-option KEY=VALUE`, checked
    like a task's parameters), besides `framing`, which every kind with `framings` takes.
    A kind whose original decides how each file is sent (HELMET: per dataset, from its
    config and model class) declares no `framings` and overrides `framing_of`.
    """

    name: ClassVar[str]
    suite: ClassVar[str]
    title: ClassVar[str]  # e.g. "RULER's prepared examples"
    files: ClassVar[str]  # what files it reads, and how they are laid out
    origin: ClassVar[str]  # how the user makes or gets them
    length_hint: ClassVar[str]  # where a file's length comes from, for the error saying so
    framings: ClassVar[tuple[str, ...]] = FRAMINGS
    framing_help: ClassVar[str] = ""  # which of the original's settings each framing is
    option_specs: ClassVar[tuple[ParamSpec, ...]] = ()
    # Each row names its own length (`InputRow.length`), one file holding several: the
    # framework then asks no length of the file, and `--lengths` selects rows.
    lengths_in_rows: ClassVar[bool] = False

    def locate(self, path: Path, options: Mapping[str, Any]) -> tuple[list[InputFile], list[str]]:
        """The files under `path` (a file or a folder) in a stable order, and one problem
        line per file found that cannot be used (named with why); UserInputError when
        `path` holds none of this kind's files."""
        raise NotImplementedError

    def rows(self, file: InputFile, options: Mapping[str, Any]) -> Iterator[InputRow | RowProblem]:
        """Each row of `file`, in order, read through tasks/bounded_read.py; OSError when
        the file cannot be read."""
        raise NotImplementedError

    def framing_of(self, file: InputFile, options: Mapping[str, Any]) -> str:
        """How the prompts of `file` are sent (one of FRAMINGS): the `framing` option."""
        return str(options[FRAMING_OPTION])
