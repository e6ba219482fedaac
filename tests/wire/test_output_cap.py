"""`max_output` on shell, exec and directory listings: a device whose output never ends
costs the host at most the cap, the stream is closed, and the connection stays usable."""

from __future__ import annotations

import contextlib
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from adbwire.errors import OutputTooLargeError, UsageError
from adbwire.testing import DeviceFiles, DeviceOptions, SimulatedDevice, running_device
from adbwire.testing.hostile.endless import endless_output
from adbwire.testing.hostile.files import HostileFiles
from adbwire.testing.hostile.userland import hostile_userland
from adbwire.wire import packets as P
from adbwire.wire.aio import AsyncAdbClient
from adbwire.wire.client import AdbClient
from adbwire.wire.keys import AdbKey
from adbwire.wire.services import sync
from adbwire.wire.services.shell_protocol import MAX_PACKET_DATA, ShellPacketId

from .fake_peer import PeerSocket, fake_device

Factory = Callable[..., SimulatedDevice]
CAP = 256 * 1024
V2 = ("shell_v2", "cmd", "ls_v2", "stat_v2")
V1 = ("cmd",)


def endless_device(factory: Factory, features: tuple[str, ...]) -> SimulatedDevice:
    """`yes` (and only `yes`) writes lines until the host closes the stream."""
    rule = endless_output(r"\byes\b", line="y")
    return factory(features=features, userland_factory=hostile_userland(rule))


@contextlib.contextmanager
def client_of(device: SimulatedDevice, key: AdbKey) -> Iterator[AdbClient]:
    with AdbClient.connect_tcp(device.serial, [key]) as client:
        yield client


@contextlib.contextmanager
def device_with(files: DeviceFiles, features: tuple[str, ...]) -> Iterator[SimulatedDevice]:
    options = DeviceOptions(features=features, auth_required=False)
    with running_device(options, files=files) as device:
        yield device


def open_streams(client: AdbClient) -> int:
    with client.connection.state_lock:
        return len(client.connection._streams)


@pytest.mark.parametrize("features", [V2, V1], ids=["shell_v2", "shell_v1"])
def test_endless_shell_output_stops_at_the_cap(
    sim_device_factory: Factory, adb_key: AdbKey, features: tuple[str, ...]
) -> None:
    device = endless_device(sim_device_factory, features)
    with client_of(device, adb_key) as client:
        with pytest.raises(OutputTooLargeError) as caught:
            client.shell("yes", max_output=CAP, timeout=30)
        assert caught.value.limit == CAP
        assert "yes" in caught.value.what and "256 KiB" in str(caught.value)
        assert open_streams(client) == 0, "the endless stream was closed"
        assert client.shell("echo still here", timeout=30).stdout == b"still here\n"


@pytest.mark.parametrize("features", [V2, V1], ids=["shell_v2", "shell_v1"])
def test_output_up_to_the_cap_passes_and_one_byte_more_does_not(
    sim_device_factory: Factory, adb_key: AdbKey, features: tuple[str, ...]
) -> None:
    device = sim_device_factory(features=features)
    command = "echo 12345; echo 678 >&2"  # 6 + 4 bytes, stdout and stderr together
    with client_of(device, adb_key) as client:
        result = client.shell(command, max_output=10, timeout=30)
        assert (result.stdout + result.stderr, result.exit_code) == (b"12345\n678\n", 0)
        with pytest.raises(OutputTooLargeError):
            client.shell(command, max_output=9, timeout=30)
        assert client.shell(command, timeout=30).exit_code == 0, "no cap by default"


def test_start_shell_emits_up_to_the_cap_then_raises(
    sim_device_factory: Factory, adb_key: AdbKey
) -> None:
    device = endless_device(sim_device_factory, V2)
    with client_of(device, adb_key) as client:
        received = bytearray()
        process = client.start_shell("yes", max_output=CAP, timeout=30)
        with process, pytest.raises(OutputTooLargeError):
            for _, data in process.output():
                received += data
        assert bytes(received) == b"y\n" * (CAP // 2), "exactly the first CAP bytes"
        assert process.over_cap and process.received == CAP


def test_exec_out_stops_at_the_cap(sim_device_factory: Factory, adb_key: AdbKey) -> None:
    device = endless_device(sim_device_factory, V2)
    with client_of(device, adb_key) as client:
        with pytest.raises(OutputTooLargeError, match="exec 'yes'"):
            client.exec_out("yes", max_output=CAP, timeout=30)
        assert open_streams(client) == 0
        assert client.exec_out("echo hi", max_output=3, timeout=30) == b"hi\n"
        with pytest.raises(OutputTooLargeError):
            client.exec_out("echo hi", max_output=2, timeout=30)


@pytest.mark.parametrize("features", [V2, ("cmd",)], ids=["ls_v2", "ls_v1"])
def test_an_endless_listing_stops_at_the_cap(
    adb_key: AdbKey, tmp_path: Path, features: tuple[str, ...]
) -> None:
    files = HostileFiles(tmp_path, endless_listing_at="/sdcard/endless")
    with device_with(files, features) as device, client_of(device, adb_key) as client:
        started = time.monotonic()
        with pytest.raises(OutputTooLargeError, match="list '/sdcard/endless'"):
            client.list_dir("/sdcard/endless", max_output=CAP, timeout=30)
        assert time.monotonic() - started < 30
        assert open_streams(client) == 0, "the sync stream was closed"
        names = {entry.name for entry in client.list_dir("/sdcard", max_output=CAP)}
        assert "endless" in names, "a listing within the cap still works"


def test_a_listing_exactly_at_the_cap_passes(adb_key: AdbKey, tmp_path: Path) -> None:
    files = HostileFiles(tmp_path)
    with device_with(files, ("cmd",)) as device, client_of(device, adb_key) as client:
        client.shell("mkdir /sdcard/few && touch /sdcard/few/a /sdcard/few/bb", timeout=30)
        every = sync.list_dir(client.connection, "/sdcard/few", dot_entries=True)
        exact = sum(20 + len(entry.name) for entry in every)  # a DENT record, then the name
        entries = client.list_dir("/sdcard/few", max_output=exact)
        assert sorted(entry.name for entry in entries) == ["a", "bb"]
        with pytest.raises(OutputTooLargeError):
            client.list_dir("/sdcard/few", max_output=exact - 1)


@pytest.mark.parametrize("bad", [0, -1])
def test_a_cap_must_be_positive(sim_device: SimulatedDevice, adb_key: AdbKey, bad: int) -> None:
    with client_of(sim_device, adb_key) as client:
        for call in (
            lambda: client.shell("true", max_output=bad),
            lambda: client.exec_out("true", max_output=bad),
            lambda: client.list_dir("/sdcard", max_output=bad),
        ):
            with pytest.raises(UsageError, match="max_output"):
                call()
        assert open_streams(client) == 0, "nothing was opened"


def test_a_shell_packet_still_arriving_counts_against_the_cap() -> None:
    """A v2 packet may be up to 1 MiB: the bytes held for an incomplete one count, so the
    read stops at the cap instead of waiting for (and buffering) the rest."""
    closed = threading.Event()

    def script(peer: PeerSocket) -> None:
        peer.accept_cnxn()
        opened = peer.recv_packet()
        local = opened.arg0
        peer.send(P.Packet(P.A_OKAY, 9, local))
        header = bytes([ShellPacketId.STDOUT]) + MAX_PACKET_DATA.to_bytes(4, "little")
        peer.send(P.Packet(P.A_WRTE, 9, local, header))
        sent = 0
        while not closed.is_set():
            packet = peer.recv_packet()
            if packet.command == P.A_CLSE:
                closed.set()
            elif packet.command == P.A_OKAY and sent < 2 * CAP:  # the packet never completes
                peer.send(P.Packet(P.A_WRTE, 9, local, b"z" * 65536))
                sent += 65536

    with fake_device(script) as (address, _), AdbClient.connect_tcp(address, []) as client:
        with pytest.raises(OutputTooLargeError):
            client.shell("anything", max_output=CAP, timeout=20)
        assert closed.wait(10), "the host closed the stream"


def test_output_exactly_at_the_cap_with_a_split_exit_packet_is_not_too_large() -> None:
    """Only output counts: the exit packet's header arriving in two pieces is not output."""

    def script(peer: PeerSocket) -> None:
        peer.accept_cnxn()
        local = peer.recv_packet().arg0
        peer.send(P.Packet(P.A_OKAY, 9, local))
        exit_packet = bytes([ShellPacketId.EXIT]) + (1).to_bytes(4, "little") + b"\x00"
        pieces = [
            bytes([ShellPacketId.STDOUT]) + (16).to_bytes(4, "little") + b"x" * 16,
            exit_packet[:3],
            exit_packet[3:],
        ]
        for piece in pieces:
            peer.send(P.Packet(P.A_WRTE, 9, local, piece))
            while peer.recv_packet().command != P.A_OKAY:
                pass
        peer.send(P.Packet(P.A_CLSE, 9, local))

    with fake_device(script) as (address, _), AdbClient.connect_tcp(address, []) as client:
        result = client.shell("anything", max_output=16, timeout=20)
    assert (result.stdout, result.exit_code) == (b"x" * 16, 0)


@pytest.mark.anyio
async def test_the_async_facade_passes_the_cap(
    sim_device_factory: Factory, adb_key: AdbKey
) -> None:
    device = endless_device(sim_device_factory, V2)
    with client_of(device, adb_key) as client:
        facade = AsyncAdbClient(client)
        with pytest.raises(OutputTooLargeError):
            await facade.shell("yes", max_output=CAP, timeout=30)
        with pytest.raises(OutputTooLargeError):
            await facade.shell_argv(["yes"], max_output=CAP, timeout=30)
        with pytest.raises(OutputTooLargeError):
            await facade.exec_out("yes", max_output=CAP, timeout=30)
        assert (await facade.shell("echo ok", max_output=3)).stdout == b"ok\n"
