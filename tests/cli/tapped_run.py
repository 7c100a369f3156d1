"""The real `lctui` command, which also logs what finished and what was written.

Run as `python tapped_run.py TAP_FILE lctui-args...`: the CLI runs unchanged; each
generation that finishes (scored or failed) appends "<generation_id> <wall time>" to
TAP_FILE, and each write that stored rows "write <start> <end>", flushed at once, so a
test that kills the process with kill -9 knows what had finished, and when, and which
writes had completed, to compare with what the file holds.
"""

from __future__ import annotations

import sys
import time

from lctui.cli import main
from lctui.cli.progress import RichProgressSink
from lctui.core.events import Event, ExampleFailed, ExampleScored
from lctui.store.writer import StoreWriter


def _tap(path: str) -> None:
    log = open(path, "a", buffering=1, encoding="utf-8")  # noqa: SIM115 - open until killed
    original = RichProgressSink.__call__

    def tapped(self: RichProgressSink, event: Event) -> None:
        original(self, event)
        if isinstance(event, ExampleScored | ExampleFailed):
            log.write(f"{event.generation.generation_id} {time.time():.3f}\n")

    RichProgressSink.__call__ = tapped  # type: ignore[method-assign]
    flush = StoreWriter.flush

    def logged_flush(self: StoreWriter, *, force: bool = False) -> int:
        # Taken before the rows are: whatever finished before `start` is in this write.
        start = time.time()
        written = flush(self, force=force)
        if written:
            log.write(f"write {start:.3f} {time.time():.3f}\n")
        return written

    StoreWriter.flush = logged_flush  # type: ignore[method-assign]


if __name__ == "__main__":
    _tap(sys.argv[1])
    sys.exit(main(sys.argv[2:]))
