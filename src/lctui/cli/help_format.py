"""How `--help` reads: one formatter for every parser of `lctui`, and a walk over them.

argparse expands `%` in an argument's help (a literal percent is written `%%`) but not
in a parser's description, where `%%` would show doubled. The formatter reads a
description as help is read, so both are written alike.
"""

from __future__ import annotations

import argparse
from collections.abc import Iterator


class HelpFormatter(argparse.HelpFormatter):
    """argparse's formatter, with `%%` in a description shown as one `%`."""

    def _format_text(self, text: str) -> str:
        if "%(prog)" not in text:  # argparse expands those itself, `%%` included
            text = text.replace("%%", "%")
        return super()._format_text(text)


def subcommands(
    parser: argparse.ArgumentParser,
) -> Iterator[tuple[argparse.ArgumentParser, str | None]]:
    """(parser, its line in its parent's list of commands) of every command and
    subcommand under `parser`, depth first; a parser's `prog` names it (`lctui import
    runs`)."""
    for action in parser._actions:
        if not isinstance(action, argparse._SubParsersAction):
            continue
        listed = {choice.dest: choice.help for choice in action._choices_actions}
        for name, child in action.choices.items():
            yield child, listed.get(name)
            yield from subcommands(child)


def use_formatter(parser: argparse.ArgumentParser) -> None:
    """`HelpFormatter` for `parser` and every subcommand's parser."""
    parser.formatter_class = HelpFormatter
    for child, _ in subcommands(parser):
        child.formatter_class = HelpFormatter
