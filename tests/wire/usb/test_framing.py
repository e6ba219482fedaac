"""USB framing: header, payload, and a zero-length packet exactly when the payload fills
its last packet; exact reads that never over-ask and keep what a transfer over-delivers."""

from __future__ import annotations

import threading
import time

import pytest

from adbwire.errors import DisconnectedError
from adbwire.wire import packets as P
from adbwire.wire.usb.transport import UsbTransport

from .conftest import make_transport, read_within
from .fake_usb import FakeContext, FakeDevice, adb_setting, mtp_setting


def header_for(length: int) -> bytes:
    return P.Packet(P.A_WRTE, 1, 2, b"\0" * length).header(with_checksum=False)


def connected(packet_size: int) -> tuple[FakeDevice, UsbTransport]:
    device = FakeDevice(settings=[mtp_setting(), adb_setting(packet_size=packet_size)])
    usb = make_transport(FakeContext(device))
    usb.connect(2.0)
    return device, usb


# (wMaxPacketSize, payload length, bulk writes the device sees)
ZLP_CASES = [
    (512, 0, [24]),
    (512, 511, [24, 511]),
    (512, 512, [24, 512, 0]),
    (512, 1024, [24, 1024, 0]),
    (512, 1025, [24, 1025]),
    (64, 63, [24, 63]),
    (64, 64, [24, 64, 0]),
    (64, 4096, [24, 4096, 0]),
    (1024, 512, [24, 512]),
    (1024, 1024, [24, 1024, 0]),
    (1024, 3072, [24, 3072, 0]),
    (1024, 1025, [24, 1025]),
]


@pytest.mark.parametrize(("packet_size", "length", "writes"), ZLP_CASES)
def test_zero_length_packet_exactly_when_the_payload_fills_its_last_packet(
    packet_size: int, length: int, writes: list[int]
) -> None:
    device, usb = connected(packet_size)
    payload = bytes(range(256)) * (length // 256) + bytes(length % 256)
    try:
        usb.write_packet(header_for(length), payload)
        assert device.out_writes == writes
        # The device sees one transfer per part, each ended by a short packet.
        assert device.read_transfer(0.5) == header_for(length)
        if length:
            assert device.read_transfer(0.5) == payload
    finally:
        usb.close()


def test_payload_from_a_memoryview_of_words_counts_bytes() -> None:
    device, usb = connected(512)
    words = memoryview(bytearray(512)).cast("I")  # 128 items, 512 bytes
    usb.write_packet(header_for(512), words)
    usb.close()
    assert device.out_writes == [24, 512, 0]


@pytest.mark.parametrize("length", [1, 24, 511, 512, 513, 1024, 4096, 65536])
def test_reads_ask_for_whole_packets_and_return_exact_bytes(
    transport: UsbTransport, device: FakeDevice, length: int
) -> None:
    payload = bytes((n * 7) & 0xFF for n in range(length))
    device.send_transfer(header_for(length))
    device.send_transfer(payload)
    device.send_transfer(header_for(0))  # the next packet is already waiting
    assert read_within(transport, 24) == header_for(length)
    assert read_within(transport, length) == payload
    assert read_within(transport, 24) == header_for(0)
    rounded = -(-length // 512) * 512
    assert device.in_requests == [512, rounded, 512]


def test_a_transfer_bigger_than_asked_for_is_kept_for_the_next_read(
    transport: UsbTransport, device: FakeDevice
) -> None:
    body = b"p" * 100
    device.send_transfer(header_for(100) + body)  # header and payload in one transfer
    assert read_within(transport, 24) == header_for(100)
    assert read_within(transport, 100) == body
    assert device.in_requests == [512]  # the payload came from the leftover


def test_leftover_and_new_transfer_are_joined_in_order(
    transport: UsbTransport, device: FakeDevice
) -> None:
    body = bytes(range(250)) * 4  # 1000 bytes: 24 + 1000 = two full packets
    device.send_transfer(header_for(1000) + body)
    assert read_within(transport, 24) == header_for(1000)
    assert read_within(transport, 1000) == body
    assert device.in_requests == [512, 512]


def test_bytes_received_before_a_poll_timeout_are_not_lost(
    transport: UsbTransport, device: FakeDevice
) -> None:
    first, rest = b"a" * 1024, b"b" * 476  # 1024 = two full packets, no end of transfer
    device.send_transfer(first)
    result: list[bytes | bytearray] = []
    reader = threading.Thread(target=lambda: result.append(transport.read_exactly(1500)))
    reader.start()
    device.wait_for_reads(3)  # the reader has polled past a timeout at least once
    device.send_transfer(rest)
    reader.join(timeout=2)
    assert result == [first + rest]
    assert device.in_requests[0] == 1536


def test_a_device_that_stops_reading_fails_the_write(
    context: FakeContext, device: FakeDevice
) -> None:
    usb = make_transport(context, io_timeout=0.3)
    usb.connect(2.0)
    device.accepts_out_bytes = 24 + 1024
    started = time.monotonic()
    with pytest.raises(DisconnectedError, match="stopped reading"):
        usb.write_packet(header_for(4096), b"x" * 4096)
    assert 0.3 <= time.monotonic() - started < 5.0
    usb.close()
    assert device.read_transfer(0.1) == header_for(4096)


def test_close_stops_a_blocked_read_promptly(transport: UsbTransport, device: FakeDevice) -> None:
    errors: list[BaseException] = []

    def read() -> None:
        try:
            transport.read_exactly(24)
        except BaseException as exc:
            errors.append(exc)

    reader = threading.Thread(target=read)
    reader.start()
    device.wait_for_reads(1)
    started = time.monotonic()
    transport.close()
    reader.join(timeout=10)
    assert not reader.is_alive(), "close did not stop the blocked read"
    assert time.monotonic() - started < 4.0
    assert [type(e) for e in errors] == [DisconnectedError]
    assert device.claimed == {} and device.open_handles == 0


def test_io_before_connect_and_after_close_is_a_disconnect(context: FakeContext) -> None:
    usb = make_transport(context)
    with pytest.raises(DisconnectedError, match="not connected"):
        usb.read_exactly(24)
    usb.connect(2.0)
    usb.close()
    with pytest.raises(DisconnectedError, match="closed"):
        usb.write_packet(header_for(0), b"")
    usb.close()  # idempotent
