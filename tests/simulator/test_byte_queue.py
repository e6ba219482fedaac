"""The device stream's byte queues, and the writes that skip the queue: one WRTE's payload is
cut from a long piece or joined from short ones, and a write goes at once only when nothing
is queued ahead of it and flow control allows."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from adbwire.testing.byte_queue import ByteQueue
from adbwire.testing.faults import Faults
from adbwire.testing.stream import DeviceStream, OutgoingPacket
from adbwire.wire import packets as P

if TYPE_CHECKING:
    from _typeshed import ReadableBuffer


def _queue(*pieces: bytes) -> ByteQueue:
    queue = ByteQueue()
    for piece in pieces:
        queue.append(memoryview(piece))
    return queue


def test_a_long_piece_is_cut_to_the_payload_limit() -> None:
    queue = _queue(b"abcdefgh", b"ij")
    chunk, size = queue.take_payload(5)
    assert (bytes(chunk), size, queue.size) == (b"abcde", 5, 5)
    chunk, size = queue.take_payload(5)
    assert (bytes(chunk), size, queue.size) == (b"fghij", 5, 0)
    assert not queue


def test_short_pieces_are_joined_up_to_the_limit() -> None:
    queue = _queue(b"ab", b"cd", b"efg")
    chunk, size = queue.take_payload(5)
    assert (bytes(chunk), size, queue.size) == (b"abcde", 5, 2)
    chunk, size = queue.take_payload(5)
    assert (bytes(chunk), size, queue.size) == (b"fg", 2, 0)


def test_take_stops_at_the_limit_and_counts() -> None:
    queue = _queue(b"abc", b"defg")
    assert [bytes(piece) for piece in queue.take(5)] == [b"abc", b"de"]
    assert queue.size == 2
    assert [bytes(piece) for piece in queue.take(10)] == [b"fg"]
    assert (queue.size, bool(queue)) == (0, False)


class RecordingSink:
    def __init__(self) -> None:
        self.sent: list[tuple[int, int, int, bytes]] = []

    def send_packet(
        self, command: int, arg0: int, arg1: int, payload: ReadableBuffer = b""
    ) -> None:
        self.sent.append((command, arg0, arg1, bytes(payload)))

    def send_packets(self, packets: Sequence[OutgoingPacket]) -> None:
        for packet in packets:
            self.send_packet(*packet)

    def forget_stream(self, local_id: int) -> None:
        pass


def test_writes_behind_one_in_flight_wait_for_the_okay_and_go_as_one() -> None:
    sink = RecordingSink()
    stream = DeviceStream(sink, 5, 9, "shell:", max_payload=8, send_window=None, faults=Faults())
    stream.write(b"first")  # nothing ahead of it: out at once
    stream.write(b"se")
    stream.write(b"cond+more")  # one WRTE in flight: these wait
    assert sink.sent == [(P.A_WRTE, 5, 9, b"first")]
    stream.on_okay(None)
    assert sink.sent[1:] == [(P.A_WRTE, 5, 9, b"second+m")]
    stream.on_okay(None)
    assert sink.sent[2:] == [(P.A_WRTE, 5, 9, b"ore")]


def test_a_write_larger_than_the_payload_limit_is_split() -> None:
    sink = RecordingSink()
    stream = DeviceStream(sink, 5, 9, "shell:", max_payload=4, send_window=10, faults=Faults())
    stream.write(b"abcdefghij")
    assert [packet[3] for packet in sink.sent] == [b"abcd", b"efgh", b"ij"]
    stream.write(b"k")  # the window (10 bytes) is spent: it waits for credit
    assert len(sink.sent) == 3
    stream.on_okay(1)
    assert sink.sent[3:] == [(P.A_WRTE, 5, 9, b"k")]
