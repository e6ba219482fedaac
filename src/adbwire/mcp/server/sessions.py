"""Per-session state: the default device a session picked with select_device.

A default is never process-wide when a process can serve several clients. The session is:
the HTTP session (``Mcp-Session-Id``) on stateful Streamable HTTP; the one peer of a stdio
server; the connection object for in-process sessions. A stateless 2026-07-28 request over
HTTP or in process has no session at all: select_device then says to pass ``serial``.
"""

from __future__ import annotations

import threading
import weakref
from collections.abc import Awaitable, Callable, Hashable
from typing import Any

from mcp.server.mcpserver import Context
from mcp_types.version import MODERN_PROTOCOL_VERSIONS

STDIO = "stdio"


def session_token(ctx: Context[Any, Any], transport: str) -> Hashable | None:
    """What identifies the caller's session, or None when there is none."""
    headers = ctx.headers
    if headers:
        session_id = headers.get("mcp-session-id")
        if session_id:
            return f"http:{session_id}"
    if transport == STDIO:
        return STDIO
    if ctx.protocol_version in MODERN_PROTOCOL_VERSIONS:
        return None
    # SDK seam: the per-client Connection behind the per-request session proxy.
    return getattr(ctx.request_context.session, "_connection", None)


def on_session_end(
    ctx: Context[Any, Any],
    transport: str,
    key: str,
    callback: Callable[[Hashable], Awaitable[None]],
) -> Hashable | None:
    """Run ``callback(token)`` once when the caller's session ends (stdio: the peer hangs up;
    HTTP: DELETE or the idle timeout; in process: the connection closes), registered once per
    session and ``key``. Returns the session's token, or None for a request that has no
    session (nothing is registered then). For the 2026-07-28 era over stdio the token comes
    back unregistered: that session ends with the server, whose close does the work."""
    token = session_token(ctx, transport)
    if ctx.protocol_version in MODERN_PROTOCOL_VERSIONS:
        # 2026-07-28 requests each get a Connection of their own, torn down after the call:
        # stdio's one session ends with the server (whose close restores); others have none.
        return token if transport == STDIO else None
    # SDK seam: the per-client Connection's teardown stack, unwound (shielded) when it ends.
    connection = getattr(ctx.request_context.session, "_connection", None)
    stack = getattr(connection, "exit_stack", None)
    state = getattr(connection, "state", None)
    if token is None or stack is None or not isinstance(state, dict):
        return None
    marker = f"adbwire.session_end.{key}"
    if not state.get(marker):
        state[marker] = True
        stack.push_async_callback(callback, token)
    return token


def client_name(ctx: Context[Any, Any]) -> str | None:
    """'name/version' the client gave in initialize (or its 2026 request envelope)."""
    try:
        params = ctx.session.client_params
    except ValueError:
        return None
    info = params.client_info if params is not None else None
    if info is None:
        return None
    return f"{info.name}/{info.version}" if info.version else info.name


class SessionDefaults:
    """Default serial per session; connection-keyed entries vanish with their connection."""

    def __init__(self) -> None:
        self._by_name: dict[Hashable, str] = {}
        self._by_object: weakref.WeakKeyDictionary[Any, str] = weakref.WeakKeyDictionary()
        self._lock = threading.Lock()

    def get(self, token: Hashable | None) -> str | None:
        if token is None:
            return None
        with self._lock:
            if isinstance(token, str):
                return self._by_name.get(token)
            return self._by_object.get(token)

    def set(self, token: Hashable, serial: str | None) -> None:
        with self._lock:
            store: Any = self._by_name if isinstance(token, str) else self._by_object
            if serial is None:
                store.pop(token, None)
            else:
                store[token] = serial

    def forget_serial(self, serial: str) -> None:
        with self._lock:
            for store in (self._by_name, self._by_object):
                for key in [k for k, v in store.items() if v == serial]:
                    del store[key]
