"""Helpers for MCP tests: an App over simulated devices and a real in-memory MCP client."""

from __future__ import annotations

import contextlib
import json
import subprocess
import sys
from collections.abc import AsyncIterator, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import anyio
import mcp_types as types
import pytest
from mcp import Client
from mcp.client.session import ClientRequestContext

from adbwire.mcp.devices import DeviceRegistry
from adbwire.mcp.safety.audit import AuditLog
from adbwire.mcp.safety.policy import Policy
from adbwire.mcp.server.app import App
from adbwire.mcp.server.server import build_server
from adbwire.testing import (
    DeviceFiles,
    DeviceOptions,
    SimulatedDevice,
    UserlandFactory,
    UserlandLike,
    running_device,
)
from adbwire.testing.scenario import load_scenario
from adbwire.testing.userland import Userland
from adbwire.wire.client import AdbClient
from adbwire.wire.keys import AdbKey

WAIT = 30.0  # bound on every client-side wait


def userland_with(properties: dict[str, str]) -> UserlandFactory:
    """The default scenario with some properties changed."""

    def factory(files: DeviceFiles) -> UserlandLike:
        scenario = load_scenario()
        scenario.properties = {**scenario.properties, **properties}
        userland: UserlandLike = Userland(scenario, files)
        return userland

    return factory


@contextlib.contextmanager
def simulated(
    count: int = 1, *, properties: dict[str, str] | None = None, **options: Any
) -> Iterator[list[SimulatedDevice]]:
    factory = userland_with(properties) if properties else None
    options.setdefault("auth_required", False)
    with contextlib.ExitStack() as stack:
        devices = [
            stack.enter_context(running_device(DeviceOptions(**options), factory))
            for _ in range(count)
        ]
        yield devices


def make_app(
    devices: Sequence[SimulatedDevice] = (),
    *,
    policy: Policy | None = None,
    audit: Path | None = None,
    transport: str = "memory",
    kind: str = "simulated",
) -> App:
    registry = DeviceRegistry(list)
    for device in devices:
        registry.add_tcp(device.serial, kind=kind, keys=list)
    return App(
        policy=policy or Policy(profile="full"),
        devices=registry,
        audit=AuditLog(audit),
        transport=transport,
    )


@dataclass
class Elicitor:
    """An elicitation callback that answers as told and records the questions."""

    action: str = "accept"
    content: dict[str, Any] | None = field(default_factory=lambda: {"confirm": True})
    hang: bool = False
    questions: list[str] = field(default_factory=list)

    async def __call__(
        self, context: ClientRequestContext, params: types.ElicitRequestParams
    ) -> types.ElicitResult | types.ErrorData:
        self.questions.append(getattr(params, "message", ""))
        if self.hang:
            await anyio.sleep_forever()
        return types.ElicitResult(action=self.action, content=self.content)  # type: ignore[arg-type]


@contextlib.asynccontextmanager
async def connected(
    app: App, *, mode: str = "auto", elicitor: Elicitor | None = None
) -> AsyncIterator[Client]:
    server = build_server(app)
    with anyio.fail_after(WAIT):
        async with Client(server, mode=mode, elicitation_callback=elicitor) as client:
            yield client


def error_of(result: types.CallToolResult) -> dict[str, Any]:
    assert result.is_error, f"expected an error, got {result.structured_content}"
    assert result.structured_content is not None
    error = result.structured_content["error"]
    assert isinstance(error, dict)
    return error


def data_of(result: types.CallToolResult) -> dict[str, Any]:
    assert not result.is_error, f"expected success, got {result.structured_content}"
    assert result.structured_content is not None
    text = result.content[0]
    assert isinstance(text, types.TextContent)
    data: dict[str, Any] = result.structured_content
    # the text block is the summary, the same JSON, then any large payload (a UI tree) once
    assert json.loads(text.text.split("\n", 2)[1]) == data
    return data


def payload_text(result: types.CallToolResult) -> str:
    """The large payload (a UI tree, log lines, stacks, shell output), sent once, raw, after
    the JSON line of the text block and nowhere else; "" when the result has none."""
    data = data_of(result)
    text = result.content[0].text  # type: ignore[union-attr]
    parts = text.split("\n", 2)
    payload = parts[2] if len(parts) == 3 else ""
    packed = json.dumps(data, ensure_ascii=False)
    assert not any(len(line) > 8 and line in packed for line in payload.splitlines())
    return payload


def payload_of(result: types.CallToolResult) -> list[str]:
    """The payload's lines (see payload_text)."""
    return payload_text(result).splitlines()


@pytest.fixture
def device_client(sim_device: SimulatedDevice, adb_key: AdbKey) -> Iterator[AdbClient]:
    """A blocking client connected to the simulated device (which trusts `adb_key`)."""
    with AdbClient.connect_tcp(sim_device.serial, [adb_key]) as client:
        yield client


def rows_of(result: types.CallToolResult) -> list[dict[str, Any]]:
    """The records a tool sends once as a table after the JSON line (mcp/results/rows.py)."""
    lines = payload_of(result)
    if not lines:
        return []
    assert lines[0].startswith("columns: ")
    columns = lines[0].removeprefix("columns: ").split()
    return [dict(zip(columns, json.loads(line), strict=True)) for line in lines[1:]]


REPO = Path(__file__).resolve().parents[2]


def run_script(script: str) -> str:
    """Run `script` in a fresh Python process from the repository (nothing imported yet)
    and return its stdout; a failure shows the end of its stderr."""
    done = subprocess.run(
        [sys.executable, "-c", script],
        capture_output=True,
        text=True,
        timeout=120,
        cwd=REPO,
        check=False,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    return done.stdout
