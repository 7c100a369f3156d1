"""HELMET's truncation: a prompt longer than its length loses the end of its context, cut
with the model's tokenizer as the model class HELMET runs cuts it (model_utils.py).

- `local` (HFModel, VLLMModel: `tokenize`): the prompt as the model reads it (the
  prompt template tokenised with the tokenizer's special tokens, or the chat template's
  text of the one user message without them) may have `input_max_length -
  generation_max_length` tokens; the context is cut where the token that many tokens
  from its end starts (its offsets, the context tokenised alone with special tokens);
  a tokenizer without offsets decodes the context's tokens but those.
- `serving` (TgiVllmModel, `--use_tgi_or_vllm_serving`) and `openai` (OpenAIModel):
  `Role: user\\nContent: ` and the user text, encoded, may have `input_max_length -
  generation_max_length - 100` tokens (OpenAI's lengths capped at 128,000); the context
  is encoded, its last tokens dropped and the rest decoded.

The prompt is cut once, as HELMET cuts it, and never counted again. The tokenizer is
the one the user names: a Hugging Face tokenizer (a folder or a hub id in the cache,
offline), or tiktoken's o200k_base or cl100k_base for `openai`.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from lctui.core.errors import MissingDependencyError, UserInputError
from lctui.tasks.tokenizers import REFERENCE_TOKENIZERS, reference_tokenizer

LOCAL, SERVING, OPENAI = "local", "serving", "openai"
CLIENTS = (LOCAL, SERVING, OPENAI)
API_BUFFER = 100  # OpenAIModel.prepare_inputs's buffer
OPENAI_MAX_LENGTH = 128_000  # OpenAIModel's API_MAX_LENGTH
NO_TOKENIZER = "none"


@dataclass(frozen=True)
class Fitted:
    """A prompt's fields after HELMET's cut, and what the cut did."""

    fields: dict[str, Any]
    tokens: int  # the prompt's tokens as HELMET counted them, before any cut
    cut_tokens: int  # tokens HELMET cut from the context (0: none)


class HelmetCutter:
    """Counts and cuts prompts as HELMET's model class `client` does, with `tokenizer`."""

    def __init__(self, tokenizer: str, client: str) -> None:
        self.client = client
        self.name = tokenizer
        self._tiktoken = None
        self._hf: Any = None
        if tokenizer in REFERENCE_TOKENIZERS:
            if client != OPENAI:
                raise UserInputError(
                    f"--input-option tokenizer={tokenizer}: tiktoken's encodings count for "
                    "client=openai (OpenAIModel); HELMET's other model classes tokenize with "
                    "the model's own tokenizer: name its folder or hub id"
                )
            self._tiktoken = reference_tokenizer(tokenizer)
        else:
            self._hf = hf_tokenizer(tokenizer)

    def fit(
        self,
        fields: dict[str, Any],
        user_text: Callable[[dict[str, Any]], str],
        completion: Callable[[dict[str, Any]], str] | None,
        input_max_length: int,
        generation_max_length: int,
    ) -> Fitted:
        """`fields` with the context cut as HELMET cuts it; `completion` renders the
        whole prompt of a local model without chat template (None: the chat template)."""
        if self.client == LOCAL:
            tokens = self._local_count(user_text(fields), completion, fields)
            room = input_max_length - generation_max_length
        else:
            limit = input_max_length
            if self.client == OPENAI:
                limit = min(limit, OPENAI_MAX_LENGTH)
            tokens = len(self._encode("Role: user\nContent: " + user_text(fields)))
            room = limit - generation_max_length - API_BUFFER
        if tokens <= room:
            return Fitted(fields, tokens, 0)
        cut = tokens - room
        context = fields.get("context")
        if not isinstance(context, str):
            raise ValueError("HELMET cuts the context, and this prompt has none to cut")
        shorter = (
            self._cut_local(context, cut) if self.client == LOCAL else self._cut_api(context, cut)
        )
        return Fitted({**fields, "context": shorter}, tokens, cut)

    def _local_count(
        self,
        user: str,
        completion: Callable[[dict[str, Any]], str] | None,
        fields: dict[str, Any],
    ) -> int:
        if completion is not None:
            return len(self._hf(completion(fields))["input_ids"])
        chat = [{"role": "user", "content": user}]
        text = self._hf.apply_chat_template(chat, tokenize=False, add_generation_prompt=True)
        return len(self._hf(text, add_special_tokens=False)["input_ids"])

    def _cut_local(self, context: str, cut: int) -> str:
        if getattr(self._hf, "is_fast", False):
            offsets = self._hf([context], return_offsets_mapping=True)["offset_mapping"][0]
            if cut > len(offsets):
                raise ValueError(
                    f"HELMET would cut {cut} tokens from a context of {len(offsets)} (its "
                    "code fails: the rest of the prompt alone is over the length)"
                )
            return context[: offsets[-cut][0]]
        ids = self._hf(context)["input_ids"]
        return str(self._hf.decode(ids[:-cut]))

    def _cut_api(self, context: str, cut: int) -> str:
        ids = self._encode(context)
        if self._tiktoken is not None:
            return self._tiktoken.decode(ids[:-cut])
        return str(self._hf.decode(ids[:-cut]))

    def _encode(self, text: str) -> list[int]:
        if self._tiktoken is not None:
            return self._tiktoken.encode(text)
        return list(self._hf.encode(text))


def hf_tokenizer(name: str) -> Any:
    try:
        from transformers import AutoTokenizer
    except ImportError as err:
        raise MissingDependencyError("transformers", "hf", f"the tokenizer {name}") from err
    source = str(Path(name).expanduser()) if Path(name).expanduser().is_dir() else name
    try:
        return AutoTokenizer.from_pretrained(source, local_files_only=True)
    except (OSError, ValueError) as err:
        raise UserInputError(
            f"--input-option tokenizer={name}: cannot load it offline ({err}); name the "
            "model's tokenizer folder, or a hub id in the Hugging Face cache"
        ) from None
