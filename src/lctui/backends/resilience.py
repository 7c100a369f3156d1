"""Settings and request policy for OpenAI-compatible servers: adaptive concurrency,
backoff with jitter, Retry-After, round-robin, which failures are worth a retry, and
the load-time check of the servers (reachable, key accepted, model served).

The policy classes take an injected clock and random source so tests can pin them;
`openai` is imported only inside the functions that read its exceptions.
"""

from __future__ import annotations

import asyncio
import email.utils
import os
import random
import time
from collections.abc import AsyncIterator, Callable, Mapping, Sequence
from contextlib import asynccontextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from lctui.backends.prompting import check_prompt_format
from lctui.backends.settings import read_params
from lctui.core.backend_settings import settings_of, typed_default
from lctui.core.errors import BackendError, UserInputError
from lctui.core.text import shorten
from lctui.core.types import ModelSpec

# A server asking for a longer pause than this is treated as asking for this long:
# a run should not sleep for an hour because of one header.
MAX_RETRY_AFTER_S = 120.0
DEFAULT_CONCURRENCY = typed_default("openai", "max_concurrency", int)
OPENAI_SETTINGS = settings_of("openai")


@dataclass(frozen=True)
class OpenAISettings:
    """An `openai` model's settings, read and checked from its ModelSpec."""

    base_urls: tuple[str, ...]
    model: str  # the name the server serves the model under
    endpoint: str = typed_default("openai", "endpoint", str)
    api_key_env: str = typed_default("openai", "api_key_env", str)
    timeout_s: float = typed_default("openai", "timeout_s", float)
    max_retries: int = typed_default("openai", "max_retries", int)
    max_concurrency: int = DEFAULT_CONCURRENCY
    prompt_format: str = typed_default("openai", "prompt_format", str)
    tokenizer: str | None = None
    max_context: int | None = None
    checkpoint: str | None = None  # a local checkpoint whose tokenizer counts exactly

    @property
    def api_key(self) -> str:
        # Servers without auth (a local vLLM) accept any key; the client insists on one.
        return os.environ.get(self.api_key_env) or "EMPTY"


def read_settings(
    spec: ModelSpec, *, base_urls: Sequence[str] | None = None, checkpoint: str | None = None
) -> OpenAISettings:
    """Check a spec's settings; callers that start the server give `base_urls` themselves."""
    allowed = {k: v for k, v in OPENAI_SETTINGS.items() if base_urls is None or k != "base_url"}
    params = read_params(spec, allowed)
    defaults = OpenAISettings(base_urls=(), model="")  # its field defaults are the table's
    if base_urls is None:
        raw = params.get("base_url")
        base_urls = [raw] if isinstance(raw, str) else [str(u) for u in raw or []]
        if not base_urls:
            raise UserInputError(
                f"model {spec.name!r} (backend openai) needs base_url, e.g. "
                '"http://127.0.0.1:8000/v1" (a list of URLs is used round-robin)'
            )
    endpoint = str(params.get("endpoint", defaults.endpoint))
    if endpoint not in OPENAI_SETTINGS["endpoint"].choices:
        raise UserInputError(f"model {spec.name!r}: endpoint must be 'chat' or 'completions'")
    for key, least in (("max_retries", 0), ("max_concurrency", 1), ("timeout_s", 1)):
        if key in params and params[key] < least:
            raise UserInputError(f"model {spec.name!r}: {key} must be at least {least}")
    local = Path(spec.path).expanduser() if spec.path else None
    return OpenAISettings(
        base_urls=tuple(normalise_url(u) for u in base_urls),
        model=str(params.get("model") or spec.path or spec.name),
        endpoint=endpoint,
        api_key_env=str(params.get("api_key_env", defaults.api_key_env)),
        timeout_s=float(params.get("timeout_s", defaults.timeout_s)),
        max_retries=int(params.get("max_retries", defaults.max_retries)),
        max_concurrency=int(params.get("max_concurrency", defaults.max_concurrency)),
        prompt_format=check_prompt_format(str(params.get("prompt_format", defaults.prompt_format))),
        tokenizer=str(params["tokenizer"]) if "tokenizer" in params else None,
        max_context=int(params["max_context"]) if "max_context" in params else None,
        checkpoint=checkpoint or (str(local) if local is not None and local.is_dir() else None),
    )


@dataclass
class Ticket:
    """One admitted request; `epoch` is the limiter's epoch when it was admitted."""

    epoch: int


class AdaptiveLimiter:
    """AIMD concurrency limit: halve on a 429, +1 after a run of successes.

    A burst of 429s from requests that were all in flight together is one signal,
    not many: only a request admitted since the last cut may cut again (epochs), so a
    limit of 16 becomes 8, not 1, when the 16 requests in flight are all refused.
    Call `succeeded` and `throttled` while still holding the slot: its release wakes
    the waiters, which then see the new limit.
    """

    def __init__(self, max_limit: int, *, recover_after: int = 8) -> None:
        if max_limit < 1:
            raise ValueError("max_limit must be at least 1")
        self.max_limit = max_limit
        self.limit = max_limit
        self.recover_after = recover_after
        self.in_flight = 0
        self.peak_in_flight = 0
        self._epoch = 0
        self._successes = 0
        self._changed = asyncio.Condition()

    @asynccontextmanager
    async def slot(self) -> AsyncIterator[Ticket]:
        """Wait until fewer than `limit` requests are in flight, then hold a place."""
        async with self._changed:
            await self._changed.wait_for(lambda: self.in_flight < self.limit)
            self.in_flight += 1
            self.peak_in_flight = max(self.peak_in_flight, self.in_flight)
        try:
            yield Ticket(self._epoch)
        finally:
            async with self._changed:
                self.in_flight -= 1
                self._changed.notify_all()

    def succeeded(self) -> None:
        self._successes += 1
        if self._successes >= self.recover_after and self.limit < self.max_limit:
            self.limit += 1
            self._successes = 0

    def throttled(self, ticket: Ticket) -> None:
        """The server answered 429 to the request holding `ticket`."""
        self._successes = 0
        if ticket.epoch != self._epoch:
            return  # admitted before the last cut: already accounted for
        self._epoch += 1
        self.limit = max(1, self.limit // 2)


class Backoff:
    """Exponential backoff with full jitter (sleep uniform in [0, min(cap, base * 2^n)]).

    Full jitter spreads the retries of many clients refused at once, so they do not
    come back together (AWS Architecture Blog, "Exponential Backoff And Jitter").
    A server's Retry-After is a floor: we never come back sooner than it asked.
    """

    def __init__(
        self,
        base_s: float = 0.5,
        cap_s: float = 30.0,
        *,
        rand: Callable[[], float] = random.random,
    ) -> None:
        self.base_s = base_s
        self.cap_s = cap_s
        self._rand = rand

    def delay(self, attempt: int, retry_after_s: float | None = None) -> float:
        """Seconds to wait before retry number `attempt` (0 for the first retry)."""
        ceiling = min(self.cap_s, self.base_s * (2**attempt))
        jittered = ceiling * self._rand()
        if retry_after_s is None:
            return jittered
        return max(min(retry_after_s, MAX_RETRY_AFTER_S), jittered)


def retry_after_seconds(
    headers: Mapping[str, str] | None, *, now: Callable[[], float] = time.time
) -> float | None:
    """Seconds a response's Retry-After (or retry-after-ms) header asks to wait, if any.

    The header holds either seconds or an HTTP date; OpenAI also sends milliseconds.
    """
    if not headers:
        return None
    lowered = {k.lower(): v for k, v in headers.items()}
    millis = lowered.get("retry-after-ms")
    if millis is not None:
        try:
            return max(0.0, float(millis) / 1000)
        except ValueError:
            pass
    value = lowered.get("retry-after")
    if value is None:
        return None
    try:
        return max(0.0, float(value))
    except ValueError:
        pass
    try:
        when = email.utils.parsedate_to_datetime(value)
    except (TypeError, ValueError):
        return None
    return max(0.0, when.timestamp() - now())


class RoundRobin:
    """Hands out indices 0..n-1 in turn, one per request (and per retry).

    A retry goes to the next server, and a server that failed stays in the rotation,
    so a replica that restarts rejoins the evaluation by itself.
    """

    def __init__(self, items: Sequence[str]) -> None:
        if not items:
            raise ValueError("RoundRobin needs at least one item")
        self.items = tuple(items)
        self._next = 0

    def pick(self) -> int:
        index = self._next
        self._next = (self._next + 1) % len(self.items)
        return index


class RetryableError(Exception):
    """A failed attempt worth another one; `throttled` for 429 (the limiter shrinks)."""

    def __init__(
        self, message: str, *, retry_after_s: float | None = None, throttled: bool = False
    ) -> None:
        super().__init__(message)
        self.retry_after_s = retry_after_s
        self.throttled = throttled


def redact(text: str, secret: str) -> str:
    """`text` with the API key masked: no key ever reaches the store or a log."""
    return text.replace(secret, "***") if secret and secret != "EMPTY" else text


def normalise_url(url: str) -> str:
    """`http://host:8000` and `http://host:8000/` mean `http://host:8000/v1`; other paths stay."""
    url = url.strip().rstrip("/")
    scheme, _, rest = url.partition("://")
    if not rest or scheme not in ("http", "https"):
        raise UserInputError(
            f"base_url {url!r} is not an http(s) URL, e.g. http://127.0.0.1:8000/v1"
        )
    return url if "/" in rest else url + "/v1"


def _reason(exc: BaseException) -> str:
    """A connection error's cause in a few words ("connection refused", "timed out")."""
    text = " ".join(str(e) for e in (exc, exc.__cause__, exc.__context__) if e is not None)
    lowered = text.lower()
    if "refused" in lowered:
        return "connection refused"
    if "timed out" in lowered or "timeout" in lowered:
        return "the connection timed out"
    if "name or service not known" in lowered or "nodename" in lowered:
        return "the host name does not resolve"
    return str(exc.__cause__ or exc) or type(exc).__name__


def _status_message(exc: Any) -> str:
    body = getattr(exc, "body", None)
    if isinstance(body, dict):
        message = body.get("message") or body.get("error") or body
        if isinstance(message, dict):
            message = message.get("message", message)
        return str(message)
    return str(getattr(exc, "message", None) or exc)


def key_rejected(url: str, status: int, key_env: str) -> str:
    unset = "" if os.environ.get(key_env) else f"; {key_env} is not set"
    return (
        f"the server at {url} rejected the API key from ${key_env} ({status}){unset}: set "
        f"{key_env} to the server's key, or api_key_env to the variable that holds it"
    )


def translate_error(exc: BaseException, url: str, key: str, key_env: str) -> Exception:
    """Turn a client exception into a RetryableError or a final BackendError, key redacted.

    Retried: 429 (throttled, with Retry-After), 408, 409, 5xx, timeouts, refused or
    dropped connections, malformed or broken streams. Final: any other 4xx.
    """
    import openai

    status = getattr(exc, "status_code", None)
    if isinstance(exc, openai.APIStatusError) and isinstance(status, int):
        message = redact(_status_message(exc), key)
        headers = getattr(getattr(exc, "response", None), "headers", None)
        if status == 429:
            wait = retry_after_seconds(dict(headers) if headers else None)
            return RetryableError(
                f"{url} is rate limiting (429): {message}", retry_after_s=wait, throttled=True
            )
        if status >= 500 or status in (408, 409):
            return RetryableError(f"{url} answered {status}: {message}")
        if status in (401, 403):
            return BackendError(key_rejected(url, status, key_env))
        return BackendError(f"{url} refused the request ({status}): {message}")
    if isinstance(exc, openai.APITimeoutError):
        return RetryableError(f"{url} did not answer in time")
    if isinstance(exc, openai.APIConnectionError):
        return RetryableError(f"cannot reach {url}: {_reason(exc)}")
    if isinstance(exc, openai.APIError):  # an error event inside the stream
        return RetryableError(f"{url} reported an error mid-stream: {redact(str(exc), key)}")
    if isinstance(exc, ValueError):  # the SSE data was not JSON
        return RetryableError(
            f"malformed stream data from {url}: {shorten(redact(str(exc), key), 200)}"
        )
    # The HTTP library's own errors (a stream cut mid-way) and socket errors.
    return RetryableError(f"the stream from {url} broke: {type(exc).__name__}: {_reason(exc)}")


@dataclass(frozen=True)
class ServerInfo:
    """What the servers said about the model at load time."""

    model_ids: tuple[str, ...]
    max_model_len: int | None  # the smallest window any server reports (vLLM does)
    continues_final_message: bool  # every server is vLLM, which can prefill the answer


def rate_limited(url: str, exc: Any, key: str) -> str:
    """What to say of a 429 on GET /models: the URL is right, the server is busy."""
    headers = getattr(getattr(exc, "response", None), "headers", None)
    wait = retry_after_seconds(dict(headers) if headers else None)
    when = f"it asks to wait (Retry-After {wait:g} s)" if wait is not None else "wait"
    return (
        f"the server at {url} is rate-limiting requests (429: "
        f"{shorten(redact(_status_message(exc), key), 200)}); {when} and try again, or ask "
        "its operator for a higher limit"
    )


def served_models(url: str, key: str, key_env: str, timeout: float = 30.0) -> list[dict[str, Any]]:
    """The entries of one server's GET /models; a clear BackendError when it fails."""
    import openai

    client = openai.OpenAI(base_url=url, api_key=key, max_retries=0, timeout=timeout)
    try:
        return [m.to_dict() for m in client.models.list()]
    except openai.APIStatusError as exc:
        if exc.status_code in (401, 403):
            raise BackendError(key_rejected(url, exc.status_code, key_env)) from None
        if exc.status_code == 429:
            raise BackendError(rate_limited(url, exc, key)) from None
        raise BackendError(
            f"{url}/models answered {exc.status_code}: "
            f"{redact(_status_message(exc), key)}; is {url} an OpenAI-compatible base URL "
            "(usually ending in /v1)?"
        ) from None
    except openai.APIConnectionError as exc:
        raise BackendError(f"cannot reach {url}: {_reason(exc)}; is the server running?") from None
    finally:
        client.close()


def probe_servers(urls: Sequence[str], model: str, key: str, key_env: str) -> ServerInfo:
    """One GET /models per URL; a clear BackendError for the first problem found."""
    windows: list[int] = []
    owners: set[str] = set()
    served: list[str] = []
    for url in urls:
        entries = served_models(url, key, key_env)
        # A server (or proxy) may list the key itself as a model id: masked like any text.
        ids = [redact(str(e.get("id")), key) for e in entries]
        match = next((e for e in entries if e.get("id") == model), None)
        if match is None:
            raise BackendError(
                f"server {url} serves {', '.join(ids) or 'no model'}; not {model}. Set the "
                "model's `model` setting to the name the server serves it under"
            )
        served.extend(ids)
        owners.add(str(match.get("owned_by", "")))
        window = match.get("max_model_len")
        if isinstance(window, int):
            windows.append(window)
    return ServerInfo(
        model_ids=tuple(dict.fromkeys(served)),
        max_model_len=min(windows) if windows else None,
        continues_final_message=owners == {"vllm"},
    )
