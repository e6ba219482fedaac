"""The command line's USB helpers: USB devices alongside TCP ones, -s across both, probing."""

from __future__ import annotations

import io
from collections.abc import Iterator

import pytest
import usb1

from adbwire.cli import targets_usb
from adbwire.errors import TransportError
from adbwire.wire import packets as P
from adbwire.wire.timeouts import Timeouts
from adbwire.wire.usb import use_context

from .fake_usb import FakeContext, FakeDevice, mtp_setting
from .usb_peer import UsbPeer, scripted_device

FAST = Timeouts(connect=2.0, auth=1.0, operation=2.0)


@pytest.fixture
def bus(context: FakeContext) -> Iterator[FakeContext]:
    with use_context(context):
        yield context


def test_choose_takes_the_only_usb_device(bus: FakeContext) -> None:
    chosen = targets_usb.choose(None, [])
    assert (chosen.serial, chosen.kind) == ("FAKE0001", "usb")


def test_usb_and_tcp_devices_are_listed_together(bus: FakeContext) -> None:
    found = targets_usb.candidates(["10.1.1.1:5555"], targets_usb.usb_devices())
    assert [(c.serial, c.kind) for c in found] == [("FAKE0001", "usb"), ("10.1.1.1:5555", "tcp")]


class ExplodingContext(FakeContext):
    def getDeviceIterator(self, skip_on_error: bool = False) -> Iterator[FakeDevice]:
        raise AssertionError("the bus was scanned")


def test_a_tcp_serial_does_not_scan_the_bus() -> None:
    with use_context(ExplodingContext()):
        chosen = targets_usb.choose("10.1.1.1:5555", [])
    assert (chosen.serial, chosen.kind) == ("10.1.1.1:5555", "tcp")


def test_usb_unavailable_is_one_line_and_an_empty_list(monkeypatch: pytest.MonkeyPatch) -> None:
    def unavailable(**_: object) -> list[object]:
        raise TransportError("USB is unavailable: no libusb")

    monkeypatch.setattr(targets_usb, "list_usb_devices", unavailable)
    stderr = io.StringIO()
    assert targets_usb.usb_devices(stderr) == []
    assert stderr.getvalue() == "adbwire: USB is unavailable: no libusb\n"


def test_probe_reads_the_banner_over_usb(bus: FakeContext, device: FakeDevice) -> None:
    with scripted_device(device, lambda peer: peer.accept_cnxn()):
        [candidate] = targets_usb.candidates([], targets_usb.usb_devices())
        row = targets_usb.probe(candidate, FAST, keys=[])
    assert (row.serial, row.state, row.transport, row.usb) == (
        "FAKE0001",
        "device",
        "usb",
        "usb:1-4",
    )
    assert (row.model, row.product, row.device) == ("Fake Phone", "fake", "fk")


def test_probe_of_a_busy_device_says_busy(bus: FakeContext, device: FakeDevice) -> None:
    device.claimed_elsewhere = True
    [candidate] = targets_usb.candidates([], targets_usb.usb_devices())
    row = targets_usb.probe(candidate, FAST, keys=[])
    assert row.state == "busy"
    assert row.error is not None and "`adb kill-server`" in row.error


def test_probe_without_permission_does_not_try_to_connect(
    bus: FakeContext, device: FakeDevice
) -> None:
    device.open_error = usb1.USBErrorAccess
    [candidate] = targets_usb.candidates([], targets_usb.usb_devices())
    row = targets_usb.probe(candidate, FAST, keys=[])
    assert row.state == "no permissions"
    assert device.was_claimed is False


def test_connect_runs_a_command(bus: FakeContext, device: FakeDevice) -> None:
    def script(peer: UsbPeer) -> None:
        peer.accept_cnxn()
        opened = peer.recv_packet()
        peer.send(P.Packet(P.A_OKAY, 9, opened.arg0))
        peer.send(P.Packet(P.A_WRTE, 9, opened.arg0, b"ok\n"))
        peer.recv_packet()  # OKAY
        peer.send(P.Packet(P.A_CLSE, 9, opened.arg0))

    with scripted_device(device, script):
        candidate = targets_usb.choose("FAKE0001", [])
        with targets_usb.connect(candidate, FAST, keys=[]) as client:
            assert client.exec_out("echo ok") == b"ok\n"


def test_notes_explain_phones_without_adb() -> None:
    phone = FakeDevice("MTP9", settings=[mtp_setting()])
    with use_context(FakeContext(phone)):
        usb = targets_usb.usb_devices()
    assert targets_usb.candidates([], usb) == []
    [note] = targets_usb.notes_for(usb)
    assert note.startswith("note: USB device MTP9") and "enable USB debugging" in note
