"""A publishing run's side of one viewer's connection (engine/publish.py): what the run
holds of it, how its control lines are read (at most the reader's limit, a longer one
skipped whole), what a connection the run does not serve reads, and cutting one that
reads nothing."""

from __future__ import annotations

import asyncio
import contextlib


class Viewer:
    """One connected viewer: its connection, and the task reading its controls."""

    def __init__(self, writer: asyncio.StreamWriter) -> None:
        self.writer = writer
        self.transport = writer.transport
        self.closed = False
        self.reader: asyncio.Task[None] | None = None

    @property
    def behind(self) -> int:
        """Bytes written to the viewer that it has not read yet (beyond the socket's)."""
        return self.transport.get_write_buffer_size()


def refusal(most: int) -> str:
    """What a viewer the run does not serve reads."""
    return (
        f"the run serves {most} viewers at once and has {most}: close one (a TUI's live "
        "view or an `lctui attach`) and try again"
    )


async def control_line(reader: asyncio.StreamReader) -> bytes | None:
    """A viewer's next line of at most the reader's limit (CONTROL_BYTES); a longer one
    is read past and skipped, whole; None at the end of the connection."""
    skipping = False
    while True:
        try:
            try:
                line = await reader.readuntil(b"\n")
            except asyncio.LimitOverrunError as over:
                await reader.readexactly(over.consumed)  # what it holds of the long line
                skipping = True
                continue
        except asyncio.IncompleteReadError:
            return None  # a last line without its newline is no control
        if not skipping:
            return line
        skipping = False  # that was the long line's end


def abort_unread(transport: asyncio.BaseTransport) -> None:
    """Cut a connection that has not closed by itself (gone already: nothing to do)."""
    if isinstance(transport, asyncio.WriteTransport) and transport.get_write_buffer_size():
        with contextlib.suppress(Exception):
            transport.abort()
