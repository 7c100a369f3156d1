"""A context manager that closes on exit, for the store and its writer."""

from __future__ import annotations

from types import TracebackType
from typing import TypeVar

# Not typing.Self: that arrived in Python 3.11, and 3.10 is supported.
_Closing = TypeVar("_Closing", bound="ClosesOnExit")


class ClosesOnExit:
    """`with obj:` hands `obj` back and calls its `close()` on the way out."""

    def close(self) -> None:
        raise NotImplementedError

    def __enter__(self: _Closing) -> _Closing:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.close()
