"""RecordingTransport: invisible to the session, flushed as it goes, no private data."""

from __future__ import annotations

import base64
import json
from pathlib import Path

import pytest

from adbwire.errors import DisconnectedError
from adbwire.wire import packets as P
from adbwire.wire.keys import AdbKey
from adbwire.wire.recording import RecordingTransport, StreamLog, load_fixture
from adbwire.wire.recording.events import Close, Data, End, Open
from adbwire.wire.recording.fixture_file import FixtureWriter
from tests.simulator.protocol_standin import pattern
from tests.wire.recording.helpers import (
    DeviceFactory,
    ListSink,
    SpyTransport,
    client_on,
    standin_device,
    tcp_to,
)


def run(client_keys: list[AdbKey], transport: object) -> tuple[bytes, bytes]:
    client = client_on(transport, client_keys)  # type: ignore[arg-type]
    try:
        with client.open_stream("exec:cat") as stream:
            stream.write(b"ping")
            echoed = stream.read_exactly(4)
        return echoed, client.exec_out("bytes 70000")
    finally:
        client.close()


def test_the_inner_transport_sees_exactly_what_the_connection_sends_and_gets(
    sim_device_factory: DeviceFactory, adb_key: AdbKey, tmp_path: Path
) -> None:
    device = standin_device(sim_device_factory)
    below = SpyTransport(tcp_to(device))
    above = SpyTransport(RecordingTransport(below, tmp_path / "r.jsonl"))
    results = run([adb_key], above)
    assert results[0] == b"ping" and len(results[1]) == 70000
    for direction in ("in", "out"):  # same bytes, same order, same read sizes, both ways
        seen_above = [data for way, data in above.traffic if way == direction]
        seen_below = [data for way, data in below.traffic if way == direction]
        assert seen_above == seen_below
        assert len(seen_below) >= 5  # CNXN, OPEN, WRTE, OKAY...: real traffic


class FailingTransport:
    kind = "tcp"
    address = "127.0.0.1:1"

    def __init__(self) -> None:
        self.error = DisconnectedError("the cable fell out")

    def connect(self, timeout: float) -> None:
        pass

    def read_exactly(self, size: int) -> bytes:
        raise self.error

    def write_packet(self, header: bytes, payload: bytes | bytearray | memoryview) -> None:
        raise self.error

    def close(self) -> None:
        pass


def test_errors_of_the_inner_transport_pass_through_unchanged(tmp_path: Path) -> None:
    inner = FailingTransport()
    recording = RecordingTransport(inner, tmp_path / "r.jsonl")
    recording.connect(1.0)
    with pytest.raises(DisconnectedError) as caught:
        hello = P.Packet(P.A_CNXN, 0x01000001, 4096, b"host::")
        recording.write_packet(hello.header(with_checksum=False), hello.payload)
    assert caught.value is inner.error
    with pytest.raises(DisconnectedError) as caught:
        recording.read_exactly(24)
    assert caught.value is inner.error
    recording.close()
    events = [item.event for item in load_fixture(tmp_path / "r.jsonl").events]
    assert events == [End("device", "the cable fell out")]


def test_a_failing_recording_never_fails_the_session(
    sim_device_factory: DeviceFactory,
    adb_key: AdbKey,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    caplog: pytest.LogCaptureFixture,
) -> None:
    device = standin_device(sim_device_factory)
    recording = RecordingTransport(tcp_to(device), tmp_path / "r.jsonl")

    def disk_full(self: FixtureWriter, event: object) -> None:
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(FixtureWriter, "write_event", disk_full)
    assert run([adb_key], recording) == (b"ping", pattern(70000))
    assert isinstance(recording.recording_error, OSError)
    assert "recording to" in caplog.text and "the session goes on" in caplog.text


def test_each_event_is_on_disk_before_the_session_ends(
    sim_device_factory: DeviceFactory, adb_key: AdbKey, tmp_path: Path
) -> None:
    """Flushed per event: what a crash would leave behind is readable up to that point."""
    device = standin_device(sim_device_factory)
    path = tmp_path / "r.jsonl"
    client = client_on(RecordingTransport(tcp_to(device), path), [adb_key])
    try:
        with client.open_stream("exec:cat") as stream:
            stream.write(b"ping")
            stream.read_exactly(4)
            on_disk = path.read_text().splitlines()
    finally:
        client.close()
    kinds = [json.loads(line).get("event") for line in on_disk[1:]]
    assert kinds == ["open", "host"]  # the device's answer is still being coalesced
    with pytest.warns(UserWarning, match="no end line"):
        partial = tmp_path / "partial.jsonl"
        partial.write_text("\n".join(on_disk) + "\n")
        events = [item.event for item in load_fixture(partial).events]
    assert events == [Open(1, "exec:cat"), Data(1, "host", b"ping")]


def test_auth_keys_and_signatures_are_never_written(
    sim_device_factory: DeviceFactory, adb_key: AdbKey, other_key: AdbKey, tmp_path: Path
) -> None:
    """The host signs with an untrusted key first, then offers its public key."""
    public = adb_key.public_key_bytes().rstrip(b"\0").decode()
    device = standin_device(
        sim_device_factory, accept_any_key=False, authorized_keys=(), accept_new_keys=True
    )
    path = tmp_path / "auth.jsonl"
    client = client_on(RecordingTransport(tcp_to(device), path), [other_key, adb_key])
    client.close()
    text = path.read_bytes()
    for key in (adb_key, other_key):
        blob = key.public_key_bytes().rstrip(b"\0").split(b" ")[0]
        assert blob not in text
        assert base64.b64decode(blob)[:64] not in text
    assert public.split(" ")[0].encode() not in text
    header = load_fixture(path).header
    assert header.auth.outcome == "public_key"
    assert header.auth.public_key_offered
    assert header.auth.signatures == 2


def test_the_serial_can_be_redacted(tmp_path: Path) -> None:
    sink = ListSink()
    log = StreamLog(sink, origin="real device", redact_serial=True)
    log.host_packet(P.Packet(P.A_CNXN, 0x01000001, 4096, b"host::features=shell_v2"))
    log.device_packet(P.Packet(P.A_CNXN, 0x01000001, 4096, b"device:R58M123ABC:features=cmd"))
    log.host_packet(P.Packet(P.A_OPEN, 1, 0, b"shell:getprop ro.serialno\0"))
    log.device_packet(P.Packet(P.A_OKAY, 9, 1))
    log.device_packet(P.Packet(P.A_WRTE, 9, 1, b"R58M123ABC\n"))
    log.device_packet(P.Packet(P.A_CLSE, 9, 1))
    assert sink.header is not None
    assert sink.header.banner == "device:XXXXXXXXXX:features=cmd"
    assert sink.header.serial_redacted
    assert Data(1, "device", b"XXXXXXXXXX\n") in sink.events
    assert Close(1, "device") in sink.events
