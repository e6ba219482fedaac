"""Network state: ``ip addr``, ``ip route get``, ``dumpsys connectivity``, ``cmd wifi status``.

Each parser reads only what it recognises and leaves the rest ``None`` (unknown): these
dumps change from release to release, and "unknown" is better than a wrong guess.
The connectivity dump is read for the default network only: ``Active default network: N``
(``none`` when there is none), then that network's ``NetworkAgentInfo{...}`` line, whose
capabilities say VALIDATED, CAPTIVE_PORTAL or PARTIAL_CONNECTIVITY (Android 6-14 print
them as one ``&``-joined list after ``Capabilities:``).

Checked on real output: an Android 9 NetworkAgentInfo line, a Samsung phone's Android 13+
``dumpsys connectivity`` and ``cmd wifi status``, phones' ``ip link`` / ``ip addr`` lines;
``ip route get`` is read as iproute2 prints it (no real capture found).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from adbwire.device.parsers._text import lines_of

_LINK = re.compile(r"^\d+:\s+([^:@\s]+)(?:@[^:\s]*)?:\s+<([^>]*)>(.*)$")
_ADDRESS = re.compile(r"^\s+(inet6?)\s+([0-9A-Fa-f.:]+(?:/\d+)?)\b(.*)$")
_MAC = re.compile(r"^\s+link/ether\s+([0-9a-f:]{17})\b")
_STATE = re.compile(r"\bstate\s+(\w+)")
_VIA = re.compile(r"\bvia\s+([0-9A-Fa-f.:]+)")
_DEV = re.compile(r"\bdev\s+(\S+)")
_SRC = re.compile(r"\bsrc\s+([0-9A-Fa-f.:]+)")
_DEFAULT = re.compile(r"^\s*Active default network:\s*(\S+)", re.MULTILINE)
_NETWORK_ID = re.compile(r"\bnetwork\{(\d+)\}")
_TRANSPORTS = re.compile(r"Transports:\s*([A-Z_|]+)")
_CAPABILITIES = re.compile(r"Capabilities:\s*([A-Z_&]+)")
_OLD_TYPE = re.compile(r"\btype:\s*([A-Z_]+)")
_SSID = re.compile(r'\bSSID:\s*"((?:[^"\\]|\\.){0,64})"')
_OLD_EXTRA_SSID = re.compile(
    r'\bextra:\s*"((?:[^"\\]|\\.){0,64})"'
)  # Android 6-11: ni{[... extra: "SSID"
_LP_INTERFACE = re.compile(r"\bInterfaceName:\s*([\w.@-]{1,32})")
_LP_ADDRESSES = re.compile(r"\bLinkAddresses:\s*\[([^\]]{0,2000})\]")
_LP_DEFAULT_ROUTE = re.compile(r"\b0\.0\.0\.0/0 -> ([0-9A-Fa-f.:]{1,45}) ([\w.@-]{1,32})")
_WIFI_CONNECTED_TO = re.compile(r'^Wifi is connected to "((?:[^"\\]|\\.){0,64})"', re.MULTILINE)


@dataclass(frozen=True)
class Interface:
    name: str
    up: bool
    mac: str | None
    addresses: tuple[str, ...]
    """``10.0.2.16/24``, ``fe80::1/64``: every inet and inet6 address, in dump order."""


@dataclass(frozen=True)
class Route:
    interface: str | None
    gateway: str | None
    source: str | None


@dataclass(frozen=True)
class DefaultNetwork:
    network_id: int | None
    """None: the dump says there is no default network (``none``)."""
    transport: str | None
    """WIFI, CELLULAR, ETHERNET, VPN, BLUETOOTH..."""
    validated: bool | None
    captive_portal: bool | None
    partial_connectivity: bool | None
    ssid: str | None
    interface: str | None = None
    """From the agent's link properties (``InterfaceName:``)."""
    gateway: str | None = None
    """The IPv4 default route's next hop in the link properties (``0.0.0.0/0 -> GW``)."""
    addresses: tuple[str, ...] = ()


@dataclass(frozen=True)
class WifiStatus:
    enabled: bool | None
    connected: bool | None
    ssid: str | None


def parse_ip_addr(text: str) -> list[Interface]:
    """Interfaces of ``ip addr`` (iproute2 and toybox print the same layout)."""
    found: list[Interface] = []
    current: dict[str, object] | None = None
    for line in lines_of(text):
        link = _LINK.match(line)
        if link is not None:
            if current is not None:
                found.append(_interface(current))
            flags = link.group(2).split(",")
            state = _STATE.search(link.group(3))
            up = "UP" in flags and (state is None or state.group(1) in ("UP", "UNKNOWN"))
            current = {"name": link.group(1), "up": up, "mac": None, "addresses": []}
            continue
        if current is None:
            continue
        mac = _MAC.match(line)
        if mac is not None:
            current["mac"] = mac.group(1)
            continue
        address = _ADDRESS.match(line)
        if address is not None:
            addresses = current["addresses"]
            assert isinstance(addresses, list)
            addresses.append(address.group(2))
    if current is not None:
        found.append(_interface(current))
    return found


def _interface(raw: dict[str, object]) -> Interface:
    addresses = raw["addresses"]
    mac = raw["mac"]
    assert isinstance(addresses, list)
    return Interface(
        name=str(raw["name"]),
        up=bool(raw["up"]),
        mac=mac if isinstance(mac, str) else None,
        addresses=tuple(str(a) for a in addresses),
    )


def parse_route(text: str) -> Route | None:
    """The route of ``ip route get ADDRESS`` (or a ``default via ...`` line of ``ip route``);
    None when there is none (``Network is unreachable``)."""
    for line in lines_of(text):
        stripped = line.strip()
        if not stripped or "unreachable" in stripped.lower() or stripped.startswith("RTNETLINK"):
            continue
        if stripped.startswith("default") or _DEV.search(stripped):
            via, dev, src = _VIA.search(stripped), _DEV.search(stripped), _SRC.search(stripped)
            return Route(
                interface=dev.group(1) if dev else None,
                gateway=via.group(1) if via else None,
                source=src.group(1) if src else None,
            )
    return None


def parse_default_network(text: str) -> DefaultNetwork | None:
    """The default network in ``dumpsys connectivity``; None when the dump does not say."""
    active = _DEFAULT.search(text)
    if active is None:
        return None
    if not active.group(1).isdigit():
        return DefaultNetwork(None, None, False, None, None, None)
    network_id = int(active.group(1))
    agent = next(
        (
            line
            for line in lines_of(text)
            if "NetworkAgentInfo{" in line
            and (found := _NETWORK_ID.search(line)) is not None
            and int(found.group(1)) == network_id
        ),
        None,
    )
    if agent is None:
        return DefaultNetwork(network_id, None, None, None, None, None)
    transports = _TRANSPORTS.search(agent)
    old_type = _OLD_TYPE.search(agent)
    transport = transports.group(1).split("|")[0] if transports else None
    if transport is None and old_type is not None:
        transport = old_type.group(1)
    capabilities = _CAPABILITIES.search(agent)
    flags = set(capabilities.group(1).split("&")) if capabilities else None
    ssid = _SSID.search(agent) or (_OLD_EXTRA_SSID.search(agent) if transport == "WIFI" else None)
    captive = None if flags is None else "CAPTIVE_PORTAL" in flags
    if "lastCaptivePortalDetected{true}" in agent:
        captive = True
    interface = _LP_INTERFACE.search(agent)
    addresses = _LP_ADDRESSES.search(agent)
    route = _LP_DEFAULT_ROUTE.search(agent)
    return DefaultNetwork(
        network_id=network_id,
        transport=transport,
        validated=None if flags is None else "VALIDATED" in flags,
        captive_portal=captive,
        partial_connectivity=None if flags is None else "PARTIAL_CONNECTIVITY" in flags,
        ssid=_unquote(ssid.group(1)) if ssid else None,
        interface=interface.group(1) if interface else None,
        gateway=route.group(1) if route else None,
        addresses=tuple(
            a.strip() for a in (addresses.group(1) if addresses else "").split(",") if a.strip()
        ),
    )


def parse_wifi_status(text: str) -> WifiStatus | None:
    """``cmd wifi status`` (Android 11+); None when the device does not know the command."""
    lines = [line.strip() for line in lines_of(text) if line.strip()]
    if not lines or not any(line.startswith("Wifi is ") for line in lines):
        return None
    enabled: bool | None = None
    if "Wifi is enabled" in lines:
        enabled = True
    elif "Wifi is disabled" in lines:
        enabled = False
    connected_to = _WIFI_CONNECTED_TO.search(text)
    connected: bool | None = None
    if connected_to is not None:
        connected = True
    elif "Wifi is not connected" in lines or enabled is False:
        connected = False
    ssid = None
    if connected_to is not None:
        ssid = _unquote(connected_to.group(1))
    elif connected:
        info = _SSID.search(text)
        ssid = _unquote(info.group(1)) if info else None
    return WifiStatus(enabled=enabled, connected=connected, ssid=ssid)


def _unquote(text: str) -> str | None:
    value = re.sub(r"\\(.)", r"\1", text)
    return None if value in ("", "<unknown ssid>") else value
