"""HELMET's prompt templates, read from the user's checkout without running its code.

HELMET builds each prompt in code: a dataset's loader in data.py assigns its
`user_template` (the instruction, demonstrations, context and question), its
`system_template` (the answer prefix) and `prompt_template` (the two joined), and the
templates of its passages and demonstrations, some of them under an `if` on the
dataset's name (`"nq_bad" in dataset`). lctui never copies these sentences: it parses
data.py with `ast` and evaluates only what builds text, statement by statement, for one
dataset name (`loader_templates`):

- an assignment of a string, a `+` of strings and names already assigned, or `a if
  TEST else b` (kept as a `Choice` when TEST is not about the dataset's name);
- an `if` whose test is about the dataset's name (`"x" in dataset`, `not`, `and`,
  `or`): only its branch taken; of any other `if` (`shots > 0`) both branches, in order;
- the f-strings added to a name (`demo_text += ... + f"...{d['query']}..."`), as
  format strings whose fields are named after what they show;
- the prefixes its post-processing parses outputs with, a constant or a template
  assigned before (`parse_output(x, "corresponding value:")`, `parse_output(x,
  system_template)`);
- a list joined into a name (`demo = "\\n\\n".join([temp.format(**x) for x in demos])`,
  or of an f-string), and the f-strings of a returned dict (`return {"demo": f"..."}`),
  as `FString`s: their fields are a name or a row's item (`{demo}`, `{x['answer'][0]}`),
  at most stripped (`.strip()`); nothing else is evaluated.

Nested functions (a loader's `update`) are read the same way. Where a template a kind
needs is not found, `TemplateMissing` says which, in which function of which file.
"""

from __future__ import annotations

import ast
import hashlib
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from string import Formatter

from lctui.core.errors import UserInputError
from lctui.tasks.bounded_read import MIB
from lctui.tasks.inputs.helmet_fstrings import FString, Joined

MAX_SOURCE_BYTES = 4 * MIB
DATA_MODULE = "data.py"
UTILS_MODULE = "utils.py"


@dataclass(frozen=True)
class Choice:
    """`then if TEST else otherwise`, TEST not decided by the dataset's name."""

    test: str  # the test's source, e.g. `'title' in sample['ctxs'][0]`
    then: TemplateValue
    otherwise: TemplateValue


TemplateValue = str | Choice


class TemplateMissing(UserInputError):
    """A template lctui needs is not where HELMET's code keeps it."""


@dataclass
class LoaderTemplates:
    """What one loader of data.py assigns, for one dataset name."""

    source: Path
    loader: str
    dataset: str
    values: dict[str, TemplateValue] = field(default_factory=dict)
    # The f-string parts added to a name (`demo_text += ... f"..."`), as format strings.
    added: dict[str, list[str]] = field(default_factory=dict)
    parse_prefixes: list[str] = field(default_factory=list)
    # How `prompt_template` joins user_template and system_template, where it does.
    joiner: str | None = None
    joined: dict[str, Joined] = field(default_factory=dict)
    # The f-strings of the dicts its functions return, by key (`return {"demo": f"..."}`).
    returned: dict[str, FString] = field(default_factory=dict)

    def _missing(self, what: str) -> TemplateMissing:
        return TemplateMissing(
            f"{self.source}: {self.loader}() assigns no {what} for dataset {self.dataset!r} "
            "(looked for it as HELMET 4526dfb writes it); is this HELMET's data.py?"
        )

    def text(self, name: str) -> str:
        """The template assigned to `name`, which must be one string."""
        value = self.values.get(name)
        if not isinstance(value, str):
            raise self._missing(f"string `{name} = ...`")
        return checked_format(value, f"{self.source}: {self.loader}'s {name}")

    def choice(self, name: str, test_word: str) -> tuple[str, str]:
        """(then, otherwise) of `name = a if '<test_word>' in ... else b`."""
        value = self.values.get(name)
        if not (
            isinstance(value, Choice)
            and isinstance(value.then, str)
            and isinstance(value.otherwise, str)
            and repr(test_word) in value.test
        ):
            raise self._missing(f"`{name} = ... if {test_word!r} in ... else ...`")
        where = f"{self.source}: {self.loader}'s {name}"
        return checked_format(value.then, where), checked_format(value.otherwise, where)

    def added_text(self, name: str) -> str:
        """The one f-string added to `name`, as a format string."""
        parts = self.added.get(name, [])
        if len(parts) != 1:
            raise self._missing(f"f-string added to `{name}`")
        return checked_format(parts[0], f"{self.source}: {self.loader}'s {name}")

    def joined_list(self, name: str) -> Joined:
        """What `name = SEP.join([...])` joins."""
        found = self.joined.get(name)
        if found is None:
            raise self._missing(f"`{name} = '...'.join([...])`")
        return found

    def returned_text(self, key: str) -> FString:
        """The f-string returned as `key` of a dict."""
        found = self.returned.get(key)
        if found is None:
            raise self._missing(f'`return {{"{key}": f"..."}}`')
        return found

    def prompt_joiner(self) -> str:
        if self.joiner is None:
            raise self._missing("`prompt_template = user_template + ... + system_template`")
        return self.joiner


def checked_format(template: str, where: str) -> str:
    """`template` when its fields are plain names (`{context}`, `{answer[0]}`): str.format
    would otherwise reach into attributes of the values."""
    try:
        parsed = list(Formatter().parse(template))
    except ValueError as err:
        raise UserInputError(f"{where}: not a format string ({err})") from None
    for _, name, spec, conversion in parsed:
        if name is None:
            continue
        base, _, index = name.partition("[")
        if not base.isidentifier() or spec or conversion:
            raise UserInputError(f"{where}: the field {{{name}}} is not a plain name")
        if index and not (index.endswith("]") and index[:-1].isdigit()):
            raise UserInputError(f"{where}: the field {{{name}}} is not a plain name")
    return template


class _Evaluator:
    """Runs the text-building statements of one function for one dataset name."""

    def __init__(self, found: LoaderTemplates) -> None:
        self.found = found

    def run(self, body: list[ast.stmt]) -> None:
        for statement in body:
            self.statement(statement)

    def statement(self, node: ast.stmt) -> None:
        if isinstance(node, ast.Assign) and len(node.targets) == 1:
            target = node.targets[0]
            if isinstance(target, ast.Name):
                self.assign(target.id, node.value)
        elif isinstance(node, ast.AugAssign) and isinstance(node.target, ast.Name):
            for part in ast.walk(node.value):
                if isinstance(part, ast.JoinedStr):
                    template = fstring_template(part)
                    if template is not None:
                        self.found.added.setdefault(node.target.id, []).append(template)
        elif isinstance(node, ast.If):
            decided = self.about_dataset(node.test)
            if decided is not False:
                self.run(node.body)
            if decided is not True:
                self.run(node.orelse)
        elif isinstance(node, (ast.FunctionDef, ast.For, ast.With)):
            self.run(node.body)
        elif isinstance(node, ast.Return) and isinstance(node.value, ast.Dict):
            for key, value in zip(node.value.keys, node.value.values, strict=True):
                if (
                    isinstance(key, ast.Constant)
                    and isinstance(key.value, str)
                    and isinstance(value, ast.JoinedStr)
                ):
                    made = FString.of(value)
                    if made is not None:
                        self.found.returned[key.value] = made
        self.prefixes(node)

    def assign(self, name: str, value: ast.expr) -> None:
        if name == "prompt_template":
            self.joiner_of(value)
        joined = self.joined_of(value)
        if joined is not None:
            self.found.joined[name] = joined
        text = self.text(value)
        if text is not None:
            self.found.values[name] = text

    def joiner_of(self, value: ast.expr) -> None:
        """`user_template + JOIN + system_template`: JOIN."""
        if (
            isinstance(value, ast.BinOp)
            and isinstance(value.op, ast.Add)
            and isinstance(value.right, ast.Name)
            and value.right.id == "system_template"
            and isinstance(value.left, ast.BinOp)
            and isinstance(value.left.op, ast.Add)
            and isinstance(value.left.left, ast.Name)
            and value.left.left.id == "user_template"
            and isinstance(value.left.right, ast.Constant)
            and isinstance(value.left.right.value, str)
        ):
            self.found.joiner = value.left.right.value

    def joined_of(self, value: ast.expr) -> Joined | None:
        """`SEP.join([f"..." for x in ...])` or `SEP.join([T.format(**x) for x in ...])`."""
        if not (
            isinstance(value, ast.Call)
            and isinstance(value.func, ast.Attribute)
            and value.func.attr == "join"
            and isinstance(value.func.value, ast.Constant)
            and isinstance(value.func.value.value, str)
            and len(value.args) == 1
            and isinstance(value.args[0], ast.ListComp)
        ):
            return None
        separator, element = value.func.value.value, value.args[0].elt
        if isinstance(element, ast.JoinedStr):
            made = FString.of(element)
            return None if made is None else Joined(separator, made)
        if (
            isinstance(element, ast.Call)
            and isinstance(element.func, ast.Attribute)
            and element.func.attr == "format"
            and isinstance(element.func.value, ast.Name)
            and not element.args
            and len(element.keywords) == 1
            and element.keywords[0].arg is None
        ):
            template = self.found.values.get(element.func.value.id)
            if isinstance(template, str):
                return Joined(separator, template)
        return None

    def text(self, node: ast.expr) -> TemplateValue | None:
        if isinstance(node, ast.Constant) and isinstance(node.value, str):
            return node.value
        if isinstance(node, ast.Name):
            return self.found.values.get(node.id)
        if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add):
            left, right = self.text(node.left), self.text(node.right)
            if isinstance(left, str) and isinstance(right, str):
                return left + right
            return None
        if isinstance(node, ast.IfExp):
            then, otherwise = self.text(node.body), self.text(node.orelse)
            if then is None or otherwise is None:
                return None
            decided = self.about_dataset(node.test)
            if decided is not None:
                return then if decided else otherwise
            return Choice(ast.unparse(node.test), then, otherwise)
        return None

    def about_dataset(self, node: ast.expr) -> bool | None:
        """The value of a test on the dataset's name; None for any other test."""
        name = self.found.dataset
        if isinstance(node, ast.Compare) and len(node.ops) == 1 and len(node.comparators) == 1:
            left, op, right = node.left, node.ops[0], node.comparators[0]
            if (
                isinstance(left, ast.Constant)
                and isinstance(left.value, str)
                and _is_dataset(right)
                and isinstance(op, (ast.In, ast.NotIn))
            ):
                inside = left.value in name
                return inside if isinstance(op, ast.In) else not inside
            if (
                _is_dataset(left)
                and isinstance(right, ast.Constant)
                and isinstance(right.value, str)
                and isinstance(op, (ast.Eq, ast.NotEq))
            ):
                same = name == right.value
                return same if isinstance(op, ast.Eq) else not same
            return None
        if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.Not):
            inner = self.about_dataset(node.operand)
            return None if inner is None else not inner
        if isinstance(node, ast.BoolOp):
            values = [self.about_dataset(v) for v in node.values]
            if any(v is None for v in values):
                return None
            return all(values) if isinstance(node.op, ast.And) else any(values)
        return None

    def prefixes(self, node: ast.stmt) -> None:
        if isinstance(node, (ast.FunctionDef, ast.If, ast.For, ast.With)):
            return  # the statements inside were read one by one (an `if`'s taken branch)
        for part in ast.walk(node):
            if (
                isinstance(part, ast.Call)
                and isinstance(part.func, ast.Name)
                and part.func.id == "parse_output"
                and len(part.args) == 2
            ):
                # A constant, or a template assigned before (load_qa's system_template).
                prefix = self.text(part.args[1])
                if isinstance(prefix, str):
                    self.found.parse_prefixes.append(prefix)


def _is_dataset(node: ast.expr) -> bool:
    return isinstance(node, ast.Name) and node.id == "dataset"


def fstring_template(node: ast.JoinedStr) -> str | None:
    """An f-string as a format string, each field named after what it shows (`d['query']`
    -> `{query}`, `ranking` -> `{ranking}`); None when a field is anything else."""
    parts: list[str] = []
    for value in node.values:
        if isinstance(value, ast.Constant) and isinstance(value.value, str):
            parts.append(value.value.replace("{", "{{").replace("}", "}}"))
            continue
        if not isinstance(value, ast.FormattedValue) or value.format_spec or value.conversion > 0:
            return None
        shown = value.value
        if isinstance(shown, ast.Name):
            parts.append("{" + shown.id + "}")
        elif (
            isinstance(shown, ast.Subscript)
            and isinstance(shown.slice, ast.Constant)
            and isinstance(shown.slice.value, str)
            and shown.slice.value.isidentifier()
        ):
            parts.append("{" + shown.slice.value + "}")
        else:
            return None
    return "".join(parts)


@dataclass(frozen=True)
class ParsedModule:
    path: Path
    digest: str
    tree: ast.Module

    def function(self, name: str) -> ast.FunctionDef:
        for node in self.tree.body:
            if isinstance(node, ast.FunctionDef) and node.name == name:
                return node
        raise TemplateMissing(f"{self.path}: no function {name}() (HELMET's loader)")


_PARSED: dict[tuple[str, int, int], ParsedModule] = {}


def parse_module(path: Path) -> ParsedModule:
    """A module of the checkout, parsed once per file version; UserInputError naming it
    when it is missing, too large or no Python."""
    try:
        stat = path.stat()
    except OSError as err:
        raise UserInputError(
            f"{path}: not readable ({err.strerror or err}): HELMET's checkout?"
        ) from None
    key = (str(path), stat.st_mtime_ns, stat.st_size)
    known = _PARSED.get(key)
    if known is not None:
        return known
    if stat.st_size > MAX_SOURCE_BYTES:
        raise UserInputError(f"{path}: over {MAX_SOURCE_BYTES // MIB} MiB, not HELMET's")
    raw = path.read_bytes()
    try:
        tree = ast.parse(raw.decode("utf-8"), filename=str(path))
    except (UnicodeDecodeError, SyntaxError, ValueError) as err:
        raise UserInputError(f"{path}: not Python that lctui can read ({err})") from None
    parsed = ParsedModule(path, hashlib.sha256(raw).hexdigest(), tree)
    _PARSED[key] = parsed
    return parsed


def loader_templates(checkout: Path, loader: str, dataset: str) -> LoaderTemplates:
    """What `loader` of the checkout's data.py assigns for `dataset` (module docstring)."""
    module = parse_module(checkout / DATA_MODULE)
    found = LoaderTemplates(module.path, loader, dataset)
    _Evaluator(found).run(module.function(loader).body)
    return found


def default_parse_prefix(checkout: Path) -> str:
    """The default `prefix` of utils.py's parse_output (what default_post_process and
    every call without a prefix parse with)."""
    return text_default(checkout / UTILS_MODULE, "parse_output", "prefix")


def text_default(path: Path, function_name: str, argument: str) -> str:
    """The text default of `argument` of module-level `function_name` in `path`
    (data.py's truncate_llama2's postfix_text, utils.py's parse_output's prefix)."""
    module = parse_module(path)
    function = module.function(function_name)
    arguments = function.args
    names = [a.arg for a in arguments.args]
    defaults: Mapping[str, ast.expr] = dict(
        zip(names[len(names) - len(arguments.defaults) :], arguments.defaults, strict=True)
    )
    value = defaults.get(argument)
    if not (isinstance(value, ast.Constant) and isinstance(value.value, str)):
        raise TemplateMissing(
            f"{module.path}: {function_name}() has no text default for {argument}"
        )
    return value.value


def call_number(checkout: Path, loader: str, callee: str, position: int) -> int:
    """The whole-number argument at `position` of the first call of `callee` in `loader`
    of data.py (load_infbench's `filter_length(data, 65536, "context")`)."""
    module = parse_module(checkout / DATA_MODULE)
    for node in ast.walk(module.function(loader)):
        if (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Name)
            and node.func.id == callee
            and len(node.args) > position
        ):
            value = node.args[position]
            if isinstance(value, ast.Constant) and type(value.value) is int:
                return value.value
    raise TemplateMissing(
        f"{module.path}: {loader}() makes no call {callee}(...) with a number at {position}"
    )


def data_digest(checkout: Path) -> str:
    """SHA-256 of the checkout's data.py: which templates an example was built with."""
    return parse_module(checkout / DATA_MODULE).digest
