"""Capture import: the same session, captured every way tcpdump/Wireshark can, imports to
the very events a recording of it holds, and replays through our client."""

from __future__ import annotations

import json
import warnings
from pathlib import Path

import pytest

from adbwire.errors import UsageError
from adbwire.wire import packets as P
from adbwire.wire.keys import AdbKey
from adbwire.wire.pcap import import_capture
from adbwire.wire.recording import (
    FixtureWarning,
    RecordingTransport,
    ReplayKey,
    ReplayTransport,
    StreamLog,
    load_fixture,
)
from adbwire.wire.recording.events import Data, End, Event
from adbwire.wire.recording.host_driver import verify_fixture
from adbwire.wire.recording.packet_stream import PacketSplitter
from adbwire.wire.timeouts import Deadline
from tests.wire.recording import pcap_builder as pb
from tests.wire.recording.helpers import (
    DeviceFactory,
    ListSink,
    SpyTransport,
    client_on,
    standin_device,
    tcp_to,
)


@pytest.fixture
def session(
    sim_device_factory: DeviceFactory, adb_key: AdbKey, tmp_path: Path
) -> tuple[list[tuple[bool, bytes]], list[Event]]:
    """A real session's bytes in the order they crossed the wire (the conversation), and
    the events a StreamLog makes of them in that order (what an import must give)."""
    device = standin_device(sim_device_factory)
    spy = SpyTransport(tcp_to(device))
    client = client_on(spy, [adb_key])
    try:
        client.shell("cat", stdin=b"through the capture\n" * 50)
        assert len(client.exec_out("bytes 20000")) == 20000
        with client.open_stream("exec:cat") as stream:
            stream.write(b"ping")
            assert stream.read_exactly(4) == b"ping"
    finally:
        client.close()
    conversation = [(direction == "out", data) for direction, data in spy.traffic]
    return conversation, events_of(conversation)


def events_of(conversation: list[tuple[bool, bytes]]) -> list[Event]:
    sink = ListSink()
    log = StreamLog(sink, origin="imported capture")
    splitters = {True: PacketSplitter("host"), False: PacketSplitter("device")}
    for from_host, data in conversation:
        for packet in splitters[from_host].feed(data):
            (log.host_packet if from_host else log.device_packet)(packet)
    return sink.events


def stream_events(path: Path) -> list[Event]:
    """The events, without the end line (whose reason depends on the capture)."""
    return [item.event for item in load_fixture(path).events if not isinstance(item.event, End)]


def test_what_a_recording_transport_writes_is_what_the_wire_carried(
    sim_device_factory: DeviceFactory, adb_key: AdbKey, tmp_path: Path
) -> None:
    """The recording (below any thread races: one direction at a time) agrees with the
    bytes on the wire, stream by stream."""
    device = standin_device(sim_device_factory)
    spy = SpyTransport(tcp_to(device))
    recorded = tmp_path / "recorded.jsonl"
    client = client_on(RecordingTransport(spy, recorded), [adb_key])
    try:
        client.shell("cat", stdin=b"x" * 5000)
    finally:
        client.close()
    wire = events_of([(direction == "out", data) for direction, data in spy.traffic])

    def data_by_stream(events: list[Event]) -> dict[tuple[int, str], bytes]:
        found: dict[tuple[int, str], bytes] = {}
        for event in events:
            if isinstance(event, Data):
                key = (event.stream, event.side)
                found[key] = found.get(key, b"") + event.data
        return found

    assert data_by_stream(stream_events(recorded)) == data_by_stream(wire)


LINKS = [
    pytest.param(1, pb.CLIENT, pb.SERVER, id="ethernet-ipv4"),
    pytest.param(113, pb.CLIENT6, pb.SERVER6, id="sll-ipv6"),
    pytest.param(276, pb.CLIENT, pb.SERVER, id="sll2-ipv4"),
    pytest.param(0, pb.CLIENT6, pb.SERVER6, id="null-ipv6"),
    pytest.param(108, pb.CLIENT, pb.SERVER, id="loop-ipv4"),
    pytest.param(101, pb.CLIENT, pb.SERVER, id="raw-ipv4"),
]


@pytest.mark.parametrize(("link_type", "client", "server"), LINKS)
@pytest.mark.parametrize("container", ["pcap", "pcapng"])
def test_every_link_type_and_container_imports_the_same_events(
    session: tuple[list[tuple[bool, bytes]], list[Event]],
    tmp_path: Path,
    link_type: int,
    client: tuple[str, int],
    server: tuple[str, int],
    container: str,
) -> None:
    conversation, expected = session
    segments = pb.segments_of(conversation, client=client, server=server)
    frames = [pb.frame(link_type, segment) for segment in segments]
    capture = tmp_path / f"c.{container}"
    if container == "pcap":
        pb.write_pcap(capture, link_type, frames)
    else:
        pb.write_pcapng(capture, link_type, frames)
    fixture = tmp_path / "imported.jsonl"
    report = import_capture(capture, fixture, port=server[1])
    assert report.warnings == []
    assert stream_events(fixture) == expected
    header = load_fixture(fixture).header
    assert header.origin == "imported capture"
    assert header.note == f"imported from {capture.name}"
    assert header.recorded_at == "2023-11-14T22:13:20Z"


@pytest.mark.parametrize("handshake", [True, False], ids=["with-syn", "without-syn"])
@pytest.mark.parametrize("seed", [1, 2, 3])
def test_reordered_and_retransmitted_segments_are_reassembled(
    session: tuple[list[tuple[bool, bytes]], list[Event]],
    tmp_path: Path,
    handshake: bool,
    seed: int,
) -> None:
    conversation, expected = session
    segments = pb.disorder(pb.segments_of(conversation, handshake=handshake, seed=seed), seed)
    capture = pb.write_pcap(
        tmp_path / "c.pcap", 1, [pb.frame(1, s) for s in segments], nanoseconds=True,
        big_endian=True,
    )  # fmt: skip
    fixture = tmp_path / "imported.jsonl"
    import_capture(capture, fixture)
    assert stream_events(fixture) == expected
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert verify_fixture(fixture) == []


def test_who_closed_the_tcp_connection_is_the_end_line(
    session: tuple[list[tuple[bool, bytes]], list[Event]], tmp_path: Path
) -> None:
    conversation, _ = session
    segments = pb.segments_of(conversation, fin_from_server=True)
    capture = pb.write_pcap(tmp_path / "c.pcap", 1, [pb.frame(1, s) for s in segments])
    import_capture(capture, tmp_path / "f.jsonl")
    end = load_fixture(tmp_path / "f.jsonl").events[-1].event
    assert isinstance(end, End) and end.by == "device"
    assert "the device closed the TCP connection" in end.reason


def test_a_capture_that_missed_segments_is_imported_up_to_the_hole(
    session: tuple[list[tuple[bool, bytes]], list[Event]], tmp_path: Path
) -> None:
    conversation, _ = session
    segments = pb.segments_of(conversation)
    device_data = [i for i, s in enumerate(segments) if s.source == pb.SERVER and s.payload]
    del segments[device_data[len(device_data) // 2]]
    capture = pb.write_pcap(tmp_path / "c.pcap", 1, [pb.frame(1, s) for s in segments])
    report = import_capture(capture, tmp_path / "f.jsonl")
    assert any("misses bytes" in warning for warning in report.warnings)


def test_a_capture_started_mid_session_is_refused_clearly(
    session: tuple[list[tuple[bool, bytes]], list[Event]], tmp_path: Path
) -> None:
    conversation, _ = session
    segments = pb.segments_of(conversation[6:], handshake=False)
    capture = pb.write_pcap(tmp_path / "c.pcap", 1, [pb.frame(1, s) for s in segments])
    with pytest.raises(UsageError, match="start the capture before `adb connect`"):
        import_capture(capture, tmp_path / "f.jsonl")


def test_choosing_among_several_connections(
    session: tuple[list[tuple[bool, bytes]], list[Event]], tmp_path: Path
) -> None:
    conversation, expected = session
    first = pb.segments_of(conversation[:3], client=("127.0.0.1", 40001))
    second = pb.segments_of(conversation, client=("127.0.0.1", 40002))
    frames = [pb.frame(1, s) for s in first + second]
    capture = pb.write_pcap(tmp_path / "c.pcap", 1, frames)
    report = import_capture(capture, tmp_path / "f.jsonl", connection=2)
    assert len(report.connections) == 2
    assert stream_events(tmp_path / "f.jsonl") == expected
    with pytest.raises(UsageError, match="there is no connection 3; the capture has 1: "):
        import_capture(capture, tmp_path / "g.jsonl", connection=3)


def test_captures_without_adb_on_that_port(
    session: tuple[list[tuple[bool, bytes]], list[Event]], tmp_path: Path
) -> None:
    conversation, _ = session
    capture = pb.write_pcap(
        tmp_path / "c.pcap", 1, [pb.frame(1, s) for s in pb.segments_of(conversation)]
    )
    with pytest.raises(UsageError, match="no TCP connection with data on port 5037"):
        import_capture(capture, tmp_path / "f.jsonl", port=5037)


PCAP_HEADER = bytes.fromhex("d4c3b2a1 0200 0400") + b"\0" * 12
RECORD_OF_40 = bytes.fromhex("00000000 00000000 28000000 28000000")


@pytest.mark.parametrize(
    ("content", "problem"),
    [
        (b"GIF89a....", "not a pcap or pcapng file"),
        (PCAP_HEADER[:14], "header is cut off"),
        (PCAP_HEADER + bytes.fromhex("01000000") + RECORD_OF_40 + b"\0" * 10, "frame 1 is cut off"),
        (bytes.fromhex("0a0d0d0a 1c000000 4d3c2b1a") + b"\0" * 4, "truncated or corrupted"),
        (PCAP_HEADER + bytes.fromhex("93000000") + RECORD_OF_40 + b"\0" * 40, "link type 147"),
    ],
)
def test_files_that_are_not_usable_captures(tmp_path: Path, content: bytes, problem: str) -> None:
    capture = tmp_path / "bad.pcap"
    capture.write_bytes(content)
    with pytest.raises(UsageError) as caught:
        import_capture(capture, tmp_path / "f.jsonl")
    assert str(caught.value).startswith(str(capture))
    assert problem in str(caught.value)


def test_odd_packets_and_a_cut_off_capture_are_noted_in_the_header_never_dropped_silently(
    session: tuple[list[tuple[bool, bytes]], list[Event]], tmp_path: Path
) -> None:
    conversation, _ = session
    cnxn = next(
        i for i, (host, data) in enumerate(conversation) if not host and data[:4] == b"CNXN"
    )
    odd = [
        P.Packet(P.A_CNXN, P.VERSION_SKIP_CHECKSUM, 4096, b"device::again\0"),
        P.Packet(0x41414141, 0, 0, b""),
        P.Packet(P.A_WRTE, 99, 999, b"stray"),
    ]
    extra = [(False, packet.encode(with_checksum=False)) for packet in odd]
    # Cut after the device's answer on exec:cat: that stream is still open at the end.
    pong = max(i for i, (host, data) in enumerate(conversation) if not host and data == b"ping")
    cut = [*conversation[: cnxn + 2], *extra, *conversation[cnxn + 2 : pong + 1]]
    capture = pb.write_pcap(tmp_path / "c.pcap", 1, [pb.frame(1, s) for s in pb.segments_of(cut)])
    fixture = tmp_path / "f.jsonl"
    report = import_capture(capture, fixture)
    header = json.loads(fixture.read_text().splitlines()[0])
    notes = header["import_notes"]
    assert notes == report.warnings
    assert any("CNXN again" in note for note in notes), notes
    assert any("unknown command 0x41414141" in note for note in notes), notes
    assert any("stream id 999, which is not open" in note for note in notes), notes
    assert any("'exec:cat') was still open at the end" in note for note in notes), notes
    with pytest.warns(FixtureWarning, match="still open when the recording ended"):
        transport = ReplayTransport(fixture)
    client = client_on(transport, [ReplayKey()])
    try:
        client.shell("cat", stdin=b"through the capture\n" * 50)
        client.exec_out("bytes 20000")
        with client.open_stream("exec:cat") as stream:
            stream.write(b"ping")
            assert stream.read_exactly(4) == b"ping"
            assert stream.read(None, Deadline(10, "the end of the stream")) == b""  # EOF
    finally:
        client.close()
