"""Record a session against the simulated device, replay it, get the same results."""

from __future__ import annotations

import warnings
from pathlib import Path

import pytest

from adbwire.errors import AdbwireError, ReplayMismatchError, StreamRefusedError
from adbwire.wire.client import AdbClient
from adbwire.wire.keys import AdbKey
from adbwire.wire.recording import FixtureWarning, ReplayKey, ReplayTransport, load_fixture
from adbwire.wire.recording.events import Data, Open
from adbwire.wire.services.shell import ShellResult
from tests.simulator.protocol_standin import pattern
from tests.wire.recording.helpers import DeviceFactory, client_on, recorded_client, standin_device

BIG = 3 * 1024 * 1024 + 17


def record_session(device_factory: DeviceFactory, path: Path, adb_key: AdbKey) -> list[object]:
    device = standin_device(device_factory)
    with recorded_client(device, path, [adb_key]) as (client, _transport):
        return run_session(client)


def read_service(client: AdbClient, service: str) -> bytes:
    with client.open_stream(service) as stream:
        return stream.read_all()


def run_session(client: AdbClient) -> list[object]:
    """Shell v2 (stdout, stderr, exit codes, stdin small and 12 kB), a 3 MiB exec, shell
    packets on a raw stream, a refused service."""
    results: list[object] = [
        client.shell("cat", stdin=b"hello\n"),
        client.shell("cat", stdin=b"typed input\n" * 1000),
        client.exec_out(f"bytes {BIG}"),
        read_service(client, "shell,v2,raw:echo oops >&2"),
        client.shell("echo hello"),
        client.shell("exit 3"),
    ]
    with pytest.raises(StreamRefusedError):
        client.open_stream("nosuchservice:")
    return results


@pytest.fixture
def recording(
    sim_device_factory: DeviceFactory, adb_key: AdbKey, tmp_path: Path
) -> tuple[Path, list[object]]:
    path = tmp_path / "session.jsonl"
    return path, record_session(sim_device_factory, path, adb_key)


def test_the_recorded_session_itself_got_real_results(recording: tuple[Path, list[object]]) -> None:
    _path, results = recording
    assert results[0] == ShellResult("cat", b"hello\n", b"", 0)
    assert results[2] == pattern(BIG)
    assert results[3] == b"\x02\x05\x00\x00\x00oops\n\x03\x01\x00\x00\x00\x00"
    assert results[4] == ShellResult("echo hello", b"hello\n", b"", 0)
    assert results[5] == ShellResult("exit 3", b"", b"", 3)


def test_replay_gives_the_same_results_and_uses_everything(
    recording: tuple[Path, list[object]],
) -> None:
    path, recorded = recording
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        client = client_on(ReplayTransport(path, strict=True), [ReplayKey()])
        try:
            assert run_session(client) == recorded
        finally:
            client.close()  # strict: raises if anything recorded was left unused


@pytest.mark.parametrize("max_payload", [256, 4096, 65536])
def test_replay_with_another_max_payload_still_matches(
    recording: tuple[Path, list[object]], max_payload: int
) -> None:
    path, recorded = recording
    client = client_on(ReplayTransport(path, strict=True), [ReplayKey()], max_payload=max_payload)
    try:
        assert client.connection.max_payload == max_payload
        assert run_session(client) == recorded
    finally:
        client.close()


def test_a_changed_command_fails_at_once_naming_the_stream_and_line(
    recording: tuple[Path, list[object]],
) -> None:
    path, _ = recording
    client = client_on(ReplayTransport(path, strict=True), [ReplayKey()])
    try:
        with pytest.raises(ReplayMismatchError) as caught:
            client.shell("cat -u", stdin=b"hello\n")
    finally:
        client.close()
    message = str(caught.value)
    assert "the client opened 'shell,v2,raw:cat -u'" in message
    assert f"next unused recorded stream is 'shell,v2,raw:cat' at {path}:2" in message
    assert caught.value.line is None or caught.value.line >= 2


def test_changed_bytes_on_a_stream_fail_with_expected_actual_and_line(
    recording: tuple[Path, list[object]],
) -> None:
    path, _ = recording
    fixture = load_fixture(path)
    stdin_line = next(
        item.line
        for item in fixture.events
        if isinstance(item.event, Data) and item.event.side == "host" and item.event.stream == 2
    )
    client = client_on(ReplayTransport(path, strict=True), [ReplayKey()])
    try:
        client.shell("cat", stdin=b"hello\n")
        with pytest.raises(ReplayMismatchError) as caught:
            client.shell("cat", stdin=b"typed input\n" * 10 + b"TYPED INPUT\n")
    finally:
        client.close()
    message = str(caught.value)
    assert "stream 2 ('shell,v2,raw:cat')" in message
    assert "at byte 120 of what the client writes" in message
    assert "expected …b'put\\ntyped input\\ntyped input" in message
    assert "the client wrote …b'put\\ntyped input\\nTYPED INPUT\\n'" in message
    assert message.endswith(f"({path}:{stdin_line})")
    assert caught.value.line == stdin_line


def test_not_strict_changed_bytes_fail_that_stream_and_the_connection_goes_on(
    recording: tuple[Path, list[object]],
) -> None:
    path, recorded = recording
    transport = ReplayTransport(path)
    client = client_on(transport, [ReplayKey()])
    try:
        assert client.shell("cat", stdin=b"hello\n") == recorded[0]
        changed = b"typed input\n" * 10 + b"TYPED INPUT\n"
        with (
            pytest.warns(FixtureWarning, match="at byte 120 of what the client writes"),
            pytest.raises(AdbwireError),
        ):
            client.shell("cat", stdin=changed)
        assert "stream 2 ('shell,v2,raw:cat')" in transport.mismatches[0]
        with pytest.warns(FixtureWarning), pytest.raises(StreamRefusedError, match="cat -u"):
            client.shell("cat -u")
        assert client.shell("echo hello") == recorded[4]  # the connection is still usable
    finally:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", FixtureWarning)
            client.close()


def test_running_past_the_end_of_the_recording_says_so(
    recording: tuple[Path, list[object]],
) -> None:
    path, _ = recording
    client = client_on(ReplayTransport(path, strict=True), [ReplayKey()])
    try:
        run_session(client)
        with pytest.raises(ReplayMismatchError, match="ran past the end of the recording"):
            client.shell("cat", stdin=b"hello\n")
    finally:
        client.close()


def test_unused_traffic_is_a_warning_or_a_strict_error(
    recording: tuple[Path, list[object]],
) -> None:
    path, _ = recording
    client = client_on(ReplayTransport(path), [ReplayKey()])
    client.shell("cat", stdin=b"hello\n")
    with pytest.warns(FixtureWarning, match=r"stream 2 \('shell,v2,raw:cat'.*never opened"):
        client.close()
    strict = client_on(ReplayTransport(path, strict=True), [ReplayKey()])
    strict.shell("cat", stdin=b"hello\n")
    with pytest.raises(ReplayMismatchError, match="did not use all of the recording"):
        strict.close()


def test_two_streams_of_one_service_replay_in_another_interleaving(
    sim_device_factory: DeviceFactory, adb_key: AdbKey, tmp_path: Path
) -> None:
    """Recorded: A opened, then B; B written and answered before A. Replayed: the other way
    round. Both use `exec:cat`, so only the bytes tell them apart."""
    path = tmp_path / "two.jsonl"
    device = standin_device(sim_device_factory)
    with recorded_client(device, path, [adb_key]) as (client, _):
        first, second = client.open_stream("exec:cat"), client.open_stream("exec:cat")
        second.write(b"bravo")
        assert second.read_exactly(5) == b"bravo"
        first.write(b"alpha")
        assert first.read_exactly(5) == b"alpha"
        first.close()
        second.close()
    services = [i.event.service for i in load_fixture(path).events if isinstance(i.event, Open)]
    assert services == ["exec:cat", "exec:cat"]

    client = client_on(ReplayTransport(path, strict=True), [ReplayKey()])
    try:
        # x is opened first but does what the second recorded stream did, and is answered
        # before y: only its bytes can tell which recorded stream it is.
        x, y = client.open_stream("exec:cat"), client.open_stream("exec:cat")
        x.write(b"bravo")
        assert x.read_exactly(5) == b"bravo"
        y.write(b"alpha")
        assert y.read_exactly(5) == b"alpha"
        y.close()
        x.close()
    finally:
        client.close()
