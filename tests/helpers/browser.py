"""Headless Chromium driven over the Chrome DevTools Protocol, for the browser test of
`lctui serve` (Debian's `chromium`; `.ci/run` installs it).

textual-serve draws the app with xterm.js on a canvas, so the page's DOM holds no text.
The test reads what the terminal shows from xterm's own buffer instead: DevTools'
`Runtime.queryObjects` finds the page's xterm `Terminal` among its live objects (the
page keeps it in a closure), and its public API (`buffer.active.getLine(y)
.translateToString()`) gives each row's text, as drawn.
"""

from __future__ import annotations

import asyncio
import json
import os
import shutil
import subprocess
import time
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import aiohttp
import pytest

# As the machines' notes say Chromium runs headless here, as root and without network:
# the background-networking flags keep it from calling Google's hosts at every start.
FLAGS = (
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--remote-debugging-port=0",
    "--window-size=1280,800",
)
REQUIRED_ENV = "LCTUI_BROWSER_TESTS"  # "required" in CI: no Chromium is a failure, not a skip

# Run on the page: find xterm's Terminal among all live objects, keep it, read its rows.
_FIND_TERMINAL = """function () {
  const isTerminal = (o) => {
    try {
      return o !== null && typeof o === "object" && typeof o.onData === "function"
        && o.buffer && o.buffer.active && typeof o.buffer.active.getLine === "function";
    } catch (e) { return false; }
  };
  const found = this.find(isTerminal);
  if (found) { window.__lctuiTestTerminal = found; }
  return Boolean(found);
}"""
_ROWS = """(() => {
  const t = window.__lctuiTestTerminal;
  const rows = [];
  for (let y = 0; y < t.rows; y++) {
    const line = t.buffer.active.getLine(t.buffer.active.viewportY + y);
    rows.push(line ? line.translateToString(true) : "");
  }
  return rows;
})()"""


def chromium_path() -> str:
    """Chromium's executable, or a skip (a failure where CI requires the browser)."""
    found = shutil.which("chromium") or shutil.which("chromium-browser")
    if found:
        return found
    message = "chromium is not installed (apt-get install -y chromium; .ci/run installs it)"
    if os.environ.get(REQUIRED_ENV) == "required":
        pytest.fail(message)
    pytest.skip(message)


class Page:
    """One page target's DevTools session: commands by id, events ignored."""

    def __init__(self, socket: aiohttp.ClientWebSocketResponse[bool]) -> None:
        self._socket = socket
        self._next_id = 0

    async def send(self, method: str, **params: Any) -> dict[str, Any]:
        self._next_id += 1
        number = self._next_id
        await self._socket.send_str(json.dumps({"id": number, "method": method, "params": params}))
        while True:
            message = await self._socket.receive(timeout=60)
            if message.type != aiohttp.WSMsgType.TEXT:
                raise RuntimeError(f"DevTools closed the session: {message!r}")
            reply = json.loads(message.data)
            if reply.get("id") != number:
                continue  # an event
            if "error" in reply:
                raise RuntimeError(f"{method} failed: {reply['error']}")
            result: dict[str, Any] = reply["result"]
            return result

    async def evaluate(self, expression: str) -> Any:
        reply = await self.send("Runtime.evaluate", expression=expression, returnByValue=True)
        if "exceptionDetails" in reply:
            raise RuntimeError(f"{expression[:60]}... failed: {reply['exceptionDetails']}")
        return reply["result"].get("value")

    async def app_output_arrived(self) -> bool:
        """Whether the app's first output reached the page (textual.js marks the body)."""
        try:
            marked = await self.evaluate(
                "Boolean(document.body && document.body.classList.contains('-first-byte'))"
            )
        except RuntimeError:  # the page is still loading: its context changes
            return False
        return bool(marked)

    async def find_terminal(self) -> bool:
        """Whether the page has made xterm's Terminal yet (kept for `terminal_rows`)."""
        proto = await self.send("Runtime.evaluate", expression="Object.prototype")
        objects = await self.send(
            "Runtime.queryObjects", prototypeObjectId=proto["result"]["objectId"]
        )
        found = await self.send(
            "Runtime.callFunctionOn",
            functionDeclaration=_FIND_TERMINAL,
            objectId=objects["objects"]["objectId"],
            returnByValue=True,
        )
        await self.send("Runtime.releaseObjectGroup", objectGroup="")
        return bool(found["result"].get("value"))

    async def terminal_rows(self) -> list[str]:
        rows: list[str] = await self.evaluate(_ROWS)
        return rows

    async def screenshot(self, path: Path) -> None:
        import base64

        shot = await self.send("Page.captureScreenshot", format="png")
        path.write_bytes(base64.b64decode(shot["data"]))


@asynccontextmanager
async def chromium_page(profile: Path, url: str) -> AsyncIterator[Page]:
    """Headless Chromium on a fresh profile, its one page opened at `url`."""
    browser = subprocess.Popen(
        [chromium_path(), *FLAGS, f"--user-data-dir={profile}", url],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        start_new_session=True,
    )
    try:
        port_file = profile / "DevToolsActivePort"
        deadline = time.monotonic() + 60
        while not port_file.is_file() or not port_file.read_text().strip():
            if browser.poll() is not None or time.monotonic() > deadline:
                raise RuntimeError(f"chromium did not start (exit code {browser.poll()})")
            await asyncio.sleep(0.1)
        port = int(port_file.read_text().split()[0])
        async with aiohttp.ClientSession() as session:
            async with session.get(f"http://127.0.0.1:{port}/json/list") as reply:
                targets = await reply.json()
            page = next(t for t in targets if t.get("type") == "page")
            async with session.ws_connect(page["webSocketDebuggerUrl"], max_msg_size=0) as socket:
                yield Page(socket)
    finally:
        browser.terminate()
        try:
            browser.wait(timeout=10)
        except subprocess.TimeoutExpired:
            browser.kill()
            browser.wait()
