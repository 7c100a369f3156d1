"""A real local judge: the embedded SmolLM2 (hf backend) judges gold answers in a run.

A 135M judge gives poor verdicts, so no verdict value is asserted: the calls must be
made, stored with prompt and reply, cached (a re-run makes no new call), parsed or
marked unparsed, and shown as rubric points with explanations. The OpenAI Batch API
mode runs against a fake Batch API server (no hosted API is reachable here).
"""

from __future__ import annotations

import asyncio
import json
import random
import threading
from collections.abc import Iterator
from email.parser import BytesParser
from email.policy import default
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import duckdb
import pytest

from lctui.backends import load_backend, resolve_model
from lctui.cli import main
from lctui.core.events import Event
from lctui.core.protocols import Tokenizer
from lctui.core.types import ModelSpec
from lctui.engine import Engine, RunRequest
from lctui.engine.judging import JudgeSummary, Judging, judge_stored
from lctui.store import get_generation, open_store
from lctui.tasks.base import Draft, Task
from lctui.tasks.budget import Budget

GOLD = ModelSpec(name="gold", backend="gold", reference=True)
DOCUMENT = (
    "The harbour town of Velmora was founded in 1712 by salt traders. Its lighthouse, "
    "built in 1840, burned down in 1903 and was rebuilt in stone. Today the town lives "
    "from fishing and from summer visitors who come for the cliffs. "
)
CASES = [
    ("qa", "When was the lighthouse of Velmora built?", ("1840",), {}),
    ("qa", "Who founded Velmora?", ("salt traders",), {}),
    (
        "summ",
        "Summarize the text in two sentences.",
        ("Velmora, founded in 1712 by salt traders, lost its 1840 lighthouse to fire in 1903.",),
        {"key_points": ["Velmora was founded by salt traders", "the lighthouse burned in 1903"]},
    ),
]


class JudgedToyTask(Task):
    """Short documents whose examples ask for a judge (metadata "judge"), for tests only."""

    category = "test"
    suite = "test"
    metric = "judge"

    def __init__(self) -> None:
        super().__init__("judged_toy", "toy QA and summaries for the judge", 64, "", {})

    def build(self, rng: random.Random, budget: Budget, tokenizer: Tokenizer, index: int) -> Draft:
        kind, question, gold, extra = CASES[index]
        question = "\n\n" + question
        metadata = {"judge": kind, "gold_mode": "any", **extra}
        if kind == "qa":
            metadata["gold"] = list(gold)
        tokens = tokenizer.count(DOCUMENT + question)
        return Draft("", DOCUMENT, question, gold, tokens, metadata=metadata)


def _run(db: Path, judge: ModelSpec | None, retry: bool) -> None:
    request = RunRequest(
        models=[GOLD],
        tasks=[JudgedToyTask()],
        lengths=[1024],
        n=len(CASES),
        judge=judge,
        retry_stored=retry,
    )
    events: list[Event] = []
    with open_store(db) as store:
        outcome = asyncio.run(Engine(store, load_backend, events.append).run(request))
    assert outcome.done == len(CASES) and outcome.errors == 0


def _judge_rows(con: duckdb.DuckDBPyConnection) -> list[tuple[str, str, float | None]]:
    return con.execute(
        "SELECT generation_id, status, value FROM scores WHERE scorer = 'judge' ORDER BY 1"
    ).fetchall()


@pytest.mark.slow
@pytest.mark.model
def test_smollm2_judges_a_gold_run_and_the_rerun_hits_the_cache(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    db = tmp_path / "judged.duckdb"
    judge = resolve_model("smollm2-135m", {})
    _run(db, judge, retry=False)

    con = duckdb.connect(str(db), read_only=True)
    calls = con.execute(
        "SELECT j.generation_id, j.prompt, j.response, j.parsed, j.judge_model, m.name "
        "FROM judge_calls j LEFT JOIN models m ON m.model_id = j.judge_model"
    ).fetchall()
    # One call per QA answer, two per summary (recall and precision).
    assert len(calls) == 4
    assert {row[5] for row in calls} == {"smollm2-135m"}
    assert all(row[1] and row[3] for row in calls)
    assert any("Reference answers:\n- 1840" in row[1] for row in calls)
    judged = _judge_rows(con)
    assert len(judged) == len(CASES)
    assert {status for _, status, _ in judged} <= {"ok", "unparsed"}
    for _, status, value in judged:
        assert value is not None and 0.0 <= value <= 1.0
        assert status == "ok" or value == 0.0
    con.close()

    # The inspector's record shows the judge score with its rubric points explained.
    with open_store(db, read_only=True) as store:
        record = get_generation(store, judged[0][0])
    assert record is not None
    judge_scores = [s for s in record.scores if s.scorer == "judge"]
    assert len(judge_scores) == 1 and judge_scores[0].points
    assert all(p.explanation for p in judge_scores[0].points)
    assert len(record.scores) == 2  # the recall scorer's and the judge's

    # A deliberate re-run makes new generations with the same gold outputs: every
    # judge prompt is the same, so the cache answers and no call is made.
    _run(db, judge, retry=True)
    con = duckdb.connect(str(db), read_only=True)
    assert con.execute("SELECT count(*) FROM judge_calls").fetchone() == (4,)
    assert len(_judge_rows(con)) == 2 * len(CASES)
    con.close()

    # `lctui judge` re-judges stored generations from the cache too, and `lctui stats`
    # reports the judge's calls and tokens for the run.
    capsys.readouterr()
    assert main(["judge", "--db", str(db), "--judge", "smollm2-135m"]) == 0
    assert "3 judged" in capsys.readouterr().out
    con = duckdb.connect(str(db), read_only=True)
    assert con.execute("SELECT count(*) FROM judge_calls").fetchone() == (4,)
    assert len(_judge_rows(con)) == 3 * len(CASES)
    first_run = con.execute("SELECT run_id FROM runs ORDER BY started_at LIMIT 1").fetchone()
    con.close()
    assert first_run is not None
    assert main(["stats", "--db", str(db), "--run", first_run[0], "--format", "json"]) == 0
    (account,) = json.loads(capsys.readouterr().out)
    (judge_account,) = account["judges"]
    assert judge_account["judge"] == "smollm2-135m" and judge_account["calls"] == 4
    assert judge_account["prompt_tokens"] > 4 * 100 and judge_account["output_tokens"] > 0


class FakeBatchApiServer(ThreadingHTTPServer):
    """A fake of the OpenAI Batch API (files, batches, results), for tests only: a hosted
    API is not reachable here and no real server implements batches.

    Every request gets the verdict fluency 1, correctness 3; requests whose prompt
    asks "Who founded" land in the error file, as a request the API refused would.
    """

    def __init__(self) -> None:
        super().__init__(("127.0.0.1", 0), _FakeBatchHandler)
        self.files: dict[str, str] = {}
        self.polls = 0
        self.uploads: list[str] = []

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.server_address[1]}/v1"


class _FakeBatchHandler(BaseHTTPRequestHandler):
    server: FakeBatchApiServer

    def log_message(self, *args: object) -> None:
        return None

    def _send(self, body: object, raw: bool = False) -> None:
        data = str(body).encode() if raw else json.dumps(body).encode()
        self.send_response(200)
        self.send_header("content-type", "application/octet-stream" if raw else "application/json")
        self.send_header("content-length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def do_POST(self) -> None:
        body = self.rfile.read(int(self.headers["content-length"]))
        if self.path == "/v1/files":
            message = BytesParser(policy=default).parsebytes(
                b"content-type: " + self.headers["content-type"].encode() + b"\r\n\r\n" + body
            )
            part = next(p for p in message.iter_parts() if p.get_filename())
            self.server.files["file-in"] = part.get_content()
            self.server.uploads.append(self.server.files["file-in"])
            self._send({"id": "file-in", "object": "file", "purpose": "batch", "bytes": len(body)})
        elif self.path == "/v1/batches":
            assert json.loads(body)["input_file_id"] == "file-in"
            self._send(_batch("validating"))
        else:
            self.send_error(404)

    def do_GET(self) -> None:
        if self.path == "/v1/batches/batch-1":
            self.server.polls += 1
            self._send(_batch("in_progress" if self.server.polls < 2 else "completed"))
        elif self.path.startswith("/v1/files/") and self.path.endswith("/content"):
            wanted = self.path.split("/")[3]
            self._send(_results(self.server.files["file-in"], wanted == "file-err"), raw=True)
        else:
            self.send_error(404)


def _batch(status: str) -> dict[str, object]:
    done = status == "completed"
    return {
        "id": "batch-1",
        "object": "batch",
        "endpoint": "/v1/chat/completions",
        "completion_window": "24h",
        "input_file_id": "file-in",
        "created_at": 0,
        "status": status,
        "output_file_id": "file-out" if done else None,
        "error_file_id": "file-err" if done else None,
    }


def _results(jsonl: str, errors: bool) -> str:
    verdict = '{"reason": "fake verdict", "fluency": 1, "correctness": 3}'
    out = []
    for line in jsonl.splitlines():
        request = json.loads(line)
        refused = "Who founded" in request["body"]["messages"][0]["content"]
        if refused != errors:
            continue
        body: dict[str, object] = {
            "choices": [{"message": {"role": "assistant", "content": verdict}}],
            "usage": {"prompt_tokens": 100, "completion_tokens": 20},
        }
        status = 200
        if refused:
            status, body = 500, {"error": {"message": "fake server error"}}
        response = {"status_code": status, "body": body}
        out.append(json.dumps({"custom_id": request["custom_id"], "response": response}))
    return "\n".join(out)


@pytest.fixture
def fake_batch_api() -> Iterator[FakeBatchApiServer]:
    server = FakeBatchApiServer()
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield server
    server.shutdown()
    server.server_close()


def _judge_with_fake_batch_api(db: Path, server: FakeBatchApiServer) -> JudgeSummary:
    spec = ModelSpec(
        name="batch-judge",
        backend="openai",
        params={"base_url": server.base_url, "api_key_env": "LCTUI_FAKE_BATCH_KEY"},
    )
    with open_store(db) as store:
        judging = Judging(spec, load_backend, store, batch=True, poll_s=0.01)
        found, summary = asyncio.run(judge_stored(judging))
    assert found == len(CASES)
    return summary


def test_judge_batch_with_fake_batch_api_server(
    tmp_path: Path, fake_batch_api: FakeBatchApiServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    db = tmp_path / "batch.duckdb"
    _run(db, None, retry=False)  # gold answers, no judge yet
    monkeypatch.setenv("LCTUI_FAKE_BATCH_KEY", "sk-fake")
    summary = _judge_with_fake_batch_api(db, fake_batch_api)
    # Two QA prompts and the summary's two: one JSONL upload of four lines, polled twice.
    assert len(fake_batch_api.uploads) == 1 and len(fake_batch_api.uploads[0].splitlines()) == 4
    assert fake_batch_api.polls == 2
    assert (summary.calls, summary.errors, summary.unparsed) == (3, 1, 1)
    con = duckdb.connect(str(db), read_only=True)
    scores = dict(
        con.execute(
            "SELECT e.metadata ->> '$.judge' || ':' || e.question, s.status || ' ' || "
            "coalesce(CAST(s.value AS TEXT), s.explanation) FROM scores s "
            "JOIN generations g USING (generation_id) JOIN examples e USING (example_id) "
            "WHERE s.scorer = 'judge'"
        ).fetchall()
    )
    assert scores[f"qa:\n\n{CASES[0][1]}"] == "ok 1.0"
    assert scores[f"qa:\n\n{CASES[1][1]}"].startswith("error batch request failed")
    assert scores[f"summ:\n\n{CASES[2][1]}"] == "unparsed 0.0"  # a QA verdict is no list
    calls = con.execute("SELECT count(*), bool_and(parsed ->> '$.batch' = 'true') FROM judge_calls")
    assert calls.fetchone() == (3, True)
    con.close()
    # A second pass finds every answered prompt in the cache and sends only the refused one.
    again = _judge_with_fake_batch_api(db, fake_batch_api)
    assert (again.calls, again.cached, again.errors) == (0, 3, 1)
    assert len(fake_batch_api.uploads[1].splitlines()) == 1


def test_judge_batch_without_api_key_stores_errors_not_a_crash(
    tmp_path: Path, fake_batch_api: FakeBatchApiServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    db = tmp_path / "nokey.duckdb"
    _run(db, None, retry=False)
    monkeypatch.delenv("LCTUI_FAKE_BATCH_KEY", raising=False)
    summary = _judge_with_fake_batch_api(db, fake_batch_api)
    assert summary.errors == len(CASES) and not fake_batch_api.uploads
    assert "LCTUI_FAKE_BATCH_KEY" in summary.messages[0]
