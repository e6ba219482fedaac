"""The project's simulated device reached through the USB transport: real CNXN with RSA
auth, shell v2, exec and large transfers, every packet framed as USB framing requires."""

from __future__ import annotations

import hashlib
from collections.abc import Callable
from itertools import pairwise

import pytest

from adbwire.testing import DeviceOptions, SimulatedDevice
from adbwire.wire import packets as P
from adbwire.wire.client import AdbClient
from adbwire.wire.keys import AdbKey
from adbwire.wire.services.shell import Channel
from adbwire.wire.timeouts import Timeouts

from .conftest import make_transport
from .fake_usb import FakeContext, FakeDevice, adb_setting
from .sim_bridge import usb_bridge

TIMEOUTS = Timeouts(connect=5.0, auth=2.0, operation=10.0)


def connect(device: FakeDevice, key: AdbKey) -> AdbClient:
    return AdbClient.connect(make_transport(FakeContext(device)), [key], timeouts=TIMEOUTS)


@pytest.mark.parametrize("packet_size", [512, 64, 1024])
@pytest.mark.parametrize(
    "version", [P.VERSION_SKIP_CHECKSUM, P.VERSION_CHECKSUMMED], ids=["v1.1", "v1.0"]
)
def test_shell_and_exec_against_the_simulator(
    sim_device_factory: Callable[..., SimulatedDevice],
    adb_key: AdbKey,
    packet_size: int,
    version: int,
) -> None:
    simulator = sim_device_factory(protocol_version=version)
    device = FakeDevice(settings=[adb_setting(packet_size=packet_size)])
    stdin = bytes(range(256)) * 4096  # 1 MiB: WRTE payloads that fill their last packet
    with (
        usb_bridge(device, simulator.address) as framing_errors,
        connect(device, adb_key) as client,
    ):
        assert client.connection.version == version
        assert client.banner.model  # the simulator's banner came through
        # (start_shell, not shell(): run() sends close-stdin, which races a command that
        # exits at once; see the report on issue 5)
        output = {Channel.STDOUT: b"", Channel.STDERR: b""}
        with client.start_shell("echo hello; echo oops >&2; exit 3") as process:
            for channel, data in process.output():
                output[channel] += data
        assert (output[Channel.STDOUT], output[Channel.STDERR]) == (b"hello\n", b"oops\n")
        assert process.exit_code == 3
        echoed = client.shell("cat", stdin=stdin)
        assert hashlib.sha256(echoed.stdout).digest() == hashlib.sha256(stdin).digest()
        assert client.exec_out("echo binary") == b"binary\n"
    assert framing_errors == []
    zlps_after = [size for size, following in pairwise(device.out_writes) if following == 0]
    assert zlps_after and all(size % packet_size == 0 and size for size in zlps_after)
    assert device.claimed == {} and device.open_handles == 0


def test_a_small_max_payload_device_over_usb(
    sim_device_factory: Callable[..., SimulatedDevice], adb_key: AdbKey
) -> None:
    simulator = sim_device_factory(DeviceOptions(max_payload=4096, accept_any_key=True))
    device = FakeDevice()
    with (
        usb_bridge(device, simulator.address) as framing_errors,
        connect(device, adb_key) as client,
    ):
        assert client.connection.max_payload == 4096
        data = b"z" * 50_000
        assert client.shell("cat", stdin=data).stdout == data
    assert framing_errors == []
