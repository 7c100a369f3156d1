"""`python -m lctui` is the `lctui` command."""

from lctui.main import entry

entry()
