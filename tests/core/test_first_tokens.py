"""Time to first token as every display measures it (core/measures.py `FirstTokens`):
seen at a generation's first text, then the engine's measure in its place, once."""

from __future__ import annotations

from lctui.core.measures import FirstTokens


def test_the_engines_measure_replaces_what_was_seen_and_counts_once() -> None:
    ttft = FirstTokens[str]()
    ttft.seen("a", "g1", 2.0)
    ttft.seen("a", "g1", 9.0)  # a later text of the same generation: not its first
    ttft.seen("b", "g2", 4.0)
    assert ttft.mean() == 3.0 and ttft.mean("a") == 2.0
    ttft.measured("a", "g1", 1.0)
    ttft.measured("a", "g1", 1.5)  # measured again: replaces, never adds
    ttft.seen("a", "g1", 7.0)  # text after its end changes nothing
    assert ttft.mean("a") == 1.5 and ttft.get("g1") == 1.5
    ttft.measured("b", "g2", None)  # it showed no text after all
    assert ttft.mean("b") is None and ttft.mean() == 1.5
    ttft.add("b", 3.0, 2)  # two told as counts (a viewer's replay)
    assert ttft.mean("b") == 1.5 and ttft.mean_where(lambda key: key in "ab") == 1.5
