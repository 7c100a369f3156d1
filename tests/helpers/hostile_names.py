"""Names and outputs that would act on a terminal: a results file, a runs folder, a data
folder, an lctui.toml and an import folder full of them, for the tests that every
command and every screen shows them inert (issue 25 item 2).

Each hostile value is `{head}\\n\\r\\x1b[31m{TAIL}\\x07[bold]x\\u202e`: a line break, a
carriage return, a colour, a bell, rich markup and a right-to-left override. Shown
safely, its TAIL always follows the visible escape `\\x1b[31m` and comes before the
visible `\\x07[bold]x`; obeyed, the TAIL starts a line of its own in red.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
import time
from collections.abc import Collection
from dataclasses import dataclass
from pathlib import Path

import pytest

from helpers.fake_openai_server import FakeOpenAIServer
from helpers.helmet_data import HELMET_FIXTURES
from helpers.store_factories import make_example, make_generation, make_score
from lctui.core.run_record import FAILED, RunRecord, write_record
from lctui.core.types import ModelSpec, Score, ScoreStatus
from lctui.store import open_store


def hostile(head: str, tail: str) -> str:
    return f"{head}\n\r\x1b[31m{tail}\x07[bold]x\u202e"


GOLD_TAIL, FAKE_TAIL, TASK_TAIL, RUN_TAIL = "GOLDTAIL", "FAKETAIL", "TASKTAIL", "RUNTAIL"
OUT_TAIL, ERR_TAIL, FILE_TAIL, NOTE_TAIL = "OUTTAIL", "ERRTAIL", "FILETAIL", "NOTETAIL"
GOLD_MODEL = hostile("g2", GOLD_TAIL)  # a model of the gold backend, runs for real
FAKE_MODEL = hostile("m2", FAKE_TAIL)  # a model served by a fake server
TASK = hostile("t2", TASK_TAIL)  # a task name, as an import may bring one
RUN = hostile("r2", RUN_TAIL)
OUTPUT_CHUNKS = ["The answer ", hostile("is", OUT_TAIL), " and more."]
SERVER_ERROR = hostile("server says", ERR_TAIL)
BAD_FILE = hostile("evil", FILE_TAIL) + ".json"
FOLDER = hostile("data", FILE_TAIL)
# What a terminal obeys: none of it may reach one raw.
RAW = ("\x1b", "\x07", "\r", "\x08", "\x9b", "\u202e")
TAILS = (GOLD_TAIL, FAKE_TAIL, TASK_TAIL, RUN_TAIL, OUT_TAIL, ERR_TAIL, FILE_TAIL, NOTE_TAIL)


def shown_inert(text: str, documents: Collection[str] = ()) -> list[str]:
    """The hostile tails `text` shows, after checking that each is shown escaped: no
    raw control character, every tail after its visible colour and before its visible
    bell and brackets (whatever cut a long value may have made at either side), and no
    raw line break before its colour (its value was split over two lines), except for
    the tails of `documents`, text shown with its own lines (an output in `lctui show`)."""
    leaked = [repr(raw) for raw in RAW if raw in text]
    assert not leaked, f"raw {', '.join(leaked)} in {text!r}"
    found = []
    for tail in TAILS:
        count = text.count(tail)
        if count:
            found.append(tail)
            assert text.count("\\x1b[31m" + tail) == count, (tail, text)
            broken = re.search(r"\n(\\r)?\\x1b\[31m" + tail, text)
            assert broken is None or tail in documents, (tail, text)
            after = text.count(tail + "\\x07[bold]x") + text.count(tail + "…")
            assert after == count, (tail, text)
    return found


@dataclass(frozen=True)
class HostileFiles:
    root: Path
    db: Path
    config: Path
    data_dir: Path
    data_folder: Path  # a --data folder of a hostile name with a malformed file
    imports: Path  # a folder of harness results holding a file of a hostile name
    gold_runs: tuple[str, str]
    generation: str  # the fake model's generation with a hostile output
    failed: str  # the fake model's generation that failed with a hostile message
    run_outputs: tuple[str, ...]  # what each `lctui run` printed

    def env(self) -> dict[str, str]:
        env = {**os.environ, "LCTUI_DATA_DIR": str(self.data_dir), "COLUMNS": "400"}
        env.pop("LCTUI_DB", None)
        return env

    def lctui(self, *args: str) -> str:
        """`lctui ARGS` in a process of its own, piped: its stdout and stderr together."""
        done = subprocess.run(
            [sys.executable, "-m", "lctui", *args],
            env=self.env(),
            capture_output=True,
            text=True,
            errors="surrogateescape",
            timeout=300,
        )
        assert done.returncode in (0, 1, 2), done.stderr
        return done.stdout + done.stderr


def _run(files: HostileFiles, *args: str) -> str:
    common = ["--config", str(files.config), "--db", str(files.db), "--lengths", "1k"]
    return files.lctui("run", *args, *common)


def _runs_of(db: Path) -> list[str]:
    import duckdb

    con = duckdb.connect(str(db), read_only=True)
    try:
        return [r[0] for r in con.execute("SELECT run_id FROM runs ORDER BY started_at").fetchall()]
    finally:
        con.close()


def make_hostile_files(root: Path) -> HostileFiles:
    """Everything the tests feed through the commands, made for real: gold runs and a
    run of a fake server (hostile chunks, one request refused with a hostile message)
    by `lctui run`, a run of a hostile task and id written through the store."""
    root.mkdir(parents=True, exist_ok=True)
    data_folder = root / FOLDER
    shutil.copytree(HELMET_FIXTURES, data_folder)
    first = sorted((data_folder / "kilt").glob("*.jsonl"))[0]
    first.write_text(first.read_text(encoding="utf-8") + "{not json\n", encoding="utf-8")
    imports = root / "imports"
    imports.mkdir()
    (imports / BAD_FILE).write_text("{ not a result file", encoding="utf-8")
    with FakeOpenAIServer("served", OUTPUT_CHUNKS, fail=[2], error_message=SERVER_ERROR) as fake:
        config = root / "lctui.toml"
        config.write_text(
            f'[models.{_toml(GOLD_MODEL)}]\nbackend = "gold"\n\n'
            f'[models.{_toml(FAKE_MODEL)}]\nbackend = "openai"\n'
            f'base_url = "{fake.base_url}"\nmodel = "served"\nmax_retries = 0\n',
            encoding="utf-8",
        )
        files = HostileFiles(
            root, root / "h.duckdb", config, root / "data", data_folder, imports, ("", ""), "",
            "", (),
        )  # fmt: skip
        tasks = ["--tasks", "json_kv,niah_single_1", "--n", "2"]
        outputs = [_run(files, "--model", GOLD_MODEL, *tasks)]
        outputs.append(_run(files, "--model", GOLD_MODEL, *tasks, "--temperature", "0.5"))
        gold_runs = _runs_of(files.db)
        # json_kv: a task of HELMET's table, which leaves reference models out. Two of each,
        # so that one json_kv answer is scored whichever request the server refuses (requests
        # that run together start longest first, not in the plan's order).
        by_fake = ["--model", FAKE_MODEL, "--tasks", "json_kv,niah_single_1", "--n", "2"]
        outputs.append(_run(files, *by_fake))
    generations = _generations(files.db)
    _add_hostile_task(files.db)
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("LCTUI_DATA_DIR", str(files.data_dir))
        write_record(
            RunRecord(
                RUN, 999_999_999, "elsewhere", str(root / FOLDER / "x.duckdb"), ("run",),
                str(root), time.time(), str(root / "x.sock"), status=FAILED,
                message=hostile("it failed", NOTE_TAIL),
            )
        )  # fmt: skip
    return HostileFiles(
        root, files.db, config, files.data_dir, data_folder, imports,
        (gold_runs[0], gold_runs[1]), generations["ok"], generations["error"], tuple(outputs),
    )  # fmt: skip


def _generations(db: Path) -> dict[str, str]:
    import duckdb

    con = duckdb.connect(str(db), read_only=True)
    try:
        rows = con.execute(
            "SELECT status, generation_id FROM generations g JOIN models m USING (model_id) "
            "WHERE m.name = ? ORDER BY status",
            [FAKE_MODEL],
        ).fetchall()
    finally:
        con.close()
    return {str(status): str(gid) for status, gid in rows}


def _add_hostile_task(db: Path) -> None:
    """A run of a hostile id over an example of a hostile task, its score's explanation
    hostile too: what an import of a crafted file may store."""
    spec = ModelSpec(name=GOLD_MODEL, backend="gold", reference=True)
    with open_store(db) as store:
        store.add_model(spec, "fp-hostile", "o200k_base", 8192)
        store.start_run(RUN, {"argv": ["import"]})
        example = make_example(0, task=TASK, length=1024)
        generation = make_generation(
            example, "k-hostile", "g-hostile", run_id=RUN, model_id="fp-hostile"
        )
        store.add_example(example)
        store.add_generation(generation, {"max_new_tokens": 32})
        score = make_score(1.0)
        store.add_score(
            "g-hostile",
            Score(
                score.scorer, score.metric, 1.0, ScoreStatus.OK, score.extracted,
                hostile("explained", NOTE_TAIL), score.points,
            ),
        )  # fmt: skip
        store.finish_run(RUN, "finished")


def _toml(key: str) -> str:
    """A TOML quoted key holding any text."""
    escaped = key.replace("\\", "\\\\").replace('"', '\\"')
    return '"' + "".join(c if c.isprintable() else f"\\u{ord(c):04x}" for c in escaped) + '"'
