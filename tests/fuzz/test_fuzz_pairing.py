"""Fuzz what a pairing peer controls: packet headers, PeerInfo records, SPAKE2 messages.

Each either decodes to something within its limits or raises PairingError; nothing else
escapes (no struct.error, IndexError, ValueError from the curve code)."""

from __future__ import annotations

import struct

from hypothesis import given
from hypothesis import strategies as st

from adbwire.errors import PairingError
from adbwire.wire.pairing.messages import (
    MAX_PAYLOAD_SIZE,
    PEER_INFO_SIZE,
    PacketType,
    PeerInfo,
    decode_header,
)
from adbwire.wire.pairing.session import CLIENT_NAME, SERVER_NAME
from adbwire.wire.pairing.spake2 import Spake2, Spake2Role
from tests.fuzz.strategies import FUZZ


@st.composite
def headers(draw: st.DrawFn) -> bytes:
    """6 bytes: mostly near-valid fields (version 1, known types, sizes around the limit),
    sometimes anything at all."""
    if draw(st.booleans()):
        return draw(st.binary(min_size=6, max_size=6))
    version = draw(st.just(1) | st.integers(0, 255))
    kind = draw(st.sampled_from(list(PacketType)) | st.integers(0, 255))
    size = draw(st.integers(0, 2 * MAX_PAYLOAD_SIZE) | st.integers(0, 0xFFFFFFFF))
    return struct.pack(">BBI", version, kind, size)


@FUZZ
@given(headers(), st.sampled_from(list(PacketType)))
def test_a_header_is_within_limits_or_refused(header: bytes, expected: PacketType) -> None:
    try:
        size = decode_header(header, expected)
    except PairingError:
        return
    assert header[0] == 1 and header[1] == expected
    assert 0 < size <= MAX_PAYLOAD_SIZE


@FUZZ
@given(
    st.binary(max_size=PEER_INFO_SIZE + 16)
    | st.binary(min_size=PEER_INFO_SIZE, max_size=PEER_INFO_SIZE)
)
def test_a_peer_info_is_8192_bytes_or_refused(record: bytes) -> None:
    try:
        info = PeerInfo.decode(record)
    except PairingError:
        assert len(record) != PEER_INFO_SIZE
        return
    assert len(record) == PEER_INFO_SIZE
    assert b"\0" not in info.value and len(info.value) < PEER_INFO_SIZE


@FUZZ
@given(st.binary(max_size=40))
def test_a_spake2_message_gives_a_key_or_is_refused(message: bytes) -> None:
    bob = Spake2(Spake2Role.BOB, SERVER_NAME, CLIENT_NAME)
    bob.generate_message(b"123456" + bytes(64))
    try:
        key = bob.process_message(message)
    except PairingError:
        return
    assert len(message) == 32 and len(key) == 64
