"""`lctui serve` opens the app only to the person holding the printed URL: a real
`lctui serve` process on a free loopback port, probed with urllib and a raw websocket
client (what a hostile page or another local user could send)."""

from __future__ import annotations

import asyncio
import os
import re
import subprocess
import sys
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import aiohttp
import pytest
from websockets.asyncio.client import connect
from websockets.exceptions import InvalidStatus
from websockets.typing import Origin as WsOrigin

from helpers.ansi_screen import AnsiScreen
from helpers.lctui_serve import Served, free_port, lctui_serve
from lctui.tui.start import main as launch_main

QUIET_S = 2.0  # the app has drawn all it had to: nothing more comes for this long


@pytest.fixture(scope="module")
def served(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Served]:
    with lctui_serve(tmp_path_factory.mktemp("serve")) as server:
        yield server


def _status(url: str) -> int:
    try:
        with urllib.request.urlopen(url, timeout=10) as reply:
            return int(reply.status)
    except urllib.error.HTTPError as err:
        return int(err.code)


def test_the_page_needs_the_token(served: Served) -> None:
    assert _status(served.page()) == 403
    assert _status(served.page("?token=not-the-token")) == 403
    assert _status(served.page(f"?token={served.token}x")) == 403
    with urllib.request.urlopen(served.page(f"?token={served.token}"), timeout=10) as reply:
        page = reply.read().decode()
        assert reply.headers["Referrer-Policy"] == "no-referrer"
    assert "lctui" in page
    # The page's websocket is on the host the browser used, with the token in its path.
    assert f'"ws://127.0.0.1:{served.port}/ws/{served.token}"' in page


async def _refusal(url: str, origin: str | None) -> int:
    with pytest.raises(InvalidStatus) as refused:
        async with connect(url, origin=None if origin is None else WsOrigin(origin)):
            pass
    return int(refused.value.response.status_code)


async def test_the_websocket_needs_the_token(served: Served) -> None:
    loopback = f"http://127.0.0.1:{served.port}"
    assert await _refusal(served.socket_url(""), loopback) == 403  # textual-serve's own /ws
    assert await _refusal(served.socket_url("not-the-token"), loopback) == 403
    assert await _refusal(served.socket_url(served.token[:-1]), loopback) == 403


async def test_the_websocket_refuses_a_foreign_or_missing_origin(served: Served) -> None:
    url = served.socket_url()
    assert await _refusal(url, "http://evil.example") == 403
    assert await _refusal(url, f"http://evil.example:{served.port}") == 403
    assert await _refusal(url, "null") == 403  # sandboxed frames and file:// pages
    assert await _refusal(url, None) == 403  # not a browser


async def test_the_token_and_a_loopback_origin_start_the_app(served: Served) -> None:
    # Another port than the server's: a browser at the near end of `ssh -L 9000:...`.
    async with connect(served.socket_url(), origin=WsOrigin("http://localhost:9000")) as ws:
        seen = b""
        deadline = time.monotonic() + 60
        # Textual's first output: the alternate screen, then a painted first line.
        while not (b"\x1b[?1049h" in seen and b"\x1b[1;1H" in seen):
            assert time.monotonic() < deadline, f"no app output, got {seen[:200]!r}"
            message = await asyncio.wait_for(ws.recv(), timeout=60)
            if isinstance(message, bytes):
                seen += message


async def test_the_home_footer_offers_what_the_terminal_offers(served: Served) -> None:
    """The page starts the app unfocused (textual-serve's driver tells it so at once) and
    sends nothing until it is clicked: the footer still lists the heatmap's keys, enter
    (Examples) among them, as a terminal shows them. The page's screen is rebuilt from
    the app's output (helpers/ansi_screen.py)."""
    origin = WsOrigin(f"http://127.0.0.1:{served.port}")
    screen = AnsiScreen(80, 24)  # the size socket_url asks for
    async with connect(served.socket_url(), origin=origin) as ws:
        # The home screen drawn, then what the app draws until it has nothing to add.
        deadline = time.monotonic() + 90  # hang bounds: the app starts in seconds
        while not ("niah_single_1" in "\n".join(screen.lines()) and "Help" in screen.lines()[-1]):
            assert time.monotonic() < deadline, "\n".join(screen.lines())
            await _draw(ws, screen, timeout=deadline - time.monotonic())
        deadline = time.monotonic() + 60
        while await _draw(ws, screen, timeout=QUIET_S) and time.monotonic() < deadline:
            pass
    footer = screen.lines()[-1]
    assert "⏎ Examples" in footer and "d Depth" in footer, footer


async def _draw(ws: Any, screen: AnsiScreen, timeout: float) -> bool:
    """Feed `screen` what the app sends next; False when it sent nothing within `timeout`."""
    try:
        message = await asyncio.wait_for(ws.recv(), timeout=max(0.1, timeout))
    except TimeoutError:
        return False
    if isinstance(message, bytes):
        screen.feed(message)
    return True


async def _pipe(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
    try:
        while data := await reader.read(65536):
            writer.write(data)
            await writer.drain()
    except ConnectionError:
        pass
    finally:
        writer.close()


async def test_the_app_works_through_a_forwarded_port(served: Served) -> None:
    """What `ssh -L LOCAL:127.0.0.1:PORT` does, with LOCAL != PORT: a plain TCP relay."""

    async def relay(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        up_reader, up_writer = await asyncio.open_connection("127.0.0.1", served.port)
        await asyncio.gather(_pipe(reader, up_writer), _pipe(up_reader, writer))

    forward = await asyncio.start_server(relay, "127.0.0.1", 0)
    local = forward.sockets[0].getsockname()[1]
    try:
        async with aiohttp.ClientSession() as session:
            url = f"http://127.0.0.1:{local}/?token={served.token}"
            async with session.get(url) as reply:
                assert reply.status == 200
                page = await reply.text()
        found = re.search(r'data-session-websocket-url="([^"]+)"', page)
        assert found and found.group(1) == f"ws://127.0.0.1:{local}/ws/{served.token}"
        origin = WsOrigin(f"http://127.0.0.1:{local}")  # what the browser sends there
        async with connect(f"{found.group(1)}?width=80&height=24", origin=origin) as ws:
            first = await asyncio.wait_for(ws.recv(), timeout=60)
            assert isinstance(first, bytes) and first.startswith(b"\x1b[")
    finally:
        forward.close()


def test_a_non_loopback_host_needs_allow_remote(capsys: pytest.CaptureFixture[str]) -> None:
    assert launch_main(["serve", "--host", "0.0.0.0", "--port", str(free_port())]) == 2
    err = capsys.readouterr().err
    assert "lctui: error: --host 0.0.0.0 is not a loopback address" in err
    assert "--allow-remote" in err and "ssh -L" in err
    assert launch_main(["serve", "--allow-origin", "gpu-box:8000"]) == 2
    assert "is not an origin" in capsys.readouterr().err


def test_loopback_origins_pass_on_any_port_others_only_when_named() -> None:
    from lctui.tui.serve import Origin, OriginPolicy, is_loopback_host

    assert is_loopback_host("127.0.0.1") and is_loopback_host("::1")
    assert is_loopback_host("localhost") and not is_loopback_host("0.0.0.0")
    named = Origin.parse("http://gpu-box.lan:8000")
    assert named is not None
    policy = OriginPolicy.for_bind("127.0.0.1", 8000, [named])
    for good in ("http://127.0.0.1:8000", "http://localhost:9000", "http://[::1]:1234"):
        assert policy.allows(good), good
    assert policy.allows("http://gpu-box.lan:8000")
    for bad in (None, "", "null", "http://gpu-box.lan:8001", "https://gpu-box.lan:8000",
                "http://127.0.0.1.evil.example", "file://", "http://evil.example"):  # fmt: skip
        assert not policy.allows(bad), bad


def test_the_log_shows_the_token_only_in_the_start_up_line(served: Served) -> None:
    """After the page and websocket requests of the tests above, the access log has
    their lines with the token written out (a log file would hand it on)."""
    assert _status(served.page(f"?token={served.token}")) == 200
    lines = served.log.read_text().splitlines()
    assert served.token in lines[0]
    assert any("<token>" in line for line in lines[1:]), "the requests were logged"
    assert not any(served.token in line for line in lines[1:])


def test_a_remote_bind_warns_and_loopback_does_not(served: Served, tmp_path: Path) -> None:
    """`--allow-remote` binds the network as asked, after a warning on stderr that the
    traffic (the token too) is plain http; the default loopback bind prints none."""
    assert served.log.read_text().startswith("Serving lctui on http://127.0.0.1:")
    port = free_port()
    log = tmp_path / "remote.log"
    with log.open("w") as out:
        server = subprocess.Popen(
            [sys.executable, "-m", "lctui", "serve", "--host", "0.0.0.0", "--allow-remote",
             "--port", str(port), "--db", str(tmp_path / "r.duckdb")],
            stdout=out, stderr=subprocess.STDOUT, text=True,
            env={**os.environ, "LCTUI_DATA_DIR": str(tmp_path)},
        )  # fmt: skip
    try:
        deadline = time.monotonic() + 30
        while "Serving lctui on" not in log.read_text():
            assert server.poll() is None and time.monotonic() < deadline, log.read_text()
            time.sleep(0.2)
        text = log.read_text()
    finally:
        server.terminate()
        server.wait(timeout=10)
    warning, _, rest = text.partition("Serving lctui on")
    assert f"WARNING: lctui serve listens on 0.0.0.0:{port}, reachable from other" in warning
    assert "unencrypted http" in warning and f"ssh -L {port}:127.0.0.1:{port}" in warning
    assert f":{port}/?token=" in rest
