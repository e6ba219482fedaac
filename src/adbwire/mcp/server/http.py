"""Streamable HTTP: loopback by default, a bearer token from a private file, origin checks.

The token is generated locally on first use and kept in ``<state dir>/http-token`` (mode
0600); it is compared in constant time. It is printed only with ``--show-token``: the client
snippet names the file instead, so the configuration can be shared without the credential.
Browsers are kept out by the Origin check (only loopback origins) on top of the SDK's
Host-header (DNS rebinding) protection.

SIGINT or SIGTERM stops the server as stdio's do: uvicorn closes the HTTP connections (open
streams get `SHUTDOWN_GRACE` seconds), `serve_http` returns the signal's number, and the
caller closes the device connections, recordings and audit log before exiting with 128 +
that number. (uvicorn itself raises the signal again once it has stopped, which killed the
process before any of that was closed.) A second signal ends the process at once.
"""

from __future__ import annotations

import contextlib
import hmac
import ipaddress
import logging
import os
import secrets
import signal
import socket
import stat
import sys
import threading
from collections.abc import Iterator
from pathlib import Path
from types import FrameType
from typing import Any, Final
from urllib.parse import urlsplit

import uvicorn
from mcp.server.mcpserver import MCPServer
from starlette.types import ASGIApp, Receive, Scope, Send

from adbwire.errors import UsageError
from adbwire.mcp.safety.audit import ensure_private_dir, state_dir
from adbwire.wire.transport import parse_tcp_address

log = logging.getLogger(__name__)
PATH = "/mcp"
STOP_SIGNALS: Final = (signal.SIGINT, signal.SIGTERM)
SHUTDOWN_GRACE: Final = 5.0
"""Seconds open HTTP requests and event streams get to finish after a stop signal."""


def token_file() -> Path:
    return state_dir() / "http-token"


def load_or_create_token(path: Path) -> str:
    """The token in `path`, created (0600) if missing; refuses a file others can read."""
    ensure_private_dir(path.parent)
    try:
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    except FileExistsError:
        mode = path.stat().st_mode
        if sys.platform != "win32" and mode & (stat.S_IRWXG | stat.S_IRWXO):
            raise UsageError(
                f"{path} is readable by other users: chmod 600 it or delete it"
            ) from None
        token = path.read_text(encoding="ascii").strip()
        if len(token) < 32:
            raise UsageError(
                f"{path} does not hold a usable token: delete it to make a new one"
            ) from None
        return token
    token = secrets.token_urlsafe(32)
    with os.fdopen(fd, "w", encoding="ascii") as handle:
        handle.write(token + "\n")
    return token


def is_loopback(host: str) -> bool:
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return False


class Guard:
    """ASGI middleware: bearer token (constant time) and loopback-only Origin."""

    def __init__(self, app: ASGIApp, token: str) -> None:
        self.app = app
        self.expected = f"Bearer {token}".encode()

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        headers = {key.decode("latin-1").lower(): value for key, value in scope["headers"]}
        origin = headers.get("origin")
        if origin is not None and not is_loopback(
            urlsplit(origin.decode("latin-1")).hostname or ""
        ):
            await _reply(send, 403, b"origin not allowed")
            return
        provided = headers.get("authorization", b"")
        if not hmac.compare_digest(provided, self.expected):
            await _reply(send, 401, b"missing or wrong bearer token", bearer=True)
            return
        await self.app(scope, receive, send)


async def _reply(send: Send, status: int, body: bytes, *, bearer: bool = False) -> None:
    headers = [(b"content-type", b"text/plain"), (b"content-length", str(len(body)).encode())]
    if bearer:
        headers.append((b"www-authenticate", b'Bearer realm="adbwire"'))
    await send({"type": "http.response.start", "status": status, "headers": headers})
    await send({"type": "http.response.body", "body": body})


def bind(address: str) -> socket.socket:
    """A socket bound to HOST:PORT (PORT 0: the OS picks one)."""
    if address.endswith(":0"):
        host, port = parse_tcp_address(address[:-2] + ":1")[0], 0
    else:
        host, port = parse_tcp_address(address)
    if not is_loopback(host):
        log.warning("serving MCP on %s, not loopback: the token is all that protects it", host)
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    # The protocol must be named: asyncio turns Nagle off (TCP_NODELAY) only on sockets whose
    # proto is IPPROTO_TCP, and accepted sockets inherit it. With proto 0, a response's body
    # (written after its headers) waited for the client's delayed ACK: 40 ms per call.
    sock = socket.socket(family, socket.SOCK_STREAM, socket.IPPROTO_TCP)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.bind((host, port))
    # Listening now: the address is printed before uvicorn starts, and a client that
    # connects at once must wait in the backlog, not be refused.
    sock.listen(socket.SOMAXCONN)
    return sock


class _Server(uvicorn.Server):
    """uvicorn's server, except that a stop signal is returned, not raised again."""

    stopped_by: int | None = None

    @contextlib.contextmanager
    def capture_signals(self) -> Iterator[None]:
        if threading.current_thread() is not threading.main_thread():
            yield  # signals can only be received in the main thread
            return
        # A signal the parent set to be ignored (a background job) stays ignored.
        wanted = [n for n in STOP_SIGNALS if signal.getsignal(n) is not signal.SIG_IGN]
        original = {number: signal.signal(number, self.handle_exit) for number in wanted}
        try:
            yield
        finally:
            for number, handler in original.items():
                signal.signal(number, handler)

    def handle_exit(self, sig: int, frame: FrameType | None) -> None:
        if self.stopped_by is not None:  # the second one: no more waiting for a clean end
            signal.signal(sig, signal.SIG_DFL)
            os.kill(os.getpid(), sig)
            return
        self.stopped_by = sig
        self.should_exit = True


async def serve_http(server: MCPServer[Any], address: str, show_token: bool) -> int | None:
    """Serve until a stop signal arrives; returns its number (None if stopped otherwise)."""
    path = token_file()
    token = load_or_create_token(path)
    sock = bind(address)
    host, port = sock.getsockname()[:2]
    shown_host = f"[{host}]" if ":" in host else host
    url = f"http://{shown_host}:{port}{PATH}"
    app = Guard(server.streamable_http_app(streamable_http_path=PATH, host=host), token)
    secret = token if show_token else f"<the token in {path}>"
    print(f"adbwire: MCP over HTTP at {url}", file=sys.stderr)
    print(
        f'adbwire: client config: {{"type": "http", "url": "{url}", '
        f'"headers": {{"Authorization": "Bearer {secret}"}}}}',
        file=sys.stderr,
        flush=True,
    )
    config = uvicorn.Config(
        app,
        log_config=None,
        access_log=False,
        lifespan="on",
        timeout_graceful_shutdown=int(SHUTDOWN_GRACE),
    )
    uvicorn_server = _Server(config)
    await uvicorn_server.serve(sockets=[sock])
    return uvicorn_server.stopped_by
