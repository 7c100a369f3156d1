"""Materialising the embedded model: atomic, race-tolerant, quantizer cleared before saving."""

from __future__ import annotations

from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest

from lctui.backends import embedded, hf_runtime


class FakeModel:
    def __init__(self, on_save: Any) -> None:
        self.hf_quantizer: Any = object()
        self.config = SimpleNamespace(quantization_config={"quant_method": "gguf"})
        self._on_save = on_save

    def parameters(self) -> list[Any]:
        return [SimpleNamespace(dtype="bf16")]

    def save_pretrained(self, path: Path) -> None:
        # transformers refuses to save a model that still has its GGUF quantizer.
        assert self.hf_quantizer is None
        assert not hasattr(self.config, "quantization_config")
        (Path(path) / "model.safetensors").write_text("ours")
        self._on_save()


def fake_hf(on_save: Any) -> tuple[Any, Any]:
    def load_model(directory: Path, **kwargs: Any) -> FakeModel:
        # Packed GGUF weights could not be saved as a plain checkpoint.
        assert kwargs["quantization_config"].dequantize is True
        assert kwargs["dtype"] == "bf16"
        assert kwargs["local_files_only"] is True
        return FakeModel(on_save)

    tokenizer = SimpleNamespace(
        save_pretrained=lambda path: (Path(path) / "tokenizer.json").write_text("{}")
    )
    transformers = SimpleNamespace(
        AutoTokenizer=SimpleNamespace(from_pretrained=lambda *a, **k: tokenizer),
        AutoModelForCausalLM=SimpleNamespace(from_pretrained=load_model),
        GgufConfig=lambda dequantize: SimpleNamespace(dequantize=dequantize),
    )
    return SimpleNamespace(bfloat16="bf16"), transformers


def leftovers(parent: Path) -> list[str]:
    return [p.name for p in parent.iterdir() if p.name.startswith(".")]


def test_materialise_writes_a_complete_checkpoint(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(hf_runtime, "import_hf", lambda: fake_hf(lambda: None))
    target = tmp_path / "models" / "smol"
    embedded.materialise(tmp_path / "x.gguf", target)
    assert sorted(p.name for p in target.iterdir()) == ["model.safetensors", "tokenizer.json"]
    assert leftovers(target.parent) == []


def test_materialise_keeps_the_copy_of_a_process_that_finished_first(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    target = tmp_path / "models" / "smol"

    def other_process_wins() -> None:
        target.mkdir()
        (target / "model.safetensors").write_text("theirs")

    monkeypatch.setattr(hf_runtime, "import_hf", lambda: fake_hf(other_process_wins))
    embedded.materialise(tmp_path / "x.gguf", target)
    assert (target / "model.safetensors").read_text() == "theirs"
    assert leftovers(target.parent) == []


def test_failed_materialise_leaves_nothing_behind(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    def disk_full() -> None:
        raise OSError("No space left on device")

    monkeypatch.setattr(hf_runtime, "import_hf", lambda: fake_hf(disk_full))
    target = tmp_path / "models" / "smol"
    with pytest.raises(OSError, match="No space"):
        embedded.materialise(tmp_path / "x.gguf", target)
    assert not target.exists()
    assert leftovers(target.parent) == []
