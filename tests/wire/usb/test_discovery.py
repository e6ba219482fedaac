"""Discovery: every device with an ADB interface, with serial, port path, ids and state."""

from __future__ import annotations

from pathlib import Path

import usb1

from adbwire.wire.usb import (
    STATE_AVAILABLE,
    STATE_NO_ADB_INTERFACE,
    STATE_NO_DRIVER,
    STATE_NO_PERMISSIONS,
    AdbInterface,
    list_usb_devices,
)

from .fake_usb import FakeContext, FakeDevice, FakeEndpoint, FakeSetting, adb_setting, mtp_setting

KEYBOARD = FakeDevice(
    serial=None,
    ports=(2,),
    vendor_id=0x046D,
    product_id=0xC31C,
    product="USB Keyboard",
    settings=[FakeSetting(0, 0x03, 0x01, 0x01, [FakeEndpoint(0x81, 8, 0x03)])],
)


def test_lists_every_adb_device_sorted_by_port_path() -> None:
    pixel = FakeDevice("PIXEL01", bus=2, ports=(1, 3), address=9)
    galaxy = FakeDevice(
        "R58M12345",
        bus=1,
        ports=(4,),
        vendor_id=0x04E8,
        product_id=0x6860,
        product="SAMSUNG_Android",
        settings=[adb_setting(number=2, packet_size=1024, in_address=0x83, out_address=0x04)],
    )
    mtp_only = FakeDevice("NOADB1", ports=(5,), settings=[mtp_setting()])
    devices = list_usb_devices(context=FakeContext(pixel, KEYBOARD, mtp_only, galaxy))
    assert [(d.serial, d.port_path, d.usb_path, d.usb_id, d.state) for d in devices] == [
        ("R58M12345", "1-4", "usb:1-4", "04e8:6860", STATE_AVAILABLE),
        ("PIXEL01", "2-1.3", "usb:2-1.3", "18d1:4ee7", STATE_AVAILABLE),
    ]
    assert devices[0].interface == AdbInterface(2, 0x83, 0x04, 1024, 1024)
    assert devices[1].interface == AdbInterface(1, 0x81, 0x02, 512, 512)
    assert (devices[0].product_name, devices[0].bus, devices[1].device_address) == (
        "SAMSUNG_Android",
        1,
        9,
    )


def test_android_phone_without_adb_is_listed_only_when_asked() -> None:
    mtp_only = FakeDevice("NOADB1", ports=(5,), settings=[mtp_setting()])
    context = FakeContext(mtp_only, KEYBOARD)
    assert list_usb_devices(context=context) == []
    [phone] = list_usb_devices(context=context, include_without_adb=True)
    assert (phone.serial, phone.state, phone.has_adb) == ("NOADB1", STATE_NO_ADB_INTERFACE, False)


def test_interfaces_that_only_look_like_adb_are_ignored() -> None:
    alternate = adb_setting()
    alternate.alternate = 1
    interrupt_only = adb_setting(number=3)
    interrupt_only.endpoints = [FakeEndpoint(0x81, 64, 0x03), FakeEndpoint(0x02, 64, 0x03)]
    wrong_protocol = FakeSetting(4, 0xFF, 0x42, 0x03, adb_setting().endpoints)
    odd = FakeDevice("ODD", settings=[alternate, interrupt_only, wrong_protocol])
    assert list_usb_devices(context=FakeContext(odd)) == []


def test_serial_from_sysfs_needs_no_permission(_empty_sysfs: Path) -> None:
    (_empty_sysfs / "1-4").mkdir()
    (_empty_sysfs / "1-4" / "serial").write_text("SYSFS42\n")
    locked = FakeDevice("DESCRIPTOR", open_error=usb1.USBErrorAccess)
    [device] = list_usb_devices(context=FakeContext(locked))
    assert (device.serial, device.name, device.state) == (
        "SYSFS42",
        "SYSFS42",
        STATE_NO_PERMISSIONS,
    )


def test_unreadable_serial_falls_back_to_the_port_path() -> None:
    locked = FakeDevice("HIDDEN", ports=(3, 1), open_error=usb1.USBErrorAccess)
    no_serial = FakeDevice(None, ports=(6,))
    no_driver = FakeDevice("WIN1", ports=(7,), open_error=usb1.USBErrorNotSupported)
    found = list_usb_devices(context=FakeContext(locked, no_serial, no_driver))
    assert [(d.serial, d.name, d.state) for d in found] == [
        (None, "usb:1-3.1", STATE_NO_PERMISSIONS),
        (None, "usb:1-6", STATE_AVAILABLE),
        (None, "usb:1-7", STATE_NO_DRIVER),
    ]


def test_a_device_unplugged_during_the_scan_is_skipped() -> None:
    leaving = FakeDevice("GONE", open_error=usb1.USBErrorNoDevice)
    staying = FakeDevice("STAY", ports=(2,))
    assert [d.serial for d in list_usb_devices(context=FakeContext(leaving, staying))] == ["STAY"]


def test_listing_closes_what_it_opened() -> None:
    phone = FakeDevice("P1")
    list_usb_devices(context=FakeContext(phone))
    assert phone.open_handles == 0 and phone.claimed == {}


def test_a_device_plugged_in_later_is_found_on_the_next_listing() -> None:
    context = FakeContext()
    assert list_usb_devices(context=context) == []
    context.plug(FakeDevice("LATE"))
    assert [d.serial for d in list_usb_devices(context=context)] == ["LATE"]
