"""Tiny Hugging Face tokenizers and checkpoints built without files or a hub, for tests
that need a real hf backend, a real chat template or a second model cheaply."""

from __future__ import annotations

from pathlib import Path
from typing import Any

WORDS = ["the", "secret", "number", "is", "what", "a", "blue", "cat", "sat", "on", "mat", "."]
CHATML = (
    "{% for m in messages %}<|im_start|>{{ m['role'] }}\n{{ m['content'] }}<|im_end|>\n"
    "{% endfor %}{% if add_generation_prompt %}<|im_start|>assistant\n{% endif %}"
)


def make_hf_tokenizer(chat_template: str | None = CHATML) -> Any:
    """A small word-level fast tokenizer with ChatML special tokens, built without files."""
    from tokenizers import Tokenizer, models, pre_tokenizers
    from transformers import PreTrainedTokenizerFast

    specials = ["[UNK]", "<s>", "</s>", "<|im_start|>", "<|im_end|>"]
    vocab = {token: i for i, token in enumerate([*specials, *WORDS, "user", "assistant"])}
    core = Tokenizer(models.WordLevel(vocab=vocab, unk_token="[UNK]"))
    core.pre_tokenizer = pre_tokenizers.Whitespace()
    tokenizer = PreTrainedTokenizerFast(
        tokenizer_object=core,
        unk_token="[UNK]",
        bos_token="<s>",
        eos_token="</s>",
        additional_special_tokens=["<|im_start|>", "<|im_end|>"],
    )
    tokenizer.chat_template = chat_template
    return tokenizer


def make_tiny_checkpoint(path: Path, seed: int, chat_template: str | None = CHATML) -> Path:
    """A randomly initialised two-layer Llama with the tokenizer above (a few hundred KB)."""
    import torch
    from transformers import LlamaConfig, LlamaForCausalLM

    tokenizer = make_hf_tokenizer(chat_template)
    config = LlamaConfig(
        vocab_size=len(tokenizer),
        hidden_size=32,
        intermediate_size=64,
        num_hidden_layers=2,
        num_attention_heads=4,
        num_key_value_heads=2,
        max_position_embeddings=256,
        bos_token_id=tokenizer.bos_token_id,
        eos_token_id=tokenizer.eos_token_id,
        pad_token_id=tokenizer.eos_token_id,
    )
    torch.manual_seed(seed)
    LlamaForCausalLM(config).save_pretrained(path)
    tokenizer.save_pretrained(path)
    return path


def chatml_with_system(words: int) -> str:
    """ChatML with a default system turn of `words` words, as some instruct models have
    (SmolLM2's names the assistant): a template that frames a prompt with many tokens."""
    system = " ".join(WORDS[i % len(WORDS)] for i in range(words))
    return "<|im_start|>system\n" + system + "<|im_end|>\n" + CHATML


def make_char_tokenizer() -> Any:
    """A fast tokenizer of one token per character (letters, digits, space, newline and
    common punctuation; anything else is [UNK]) that puts <s> first, as Llama-2's does:
    a stand-in for HELMET's Llama-2 counts, long texts tokenised cheaply."""
    import string

    from tokenizers import Regex, Tokenizer, models, pre_tokenizers, processors
    from transformers import PreTrainedTokenizerFast

    specials = ["[UNK]", "<s>", "</s>"]
    chars = list(dict.fromkeys(string.ascii_letters + string.digits + " \n.,;:?!'\"-[]()"))
    vocab = {token: i for i, token in enumerate([*specials, *chars])}
    core = Tokenizer(models.WordLevel(vocab=vocab, unk_token="[UNK]"))
    core.pre_tokenizer = pre_tokenizers.Split(Regex(r"[\s\S]"), behavior="isolated")
    core.post_processor = processors.TemplateProcessing(
        single="<s> $A", special_tokens=[("<s>", vocab["<s>"])]
    )
    return PreTrainedTokenizerFast(
        tokenizer_object=core, unk_token="[UNK]", bos_token="<s>", eos_token="</s>"
    )
