"""The simulator's buffered packet reader: any split of the byte stream, batches, big payloads,
and recycled payload chunks that are never reused while a payload still points into them."""

from __future__ import annotations

import gc
from collections.abc import Sequence

import pytest

from adbwire.errors import RemoteProtocolError
from adbwire.testing.packet_reader import (
    CHUNKED_MIN,
    RECV_BUFFER_SIZE,
    ChunkStore,
    PacketReader,
    RawPacket,
)
from adbwire.wire import packets as P

MAX_PAYLOAD = P.MAX_PAYLOAD


class Source:
    """A byte stream that arrives in the pieces given, then ends."""

    def __init__(self, data: bytes, cuts: Sequence[int] = ()) -> None:
        self._data = data
        self._bounds = [*sorted(set(cuts)), len(data)]
        self._position = 0
        self.calls = 0
        self.view_sizes: list[int] = []

    def recv_into(self, view: memoryview) -> int:
        self.calls += 1
        self.view_sizes.append(len(view))
        while self._bounds and self._bounds[0] <= self._position:
            self._bounds.pop(0)
        if not self._bounds:
            return 0
        count = min(len(view), self._bounds[0] - self._position)
        view[:count] = self._data[self._position : self._position + count]
        self._position += count
        return count


def packet(command: int, arg0: int, arg1: int, payload: bytes = b"") -> bytes:
    return P.Packet(command, arg0, arg1, payload).encode(with_checksum=True)


def fill(size: int, seed: int) -> bytes:
    return bytes((seed + index * 7) % 256 for index in range(251)) * (size // 251) + bytes(
        size % 251
    )


SMALL = [
    (P.A_OPEN, 7, 0, b"shell:echo hi\0"),
    (P.A_OKAY, 7, 1, b""),
    (P.A_WRTE, 7, 1, b"\x00\x05\x00\x00\x00hello"),
    (P.A_OKAY, 7, 1, b"\x00\x00\x10\x00"),
    (P.A_CLSE, 7, 1, b""),
]


def read_all(reader: PacketReader, max_payload: int = MAX_PAYLOAD) -> list[RawPacket]:
    packets = []
    while (found := reader.read_packet(max_payload)) is not None:
        packets.append(found)
    return packets


def as_tuples(packets: list[RawPacket]) -> list[tuple[int, int, int, bytes]]:
    return [(p.command, p.arg0, p.arg1, bytes(p.payload)) for p in packets]


def test_every_split_of_small_packets_gives_the_same_packets() -> None:
    data = b"".join(packet(*fields) for fields in SMALL)
    for cut in range(len(data) + 1):
        reader = PacketReader(Source(data, [cut]).recv_into)
        assert as_tuples(read_all(reader)) == SMALL, f"split at byte {cut}"


def test_one_byte_at_a_time() -> None:
    data = b"".join(packet(*fields) for fields in SMALL)
    reader = PacketReader(Source(data, range(len(data))).recv_into)
    assert as_tuples(read_all(reader)) == SMALL


def test_packets_that_arrive_together_need_one_recv() -> None:
    data = b"".join(packet(*fields) for fields in SMALL)
    source = Source(data)
    reader = PacketReader(source.recv_into)
    for expected in SMALL:
        found = reader.read_packet(MAX_PAYLOAD)
        assert found is not None
        assert as_tuples([found]) == [expected]
    assert source.calls == 1, "every packet came out of the first recv"
    assert reader.read_packet(MAX_PAYLOAD) is None
    assert source.calls == 2


@pytest.mark.parametrize("size", [CHUNKED_MIN - 1, CHUNKED_MIN, 300_000, MAX_PAYLOAD])
def test_a_large_payload_between_small_packets(size: int) -> None:
    big = fill(size, 3)
    fields = [SMALL[0], (P.A_WRTE, 7, 1, big), SMALL[4]]
    data = b"".join(packet(*f) for f in fields)
    first_end = len(packet(*SMALL[0]))
    big_end = first_end + P.HEADER_SIZE + size
    # Splits around every boundary that matters, plus a spread through the payload.
    cuts = {0, 1, 23, 24, 25, first_end - 1, first_end, first_end + 1, first_end + 23}
    cuts |= {first_end + 24, first_end + 25, big_end - 1, big_end, big_end + 1}
    cuts |= {RECV_BUFFER_SIZE - 1, RECV_BUFFER_SIZE, RECV_BUFFER_SIZE + 1}
    cuts |= set(range(first_end, big_end, 9973))
    for cut in sorted(c for c in cuts if 0 <= c <= len(data)):
        reader = PacketReader(Source(data, [cut]).recv_into)
        assert as_tuples(read_all(reader)) == fields, f"split at byte {cut}"


def test_the_rest_of_a_large_payload_is_received_in_place() -> None:
    big = fill(MAX_PAYLOAD, 5)
    data = packet(P.A_WRTE, 7, 1, big)
    source = Source(data, range(0, len(data), 4096))  # the kernel hands out 4 KiB at a time
    reader = PacketReader(source.recv_into)
    found = reader.read_packet(MAX_PAYLOAD)
    assert found is not None and bytes(found.payload) == big
    # Only the first recv went into the reader's buffer; the others straight into the payload.
    assert source.view_sizes[0] == RECV_BUFFER_SIZE
    rest = P.HEADER_SIZE + MAX_PAYLOAD - 4096
    assert source.view_sizes[1:] == list(range(rest, 0, -4096))


def test_packets_keep_coming_after_a_large_payload_received_in_place() -> None:
    fields = [(P.A_WRTE, 7, 1, fill(200_000, seed)) for seed in range(3)] + [SMALL[4]]
    data = b"".join(packet(*f) for f in fields)
    reader = PacketReader(Source(data, range(0, len(data), 50_000)).recv_into)
    assert as_tuples(read_all(reader)) == fields


def test_end_of_stream_in_the_middle_of_a_packet() -> None:
    data = packet(*SMALL[0]) + packet(P.A_WRTE, 7, 1, fill(100_000, 1))
    for end in (len(packet(*SMALL[0])) + 10, len(data) - 1):
        reader = PacketReader(Source(data[:end]).recv_into)
        assert as_tuples(read_all(reader)) == [SMALL[0]]


@pytest.mark.parametrize(
    ("raw", "message"),
    [
        (packet(P.A_OKAY, 1, 2)[:20] + b"XXXX", "bad packet magic"),
        (bytes.fromhex("01020304") + bytes(16) + bytes.fromhex("fefdfcfb"), "unknown ADB"),
        (packet(P.A_WRTE, 1, 2, bytes(5000)), "more than the negotiated maximum of 4096"),
    ],
)
def test_bad_headers_are_rejected_as_decode_header_does(raw: bytes, message: str) -> None:
    reader = PacketReader(Source(raw).recv_into)
    with pytest.raises(RemoteProtocolError, match=message):
        reader.read_packet(4096)


# ---- recycled chunks ------------------------------------------------------------------


def large_stream(count: int, size: int = MAX_PAYLOAD) -> tuple[bytes, list[bytes]]:
    payloads = [fill(size, seed) for seed in range(count)]
    return b"".join(packet(P.A_WRTE, 7, 1, p) for p in payloads), payloads


def test_a_payload_still_referenced_is_never_overwritten() -> None:
    data, payloads = large_stream(12)
    store = ChunkStore(limit=2)
    reader = PacketReader(Source(data, range(0, len(data), 70_000)).recv_into, chunks=store)
    kept = read_all(reader)  # every payload stays referenced
    assert [bytes(p.payload) for p in kept] == payloads
    assert store.allocated == 12, "no chunk can be reused while its payload is alive"


def test_chunks_are_reused_once_their_payloads_are_gone() -> None:
    data, payloads = large_stream(12)
    store = ChunkStore(limit=4)
    reader = PacketReader(Source(data, range(0, len(data), 70_000)).recv_into, chunks=store)
    while (found := reader.read_packet(MAX_PAYLOAD)) is not None:
        assert bytes(found.payload) == payloads.pop(0)
        del found
    assert store.allocated <= 2, "the chunks of consumed payloads were not reused"


def test_a_slice_kept_by_a_consumer_keeps_its_chunk_busy() -> None:
    data, payloads = large_stream(6)
    store = ChunkStore(limit=2)
    reader = PacketReader(Source(data).recv_into, chunks=store)
    first = reader.read_packet(MAX_PAYLOAD)
    assert first is not None
    piece = first.payload[100:200]  # what a service might still hold from the inbox
    del first
    gc.collect()
    rest = read_all(reader)
    assert [bytes(p.payload) for p in rest] == payloads[1:]
    assert bytes(piece) == payloads[0][100:200], "a chunk was reused under a live slice"


def test_smaller_payloads_share_a_chunk() -> None:
    size = 200_000
    data, payloads = large_stream(5, size)
    store = ChunkStore()
    reader = PacketReader(Source(data).recv_into, chunks=store)
    kept = read_all(reader)
    assert [bytes(p.payload) for p in kept] == payloads
    assert store.allocated == 1, "five 200 kB payloads fit one 1 MiB chunk"


def test_readers_share_the_chunks_of_their_store() -> None:
    store = ChunkStore()
    for _ in range(3):
        data, payloads = large_stream(3)
        reader = PacketReader(Source(data).recv_into, chunks=store)
        for expected in payloads:
            found = reader.read_packet(MAX_PAYLOAD)
            assert found is not None and bytes(found.payload) == expected
            del found
    assert store.allocated <= 2
