"""Fuzz the sync reply parser (v1 and v2 STAT, LIST, DATA/DONE, OKAY/FAIL): any bytes in any
split give typed events or RemoteProtocolError, and never more than was fed."""

from __future__ import annotations

import struct

from hypothesis import given
from hypothesis import strategies as st

from adbwire.errors import RemoteProtocolError
from adbwire.wire.services.sync.codec import (
    DATA_MAX,
    MAX_FAIL_MESSAGE,
    MAX_NAME,
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
from tests.fuzz.strategies import FUZZ, pieces, split_points

IDS = [b"STAT", b"STA2", b"LST2", b"DENT", b"DNT2", b"DONE", b"DATA", b"OKAY", b"FAIL"]
U32 = st.integers(0, 0xFFFFFFFF)
U64 = st.integers(0, 2**64 - 1)
I64 = st.integers(-(2**63), 2**63 - 1)
TERMINAL = (StatReply, ListDone, DataDone, Okay, Fail)


@st.composite
def messages(draw: st.DrawFn) -> bytes:
    """One sync message: a known or random id, plausible or lying fields, a name/payload."""
    message_id = draw(st.sampled_from(IDS) | st.binary(min_size=4, max_size=4))
    body = draw(st.binary(max_size=64))
    length = draw(st.just(len(body)) | U32 | st.integers(0, 300))
    layout = draw(
        st.sampled_from(
            [
                ("<4sI", [length]),
                ("<4sIII", [draw(U32), draw(U32), draw(U32)]),
                ("<4sIIII", [draw(U32), draw(U32), draw(U32), length]),
                (
                    "<4sIQQIIIIQqqq",
                    [
                        draw(U32),
                        draw(U64),
                        draw(U64),
                        *[draw(U32) for _ in range(4)],
                        draw(U64),
                        draw(I64),
                        draw(I64),
                        draw(I64),
                    ],
                ),
                (
                    "<4sIQQIIIIQqqqI",
                    [
                        draw(U32),
                        draw(U64),
                        draw(U64),
                        *[draw(U32) for _ in range(4)],
                        draw(U64),
                        draw(I64),
                        draw(I64),
                        draw(I64),
                        length,
                    ],
                ),
            ]
        )
    )
    fmt, fields = layout
    return struct.pack(fmt, message_id, *fields) + body


def drive(
    parser: ResponseParser, expect: Expect, chunks: list[bytes]
) -> tuple[list[SyncEvent], int]:
    """Feed chunks as the parser asks for them until a reply is complete (or input ends);
    returns the events and how many bytes were fed."""
    events: list[SyncEvent] = []
    fed = 0
    queue = list(chunks)
    while True:
        event = parser.next_event(expect)
        if isinstance(event, NeedData):
            if not queue:
                return events, fed
            piece = queue.pop(0)
            parser.feed(piece)
            fed += len(piece)
            continue
        events.append(event)
        if isinstance(event, TERMINAL):
            return events, fed


@FUZZ
@given(st.sampled_from(list(Expect)), st.data())
def test_sync_replies_parse_to_typed_events_or_a_protocol_error(
    expect: Expect, data: st.DataObject
) -> None:
    stream = b"".join(data.draw(st.lists(messages(), max_size=6)))
    if data.draw(st.booleans()):
        stream += data.draw(st.binary(max_size=256))
    parser = ResponseParser()
    try:
        events, fed = drive(parser, expect, pieces(stream, data.draw(split_points(len(stream)))))
    except RemoteProtocolError as error:
        assert str(error).startswith("sync")
        return
    assert parser.buffered <= fed <= len(stream)
    payload = 0
    for event in events:
        if isinstance(event, DataChunk):
            assert len(event.data) <= DATA_MAX
            payload += len(event.data)
        elif isinstance(event, EntryReply):
            name = event.entry.name
            assert name and "/" not in name and "\0" not in name
            assert len(name.encode("utf-8", "surrogateescape")) <= MAX_NAME
        elif isinstance(event, Fail):
            assert len(event.message) <= MAX_FAIL_MESSAGE
    assert payload <= fed


@FUZZ
@given(st.binary(max_size=DATA_MAX // 16), st.data())
def test_a_well_formed_pull_reply_gives_back_exactly_the_file(
    content: bytes, data: st.DataObject
) -> None:
    sizes = data.draw(st.lists(st.integers(1, 4096), max_size=8))
    stream = bytearray()
    offset = 0
    for size in sizes:
        piece = content[offset : offset + size]
        if not piece:
            break
        stream += b"DATA" + struct.pack("<I", len(piece)) + piece
        offset += len(piece)
    if offset < len(content):
        stream += b"DATA" + struct.pack("<I", len(content) - offset) + content[offset:]
    stream += b"DONE" + bytes(4)
    parser = ResponseParser()
    events, _fed = drive(
        parser, Expect.DATA, pieces(bytes(stream), data.draw(split_points(len(stream))))
    )
    received = b""
    for event in events:
        if isinstance(event, DataChunk):
            received += bytes(event.data)
    # Each DataDone ends one reply only after all its DATA: drive stops at the first.
    assert isinstance(events[-1], DataDone)
    assert received == content
