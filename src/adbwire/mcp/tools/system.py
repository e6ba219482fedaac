"""System tools: reboot, battery, airplane mode, screen."""

from __future__ import annotations

import ipaddress
from typing import Literal

from adbwire.device import info as info_ops
from adbwire.device import system as ops
from adbwire.device.errors import RefusedError
from adbwire.errors import UsageError
from adbwire.mcp.registry import ToolOutput, tool
from adbwire.mcp.results.envelope import ErrorCode, ToolFailure
from adbwire.mcp.runtime import ToolCall
from adbwire.mcp.safety.policy import Risk
from adbwire.mcp.tools.common import DeviceArgs, Result, on
from adbwire.wire.transport import Transport, parse_tcp_address


class RebootArgs(DeviceArgs):
    mode: Literal["system", "bootloader", "recovery", "sideload", "fastboot"] = "system"


class Rebooting(Result):
    mode: str


class Battery(Result):
    percent: float | None = None
    status: str
    health: str
    plugged: str
    temperature_c: float | None = None
    voltage_mv: int | None = None
    simulated: bool


class AirplaneArgs(DeviceArgs):
    enabled: bool


class Airplane(Result):
    enabled: bool
    changed: bool


class Screen(Result):
    awake: bool | None = None
    display_on: bool | None = None
    locked: bool | None = None
    orientation: str | None = None


class WakeArgs(DeviceArgs):
    dismiss_keyguard: bool = False


@tool(
    name="reboot",
    title="Reboot the device",
    risk=Risk.DESTRUCTIVE,
    input=RebootArgs,
    output=Rebooting,
    example={"mode": "system"},
    idempotent=False,
    describe=lambda args: f"reboot the device into {args.mode}",
)
async def reboot(call: ToolCall, args: RebootArgs) -> ToolOutput:
    """Reboot into system, bootloader or recovery (asks the user first)."""
    await call.run(ops.reboot, call.client, args.mode)
    return ToolOutput(f"rebooting{on(call.serial)} into {args.mode}", Rebooting(mode=args.mode))


@tool(
    name="battery_status",
    title="Battery status",
    risk=Risk.READ,
    input=DeviceArgs,
    output=Battery,
    example={},
)
async def battery_status(call: ToolCall, args: DeviceArgs) -> ToolOutput:
    """Charge, charging state, health, power source, temperature."""
    found = await call.run(info_ops.read_battery, call.client)
    if found is None:
        raise ToolFailure(ErrorCode.UNSUPPORTED, "this device reports no battery")
    data = Battery(
        percent=found.percent,
        status=found.status,
        health=found.health,
        plugged=found.plugged,
        temperature_c=found.temperature_c,
        voltage_mv=found.voltage_mv,
        simulated=found.updates_stopped,
    )
    return ToolOutput(f"battery {found.percent}% {found.status}", data)


def _over_the_network(transport: Transport) -> bool:
    """A TCP link to a non-loopback host (an emulator or a forwarded port is loopback)."""
    if transport.kind != "tcp":
        return False  # USB, a replay: not a network link
    try:
        host, _ = parse_tcp_address(transport.address)
    except UsageError:
        return True
    if host == "localhost":
        return False
    try:
        return not ipaddress.ip_address(host).is_loopback
    except ValueError:
        return True  # a host name: assume the network


@tool(
    name="set_airplane_mode",
    title="Set airplane mode",
    risk=Risk.ACTION,
    input=AirplaneArgs,
    output=Airplane,
    example={"enabled": True},
)
async def set_airplane_mode(call: ToolCall, args: AirplaneArgs) -> ToolOutput:
    """Switch airplane mode and wait until the device's setting reads back, or fail."""
    if args.enabled and _over_the_network(call.client.transport):
        raise RefusedError(
            f"refusing airplane mode on {call.serial}: it is reached over the network, and "
            "airplane mode turns Wi-Fi off, so no later call could undo it"
        )
    changed = await call.run(ops.set_airplane_mode, call.client, args.enabled)
    state = "on" if args.enabled else "off"
    data = Airplane(enabled=args.enabled, changed=changed)
    return ToolOutput(f"airplane mode {state}{'' if changed else ' (already)'}", data)


@tool(
    name="screen_state",
    title="Screen state",
    risk=Risk.READ,
    input=DeviceArgs,
    output=Screen,
    example={},
)
async def screen_state(call: ToolCall, args: DeviceArgs) -> ToolOutput:
    """Whether the device is awake, the display on, the keyguard up; the orientation."""
    state = await call.run(ops.screen_state, call.client)
    data = Screen(awake=state.awake, display_on=state.display_on, locked=state.locked,
                  orientation=state.orientation)  # fmt: skip
    return ToolOutput(f"awake={state.awake} locked={state.locked}", data)


@tool(
    name="wake_screen",
    title="Wake the screen",
    risk=Risk.ACTION,
    input=WakeArgs,
    output=Screen,
    example={"dismiss_keyguard": True},
)
async def wake_screen(call: ToolCall, args: WakeArgs) -> ToolOutput:
    """Wake the device (optionally dismiss a lock screen without PIN)."""
    state = await call.run(ops.wake_screen, call.client, dismiss_keyguard=args.dismiss_keyguard)
    data = Screen(awake=state.awake, display_on=state.display_on, locked=state.locked)
    return ToolOutput(f"awake={state.awake} locked={state.locked}", data)


TOOLS = [reboot, battery_status, set_airplane_mode, screen_state, wake_screen]
