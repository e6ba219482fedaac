"""The host protocol's edges: the local ids it hands out, AUTH and other packets at the wrong
time, commands it does not serve, and ids it does not know (#26 item 7)."""

from __future__ import annotations

import copy
import struct

import pytest

from adbwire.errors import LocalProtocolError, RemoteProtocolError
from adbwire.wire import packets as P
from adbwire.wire.banner import host_banner
from adbwire.wire.protocol import (
    INITIAL_RECEIVE_WINDOW,
    STLS_VERSION,
    AuthChallenge,
    Connected,
    ConnectionState,
    HostProtocol,
    Reply,
    StreamClosed,
    StreamData,
    StreamOffered,
    StreamOpened,
    StreamRefused,
    StreamWritable,
    TlsRequested,
)
from tests.wire.test_protocol import DEVICE, DEVICE_DELAYED, feed, online, state

LAST_ID = 0x7FFFFFFF


# ---------------------------------------------------------------- local ids


def test_local_ids_start_at_one_and_count_up() -> None:
    protocol = online()
    ids = [protocol.open(f"shell:{number}")[0] for number in range(3)]
    assert ids == [1, 2, 3]


def test_local_ids_wrap_to_one_never_zero_nor_past_31_bits() -> None:
    protocol = online()
    protocol._next_local_id = LAST_ID - 1
    ids = [protocol.open(f"shell:{number}")[0] for number in range(4)]
    assert ids == [LAST_ID - 1, LAST_ID, 1, 2]
    for local_id in ids:
        packet = protocol.streams[local_id]
        assert 0 < packet.local_id <= LAST_ID


def test_a_wrapped_id_skips_streams_still_open() -> None:
    protocol = online()
    held = [protocol.open(f"shell:long-lived {number}")[0] for number in range(3)]
    protocol._next_local_id = LAST_ID
    wrapped = [protocol.open(f"shell:{number}")[0] for number in range(2)]
    assert wrapped == [LAST_ID, 4], "ids 1 to 3 belong to streams still open"
    for number, local_id in enumerate(held):
        assert protocol.streams[local_id].service == f"shell:long-lived {number}"


def test_skipping_past_the_last_id_wraps_to_one() -> None:
    protocol = online()
    protocol._next_local_id = LAST_ID - 1
    top = [protocol.open("shell:a")[0], protocol.open("shell:b")[0]]
    assert top == [LAST_ID - 1, LAST_ID]
    protocol._next_local_id = LAST_ID - 1
    assert protocol.open("shell:c")[0] == 1, "both top ids are held"
    assert protocol.open("shell:d")[0] == 2


def test_an_id_freed_by_close_is_used_again_after_the_wrap() -> None:
    protocol = online()
    first, _ = protocol.open("shell:a")
    protocol.close(first)
    protocol._next_local_id = LAST_ID
    assert [protocol.open("shell:b")[0], protocol.open("shell:c")[0]] == [LAST_ID, 1]


def test_the_open_packet_names_the_local_id_and_the_service() -> None:
    protocol = online()
    local_id, packet = protocol.open("sync:")
    assert (packet.command, packet.arg0, packet.arg1) == (P.A_OPEN, local_id, 0)
    assert packet.payload == b"sync:\0"


def test_under_delayed_ack_open_announces_a_one_mebibyte_window() -> None:
    protocol = online(banner=DEVICE_DELAYED)
    _, packet = protocol.open("sync:")
    assert packet.arg1 == 1024 * 1024 == INITIAL_RECEIVE_WINDOW


@pytest.mark.parametrize(
    "event",
    [
        Connected(DEVICE, 1, 2),
        AuthChallenge(b"t"),
        TlsRequested(1),
        StreamOpened(1),
        StreamRefused(1),
        StreamData(1, b"x"),
        StreamWritable(1),
        StreamClosed(1),
        StreamOffered(7, 4096, "tcp:80"),
        Reply(P.Packet(P.A_OKAY, 1, 2)),
    ],
    ids=lambda event: type(event).__name__,
)
def test_events_are_immutable_values(event: object) -> None:
    """An event crosses from the reader thread to a stream's consumer: nobody may change it."""
    fields: tuple[str, ...] = event.__match_args__  # type: ignore[attr-defined]
    assert fields and fields == event.__slots__  # type: ignore[attr-defined]
    for field in (*fields, "anything_else"):
        with pytest.raises(AttributeError):
            setattr(event, field, None)
    with pytest.raises(AttributeError):
        delattr(event, fields[0])
    assert event == copy.copy(event) and event is not copy.copy(event)
    assert repr(event).startswith(f"{type(event).__name__}({fields[0]}=")


# ---------------------------------------------------------------- AUTH and STLS


def test_auth_after_the_connection_is_up_is_refused() -> None:
    protocol = online()
    with pytest.raises(RemoteProtocolError, match="after the connection was established"):
        feed(protocol, P.Packet(P.A_AUTH, P.AUTH_TOKEN, 0, b"t" * 20))
    assert state(protocol) is ConnectionState.ONLINE


@pytest.mark.parametrize("kind", [P.AUTH_SIGNATURE, P.AUTH_RSAPUBLICKEY, 99])
def test_auth_other_than_a_token_is_refused(kind: int) -> None:
    protocol = HostProtocol(host_banner())
    with pytest.raises(RemoteProtocolError, match=f"AUTH type {kind}"):
        feed(protocol, P.Packet(P.A_AUTH, kind, 0, b"x"))


def test_sign_and_offer_need_a_challenge_first() -> None:
    protocol = HostProtocol(host_banner())
    with pytest.raises(LocalProtocolError, match="while connecting"):
        protocol.sign(b"sig")
    with pytest.raises(LocalProtocolError, match="while connecting"):
        protocol.offer_public_key(b"key")
    protocol = online()
    with pytest.raises(LocalProtocolError, match="while online"):
        protocol.sign(b"sig")


def test_signature_and_public_key_packets() -> None:
    protocol = HostProtocol(host_banner())
    feed(protocol, P.Packet(P.A_AUTH, P.AUTH_TOKEN, 0, b"t" * 20))
    signed = protocol.sign(b"sig")
    assert (signed.command, signed.arg0, signed.arg1, signed.payload) == (
        P.A_AUTH,
        P.AUTH_SIGNATURE,
        0,
        b"sig",
    )
    offered = protocol.offer_public_key(b"key\0")
    assert (offered.command, offered.arg0, offered.arg1) == (P.A_AUTH, P.AUTH_RSAPUBLICKEY, 0)
    assert offered.payload == b"key\0", "already NUL-terminated: sent as is"


def test_under_tls_auth_is_ignored_and_stls_answered_once() -> None:
    protocol = HostProtocol(host_banner())
    with pytest.raises(LocalProtocolError):
        protocol.start_tls_packet()
    assert feed(protocol, P.Packet(P.A_STLS, STLS_VERSION, 0)) == [TlsRequested(STLS_VERSION)]
    assert state(protocol) is ConnectionState.AUTHENTICATING
    reply = protocol.start_tls_packet()
    assert (reply.command, reply.arg0, reply.arg1, reply.payload) == (
        P.A_STLS,
        STLS_VERSION,
        0,
        b"",
    )
    assert feed(protocol, P.Packet(P.A_AUTH, P.AUTH_TOKEN, 0, b"t" * 20)) == []
    assert feed(protocol, P.Packet(P.A_AUTH, 99, 0, b"t")) == []
    with pytest.raises(RemoteProtocolError, match="STLS after"):
        feed(protocol, P.Packet(P.A_STLS, STLS_VERSION, 0))
    feed(protocol, P.Packet(P.A_CNXN, 0x01000001, 4096, DEVICE.encode()))
    assert state(protocol) is ConnectionState.ONLINE


def test_stls_after_the_connection_is_up_is_refused() -> None:
    with pytest.raises(RemoteProtocolError, match="STLS after"):
        feed(online(), P.Packet(P.A_STLS, STLS_VERSION, 0))


def test_a_second_cnxn_ends_the_connection() -> None:
    with pytest.raises(RemoteProtocolError, match="second CNXN"):
        feed(online(), P.Packet(P.A_CNXN, 0x01000001, 4096, DEVICE.encode()))


@pytest.mark.parametrize(
    ("announced", "expected"),
    [(0, 256), (100, 256), (4096, 4096), (P.MAX_PAYLOAD, P.MAX_PAYLOAD), (2**31, P.MAX_PAYLOAD)],
)
def test_max_payload_is_the_smaller_one_but_at_least_256(announced: int, expected: int) -> None:
    protocol = HostProtocol(host_banner(), max_payload=P.MAX_PAYLOAD)
    events = feed(protocol, P.Packet(P.A_CNXN, 0x01000001, announced, DEVICE.encode()))
    assert events == [Connected(DEVICE, 0x01000001, expected)]
    assert protocol.max_payload == expected


def test_the_version_is_the_smaller_one() -> None:
    protocol = HostProtocol(host_banner())
    feed(protocol, P.Packet(P.A_CNXN, 0x02000000, 4096, DEVICE.encode()))
    assert protocol.version == P.VERSION_SKIP_CHECKSUM


# ---------------------------------------------------------------- commands we do not serve


def test_the_long_retired_sync_command_ends_the_connection() -> None:
    """(The device's OPEN is an offer the runtime answers: tests/wire/test_protocol_offers.py.)"""
    with pytest.raises(RemoteProtocolError, match="unexpected SYNC packet"):
        feed(online(), P.Packet(P.A_SYNC, 5, 0, b"tcp:80\0"))


def test_an_unknown_command_is_refused_by_the_header_decoder() -> None:
    raw = struct.pack("<6I", 0x4B4E554A, 1, 0, 0, 0, 0x4B4E554A ^ 0xFFFFFFFF)
    with pytest.raises(RemoteProtocolError, match="unknown ADB command"):
        P.decode_header(raw, max_payload=4096)


# ---------------------------------------------------------------- ids we do not know


def test_calls_on_an_unknown_local_id_are_our_bug() -> None:
    protocol = online()
    for call in (protocol.can_write, protocol.write_limit):
        with pytest.raises(LocalProtocolError, match="no open stream with local id 7"):
            call(7)
    with pytest.raises(LocalProtocolError, match="local id 7"):
        protocol.write(7, b"x")
    assert protocol.acknowledge(7, 10) is None
    assert protocol.close(7) is None


def test_writing_before_the_device_accepted_the_stream_is_our_bug() -> None:
    protocol = online()
    local_id, _ = protocol.open("shell:")
    with pytest.raises(LocalProtocolError, match="phase opening"):
        protocol.write(local_id, b"x")
    assert protocol.acknowledge(local_id, 1) is None, "nothing to acknowledge yet"


def test_an_empty_write_is_our_bug() -> None:
    protocol = online()
    local_id, _ = protocol.open("shell:")
    feed(protocol, P.Packet(P.A_OKAY, 5, local_id))
    with pytest.raises(LocalProtocolError, match="WRTE of 0 bytes"):
        protocol.write(local_id, b"")


def test_data_and_close_for_an_unknown_local_id_are_dropped() -> None:
    protocol = online()
    local_id, _ = protocol.open("shell:")
    feed(protocol, P.Packet(P.A_OKAY, 5, local_id))
    assert feed(protocol, P.Packet(P.A_WRTE, 5, 999, b"stray")) == []
    assert feed(protocol, P.Packet(P.A_CLSE, 5, 999)) == []
    assert set(protocol.streams) == {local_id}
    assert protocol.can_write(local_id)


def test_an_okay_for_an_unknown_local_id_is_answered_with_its_close() -> None:
    protocol = online()
    assert feed(protocol, P.Packet(P.A_OKAY, 42, 999)) == [Reply(P.Packet(P.A_CLSE, 999, 42))]


@pytest.mark.parametrize(("remote", "local"), [(0, 999), (42, 0), (0, 0)])
def test_an_okay_with_a_zero_id_is_ignored_like_adb(remote: int, local: int) -> None:
    """adb drops OKAY/WRTE naming id 0. Answering OKAY(42, 0) with CLSE(0, 42) would ask the
    device to close its stream 42 whoever it belongs to."""
    protocol = online()
    assert feed(protocol, P.Packet(P.A_OKAY, remote, local)) == []


def test_a_close_before_the_open_is_answered_does_not_open_it() -> None:
    protocol = online()
    local_id, _ = protocol.open("shell:")
    assert protocol.close(local_id) is None
    assert local_id not in protocol.streams
    assert feed(protocol, P.Packet(P.A_WRTE, 5, local_id, b"x")) == []


def test_classic_flow_control_acknowledges_an_empty_write() -> None:
    protocol = online()
    local_id, _ = protocol.open("shell:")
    feed(protocol, P.Packet(P.A_OKAY, 5, local_id))
    assert feed(protocol, P.Packet(P.A_WRTE, 5, local_id, b"")) == [
        Reply(P.Packet(P.A_OKAY, local_id, 5))
    ]


def test_delayed_ack_owes_nothing_for_an_empty_write() -> None:
    protocol = online(banner=DEVICE_DELAYED)
    local_id, _ = protocol.open("sync:")
    feed(protocol, P.Packet(P.A_OKAY, 5, local_id, struct.pack("<I", 100)))
    assert feed(protocol, P.Packet(P.A_WRTE, 5, local_id, b"")) == []


def test_an_okay_returns_one_packet_of_credit_without_delayed_ack() -> None:
    protocol = online()
    local_id, _ = protocol.open("shell:")
    assert feed(protocol, P.Packet(P.A_OKAY, 5, local_id)) == [StreamOpened(local_id)]
    protocol.write(local_id, b"x")
    assert feed(protocol, P.Packet(P.A_OKAY, 5, local_id)) == [StreamWritable(local_id)]
    assert feed(protocol, P.Packet(P.A_OKAY, 5, local_id)) == [StreamWritable(local_id)]
    protocol.write(local_id, b"y")
    assert not protocol.can_write(local_id), "repeated OKAYs do not add up to two packets"


def test_a_token_is_a_challenge_carrying_its_bytes() -> None:
    protocol = HostProtocol(host_banner())
    token = bytes(range(20))
    assert feed(protocol, P.Packet(P.A_AUTH, P.AUTH_TOKEN, 0, token)) == [AuthChallenge(token)]


def test_after_the_link_is_lost_nothing_opens() -> None:
    protocol = online()
    protocol.connection_lost()
    with pytest.raises(LocalProtocolError, match="cannot open 'shell:' while closed"):
        protocol.open("shell:")


def test_each_batch_of_credit_counts_from_zero() -> None:
    protocol = online(banner=DEVICE_DELAYED)
    local_id, _ = protocol.open("sync:")
    feed(protocol, P.Packet(P.A_OKAY, 5, local_id, struct.pack("<I", 100)))
    batch = protocol.receive_window // 4
    for _ in range(2):
        assert protocol.acknowledge(local_id, batch - 1) is None
        ack = protocol.acknowledge(local_id, 1)
        assert ack is not None
        assert (ack.command, ack.arg0, ack.arg1) == (P.A_OKAY, local_id, 5)
        assert ack.payload == struct.pack("<I", batch)


def test_a_stream_has_no_credit_until_the_device_grants_it() -> None:
    protocol = online(banner=DEVICE_DELAYED)
    local_id, _ = protocol.open("sync:")
    assert protocol.write_limit(local_id) == 0
    assert not protocol.can_write(local_id)
    feed(protocol, P.Packet(P.A_OKAY, 5, local_id, struct.pack("<I", 100)))
    assert protocol.write_limit(local_id) == 100
