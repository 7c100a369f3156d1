"""`lctui serve` in a real browser: headless Chromium opens the URL `lctui serve` printed,
the page's websocket starts the app, and the results screen (the sample runs of the
embedded model, imported into the empty database) is drawn in the page's terminal;
without the token the page is refused. What the terminal shows is read from xterm's
buffer over the DevTools protocol (tests/helpers/browser.py)."""

from __future__ import annotations

import asyncio
import time
from pathlib import Path

import pytest

from helpers.browser import Page, chromium_page, chromium_path
from helpers.lctui_serve import lctui_serve
from lctui.tui.screens.results import MODEL_TITLE

pytestmark = pytest.mark.slow  # a browser and the app's first start: 10-30 s
DRAWN_WITHIN_S = 120.0
# The results screen of the sample runs: the heatmap's title, the model and a task.
EXPECTED = (MODEL_TITLE, "smollm2-135m", "niah_single_1")


async def _until_drawn(page: Page, shot: Path) -> str:
    """The terminal's text once it shows the results screen (a failure says what it showed)."""
    deadline = time.monotonic() + DRAWN_WITHIN_S
    shown = ""
    while not await page.app_output_arrived():
        if time.monotonic() > deadline:
            await page.screenshot(shot)
            pytest.fail(f"no output of the app reached the page (screenshot {shot})")
        await asyncio.sleep(0.5)
    assert await page.find_terminal(), "the page draws without an xterm Terminal"
    while time.monotonic() < deadline:
        shown = "\n".join(await page.terminal_rows())
        if all(text in shown for text in EXPECTED):
            return shown
        await asyncio.sleep(0.5)
    await page.screenshot(shot)
    pytest.fail(f"the results screen was not drawn (screenshot {shot}); the page showed:\n{shown}")


async def test_chromium_shows_the_results_screen_at_the_printed_url(tmp_path: Path) -> None:
    chromium_path()  # skips (or, in CI, fails) before anything starts when it is missing
    with lctui_serve(tmp_path) as served:
        async with chromium_page(tmp_path / "profile", served.url) as page:
            await _until_drawn(page, tmp_path / "page.png")
            # The same browser, without the token: refused, and no app behind it.
            await page.send("Page.navigate", url=served.page())
            await asyncio.sleep(1.0)
            body = await page.evaluate("document.body ? document.body.innerText : ''")
            assert "open the URL that `lctui serve` printed" in body, body
