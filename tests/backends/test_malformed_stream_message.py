"""A malformed SSE line is reported cut the one way text is cut (core.text.shorten),
with the API key redacted before the cut, so a key near the cut never half-shows."""

from __future__ import annotations

from lctui.backends.resilience import RetryableError, translate_error

KEY = "sk-secret-0123456789"


def test_a_long_malformed_data_line_is_cut_with_an_ellipsis_and_no_key() -> None:
    data = "x" * 190 + KEY + "y" * 500
    err = translate_error(ValueError(data), "http://127.0.0.1:9/v1", KEY, "LCTUI_KEY")
    assert isinstance(err, RetryableError)
    detail = str(err).split(": ", 1)[1]
    assert detail.endswith("…")
    assert len(detail) == 200
    assert KEY[:6] not in str(err)


def test_a_short_malformed_data_line_is_shown_whole() -> None:
    err = translate_error(ValueError("not json: {"), "http://127.0.0.1:9/v1", KEY, "LCTUI_KEY")
    assert str(err).endswith("not json: {")
