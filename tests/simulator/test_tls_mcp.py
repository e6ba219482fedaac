"""MCP's connect_device reaches a wireless-debugging device over TLS like any other."""

from __future__ import annotations

from collections.abc import Callable

from adbwire.mcp.devices import DeviceRegistry
from adbwire.mcp.safety.audit import AuditLog
from adbwire.mcp.safety.policy import Policy
from adbwire.mcp.server.app import App
from adbwire.testing import DeviceOptions, SimulatedDevice
from adbwire.wire.keys import AdbKey
from tests.mcp.harness import connected, data_of, error_of

DeviceFactory = Callable[..., SimulatedDevice]


def app_with_keys(*keys: AdbKey) -> App:
    return App(
        policy=Policy(profile="full"),
        devices=DeviceRegistry(lambda: list(keys)),
        audit=AuditLog(None),
        transport="memory",
    )


def wireless(factory: DeviceFactory, trusted: AdbKey) -> SimulatedDevice:
    key_text = trusted.public_key_bytes().rstrip(b"\0").decode()
    return factory(DeviceOptions(tls=True, authorized_keys=(key_text,)))


async def test_connect_device_over_tls(sim_device_factory: DeviceFactory, adb_key: AdbKey) -> None:
    device = wireless(sim_device_factory, adb_key)
    app = app_with_keys(adb_key)
    host, port = device.serial.split(":")
    async with connected(app) as client:
        added = data_of(await client.call_tool("connect_device", {"host": host, "port": int(port)}))
        assert (added["serial"], added["state"]) == (device.serial, "device")
        info = data_of(await client.call_tool("device_info", {}))
        assert info["model"] == "sdk_gphone64_x86_64"
    app.close()


async def test_connect_device_with_an_unknown_key_says_pair_first(
    sim_device_factory: DeviceFactory, adb_key: AdbKey, other_key: AdbKey
) -> None:
    device = wireless(sim_device_factory, adb_key)
    app = app_with_keys(other_key)
    host, port = device.serial.split(":")
    async with connected(app) as client:
        error = error_of(
            await client.call_tool("connect_device", {"host": host, "port": int(port)})
        )
        assert "adbwire pair" in error["message"]
    app.close()
