"""`lctui run`'s arguments made from a RunRequest (`request_argv`): what the TUI starts in
the background and hands over at quit is the same run, read back by `lctui run`'s own
parser; and a detached run whose file another process writes waits for its turn (a
real process, for each way a wait ends)."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import textwrap
from pathlib import Path

import pytest

from helpers.live_runs import lctui, stored_generations, wait_for_record, wait_until
from lctui.backends import resolve_model
from lctui.cli.run import detach_argv
from lctui.cli.run_args import parse_overrides, parse_run_argv, request_argv
from lctui.core.config import load_config
from lctui.core.errors import UserInputError
from lctui.core.lengths import parse_lengths
from lctui.core.run_record import CANCELLED, FINISHED, WAITING
from lctui.engine import RunRequest
from lctui.engine.attach import pid_alive
from lctui.store.claim import WriterClaim
from lctui.tasks import select_tasks


def _config(tmp_path: Path) -> Path:
    path = tmp_path / "lctui.toml"
    path.write_text(
        textwrap.dedent("""
            [models.gold-4k]
            backend = "gold"
            max_context = 4096
        """)
    )
    return path


def test_a_request_becomes_the_run_command_that_makes_it_again(tmp_path: Path) -> None:
    config_path = _config(tmp_path)
    config = load_config(str(config_path))
    vt = select_tasks("vt")[0].with_params({"num_hops": 6, "num_chains": 2})
    request = RunRequest(
        models=[config.models["gold-4k"], resolve_model("gold", {})],
        tasks=[*select_tasks("niah_single_2,niah_multikey_1"), vt],
        lengths=[1024, 3000, 4096],
        n=7,
        seed=3,
        tokenizer="o200k_base",
        truncate=True,
        temperature=0.1,
        prompt_format="plain",
        judge=resolve_model("gold", {}),
        judge_batch=True,
    )
    db = tmp_path / "results.duckdb"
    args = parse_run_argv(request_argv(request, db, config_path))
    assert args.model == ["gold-4k", "gold"] and Path(args.config) == config_path
    models = [resolve_model(name, load_config(args.config).models) for name in args.model]
    assert models == list(request.models)
    tasks = select_tasks(args.tasks, parse_overrides(args.set))
    assert [(t.name, t.params) for t in tasks] == [(t.name, t.params) for t in request.tasks]
    assert sorted(args.set) == ["vt.num_chains=2", "vt.num_hops=6"]  # the changed ones only
    assert parse_lengths(args.lengths) == [1024, 3000, 4096]
    assert (args.n, args.seed, args.tokenizer, args.truncate) == (7, 3, "o200k_base", True)
    assert (args.temperature, args.prompt_format) == (0.1, "plain")
    assert (args.judge, args.judge_batch, Path(args.db)) == ("gold", True, db)
    assert not args.detach


def test_defaults_are_left_out_and_re_runs_of_stored_examples_are_refused(tmp_path: Path) -> None:
    db = tmp_path / "results.duckdb"
    plain = RunRequest(models=[resolve_model("gold", {})], tasks=select_tasks("vt"), lengths=[2048])
    assert request_argv(plain, db) == [
        *("run", "--model", "gold", "--tasks", "vt", "--lengths", "2k"),
        *("--n", "10", "--seed", "0", "--db", str(db)),
    ]
    rerun = RunRequest(
        models=plain.models, tasks=plain.tasks, lengths=[2048], indices=[3], retry_stored=True
    )
    with pytest.raises(UserInputError, match="re-run of stored examples"):
        request_argv(rerun, db)
    with pytest.raises(UserInputError, match="--n/-n: invalid int value"):
        parse_run_argv(["run", "--model", "gold", "--tasks", "vt", "--n", "many"])


@pytest.mark.slow
def test_detached_runs_of_a_file_being_written_wait_for_their_turn(tmp_path: Path) -> None:
    db = tmp_path / "queued.duckdb"
    argv = ["run", "--model", "gold", "--tasks", "niah_single_1", "--lengths", "1k", "--n", "2"]
    claim = WriterClaim.take(db)  # another lctui process writes the file
    try:
        with pytest.raises(UserInputError, match="being written by another lctui process"):
            detach_argv([*argv, "--db", str(db)])
        waits = detach_argv([*argv, "--db", str(db)], queue=True)
        cancelled = detach_argv([*argv, "--seed", "1", "--db", str(db)], queue=True)
        for record in (waits, cancelled):
            wait_for_record(record.run_id, lambda r: r.status == WAITING, 60, "the run to wait")
        listed = subprocess.run(
            lctui("runs", "--format", "json"), capture_output=True, text=True, timeout=60
        )
        statuses = {line["record"]["run_id"]: line["status"] for line in json.loads(listed.stdout)}
        assert statuses == {waits.run_id: WAITING, cancelled.run_id: WAITING}, listed.stderr
        os.kill(cancelled.pid, signal.SIGTERM)  # as the TUI's c does before a run listens
        record = wait_for_record(cancelled.run_id, lambda r: r.ended, 30, "the cancel")
        assert record.status == CANCELLED and "while it waited" in (record.message or "")
        assert pid_alive(waits.pid)
    finally:
        claim.release()
    record = wait_for_record(waits.run_id, lambda r: r.ended, 60, "the waiting run to finish")
    assert (record.status, record.done, record.message) == (FINISHED, 2, "")
    wait_until(lambda: not pid_alive(waits.pid), 30, "its process to end")
    assert stored_generations(db) == (2, 2, 2)
