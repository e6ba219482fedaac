"""The pairing packet header and the PeerInfo record, byte for byte."""

from __future__ import annotations

import pytest

from adbwire.errors import PairingError
from adbwire.wire.pairing.messages import (
    HEADER_SIZE,
    MAX_PAYLOAD_SIZE,
    PEER_INFO_SIZE,
    PacketType,
    PeerInfo,
    PeerInfoType,
    decode_header,
    encode_header,
)


def test_header_layout() -> None:
    assert HEADER_SIZE == 6
    assert encode_header(PacketType.SPAKE2_MSG, 32) == bytes([1, 0, 0, 0, 0, 32])
    assert encode_header(PacketType.PEER_INFO, 8208) == bytes([1, 1, 0, 0, 0x20, 0x10])
    assert decode_header(bytes([1, 1, 0, 0, 0x20, 0x10]), PacketType.PEER_INFO) == 8208


def test_largest_payload_is_twice_a_peer_info() -> None:
    assert MAX_PAYLOAD_SIZE == 16384
    header = encode_header(PacketType.PEER_INFO, MAX_PAYLOAD_SIZE)
    assert decode_header(header, PacketType.PEER_INFO) == MAX_PAYLOAD_SIZE


@pytest.mark.parametrize(
    ("header", "message"),
    [
        (bytes([2, 0, 0, 0, 0, 32]), "version 2"),
        (bytes([0, 0, 0, 0, 0, 32]), "version 0"),
        (bytes([1, 1, 0, 0, 0, 32]), "PEER_INFO packet where SPAKE2_MSG"),
        (bytes([1, 7, 0, 0, 0, 32]), "a type-7 packet where SPAKE2_MSG"),
        (bytes([1, 0, 0, 0, 0, 0]), "0-byte"),
        (bytes([1, 0, 0, 0, 0x40, 0x01]), "16385-byte"),
        (bytes([1, 0, 0xFF, 0xFF, 0xFF, 0xFF]), "4294967295-byte"),
    ],
)
def test_bad_headers_are_refused(header: bytes, message: str) -> None:
    with pytest.raises(PairingError, match=message):
        decode_header(header, PacketType.SPAKE2_MSG)


def test_we_never_announce_an_impossible_payload() -> None:
    with pytest.raises(ValueError):
        encode_header(PacketType.PEER_INFO, MAX_PAYLOAD_SIZE + 1)
    with pytest.raises(ValueError):
        encode_header(PacketType.PEER_INFO, 0)


def test_peer_info_is_a_type_byte_and_a_zero_filled_c_string() -> None:
    record = PeerInfo(PeerInfoType.ADB_RSA_PUB_KEY, b"QAAAAB== me@host").encode()
    assert len(record) == PEER_INFO_SIZE == 8192
    assert record[0] == 0
    assert record[1:17] == b"QAAAAB== me@host"
    assert record[17:] == bytes(8192 - 17)
    assert PeerInfo.decode(record) == PeerInfo(0, b"QAAAAB== me@host")


def test_peer_info_reads_up_to_the_first_nul_as_aosp_does() -> None:
    record = bytes([1]) + b"adb-SERIAL-abc123\0garbage".ljust(8191, b"x")
    info = PeerInfo.decode(record)
    assert info.type == PeerInfoType.ADB_DEVICE_GUID
    assert info.text == "adb-SERIAL-abc123"


@pytest.mark.parametrize("size", [0, 8191, 8193, 100])
def test_peer_info_of_the_wrong_size_is_refused(size: int) -> None:
    with pytest.raises(PairingError, match=f"{size} bytes"):
        PeerInfo.decode(bytes(size))


def test_peer_info_keeps_room_for_the_nul() -> None:
    PeerInfo(0, b"k" * 8190).encode()
    with pytest.raises(ValueError):
        PeerInfo(0, b"k" * 8191).encode()
    with pytest.raises(ValueError):
        PeerInfo(0, b"a\0b").encode()
