"""The f-strings of HELMET's data.py as lctui fills them, never run: a loader's demo
texts made in a list (`"\\n\\n".join([f"...{x['answer'][0].strip()}" for x in demos])`)
and the dicts its functions return (`return {"demo": f"...{demo}..."}`). A field is a
name or a row's item, at most stripped; an f-string with anything else is not read
(helmet_templates.py then names what it misses)."""

from __future__ import annotations

import ast
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class Field:
    """A field of an f-string: the item `keys` of the values (a name: one key), stripped
    when the f-string calls `.strip()` on it."""

    keys: tuple[str | int, ...]
    strip: bool = False


@dataclass(frozen=True)
class FString:
    """An f-string of the checkout, to be filled with values (`fill`)."""

    parts: tuple[str | Field, ...]

    def fill(self, values: Mapping[str, Any]) -> str:
        """The text the f-string makes of `values` (a row's items, or names); KeyError,
        IndexError, TypeError or AttributeError where HELMET's would fail."""
        out = []
        for part in self.parts:
            if isinstance(part, str):
                out.append(part)
                continue
            value: Any = values
            for key in part.keys:
                value = value[key]
            text = format(value)
            out.append(text.strip() if part.strip else text)
        return "".join(out)

    @classmethod
    def of(cls, node: ast.JoinedStr) -> FString | None:
        parts: list[str | Field] = []
        for value in node.values:
            if isinstance(value, ast.Constant) and isinstance(value.value, str):
                parts.append(value.value)
                continue
            if not isinstance(value, ast.FormattedValue) or value.format_spec:
                return None
            if value.conversion > 0:
                return None
            field = _field(value.value)
            if field is None:
                return None
            parts.append(field)
        return cls(tuple(parts))


def _field(node: ast.expr) -> Field | None:
    strip = False
    if (
        isinstance(node, ast.Call)
        and isinstance(node.func, ast.Attribute)
        and node.func.attr == "strip"
        and not node.args
        and not node.keywords
    ):
        strip, node = True, node.func.value
    if isinstance(node, ast.Name):
        return Field((node.id,), strip)
    keys: list[str | int] = []
    while isinstance(node, ast.Subscript):
        index = node.slice
        if not (isinstance(index, ast.Constant) and isinstance(index.value, (str, int))):
            return None
        keys.insert(0, index.value)
        node = node.value
    # `x['answer'][0]`: the loop's row x, whose items the fields name.
    return Field(tuple(keys), strip) if keys and isinstance(node, ast.Name) else None


@dataclass(frozen=True)
class Joined:
    """`SEP.join([ITEM for x in ...])`: ITEM a template filled with each x's items."""

    separator: str
    item: str | FString
