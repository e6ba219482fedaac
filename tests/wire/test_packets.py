from __future__ import annotations

import struct

import pytest

from adbwire.errors import RemoteProtocolError
from adbwire.wire import packets as P

# (packet, with_checksum, exact wire bytes) — checked in both directions.
WIRE_TABLE = [
    (
        P.Packet(P.A_OKAY, 7, 3),
        False,
        b"OKAY" + struct.pack("<5I", 7, 3, 0, 0, 0x59414B4F ^ 0xFFFFFFFF),
    ),
    (
        P.Packet(P.A_WRTE, 1, 2, b"hi"),
        True,
        b"WRTE" + struct.pack("<5I", 1, 2, 2, ord("h") + ord("i"), 0x45545257 ^ 0xFFFFFFFF) + b"hi",
    ),
    (
        P.Packet(P.A_WRTE, 1, 2, b"hi"),
        False,
        b"WRTE" + struct.pack("<5I", 1, 2, 2, 0, 0x45545257 ^ 0xFFFFFFFF) + b"hi",
    ),
    (
        P.Packet(P.A_CNXN, 0x01000001, 0x100000, b"host::\0"),
        True,
        b"CNXN"
        + struct.pack("<5I", 0x01000001, 0x100000, 7, sum(b"host::\0"), 0x4E584E43 ^ 0xFFFFFFFF)
        + b"host::\0",
    ),
]


@pytest.mark.parametrize(("packet", "with_checksum", "wire"), WIRE_TABLE)
def test_packet_encodes_to_exact_bytes(packet: P.Packet, with_checksum: bool, wire: bytes) -> None:
    assert packet.encode(with_checksum=with_checksum) == wire


@pytest.mark.parametrize(("packet", "with_checksum", "wire"), WIRE_TABLE)
def test_wire_bytes_decode_to_the_packet(
    packet: P.Packet, with_checksum: bool, wire: bytes
) -> None:
    header = P.decode_header(wire[:24], max_payload=P.MAX_PAYLOAD)
    payload = wire[24:]
    assert (header.command, header.arg0, header.arg1, header.length) == (
        packet.command,
        packet.arg0,
        packet.arg1,
        len(packet.payload),
    )
    if with_checksum:
        P.verify_payload(header, payload)


def test_bad_magic_is_the_peers_fault() -> None:
    raw = bytearray(P.Packet(P.A_OKAY, 1, 1).encode(with_checksum=False))
    raw[20] ^= 0xFF
    with pytest.raises(RemoteProtocolError, match="magic"):
        P.decode_header(bytes(raw), max_payload=P.MAX_PAYLOAD)


def test_unknown_command_is_refused() -> None:
    raw = struct.pack("<6I", 0x41414141, 0, 0, 0, 0, 0x41414141 ^ 0xFFFFFFFF)
    with pytest.raises(RemoteProtocolError, match="unknown ADB command"):
        P.decode_header(raw, max_payload=P.MAX_PAYLOAD)


def test_length_over_the_negotiated_maximum_is_refused() -> None:
    raw = P.Packet(P.A_WRTE, 1, 1, b"x" * 4097).header(with_checksum=False)
    with pytest.raises(RemoteProtocolError, match="more than the negotiated maximum of 4096"):
        P.decode_header(raw, max_payload=4096)
    assert P.decode_header(raw, max_payload=4097).length == 4097


def test_checksum_mismatch_names_both_values() -> None:
    wire = P.Packet(P.A_WRTE, 1, 2, b"abc").encode(with_checksum=True)
    header = P.decode_header(wire[:24], max_payload=P.MAX_PAYLOAD)
    with pytest.raises(RemoteProtocolError, match="checksum mismatch"):
        P.verify_payload(header, b"abd")


def test_short_header_is_refused() -> None:
    with pytest.raises(RemoteProtocolError, match="short packet header"):
        P.decode_header(b"OKAY", max_payload=P.MAX_PAYLOAD)
