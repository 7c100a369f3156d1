"""The `openai` backend: any OpenAI-compatible server (vLLM, SGLang, llama.cpp, TGI, OpenAI).

Requests stream through `openai.AsyncOpenAI` with the client's own retries off; the
policy on top (resilience.py) bounds the requests in flight (halved on 429), retries
429, 5xx, timeouts, refused connections and broken streams with backoff and jitter,
and spreads requests round-robin over several base URLs.

Prompts. The chat endpoint sends one user turn (the example's user text). The
answer prefix goes where the server lets it: a vLLM server continues a prefilled
assistant message (`continue_final_message`), so the model reads exactly what the
hf backend's chat template gives; other servers get the prefix appended to the user
text after a blank line, which every server accepts. The completions endpoint sends
the plain prompt, or the chat-templated one when a local tokenizer with a template
is known. Without a local tokenizer (hosted models) prompts are counted with a
reference tiktoken encoding, so they fit their budget approximately, not exactly.
"""

from __future__ import annotations

import asyncio
import dataclasses
import logging
from collections.abc import AsyncGenerator, AsyncIterator, Callable, Mapping
from contextlib import aclosing
from pathlib import Path
from typing import Any

from lctui.backends.prompting import (
    ChatFormat,
    PlainFormat,
    choose_format,
    has_chat_template,
    make_request,
)
from lctui.backends.resilience import (
    AdaptiveLimiter,
    Backoff,
    OpenAISettings,
    RetryableError,
    RoundRobin,
    ServerInfo,
    probe_servers,
    read_settings,
    translate_error,
)
from lctui.backends.server_tally import ServerTallies
from lctui.core.errors import BackendError, MissingDependencyError, UserInputError
from lctui.core.hashing import stable_hash
from lctui.core.protocols import PromptFormat, Tokenizer
from lctui.core.types import Chunk, Example, GenerationConfig, ModelSpec, Request, ServerShare
from lctui.core.waiting import within
from lctui.tasks.tokenizers import REFERENCE_TOKENIZERS, reference_tokenizer

log = logging.getLogger(__name__)
DEFAULT_TOKENIZER = "o200k_base"
DEFAULT_MAX_CONTEXT = 131072
# Tokens a chat server's unknown template adds around one user turn (role markers and
# the reply header); only used when no local tokenizer knows the real template.
UNKNOWN_TEMPLATE_TOKENS = 8
# vLLM's chat-completion extension: render the messages without the generation prompt
# and let the model continue the last (assistant) message, our answer prefix.
CONTINUE_PREFIX = {"continue_final_message": True, "add_generation_prompt": False}


def load_openai(spec: ModelSpec) -> OpenAIBackend:
    """Check the servers (one /v1/models request each), then build the backend. Blocking."""
    settings = read_settings(spec)
    info = probe_servers(settings.base_urls, settings.model, settings.api_key, settings.api_key_env)
    return OpenAIBackend(spec.name, settings, info)


class AppendedPrefix:
    """A chat turn whose answer prefix is appended to the user text (servers that cannot
    continue an assistant message): head + user text + blank line + prefix + tail."""

    name = "chat-appended"

    def __init__(self, inner: PromptFormat) -> None:
        self.inner = inner

    def render(self, user_text: str, answer_prefix: str) -> tuple[str, str]:
        head, tail = self.inner.render(user_text, "")
        return head, (f"\n\n{answer_prefix}" if answer_prefix else "") + tail


class OpenAIBackend:
    """Streams requests to OpenAI-compatible servers; one instance serves all workers."""

    def __init__(
        self,
        name: str,
        settings: OpenAISettings,
        info: ServerInfo,
        *,
        fingerprint: str | None = None,
        health_check: Callable[[], None] | None = None,
        backoff: Backoff | None = None,
    ) -> None:
        self.name = name
        self.settings = settings
        self.info = info
        self.max_concurrency = settings.max_concurrency
        self.max_context = settings.max_context or info.max_model_len or DEFAULT_MAX_CONTEXT
        # Shown by reports: where the window came from ("setting", "server", "assumed").
        self.max_context_source = (
            "setting" if settings.max_context else "server" if info.max_model_len else "assumed"
        )
        if self.max_context_source == "assumed":
            log.warning(
                "%s: the server does not report the model's window; assuming %d tokens "
                "(set max_context to the real one)",
                name,
                DEFAULT_MAX_CONTEXT,
            )
        self._tokenizer, hf_tokenizer = _load_tokenizer(settings)
        self._prefill = settings.endpoint == "chat" and info.continues_final_message
        self._format = _prompt_format(settings, hf_tokenizer, self._prefill, name)
        self._health_check = health_check  # raises BackendError when retrying is pointless
        self._backoff = backoff or Backoff()
        self._urls = RoundRobin(settings.base_urls)
        self._servers = ServerTallies(settings.base_urls)
        self._overheads: dict[str, int] = {}
        self._loop: asyncio.AbstractEventLoop | None = None
        self._clients: list[Any] = []
        self._limiter: AdaptiveLimiter | None = None
        self.fingerprint = fingerprint or stable_hash(
            "openai",
            sorted(settings.base_urls),
            settings.model,
            settings.endpoint,
            getattr(self._format, "name", type(self._format).__name__),
        )

    @property
    def tokenizer(self) -> Tokenizer:
        return self._tokenizer

    def server_shares(self) -> tuple[ServerShare, ...]:
        """Each base URL's attempts, answers, errors and latency so far (ReportsServers)."""
        return self._servers.shares()

    @property
    def limiter(self) -> AdaptiveLimiter | None:
        """The in-flight limiter of the current event loop (None before the first request)."""
        return self._limiter

    def template_overhead(self, answer_prefix: str, prompt_format: str = "auto") -> int:
        """Tokens around the user text; `prompt_format` is fixed per model for this backend."""
        if answer_prefix not in self._overheads:
            head, tail = self._format.render("", answer_prefix)
            count = self._tokenizer.count(head) + self._tokenizer.count(tail)
            fmt = self._format.inner if isinstance(self._format, AppendedPrefix) else self._format
            if self.settings.endpoint == "chat" and not isinstance(fmt, ChatFormat):
                count += UNKNOWN_TEMPLATE_TOKENS
            self._overheads[answer_prefix] = count
        return self._overheads[answer_prefix]

    def build_request(self, example: Example, config: GenerationConfig) -> Request:
        request = make_request(example, config, self._format)
        if self.settings.endpoint != "chat":
            return dataclasses.replace(request, messages=())
        user: Mapping[str, str] = {"role": "user", "content": example.user_text}
        messages: tuple[Mapping[str, str], ...] = (user,)
        if example.answer_prefix and self._prefill:
            messages = (user, {"role": "assistant", "content": example.answer_prefix})
        elif example.answer_prefix:
            appended = f"{example.user_text}\n\n{example.answer_prefix}"
            messages = ({"role": "user", "content": appended},)
        return dataclasses.replace(request, messages=messages)

    async def stream(self, request: Request) -> AsyncIterator[Chunk]:
        """Stream one request, retrying failed attempts from scratch.

        When an attempt fails after some of its text went out, the next attempt's
        first chunk carries `restart=True`: the consumer drops what it has so far.
        """
        limiter = self._bind_loop()
        void = False  # text of a failed attempt is out there and must be voided
        attempt = 0
        while True:
            if self._health_check is not None:
                self._health_check()
            sent = False
            index = self._urls.pick()
            try:
                async with (
                    limiter.slot() as ticket,
                    aclosing(self._attempt(index, request)) as tries,
                ):
                    try:
                        async for chunk in tries:
                            if void:
                                chunk, void = dataclasses.replace(chunk, restart=True), False
                            sent = sent or bool(chunk.text)
                            yield chunk
                    except RetryableError as exc:
                        if exc.throttled:
                            limiter.throttled(ticket)
                        raise
                    limiter.succeeded()
                return
            except RetryableError as exc:
                void = void or sent
                if attempt >= self.settings.max_retries:
                    raise BackendError(
                        f"{self.name}: failed after {attempt + 1} attempt(s): {exc}"
                    ) from None
                await asyncio.sleep(self._backoff.delay(attempt, exc.retry_after_s))
                attempt += 1

    async def _attempt(self, index: int, request: Request) -> AsyncGenerator[Chunk, None]:
        """One try against one server: text chunks, then the finish with usage. The
        server's tally counts it (answered, failed, or given up on by the consumer)."""
        url = self.settings.base_urls[index]
        deadline = asyncio.get_running_loop().time() + self.settings.timeout_s
        finish: str | None = None
        usage: Any = None
        tally = self._servers.begin(index)
        try:
            try:
                stream = await _within(deadline, self._open(self._clients[index], request))
                async with stream:
                    events = stream.__aiter__()
                    while True:
                        try:
                            event = await _within(deadline, events.__anext__())
                        except StopAsyncIteration:
                            break
                        usage = getattr(event, "usage", None) or usage
                        for choice in event.choices or ():
                            finish = choice.finish_reason or finish
                            text = _choice_text(choice)
                            if text:
                                tally.text()
                                yield Chunk(text, tokens=1)
            except (RetryableError, BackendError):
                raise
            except asyncio.TimeoutError:
                raise RetryableError(
                    f"{url} gave no complete answer within {self.settings.timeout_s:g} s "
                    "(timeout_s)"
                ) from None
            except Exception as exc:
                raise translate_error(
                    exc, url, self.settings.api_key, self.settings.api_key_env
                ) from None
            if finish is None:
                raise RetryableError(f"the stream from {url} ended before the answer did")
            tally.answered()
            yield Chunk(
                "",
                tokens=0,
                finish_reason=finish,
                prompt_tokens=getattr(usage, "prompt_tokens", None),
                output_tokens=getattr(usage, "completion_tokens", None),
            )
        except (RetryableError, BackendError) as exc:
            tally.failed(str(exc))
            raise
        finally:
            tally.end()

    def _open(self, client: Any, request: Request) -> Any:
        config = request.config
        common: dict[str, Any] = {
            "model": self.settings.model,
            "temperature": config.temperature,
            "top_p": config.top_p,
            "stream": True,
            "stream_options": {"include_usage": True},
        }
        if config.stop:
            common["stop"] = list(config.stop)
        if self.settings.endpoint == "completions":
            return client.completions.create(
                prompt=request.prompt, max_tokens=config.max_new_tokens, **common
            )
        messages = [dict(m) for m in request.messages]
        continues = messages[-1]["role"] == "assistant"
        return client.chat.completions.create(
            messages=messages,
            max_completion_tokens=config.max_new_tokens,
            extra_body=CONTINUE_PREFIX if continues else None,
            **common,
        )

    def _bind_loop(self) -> AdaptiveLimiter:
        """Clients and limiter belong to one event loop: made on first use in each loop."""
        loop = asyncio.get_running_loop()
        if self._loop is not loop or self._limiter is None:
            import openai  # a core dependency, imported on first use to keep start-up fast

            self._clients = [
                openai.AsyncOpenAI(
                    base_url=url,
                    api_key=self.settings.api_key,
                    max_retries=0,  # ours, with the limiter and round-robin, run on top
                    timeout=self.settings.timeout_s,
                )
                for url in self.settings.base_urls
            ]
            self._limiter = AdaptiveLimiter(self.max_concurrency)
            self._loop = loop
        return self._limiter

    async def close(self) -> None:
        clients, self._clients, self._loop, self._limiter = self._clients, [], None, None
        for client in clients:
            try:
                await client.close()
            except Exception:  # closing a client of a loop that is gone
                continue


async def _within(deadline: float, awaitable: Any) -> Any:
    """Await with what is left of the request's time (asyncio.TimeoutError past it)."""
    remaining = deadline - asyncio.get_running_loop().time()
    return await within(awaitable, max(remaining, 0.001))


def _choice_text(choice: Any) -> str:
    delta = getattr(choice, "delta", None)
    if delta is not None:
        return str(getattr(delta, "content", None) or "")
    return str(getattr(choice, "text", None) or "")


def _load_tokenizer(settings: OpenAISettings) -> tuple[Tokenizer, Any | None]:
    """A local checkpoint's tokenizer (exact counts) or a reference tiktoken encoding."""
    name = settings.tokenizer
    if name in REFERENCE_TOKENIZERS or (name is None and settings.checkpoint is None):
        return reference_tokenizer(name or DEFAULT_TOKENIZER), None
    source = Path(name).expanduser() if name is not None else Path(str(settings.checkpoint))
    if not source.is_dir():
        raise UserInputError(
            f"tokenizer {name!r} is neither a reference tokenizer "
            f"({', '.join(REFERENCE_TOKENIZERS)}) nor a local checkpoint directory"
        )
    from lctui.backends.hf_tokenizer import HFTokenizer

    try:
        from transformers import AutoTokenizer
    except ImportError as exc:
        raise MissingDependencyError("transformers", "hf", f"the tokenizer in {source}") from exc
    try:
        hf = AutoTokenizer.from_pretrained(str(source), local_files_only=True)
    except (OSError, ValueError) as exc:
        raise BackendError(f"cannot load the tokenizer in {source}: {exc}") from exc
    return HFTokenizer(hf), hf


def _prompt_format(
    settings: OpenAISettings, hf_tokenizer: Any | None, prefill: bool, name: str
) -> PromptFormat:
    if settings.endpoint == "completions":
        return choose_format(settings.prompt_format, hf_tokenizer)
    if settings.prompt_format == "plain":
        raise UserInputError(
            f"model {name!r}: prompt_format 'plain' sends the raw prompt, which needs "
            "endpoint = 'completions' (the chat endpoint always applies a chat template)"
        )
    # The server applies its chat template; a local copy of it makes head and tail exact.
    inner: PromptFormat = (
        ChatFormat(hf_tokenizer)
        if hf_tokenizer is not None and has_chat_template(hf_tokenizer)
        else PlainFormat()
    )
    return inner if prefill else AppendedPrefix(inner)
