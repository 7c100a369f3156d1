"""The settings each backend takes, declared once: one table per backend.

`core/config.py` validates a model's keys in `lctui.toml` against its backend's table,
and every backend (and the Batch API judge) reads a ModelSpec's settings through the
same table with `read_settings_of` (`backends/settings.py`), so a key, its type, its
default and its allowed values are written down here and nowhere else.

A default of None means there is none: the setting is required where the backend says
so (openai's base_url), or the backend works the value out (the help line says how).

Settings marked `vllm` are vLLM's own engine arguments under their own names: the
`vllm` backend passes them to `AsyncEngineArgs`, the `vllm-server` kind as `vllm serve`
flags (`tensor_parallel_size` -> `--tensor-parallel-size`); `vllm_arguments` lists them.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, replace
from types import MappingProxyType
from typing import TypeVar

T = TypeVar("T")


@dataclass(frozen=True)
class Setting:
    """One setting of a backend: the types a value may have, its default, its choices."""

    kinds: tuple[type, ...]  # a bool never counts as a number unless bool is listed
    help: str
    default: object = None
    choices: tuple[str, ...] = ()
    # vLLM's engine argument of the same name (and its `vllm serve` flag): passed through.
    vllm: bool = False


PROMPT_FORMAT = Setting(
    (str,),
    "how prompts are framed: the chat template, plain text ending in the answer prefix, "
    "or auto (chat when the tokenizer has a template)",
    default="auto",
    choices=("auto", "chat", "plain"),
)
DTYPE = Setting(
    (str,), "the weights' type", default="auto", choices=("auto", "bfloat16", "float16", "float32")
)
MAX_CONTEXT = Setting((int,), "the window in tokens (at least 256); default: the checkpoint's")
MAX_CONCURRENCY = Setting((int,), "requests in flight at once; default: the backend's")
TOKENIZER = Setting(
    (str,),
    "the tokenizer that counts prompt lengths: a checkpoint folder, a hub id or a reference "
    "encoding (o200k_base); default: o200k_base, approximate",
)
MAX_MODEL_LEN = Setting(
    (int,), "vLLM's max_model_len (the window); default: the checkpoint's", vllm=True
)
GPU_MEMORY_UTILIZATION = Setting(
    (int, float), "the fraction of GPU memory vLLM may take; default: vLLM's", vllm=True
)
# vLLM's parallelism, passed through as they are: each replica of the model is split over
# tensor_parallel_size x pipeline_parallel_size GPUs, and data_parallel_size replicas
# answer side by side (one engine, one endpoint). Defaults are vLLM's.
PARALLEL: dict[str, Setting] = {
    "tensor_parallel_size": Setting(
        (int,), "GPUs each layer of a replica is split over (tensor parallel)", 1, vllm=True
    ),
    "pipeline_parallel_size": Setting(
        (int,),
        "stages a replica's layers are split into, each on its own GPUs (pipeline parallel; "
        "across nodes with the ray executor)",
        1,
        vllm=True,
    ),
    "data_parallel_size": Setting(
        (int,),
        "replicas of the model that answer requests side by side (data parallel), each on "
        "tensor_parallel_size x pipeline_parallel_size GPUs",
        1,
        vllm=True,
    ),
    "data_parallel_backend": Setting(
        (str,),
        "how the data-parallel replicas start: mp (processes on this node) or ray (over a "
        "Ray cluster, several nodes)",
        "mp",
        choices=("mp", "ray"),
        vllm=True,
    ),
    "distributed_executor_backend": Setting(
        (str,),
        "how a replica's GPU workers run: mp (processes on this node), ray (a Ray cluster: "
        "a replica over several nodes), uni (one process) or external_launcher; default: "
        "vLLM's choice (mp on one node)",
        choices=("mp", "ray", "uni", "external_launcher"),
        vllm=True,
    ),
    "enable_expert_parallel": Setting(
        (bool,),
        "spread a mixture-of-experts model's experts over the GPUs (expert parallel)",
        False,
        vllm=True,
    ),
}

# The client settings of an OpenAI-compatible server (the openai backend, and the
# server lctui starts for vllm-server, which fills in base_url itself).
_CLIENT: dict[str, Setting] = {
    "model": Setting((str,), "the name the server serves the model under; default: path or name"),
    "endpoint": Setting(
        (str,), "the API the prompts go to", default="chat", choices=("chat", "completions")
    ),
    "api_key_env": Setting(
        (str,),
        "the environment variable holding the API key (keys are never stored)",
        default="OPENAI_API_KEY",
    ),
    "timeout_s": Setting((int, float), "seconds one request may take (at least 1)", default=600.0),
    "max_retries": Setting(
        (int,), "retries of a failed request (429, 5xx, timeouts), at least 0", default=5
    ),
    "max_concurrency": Setting(
        (int,), "requests in flight at most (halved on a 429, grown back after)", default=16
    ),
    "prompt_format": PROMPT_FORMAT,
    "tokenizer": TOKENIZER,
    "max_context": MAX_CONTEXT,
}

_TABLES: dict[str, dict[str, Setting]] = {
    "hf": {
        "dtype": DTYPE,
        "device": Setting((str,), "the torch device (cpu, cuda, cuda:1, mps)", default="auto"),
        "max_context": MAX_CONTEXT,
        "prompt_format": PROMPT_FORMAT,
        "max_concurrency": MAX_CONCURRENCY,
        "attn_implementation": Setting(
            (str,), "transformers' attention implementation", default="sdpa"
        ),
    },
    "vllm": {
        "dtype": replace(DTYPE, vllm=True),
        "max_model_len": MAX_MODEL_LEN,
        "max_context": MAX_CONTEXT,
        **PARALLEL,
        "gpu_memory_utilization": GPU_MEMORY_UTILIZATION,
        "kv_cache_memory_bytes": Setting(
            (int,), "a fixed KV cache size in bytes (on a CPU: 2 GiB unless set)", vllm=True
        ),
        "prompt_format": PROMPT_FORMAT,
        "max_concurrency": Setting(
            (int,), "requests in flight at once; default: 64 per data-parallel replica"
        ),
        "enforce_eager": Setting(
            (bool,), "no CUDA graphs (eager mode); default: on a CPU only", vllm=True
        ),
    },
    "vllm-server": {
        **_CLIENT,
        "max_concurrency": Setting(
            (int,),
            "requests in flight at most (halved on a 429, grown back after); default: 16 per "
            "data-parallel replica",
        ),
        "max_model_len": MAX_MODEL_LEN,
        **PARALLEL,
        "gpu_memory_utilization": GPU_MEMORY_UTILIZATION,
        "server_args": Setting((list,), "extra `vllm serve` arguments (strings)", default=()),
    },
    "openai": {
        "base_url": Setting(
            (str, list),
            "the server's URL, or a list used round-robin; required (the Batch API judge "
            "uses https://api.openai.com/v1 without it)",
        ),
        **_CLIENT,
    },
    "gold": {
        "tokenizer": Setting(
            (str,), "the reference tokenizer that counts lengths", default="o200k_base"
        ),
        "max_context": Setting((int,), "the window in tokens", default=2**21),
    },
}

# Backend name -> setting name -> Setting; read-only, in the order the backends are listed.
BACKEND_SETTINGS: Mapping[str, Mapping[str, Setting]] = MappingProxyType(
    {name: MappingProxyType(table) for name, table in _TABLES.items()}
)
BACKENDS = tuple(BACKEND_SETTINGS)
# Keys every model has that are not settings: config reads them into the ModelSpec.
MODEL_FIELDS: Mapping[str, type] = MappingProxyType(
    {"backend": str, "path": str, "description": str}
)
# Backends that load a checkpoint, so a configured model needs a path.
NEEDS_PATH = ("hf", "vllm", "vllm-server")


def settings_of(backend: str) -> Mapping[str, Setting]:
    """The settings table of `backend` (KeyError for an unknown backend)."""
    return BACKEND_SETTINGS[backend]


def vllm_arguments(backend: str) -> tuple[str, ...]:
    """The settings of `backend` that are vLLM's own engine arguments (passed through)."""
    return tuple(key for key, setting in BACKEND_SETTINGS[backend].items() if setting.vllm)


def typed_default(backend: str, key: str, kind: type[T]) -> T:
    """The declared default of a setting, as the type the code that uses it expects."""
    value = BACKEND_SETTINGS[backend][key].default
    if not isinstance(value, kind):
        raise TypeError(f"{backend}.{key} declares no {kind.__name__} default: {value!r}")
    return value
