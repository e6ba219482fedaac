"""The simulated phone's network: ``ip``, ``cmd wifi status``, ``dumpsys connectivity``.

The state comes from global settings, so the commands that change them (``svc wifi``,
``svc data``, ``cmd connectivity airplane-mode``, ``settings put``) change what these
print: Wi-Fi ``AndroidWifi`` (the emulator's) when ``wifi_on`` is 1 and airplane mode is
off (2 keeps it on in airplane mode), else mobile data (``mobile_data``, off in airplane
mode), else no network. ``adbwire_sim_captive_portal=1`` puts the Wi-Fi behind a captive
portal (not validated). Android 12+ print NetworkAgentInfo in the newer order; older
releases in the ``ni{[type: ...]}`` one.
"""

from __future__ import annotations

from dataclasses import dataclass

from adbwire.testing.userland.android.state import AndroidState
from adbwire.testing.userland.shell.interp import CommandFn, Invocation

SSID = "AndroidWifi"
# interface, MAC, address, gateway, network id
WIFI: tuple[str, str | None, str, str, int] = (
    "wlan0", "02:15:b2:00:00:00", "10.0.2.16/24", "10.0.2.2", 100,
)  # fmt: skip
CELL: tuple[str, str | None, str, str, int] = (
    "rmnet_data0", None, "10.176.33.5/30", "10.176.33.6", 101,
)  # fmt: skip
CAPTIVE_SETTING = "adbwire_sim_captive_portal"


@dataclass(frozen=True)
class SimNetwork:
    transport: str
    interface: str
    mac: str | None
    address: str
    gateway: str
    network_id: int
    validated: bool
    captive: bool


def current_networks(state: AndroidState) -> tuple[SimNetwork | None, list[SimNetwork]]:
    """(the default network, every connected network)."""
    table = state.settings.get("global", {})
    airplane = table.get("airplane_mode_on") == "1"
    wifi_on = table.get("wifi_on", "1")
    captive = table.get(CAPTIVE_SETTING) == "1"
    found: list[SimNetwork] = []
    if wifi_on == "2" or (wifi_on == "1" and not airplane):
        name, mac, address, gateway, number = WIFI
        found.append(SimNetwork("WIFI", name, mac, address, gateway, number, not captive, captive))
    if table.get("mobile_data", "1") != "0" and not airplane:
        name, mac, address, gateway, number = CELL
        found.append(SimNetwork("CELLULAR", name, mac, address, gateway, number, True, False))
    return (found[0] if found else None), found


def wifi_enabled(state: AndroidState) -> bool:
    table = state.settings.get("global", {})
    wifi_on = table.get("wifi_on", "1")
    return wifi_on == "2" or (wifi_on == "1" and table.get("airplane_mode_on") != "1")


def ip(inv: Invocation) -> int:
    args = [a for a in inv.args if a not in ("-4", "-6")]
    state = inv.device.state
    with state.lock:
        default, networks = current_networks(state)
    if args[:1] in (["a"], ["addr"], ["address"]):
        inv.out(_ip_addr(networks))
        return 0
    if args[:2] == ["route", "get"] and len(args) >= 3:
        if default is None:
            inv.err("RTNETLINK answers: Network is unreachable\n")
            return 2
        inv.out(
            f"{args[2]} via {default.gateway} dev {default.interface} table "
            f"{1000 + default.network_id} src {default.address.split('/')[0]} uid 2000 \n"
            "    cache \n"
        )
        return 0
    if args[:1] in (["r"], ["route"]):
        inv.out(
            "".join(
                f"{n.address.rsplit('.', 1)[0]}.0/{n.address.split('/')[1]} dev {n.interface} "
                f"proto kernel scope link src {n.address.split('/')[0]} \n"
                for n in networks
            )
        )
        return 0
    inv.err('Object "' + (args[0] if args else "") + '" is unknown, try "ip help".\n')
    return 1


def _ip_addr(networks: list[SimNetwork]) -> str:
    up = {n.interface for n in networks}
    lines = [
        "1: lo: <LOOPBACK,UP,LOWER_UP> mtu 65536 qdisc noqueue state UNKNOWN group default "
        "qlen 1000",
        "    link/loopback 00:00:00:00:00:00 brd 00:00:00:00:00:00",
        "    inet 127.0.0.1/8 scope host lo",
        "       valid_lft forever preferred_lft forever",
        "    inet6 ::1/128 scope host ",
        "       valid_lft forever preferred_lft forever",
    ]
    for number, (name, mac, address, _gateway, _id) in ((14, CELL), (23, WIFI)):
        on = name in up
        flags = "BROADCAST,MULTICAST,UP,LOWER_UP" if on else "BROADCAST,MULTICAST"
        state = "UP" if on else "DOWN"
        lines.append(
            f"{number}: {name}: <{flags}> mtu 1500 qdisc mq state {state} group default qlen 3000"
        )
        if mac:
            lines.append(f"    link/ether {mac} brd ff:ff:ff:ff:ff:ff")
        if on:
            lines += [
                f"    inet {address} scope global {name}",
                "       valid_lft forever preferred_lft forever",
            ]
    return "\n".join(lines) + "\n"


def wifi_status(inv: Invocation, args: list[str]) -> int:
    """``cmd wifi status`` (Android 11+; before, the wifi service had no such command)."""
    state = inv.device.state
    if args[:1] != ["status"] or state.sdk < 30:
        inv.err(f"Unknown command: {args[0] if args else ''}\n")
        return 255
    with state.lock:
        enabled = wifi_enabled(state)
        _default, networks = current_networks(state)
    wifi = next((n for n in networks if n.transport == "WIFI"), None)
    lines = ["Wifi is enabled" if enabled else "Wifi is disabled"]
    lines.append(
        "Wifi scanning is always available"
        if enabled
        else "Wifi scanning is only available when wifi is enabled"
    )
    if enabled:
        lines.append("==== Primary ClientModeManager instance ====")
        if wifi is None:
            lines.append("Wifi is not connected")
        else:
            lines += [
                f'Wifi is connected to "{SSID}"',
                f'WifiInfo: SSID: "{SSID}", BSSID: 00:13:10:85:fe:01, MAC: {wifi.mac}, IP: '
                f"/{wifi.address.split('/')[0]}, Security type: 2, Supplicant state: "
                "COMPLETED, Wi-Fi standard: 4, RSSI: -50, Link speed: 1Mbps, Frequency: "
                "2447MHz, Net ID: 0, Metered hint: false, score: 60",
            ]
    inv.out("\n".join(lines) + "\n")
    return 0


def dump_connectivity(state: AndroidState) -> str:
    default, networks = current_networks(state)
    lines = ["NetworkProviders for:", "  WifiNetworkFactory", "  TelephonyNetworkFactory", ""]
    lines.append(f"Active default network: {default.network_id if default else 'none'}")
    lines += ["", "Current Networks:"]
    for network in networks:
        lines.append("  " + (_agent(network) if state.sdk >= 31 else _old_agent(network)))
        lines += ["    Requests: REQUEST:2 LISTEN:9 BACKGROUND_REQUEST:0 total:11", "    Lingered:"]
    lines += ["", "Network Requests:", "  NetworkRequest [ REQUEST id=1, [ Capabilities: "
              "INTERNET&NOT_RESTRICTED&TRUSTED&NOT_VCN_MANAGED] ]", ""]  # fmt: skip
    return "\n".join(lines) + "\n"


def _capabilities(network: SimNetwork) -> str:
    flags = ["INTERNET", "NOT_RESTRICTED", "TRUSTED", "NOT_VPN"]
    if network.transport == "WIFI":
        flags.insert(0, "NOT_METERED")
    if network.validated:
        flags.append("VALIDATED")
    if network.captive:
        flags.append("CAPTIVE_PORTAL")
    return "&".join([*flags, "NOT_ROAMING", "FOREGROUND", "NOT_CONGESTED", "NOT_SUSPENDED"])


def _handle(network: SimNetwork) -> int:
    return 432902426637 + network.network_id * 4294967296


def _agent(network: SimNetwork) -> str:
    ssid = f' SSID: "{SSID}"' if network.transport == "WIFI" else ""
    validated = " everValidated lastValidated" if network.validated else ""
    return (
        f"NetworkAgentInfo{{network{{{network.network_id}}}  handle{{{_handle(network)}}}  "
        f"ni{{{network.transport} CONNECTED extra: }}  created{validated}  lp{{{{InterfaceName: "
        f"{network.interface} LinkAddresses: [ {network.address} ] MTU: 1500 Routes: [ "
        f"0.0.0.0/0 -> {network.gateway} {network.interface} ]}}}}  nc{{[ Transports: "
        f"{network.transport} Capabilities: {_capabilities(network)} LinkUpBandwidth>=30000Kbps "
        f"LinkDnBandwidth>=30000Kbps SignalStrength: -50{ssid} UnderlyingNetworks: Null]}}  "
        "factorySerialNumber=2}"
    )


def _old_agent(network: SimNetwork) -> str:
    extra = f'"{SSID}"' if network.transport == "WIFI" else "internet"
    valid = str(network.validated).lower()
    captive = str(network.captive).lower()
    return (
        f"NetworkAgentInfo{{ ni{{[type: {network.transport}[], state: CONNECTED/CONNECTED, "
        f"reason: (unspecified), extra: {extra}, failover: false, available: true, roaming: "
        f"false]}}  network{{{network.network_id}}}  nethandle{{{_handle(network)}}}  "
        f"lp{{{{InterfaceName: {network.interface} LinkAddresses: [{network.address},] }}}}  "
        f"nc{{[ Transports: {network.transport} Capabilities: {_capabilities(network)} "
        f"LinkUpBandwidth>=1048576Kbps LinkDnBandwidth>=1048576Kbps]}}  Score{{60}}  "
        f"everValidated{{{valid}}}  lastValidated{{{valid}}}  created{{true}} lingering{{false}} "
        f"explicitlySelected{{false}} acceptUnvalidated{{false}} everCaptivePortalDetected"
        f"{{{captive}}} lastCaptivePortalDetected{{{captive}}} }}"
    )


COMMANDS: dict[str, CommandFn] = {"ip": ip}
