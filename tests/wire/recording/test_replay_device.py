"""The replayed device: banner, flow control, repacketising, markers, the end of the line."""

from __future__ import annotations

import dataclasses
import threading
from pathlib import Path

import pytest

from adbwire.errors import DisconnectedError, ReplayMismatchError, StreamRefusedError
from adbwire.wire import packets as P
from adbwire.wire.client import AdbClient
from adbwire.wire.connection import Connection
from adbwire.wire.protocol import ConnectionState
from adbwire.wire.recording import FixtureWarning, ReplayKey, ReplayTransport, load_fixture
from adbwire.wire.recording.events import Close, Data, End, Event, Open
from adbwire.wire.recording.packet_stream import PacketSplitter
from adbwire.wire.recording.replay_device import ReplayDevice
from adbwire.wire.recording.replay_messages import banner_for_replay
from adbwire.wire.recording.script import build_script
from tests.wire.recording.helpers import TIMEOUTS
from tests.wire.recording.test_fixture_file import HEADER, write


def test_the_replayed_banner_drops_delayed_ack_only() -> None:
    banner = "device::ro.product.model=P;features=shell_v2,delayed_ack,cmd;x=y"
    assert banner_for_replay(banner) == b"device::ro.product.model=P;features=shell_v2,cmd;x=y"
    assert banner_for_replay("device::features=delayed_ack") == b"device::features="
    assert banner_for_replay(None) == b"device::"


def device_for(tmp_path: Path, events: list[Event]) -> ReplayDevice:
    path = write(tmp_path / "f.jsonl", HEADER, events)
    return ReplayDevice(build_script(load_fixture(path)), strict=True)


def answers(device: ReplayDevice, splitter: PacketSplitter) -> list[P.Packet]:
    out = splitter.feed(bytes(device.outbox))
    device.outbox.clear()
    return out


def test_device_bytes_are_cut_to_the_max_payload_one_write_in_flight(tmp_path: Path) -> None:
    blob = bytes(range(256)) * 3 + b"tail"
    device = device_for(
        tmp_path, [Open(1, "exec:cat f"), Data(1, "device", blob), Close(1, "device"), End("host")]
    )
    splitter = PacketSplitter("device")
    device.receive(P.Packet(P.A_CNXN, 0x01000001, 256, b"host::"))
    assert [p.name for p in answers(device, splitter)] == ["CNXN"]
    device.receive(P.Packet(P.A_OPEN, 5, 0, b"exec:cat f\0"))
    okay, first = answers(device, splitter)
    assert (okay.name, okay.arg1) == ("OKAY", 5)
    assert (first.name, first.arg1, bytes(first.payload)) == ("WRTE", 5, blob[:256])
    assert answers(device, splitter) == []  # nothing more until the host acknowledges
    received = bytearray(first.payload)
    names: list[str] = []
    while "CLSE" not in names:
        device.receive(P.Packet(P.A_OKAY, 5, okay.arg0))
        packets = answers(device, splitter)
        names = [p.name for p in packets]
        assert names in (["WRTE"], ["WRTE", "CLSE"])  # one write per acknowledgement
        assert len(packets[0].payload) <= 256
        received += packets[0].payload
    assert bytes(received) == blob
    assert device.leftovers() == []


def test_the_shell_v1_exit_marker_is_matched_by_shape_and_echoed_back(tmp_path: Path) -> None:
    marker = "ADBWIRE_EXIT_0123456789abcdef:"
    service = f"shell:(echo hi\n); echo {marker}$?"
    path = write(
        tmp_path / "v1.jsonl",
        dataclasses.replace(HEADER, banner="device::features=cmd", features=("cmd",)),
        [
            Open(1, service),
            Data(1, "device", f"hi\n{marker}0\n".encode()),
            Close(1, "device"),
            End("host"),
        ],
    )
    client = AdbClient(Connection.open(ReplayTransport(path, strict=True), [ReplayKey()]))
    try:
        assert "shell_v2" not in client.features
        result = client.shell("echo hi")
    finally:
        client.close()
    assert (result.stdout, result.exit_code) == (b"hi\n", 0)


def test_a_device_that_ended_the_connection_ends_it_on_replay(tmp_path: Path) -> None:
    path = write(
        tmp_path / "root.jsonl",
        HEADER,
        [
            Open(1, "root:"),
            Data(1, "device", b"restarting adbd as root\n"),
            Close(1, "device"),
            End("device", "adbd restarted"),
        ],
    )
    closed = threading.Event()

    def on_state(state: ConnectionState) -> None:
        if state is ConnectionState.CLOSED:
            closed.set()

    connection = Connection.open(
        ReplayTransport(path, strict=True), [ReplayKey()], timeouts=TIMEOUTS, on_state=on_state
    )
    client = AdbClient(connection)
    try:
        with client.open_stream("root:") as stream:
            assert stream.read_all() == b"restarting adbd as root\n"
        assert closed.wait(10)
        assert isinstance(connection.failure, DisconnectedError)
        assert "the recorded device closed the connection" in str(connection.failure)
        assert f"{path}:5" in str(connection.failure)
    finally:
        client.close()


def test_opening_more_streams_of_a_service_than_recorded_fails_at_the_open(
    tmp_path: Path,
) -> None:
    path = write(
        tmp_path / "two.jsonl",
        HEADER,
        [Open(1, "exec:cat"), Data(1, "host", b"x"), Close(1, "host"), End("host")],
    )
    transport = ReplayTransport(path, strict=True)
    client = AdbClient(Connection.open(transport, [ReplayKey()], timeouts=TIMEOUTS))
    try:
        first = client.open_stream("exec:cat")
        with pytest.raises(ReplayMismatchError, match="ran past the end"):
            client.open_stream("exec:cat")
        first.close()
    finally:
        client.close()  # after a mismatch, no report of unused traffic on top


def test_not_strict_a_request_the_recording_lacks_fails_its_stream_only(tmp_path: Path) -> None:
    path = write(
        tmp_path / "one.jsonl",
        HEADER,
        [
            Open(1, "exec:cat"),
            Data(1, "host", b"x"),
            Data(1, "device", b"x"),
            Close(1, "host"),
            End("host"),
        ],
    )
    transport = ReplayTransport(path)
    client = AdbClient(Connection.open(transport, [ReplayKey()], timeouts=TIMEOUTS))
    try:
        with pytest.warns(FixtureWarning), pytest.raises(StreamRefusedError, match="does not have"):
            client.open_stream("exec:nothing")
        with client.open_stream("exec:cat") as stream:  # the connection goes on
            stream.write(b"x")
            assert stream.read_exactly(1) == b"x"
        assert "exec:nothing" in transport.mismatches[0]
    finally:
        client.close()


def test_an_answer_waits_for_the_host_bytes_that_preceded_it(tmp_path: Path) -> None:
    """Gates: whatever the packetisation, the device answers once the host has written
    what it had written when the answer came in the recording, not before."""
    device = device_for(
        tmp_path,
        [
            Open(1, "exec:cat"),
            Data(1, "host", b"ping"),
            Data(1, "device", b"pong"),
            Close(1, "host"),
            End("host"),
        ],
    )
    splitter = PacketSplitter("device")
    device.receive(P.Packet(P.A_CNXN, 0x01000001, 4096, b"host::"))
    device.receive(P.Packet(P.A_OPEN, 3, 0, b"exec:cat\0"))
    answers(device, splitter)
    device.receive(P.Packet(P.A_WRTE, 3, 1, b"pi"))
    assert [p.name for p in answers(device, splitter)] == ["OKAY"]
    device.receive(P.Packet(P.A_WRTE, 3, 1, b"ng"))
    okay, pong = answers(device, splitter)
    assert (okay.name, pong.name, bytes(pong.payload)) == ("OKAY", "WRTE", b"pong")


def test_host_bytes_racing_a_recorded_device_close_are_dropped(tmp_path: Path) -> None:
    """Recorded: the command ended before the host's close-stdin reached the device. On
    replay the host's close-stdin arrives while the output is still being sent: tolerated."""
    output = b"\x01\x58\x02\x00\x00" + b"x" * 600 + b"\x03\x01\x00\x00\x00\x00"
    device = device_for(
        tmp_path,
        [Open(1, "shell,v2,raw:ls"), Data(1, "device", output), Close(1, "device"), End("host")],
    )
    splitter = PacketSplitter("device")
    device.receive(P.Packet(P.A_CNXN, 0x01000001, 256, b"host::"))
    answers(device, splitter)
    device.receive(P.Packet(P.A_OPEN, 3, 0, b"shell,v2,raw:ls\0"))
    okay, first = answers(device, splitter)
    assert (okay.name, first.name) == ("OKAY", "WRTE")
    device.receive(P.Packet(P.A_WRTE, 3, okay.arg0, b"\x04\x00\x00\x00\x00"))  # close-stdin
    assert [p.name for p in answers(device, splitter)] == ["OKAY"]
    received = bytearray(first.payload)
    names: list[str] = []
    while "CLSE" not in names:
        device.receive(P.Packet(P.A_OKAY, 3, okay.arg0))
        packets = answers(device, splitter)
        names = [p.name for p in packets]
        received += packets[0].payload
    assert bytes(received) == output


def test_extra_host_bytes_on_a_stream_the_host_closes_still_fail(tmp_path: Path) -> None:
    device = device_for(
        tmp_path, [Open(1, "exec:cat"), Data(1, "host", b"ok"), Close(1, "host"), End("host")]
    )
    splitter = PacketSplitter("device")
    device.receive(P.Packet(P.A_CNXN, 0x01000001, 4096, b"host::"))
    device.receive(P.Packet(P.A_OPEN, 3, 0, b"exec:cat\0"))
    answers(device, splitter)
    device.receive(P.Packet(P.A_WRTE, 3, 1, b"ok"))
    with pytest.raises(ReplayMismatchError):
        device.receive(P.Packet(P.A_WRTE, 3, 1, b"more"))
