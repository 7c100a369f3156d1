"""`lctui export-report --html` opened in headless Chromium: one standalone page (title,
charset, no fetches) that shows what the TUI shows of a run and of an A/B comparison.

The run is real: `gold` (the reference) and an OpenAI-compatible model on a loopback
server written for the tests (tests/helpers/fake_openai_server.py), which answers every
request with a sentence that names no expected value (unparsed) and fails two of them
(errors: a failure a real server does not give on demand)."""

from __future__ import annotations

import asyncio
import re
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from helpers.browser import Page, chromium_page, chromium_path
from helpers.fake_openai_server import FakeOpenAIServer
from lctui.cli import main

pytestmark = pytest.mark.slow  # a browser start per page: a few seconds each
ANSWER = ["The special ", "number is ", "42", "."]
FAILED = (2, 7)  # the fake server's failed requests (1-based)
# RULER's, HELMET's (json_kv) and LIFBench's tasks: the page has their suites' tables.
TASKS = "niah_single_1,vt,json_kv,lifbench_single_query_id"


@dataclass(frozen=True)
class Reports:
    run: Path
    compare: Path


@pytest.fixture(scope="module")
def reports(tmp_path_factory: pytest.TempPathFactory) -> Reports:
    folder = tmp_path_factory.mktemp("html-report")
    db = folder / "r.duckdb"
    config = folder / "lctui.toml"
    with pytest.MonkeyPatch.context() as mp, FakeOpenAIServer("m", ANSWER, fail=FAILED) as server:
        mp.setenv("LCTUI_DATA_DIR", str(folder / "data"))
        config.write_text(
            f'[models.fake]\nbackend = "openai"\nmodel = "m"\nmax_retries = 0\n'
            f'base_url = "{server.base_url}"\n',
            encoding="utf-8",
        )
        run = ["run", "--model", "gold", "--model", "fake", "--tasks", TASKS,
               "--lengths", "1k,2k", "--n", "5", "--tokenizer", "o200k_base"]  # fmt: skip
        # exit 1: some requests failed, the rest is stored
        assert main([*run, "--db", str(db), "--config", str(config)]) == 1
        reports = Reports(folder / "run.html", folder / "compare.html")
        assert main(["export-report", "--db", str(db), "--html", "--out", str(reports.run)]) == 0
        compare = ["--compare", "gold", "fake", "--html", "--out", str(reports.compare)]
        assert main(["export-report", "--db", str(db), *compare]) == 0
    return reports


def test_the_page_stands_alone(reports: Reports) -> None:
    for path in (reports.run, reports.compare):
        page = path.read_text(encoding="utf-8")
        assert page.startswith('<!DOCTYPE html>\n<html lang="en">')
        assert '<meta charset="utf-8">' in page and "<title>" in page and "<style>" in page
        # Nothing a browser would fetch: no scripts, style sheets, images or fonts by URL.
        assert not re.search(r"<(script|link|img|iframe)\b|@import|url\(", page)
        assert not re.search(r"(src|href)=", page)


async def _loaded(page: Page, url: str) -> None:
    """Once the report has loaded (the page starts as about:blank)."""
    check = f"location.href === {url!r} && document.readyState === 'complete'"
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        try:
            if await page.evaluate(check):
                return
        except RuntimeError:  # the page is still loading: its context changes
            pass
        await asyncio.sleep(0.2)
    pytest.fail("the report did not load in 60 s")


# Run in the page: what a reader sees, as plain data.
_SHOWN = """(() => {
  const tables = [...document.querySelectorAll("table")].map((t) => ({
    headers: [...t.querySelectorAll("th")].map((h) => h.innerText),
    rows: [...t.querySelectorAll("tbody tr")].map((r) =>
      [...r.querySelectorAll("td")].map((d) => ({
        text: d.innerText,
        background: getComputedStyle(d).backgroundColor,
        tip: d.title,
      }))),
  }));
  const charts = [...document.querySelectorAll("figure svg")].map((s) => ({
    label: s.getAttribute("aria-label"),
    width: s.getBoundingClientRect().width,
    marks: [...s.querySelectorAll("circle > title")].map((t) => t.textContent),
  }));
  return {
    title: document.title,
    charset: document.characterSet,
    headings: [...document.querySelectorAll("h1, h2, h3")].map((h) => h.innerText),
    tables,
    charts,
    legend: [...document.querySelectorAll("figure .legend")].map((l) => l.innerText),
    fetched: performance.getEntriesByType("resource").map((e) => e.name),
  };
})()"""


async def _shown(path: Path, profile: Path) -> dict[str, Any]:
    async with chromium_page(profile, path.as_uri()) as page:
        await _loaded(page, path.as_uri())
        shown: dict[str, Any] = await page.evaluate(_SHOWN)
        await page.screenshot(path.with_suffix(".png"))  # kept beside it for a failure
    return shown


def _table(shown: dict[str, Any], first_headers: list[str]) -> dict[str, Any]:
    return next(t for t in shown["tables"] if t["headers"][: len(first_headers)] == first_headers)


def _row(table: dict[str, Any], *first: str) -> list[dict[str, str]]:
    return next(r for r in table["rows"] if [c["text"] for c in r[: len(first)]] == list(first))


async def test_chromium_shows_the_run_as_the_tui_does(reports: Reports, tmp_path: Path) -> None:
    chromium_path()  # skips (or, in CI, fails) when Chromium is missing
    shown = await _shown(reports.run, tmp_path / "profile")
    assert shown["title"].startswith("Run ") and shown["charset"] == "UTF-8"
    assert shown["fetched"] == []
    assert shown["headings"][0] == shown["title"]
    heat = _table(shown, ["model", "task", "1k", "2k"])
    gold = _row(heat, "gold (reference)", "vt")  # the reference model is labelled
    assert [c["text"] for c in gold[2:]] == ["1.00 n=5", "1.00 n=5"]
    assert gold[2]["background"] == "rgb(87, 187, 138)"  # 1.0: the top of the scale
    fake = _row(heat, "fake", "vt")
    # every answer unparsed (a 0, red); a failed request is counted apart, not a 0
    for cell in fake[2:]:
        found = re.fullmatch(r"0\.00 n=([45])( err=1)?", cell["text"])
        assert found is not None and cell["background"] == "rgb(230, 124, 115)"
        n, errors = found[1], "1 errors" if found[2] else "0 errors"
        assert cell["tip"] == f"mean 0.000, {n} scored, {n} unparsed, {errors}"
    counts = _table(shown, ["model", "task", "lengths", "n", "ok", "unparsed", "errors"])
    # lengths, n, ok, unparsed, errors, cancelled, not scored, reused, mean
    fake_vt = [c["text"] for c in _row(counts, "fake", "vt")[2:]]
    assert fake_vt[2] == "0" and fake_vt[1] == fake_vt[3] and fake_vt[5:7] == ["0", "0"]
    assert int(fake_vt[1]) + int(fake_vt[4]) == 10
    assert sum(int(r[6]["text"]) for r in counts["rows"]) == len(FAILED)
    gold_vt = [c["text"] for c in _row(counts, "gold (reference)", "vt")[2:]]
    assert gold_vt == ["2", "10", "10", "0", "0", "0", "0", "0", "1.000"]
    # Score vs length: a picture per task, a line per model, named in one legend.
    assert [c["label"] for c in shown["charts"]] == sorted(TASKS.split(","))
    assert all(c["width"] > 200 for c in shown["charts"])
    assert [line.split() for line in shown["legend"]] == [["fake", "gold", "(reference)"]]
    vt_marks = shown["charts"][-1]["marks"]
    assert "gold (reference) @ 2k: 1.000" in vt_marks and "fake @ 1k: 0.000" in vt_marks
    # The suites' tables: HELMET's (json_kv is in its Recall) and LIFEval's.
    assert {"HELMET categories (0-100)", "LIFEval"} <= set(shown["headings"])
    helmet = _table(shown, ["model", "length", "Recall", "RAG"])
    assert [c["text"] for c in _row(helmet, "fake", "1k")[2:3]] == ["0.0*"]
    lifeval = _table(shown, ["model", "ARS"])
    assert [c["text"] for c in _row(lifeval, "gold")[:2]] == ["gold", "1.000"]


async def test_chromium_shows_the_comparison_with_intervals_and_changed_examples(
    reports: Reports, tmp_path: Path
) -> None:
    chromium_path()
    shown = await _shown(reports.compare, tmp_path / "profile")
    assert shown["title"] == "gold (A) vs fake (B)" and shown["fetched"] == []
    cells = _table(shown, ["task", "length", "n", "A", "B", "A - B", "95% CI"])
    pairs = 4 * 2 * 5 - len(FAILED)  # tasks x lengths x n, less the failed requests
    assert sum(int(r[2]["text"]) for r in cells["rows"]) == pairs
    # 5 pairs give an interval (bounded: A - B lies in [-1, 1]); a cell that lost a pair
    # to a failed request has 4, too few for one, and says so.
    counted = {int(r[2]["text"]) for r in cells["rows"]}
    assert counted == {4, 5}
    (chart,) = shown["charts"]
    assert chart["label"] == "A - B with its 95% interval"
    for row in cells["rows"]:
        texts = [c["text"] for c in row]
        assert texts[3:6] == ["1.000", "0.000", "+1.000"]
        assert row[5]["background"] == "rgb(109, 158, 235)"  # A - B = +1: the top
        mark = f"{texts[0]} @ {texts[1]}: +1.000"
        if texts[2] == "4":
            assert texts[6] == "too few pairs"
            assert mark in chart["marks"]  # the point without an interval
            continue
        found = re.fullmatch(r"\[([+-]\d\.\d{3}), ([+-]\d\.\d{3})\]", texts[6])
        assert found is not None, texts
        assert -1 <= float(found[1]) <= 1.0 == float(found[2])
        assert any(m.startswith(f"{mark} [") for m in chart["marks"]), chart["marks"]
    changed = _table(shown, ["task", "length", "example", "A", "B", "better"])
    assert len(changed["rows"]) == pairs  # every pair: gold right, fake wrong
    assert {r[5]["text"] for r in changed["rows"]} == {"A"}
