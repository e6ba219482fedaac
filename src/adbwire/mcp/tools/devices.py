"""Device tools: list, connect, disconnect, select, describe."""

from __future__ import annotations

import re
from typing import Annotated

import anyio.to_thread
from pydantic import AfterValidator, Field

from adbwire.device import info as device_info_ops
from adbwire.errors import UsageError
from adbwire.mcp.registry import ToolOutput, tool
from adbwire.mcp.results.envelope import ErrorCode, ToolFailure
from adbwire.mcp.runtime import ToolCall
from adbwire.mcp.safety.policy import Risk
from adbwire.mcp.tools.common import Args, DeviceArgs, Result, Serial
from adbwire.mcp.tools.wireless import DiscoveredDevice, discover_devices

DEFAULT_DISCOVER_SECONDS = 1.0
SETTLE_SECONDS = 3.0
"""How long a listing waits for connections under way (a simulated device at start-up)."""

_HOST = re.compile(r"^(?:[A-Za-z0-9](?:[A-Za-z0-9.\-]{0,251}[A-Za-z0-9])?|\[?[0-9A-Fa-f:.]+\]?)$")


def _host(value: str) -> str:
    if not _HOST.fullmatch(value):
        raise UsageError(f"invalid host {value[:80]!r}: give a hostname or an IP address")
    return value.strip("[]")


class Device(Result):
    serial: str
    kind: str
    state: str
    model: str | None = None
    error: str | None = None
    selected: bool = False


class DeviceList(Result):
    devices: list[Device]


class DeviceListing(DeviceList):
    discovered: list[DiscoveredDevice] | None = Field(
        default=None, description="advertised by mDNS: found, not connected"
    )


class ListArgs(Args):
    discover_seconds: float = Field(
        default=DEFAULT_DISCOVER_SECONDS,
        ge=0,
        le=5,
        description="seconds to look for wireless devices by mDNS (0: none)",
    )


class ConnectArgs(Args):
    host: Annotated[str, AfterValidator(_host), Field(max_length=253)]
    port: int = Field(default=5555, ge=1, le=65535)


class SelectArgs(Args):
    serial: Serial | None = Field(description="device to use by default; null clears it")


class SerialArgs(Args):
    serial: Serial


def _devices(call: ToolCall) -> list[Device]:
    selected = call.app.defaults.get(call.session)
    return [
        Device(**record.__dict__, selected=record.serial == selected)
        for record in call.app.devices.records()
    ]


@tool(
    name="list_devices",
    title="List devices",
    risk=Risk.READ,
    input=ListArgs,
    output=DeviceListing,
    example={},
    needs_device=False,
)
async def list_devices(call: ToolCall, args: ListArgs) -> ToolOutput:
    """Devices this server knows, their state, which one this session selected, and
    wireless-debugging devices discovered by mDNS (pair_device, connect_device)."""
    await anyio.to_thread.run_sync(call.app.devices.refresh)
    discovered = await anyio.to_thread.run_sync(discover_devices, args.discover_seconds)
    await anyio.to_thread.run_sync(call.app.devices.settle, SETTLE_SECONDS)
    devices = _devices(call)
    online = sum(d.state == "device" for d in devices)
    summary = f"{len(devices)} device(s), {online} online"
    if discovered:
        summary += f", {len(discovered)} wireless-debugging service(s) discovered by mDNS"
    return ToolOutput(summary, DeviceListing(devices=devices, discovered=discovered or None))


@tool(
    name="connect_device",
    title="Connect a TCP device",
    risk=Risk.ACTION,
    input=ConnectArgs,
    output=Device,
    example={"host": "192.168.1.20", "port": 5555},
    needs_device=False,
)
async def connect_device(call: ToolCall, args: ConnectArgs) -> ToolOutput:
    """Connect a device over TCP (adb tcpip, emulator, device farm)."""
    host = f"[{args.host}]" if ":" in args.host else args.host
    serial = call.app.devices.add_tcp(f"{host}:{args.port}")
    call.check_device_policy(serial)
    await call.connect(serial)
    record = next(d for d in _devices(call) if d.serial == serial)
    return ToolOutput(f"connected to {serial} ({record.model or 'unknown model'})", record)


@tool(
    name="disconnect_device",
    title="Disconnect a device",
    risk=Risk.ACTION,
    input=SerialArgs,
    output=DeviceList,
    example={"serial": "192.168.1.20:5555"},
    needs_device=False,
)
async def disconnect_device(call: ToolCall, args: SerialArgs) -> ToolOutput:
    """Close the connection to a device and forget it."""
    if not call.app.devices.remove(args.serial):
        raise ToolFailure(ErrorCode.DEVICE_NOT_FOUND, f"no device {args.serial!r}")
    call.app.defaults.forget_serial(args.serial)
    return ToolOutput(f"disconnected {args.serial}", DeviceList(devices=_devices(call)))


@tool(
    name="select_device",
    title="Select the session's device",
    risk=Risk.ACTION,
    input=SelectArgs,
    output=DeviceList,
    example={"serial": "emulator-5554"},
    needs_device=False,
)
async def select_device(call: ToolCall, args: SelectArgs) -> ToolOutput:
    """Set this session's default device (other sessions keep their own)."""
    token = call.session
    if token is None:
        raise ToolFailure(
            ErrorCode.NO_SESSION,
            "this connection is stateless (no session to remember a default): pass serial "
            "on each call instead",
        )
    if args.serial is not None:
        await call.target(args.serial)
    call.app.defaults.set(token, args.serial)
    summary = f"selected {args.serial}" if args.serial else "cleared the default device"
    return ToolOutput(summary, DeviceList(devices=_devices(call)))


class DeviceInfo(Result):
    serial: str
    model: str | None = None
    manufacturer: str | None = None
    android_version: str | None = None
    sdk: int | None = None
    abis: list[str]
    screen: str | None = None
    density: int | None = None
    battery_percent: float | None = None
    battery_status: str | None = None
    is_emulator: bool
    features: list[str]
    orientation: str | None = None


@tool(
    name="device_info",
    title="Device information",
    risk=Risk.READ,
    input=DeviceArgs,
    output=DeviceInfo,
    example={"serial": "emulator-5554"},
)
async def device_info(call: ToolCall, args: DeviceArgs) -> ToolOutput:
    """Model, Android version, SDK, ABIs, screen, battery, emulator or not."""
    found = await call.run(device_info_ops.device_info, call.client)
    screen = f"{found.screen_width}x{found.screen_height}" if found.screen_width else None
    data = DeviceInfo(
        serial=call.serial or found.serial,
        model=found.model,
        manufacturer=found.manufacturer,
        android_version=found.android_version,
        sdk=found.sdk,
        abis=list(found.abis),
        screen=screen,
        density=found.density,
        battery_percent=found.battery_percent,
        battery_status=found.battery_status,
        orientation=found.orientation,
        is_emulator=found.is_emulator,
        features=list(found.features),
    )
    summary = (
        f"{found.manufacturer or ''} {found.model or 'device'}, Android {found.android_version}"
    )
    return ToolOutput(summary.strip(), data)


TOOLS = [list_devices, connect_device, disconnect_device, select_device, device_info]
