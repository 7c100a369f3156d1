"""Fixtures of the LIFBench tests."""

from __future__ import annotations

import pytest

from lctui.tasks.tokenizers import reference_tokenizer


@pytest.fixture(scope="module")
def o200k():  # type: ignore[no-untyped-def]
    return reference_tokenizer("o200k_base")
