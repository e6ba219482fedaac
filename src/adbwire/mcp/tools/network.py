"""What network the device is on; every field the device does not say is null."""

from __future__ import annotations

from adbwire.device import network as ops
from adbwire.mcp.registry import ToolOutput, tool
from adbwire.mcp.runtime import ToolCall
from adbwire.mcp.safety.policy import Risk
from adbwire.mcp.tools.common import DeviceArgs, Result

MAX_INTERFACES = 32


class Network(Result):
    airplane_mode: bool | None = None
    wifi_enabled: bool | None = None
    wifi_connected: bool | None = None
    ssid: str | None = None
    transport: str | None = None
    validated: bool | None = None
    captive_portal: bool | None = None
    interface: str | None = None
    gateway: str | None = None
    addresses: dict[str, list[str]]


@tool(
    name="network_info",
    title="Network state",
    risk=Risk.READ,
    input=DeviceArgs,
    output=Network,
    example={},
    full_only=True,
)
async def network_info(call: ToolCall, args: DeviceArgs) -> ToolOutput:
    """Wi-Fi, SSID, default network (validated, captive portal), route, IPs, airplane mode;
    null is unknown."""
    found = await call.run(ops.network_info, call.client)
    default = found.default_network
    route = found.route
    data = Network(
        airplane_mode=found.airplane_mode,
        wifi_enabled=found.wifi.enabled,
        wifi_connected=found.wifi.connected,
        ssid=found.wifi.ssid,
        transport=default.transport if default else None,
        validated=default.validated if default else None,
        captive_portal=default.captive_portal if default else None,
        interface=route.interface if route else None,
        gateway=route.gateway if route else None,
        addresses={
            i.name: list(i.addresses)
            for i in found.interfaces[:MAX_INTERFACES]
            if i.up and i.addresses and i.name != "lo"
        },
    )
    if default is not None and default.network_id is None:
        summary = "no default network"
    else:
        state = {True: "validated", False: "not validated", None: "validation unknown"}
        portal = " (captive portal)" if data.captive_portal else ""
        summary = f"{data.transport or 'unknown network'}, {state[data.validated]}{portal}"
    return ToolOutput(summary, data)


TOOLS = [network_info]
