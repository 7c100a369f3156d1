"""Every word for a run's status, declared once and used by every reader and writer.

A run writes STARTING, WAITING and RUNNING, then one of ENDED, in its record
(core/run_record.py); readers say KILLED of a record whose process is gone. The results
file's `runs.status` holds one of STORED (store/writer.py). The TUI's Runs screen,
`lctui runs` and `lctui attach` say the same words, and add what a run is doing while
it goes (LOADING ... LEFT).
"""

from __future__ import annotations

STARTING = "starting"  # its process loads lctui and its models
# A detached run whose file another lctui process writes: it starts when the file is free.
WAITING = "waiting"
RUNNING = "running"
FINISHED = "finished"
CANCELLED = "cancelled"
FAILED = "failed"
NOTHING_TO_DO = "nothing to do"  # every example it planned was stored already
# What a record says once its process has ended on its own.
ENDED = frozenset({FINISHED, CANCELLED, FAILED, NOTHING_TO_DO})

# Said by readers, never written by a run: its process is gone, but its record (KILLED)
# or its row of the results file (INTERRUPTED, store/run_status.py) was not closed.
KILLED = "killed"
INTERRUPTED = "interrupted"
# The values of the results file's runs.status.
STORED = (RUNNING, FINISHED, CANCELLED, FAILED, INTERRUPTED)

# What a display says of a run that goes.
LOADING = "loading"  # its models load; nothing is planned yet
PAUSED = "paused"  # no new request starts; running ones finish
STALLED = "stalled"  # its results cannot be written yet (StoreStalled)
CANCELLING = "cancelling"  # asked to stop; it writes what finished
ATTACHING = "attaching"  # a view asked to watch a run of another process
LEFT = "left"  # the app let go of a run of another process, which goes on
