"""scripts/parity/e2e_ruler.py pairs each of RULER's answers with the prompt it answers.

RULER's OpenAIClient.__call__ writes each prompt into the one settings dict that all of
call_api.py's threads share and sends what is there; the driver's process_batch (RULER's
own is missing) gives each call its own copy, so every thread's answer is to its own
prompt. The report reads which rows' prompts RULER sent from the server's request log,
not from RULER's prediction file (which files each answer under its own row whatever was
sent).
"""

from __future__ import annotations

import importlib.util
import sys
import threading
from pathlib import Path
from types import ModuleType
from typing import Any

SCRIPTS = Path(__file__).resolve().parents[2] / "scripts" / "parity"
THREADS = 4
HANG_S = 60.0  # a hang bound only: the threads meet at once


def load_script(name: str) -> ModuleType:
    sys.path.insert(0, str(SCRIPTS))
    try:
        spec = importlib.util.spec_from_file_location(name, SCRIPTS / f"{name}.py")
        assert spec is not None and spec.loader is not None
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
    finally:
        sys.path.remove(str(SCRIPTS))
    return module


class FakeRulerOpenAIClient:
    """RULER's OpenAIClient.__call__ (c3f5e3b) as it is, over a fake server that answers
    with the prompt it got once every thread has put its prompt in: RULER's race made
    certain instead of likely."""

    def __init__(self, barrier: threading.Barrier) -> None:
        self.generation_kwargs: dict[str, Any] = {"tokens_to_generate": 128}
        self.barrier = barrier

    def _send_request(self, request: dict[str, Any]) -> str:
        self.barrier.wait(HANG_S)
        return str(request["msgs"][0]["content"])

    def __call__(self, prompt: str) -> dict[str, list[str]]:
        msgs = [{"role": "user", "content": prompt}]
        request = self.generation_kwargs
        request["msgs"] = msgs
        return {"text": [self._send_request(request)]}


def test_each_thread_of_call_api_gets_the_answer_to_its_own_prompt_fake_server() -> None:
    namespace: dict[str, Any] = {}
    exec(load_script("e2e_ruler").PROCESS_BATCH, namespace)
    client = FakeRulerOpenAIClient(threading.Barrier(THREADS))
    answers: dict[int, list[dict[str, list[str]]]] = {}

    def call_api_thread(row: int) -> None:  # call_api.py: one thread per batch of 1
        answers[row] = namespace["process_batch"](client, prompts=[f"prompt of row {row}"])

    threads = [threading.Thread(target=call_api_thread, args=(row,)) for row in range(THREADS)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(HANG_S)
    assert answers == {row: [{"text": [f"prompt of row {row}"]}] for row in range(THREADS)}


def _request_line(prompt: str) -> str:
    rendered = f"<|im_start|>user\n{prompt}<|im_end|>\n<|im_start|>assistant\n"
    return (
        "(APIServer pid=1) DEBUG 12-07 15:20:40 [entrypoints/.../utils/request_logger.py:55] "
        f"Request chatcmpl-{len(prompt)} details: prompt: {rendered!r}, "
        "prompt_token_ids: [1, 2, 3], prompt_embeds shape: None.\n"
    )


def test_the_report_counts_the_prompts_the_server_received_per_row(tmp_path: Path) -> None:
    report = load_script("e2e_ruler_report")
    log = tmp_path / "server.log"
    broken = _request_line("row c")[:120] + "(EngineCore pid=2) DEBUG Poller received notify\n"
    log.write_text(_request_line("row b") + _request_line("row b") + broken)
    logged = report.server_prompts(log, 0, log.stat().st_size)
    assert [report.times_sent(row, logged.prompts) for row in ("row a", "row b")] == [0, 2]
    assert logged.unreadable == 1
