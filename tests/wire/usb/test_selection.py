"""Choosing a device among USB and TCP candidates, as `adb -s` does."""

from __future__ import annotations

import pytest

from adbwire.errors import UsageError
from adbwire.wire.transport import TcpTransport
from adbwire.wire.usb import (
    STATE_AVAILABLE,
    STATE_NO_ADB_INTERFACE,
    AdbInterface,
    UsbDeviceInfo,
    choose_device,
    open_transport,
)
from adbwire.wire.usb.transport import UsbTransport

INTERFACE = AdbInterface(1, 0x81, 0x02, 512, 512)


def usb(serial: str | None, port: str = "1-4", state: str = STATE_AVAILABLE) -> UsbDeviceInfo:
    interface = None if state == STATE_NO_ADB_INTERFACE else INTERFACE
    return UsbDeviceInfo(serial, port, 0x18D1, 0x4EE7, state, 1, 5, interface)


def test_the_only_usb_device_is_chosen() -> None:
    chosen = choose_device(None, usb_devices=[usb("PHONE1")])
    assert (chosen.serial, chosen.kind, chosen.usb) == ("PHONE1", "usb", usb("PHONE1"))


def test_the_only_tcp_device_is_chosen() -> None:
    chosen = choose_device(None, tcp_addresses=["10.0.0.5:5555"])
    assert (chosen.serial, chosen.kind) == ("10.0.0.5:5555", "tcp")


def test_several_and_none_named_lists_them_all() -> None:
    with pytest.raises(UsageError) as caught:
        choose_device(None, tcp_addresses=["10.0.0.5:5555"], usb_devices=[usb("PHONE1")])
    message = str(caught.value)
    assert "more than one device" in message and "-s SERIAL" in message
    assert "PHONE1 (usb 18d1:4ee7 at usb:1-4, available)" in message
    assert "10.0.0.5:5555 (tcp)" in message


def test_s_selects_usb_by_serial_or_port_path_and_tcp_by_address() -> None:
    devices = [usb("PHONE1", "1-4"), usb("PHONE2", "2-1.3"), usb(None, "3-2")]
    tcp = ["10.0.0.5:5555"]
    assert choose_device("PHONE2", tcp_addresses=tcp, usb_devices=devices).usb == devices[1]
    assert choose_device("usb:3-2", tcp_addresses=tcp, usb_devices=devices).usb == devices[2]
    assert choose_device("10.0.0.5:5555", tcp_addresses=tcp, usb_devices=devices).kind == "tcp"
    direct = choose_device("192.168.1.9:5555", usb_devices=devices)
    assert (direct.serial, direct.kind) == ("192.168.1.9:5555", "tcp")


def test_unknown_serial_says_what_is_there() -> None:
    with pytest.raises(UsageError, match=r"'NOPE' not found; devices present: PHONE1"):
        choose_device("NOPE", usb_devices=[usb("PHONE1")])


def test_duplicate_serials_ask_for_the_port_path() -> None:
    twins = [usb("0123456789ABCDEF", "1-1"), usb("0123456789ABCDEF", "1-2")]
    with pytest.raises(UsageError, match=r"usb:1-1, usb:1-2.*-s usb:PORT-PATH"):
        choose_device("0123456789ABCDEF", usb_devices=twins)


def test_a_phone_without_adb_is_never_chosen_but_explained() -> None:
    phone = usb("MTP1", state=STATE_NO_ADB_INTERFACE)
    with pytest.raises(UsageError, match=r"no device.*enable USB debugging"):
        choose_device(None, usb_devices=[phone])
    with pytest.raises(UsageError, match="enable USB debugging"):
        choose_device("MTP1", usb_devices=[phone])


def test_no_device_at_all() -> None:
    with pytest.raises(UsageError, match="no device: plug in a phone"):
        choose_device(None)


def test_candidates_become_the_right_transport() -> None:
    usb_transport = open_transport(choose_device(None, usb_devices=[usb(None, "2-7")]))
    assert isinstance(usb_transport, UsbTransport) and usb_transport.address == "usb:2-7"
    tcp_transport = open_transport(choose_device("[::1]:5037"))
    assert isinstance(tcp_transport, TcpTransport) and tcp_transport.address == "[::1]:5037"
