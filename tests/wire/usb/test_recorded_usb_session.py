"""A session recorded through the USB transport, then replayed through it: the fixture
says it came over USB, and the replay answers the same calls with the same bytes."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from adbwire.errors import DisconnectedError, ReplayMismatchError, StreamRefusedError
from adbwire.testing import SimulatedDevice
from adbwire.wire.client import AdbClient
from adbwire.wire.keys import AdbKey
from adbwire.wire.recording import ORIGIN_SIMULATED, RecordingTransport, load_fixture
from adbwire.wire.timeouts import Timeouts

from .conftest import make_transport
from .fake_usb import FakeContext, FakeDevice
from .replay_bridge import replayed_device
from .sim_bridge import usb_bridge

TIMEOUTS = Timeouts(connect=5.0, auth=2.0, operation=10.0)
STDIN = b"r" * (1024 - 5)  # the stdin WRTE fills two 512-byte packets exactly


def connect(device: FakeDevice, key: AdbKey) -> AdbClient:
    return AdbClient.connect(make_transport(FakeContext(device)), [key], timeouts=TIMEOUTS)


def session(client: AdbClient) -> tuple[bytes, bytes]:
    return client.shell("cat", stdin=STDIN).stdout, client.exec_out("echo recorded")


@pytest.fixture
def fixture(
    tmp_path: Path, sim_device_factory: Callable[..., SimulatedDevice], adb_key: AdbKey
) -> Path:
    path = tmp_path / "usb-session.jsonl"
    simulator = sim_device_factory()
    device = FakeDevice()
    recording = RecordingTransport(
        make_transport(FakeContext(device)), path, origin=ORIGIN_SIMULATED, note="issue 5 test"
    )
    with (
        usb_bridge(device, simulator.address) as errors,
        AdbClient.connect(recording, [adb_key], timeouts=TIMEOUTS) as client,
    ):
        assert session(client) == (STDIN, b"recorded\n")
    assert errors == []
    return path


def test_the_fixture_records_the_usb_transport(fixture: Path) -> None:
    header = load_fixture(fixture).header
    assert (header.transport, header.origin) == ("usb", ORIGIN_SIMULATED)


def test_replay_through_the_usb_transport(fixture: Path, adb_key: AdbKey) -> None:
    device = FakeDevice()
    with (
        replayed_device(device, fixture) as errors,
        AdbClient.connect(
            make_transport(FakeContext(device)), [adb_key], timeouts=TIMEOUTS
        ) as client,
    ):
        assert session(client) == (STDIN, b"recorded\n")
    assert errors == []
    assert 0 in device.out_writes  # the zero-length packet went out during the replay


def test_a_different_call_is_refused_and_the_link_goes_on(fixture: Path, adb_key: AdbKey) -> None:
    """Not strict (the default replay): a call the recording lacks fails alone."""
    device = FakeDevice()
    with (
        replayed_device(device, fixture, strict=False) as errors,
        AdbClient.connect(
            make_transport(FakeContext(device)), [adb_key], timeouts=TIMEOUTS
        ) as client,
    ):
        with pytest.raises(StreamRefusedError, match="echo something else"):
            client.exec_out("echo something else")
        assert session(client) == (STDIN, b"recorded\n")
    assert errors == []


def test_a_different_call_is_a_replay_mismatch_when_strict(fixture: Path, adb_key: AdbKey) -> None:
    device = FakeDevice()
    with (
        replayed_device(device, fixture) as errors,
        AdbClient.connect(
            make_transport(FakeContext(device)), [adb_key], timeouts=TIMEOUTS
        ) as client,
        pytest.raises(DisconnectedError, match="unplugged"),
    ):
        client.exec_out("echo something else")
    assert [type(error) for error in errors] == [ReplayMismatchError]
