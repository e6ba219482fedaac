"""Streams the device opens (reverse forwarding): the protocol turns the device's OPEN into
an offer, and the runtime accepts it (OKAY) or refuses it (CLSE) — never a dead link."""

from __future__ import annotations

import struct

import pytest

from adbwire.errors import RemoteProtocolError
from adbwire.wire import packets as P
from adbwire.wire.banner import host_banner
from adbwire.wire.protocol import (
    INITIAL_RECEIVE_WINDOW,
    HostProtocol,
    Reply,
    StreamClosed,
    StreamData,
    StreamOffered,
    StreamWritable,
)
from tests.wire.test_protocol import DEVICE_DELAYED, feed, online


def test_an_open_from_the_device_is_an_offer() -> None:
    events = feed(online(), P.Packet(P.A_OPEN, 9, 0, b"tcp:8081\0"))
    assert events == [StreamOffered(9, 0, "tcp:8081")]


def test_an_accepted_offer_is_an_open_stream_both_ways() -> None:
    protocol = online()
    (offer,) = feed(protocol, P.Packet(P.A_OPEN, 9, 0, b"tcp:8081\0"))
    assert isinstance(offer, StreamOffered)
    local_id, okay = protocol.accept_offer(offer)
    assert (okay.command, okay.arg0, okay.arg1, okay.payload) == (P.A_OKAY, local_id, 9, b"")
    assert protocol.can_write(local_id), "classic flow control: one WRTE may go at once"
    write = protocol.write(local_id, b"to device")
    assert (write.command, write.arg0, write.arg1) == (P.A_WRTE, local_id, 9)
    assert feed(protocol, P.Packet(P.A_OKAY, 9, local_id)) == [StreamWritable(local_id)]
    assert feed(protocol, P.Packet(P.A_WRTE, 9, local_id, b"from device")) == [
        StreamData(local_id, b"from device")
    ]
    assert feed(protocol, P.Packet(P.A_CLSE, 9, local_id)) == [StreamClosed(local_id)]


def test_under_delayed_ack_the_windows_cross() -> None:
    """The device's OPEN names its window (our send credit); our OKAY grants ours."""
    protocol = online(DEVICE_DELAYED)
    (offer,) = feed(protocol, P.Packet(P.A_OPEN, 4, 5000, b"tcp:1\0"))
    assert isinstance(offer, StreamOffered)
    local_id, okay = protocol.accept_offer(offer)
    assert okay.payload == struct.pack("<I", INITIAL_RECEIVE_WINDOW)
    assert protocol.write_limit(local_id) == 4096  # max_payload; credit is 5000
    protocol.write(local_id, b"x" * 4096)
    assert protocol.write_limit(local_id) == 5000 - 4096


def test_an_offer_does_not_reuse_a_local_id_in_use() -> None:
    protocol = online()
    opened, _packet = protocol.open("shell:")
    (offer,) = feed(protocol, P.Packet(P.A_OPEN, 9, 0, b"tcp:1\0"))
    assert isinstance(offer, StreamOffered)
    accepted, _okay = protocol.accept_offer(offer)
    assert accepted != opened


def test_a_refusal_is_clse_naming_the_devices_stream() -> None:
    protocol = online()
    (offer,) = feed(protocol, P.Packet(P.A_OPEN, 9, 0, b"tcp:1\0"))
    assert isinstance(offer, StreamOffered)
    clse = protocol.refuse_offer(offer)
    assert (clse.command, clse.arg0, clse.arg1) == (P.A_CLSE, 0, 9)
    assert protocol.streams == {}


@pytest.mark.parametrize(
    ("packet", "answer"),
    [
        (P.Packet(P.A_OPEN, 0, 0, b"tcp:1\0"), []),
        (P.Packet(P.A_OPEN, 9, 100, b"tcp:1\0"), [Reply(P.Packet(P.A_CLSE, 0, 9))]),
        (P.Packet(P.A_OPEN, 9, 0, b"\xff\xfe\0"), [Reply(P.Packet(P.A_CLSE, 0, 9))]),
        (P.Packet(P.A_OPEN, 9, 0, b"tcp:1\0x\0"), [Reply(P.Packet(P.A_CLSE, 0, 9))]),
        (P.Packet(P.A_OPEN, 9, 0, b"\0"), [Reply(P.Packet(P.A_CLSE, 0, 9))]),
    ],
    ids=["no-id", "window-without-delayed-ack", "not-utf8", "inner-nul", "empty"],
)
def test_malformed_opens_are_refused_or_dropped(packet: P.Packet, answer: list[object]) -> None:
    assert feed(online(), packet) == answer


def test_an_open_before_the_handshake_is_the_devices_fault() -> None:
    with pytest.raises(RemoteProtocolError, match="before the connection was established"):
        feed(HostProtocol(host_banner()), P.Packet(P.A_OPEN, 9, 0, b"tcp:1\0"))
