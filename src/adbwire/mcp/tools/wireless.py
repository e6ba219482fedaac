"""Wireless debugging for agents: pair_device, and the discovery list_devices shows.

`pair_device` pairs with a phone's "Pair device with pairing code" port (HOST:PORT, or the
`_adb-tls-pairing._tcp` mDNS instance name `list_devices` shows) using the 6-digit code. The
code is a secret: it is redacted in the audit log, never echoed in a result or an error.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Annotated, Final

import anyio.to_thread
from pydantic import AfterValidator, Field

from adbwire.errors import ConnectFailedError, TransportError
from adbwire.mcp.registry import ToolOutput, tool
from adbwire.mcp.results.envelope import ErrorCode, NextAction, ToolFailure
from adbwire.mcp.runtime import ToolCall
from adbwire.mcp.safety.policy import Risk
from adbwire.mcp.tools.common import Args, Result
from adbwire.wire.keys import AdbKey
from adbwire.wire.mdns.names import (
    CONNECT_SERVICE,
    LEGACY_SERVICE,
    PAIRING_SERVICE,
    MdnsService,
    split_service_suffix,
)

if TYPE_CHECKING:  # zeroconf and OpenSSL load on a browse or a pairing, not with the server
    from adbwire.wire.pairing.client import PairingResult

_CODE: Final = re.compile(r"[0-9]{6}")
_SERVICE_KINDS: Final = {
    CONNECT_SERVICE: "connect",
    PAIRING_SERVICE: "pairing",
    LEGACY_SERVICE: "tcp",
}


def _code(value: str) -> str:
    if not _CODE.fullmatch(value):
        # Never quote the value: it is a secret, and a near miss is almost the code.
        raise ValueError("the pairing code is the 6 digits the phone shows")
    return value


def _address(value: str) -> str:
    if not value or any(c.isspace() or not c.isprintable() for c in value):
        raise ValueError("give HOST:PORT or an mDNS instance name")
    return value


class PairArgs(Args):
    address: Annotated[str, AfterValidator(_address), Field(max_length=300)] = Field(
        description="HOST:PORT under 'Pair device with pairing code', or a discovered pairing name"
    )
    code: Annotated[str, AfterValidator(_code)] = Field(
        description="the 6-digit code (secret, never logged)"
    )


class Paired(Result):
    address: str
    guid: str = Field(description="also its mDNS connect name")


class DiscoveredDevice(Result):
    """A wireless-debugging service advertised on the local network: found, not connected."""

    name: str = Field(description="mDNS instance name")
    service: str = Field(description="connect or tcp: connect_device; pairing: pair_device")
    host: str
    port: int
    model: str | None = None
    state: str = "discovered"


def discover_devices(seconds: float) -> list[DiscoveredDevice]:
    """What a bounded mDNS browse finds; nothing when it is off or mDNS is unusable."""
    if seconds <= 0:
        return []
    from adbwire.wire.mdns.browser import browse, mdns_disabled  # noqa: PLC0415 - see top

    if mdns_disabled():
        return []
    try:
        found = browse(duration=seconds).services
    except TransportError:
        return []
    return [_discovered(service) for service in found]


def _discovered(service: MdnsService) -> DiscoveredDevice:
    return DiscoveredDevice(
        name=service.instance,
        service=_SERVICE_KINDS.get(service.service_type, service.service_type),
        host=service.addresses[0],
        port=service.port,
        model=service.txt.get("name") or None,
    )


def _host_key(call: ToolCall) -> AdbKey:
    for key in call.app.devices.keys():  # noqa: SIM118 - a method, not a dict
        if isinstance(key, AdbKey):
            return key
    raise ToolFailure(ErrorCode.HOST_SETUP, "this server has no adb key file to pair")


def _pair(args: PairArgs, key: AdbKey, timeout: float) -> PairingResult:
    from adbwire.wire.mdns.browser import resolve_instance  # noqa: PLC0415 - see top
    from adbwire.wire.pairing.client import pair, parse_pairing_address  # noqa: PLC0415

    address = args.address
    instance, service_type = split_service_suffix(address)
    if ":" not in address and (service_type is not None or "." not in instance):
        address = resolve_instance(instance, [PAIRING_SERVICE], timeout=timeout).address
    else:
        parse_pairing_address(address)
    return pair(address, args.code, key, timeout=timeout)


@tool(
    name="pair_device",
    title="Pair a wireless-debugging device",
    risk=Risk.ACTION,
    input=PairArgs,
    output=Paired,
    example={"address": "192.168.1.23:37123", "code": "482913"},
    needs_device=False,
    idempotent=False,
    secret_args=("code",),
)
async def pair_device(call: ToolCall, args: PairArgs) -> ToolOutput:
    """Pair a phone (Wireless debugging → Pair device with pairing code) so it trusts this
    server's key; then connect_device to its Wireless debugging port."""
    key = _host_key(call)
    timeout = call.app.devices.timeouts.connect
    try:
        result = await anyio.to_thread.run_sync(lambda: _pair(args, key, timeout))
    except ConnectFailedError as unreachable:
        raise ToolFailure(
            ErrorCode.DEVICE_UNREACHABLE,
            str(unreachable),
            next_action=NextAction.ASK_OPERATOR,  # only the phone's screen has the address
        ) from None
    return ToolOutput(
        f"paired with {result.address} ({result.guid}); now connect_device to the address "
        "on the Wireless debugging screen",
        Paired(address=result.address, guid=result.guid),
    )


TOOLS = [pair_device]
