"""Fuzz the shell v2 packet decoder: any bytes in any split, only typed errors, bounded
buffering; well-formed packets survive any split unchanged."""

from __future__ import annotations

import struct

from hypothesis import given
from hypothesis import strategies as st

from adbwire.errors import RemoteProtocolError
from adbwire.wire.services.shell_protocol import (
    HEADER_SIZE,
    MAX_PACKET_DATA,
    ShellPacketDecoder,
    ShellPacketId,
    encode,
)
from tests.fuzz.strategies import FUZZ, pieces, split_points

PACKET_IDS = list(ShellPacketId)


@st.composite
def shell_streams(draw: st.DrawFn) -> bytes:
    """Concatenated packets, some with lying lengths or unknown ids, maybe cut short."""
    parts = []
    for _ in range(draw(st.integers(0, 6))):
        data = draw(st.binary(max_size=200))
        packet_id = draw(st.integers(0, 255))
        length = draw(st.just(len(data)) | st.integers(0, 0xFFFFFFFF))
        parts.append(struct.pack("<BI", packet_id, length) + data)
    stream = b"".join(parts)
    return stream[: draw(st.integers(0, len(stream)))] if draw(st.booleans()) else stream


@FUZZ
@given(st.data())
def test_any_bytes_in_any_split_give_packets_or_a_protocol_error(data: st.DataObject) -> None:
    stream = data.draw(shell_streams() | st.binary(max_size=2048))
    decoder = ShellPacketDecoder()
    total = 0
    try:
        for piece in pieces(stream, data.draw(split_points(len(stream)))):
            for packet_id, payload in decoder.feed(piece):
                assert packet_id in PACKET_IDS
                assert len(payload) <= MAX_PACKET_DATA
                total += HEADER_SIZE + len(payload)
            assert decoder.pending <= len(stream)
    except RemoteProtocolError as error:
        assert "shell protocol packet of" in str(error)
        return
    assert total + decoder.pending <= len(stream)


@FUZZ
@given(
    st.lists(st.tuples(st.sampled_from(PACKET_IDS), st.binary(max_size=300)), max_size=8),
    st.data(),
)
def test_well_formed_packets_survive_any_split(
    packets: list[tuple[ShellPacketId, bytes]], data: st.DataObject
) -> None:
    stream = b"".join(encode(packet_id, payload) for packet_id, payload in packets)
    decoder = ShellPacketDecoder()
    decoded = []
    for piece in pieces(stream, data.draw(split_points(len(stream)))):
        decoded += decoder.feed(piece)
    assert decoded == packets
    assert decoder.pending == 0
