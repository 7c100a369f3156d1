"""A context manager that closes on exit, for the store and its writer."""

from __future__ import annotations

from types import TracebackType
from typing import Self


class ClosesOnExit:
    """`with obj:` hands `obj` back and calls its `close()` on the way out."""

    def close(self) -> None:
        raise NotImplementedError

    def __enter__(self) -> Self:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.close()
