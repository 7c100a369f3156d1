"""The user's checkout of THUDM/LongBench, read at run time as its pred.py reads it: the
prompt templates (prompts/*.txt), and the cut it makes for a model (config/
model2maxlen.json and config/model2path.json). Nothing of the checkout is copied into
lctui; each example records the templates' SHA-256 digests.

What pred.py (THUDM/LongBench at 2e00731) does, and `fill` and `PromptCut` redo:

- a template is filled by plain text replacement, in this order: `$DOC$` (the context,
  stripped), `$Q$` (the question, stripped), `$C_A$` to `$C_D$` (each option, stripped);
  the chain of thought's second template then `$COT$` (the first reply, stripped). A
  field holding a placeholder filled after it is filled too, as str.replace does;
- a prompt of more than max_len tokens keeps its first max_len // 2 and its last
  max_len - max_len // 2 tokens, decoded as one sequence. A model of model2path.json
  counts with the Hugging Face tokenizer named there, special tokens added when
  encoding and skipped when decoding; any other model with tiktoken's gpt-4o encoding
  (o200k_base), special-token text encoded as text (suites/longbench/tasks/middle.py's
  `keep_ends` cuts as it does, checked on tests/parity/longbench_structure.jsonl);
- its tokenizer is tiktoken's gpt-4o encoding for a model whose name holds "gpt" or
  "o1", else the one model2path.json names (loaded with the tokenizer's own code; lctui
  runs that code only with trust_remote_code=true).
"""

from __future__ import annotations

import hashlib
from collections.abc import Mapping
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path
from typing import Any

from lctui.core.bounds import MAX_LENGTH, MIN_LENGTH
from lctui.core.errors import MissingDependencyError, UserInputError
from lctui.core.text import escape_unprintable
from lctui.core.types import ParamSpec
from lctui.suites.longbench.tasks.data import LETTERS, LongBenchRow
from lctui.suites.longbench.tasks.middle import MiddleCut, keep_ends
from lctui.tasks.bounded_read import json_object, shown, within
from lctui.tasks.tokenizers import REFERENCE_TOKENIZERS, reference_tokenizer

# pred.py's templates by mode, and the chain of thought's second one.
DIRECT, COT, COT_ANSWER, NO_CONTEXT = (
    "0shot.txt",
    "0shot_cot.txt",
    "0shot_cot_ans.txt",
    "0shot_no_context.txt",
)
TEMPLATES = (DIRECT, COT, COT_ANSWER, NO_CONTEXT)
REASONING = "$COT$"  # where the second template takes the first reply
MAXLEN_FILE, PATH_FILE = "config/model2maxlen.json", "config/model2path.json"
GPT_ENCODING = "o200k_base"  # tiktoken.encoding_for_model("gpt-4o-2024-08-06")
# pred.py's --model default, and the max_len its config gives every model but Claude.
DEFAULT_MODEL = "GLM-4-9B-Chat"
DEFAULT_MAX_LEN = 120_000
_MOST_BYTES = 1024 * 1024  # a template or a config file: a few hundred bytes in the original

CHECKOUT = ParamSpec(
    "checkout",
    None,
    "your checkout of THUDM/LongBench (required): pred.py's prompts/*.txt and config/*.json "
    "are read from it at run time, never copied",
    kind="any",
)
MODEL = ParamSpec(
    "model",
    DEFAULT_MODEL,
    "pred.py's --model: its max_len (config/model2maxlen.json) and tokenizer "
    "(config/model2path.json; tiktoken's gpt-4o encoding for a name with gpt or o1) "
    "cut each prompt as pred.py cuts it",
    kind="any",
)
MAX_LEN = ParamSpec(
    "max_len",
    None,
    "for a model the checkout's config lacks: the prompt tokens pred.py keeps "
    f"(default {DEFAULT_MAX_LEN}, the config's for every model but Claude)",
    kind="int",
    low=MIN_LENGTH,
    high=MAX_LENGTH,
)
TOKENIZER = ParamSpec(
    "tokenizer",
    None,
    "for a model the checkout's config lacks: what counts and cuts, a Hugging Face "
    f"tokenizer (path or name: pred.py's way for a model of model2path.json) or "
    f"{' or '.join(REFERENCE_TOKENIZERS)} (its way for gpt models; default "
    f"{GPT_ENCODING} for a name with gpt or o1)",
    kind="any",
)
TRUST_REMOTE_CODE = ParamSpec(
    "trust_remote_code",
    False,
    "run a Hugging Face tokenizer's own code from its repository, as pred.py does "
    "(GLM-4's tokenizer needs it); false: never",
    kind="any",
)
OPTIONS = (CHECKOUT, MODEL, MAX_LEN, TOKENIZER, TRUST_REMOTE_CODE)


@dataclass(frozen=True)
class CutSettings:
    """How pred.py cuts a model's prompts: to `max_len` tokens of `tokenizer`."""

    model: str  # pred.py's --model
    max_len: int
    tokenizer: str  # a Hugging Face tokenizer's path or name, or a tiktoken encoding
    hf: bool  # pred.py's way for a model of model2path.json (else its way for gpt models)
    source: str  # where the settings come from: the checkout's config, or the options
    trust_remote_code: bool = False

    def as_dict(self) -> dict[str, Any]:
        return {
            "model": self.model,
            "max_len": self.max_len,
            "tokenizer": self.tokenizer,
            "way": "hf" if self.hf else "tiktoken",
            "from": self.source,
        }


@dataclass(frozen=True)
class Checkout:
    """The templates of a checkout (those it has) and the cut for the model."""

    path: Path
    templates: Mapping[str, str]
    digests: Mapping[str, str]  # template file -> SHA-256 of its bytes
    missing: Mapping[str, str] = field(default_factory=dict)  # template file -> why not read
    cut: CutSettings | None = None


def read_checkout(options: Mapping[str, Any]) -> Checkout:
    """The checkout the options name, its templates and the cut for their model;
    UserInputError saying what to fix when the checkout or its config cannot be used."""
    given = options.get(CHECKOUT.name)
    if given is None or not str(given).strip():
        raise UserInputError(
            "longbench inputs need your checkout of THUDM/LongBench, whose pred.py prompts "
            "they are made with: --input-option checkout=PATH"
        )
    path = Path(str(given)).expanduser().resolve()
    if not (path / "prompts").is_dir() or not (path / "config").is_dir():
        raise UserInputError(
            f"checkout={escape_unprintable(str(path))} is no checkout of THUDM/LongBench: it "
            "lacks prompts/ or config/ (git clone https://github.com/THUDM/LongBench)"
        )
    templates: dict[str, str] = {}
    digests: dict[str, str] = {}
    missing: dict[str, str] = {}
    for name in TEMPLATES:
        try:
            raw = _read_small(path, f"prompts/{name}")
        except UserInputError as err:
            missing[name] = str(err)
            continue
        digests[name] = hashlib.sha256(raw).hexdigest()
        # pred.py reads them with open(..., encoding='utf-8').read(): newlines universal.
        templates[name] = raw.decode("utf-8").replace("\r\n", "\n").replace("\r", "\n")
    return Checkout(path, templates, digests, missing, cut_settings(path, options))


def cut_settings(checkout: Path, options: Mapping[str, Any]) -> CutSettings:
    """pred.py's max_len and tokenizer for the options' model: the checkout's config
    when it names the model, else the options `max_len` and `tokenizer`."""
    model = str(options.get(MODEL.name) or DEFAULT_MODEL)
    trust = options.get(TRUST_REMOTE_CODE.name, False)
    if not isinstance(trust, bool):
        raise UserInputError(f"longbench inputs.trust_remote_code must be true or false: {trust!r}")
    maxlens, paths = _config(checkout, MAXLEN_FILE), _config(checkout, PATH_FILE)
    gpt = "gpt" in model or "o1" in model
    given_len, given_tokenizer = options.get(MAX_LEN.name), options.get(TOKENIZER.name)
    if model in maxlens:
        if given_len is not None or given_tokenizer is not None:
            raise UserInputError(
                f"model {shown(model)} is in the checkout's {MAXLEN_FILE}: pred.py cuts its "
                "prompts by the config; drop max_len and tokenizer, or name a model the "
                "config lacks"
            )
        max_len = maxlens[model]
        if not isinstance(max_len, int) or isinstance(max_len, bool):
            raise UserInputError(f"{MAXLEN_FILE}: {shown(model)} has no whole max_len")
        if not MIN_LENGTH <= max_len <= MAX_LENGTH:
            raise UserInputError(
                f"{MAXLEN_FILE}: max_len {max_len} of {shown(model)} is outside "
                f"{MIN_LENGTH}..{MAX_LENGTH}"
            )
        if model in paths:
            if gpt:
                raise UserInputError(
                    f"model {shown(model)}: pred.py counts a name with gpt or o1 with tiktoken "
                    f"but cuts a model of {PATH_FILE} as a Hugging Face tokenizer's, and "
                    "fails on it; rename it in the checkout's config"
                )
            tokenizer = paths[model]
            if not isinstance(tokenizer, str) or not tokenizer.strip():
                raise UserInputError(f"{PATH_FILE}: {shown(model)} names no tokenizer")
            return CutSettings(model, max_len, tokenizer, True, "config", trust)
        if not gpt:
            raise UserInputError(
                f"model {shown(model)} is in {MAXLEN_FILE} but not {PATH_FILE}, and its name "
                "has no gpt or o1: pred.py has no tokenizer for it; add it to model2path.json"
            )
        return CutSettings(model, max_len, GPT_ENCODING, False, "config", trust)
    max_len = DEFAULT_MAX_LEN if given_len is None else int(given_len)
    if given_tokenizer is None:
        if not gpt:
            raise UserInputError(
                f"model {shown(model)} is not in the checkout's {MAXLEN_FILE}: give the "
                "tokenizer pred.py would cut its prompts with (--input-option tokenizer=... "
                "and max_len=...), or name a model of the config with model=..."
            )
        return CutSettings(model, max_len, GPT_ENCODING, False, "options", trust)
    tokenizer = str(given_tokenizer)
    hf = tokenizer not in REFERENCE_TOKENIZERS
    return CutSettings(model, max_len, tokenizer, hf, "options", trust)


def _config(checkout: Path, relative: str) -> Mapping[str, Any]:
    raw = _read_small(checkout, relative)
    found = json_object(raw, first=True)
    if isinstance(found, str):
        raise UserInputError(f"{escape_unprintable(str(checkout / relative))}: {found}")
    return found


def _read_small(checkout: Path, relative: str) -> bytes:
    """A file of the checkout that pred.py reads: small, UTF-8, inside the checkout."""
    path = checkout / relative
    where = escape_unprintable(str(path))
    if not path.is_file():
        raise UserInputError(f"{where}: no such file")
    if not within(checkout, path):
        raise UserInputError(f"{where}: a link to outside the checkout; not read")
    try:
        with path.open("rb") as handle:
            raw = handle.read(_MOST_BYTES + 1)
    except OSError as err:
        raise UserInputError(f"{where}: not readable ({err.strerror or err})") from None
    if len(raw) > _MOST_BYTES:
        raise UserInputError(f"{where}: larger than {_MOST_BYTES // 1024} KiB")
    try:
        raw.decode("utf-8")
    except UnicodeDecodeError as err:
        raise UserInputError(f"{where}: not UTF-8 (byte {err.start + 1})") from None
    return raw


def fill(template: str, row: LongBenchRow, reasoning: str | None = None) -> str:
    """`template` filled with the row's parts as pred.py fills it (see the module)."""
    text = template.replace("$DOC$", row.context.strip()).replace("$Q$", row.question.strip())
    for letter, choice in zip(LETTERS, row.choices, strict=True):
        text = text.replace(f"$C_{letter}$", choice.strip())
    return text if reasoning is None else text.replace(REASONING, reasoning)


class PromptCut:
    """pred.py's cut of a prompt to a model's max_len (see the module): the prompt it
    sends, whole or with its middle cut out, its tokens as pred.py counts them."""

    def __init__(self, settings: CutSettings) -> None:
        self.settings = settings
        self._hf = (
            _hf_tokenizer(settings.tokenizer, settings.trust_remote_code) if settings.hf else None
        )

    def count(self, text: str) -> int:
        if self._hf is not None:
            return len(self._hf.encode(text, verbose=False))
        return reference_tokenizer(self.settings.tokenizer).count(text)

    def __call__(self, prompt: str) -> MiddleCut:
        max_len = self.settings.max_len
        head, tail = max_len // 2, max_len - max_len // 2
        if self._hf is None:
            return keep_ends(prompt, reference_tokenizer(self.settings.tokenizer), head, tail)
        ids = list(self._hf.encode(prompt, verbose=False))  # special tokens added
        if len(ids) <= max_len:
            return MiddleCut(prompt, False, len(ids), 0, len(prompt), len(ids))
        kept = ids[:head] + ids[len(ids) - tail :]
        text = str(self._hf.decode(kept, skip_special_tokens=True))
        # Where the cut is in the text sent (the inspector marks it): the head's own text.
        head_text = str(self._hf.decode(ids[:head], skip_special_tokens=True))
        return MiddleCut(text, True, head, tail, min(len(head_text), len(text)), len(ids))


@cache
def _hf_tokenizer(name: str, trust_remote_code: bool) -> Any:
    """A Hugging Face tokenizer as pred.py loads it (AutoTokenizer), once per process."""
    try:
        from transformers import AutoTokenizer
    except ImportError:
        raise MissingDependencyError(
            "transformers", "hf", f"cutting LongBench v2 prompts with tokenizer {name}"
        ) from None
    try:
        return AutoTokenizer.from_pretrained(name, trust_remote_code=trust_remote_code)
    except Exception as err:  # transformers raises many kinds: each is the user's to fix
        first = escape_unprintable(str(err).strip().split("\n", 1)[0][:300])
        hint = "" if trust_remote_code else " (if it needs its own code: trust_remote_code=true)"
        raise UserInputError(
            f"cannot load tokenizer {shown(name)}, with which pred.py cuts the prompts: "
            f"{type(err).__name__}: {first}{hint}"
        ) from None
