"""The sans-IO host protocol, driven by packets with no sockets."""

from __future__ import annotations

import struct

import pytest

from adbwire.errors import AuthRejectedError, LocalProtocolError, RemoteProtocolError
from adbwire.wire import packets as P
from adbwire.wire.banner import Banner, host_banner
from adbwire.wire.protocol import (
    ACK_BATCH_FRACTION,
    AuthChallenge,
    Connected,
    ConnectionState,
    HostProtocol,
    Reply,
    StreamClosed,
    StreamData,
    StreamOpened,
    StreamRefused,
    StreamWritable,
)

DEVICE = Banner("device", "", {"ro.product.model": "M"}, frozenset({"shell_v2", "cmd"}))
DEVICE_DELAYED = Banner("device", "", {}, frozenset({"shell_v2", "delayed_ack"}))


def state(protocol: HostProtocol) -> ConnectionState:
    """The state as a plain value (keeps mypy from narrowing across calls)."""
    return protocol.state


def feed(protocol: HostProtocol, packet: P.Packet) -> list[object]:
    """Run the packet through the real decoder first, as the reader does."""
    wire = packet.encode(with_checksum=True)
    header = P.decode_header(wire[:24], max_payload=P.MAX_PAYLOAD)
    protocol.check_payload(header, wire[24:])
    return list(protocol.receive(header, wire[24:]))


def online(
    banner: Banner = DEVICE, version: int = P.VERSION_SKIP_CHECKSUM, max_payload: int = 4096
) -> HostProtocol:
    protocol = HostProtocol(host_banner())
    feed(protocol, P.Packet(P.A_CNXN, version, max_payload, banner.encode()))
    return protocol


def test_cnxn_negotiates_min_version_and_payload() -> None:
    protocol = HostProtocol(host_banner(), max_payload=P.MAX_PAYLOAD)
    hello = protocol.connect_packet()
    assert (hello.command, hello.arg0, hello.arg1) == (P.A_CNXN, 0x01000001, 1024 * 1024)
    assert bytes(hello.payload).startswith(b"host::features=")
    events = feed(protocol, P.Packet(P.A_CNXN, 0x01000000, 4096, DEVICE.encode()))
    assert events == [Connected(DEVICE, 0x01000000, 4096)]
    assert state(protocol) is ConnectionState.ONLINE
    assert protocol.sends_checksums  # the device is old: checksums both ways


def test_new_device_turns_checksums_off() -> None:
    protocol = online(version=0x01000001)
    assert not protocol.sends_checksums


def test_checksums_are_verified_under_the_old_version() -> None:
    protocol = online(version=0x01000000)
    _, _ = protocol.open("shell:x")
    wire = P.Packet(P.A_OKAY, 9, 1).encode(with_checksum=False)
    header = P.decode_header(wire[:24], max_payload=4096)
    protocol.receive(header, b"")
    bad = P.Packet(P.A_WRTE, 9, 1, b"abc").header(with_checksum=False)  # check field 0
    header = P.decode_header(bad, max_payload=4096)
    with pytest.raises(RemoteProtocolError, match="checksum"):
        protocol.check_payload(header, b"abc")


def test_the_handshake_is_not_checksum_verified() -> None:
    protocol = HostProtocol(host_banner())
    wire = P.Packet(P.A_CNXN, 0x01000001, 4096, DEVICE.encode()).header(with_checksum=False)
    stray = bytearray(wire)
    stray[16:20] = b"\x01\x02\x03\x04"  # a stray data_check from a new device
    header = P.decode_header(bytes(stray), max_payload=P.MAX_PAYLOAD)
    protocol.check_payload(header, DEVICE.encode())
    assert protocol.receive(header, DEVICE.encode())


def test_checksums_are_ignored_under_the_new_version() -> None:
    protocol = online(version=0x01000001)
    bad = P.Packet(P.A_WRTE, 9, 1, b"abc").header(with_checksum=False)
    protocol.check_payload(P.decode_header(bad, max_payload=4096), b"abc")


def test_auth_token_then_signature_then_public_key() -> None:
    protocol = HostProtocol(host_banner())
    token = bytes(range(20))
    assert feed(protocol, P.Packet(P.A_AUTH, P.AUTH_TOKEN, 0, token)) == [AuthChallenge(token)]
    assert state(protocol) is ConnectionState.AUTHENTICATING
    signed = protocol.sign(b"sig")
    assert (signed.command, signed.arg0, signed.payload) == (P.A_AUTH, P.AUTH_SIGNATURE, b"sig")
    feed(protocol, P.Packet(P.A_AUTH, P.AUTH_TOKEN, 0, token))
    offered = protocol.offer_public_key(b"QUFB user@host")
    assert (offered.arg0, offered.payload) == (P.AUTH_RSAPUBLICKEY, b"QUFB user@host\0")
    assert state(protocol) is ConnectionState.UNAUTHORIZED
    feed(protocol, P.Packet(P.A_CNXN, 0x01000001, 4096, DEVICE.encode()))
    assert state(protocol) is ConnectionState.ONLINE


def test_a_token_after_our_public_key_means_rejected() -> None:
    protocol = HostProtocol(host_banner())
    feed(protocol, P.Packet(P.A_AUTH, P.AUTH_TOKEN, 0, b"t" * 20))
    protocol.offer_public_key(b"key")
    with pytest.raises(AuthRejectedError):
        feed(protocol, P.Packet(P.A_AUTH, P.AUTH_TOKEN, 0, b"t" * 20))


@pytest.mark.parametrize("command", [P.A_OKAY, P.A_WRTE, P.A_CLSE])
def test_stream_packets_before_cnxn_are_the_devices_fault(command: int) -> None:
    protocol = HostProtocol(host_banner())
    with pytest.raises(RemoteProtocolError, match="before the connection was established"):
        feed(protocol, P.Packet(command, 1, 1))


def test_open_okay_write_and_close() -> None:
    protocol = online()
    local_id, packet = protocol.open("shell:echo hi")
    assert (packet.command, packet.arg0, packet.arg1, packet.payload) == (
        P.A_OPEN,
        local_id,
        0,
        b"shell:echo hi\0",
    )
    assert not protocol.can_write(local_id)
    assert feed(protocol, P.Packet(P.A_OKAY, 77, local_id)) == [StreamOpened(local_id)]
    assert protocol.can_write(local_id)
    write = protocol.write(local_id, b"data")
    assert (write.command, write.arg0, write.arg1) == (P.A_WRTE, local_id, 77)
    assert not protocol.can_write(local_id), "classic flow control: one WRTE in flight"
    assert feed(protocol, P.Packet(P.A_OKAY, 77, local_id)) == [StreamWritable(local_id)]
    assert protocol.can_write(local_id)
    assert feed(protocol, P.Packet(P.A_WRTE, 77, local_id, b"out")) == [
        StreamData(local_id, b"out")
    ]
    ack = protocol.acknowledge(local_id, 3)
    assert ack is not None and (ack.command, ack.arg0, ack.arg1, ack.payload) == (
        P.A_OKAY,
        local_id,
        77,
        b"",
    )
    close = protocol.close(local_id)
    assert close is not None and (close.command, close.arg0, close.arg1) == (P.A_CLSE, local_id, 77)
    assert protocol.close(local_id) is None


def test_clse_answering_open_is_a_refusal() -> None:
    protocol = online()
    local_id, _ = protocol.open("nosuchservice:")
    assert feed(protocol, P.Packet(P.A_CLSE, 0, local_id)) == [StreamRefused(local_id)]


def test_clse_after_open_is_a_close() -> None:
    protocol = online()
    local_id, _ = protocol.open("shell:")
    feed(protocol, P.Packet(P.A_OKAY, 5, local_id))
    assert feed(protocol, P.Packet(P.A_CLSE, 5, local_id)) == [StreamClosed(local_id)]


def test_packets_for_closed_streams_are_dropped() -> None:
    protocol = online()
    local_id, _ = protocol.open("shell:")
    feed(protocol, P.Packet(P.A_OKAY, 5, local_id))
    protocol.close(local_id)
    assert feed(protocol, P.Packet(P.A_WRTE, 5, local_id, b"late")) == []
    assert feed(protocol, P.Packet(P.A_CLSE, 5, local_id)) == []


def test_okay_for_a_stream_we_do_not_have_is_answered_with_clse() -> None:
    protocol = online()
    local_id, _ = protocol.open("shell:sleep 100")
    assert protocol.close(local_id) is None, "no remote id yet: nothing to send"
    assert feed(protocol, P.Packet(P.A_OKAY, 42, local_id)) == [
        Reply(P.Packet(P.A_CLSE, local_id, 42))
    ]


def test_packets_naming_another_remote_id_are_ignored_like_adbd() -> None:
    protocol = online()
    local_id, _ = protocol.open("shell:")
    feed(protocol, P.Packet(P.A_OKAY, 5, local_id))
    protocol.write(local_id, b"x")
    assert feed(protocol, P.Packet(P.A_OKAY, 6, local_id)) == []
    assert not protocol.can_write(local_id), "a forged OKAY grants no credit"
    assert feed(protocol, P.Packet(P.A_WRTE, 6, local_id, b"forged")) == []
    assert feed(protocol, P.Packet(P.A_CLSE, 6, local_id)) == []
    assert feed(protocol, P.Packet(P.A_WRTE, 5, local_id, b"real")) == [
        StreamData(local_id, b"real")
    ]
    assert feed(protocol, P.Packet(P.A_CLSE, 0, local_id)) == [StreamClosed(local_id)]


def test_malformed_okays_are_ignored() -> None:
    protocol = online()
    local_id, _ = protocol.open("shell:")
    assert feed(protocol, P.Packet(P.A_OKAY, 0, local_id)) == [], "remote id 0 is invalid"
    assert feed(protocol, P.Packet(P.A_OKAY, 5, local_id, b"\0\0\0\0")) == [], (
        "a count without delayed_ack"
    )
    assert feed(protocol, P.Packet(P.A_OKAY, 5, local_id)) == [StreamOpened(local_id)]


def test_writes_are_limited_to_max_payload() -> None:
    protocol = online(max_payload=4096)
    local_id, _ = protocol.open("shell:")
    feed(protocol, P.Packet(P.A_OKAY, 5, local_id))
    assert protocol.write_limit(local_id) == 4096
    with pytest.raises(LocalProtocolError):
        protocol.write(local_id, b"x" * 4097)


def test_delayed_ack_windows() -> None:
    protocol = online(banner=DEVICE_DELAYED, max_payload=4096)
    assert protocol.delayed_ack
    local_id, packet = protocol.open("sync:")
    assert packet.arg1 == protocol.receive_window, "OPEN announces our receive window"
    window = struct.pack("<I", 10000)
    assert feed(protocol, P.Packet(P.A_OKAY, 5, local_id, window)) == [StreamOpened(local_id)]
    protocol.write(local_id, b"a" * 4096)
    assert protocol.can_write(local_id), "a window allows several WRTEs in flight"
    protocol.write(local_id, b"a" * 4096)
    assert protocol.write_limit(local_id) == 10000 - 8192
    protocol.write(local_id, b"a" * (10000 - 8192))
    assert not protocol.can_write(local_id)
    feed(protocol, P.Packet(P.A_OKAY, 5, local_id, struct.pack("<I", 4096)))
    assert protocol.write_limit(local_id) == 4096
    taken_back = feed(protocol, P.Packet(P.A_OKAY, 5, local_id, struct.pack("<i", -4096)))
    assert not protocol.can_write(local_id), "acknowledged counts are signed"
    assert taken_back == [], "no writer is woken when the credit is not positive"
    batch = protocol.receive_window // ACK_BATCH_FRACTION
    assert protocol.acknowledge(local_id, 1234) is None, "small reads are acknowledged together"
    assert protocol.acknowledge(local_id, batch - 1235) is None
    ack = protocol.acknowledge(local_id, 1)
    assert ack is not None and ack.payload == struct.pack("<I", batch), "the whole batch at once"
    assert protocol.acknowledge(local_id, 1) is None, "a new batch starts"


def test_delayed_ack_okay_without_a_count_is_ignored() -> None:
    protocol = online(banner=DEVICE_DELAYED)
    local_id, _ = protocol.open("sync:")
    assert feed(protocol, P.Packet(P.A_OKAY, 5, local_id)) == []
    assert feed(protocol, P.Packet(P.A_OKAY, 5, local_id, b"\1\0\0")) == []
    assert not protocol.can_write(local_id)


def test_delayed_ack_needs_both_sides() -> None:
    protocol = HostProtocol(host_banner(("shell_v2",)))
    feed(protocol, P.Packet(P.A_CNXN, 0x01000001, 4096, DEVICE_DELAYED.encode()))
    assert not protocol.delayed_ack


def test_open_before_online_is_our_bug() -> None:
    with pytest.raises(LocalProtocolError):
        HostProtocol(host_banner()).open("shell:")


def test_connection_lost_reports_open_streams() -> None:
    protocol = online()
    protocol.open("shell:a")
    protocol.open("shell:b")
    protocol.connection_lost()
    assert state(protocol) is ConnectionState.CLOSED
    assert protocol.streams == {}
