"""A tiny randomly initialised T5 built from a config, standing in for an NLI checkpoint
(google/t5_xxl_true_nli_mixture's shape and input format, none of its knowledge)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

WORDS = ["premise", "hypothesis", ":", "title", "1", "0", "the", "river", "mill", "[", "]"]


def make_t5_tokenizer() -> Any:
    """A word-level fast tokenizer with T5's special tokens (pad 0, eos 1), without files."""
    from tokenizers import Tokenizer, models, pre_tokenizers
    from transformers import PreTrainedTokenizerFast

    vocab = {token: i for i, token in enumerate(["<pad>", "</s>", "<unk>", *WORDS])}
    core = Tokenizer(models.WordLevel(vocab=vocab, unk_token="<unk>"))
    core.pre_tokenizer = pre_tokenizers.Whitespace()
    return PreTrainedTokenizerFast(
        tokenizer_object=core, unk_token="<unk>", pad_token="<pad>", eos_token="</s>"
    )


def make_tiny_t5(seed: int = 0) -> tuple[Any, Any]:
    """(model, tokenizer): a one-layer T5 with random weights."""
    import torch
    from transformers import T5Config, T5ForConditionalGeneration

    tokenizer = make_t5_tokenizer()
    config = T5Config(
        vocab_size=len(tokenizer),
        d_model=16,
        d_kv=4,
        d_ff=32,
        num_layers=1,
        num_decoder_layers=1,
        num_heads=2,
        pad_token_id=tokenizer.pad_token_id,
        eos_token_id=tokenizer.eos_token_id,
    )
    config.decoder_start_token_id = tokenizer.pad_token_id  # T5 starts decoding from pad
    torch.manual_seed(seed)
    return T5ForConditionalGeneration(config).eval(), tokenizer


def save_tiny_t5(path: Path, seed: int = 0) -> Path:
    model, tokenizer = make_tiny_t5(seed)
    model.save_pretrained(path)
    tokenizer.save_pretrained(path)
    return path


def rig_to_answer(model: Any, tokenizer: Any, word: str) -> Any:
    """`model` made to answer `word` and stop, whatever it reads (a fake verdict for the
    plumbing tests): its output layer always prefers `word`, which also ends generation."""
    import torch

    word_id = tokenizer.convert_tokens_to_ids(word)
    head = torch.nn.Linear(model.config.d_model, model.config.vocab_size, bias=True)
    with torch.no_grad():
        head.weight.zero_()
        head.bias.fill_(-10.0)
        head.bias[word_id] = 10.0
    model.lm_head = head
    model.generation_config.eos_token_id = word_id
    return model
