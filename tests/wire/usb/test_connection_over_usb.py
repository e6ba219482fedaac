"""Whole ADB sessions through the USB transport: the real Connection, the real transport,
and a scripted device behind the fake endpoints."""

from __future__ import annotations

import threading
import time

import pytest

from adbwire.errors import DisconnectedError
from adbwire.wire import packets as P
from adbwire.wire.client import AdbClient
from adbwire.wire.protocol import ConnectionState
from adbwire.wire.services.shell_protocol import ShellPacketId, encode
from adbwire.wire.stream import Stream
from adbwire.wire.timeouts import Timeouts

from .conftest import make_transport
from .fake_usb import FakeContext, FakeDevice, adb_setting
from .usb_peer import UsbPeer, scripted_device

FAST = Timeouts(connect=2.0, auth=1.0, operation=3.0)


def connect(context: FakeContext, serial: str | None = None) -> AdbClient:
    return AdbClient.connect(make_transport(context, serial), [], timeouts=FAST)


def serve_shell(peer: UsbPeer, *, stdin_expected: bytes, coalesce: bool = False) -> None:
    """A device that runs one `shell,v2` command: echoes its stdin, then exits with 3."""
    peer.accept_cnxn()
    opened = peer.recv_packet()
    assert (opened.command, bytes(opened.payload)) == (P.A_OPEN, b"shell,v2,raw:cat\0")
    local = opened.arg0
    peer.send(P.Packet(P.A_OKAY, 7, local), coalesce=coalesce)
    received = b""
    while not received.endswith(encode(ShellPacketId.CLOSE_STDIN)):
        packet = peer.recv_packet()
        assert (packet.command, packet.arg0, packet.arg1) == (P.A_WRTE, local, 7)
        received += bytes(packet.payload)
        peer.send(P.Packet(P.A_OKAY, 7, local), coalesce=coalesce)
    assert received == encode(ShellPacketId.STDIN, stdin_expected) + encode(
        ShellPacketId.CLOSE_STDIN
    )
    output = encode(ShellPacketId.STDOUT, stdin_expected) + encode(ShellPacketId.EXIT, b"\x03")
    peer.send(P.Packet(P.A_WRTE, 7, local, output), coalesce=coalesce)
    assert peer.recv_packet().command == P.A_OKAY
    peer.send(P.Packet(P.A_CLSE, 7, local), coalesce=coalesce)


@pytest.mark.parametrize("coalesce", [False, True], ids=["two-transfers", "one-transfer"])
def test_cnxn_and_shell_over_usb(context: FakeContext, device: FakeDevice, coalesce: bool) -> None:
    stdin = b"s" * (512 - 5)  # the WRTE payload is exactly one 512-byte packet
    with scripted_device(
        device, lambda peer: serve_shell(peer, stdin_expected=stdin, coalesce=coalesce)
    ):
        with connect(context) as client:
            assert client.banner.model == "Fake Phone"
            assert client.connection.transport.address == "FAKE0001"
            result = client.shell("cat", stdin=stdin)
        assert (result.stdout, result.exit_code) == (stdin, 3)
    assert 512 in device.out_writes
    after_full_payload = device.out_writes[device.out_writes.index(512) + 1]
    assert after_full_payload == 0  # the zero-length packet followed it
    assert device.claimed == {} and device.open_handles == 0


def test_cnxn_over_a_full_speed_endpoint() -> None:
    device = FakeDevice(settings=[adb_setting(packet_size=64)])
    stdin = b"f" * (128 - 5)
    with (
        scripted_device(device, lambda peer: serve_shell(peer, stdin_expected=stdin)),
        connect(FakeContext(device)) as client,
    ):
        assert client.shell("cat", stdin=stdin).stdout == stdin


def test_unplug_mid_read_fails_every_open_stream_promptly(
    context: FakeContext, device: FakeDevice
) -> None:
    both_open = threading.Event()

    def script(peer: UsbPeer) -> None:
        peer.accept_cnxn()
        for remote in (10, 11):
            opened = peer.recv_packet()
            peer.send(P.Packet(P.A_OKAY, remote, opened.arg0))
        both_open.wait(5)
        device.wait_for_reads(len(device.in_requests) + 1)  # the reader is inside a read
        context.unplug(device)

    with scripted_device(device, script), connect(context) as client:
        streams = [client.open_stream("shell:a"), client.open_stream("shell:b")]
        errors: list[BaseException] = []
        finished = threading.Barrier(3, timeout=8)

        def read(stream: Stream) -> None:
            try:
                stream.read()
            except BaseException as exc:
                errors.append(exc)
            finished.wait()

        for stream in streams:
            threading.Thread(target=read, args=(stream,), daemon=True).start()
        started = time.monotonic()
        both_open.set()
        finished.wait()
        assert time.monotonic() - started < 4.0  # prompt: not the 5 s join of a stuck reader
        assert [type(e) for e in errors] == [DisconnectedError, DisconnectedError]
        assert all("unplugged" in str(e) for e in errors)
        assert client.connection.state is ConnectionState.CLOSED
        with pytest.raises(DisconnectedError, match="unplugged"):
            client.open_stream("shell:c")


def test_closing_the_client_releases_the_device_promptly(
    context: FakeContext, device: FakeDevice
) -> None:
    with scripted_device(device, lambda peer: peer.accept_cnxn()):
        client = connect(context)
        device.wait_for_reads(len(device.in_requests) + 1)
        started = time.monotonic()
        client.close()
        assert time.monotonic() - started < 4.0  # prompt: not the 5 s join of a stuck reader
    assert device.claimed == {} and device.open_handles == 0
