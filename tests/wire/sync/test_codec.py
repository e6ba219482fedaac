"""The sans-IO sync codec: request bytes exactly as file_sync_protocol.h lays them out, and
replies decoded from bytes however the stream happens to cut them."""

from __future__ import annotations

import struct

import pytest

from adbwire.errors import RemoteProtocolError, UsageError
from adbwire.wire.services.sync import codec
from adbwire.wire.services.sync.codec import (
    NEED_DATA,
    DataChunk,
    DataDone,
    EntryReply,
    Expect,
    Fail,
    ListDone,
    NeedData,
    Okay,
    StatReply,
    SyncEvent,
)
from adbwire.wire.services.sync.parser import ResponseParser

STAT_V2 = struct.Struct("<4sIQQIIIIQqqq")
DENT_V2 = struct.Struct("<4sIQQIIIIQqqqI")
DENT_V1 = struct.Struct("<4sIIII")


@pytest.mark.parametrize(
    ("built", "wire"),
    [
        (codec.encode_request(codec.STAT, "/sdcard"), b"STAT\x07\x00\x00\x00/sdcard"),
        (codec.encode_request(codec.LIS2, "/"), b"LIS2\x01\x00\x00\x00/"),
        (codec.encode_send_v1("/d/f", 0o100644), b"SEND\x0a\x00\x00\x00/d/f,33188"),
        (
            codec.encode_send_v2("/d/f", 0o100755),
            b"SND2\x04\x00\x00\x00/d/fSND2" + struct.pack("<II", 0o100755, 0),
        ),
        (codec.encode_recv_v2("/x"), b"RCV2\x02\x00\x00\x00/xRCV2\x00\x00\x00\x00"),
        (codec.encode_done(0x1_2345_6789), b"DONE\x89\x67\x45\x23"),
        (codec.encode_request(codec.STAT, "/é"), b"STAT\x03\x00\x00\x00/\xc3\xa9"),
    ],
)
def test_requests_have_the_documented_layout(built: bytes, wire: bytes) -> None:
    assert built == wire


def test_paths_up_to_1024_bytes_are_accepted_and_longer_refused() -> None:
    longest = "/" + "a" * 1023
    assert len(codec.encode_request(codec.STAT, longest)) == 8 + 1024
    with pytest.raises(UsageError, match="too long: 1025 bytes"):
        codec.encode_request(codec.STAT, longest + "b")


def test_send_v1_counts_the_mode_suffix_in_the_limit() -> None:
    path = "/" + "a" * 1016  # 1017 bytes + ",33188" = 1023
    codec.encode_send_v1(path, 0o100644)
    with pytest.raises(UsageError, match="too long"):
        codec.encode_send_v1(path + "bb", 0o100644)
    codec.encode_send_v2(path + "bb", 0o100644)  # SND2 sends the path alone


def test_nul_in_a_path_is_refused() -> None:
    with pytest.raises(UsageError, match="NUL"):
        codec.encode_request(codec.STAT, "/a\0b")


def events(parser: ResponseParser, expect: Expect) -> list[SyncEvent]:
    found: list[SyncEvent] = []
    while not isinstance(event := parser.next_event(expect), NeedData):
        found.append(event)
    return found


def feed_in_pieces(data: bytes, expect: Expect, piece: int) -> list[SyncEvent]:
    """Feed `data` `piece` bytes at a time, collecting events (data chunks copied out)."""
    parser = ResponseParser()
    found: list[SyncEvent] = []
    for start in range(0, len(data), piece):
        parser.feed(data[start : start + piece])
        for event in events(parser, expect):
            found.append(
                DataChunk(memoryview(bytes(event.data))) if isinstance(event, DataChunk) else event
            )
    assert parser.buffered == 0
    return found


def test_stat_v1_reply() -> None:
    reply = struct.pack("<4sIII", b"STAT", 0o100600, 1234, 1_700_000_000)
    (event,) = feed_in_pieces(reply, Expect.STAT_V1, 3)
    assert isinstance(event, StatReply)
    assert (event.stat.mode, event.stat.size, event.stat.mtime) == (0o100600, 1234, 1_700_000_000)
    assert event.stat.is_file and event.stat.ino is None


def test_stat_v2_reply_keeps_64_bit_sizes_and_the_errno() -> None:
    size = 5 * 1024**3 + 7
    reply = STAT_V2.pack(b"STA2", 0, 64769, 42, 0o100644, 1, 2000, 3000, size, 10, 20, 30)
    (event,) = feed_in_pieces(reply, Expect.STAT_V2, 5)
    assert isinstance(event, StatReply)
    assert event.error == 0
    assert (event.stat.size, event.stat.ino, event.stat.uid, event.stat.mtime) == (
        size,
        42,
        2000,
        20,
    )
    missing = STAT_V2.pack(b"LST2", 2, *([0] * 10))
    (event,) = feed_in_pieces(missing, Expect.STAT_V2, 72)
    assert isinstance(event, StatReply) and event.error == 2
    assert codec.errno_text(event.error) == "No such file or directory"


@pytest.mark.parametrize("piece", [1, 7, 1000])
def test_listing_v1_and_v2_with_full_size_done(piece: int) -> None:
    v1 = (
        DENT_V1.pack(b"DENT", 0o040755, 4096, 5, 1)
        + b"."
        + DENT_V1.pack(b"DENT", 0o100644, 9, 6, 5)
        + b"a.txt"
        + DENT_V1.pack(b"DONE", 0, 0, 0, 0)
    )
    found = feed_in_pieces(v1, Expect.DENT_V1, piece)
    assert [e.entry.name for e in found if isinstance(e, EntryReply)] == [".", "a.txt"]
    assert isinstance(found[-1], ListDone)
    big = 6 * 1024**3
    v2 = (
        DENT_V2.pack(b"DNT2", 0, 1, 2, 0o100644, 1, 0, 0, big, 1, 2, 3, 3)
        + b"big"
        + DENT_V2.pack(b"DNT2", 13, *([0] * 10), 4)
        + b"lost"
        + DENT_V2.pack(b"DONE", *([0] * 12))
    )
    found = feed_in_pieces(v2, Expect.DENT_V2, piece)
    entries = [e.entry for e in found if isinstance(e, EntryReply)]
    assert [(e.name, e.stat.size, e.error) for e in entries] == [("big", big, 0), ("lost", 0, 13)]
    assert isinstance(found[-1], ListDone)


@pytest.mark.parametrize("piece", [1, 3, 8, 9, 4096, 70_000])
def test_data_streams_through_whatever_the_cut(piece: int) -> None:
    payload = bytes(range(256)) * 300  # 76,800 bytes: two DATA messages
    wire = (
        struct.pack("<4sI", b"DATA", 65536)
        + payload[:65536]
        + struct.pack("<4sI", b"DATA", len(payload) - 65536)
        + payload[65536:]
        + struct.pack("<4sI", b"DONE", 0)
    )
    found = feed_in_pieces(wire, Expect.DATA, piece)
    assert isinstance(found[-1], DataDone)
    assert b"".join(bytes(e.data) for e in found if isinstance(e, DataChunk)) == payload


def test_data_chunks_are_views_of_what_was_fed() -> None:
    parser = ResponseParser()
    fed = struct.pack("<4sI", b"DATA", 4) + b"abcd"
    parser.feed(fed)
    event = parser.next_event(Expect.DATA)
    assert isinstance(event, DataChunk)
    assert event.data.obj is fed  # no copy of the payload


def test_fail_can_answer_any_request() -> None:
    wire = struct.pack("<4sI", b"FAIL", 11) + b"open failed"
    for expect in Expect:
        (event,) = feed_in_pieces(wire, expect, 4)
        assert event == Fail("open failed")


def test_okay_answers_a_send() -> None:
    (event,) = feed_in_pieces(struct.pack("<4sI", b"OKAY", 0), Expect.STATUS, 2)
    assert event == Okay()


def test_need_data_until_a_whole_header() -> None:
    parser = ResponseParser()
    parser.feed(b"OKA")
    assert parser.next_event(Expect.STATUS) is NEED_DATA


@pytest.mark.parametrize(
    ("wire", "expect", "complaint"),
    [
        (struct.pack("<4sI", b"DATA", 65537), Expect.DATA, "exceeds"),
        (struct.pack("<4sI", b"WHAT", 0), Expect.DATA, "expected DATA or DONE"),
        (struct.pack("<4sI", b"DATA", 0), Expect.STATUS, "expected OKAY or FAIL"),
        (struct.pack("<4sIII", b"LST2", 0, 0, 0), Expect.STAT_V1, "expected a STAT reply"),
        (DENT_V1.pack(b"DENT", 0, 0, 0, 3) + b"a/b", Expect.DENT_V1, "invalid directory entry"),
        (DENT_V1.pack(b"DENT", 0, 0, 0, 300) + b"x" * 300, Expect.DENT_V1, "name of 300 bytes"),
        (struct.pack("<4sI", b"FAIL", 1 << 20), Expect.STATUS, "too long"),
    ],
)
def test_broken_replies_are_remote_protocol_errors(
    wire: bytes, expect: Expect, complaint: str
) -> None:
    parser = ResponseParser()
    parser.feed(wire)
    with pytest.raises(RemoteProtocolError, match=complaint):
        events(parser, expect)
