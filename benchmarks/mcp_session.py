"""An in-memory MCP client session against adbwire's server, usable from blocking code.

The server (`adbwire.mcp.server.server.build_server`) and the SDK's `Client` run on an anyio event
loop in a portal thread; `call` blocks until one tools/call round trip is answered. The
policy lets destructive tools run without asking (the operator consented for the session),
so a `run_shell` round trip measures the call, not a confirmation dialogue.
"""

from __future__ import annotations

import contextlib
from pathlib import Path
from typing import Any

from benchmarks.clients import ECHO_TEXT

CALL_TIMEOUT = 120.0


def mcp_unavailable_reason() -> str | None:
    """Why the MCP measurements cannot run yet, or None when the server is there."""
    try:
        import mcp  # noqa: F401, PLC0415

        import adbwire.mcp.server.server  # noqa: F401, PLC0415
    except ImportError as exc:
        return f"pending: the MCP server is not importable yet ({exc})"
    return None


class McpSession:
    name = "mcp run_shell"

    def __init__(self, serial: str, private_key: Path) -> None:
        from anyio.from_thread import start_blocking_portal  # noqa: PLC0415
        from mcp import Client  # noqa: PLC0415

        from adbwire.mcp.devices import DeviceRegistry  # noqa: PLC0415
        from adbwire.mcp.safety.audit import AuditLog  # noqa: PLC0415
        from adbwire.mcp.safety.policy import Policy  # noqa: PLC0415
        from adbwire.mcp.server.app import App  # noqa: PLC0415
        from adbwire.mcp.server.server import build_server  # noqa: PLC0415
        from adbwire.wire.keys import load_key  # noqa: PLC0415

        key = load_key(private_key)
        registry = DeviceRegistry(lambda: [key])
        registry.add_tcp(serial, kind="simulated")
        self.app = App(
            policy=Policy(profile="full", allow_destructive=True),
            devices=registry,
            audit=AuditLog(None),
            transport="memory",
        )
        self._stack = contextlib.ExitStack()
        try:
            self._portal = self._stack.enter_context(start_blocking_portal())
            client = Client(build_server(self.app), read_timeout_seconds=CALL_TIMEOUT)
            self.client: Any = self._stack.enter_context(
                self._portal.wrap_async_context_manager(client)
            )
        except BaseException:
            self.close()
            raise

    def tool_names(self) -> set[str]:
        listed = self._portal.call(self.client.list_tools)
        return {tool.name for tool in listed.tools}

    def call(self, name: str, arguments: dict[str, Any]) -> Any:
        result = self._portal.call(self.client.call_tool, name, arguments)
        if result.is_error:
            raise RuntimeError(f"MCP {name} failed: {result.structured_content}")
        return result

    def echo(self) -> None:
        arguments = {"command": f"echo {ECHO_TEXT}", "reason": "benchmark round trip"}
        result = self.call("run_shell", arguments)
        text = result.content[0].text if result.content else ""  # stdout after the JSON line
        stdout = text.split("\n", 2)[2] if text.count("\n") >= 2 else ""
        if stdout.strip() != ECHO_TEXT:
            raise RuntimeError(f"MCP run_shell answered {result.structured_content!r}")

    def close(self) -> None:
        try:
            self._stack.close()
        finally:
            self.app.close()
