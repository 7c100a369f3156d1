"""What the launch screen chooses, without Textual: its defaults, the last choices kept
between sessions and the problems that keep a run from starting (the command line a run
records is `lctui run`'s own, made by cli/run_args.py's `request_argv`).

The defaults finish in minutes on the embedded model on a laptop's CPU: 2K tokens and
n = 3 (the shipped sample runs took about 7 s per 2K example on 2 CPU cores, so a task
takes about 20 s and RULER's eleven synthetic tasks about 4 to 5 minutes; the estimate
line says so before anything starts). Once a run has started, its choices are what
the screen opens with next time (tui/state/ui_state.py).

Each problem is titled by what happened ("No model chosen", "n per cell is empty"),
and keyed by what it is about, so that the screen can drop it as soon as it no longer
holds.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from lctui.cli.run_args import parse_literal
from lctui.core.bounds import check_n, check_seed
from lctui.core.errors import UserInputError
from lctui.core.lengths import format_length
from lctui.engine.plan import MODEL_TOKENIZER, SHARED_TOKENIZER, shared_default
from lctui.tasks import Task
from lctui.tasks.tokenizers import REFERENCE_TOKENIZERS
from lctui.tui.state.ui_state import recall, remember

TASK_DEFAULT = "default"
# What `--tokenizer` offers (engine.plan): the value None stands for is the default.
TOKENIZER_OPTIONS = [
    ("default", TASK_DEFAULT),
    *((f"{name} (all)", name) for name in REFERENCE_TOKENIZERS),
    ("each model's own", MODEL_TOKENIZER),
]
TOKENIZER_HELP = (
    f"default: with several models, {SHARED_TOKENIZER} for all, so they read the same "
    "examples and their results pair in Compare; with one, LIFBench tasks count with "
    "o200k_base as in their paper, the others with the model's own tokenizer. A reference "
    "tokenizer (all) makes every model read the same examples. Each model's own: each model "
    "builds its own examples, and nothing pairs across models."
)
DEFAULT_LENGTH = 2048
DEFAULT_N = 3
DEFAULT_SEED = 0
REMEMBERED = "launch"  # the key of the last choices in tui-state.json

Overrides = Mapping[str, Mapping[str, Any]]  # task -> parameter -> value


@dataclass(frozen=True)
class LaunchChoices:
    """Everything the launch screen's fields hold, as names and numbers."""

    models: tuple[str, ...] = ()
    tasks: tuple[str, ...] = ()
    params: Overrides = field(default_factory=dict)
    lengths: tuple[int, ...] = (DEFAULT_LENGTH,)
    n: int = DEFAULT_N
    seed: int = DEFAULT_SEED
    tokenizer: str | None = None  # None: the default (engine.plan.shared_default)

    def to_json(self) -> dict[str, Any]:
        return {
            "models": list(self.models),
            "tasks": list(self.tasks),
            "params": {task: dict(values) for task, values in self.params.items()},
            "lengths": list(self.lengths),
            "n": self.n,
            "seed": self.seed,
            "tokenizer": self.tokenizer,
        }


def _names(value: object) -> tuple[str, ...]:
    return tuple(v for v in value if isinstance(v, str)) if isinstance(value, list) else ()


def _whole(value: object, default: int) -> int:
    return value if isinstance(value, int) and not isinstance(value, bool) else default


def choices_from(value: object) -> LaunchChoices:
    """Choices read back from JSON; whatever is missing or malformed takes its default
    (an old or hand-edited file never stops the screen from opening)."""
    if not isinstance(value, dict):
        return LaunchChoices()
    params = value.get("params")
    lengths = value.get("lengths")
    tokenizer = value.get("tokenizer")
    return LaunchChoices(
        models=_names(value.get("models")),
        tasks=_names(value.get("tasks")),
        params={
            str(task): dict(values)
            for task, values in (params.items() if isinstance(params, dict) else ())
            if isinstance(values, dict)
        },
        lengths=tuple(n for n in lengths if _whole(n, 0) > 0) if isinstance(lengths, list) else (),
        n=_whole(value.get("n"), DEFAULT_N),
        seed=_whole(value.get("seed"), DEFAULT_SEED),
        tokenizer=tokenizer if isinstance(tokenizer, str) else None,
    )


def last_choices() -> LaunchChoices:
    """The choices of the last run started from the screen, else the defaults."""
    remembered = recall(REMEMBERED)
    return choices_from(remembered) if remembered is not None else LaunchChoices()


def keep_choices(choices: LaunchChoices) -> None:
    remember(REMEMBERED, choices.to_json())


def tokenizer_note(models: int, tokenizer: str | None) -> tuple[str, bool]:
    """What the tokenizer choice means for a comparison of the chosen models, and
    whether it is a warning (their results will not pair); '' for one model or none."""
    if models < 2:
        return "", False
    if tokenizer == MODEL_TOKENIZER:
        return (
            "each model's own tokenizer: each model builds its own examples, so nothing "
            f"pairs across models in Compare (default: all count with {SHARED_TOKENIZER})"
        ), True
    shared = tokenizer or shared_default(models)
    return (
        f"{models} models read the same examples ({shared} tokens): they pair in Compare. "
        "Each model's own tokenizer (F7) would pair none."
    ), False


# -- problems ------------------------------------------------------------------------------


@dataclass(frozen=True)
class Problem:
    """Why the choices cannot start: `about` (what it concerns: "models", "n",
    "window", "endpoint:NAME", ...), `title` (what happened, for a notification) and
    `text` (what is wrong and how to fix it)."""

    about: str
    title: str
    text: str


def missing_choices(models: int, tasks: int, lengths: int) -> list[Problem]:
    found = []
    if not models:
        text = "choose at least one model (space ticks it)"
        found.append(Problem("models", "No model chosen", text))
    if not tasks:
        text = "choose at least one task (enter ticks it, or a whole category)"
        found.append(Problem("tasks", "No task chosen", text))
    if not lengths:
        found.append(Problem("lengths", "No length chosen", "choose at least one length"))
    return found


# n and seed: the label a message names each by, its check (core.bounds), a value to suggest.
NUMBERS: dict[str, tuple[str, Callable[[int, str], int], str]] = {
    "n": ("n per cell", check_n, str(DEFAULT_N)),
    "seed": ("seed", check_seed, str(DEFAULT_SEED)),
}


def read_number(field: str, raw: str) -> int | Problem:
    """The whole number typed in field `field` (n or seed) if its core.bounds check
    accepts it, else what is wrong with it, an empty field included."""
    label, check, example = NUMBERS[field]
    text = raw.strip()
    if not text:
        return Problem(
            field, f"{label} is empty", f"{label} is empty: type a whole number, e.g. {example}"
        )
    try:
        return check(int(text), label)
    except ValueError:
        return Problem(
            field, f"{label} is not a number", f"{label} must be a whole number, not {text!r}"
        )
    except UserInputError as exc:
        return Problem(field, f"{label} out of bounds", str(exc))


def window_problems(lengths: Sequence[int], windows: Mapping[str, int | None]) -> list[Problem]:
    """A problem per (model, length) above the model's window."""
    return [
        Problem(
            "window",
            "Length above a model's window",
            f"{format_length(n)} is above the {format_length(w)} window of {name}",
        )
        for name, w in windows.items()
        if w is not None
        for n in lengths
        if n > w
    ]


def choice_problems(
    models: Sequence[str],
    tasks: int,
    lengths: Sequence[int],
    numbers: Sequence[int | Problem],
    windows: Mapping[str, int | None],
) -> list[Problem]:
    """Everything wrong with the choices that needs no endpoint asked."""
    problems = missing_choices(len(models), tasks, len(lengths))
    problems += [v for v in numbers if isinstance(v, Problem)]
    return problems + window_problems(lengths, windows)


def still_holding(
    shown: Sequence[Problem], now: Sequence[Problem], chosen: set[str]
) -> list[Problem]:
    """The shown problems that still hold: those found again now, an endpoint's while
    its model is ticked, what was said of a model typed in (until the field changes)."""
    texts = {p.text for p in now}
    return [
        p
        for p in shown
        if p.text in texts
        or (p.about.startswith("endpoint:") and p.about.removeprefix("endpoint:") in chosen)
        or p.about.startswith("add:")
    ]


def notice_title(problems: Sequence[Problem]) -> str:
    """The notification's title: the first problem's, and how many other kinds follow."""
    kinds = list(dict.fromkeys(p.title for p in problems))
    return kinds[0] + (f" (+{len(kinds) - 1} more)" if len(kinds) > 1 else "")


# -- task parameters ---------------------------------------------------------------------


def shown_value(value: Any) -> str:
    """A parameter's value as the editor shows it (what `--set` would take)."""
    return value if isinstance(value, str) else json.dumps(value)


def check_param(task: Task, overrides: Mapping[str, Any], name: str, raw: str) -> Any:
    """The value `raw` gives parameter `name` of `task` (its default when empty), read
    and checked as `--set` reads and checks it, with the task's other overrides (a
    combination the task cannot build is refused too). Raises UserInputError."""
    text = raw.strip()
    value = task.params[name] if not text else parse_literal(text)
    task.with_params({**overrides, name: value})
    return value
