"""Opening a device: the right interface is claimed, halts are cleared, and every failure a
user can hit says what happened and what to do."""

from __future__ import annotations

import pytest
import usb1

from adbwire.errors import ConnectFailedError, UsageError
from adbwire.wire.usb.transport import UsbTransport

from .conftest import make_transport, read_within
from .fake_usb import FakeContext, FakeDevice, mtp_setting


def test_claims_the_adb_interface_and_releases_it_on_close(
    context: FakeContext, device: FakeDevice
) -> None:
    usb = make_transport(context, "FAKE0001")
    usb.connect(2.0)
    assert list(device.claimed) == [1]  # the ADB interface, not the MTP one (0)
    assert (usb.kind, usb.address, usb.out_packet_size, usb.in_packet_size) == (
        "usb",
        "FAKE0001",
        512,
        512,
    )
    usb.close()
    assert device.claimed == {} and device.open_handles == 0


def test_halts_are_cleared_on_open(context: FakeContext, device: FakeDevice) -> None:
    device.halted = {0x81, 0x02}
    usb = make_transport(context)
    usb.connect(2.0)
    assert device.clear_halt_calls == [0x81, 0x02]
    device.send_transfer(b"x" * 24)
    assert read_within(usb, 24) == b"x" * 24
    usb.close()


def test_selecting_by_port_path() -> None:
    first, second = FakeDevice("SAME", ports=(1,)), FakeDevice("SAME", ports=(2,))
    context = FakeContext(first, second)
    with pytest.raises(UsageError, match=r"report serial 'SAME'.*usb:1-1, usb:1-2"):
        make_transport(context, "SAME").connect(2.0)
    usb = make_transport(context, "usb:1-2")
    usb.connect(2.0)
    assert (second.claimed != {}, first.claimed) == (True, {})
    assert usb.address == "SAME"
    usb.close()


def test_several_devices_and_none_named_is_a_usage_error() -> None:
    context = FakeContext(FakeDevice("A", ports=(1,)), FakeDevice("B", ports=(2,)))
    with pytest.raises(UsageError, match="more than one USB device"):
        make_transport(context).connect(2.0)


def test_claimed_by_another_process_names_the_adb_server(
    context: FakeContext, device: FakeDevice
) -> None:
    device.claimed_elsewhere = True
    with pytest.raises(ConnectFailedError) as caught:
        make_transport(context).connect(2.0)
    message = str(caught.value)
    assert "another process" in message and "adb server" in message
    assert "`adb kill-server`" in message and "FAKE0001" in message
    assert isinstance(caught.value.__cause__, usb1.USBErrorBusy)
    assert device.open_handles == 0


def test_permission_denied_names_the_udev_rule_with_the_vendor_id(
    context: FakeContext, device: FakeDevice, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr("platform.system", lambda: "Linux")
    device.open_error = usb1.USBErrorAccess
    device.vendor_id = 0x2717
    with pytest.raises(ConnectFailedError) as caught:
        make_transport(context).connect(2.0)
    message = str(caught.value)
    assert "permission denied" in message
    assert 'SUBSYSTEM=="usb", ATTR{idVendor}=="2717", MODE="0660", GROUP="plugdev"' in message
    assert "plugdev" in message and "replug" in message


def test_no_adb_interface_says_enable_usb_debugging() -> None:
    phone = FakeDevice("MTPONLY", settings=[mtp_setting()])
    with pytest.raises(ConnectFailedError, match="enable USB debugging") as caught:
        make_transport(FakeContext(phone), "MTPONLY").connect(2.0)
    assert "18d1:4ee7 at usb:1-4" in str(caught.value)


def test_missing_device_lists_the_connected_ones(context: FakeContext) -> None:
    with pytest.raises(ConnectFailedError, match=r"no USB device NOPE.*connected: FAKE0001"):
        make_transport(context, "NOPE").connect(2.0)


def test_failed_halt_clear_releases_the_interface(context: FakeContext, device: FakeDevice) -> None:
    device.clear_halt_error = usb1.USBErrorNoDevice
    with pytest.raises(ConnectFailedError, match="unplugged"):
        make_transport(context).connect(2.0)
    assert device.claimed == {} and device.open_handles == 0


def test_a_transport_connects_once(transport: UsbTransport) -> None:
    with pytest.raises(UsageError, match="connects once"):
        transport.connect(2.0)


def test_an_empty_bus_says_so() -> None:
    with pytest.raises(ConnectFailedError, match="no USB device with an ADB interface"):
        make_transport(FakeContext()).connect(2.0)
