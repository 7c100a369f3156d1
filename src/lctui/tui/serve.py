"""`lctui serve`: the TUI in a browser, for the person who started it and nobody else.

textual-serve alone answers anyone who reaches the port, and a websocket is not bound
by the same-origin policy: any page the user visits could open one to 127.0.0.1 and
drive the app (its SQL console included). So this server adds, on top of textual-serve:

- A secret token made at each start (printed in the URL). The page needs `?token=`;
  the websocket's path is `/ws/<token>`, which the page embeds (textual.js appends its
  own `?width=&height=` query, so the token cannot be a query parameter there).
  Tokens are compared in constant time.
- An Origin check on the websocket. Browsers always send Origin on a websocket
  handshake, so a missing one (not a browser) or a foreign one is refused. Accepted:
  loopback origins on any port (the browser on this machine, or at the near end of
  `ssh -L LOCAL:127.0.0.1:PORT`, where LOCAL may differ from PORT), the origin of the
  printed URL, and those named with `--allow-origin`.
- Loopback binds only, unless `--allow-remote` says otherwise, and then a warning:
  the traffic, token included, is plain http.

Downloads (`/download/<key>`) stay as textual-serve makes them: the key is a random
UUID that exists only while the app delivers that file.
"""

from __future__ import annotations

import argparse
import ipaddress
import logging
import secrets
import shlex
import socket
import sys
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING
from urllib.parse import urlsplit

if TYPE_CHECKING:
    from textual_serve.server import Server

log = logging.getLogger(__name__)

WILDCARD_HOSTS = frozenset({"0.0.0.0", "::", ""})
DEFAULT_PORTS = {"http": 80, "https": 443}
REFUSED_PAGE = (
    "lctui serve: open the URL that `lctui serve` printed when it started (it ends in ?token=...)\n"
)


def is_loopback_name(host: str) -> bool:
    """True for a 127.0.0.0/8 or ::1 literal and for localhost, without asking DNS: a
    name that resolves to 127.0.0.1 may belong to anyone (DNS rebinding)."""
    name = host.strip("[]").lower()
    if name == "localhost":  # browsers resolve it to loopback themselves (RFC 6761)
        return True
    try:
        return ipaddress.ip_address(name).is_loopback
    except ValueError:
        return False


def is_loopback_host(host: str) -> bool:
    """Whether binding `host` keeps the server off the network: a loopback literal, or
    a name (the user's own --host) whose every address is loopback."""
    if is_loopback_name(host):
        return True
    try:
        infos = socket.getaddrinfo(host.strip("[]"), None)
        return bool(infos) and all(is_loopback_name(str(i[4][0])) for i in infos)
    except OSError:
        return False


@dataclass(frozen=True)
class Origin:
    """A web origin reduced to what identifies it: scheme, host and port."""

    scheme: str
    host: str
    port: int

    @classmethod
    def parse(cls, text: str) -> Origin | None:
        """The origin in `text` ("http://host:port"), or None if it is not one."""
        try:
            parts = urlsplit(text.strip())
            port = parts.port
        except ValueError:
            return None
        scheme = parts.scheme.lower()
        if scheme not in DEFAULT_PORTS or not parts.hostname:
            return None
        if parts.path not in ("", "/") or parts.query or parts.fragment or parts.username:
            return None
        return cls(scheme, parts.hostname.lower(), port or DEFAULT_PORTS[scheme])


def url_host(host: str) -> str:
    """`host` as it goes in a URL (IPv6 addresses in brackets)."""
    return f"[{host}]" if ":" in host and not host.startswith("[") else host


def browse_host(host: str) -> str:
    """The name a browser uses for the bound address (this machine's name for 0.0.0.0)."""
    return socket.gethostname() if host in WILDCARD_HOSTS else host


@dataclass(frozen=True)
class OriginPolicy:
    """Which browser origins may open the app's websocket (see the module docstring)."""

    named: frozenset[Origin]

    @classmethod
    def for_bind(cls, host: str, port: int, extra: Iterable[Origin] = ()) -> OriginPolicy:
        printed = Origin("http", browse_host(host).strip("[]").lower(), port)
        return cls(frozenset({printed, *extra}))

    def allows(self, header: str | None) -> bool:
        origin = Origin.parse(header) if header else None
        if origin is None:
            return False
        return origin in self.named or is_loopback_name(origin.host)


def parse_allowed_origins(values: Iterable[str]) -> list[Origin]:
    """The `--allow-origin` values, each checked; a clear error for a malformed one."""
    from lctui.core.errors import UserInputError

    origins = []
    for value in values:
        origin = Origin.parse(value)
        if origin is None:
            raise UserInputError(
                f"--allow-origin {value!r} is not an origin; write scheme://host[:port], "
                "e.g. http://gpu-box.lan:8000"
            )
        origins.append(origin)
    return origins


def check_bind(host: str, port: int, allow_remote: bool) -> None:
    """Refuse a port out of range, and a non-loopback address without `--allow-remote`."""
    from lctui.core.errors import UserInputError

    if not 1 <= port <= 65535:
        raise UserInputError(f"--port {port} is not a port number; use 1 to 65535")
    if not allow_remote and not is_loopback_host(host):
        raise UserInputError(
            f"--host {host} is not a loopback address: anyone who can reach this machine "
            "could open the UI, its SQL console included. To browse from another computer, "
            f"keep the default and forward the port: ssh -L {port}:127.0.0.1:{port} "
            "THIS-MACHINE. To listen on the network anyway, add --allow-remote"
        )


def remote_warning(host: str, port: int) -> str:
    return (
        f"WARNING: lctui serve listens on {host}:{port}, reachable from other machines.\n"
        "WARNING: the traffic, the token in the URL included, is unencrypted http: anyone\n"
        "WARNING: who can read it can drive the UI and its SQL console. Prefer the default\n"
        f"WARNING: loopback bind and ssh -L {port}:127.0.0.1:{port} from your computer."
    )


class _TokenRedaction(logging.Filter):
    """Writes `<token>` in place of the secret in the records it lets through."""

    def __init__(self, token: str) -> None:
        super().__init__()
        self._token = token

    def filter(self, record: logging.LogRecord) -> bool:
        message = record.getMessage()
        if self._token in message:
            record.msg, record.args = message.replace(self._token, "<token>"), ()
        return True


def make_server(command: str, host: str, port: int, token: str, origins: OriginPolicy) -> Server:
    """textual-serve's Server, with the token and Origin checks (imported late: only
    `lctui serve` needs aiohttp)."""
    import aiohttp_jinja2
    from aiohttp import web
    from textual_serve.server import Server

    class GuardedServer(Server):
        """Serves the page and its websocket only to requests that carry the token."""

        def token_matches(self, given: str) -> bool:
            return secrets.compare_digest(given.encode(), token.encode())

        async def _make_app(self) -> web.Application:
            app: web.Application = await super()._make_app()
            app.router.add_get("/ws/{token}", self.handle_websocket)
            return app

        def initialize_logging(self) -> None:
            super().initialize_logging()
            # aiohttp's access log prints every request line, the token in the page's
            # query and the websocket's path included: a log file or the journal would
            # hand it to whoever reads them. Only the start-up line shows it.
            logging.getLogger("aiohttp.access").addFilter(_TokenRedaction(token))

        async def on_startup(self, app: web.Application) -> None:
            """serve() prints the URL itself; textual-serve's banner would print the
            command (and no token) after it."""

        async def handle_index(self, request: web.Request) -> web.StreamResponse:
            if not self.token_matches(request.query.get("token", "")):
                raise web.HTTPForbidden(text=REFUSED_PAGE)
            scheme = "wss" if request.secure else "ws"
            try:
                font_size = int(request.query.get("fontsize", "16"))
            except ValueError:
                font_size = 16
            # Paths relative to the page, and the websocket on the host the browser
            # used, so the page works through a forwarded port of any number.
            context = {
                "font_size": font_size,
                "app_websocket_url": f"{scheme}://{request.host}/ws/{token}",
                "config": {"static": {"url": "/static/"}},
                "application": {"name": self.title},
            }
            response: web.StreamResponse = aiohttp_jinja2.render_template(
                "app_index.html", request, context
            )
            # The URL holds the token: keep it out of Referer headers and caches.
            response.headers["Referrer-Policy"] = "no-referrer"
            response.headers["Cache-Control"] = "no-store"
            return response

        async def handle_websocket(self, request: web.Request) -> web.WebSocketResponse:
            if not self.token_matches(request.match_info.get("token", "")):
                log.warning("refused a websocket without the right token")
                raise web.HTTPForbidden(text=REFUSED_PAGE)
            origin = request.headers.get("Origin")
            if not origins.allows(origin):
                parsed = Origin.parse(origin) if origin else None
                hint = (
                    f"; if that is your browser, restart with --allow-origin {origin}"
                    if parsed
                    else ""
                )
                log.warning("refused a websocket from Origin %r%s", origin, hint)
                raise web.HTTPForbidden(text="lctui serve: this Origin may not open the app\n")
            return await super().handle_websocket(request)

    return GuardedServer(command, host=host, port=port, title="lctui")


def serve(args: argparse.Namespace) -> int:
    """Serve the TUI until Ctrl-C; 2 with a one-line message for a bad option."""
    from lctui.cli.db_options import resolve_db
    from lctui.core.errors import LctuiError
    from lctui.core.text import shown_error

    try:
        check_bind(args.host, args.port, args.allow_remote)
        origins = OriginPolicy.for_bind(
            args.host, args.port, parse_allowed_origins(args.allow_origin)
        )
        # Checked here so a bad --db or lctui.toml fails now, not in each browser tab.
        db = resolve_db(args).path
    except LctuiError as exc:
        print(f"lctui: error: {shown_error(exc)}", file=sys.stderr)
        return 2
    command = [sys.executable, "-m", "lctui", "tui", "--db", str(db)]
    if args.config:
        command += ["--config", str(Path(args.config).expanduser())]
    if args.read_only:
        command.append("--read-only")
    token = secrets.token_urlsafe(32)
    if not is_loopback_host(args.host):
        print(remote_warning(args.host, args.port), file=sys.stderr, flush=True)
    url = f"http://{url_host(browse_host(args.host))}:{args.port}/?token={token}"
    print(f"Serving lctui on {url} (Ctrl-C to stop)", flush=True)
    server = make_server(shlex.join(command), args.host, args.port, token, origins)
    try:
        server.serve()
    except OSError as exc:
        print(
            f"lctui: error: cannot listen on {url_host(args.host)}:{args.port}: "
            f"{exc.strerror or exc}; pass --port with a free port",
            file=sys.stderr,
        )
        return 2
    return 0
