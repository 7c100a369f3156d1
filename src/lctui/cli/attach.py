"""`lctui attach [RUN]`: watch a run from a plain terminal, and pause, resume or cancel it.

The run's published events (engine/attach.py) drive the same progress rows as `lctui
run` (RichProgressSink) under a header line, with the focused generation's text below.
At a terminal: `p` pauses or resumes, `c` then `y` cancels the run (what finished is
kept), `f`/tab focuses the next generation, `l` follows the newest, `q` or Ctrl-C
detaches this viewer and never the run. Piped, it prints a progress line every few
seconds and the run's changes of state. `--pause`, `--resume`, `--cancel` ask once and
return. When the run vanishes (kill -9), it waits for the next run on the same database
(the same command run again) and attaches to it; `--no-wait` returns instead.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import os
import platform
import sys
import time
from collections.abc import Coroutine, Iterator
from typing import Any

from rich.console import Console, Group, RenderableType
from rich.live import Live
from rich.panel import Panel
from rich.text import Text

from lctui.cli.progress import RichProgressSink
from lctui.cli.terminal import SafeConsole, data, plain
from lctui.core.errors import UserInputError
from lctui.core.events import Event, RunFinished, RunPaused
from lctui.core.formatting import duration, per_second
from lctui.core.lengths import format_length
from lctui.core.measures import Stopwatch
from lctui.core.run_record import ENDED_STATUSES, WAITING, RunRecord
from lctui.core.run_state import RunProgress
from lctui.core.text import escape_unprintable
from lctui.engine.attach import (
    DROPPED,
    RUN_ENDED,
    AttachedRun,
    ViewerRefused,
    find_run,
    live_runs,
)

PLAIN_EVERY_S = 5.0  # piped: a progress line this often
FOCUS_LINES = 12  # lines of the focused generation shown
KEPT_STREAMS = 256  # generations the focus can cycle over
WAIT_POLL_S = 0.5
CONTROL_WAIT_S = 5.0


def add_parsers(sub: Any) -> None:
    attach = sub.add_parser(
        "attach",
        help="watch a running run (rich progress, the focused generation); pause/resume/cancel",
        description="Watch a run that is going: progress per task x length, the focused "
        "generation as it streams. Keys: p pause/resume, c cancel (then y), f next "
        "generation, l follow the newest, q or Ctrl-C detach (the run goes on).",
    )
    attach.add_argument(
        "run", nargs="?", help="run id, or its start or last 6 characters (default: the one going)"
    )
    ops = attach.add_mutually_exclusive_group()
    for op in ("pause", "resume", "cancel"):
        ops.add_argument(
            f"--{op}",
            dest="op",
            action="store_const",
            const=op,
            help=f"ask the run to {op} and return"
            + (" (it keeps everything finished)" if op == "cancel" else ""),
        )
    attach.add_argument(
        "--no-wait",
        action="store_true",
        help="return when the run vanishes instead of waiting for it to be run again",
    )
    attach.set_defaults(handler=cmd_attach, op=None)


def cmd_attach(args: argparse.Namespace) -> int:
    record = find_run(args.run, live_runs())
    console = SafeConsole()
    if args.op is not None:
        return asyncio.run(_ask(record, args.op, console))
    view = AttachView(console, live=console.is_terminal)
    try:
        return asyncio.run(follow(record, view, wait=not args.no_wait))
    except KeyboardInterrupt:
        view.stop()
        console.print(
            f"Detached from run {data(view.run_id)}; it goes on "
            f"(`lctui attach {data(view.run_id)}` comes back).",
            highlight=False,
        )
        return 0


async def _ask(record: RunRecord, op: str, console: Console) -> int:
    """Send one control; for pause and resume, wait until the run says it acted."""
    attached = await _connect(record)
    async with attached:
        if op == "cancel":
            await attached.cancel()
            console.print(f"Asked run {data(record.run_id)} to cancel; it keeps what finished.")
            return 0
        want = op == "pause"
        said = "paused: running requests finish, no new one starts" if want else "running"
        if attached.progress.paused == want:
            console.print(f"Run {data(record.run_id)} is already {said}.")
            return 0
        await (attached.pause() if want else attached.resume())
        paused = attached.progress.paused
        for event in await attached.read_replay():
            if isinstance(event, RunPaused):
                paused = event.paused
        if paused != want:
            with contextlib.suppress(asyncio.TimeoutError):
                paused = await asyncio.wait_for(_pause_state(attached, want), CONTROL_WAIT_S)
        if paused != want:
            console.print(f"Run {data(record.run_id)} did not confirm within {CONTROL_WAIT_S:g} s.")
            return 1
        console.print(f"Run {data(record.run_id)} {'paused' if want else 'resumed'}: {said}.")
        return 0


async def _pause_state(attached: AttachedRun, want: bool) -> bool:
    """Read live events until the run says it is paused (or running) as wanted."""
    async for event in attached:
        if isinstance(event, RunPaused) and event.paused == want:
            return want
    return not want


async def _connect(record: RunRecord) -> AttachedRun:
    try:
        return await AttachedRun.connect(record.socket)
    except ViewerRefused as err:
        raise UserInputError(f"run {record.run_id}: {err}") from err
    except (OSError, asyncio.TimeoutError) as err:
        if record.host != platform.node():
            raise UserInputError(
                f"run {record.run_id} runs on {record.host}; attach to it there"
            ) from err
        state = "has ended" if record.ended else "does not answer"
        raise UserInputError(
            f"run {record.run_id} {state} ({record.status}"
            + (f": {record.message}" if record.message else "")
            + f"); socket {record.socket}: {err}"
        ) from err


async def follow(record: RunRecord, view: AttachView, wait: bool, key_fd: int | None = None) -> int:
    """Watch `record`'s run to its end, reconnecting when dropped and, with `wait`,
    following the next run on its database when it vanishes. Keys come from `key_fd`
    (default: the terminal)."""
    with view.keys(key_fd):
        while True:
            try:
                attached = await AttachedRun.connect(record.socket)
            except ViewerRefused as err:
                raise UserInputError(f"run {record.run_id}: {err}") from err
            except (OSError, asyncio.TimeoutError):
                now = {r.run_id: r for r in live_runs()}.get(record.run_id, record)
                if now.host != platform.node():
                    await _connect(now)  # raises: attach on its host
                if not now.ended:  # still starting (Python imports before it listens)
                    if now.status == WAITING and record.status != WAITING:
                        view.say(f"run {now.run_id} waits: {now.message}")
                    record = now
                    await asyncio.sleep(WAIT_POLL_S)
                    continue
                if not wait or now.status in ENDED_STATUSES:  # it ended by itself
                    await _connect(now)  # raises, saying why
                record = await _next_run(now, view)  # killed: it may be run again
                continue
            view.start(attached)
            async with attached:
                async for event in attached:
                    view(event)
            if attached.ended_by == RUN_ENDED:
                view.stop()
                return 0
            if attached.ended_by == DROPPED:
                view.say(f"the run let this viewer go ({attached.dropped_reason}); reconnecting")
                continue
            view.say(f"run {record.run_id} stopped answering (its process ended?)")
            if not wait:
                view.stop()
                return 1
            record = await _next_run(record, view)


async def _next_run(record: RunRecord, view: AttachView) -> RunRecord:
    """The next run on `record`'s database (the same command run again), when it starts."""
    view.say(
        f"waiting for a run on {record.db} (the same command again resumes it; Ctrl-C leaves) ..."
    )
    while True:
        for other in live_runs(ended=False):
            if other.db == record.db and other.run_id != record.run_id:
                view.say(f"attaching to run {other.run_id}")
                return other
        await asyncio.sleep(WAIT_POLL_S)


class AttachView:
    """What `lctui attach` shows, fed with the attached run's events."""

    def __init__(self, console: Console, live: bool) -> None:
        self.console = console
        self.live = live
        self.run_id = ""
        self.attached: AttachedRun | None = None
        self._display: Live | None = None
        self._sending: set[asyncio.Task[None]] = set()
        self._reset()

    def _reset(self) -> None:
        # Its state is the run's as core/run_state.py counts it; the focus cycles over
        # the generations in flight and the last KEPT_STREAMS finished.
        self.sink = RichProgressSink(self.console, keep_finished=KEPT_STREAMS)
        self.focus: str | None = None  # None: follow the newest
        self.confirming = False
        self.clock: Stopwatch | None = None  # wall clock, from the run's record
        self._said_at = 0.0

    @property
    def state(self) -> RunProgress:
        return self.sink.state

    @property
    def paused(self) -> bool:
        return self.state.paused

    @property
    def stalled(self) -> str | None:
        stalled = self.state.stalled
        return stalled.describe() if stalled is not None else None

    @property
    def finished(self) -> RunFinished | None:
        return self.state.finished

    @property
    def order(self) -> list[str]:
        """The generations the focus cycles over, in start order."""
        return list(self.state.streams)

    # -- lifecycle ------------------------------------------------------------------------

    def start(self, attached: AttachedRun) -> None:
        self._reset()
        self.attached = attached
        self.run_id = attached.record.run_id
        self.state.paused = attached.progress.paused  # until the replay says it again
        # Elapsed from the run's start, models loading included, as the TUI counts it.
        self.clock = Stopwatch(attached.record.started_at)
        self.say(
            f"attached to run {self.run_id} ({attached.record.command}) on {attached.record.db}"
        )
        if self.live and self._display is None:
            self._display = Live(
                console=self.console, get_renderable=self.render, refresh_per_second=10
            )
            self._display.start()

    def stop(self) -> None:
        if self._display is not None:
            self._display.stop()
            self._display = None
        if self.finished is not None:
            f = self.finished
            state = "cancelled" if f.cancelled else "finished"
            took = f" in {duration(self.clock.elapsed_s(time.time()))}" if self.clock else ""
            rate = self.state.rates.tokens_per_s(time.monotonic())
            mean = f", {per_second(rate)} tok/s on average" if rate is not None else ""
            self.console.print(
                f"Run {data(f.run_id)} {state}: {f.done} done, {f.errors} error(s){took}{mean}.",
                highlight=False,
            )

    def say(self, line: str) -> None:
        """A line of news, data in it (run ids, paths, reasons) shown on one line."""
        self.console.print(data(line), highlight=False)

    # -- events ---------------------------------------------------------------------------

    def __call__(self, event: Event) -> None:
        now = time.monotonic()
        state = self.state
        paused, finished = state.paused, state.finished
        # The replay is the run so far: stamped at its plan, it counts in no recent rate.
        state.replaying = not self._live()
        try:
            self.sink.apply(now - self._progress_elapsed() if state.replaying else now, event)
        finally:
            state.replaying = False
        if state.paused != paused:
            self._plain(f"run {'paused' if state.paused else 'resumed'}")
        if finished is None and state.finished is not None and self.clock is not None:
            self.clock.stop(time.time())
        if not self.live and now - self._said_at >= PLAIN_EVERY_S:
            self._said_at = now
            self.console.print(self.status_line(), highlight=False, markup=False)

    def _live(self) -> bool:
        return self.attached is None or self.attached.replayed.is_set()

    def _progress_elapsed(self) -> float:
        return self.attached.progress.elapsed_s if self.attached is not None else 0.0

    def _plain(self, line: str) -> None:
        if not self.live and self.attached is not None and self.attached.replayed.is_set():
            self.console.print(line, highlight=False)

    # -- what is shown --------------------------------------------------------------------

    def status_line(self) -> str:
        tasks = self.sink.progress.tasks
        done = sum(int(t.completed) for t in tasks)
        total = sum(int(t.total or 0) for t in tasks)
        now = time.monotonic()
        rate = self.state.rates.tokens_per_s(now)  # the run's mean once it has ended
        eta = self.state.rates.eta_s(max(0, total - done), now)
        state = "paused" if self.paused else ("finished" if self.finished else "running")
        speed = f"{per_second(rate)} tok/s" if rate is not None else "tok/s -"
        elapsed = duration(self.clock.elapsed_s(time.time())) if self.clock else "-"
        line = (
            f"run {plain(self.run_id)} {state}: {done}/{total} done, "
            f"{self.sink.errors} error(s), {speed}, "
            f"ETA {duration(eta) if eta and not self.finished else '-'}, elapsed {elapsed}"
        )
        if self.stalled:
            line += f" | {plain(self.stalled)}"
        return line

    def render(self) -> RenderableType:
        keys = "p pause/resume · c cancel · f next · l follow · q detach"
        if self.confirming:
            keys = "cancel the run? y: yes (what finished is kept) · any other key: no"
        parts: list[RenderableType] = [
            Text(self.status_line(), style="bold"),
            self.sink.progress,
        ]
        focused = self._focused()
        if focused is not None:
            stream = self.state.streams[focused]
            width = max(20, self.console.width - 4)
            # The output's lines as it wrote them; any other control character shown.
            output = escape_unprintable(stream.text, keep="\n")
            lines = Text(output).wrap(self.console, width)
            tail = Text("\n").join(list(lines)[-FOCUS_LINES:])
            cell = stream.cell
            where = f"#{stream.index} @{format_length(cell.length)}"
            title = Text(f"{plain(f'{cell.model} {cell.task} {where}')} [{plain(stream.status)}]")
            parts.append(Panel(tail, title=title, title_align="left"))
        parts.append(Text(keys, style="dim"))
        return Group(*parts)

    def _focused(self) -> str | None:
        streams = self.state.streams
        if self.focus in streams:
            return self.focus
        running = [g for g, stream in streams.items() if not stream.finished]
        return running[-1] if running else next(reversed(streams), None)

    # -- keys -----------------------------------------------------------------------------

    def key(self, char: str) -> None:
        attached = self.attached
        if self.confirming:
            self.confirming = False
            if char in "yY" and attached is not None:
                self._send(attached.cancel())
            return
        if char == "p" and attached is not None:
            self._send(attached.resume() if self.paused else attached.pause())
        elif char == "c":
            self.confirming = True
        elif char in "f\t" and self.state.streams:
            current = self._focused()
            ids = self.order
            self.focus = ids[(ids.index(current) + 1) % len(ids)] if current in ids else ids[-1]
        elif char == "l":
            self.focus = None
        elif char == "q":
            raise KeyboardInterrupt
        if self._display is not None:
            self._display.refresh()  # what the key changed, now rather than at the next tick

    def _send(self, control: Coroutine[Any, Any, None]) -> None:
        """Send a control in the background (a run that went away meanwhile: no matter)."""

        async def send() -> None:
            with contextlib.suppress(ConnectionError, OSError):
                await control

        task = asyncio.ensure_future(send())
        self._sending.add(task)
        task.add_done_callback(self._sending.discard)

    @contextlib.contextmanager
    def keys(self, fd: int | None = None) -> Iterator[None]:
        """Read single keys while watching: from `fd`, else from stdin when it is a
        terminal (nothing otherwise)."""
        if fd is None:
            if not (self.live and sys.stdin.isatty()):
                yield
                return
            fd = sys.stdin.fileno()
        import termios
        import tty

        saved = termios.tcgetattr(fd) if os.isatty(fd) else None
        if saved is not None:
            tty.setcbreak(fd)  # keys one by one, Ctrl-C still interrupts
        loop = asyncio.get_running_loop()

        def read() -> None:
            # `q` raises KeyboardInterrupt out of the loop, as Ctrl-C would: see cmd_attach.
            for char in os.read(fd, 64).decode(errors="ignore"):
                self.key(char)

        loop.add_reader(fd, read)
        try:
            yield
        finally:
            loop.remove_reader(fd)
            if saved is not None:
                termios.tcsetattr(fd, termios.TCSADRAIN, saved)
