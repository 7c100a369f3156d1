"""The transformers NLI runner (backends/nli.py) on a tiny randomly initialised T5 built
from a config: its verdicts are meaningless, the loading, input format, generation,
decoding and caching are real."""

from __future__ import annotations

from pathlib import Path

import pytest

from helpers.tiny_nli import make_tiny_t5, rig_to_answer, save_tiny_t5
from lctui.backends.nli import DEFAULT_NLI_MODEL, Seq2SeqNli, load_nli, nli_input
from lctui.core.errors import BackendError

pytest.importorskip("transformers")


def test_a_saved_seq2seq_checkpoint_loads_and_answers_each_pair_once(tmp_path: Path) -> None:
    nli = load_nli(str(save_tiny_t5(tmp_path / "t5")), device="cpu", dtype="float32")
    reply = nli.reply("Title: A\nthe river", "the mill")
    assert isinstance(reply, str)
    first = nli.entails("Title: A\nthe river", "the mill")
    assert first == (reply == "1")
    assert nli.entails("Title: A\nthe river", "the mill") == first
    assert nli.calls == 2  # the reply above, then one generation for the verdict
    assert nli.name.endswith("t5") and nli.fingerprint


def test_the_verdict_is_entailed_exactly_when_the_model_answers_1_with_rigged_fakes() -> None:
    model, tokenizer = make_tiny_t5()
    says_one = Seq2SeqNli(rig_to_answer(model, tokenizer, "1"), tokenizer, "fake-1")
    assert says_one.reply("p", "h") == "1" and says_one.entails("p", "h") is True
    model, tokenizer = make_tiny_t5()
    says_zero = Seq2SeqNli(rig_to_answer(model, tokenizer, "0"), tokenizer, "fake-0")
    assert says_zero.reply("p", "h") == "0" and says_zero.entails("p", "h") is False


def test_input_format_and_default_model_are_alces() -> None:
    assert nli_input("P", "H") == "premise: P hypothesis: H"
    assert DEFAULT_NLI_MODEL == "google/t5_xxl_true_nli_mixture"


def test_a_folder_without_a_checkpoint_is_a_clear_error(tmp_path: Path) -> None:
    with pytest.raises(BackendError, match="cannot load the NLI model"):
        load_nli(str(tmp_path), device="cpu")
