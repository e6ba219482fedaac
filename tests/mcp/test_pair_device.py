"""MCP wireless debugging: pair_device (success, wrong code, the code never logged or echoed),
connect_device's 'pair first' answer pointing at pair_device, and list_devices showing
devices discovered by mDNS (inside a private network namespace, tests/wire/mdns/namespace.py).
"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import anyio
import pytest

from adbwire.mcp.devices import DeviceRegistry
from adbwire.mcp.safety.audit import AuditLog
from adbwire.mcp.safety.policy import Policy
from adbwire.mcp.server.app import App
from adbwire.testing import DeviceOptions, SimulatedDevice
from adbwire.testing.mdns_advertiser import advertise_wireless_device
from adbwire.testing.pairing_server import PairingServer
from adbwire.wire.keys import AdbKey, default_key_comment, encode_android_pubkey
from tests.mcp.harness import connected, data_of, error_of
from tests.wire.mdns.namespace import run_in_multicast_namespace

CODE = "482913"
WRONG = "917325"
DeviceFactory = Callable[..., SimulatedDevice]


def app_with(key: AdbKey, audit: Path) -> App:
    return App(
        policy=Policy(profile="full"),
        devices=DeviceRegistry(lambda: [key]),
        audit=AuditLog(audit),
        transport="memory",
    )


def trusted(device: SimulatedDevice, key: AdbKey) -> bool:
    return device.keys.is_authorized(
        encode_android_pubkey(key.public_key, default_key_comment()).decode()
    )


async def stored(pairing: PairingServer, key: AdbKey) -> None:
    """The phone stores the key just after it answered: wait for that (bounded)."""
    assert await anyio.to_thread.run_sync(pairing.paired.wait, 10)
    assert trusted(pairing.device, key)


async def test_pair_device_then_connect_over_tls(
    sim_device_factory: DeviceFactory, adb_key: AdbKey, other_key: AdbKey, tmp_path: Path
) -> None:
    device = sim_device_factory(DeviceOptions(tls=True, authorized_keys=()))
    audit = tmp_path / "audit.jsonl"
    app = app_with(adb_key, audit)
    host, port = device.serial.split(":")
    with PairingServer(device, CODE, device_key=other_key) as pairing:
        async with connected(app) as client:
            refused = error_of(
                await client.call_tool("connect_device", {"host": host, "port": int(port)})
            )
            assert refused["code"] == "device_unauthorized"
            assert refused["next_action"] == "pair_device"
            assert refused["retryable"] is False
            result = await client.call_tool(
                "pair_device", {"address": pairing.address, "code": CODE}
            )
            paired = data_of(result)
            assert paired == {"address": pairing.address, "guid": pairing.guid}
            assert CODE not in json.dumps(result.model_dump(mode="json"))
            await stored(pairing, adb_key)
            app.devices.remove(device.serial)
            added = data_of(
                await client.call_tool("connect_device", {"host": host, "port": int(port)})
            )
            assert added["state"] == "device"
    app.close()
    text = audit.read_text()
    assert CODE not in text
    pair_line = next(json.loads(line) for line in text.splitlines() if "pair_device" in line)
    assert pair_line["arguments"] == {"address": pairing.address, "code": "<redacted>"}
    assert pair_line["outcome"] == "ok"


async def test_a_wrong_code_is_refused_and_never_echoed(
    sim_device_factory: DeviceFactory, adb_key: AdbKey, other_key: AdbKey, tmp_path: Path
) -> None:
    device = sim_device_factory(DeviceOptions(tls=True, authorized_keys=()))
    audit = tmp_path / "audit.jsonl"
    app = app_with(adb_key, audit)
    with PairingServer(device, CODE, device_key=other_key) as pairing:
        async with connected(app) as client:
            result = await client.call_tool(
                "pair_device", {"address": pairing.address, "code": WRONG}
            )
            malformed = await client.call_tool(
                "pair_device", {"address": pairing.address, "code": "48291x"}
            )
    app.close()
    error = error_of(result)
    assert error["code"] == "invalid_arguments"
    assert "wrong pairing code" in error["message"]
    assert error["retryable"] is False
    assert error_of(malformed)["code"] == "invalid_arguments"
    everything = (
        json.dumps([result.model_dump(mode="json"), malformed.model_dump(mode="json")])
        + audit.read_text()
    )
    assert WRONG not in everything and "48291x" not in everything
    assert not trusted(device, adb_key)
    assert len(pairing.outcome.failures) == 1  # the malformed code never reached the phone


# ------------------------------------------------------------------ with mDNS discovery


def test_list_devices_shows_discovered_devices_and_pair_device_takes_the_name(
    adb_key: AdbKey, other_key: AdbKey, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("ADBWIRE_MDNS")
    app = app_with(adb_key, tmp_path / "audit.jsonl")

    async def session(device: SimulatedDevice, pairing: PairingServer) -> None:
        async with connected(app) as client:
            listing = data_of(await client.call_tool("list_devices", {"discover_seconds": 3}))
            assert listing["devices"] == []
            found = {(d["service"], d["name"]): d for d in listing["discovered"]}
            assert set(found) == {("connect", pairing.guid), ("pairing", pairing.guid)}
            connect = found[("connect", pairing.guid)]
            assert (connect["host"], connect["port"]) == ("127.0.0.1", device.port)
            assert connect["state"] == "discovered"
            assert connect["model"] == "sdk_gphone64_x86_64"
            paired = data_of(
                await client.call_tool("pair_device", {"address": pairing.guid, "code": CODE})
            )
            assert paired == {"address": pairing.address, "guid": pairing.guid}
            await stored(pairing, adb_key)
            quiet = data_of(await client.call_tool("list_devices", {"discover_seconds": 0}))
            assert "discovered" not in quiet

    def body() -> None:
        with (
            SimulatedDevice(DeviceOptions(tls=True, authorized_keys=())) as device,
            PairingServer(device, CODE, device_key=other_key) as pairing,
            advertise_wireless_device(device, pairing),
        ):
            anyio.run(session, device, pairing)

    run_in_multicast_namespace(body)
    app.close()
