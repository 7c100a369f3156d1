"""An NLI model through transformers that decides entailment for citation scoring.

ALCE (and HELMET with it) asks google/t5_xxl_true_nli_mixture, a T5 trained on NLI
mixtures, whether a premise entails a hypothesis: the input is
"premise: P hypothesis: H" (the format that model was trained on), greedy generation of
at most 10 tokens, and the answer is entailment exactly when the decoded text is "1".
Any seq2seq checkpoint with that convention can stand in (`--nli PATH`). Each verdict
is kept per (premise, hypothesis), since ALCE's precision check asks some pairs again.
"""

from __future__ import annotations

import threading
import time
from pathlib import Path
from typing import Any

from lctui.backends.hf_runtime import import_hf
from lctui.core.errors import BackendError, MissingDependencyError
from lctui.core.hashing import stable_hash

DEFAULT_NLI_MODEL = "google/t5_xxl_true_nli_mixture"
MAX_NEW_TOKENS = 10
ENTAILED = "1"


def nli_input(premise: str, hypothesis: str) -> str:
    """The text the NLI model reads (the TRUE model's input format)."""
    return f"premise: {premise} hypothesis: {hypothesis}"


class Seq2SeqNli:
    """Entailment by a seq2seq NLI checkpoint; thread-safe (one generation at a time)."""

    def __init__(self, model: Any, tokenizer: Any, name: str, device: str = "cpu") -> None:
        self.model = model
        self.tokenizer = tokenizer
        self.name = name
        self.device = device
        self.fingerprint = stable_hash("nli", name)
        self.calls = 0
        self.seconds = 0.0
        self._lock = threading.Lock()
        self._verdicts: dict[tuple[str, str], bool] = {}

    def reply(self, premise: str, hypothesis: str) -> str:
        """The model's decoded answer to one pair ("1" means entailed)."""
        torch, _ = import_hf()
        ids = self.tokenizer(nli_input(premise, hypothesis), return_tensors="pt").input_ids
        with self._lock, torch.inference_mode():
            started = time.perf_counter()
            out = self.model.generate(ids.to(self.device), max_new_tokens=MAX_NEW_TOKENS)
            self.seconds += time.perf_counter() - started
            self.calls += 1
        return str(self.tokenizer.decode(out[0], skip_special_tokens=True))

    def entails(self, premise: str, hypothesis: str) -> bool:
        key = (premise, hypothesis)
        known = self._verdicts.get(key)
        if known is None:
            known = self._verdicts[key] = self.reply(premise, hypothesis) == ENTAILED
        return known

    def close(self) -> None:
        self.model = None
        self._verdicts.clear()


def load_nli(
    path: str = DEFAULT_NLI_MODEL, device: str = "auto", dtype: str = "auto"
) -> Seq2SeqNli:
    """Load a seq2seq NLI checkpoint (a local folder or a hub id) onto `device`."""
    from lctui.backends.hf import resolve_device, resolve_dtype  # the hf backend, on use only

    torch, transformers = import_hf()
    where = resolve_device(torch, device)
    kwargs: dict[str, Any] = {"local_files_only": True} if Path(path).is_dir() else {}
    try:
        tokenizer = transformers.AutoTokenizer.from_pretrained(path, **kwargs)
        model = transformers.AutoModelForSeq2SeqLM.from_pretrained(
            path,
            dtype=getattr(torch, resolve_dtype(torch, dtype, where)),
            device_map=None if where == "cpu" else where,
            **kwargs,
        )
    except ImportError as exc:
        raise MissingDependencyError(exc.name or "transformers", "hf", f"loading {path}") from exc
    except (OSError, ValueError) as exc:
        raise BackendError(f"cannot load the NLI model {path}: {exc}") from exc
    model.eval()
    return Seq2SeqNli(model, tokenizer, path, where)
