"""Errors a user can act on. The CLI prints their message without a traceback."""

from __future__ import annotations


class LctuiError(Exception):
    """Base class: `str(err)` is a complete message saying what is wrong and how to fix it.

    It is shown on one line, any control character in it (a name's or a path's line
    break) as an escape (core/text.py), unless `lines_kept`: a message whose line breaks
    are its own (a server's log tail), each line of data in it escaped where it was made.
    """

    lines_kept = False


class UserInputError(LctuiError):
    """Bad input: unknown task, model or length, malformed option, bad config."""


class MissingDependencyError(LctuiError):
    """An optional dependency is not installed; the message names the extra."""

    def __init__(self, package: str, extra: str, purpose: str) -> None:
        super().__init__(
            f"{purpose} needs the Python package '{package}', which is not installed. "
            f"Install it with: pip install 'lctui[{extra}]'"
        )
        self.package = package
        self.extra = extra


class StoreError(LctuiError):
    """The database cannot be opened or written (locked, unreadable, newer schema)."""


class NotWritableError(StoreError):
    """The database's folder (its journal and claim files) cannot be written; the file
    can still be opened read-only."""


class BackendError(LctuiError):
    """A model could not be loaded or a request failed for good."""
