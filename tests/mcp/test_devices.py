"""Choosing the device: the only one, an explicit serial, the session's own default; and the
operator's device limits (allow-list, emulators only)."""

from __future__ import annotations

import anyio
import pytest
from mcp import Client

from adbwire.errors import TransportError
from adbwire.mcp.devices import DeviceRegistry
from adbwire.mcp.safety.policy import Policy
from adbwire.mcp.server import usb_source
from adbwire.mcp.server.server import build_server
from adbwire.wire.keys import AdbKey
from adbwire.wire.usb import AdbInterface, UsbDeviceInfo
from tests.mcp.harness import WAIT, connected, data_of, error_of, make_app, simulated


async def test_no_device_says_connect_one_and_connect_device_adds_it() -> None:
    with simulated() as (device,):
        app = make_app([])
        async with connected(app) as client:
            error = error_of(await client.call_tool("device_info", {}))
            assert (error["code"], error["next_action"]) == ("no_device", "connect_device")
            host, port = device.serial.split(":")
            added = data_of(
                await client.call_tool("connect_device", {"host": host, "port": int(port)})
            )
            assert (added["serial"], added["state"]) == (device.serial, "device")
            info = data_of(await client.call_tool("device_info", {}))
            assert info["model"] == "sdk_gphone64_x86_64"
            assert info["is_emulator"] is True
            data_of(await client.call_tool("disconnect_device", {"serial": device.serial}))
            listed = data_of(await client.call_tool("list_devices", {}))
            assert listed["devices"] == []
        app.close()


async def test_several_devices_need_a_serial_and_the_error_lists_them() -> None:
    with simulated(2) as devices:
        app = make_app(devices)
        async with connected(app) as client:
            error = error_of(await client.call_tool("get_property", {"name": "ro.product.model"}))
            assert (error["code"], error["next_action"]) == ("device_ambiguous", "select_device")
            assert sorted(error["details"]["devices"]) == sorted(d.serial for d in devices)
            picked = await client.call_tool(
                "get_property", {"name": "ro.product.model", "serial": devices[1].serial}
            )
            assert data_of(picked)["value"] == "sdk_gphone64_x86_64"
            unknown = error_of(await client.call_tool("device_info", {"serial": "10.9.9.9:5555"}))
            assert unknown["code"] == "device_not_found"
        app.close()


async def test_each_session_keeps_its_own_default_device() -> None:
    """Two clients of one server (legacy sessions, as over stateful HTTP) select different
    devices; neither sees the other's choice."""
    with simulated(2) as devices:
        app = make_app(devices)
        server = build_server(app)
        first, second = devices
        with anyio.fail_after(WAIT):
            async with (
                Client(server, mode="legacy") as one,
                Client(server, mode="legacy") as two,
            ):
                data_of(await one.call_tool("select_device", {"serial": first.serial}))
                data_of(await two.call_tool("select_device", {"serial": second.serial}))
                assert data_of(await one.call_tool("device_info", {}))["serial"] == first.serial
                assert data_of(await two.call_tool("device_info", {}))["serial"] == second.serial
                listed = data_of(await two.call_tool("list_devices", {}))
                selected = [d["serial"] for d in listed["devices"] if d["selected"]]
                assert selected == [second.serial]
        app.close()


async def test_stateless_requests_have_no_session_default() -> None:
    with simulated() as (device,):
        app = make_app([device])
        async with connected(app, mode="auto") as client:
            error = error_of(await client.call_tool("select_device", {"serial": device.serial}))
            assert (error["code"], error["next_action"]) == ("no_session", "fix_arguments")
        app.close()


async def test_allow_device_list_refuses_other_devices() -> None:
    with simulated(2) as (allowed, other):
        app = make_app([allowed, other], policy=Policy(allowed_devices=frozenset({allowed.serial})))
        async with connected(app) as client:
            data_of(await client.call_tool("device_info", {"serial": allowed.serial}))
            error = error_of(await client.call_tool("device_info", {"serial": other.serial}))
            assert (error["code"], error["next_action"]) == ("device_not_allowed", "ask_operator")
        app.close()


async def test_emulators_only_needs_the_serial_form_and_the_property() -> None:
    with (
        simulated() as (emulator,),
        simulated(properties={"ro.kernel.qemu": "0", "ro.boot.qemu": "0"}) as (phone,),
    ):
        policy = Policy(emulators_only=True)
        app = make_app([emulator, phone], policy=policy)
        async with connected(app) as client:
            data_of(await client.call_tool("device_info", {"serial": emulator.serial}))
            error = error_of(await client.call_tool("device_info", {"serial": phone.serial}))
            assert error["code"] == "device_not_allowed"
            assert "ro.kernel.qemu" in error["message"]
        app.close()
        # A TCP device on an arbitrary port does not have an emulator's serial at all.
        tcp_app = make_app([emulator], policy=policy, kind="tcp")
        async with connected(tcp_app) as client:
            error = error_of(await client.call_tool("device_info", {}))
            assert error["code"] == "device_not_allowed"
            assert "serial" in error["message"]
        tcp_app.close()


async def test_a_device_waiting_for_the_user_reports_the_prompt(adb_key: AdbKey) -> None:
    with simulated(auth_required=True, accept_new_keys=True, accept_delay=60.0) as (device,):
        registry = DeviceRegistry(lambda: [adb_key], connect_wait=0.5)
        registry.add_tcp(device.serial)
        app = make_app([])
        app.devices = registry
        async with connected(app) as client:
            error = error_of(await client.call_tool("device_info", {}))
        assert error["code"] == "device_unauthorized"
        assert error["next_action"] == "accept_auth_prompt_on_device"
        assert error["retryable"] is True
        app.close()


@pytest.mark.parametrize("host", ["bad host", "-x", "a;b", "$(x)"])
async def test_connect_device_validates_the_host(host: str) -> None:
    app = make_app([])
    async with connected(app) as client:
        error = error_of(await client.call_tool("connect_device", {"host": host}))
    assert error["code"] == "invalid_arguments"
    assert app.devices.serials() == []


def test_usb_source_lists_adb_devices_and_honours_device_filters(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    interface = AdbInterface(0, 0x81, 0x01, 512, 512)

    def device(serial: str | None, port: str, adb: bool) -> UsbDeviceInfo:
        return UsbDeviceInfo(
            serial, port, 0x18D1, 0x4EE7, "device", 1, 2, interface if adb else None
        )

    found = [device("AAA", "1-1", True), device(None, "1-2", True), device("CCC", "1-3", False)]
    monkeypatch.setattr(usb_source, "list_usb_devices", lambda: found)
    assert usb_source.UsbSource().scan() == ["AAA", "usb:1-2"]
    assert usb_source.UsbSource(only=["usb:1-2"]).scan() == ["usb:1-2"]

    def no_usb() -> list[UsbDeviceInfo]:
        raise TransportError("no libusb")

    monkeypatch.setattr(usb_source, "list_usb_devices", no_usb)
    assert usb_source.UsbSource().scan() == []  # USB missing is not an error for the server
