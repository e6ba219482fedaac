"""What network the device is on: interfaces, route, Wi-Fi, validation, airplane mode.

Read from several commands, each optional: ``ip addr``, ``ip route get`` (the route an
outgoing packet would take; nothing is sent), ``dumpsys connectivity`` (the default
network, validated or behind a captive portal), ``cmd wifi status`` (Android 11+; else the
``wifi_on`` setting) and the ``airplane_mode_on`` setting. A command a device lacks, or
output that says nothing recognisable, leaves its fields unknown (None) instead of failing
the whole answer.
"""

from __future__ import annotations

from dataclasses import dataclass

from adbwire.device import commands
from adbwire.device.parsers.network import (
    DefaultNetwork,
    Interface,
    Route,
    WifiStatus,
    parse_default_network,
    parse_ip_addr,
    parse_route,
    parse_wifi_status,
)
from adbwire.wire.client import AdbClient

ROUTE_PROBE = "8.8.8.8"
"""The address whose route stands for "the internet" (a lookup in the routing table only)."""


@dataclass(frozen=True)
class NetworkInfo:
    airplane_mode: bool | None
    wifi: WifiStatus
    default_network: DefaultNetwork | None
    route: Route | None
    interfaces: tuple[Interface, ...]


def network_info(client: AdbClient) -> NetworkInfo:
    interfaces = parse_ip_addr(_output(client, ["ip", "addr"]))
    route = parse_route(_output(client, ["ip", "route", "get", ROUTE_PROBE]))
    if route is None:
        route = parse_route(_default_line(_output(client, ["ip", "route"])))
    default = parse_default_network(_output(client, ["dumpsys", "connectivity"]))
    if route is None and default is not None and default.gateway is not None:
        # Android keeps its default routes in per-network tables `ip route` does not show;
        # the connectivity dump names the default network's own (when `ip route get` failed)
        route = Route(interface=default.interface, gateway=default.gateway, source=None)
    if not interfaces and default is not None and default.interface and default.addresses:
        interfaces = [Interface(default.interface, True, None, default.addresses)]
    wifi = parse_wifi_status(_output(client, ["cmd", "wifi", "status"]))
    if wifi is None or wifi.enabled is None:
        wifi_on = _setting(client, "wifi_on")  # 1 on, 2 on (kept on in airplane mode), 0 off
        enabled = None if wifi_on is None else wifi_on in ("1", "2")
        connected = wifi.connected if wifi else None
        if default is not None and default.transport == "WIFI":
            connected = True
        ssid = (wifi.ssid if wifi else None) or (default.ssid if default else None)
        wifi = WifiStatus(enabled=enabled, connected=connected, ssid=ssid)
    elif wifi.ssid is None and wifi.connected and default is not None and default.ssid:
        wifi = WifiStatus(enabled=wifi.enabled, connected=True, ssid=default.ssid)
    airplane = _setting(client, "airplane_mode_on")
    return NetworkInfo(
        airplane_mode=None if airplane is None else airplane == "1",
        wifi=wifi,
        default_network=default,
        route=route,
        interfaces=tuple(interfaces),
    )


def _output(client: AdbClient, argv: list[str]) -> str:
    """Stdout of a command, or "" when the device lacks it or it failed."""
    result = commands.run(client, argv)
    if result.exit_code not in (0, None):
        return ""
    return commands.decode(result.stdout)


def _default_line(text: str) -> str:
    return next((line for line in text.splitlines() if line.startswith("default")), "")


def _setting(client: AdbClient, name: str) -> str | None:
    value = _output(client, ["settings", "get", "global", name]).strip()
    return value if value and value != "null" else None
