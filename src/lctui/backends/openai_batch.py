"""The OpenAI Batch API client of the LLM judge: one JSONL job per judging pass.

The judge model's settings are read through the openai backend's settings table
(`core/backend_settings.py`) like every backend's; without a base_url the job goes to
the hosted API. `openai` is imported only inside `submit_batch`.
"""

from __future__ import annotations

import asyncio
import io
import json
import os
from collections.abc import Mapping
from typing import Any

from lctui.backends.settings import read_params
from lctui.core.backend_settings import settings_of, typed_default
from lctui.core.errors import LctuiError, UserInputError
from lctui.core.text import shorten
from lctui.core.types import ModelSpec
from lctui.scoring.judge import JudgePrompt, JudgeReply

HOSTED_API_URL = "https://api.openai.com/v1"
_DEFAULT_KEY_ENV = typed_default("openai", "api_key_env", str)


def batch_client_settings(spec: ModelSpec) -> dict[str, str]:
    """base_url (the first if several, else the hosted API), the API key's environment
    variable and the served model name: what the judge's fingerprint is made of."""
    params = read_params(spec, settings_of("openai"))
    base = params.get("base_url") or HOSTED_API_URL
    if isinstance(base, list):
        base = base[0]
    return {
        "base_url": str(base),
        "api_key_env": str(params.get("api_key_env") or _DEFAULT_KEY_ENV),
        "model": str(params.get("model") or spec.path or spec.name),
    }


async def submit_batch(
    spec: ModelSpec, todo: Mapping[str, tuple[str, JudgePrompt]], poll_s: float
) -> dict[str, tuple[JudgeReply | None, str | None]]:
    """Upload the prompts as a JSONL batch, wait for it, and read every result line."""
    import openai

    settings = batch_client_settings(spec)
    key = os.environ.get(settings["api_key_env"])
    if not key:
        raise UserInputError(
            f"judge {spec.name}: set the API key in the environment variable "
            f"{settings['api_key_env']} (keys are never read from the database)"
        )
    lines = [json.dumps(batch_request_line(k, settings["model"], p)) for k, (_, p) in todo.items()]
    client = openai.AsyncOpenAI(base_url=settings["base_url"], api_key=key)
    try:
        upload = await client.files.create(
            file=("lctui-judge.jsonl", io.BytesIO("\n".join(lines).encode())), purpose="batch"
        )
        job = await client.batches.create(
            input_file_id=upload.id, endpoint="/v1/chat/completions", completion_window="24h"
        )
        while job.status not in ("completed", "failed", "expired", "cancelled"):
            await asyncio.sleep(poll_s)
            job = await client.batches.retrieve(job.id)
        results: dict[str, tuple[JudgeReply | None, str | None]] = {}
        for file_id in (job.output_file_id, job.error_file_id):
            if file_id:
                content = await client.files.content(file_id)
                for raw in content.text.splitlines():
                    if raw.strip():
                        custom_id, reply, error = batch_result(json.loads(raw))
                        results[custom_id] = (reply, error)
        if job.status != "completed":
            reason = f"the judge batch {job.id} ended {job.status}"
            for k in todo:
                results.setdefault(k, (None, reason))
        return results
    except openai.APIError as exc:
        raise LctuiError(f"judge {spec.name}: the Batch API refused the job: {exc}") from exc
    finally:
        await client.close()


def batch_request_line(custom_id: str, model: str, prompt: JudgePrompt) -> dict[str, Any]:
    """One line of an OpenAI Batch API input file (chat completions, greedy)."""
    return {
        "custom_id": custom_id,
        "method": "POST",
        "url": "/v1/chat/completions",
        "body": {
            "model": model,
            "messages": [{"role": "user", "content": prompt.text}],
            "max_tokens": prompt.max_new_tokens,
            "temperature": 0,
        },
    }


def batch_result(line: Mapping[str, Any]) -> tuple[str, JudgeReply | None, str | None]:
    """(custom_id, reply, error) from one line of a Batch API output or error file."""
    custom_id = str(line.get("custom_id", ""))
    response = line.get("response") or {}
    body = response.get("body") or {}
    if line.get("error") or response.get("status_code", 200) != 200 or not body.get("choices"):
        error = line.get("error") or body.get("error") or f"status {response.get('status_code')}"
        return custom_id, None, f"batch request failed: {shorten(json.dumps(error), 300)}"
    usage = body.get("usage") or {}
    text = body["choices"][0].get("message", {}).get("content") or ""
    reply = JudgeReply(
        str(text),
        int(usage.get("prompt_tokens") or 0),
        int(usage.get("completion_tokens") or 0),
        0.0,
    )
    return custom_id, reply, None
