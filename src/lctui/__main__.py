"""`python -m lctui` is the `lctui` command."""

from lctui.cli import entry

entry()
