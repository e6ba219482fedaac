"""StreamLog on tables of packets: what a stream-level fixture keeps and what it drops."""

from __future__ import annotations

import struct

from adbwire.wire import packets as P
from adbwire.wire.recording import StreamLog
from adbwire.wire.recording.events import Close, Data, End, Open, Refused, Side
from adbwire.wire.recording.stream_log import EVENT_DATA_LIMIT, MAX_ANOMALIES
from tests.wire.recording.helpers import ListSink

HOST_BANNER = b"host::features=shell_v2,cmd,delayed_ack"
DEVICE_BANNER = b"device::ro.product.model=Pixel;features=shell_v2,cmd,delayed_ack"
H: Side = "host"
D: Side = "device"


def packet(command: int, arg0: int = 0, arg1: int = 0, payload: bytes = b"") -> P.Packet:
    return P.Packet(command, arg0, arg1, payload)


def feed(log: StreamLog, table: list[tuple[str, P.Packet]]) -> None:
    for side, item in table:
        (log.host_packet if side == H else log.device_packet)(item)


def online(sink: ListSink, **options: object) -> StreamLog:
    log = StreamLog(sink, origin="simulated device", note="n", **options)  # type: ignore[arg-type]
    feed(
        log,
        [
            (H, packet(P.A_CNXN, 0x01000001, 1 << 20, HOST_BANNER)),
            (D, packet(P.A_CNXN, 0x01000000, 4096, DEVICE_BANNER)),
        ],
    )
    return log


def test_header_has_the_banner_and_what_was_negotiated() -> None:
    sink = ListSink()
    online(sink)
    header = sink.header
    assert header is not None
    assert header.banner == DEVICE_BANNER.decode()
    assert header.features == ("cmd", "delayed_ack", "shell_v2")
    assert (header.device_version, header.device_max_payload) == (0x01000000, 4096)
    assert (header.version, header.max_payload, header.delayed_ack) == (0x01000000, 4096, True)
    assert header.auth.outcome == "none"
    assert header.origin == "simulated device" and header.note == "n"


def test_streams_are_numbered_in_open_order_and_writes_coalesce() -> None:
    sink = ListSink()
    log = online(sink)
    window = struct.pack("<I", 1 << 20)
    feed(
        log,
        [
            (H, packet(P.A_OPEN, 7, 1 << 22, b"exec:cat\0")),
            (H, packet(P.A_OPEN, 8, 1 << 22, b"shell:ls\0")),
            (D, packet(P.A_OKAY, 100, 7, window)),  # delayed_ack: OKAY carries a window
            (D, packet(P.A_OKAY, 101, 8, window)),
            (H, packet(P.A_WRTE, 7, 100, b"ab")),
            (D, packet(P.A_WRTE, 101, 8, b"file1\n")),
            (H, packet(P.A_WRTE, 7, 100, b"cd")),  # same stream, same side: coalesced
            (H, packet(P.A_OKAY, 8, 101, struct.pack("<I", 6))),
            (D, packet(P.A_WRTE, 101, 8, b"file2\n")),
            (D, packet(P.A_OKAY, 100, 7, struct.pack("<I", 4))),
            (D, packet(P.A_WRTE, 100, 7, b"abcd")),
            (D, packet(P.A_CLSE, 101, 8)),
            (H, packet(P.A_CLSE, 7, 100)),
            (D, packet(P.A_CLSE, 100, 7)),  # the answer to the host's CLSE: not an event
        ],
    )
    log.end("host")
    assert sink.events == [
        Open(1, "exec:cat"),
        Open(2, "shell:ls"),
        Data(1, H, b"abcd"),  # written out when the device's answer starts
        Data(2, D, b"file1\nfile2\n"),
        Close(2, D),
        Data(1, D, b"abcd"),
        Close(1, H),
        End(H, ""),
    ]


def test_a_refused_open_and_traffic_on_unknown_streams() -> None:
    sink = ListSink()
    log = online(sink)
    feed(
        log,
        [
            (H, packet(P.A_OPEN, 1, 0, b"nosuch:\0")),
            (D, packet(P.A_CLSE, 0, 1)),
            (D, packet(P.A_WRTE, 5, 99, b"stray")),  # for no stream of ours
            (H, packet(P.A_OPEN, 2, 0, b"exec:cat\0")),
            (D, packet(P.A_OKAY, 5, 2)),
            (H, packet(P.A_CLSE, 2, 5)),
            (D, packet(P.A_WRTE, 5, 2, b"late")),  # after the host closed: dropped
        ],
    )
    assert sink.events == [Open(1, "nosuch:"), Refused(1), Open(2, "exec:cat"), Close(2, H)]


def test_auth_keeps_counts_and_outcome_only() -> None:
    sink = ListSink()
    log = StreamLog(sink, origin="real device")
    feed(
        log,
        [
            (H, packet(P.A_CNXN, 0x01000001, 1 << 20, HOST_BANNER)),
            (D, packet(P.A_AUTH, P.AUTH_TOKEN, 0, b"t" * 20)),
            (H, packet(P.A_AUTH, P.AUTH_SIGNATURE, 0, b"s" * 256)),
            (D, packet(P.A_AUTH, P.AUTH_TOKEN, 0, b"u" * 20)),
            (H, packet(P.A_AUTH, P.AUTH_RSAPUBLICKEY, 0, b"PUBLICKEY user@host\0")),
            (D, packet(P.A_CNXN, 0x01000001, 1 << 20, DEVICE_BANNER)),
        ],
    )
    assert sink.header is not None
    auth = sink.header.auth
    assert (auth.outcome, auth.tokens, auth.signatures, auth.public_key_offered) == (
        "public_key",
        2,
        1,
        True,
    )
    assert sink.events == []


def test_a_connection_that_never_came_online_still_gets_a_header() -> None:
    sink = ListSink()
    log = StreamLog(sink, origin="real device")
    feed(
        log,
        [
            (H, packet(P.A_CNXN, 0x01000001, 1 << 20, HOST_BANNER)),
            (D, packet(P.A_AUTH, P.AUTH_TOKEN, 0, b"t" * 20)),
            (H, packet(P.A_AUTH, P.AUTH_SIGNATURE, 0, b"s" * 256)),
        ],
    )
    log.end(D, "reset")
    assert sink.header is not None
    assert sink.header.banner is None
    assert sink.header.auth.outcome == "incomplete"
    assert sink.events == [End(D, "reset")]


def test_long_transfers_are_cut_into_events_of_bounded_size() -> None:
    sink = ListSink()
    log = online(sink)
    feed(log, [(H, packet(P.A_OPEN, 1, 0, b"exec:cat big\0")), (D, packet(P.A_OKAY, 9, 1))])
    chunk = bytes(range(256)) * 256  # 64 KiB
    count = EVENT_DATA_LIMIT // len(chunk) * 2 + 1
    for _ in range(count):
        log.device_packet(packet(P.A_WRTE, 9, 1, chunk))
    log.end(H)
    sizes = [len(event.data) for event in sink.events if isinstance(event, Data)]
    assert sizes == [EVENT_DATA_LIMIT, EVENT_DATA_LIMIT, len(chunk)]
    assert b"".join(e.data for e in sink.events if isinstance(e, Data)) == chunk * count


def test_anomalies_are_capped_with_a_count_note() -> None:
    """A capture full of junk packets cannot make the header line grow without end."""
    log = StreamLog(ListSink(), origin="imported capture")
    for _ in range(MAX_ANOMALIES + 50):
        log.host_packet(packet(0x12345678, 0, 0))
    assert len(log.anomalies) == MAX_ANOMALIES + 1
    assert "unknown command" in log.anomalies[0]
    assert log.anomalies[-1] == f"more than {MAX_ANOMALIES} anomalies: the rest are not noted"
