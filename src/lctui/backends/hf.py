"""The `hf` backend: a transformers causal LM generating in a worker thread, streamed to asyncio.

torch and transformers are imported inside functions only, so `import lctui.backends`
stays fast on machines without them.
"""

from __future__ import annotations

import asyncio
import gc
import threading
import time
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

from lctui.backends.embedded import EMBEDDED_PATH, embedded_checkpoint
from lctui.backends.fingerprint import checkpoint_identity
from lctui.backends.hf_runtime import import_hf
from lctui.backends.prompting import PromptRenderer, RendersPrompts, check_prompt_format
from lctui.backends.streaming import (
    Failed,
    Finished,
    GenerationAborted,
    StopTrimmer,
    StreamItem,
    TextPiece,
    abortable,
    install_abort_hooks,
    make_stop_criteria,
    make_streamer,
)
from lctui.core.backend_settings import DTYPE
from lctui.core.errors import BackendError, MissingDependencyError, UserInputError
from lctui.core.hashing import stable_hash
from lctui.core.types import Chunk, GenerationConfig, Request

DTYPES = DTYPE.choices


class HFBackend(RendersPrompts):
    """A transformers model; loading blocks (call it from a thread), streaming does not."""

    def __init__(
        self,
        path: str | Path,
        *,
        name: str | None = None,
        dtype: str = "auto",
        device: str = "auto",
        max_context: int | None = None,
        prompt_format: str = "auto",
        max_concurrency: int | None = None,
        attn_implementation: str = "sdpa",
    ) -> None:
        torch, transformers = import_hf()
        self.name = name or str(path)
        self.device = resolve_device(torch, device)
        self.dtype = resolve_dtype(torch, dtype, self.device)
        check_prompt_format(prompt_format)
        source, gguf_file, local = _locate(str(path))
        kwargs: dict[str, Any] = {"gguf_file": gguf_file} if gguf_file else {}
        if local:
            # A local checkpoint never needs the hub; without this a missing optional file
            # makes transformers try the network (a long hang offline).
            kwargs["local_files_only"] = True
        start = time.perf_counter()
        try:
            hf_tokenizer = transformers.AutoTokenizer.from_pretrained(source, **kwargs)
            self._model: Any = transformers.AutoModelForCausalLM.from_pretrained(
                source,
                dtype=getattr(torch, self.dtype),
                attn_implementation=attn_implementation,
                # Straight onto the GPU, without a full copy in host memory first.
                device_map=None if self.device == "cpu" else self.device,
                **kwargs,
            )
        except ImportError as exc:
            package = exc.name or ("gguf" if gguf_file else "transformers")
            raise MissingDependencyError(package, "hf", f"loading {path}") from exc
        except (OSError, ValueError) as exc:
            raise BackendError(f"cannot load model {self.name!r} from {path}: {exc}") from exc
        self._model.eval()
        install_abort_hooks(self._model)
        self.load_seconds = time.perf_counter() - start
        self._prompts = PromptRenderer(hf_tokenizer, prompt_format)
        if max_context is None:
            positions: Any = getattr(self._model.config, "max_position_embeddings", None)
            if positions is None:
                raise BackendError(
                    f"model {self.name!r} does not say how many positions it has: set max_context"
                )
            max_context = int(positions)
        self.max_context = max_context
        self.max_concurrency = max_concurrency or 1
        self._slots = threading.BoundedSemaphore(self.max_concurrency)
        self.fingerprint = stable_hash(
            "hf",
            checkpoint_identity(Path(_identity_source(source, gguf_file, transformers))),
            self.dtype,
            # The prompt the model reads depends on these as much as on the weights.
            *self._prompts.identity(),
        )

    @property
    def hf_model(self) -> Any:
        if self._model is None:
            raise BackendError(f"model {self.name!r} was closed")
        return self._model

    async def stream(self, request: Request) -> AsyncIterator[Chunk]:
        model = self.hf_model
        config = request.config
        templated = bool(request.messages)
        prompt_ids = await asyncio.to_thread(
            self.tokenizer.encode_prompt, request.prompt, templated=templated
        )
        self._check_fits(len(prompt_ids), config.max_new_tokens)
        loop = asyncio.get_running_loop()
        queue: asyncio.Queue[StreamItem] = asyncio.Queue()
        stop_event = threading.Event()

        def post(item: StreamItem) -> None:
            try:
                loop.call_soon_threadsafe(queue.put_nowait, item)
            except RuntimeError:  # the loop is gone: nobody will read further
                stop_event.set()

        worker = threading.Thread(
            target=self._generate,
            args=(model, prompt_ids, config, stop_event, post),
            name=f"lctui-hf-generate-{request.example_id[:12]}",
            daemon=True,
        )
        trimmer = StopTrimmer(config.stop)
        prompt_tokens: int | None = len(prompt_ids)
        held_tokens = 0
        ended = False
        worker.start()
        try:
            while True:
                item = await queue.get()
                if isinstance(item, Failed):
                    ended = True
                    raise BackendError(
                        f"{self.name}: generation failed: {type(item.error).__name__}: {item.error}"
                    ) from item.error
                if isinstance(item, TextPiece):
                    held_tokens += item.tokens
                    text = trimmer.feed(item.text)
                    if text:
                        yield Chunk(text, tokens=held_tokens, prompt_tokens=prompt_tokens)
                        prompt_tokens, held_tokens = None, 0
                    continue
                ended = True
                finish = "stop" if trimmer.matched else item.finish_reason
                yield Chunk(
                    trimmer.finish(),
                    tokens=held_tokens + item.tokens,
                    finish_reason=finish,
                    prompt_tokens=prompt_tokens,
                )
                return
        finally:
            stop_event.set()
            # Wait for the worker so the model is free (and the next request's timing clean)
            # when the consumer moves on after cancelling.
            while not ended:
                ended = isinstance(await queue.get(), Finished | Failed)
            # Its last act was to post; joining takes microseconds, but not on the loop.
            await asyncio.to_thread(worker.join)

    def _check_fits(self, prompt_tokens: int, max_new_tokens: int) -> None:
        room = self.max_context - max_new_tokens
        if prompt_tokens > room:
            raise BackendError(
                f"prompt of {prompt_tokens} tokens does not fit model {self.name!r}: it has "
                f"{self.max_context} positions and {max_new_tokens} are reserved for the "
                f"answer, which leaves {room} for the prompt"
            )

    def _generate(
        self,
        model: Any,
        prompt_ids: list[int],
        config: GenerationConfig,
        stop_event: threading.Event,
        post: Any,
    ) -> None:
        """Worker thread body: always posts exactly one Finished or Failed, last."""
        try:
            with self._slots:
                if stop_event.is_set():
                    post(Finished("cancelled", 0))
                    return
                post(self._run_generate(model, prompt_ids, config, stop_event, post))
        except BaseException as exc:
            post(Failed(exc))

    def _run_generate(
        self,
        model: Any,
        prompt_ids: list[int],
        config: GenerationConfig,
        stop_event: threading.Event,
        post: Any,
    ) -> Finished:
        import torch
        from transformers import StoppingCriteriaList

        hf_tokenizer = self.tokenizer.hf
        streamer = make_streamer(hf_tokenizer, self.tokenizer.lock, post)
        input_ids = torch.tensor([prompt_ids], dtype=torch.long, device=self.device)
        kwargs: dict[str, Any] = {
            "input_ids": input_ids,
            "attention_mask": torch.ones_like(input_ids),
            "max_new_tokens": config.max_new_tokens,
            "streamer": streamer,
            "stopping_criteria": StoppingCriteriaList([make_stop_criteria(stop_event)]),
        }
        if config.temperature == 0:
            # Clear sampling settings from the model's generation_config to keep greedy quiet.
            kwargs.update(do_sample=False, temperature=None, top_p=None, top_k=None)
        else:
            kwargs.update(do_sample=True, temperature=config.temperature, top_p=config.top_p)
        if config.stop:
            kwargs.update(stop_strings=list(config.stop), tokenizer=hf_tokenizer)
        if model.generation_config.pad_token_id is None:
            kwargs["pad_token_id"] = hf_tokenizer.eos_token_id
        # generate() passes logits_to_keep=1 itself when the model supports it
        # (tests/backends check that), so prefill never builds full-vocabulary logits.
        try:
            with torch.inference_mode(), abortable(stop_event):
                output = model.generate(**kwargs)
        except GenerationAborted:
            return Finished("cancelled", streamer.pending_tokens)
        generated = output[0, len(prompt_ids) :].tolist()
        if stop_event.is_set():
            finish = "cancelled"
        elif len(generated) >= config.max_new_tokens and not self._is_eos(generated[-1], model):
            finish = "length"
        else:
            finish = "stop"
        return Finished(finish, streamer.pending_tokens)

    @staticmethod
    def _is_eos(token: int, model: Any) -> bool:
        eos = model.generation_config.eos_token_id
        return token in eos if isinstance(eos, list) else token == eos

    async def close(self) -> None:
        """Drop the model and give its memory back (GPU memory too)."""
        if self._model is None:
            return
        self._model = None
        gc.collect()
        torch, _ = import_hf()
        if torch.cuda.is_available():
            torch.cuda.empty_cache()


def resolve_device(torch: Any, device: str) -> str:
    if device == "auto":
        return "cuda" if torch.cuda.is_available() else "cpu"
    if device.startswith("cuda") and not torch.cuda.is_available():
        raise UserInputError(f"device {device!r} was asked for, but torch sees no CUDA GPU")
    return device


def resolve_dtype(torch: Any, dtype: str, device: str) -> str:
    """bf16 where the device supports it; fp16 on GPUs without bf16; as asked otherwise."""
    if dtype not in DTYPES:
        raise UserInputError(f"unknown dtype {dtype!r}: use one of {', '.join(DTYPES)}")
    if dtype != "auto":
        return dtype
    if device.startswith("cuda"):
        return "bfloat16" if torch.cuda.is_bf16_supported() else "float16"
    return "bfloat16"


def _locate(path: str) -> tuple[str, str | None, bool]:
    """(directory or hub id, GGUF file name or None, whether it is on this machine)."""
    if path == EMBEDDED_PATH:
        return str(embedded_checkpoint()), None, True
    local = Path(path).expanduser()
    if local.is_file():
        if local.suffix != ".gguf":
            raise UserInputError(
                f"{path} is a file but not a .gguf: give a checkpoint directory or a .gguf file"
            )
        return str(local.parent), local.name, True
    if local.is_dir():
        return str(local), None, True
    return path, None, False


def _identity_source(source: str, gguf_file: str | None, transformers: Any) -> str:
    if gguf_file:
        return str(Path(source) / gguf_file)
    if Path(source).is_dir():
        return source
    # A hub id: fingerprint the cached snapshot that was just loaded.
    config_file = transformers.utils.cached_file(source, "config.json", local_files_only=True)
    return str(Path(config_file).parent)
