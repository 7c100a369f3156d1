"""The inspector on LongBench v2 examples (helpers/longbench_runs.py: gold runs through
the real engine, an answerer's right, wrong and unparsed answers): the four options
with the gold one and the chosen one marked ("no option named" when none is), the
answer sentence marked in the output, the domain, difficulty and bucket in the header,
the middle cut as a marker line in the prompt (`n` jumps to it), and for the chain of
thought both calls (`c` shows the answer call's prompt; the output shows both), at
80x24 and 120x40; the wrap index's marker lines; one SVG snapshot."""

from __future__ import annotations

import random
from pathlib import Path
from typing import Any

import duckdb
import pytest
from textual.content import Content
from textual.pilot import Pilot
from textual.widgets import Static, Tab, Tabs
from textual.widgets._footer import FooterKey

from helpers.pilot import open_inspector, rendered, settle
from lctui.core.config import Config
from lctui.core.types import FollowUp
from lctui.store.read.generations import GenerationRecord
from lctui.tui.app import LctuiApp
from lctui.tui.inspector_actions import export_payload
from lctui.tui.screens.inspector import InspectorScreen
from lctui.tui.state.example_view import cut_marker
from lctui.tui.state.prompt_wrap import WrapIndex
from lctui.tui.widgets.label_map import LabelTable
from lctui.tui.widgets.prompt_view import PromptView


def generation_of(db: Path, model: str, task: str, idx: int) -> str:
    with duckdb.connect(str(db), read_only=True) as con:
        row = con.execute(
            "SELECT g.generation_id FROM generations AS g JOIN examples AS e USING (example_id) "
            "JOIN models AS m USING (model_id) WHERE m.name = ? AND e.task = ? AND e.idx = ?",
            [model, task, idx],
        ).fetchone()
    assert row is not None
    return str(row[0])


def _app(db: Path) -> LctuiApp:
    return LctuiApp(db, Config(), import_samples=False)


def _text(widget: Static) -> Content:
    content = widget.render()
    assert isinstance(content, Content)
    return content


def _roles(table: LabelTable) -> dict[str, str]:
    rows = [table.get_row_at(i) for i in range(table.row_count)]
    return {str(r[0]): str(r[2]) for r in rows}


def _footer_keys(screen: InspectorScreen) -> set[str]:
    return {str(key.description) for key in screen.query(FooterKey)}


async def test_options_mark_the_gold_and_the_chosen_one_and_the_answer_sentence(
    longbench_db: Path,
) -> None:
    gid = generation_of(longbench_db, "answerer", "longbench_v2", 5)  # a wrong answer
    async with _app(longbench_db).run_test(size=(120, 40)) as pilot:
        screen = await open_inspector(pilot, gid)
        record = screen.record
        assert record is not None
        gold, chosen = record.gold[0], record.scores[0].extracted[0]
        assert chosen != gold and record.score == 0.0
        assert screen.query_one("#context-panel").display  # wide: beside the rubric
        table = screen.query_one(LabelTable)
        assert _roles(table) == {
            letter: "gold" if letter == gold else "answer" if letter == chosen else ""
            for letter in "ABCD"
        }
        choices = record.metadata["choices"]
        summary = " ".join(str(screen.query_one("#label-summary", Static).render()).split())
        meta = record.metadata
        facts = f"{meta['domain']} ({meta['sub_domain']}), {meta['difficulty']}, "
        facts += meta["length_bucket"]
        assert (
            summary == f"{facts} gold ({gold}) {choices[gold]} answer ({chosen}) {choices[chosen]}"
        )
        # The output marks the sentence the option was read from, not every letter like it.
        output = _text(screen.query_one("#output-text", Static))
        (span,) = output.spans
        assert output.plain[span.start : span.end] == f"The correct answer is ({chosen})"
        gold_line = str(screen.query_one("#output-gold", Static).render())
        assert gold_line == f"Gold: ({gold}) {choices[gold]}"
        header = str(screen.query_one("#inspector-header", Static).render())
        assert f"example 5  ·  {meta['domain']}" in header or "Table, hard, long" in header
        assert len(header) <= 118
        assert "Call" not in _footer_keys(screen)  # one call: no `c`


async def test_an_answer_naming_no_option_says_so(longbench_db: Path) -> None:
    gid = generation_of(longbench_db, "answerer", "longbench_v2", 8)
    async with _app(longbench_db).run_test(size=(80, 24)) as pilot:
        screen = await open_inspector(pilot, gid)
        record = screen.record
        assert record is not None and record.result_status == "unparsed"
        assert str(screen.query_one(Tabs).query_one("#tab-context", Tab).label) == "4 Options"
        header = str(screen.query_one("#inspector-header", Static).render())
        assert "example 8  ·  ICL, easy, long  ·  seed 0" in header  # the short domain
        await pilot.press("4")
        await pilot.pause()
        table = screen.query_one(LabelTable)
        assert screen.panel == "context" and table.region.area  # on screen
        assert set(_roles(table).values()) == {"gold", ""}
        summary = " ".join(str(screen.query_one("#label-summary", Static).render()).split())
        assert summary.endswith("answer no option named (0.25 in the compensated accuracy)")
        assert all(len(line) <= 80 for line in rendered(table))
        assert not _text(screen.query_one("#output-text", Static)).spans


def _marker_line(view: PromptView) -> int | None:
    """The screen row of the marker line, if it is in view."""
    lines = rendered(view)
    found = [i for i, line in enumerate(lines) if "✂" in line]
    return found[0] if found else None


async def _check_both_calls(pilot: Pilot[Any], screen: InspectorScreen, narrow: bool) -> None:
    record = screen.record
    assert record is not None
    reasoning, answer_call = record.calls
    view = screen.query_one(PromptView)
    assert "Call" in _footer_keys(screen)
    assert (
        view.border_title == f"Prompt, call 1 of 2: reasoning ({reasoning.prompt_tokens:,} tokens)"
    )

    # The middle cut: a marker line between the two characters the cut joins.
    cut = cut_marker(record)
    assert cut is not None and cut.at == record.metadata["cut"]["at"]
    shift = len(record.prompt_head or "") + len(record.preamble or "")
    (marker,) = view.markers
    assert (marker.start, marker.end, marker.kind) == (shift + cut.at, shift + cut.at, "cut")
    assert view.text == record.prompt
    await pilot.press("n")
    await pilot.pause()
    assert view.selected is not None and view.targets[view.selected] == marker
    assert view.border_subtitle == "cut 1 of 1"
    row = _marker_line(view)
    assert row is not None
    lines = rendered(view)
    assert cut.label[:40] in lines[row]
    context = record.context or ""
    assert lines[row + 1].strip("│ ▁▂▃▄▅▆▇█").startswith(context[cut.at :][:20].strip())
    assert context[: cut.at].rstrip().endswith(lines[row - 1].strip("│ ▁▂▃▄▅▆▇█").rstrip())

    # Both outputs, the reasoning first; the answer's sentence marked.
    output = _text(screen.query_one("#output-text", Static))
    assert output.plain.startswith("Call 1 of 2: reasoning (")
    assert f"\n{reasoning.output}\n\nCall 2 of 2: answer (" in output.plain
    assert output.plain.endswith(answer_call.output) and len(output.spans) >= 3

    if narrow:  # from another tab, `c` shows the prompt
        await pilot.press("2")
    await pilot.press("c")
    await pilot.pause()
    assert screen.panel == "prompt" and screen.has_class("-show-prompt")
    assert view.text == answer_call.prompt and not view.markers and not view.targets
    follow_up = FollowUp.of(record.metadata)
    assert follow_up is not None
    assert view.text.count(follow_up.before + reasoning.output.strip() + follow_up.after) == 1
    assert (
        view.border_title == f"Prompt, call 2 of 2: answer ({answer_call.prompt_tokens:,} tokens)"
    )
    await pilot.press("y")
    assert pilot.app.clipboard == answer_call.prompt
    await pilot.press("c")
    await pilot.pause()
    assert view.text == record.prompt and view.markers == [marker]
    assert [c["role"] for c in export_payload(record)["calls"]] == ["reasoning", "answer"]


async def test_chain_of_thought_shows_both_calls_and_the_cut_at_80x24(longbench_db: Path) -> None:
    # Question 2: 30,000 words, cut from its two ends (never tokenised whole).
    gid = generation_of(longbench_db, "gold", "longbench_v2_cot", 2)
    async with _app(longbench_db).run_test(size=(80, 24)) as pilot:
        screen = await open_inspector(pilot, gid)
        record = screen.record
        assert record is not None and record.metadata["cut"]["whole_tokens"] is None
        left = record.metadata["context_chars"] - len(record.context or "")
        assert (cut := cut_marker(record)) is not None
        assert cut.label.startswith(f"about {left:,} characters cut out here (")
        await _check_both_calls(pilot, screen, narrow=True)


async def test_chain_of_thought_shows_both_calls_and_the_cut_at_120x40(longbench_db: Path) -> None:
    # Question 1: 3,000 words, tokenised whole and cut at 4K.
    gid = generation_of(longbench_db, "gold", "longbench_v2_cot", 1)
    async with _app(longbench_db).run_test(size=(120, 40)) as pilot:
        screen = await open_inspector(pilot, gid)
        record = screen.record
        assert record is not None
        cut = record.metadata["cut"]
        left = cut["whole_tokens"] - cut["head_tokens"] - cut["tail_tokens"]
        marker = cut_marker(record)
        assert marker is not None
        assert marker.label == (
            f"{left:,} of {cut['whole_tokens']:,} tokens cut out here "
            f"({cut['head_tokens']:,} + {cut['tail_tokens']:,} tokens kept)"
        )
        await _check_both_calls(pilot, screen, narrow=False)


async def test_a_context_kept_whole_has_no_marker_and_one_call_no_call_key(
    longbench_db: Path,
) -> None:
    gid = generation_of(longbench_db, "gold", "longbench_v2", 0)  # 300 words: kept whole
    async with _app(longbench_db).run_test(size=(80, 24)) as pilot:
        screen = await open_inspector(pilot, gid)
        record: GenerationRecord | None = screen.record
        assert record is not None and not record.metadata["cut"]["cut"] and not record.calls
        view = screen.query_one(PromptView)
        assert not view.markers and _marker_line(view) is None
        assert view.border_title == f"Prompt ({record.prompt_tokens:,} tokens)"
        assert "Call" not in _footer_keys(screen)
        await pilot.press("c")  # disabled: nothing to switch to
        await pilot.pause()
        assert view.text == record.prompt and screen.call == 0


@pytest.mark.parametrize("width", [1, 7, 30])
def test_marker_lines_stand_for_no_text(width: int) -> None:
    """Breaks anywhere (before a newline, at the start, at a line's end): every break
    gets one empty marker line and the lines of text still cover the text once."""
    rng = random.Random(width)
    alphabet = "ab  cd\n e\u4e2dxyz" + "longwordwithoutspaces"
    for _ in range(300):
        text = "".join(rng.choice(alphabet) for _ in range(rng.randrange(1, 200)))
        breaks = sorted({rng.randrange(0, len(text) + 2) for _ in range(rng.randrange(4))})
        index = WrapIndex(text, width, breaks)
        index.ensure_line(2)
        while not index.wrap_some(40):
            pass
        lines = list(zip(index.starts, index.ends, strict=True))
        shown = [text[s:e] for i, (s, e) in enumerate(lines) if index.marker_of(i) is None]
        assert "".join(shown) == text.replace("\n", "")
        assert sorted(index.markers.values()) == [b for b in breaks if b < len(text)]
        for line, at in index.markers.items():
            assert lines[line][0] == lines[line][1]
            if text[at] != "\n":  # the text after the break starts the next line
                assert index.line_of(at) == line + 1 and lines[line + 1][0] == at
        assert index.estimated_lines() == len(lines)


def test_snapshot_chain_of_thought_at_the_cut(
    snap_compare: Any, longbench_db: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("COLORTERM", "truecolor")  # the starting theme depends on it
    gid = generation_of(longbench_db, "gold", "longbench_v2_cot", 1)

    async def run_before(pilot: Pilot[Any]) -> None:
        await open_inspector(pilot, gid)
        await pilot.press("n")
        await settle(pilot)

    assert snap_compare(_app(longbench_db), terminal_size=(120, 40), run_before=run_before)
