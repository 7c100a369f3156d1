"""`--help` of every command: `lctui --help` lists every command (`tui` and `serve`
among them) with a line each, every command and subcommand has a description, and no
help text shows argparse's escape `%%` where a `%` is meant."""

from __future__ import annotations

import argparse
import subprocess
import sys

import pytest

from lctui.cli import build_parser
from lctui.cli.help_format import subcommands
from lctui.main import TUI_COMMANDS
from lctui.tui.start import parser as tui_parser

PARSERS = [child for child, _ in subcommands(build_parser())]


def test_lctui_help_lists_every_command_the_lctui_command_runs() -> None:
    # The real command: `lctui --help` as a user types it (main.py hands it to the CLI).
    shown = subprocess.run(
        [sys.executable, "-m", "lctui", "--help"], capture_output=True, text=True, check=True
    ).stdout
    listed = {line.split()[0] for line in shown.splitlines() if line.startswith("    ")}
    for command in (*TUI_COMMANDS, "run", "show", "compare", "import"):
        assert command in listed, shown


@pytest.mark.parametrize("parser", PARSERS, ids=[p.prog for p in PARSERS])
def test_every_command_and_subcommand_says_what_it_does(parser: argparse.ArgumentParser) -> None:
    lines = {child.prog: line for child, line in subcommands(build_parser())}
    assert lines[parser.prog], f"{parser.prog} has no line in its parent's list of commands"
    assert parser.description, f"`{parser.prog} --help` says nothing of what it does"


@pytest.mark.parametrize("parser", [build_parser(), tui_parser(), *PARSERS], ids=lambda p: p.prog)
def test_no_help_shows_a_doubled_percent(parser: argparse.ArgumentParser) -> None:
    shown = parser.format_help()
    assert "%%" not in shown, shown


def test_a_percent_in_a_description_shows_once() -> None:
    shown = next(p for p in PARSERS if p.prog == "lctui compare").format_help()
    assert "95% confidence interval" in " ".join(shown.split())
