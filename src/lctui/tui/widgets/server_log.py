"""The tail of a `vllm-server` model's log, for the live run screen.

lctui starts that server itself, so when it is slow to start or dies mid-run the
answer is in its log; this panel shows it without leaving the TUI. It polls the
server's in-memory ring of recent lines (no file reads) a few times a second.
"""

from __future__ import annotations

from collections.abc import Callable

from textual.widgets import Log

from lctui.backends.vllm_server import ServerProcess, running_servers

POLL_S = 0.5
MAX_LINES = 1000


class ServerLogPanel(Log):
    """Appends a server's new log lines as they come; says so while there is no server."""

    DEFAULT_CSS = """
    ServerLogPanel { height: 8; border: round $primary; }
    """

    def __init__(
        self,
        model: str,
        *,
        lookup: Callable[[str], ServerProcess | None] | None = None,
        id: str | None = None,
        classes: str | None = None,
    ) -> None:
        super().__init__(max_lines=MAX_LINES, id=id, classes=classes)
        self.model = model
        self._lookup = lookup or (lambda name: running_servers().get(name))
        self._server: ServerProcess | None = None
        self._seen = 0
        self.border_title = f"server log · {model}"

    def on_mount(self) -> None:
        self.write_line(f"waiting for the vLLM server of {self.model} to start…")
        self.set_interval(POLL_S, self.poll)

    def poll(self) -> None:
        """Show lines that arrived since the last poll (the 2 Hz timer)."""
        server = self._lookup(self.model)
        if server is None:
            return  # not started yet, or stopped: keep what is shown
        if server is not self._server:  # a new start (a resume starts a fresh server)
            self._server, self._seen = server, 0
            self.write_line(f"log file: {server.log_path}")
        lines, self._seen = server.new_lines(self._seen)
        if lines:
            self.write_lines(lines)
