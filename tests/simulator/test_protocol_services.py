"""adbd's own services (root, unroot, tcpip, reboot), streaming install, tcp: forwarding,
and the sink:/source: throughput services."""

from __future__ import annotations

import socket
import threading
from collections.abc import Callable, Iterator

import pytest

from adbwire.testing import DeviceOptions, SimulatedDevice
from adbwire.testing.services.install import parse_install_args
from adbwire.wire import packets as P
from tests.simulator.protocol_peer import HostPeer, online_peer
from tests.simulator.protocol_standin import StandinUserland, pattern

DeviceFactory = Callable[..., SimulatedDevice]


@pytest.fixture
def device(sim_device_factory: DeviceFactory) -> SimulatedDevice:
    return sim_device_factory(DeviceOptions(accept_any_key=True), StandinUserland)


def standin(device: SimulatedDevice) -> StandinUserland:
    assert isinstance(device.userland, StandinUserland)
    return device.userland


def answer_then_drop(device: SimulatedDevice, service: str) -> bytes:
    """Run a restarting service: its answer arrives, then the connection closes."""
    with HostPeer(device.address) as peer:
        peer.handshake()
        answer = peer.open_ok(service).read_all()
        assert peer.closed_by_device(), f"{service} should drop the connection"
    return answer


def answer_and_stay(device: SimulatedDevice, service: str) -> bytes:
    with online_peer(device.address) as peer:
        answer = peer.open_ok(service).read_all()
        assert peer.open_ok("shell:echo still here").read_all() == b"still here\n"
    return answer


def test_root_then_already_root_then_unroot(device: SimulatedDevice) -> None:
    assert answer_then_drop(device, "root:") == b"restarting adbd as root\n"
    assert device.root
    assert answer_and_stay(device, "root:") == b"adbd is already running as root\n"
    assert answer_then_drop(device, "unroot:") == b"restarting adbd as non root\n"
    assert not device.root
    assert answer_and_stay(device, "unroot:") == b"adbd not running as root\n"


def test_root_refused_on_production_builds(sim_device_factory: DeviceFactory) -> None:
    device = sim_device_factory(
        DeviceOptions(accept_any_key=True, debuggable=False), StandinUserland
    )
    assert answer_and_stay(device, "root:") == b"adbd cannot run as root in production builds\n"
    assert not device.root


def test_tcpip(device: SimulatedDevice) -> None:
    assert answer_then_drop(device, "tcpip:5555") == b"restarting in TCP mode port: 5555\n"
    assert answer_and_stay(device, "tcpip:0") == b"invalid port 0\n"


def test_reboot_drops_and_tells_the_userland(device: SimulatedDevice) -> None:
    answer_then_drop(device, "root:")
    assert answer_then_drop(device, "reboot:bootloader") == b""
    assert standin(device).reboots == ["bootloader"]
    assert device.state.reboots == ["bootloader"]
    assert not device.root, "adb root does not survive a reboot"
    answer_then_drop(device, "reboot:")
    assert standin(device).reboots == ["bootloader", ""]


def test_reboot_downtime_refuses_connections(sim_device_factory: DeviceFactory) -> None:
    device = sim_device_factory(
        DeviceOptions(accept_any_key=True, reboot_downtime=30), StandinUserland
    )
    answer_then_drop(device, "reboot:")
    with HostPeer(device.address) as peer:
        assert peer.closed_by_device(), "a rebooting device does not answer"


@pytest.mark.parametrize(
    ("args", "parsed"),
    [
        (["cmd", "package", "install", "-S", "12"], (12, [])),
        (["cmd", "package", "install", "-r", "-t", "-S", "99"], (99, ["-r", "-t"])),
        (["pm", "install", "-S", "5", "-"], (5, ["-"])),
        (["package", "install", "-g", "-S", "7"], (7, ["-g"])),
        (["cmd", "package", "install", "-S", "x"], None),
        (["cmd", "package", "install", "/data/app.apk"], None),
        (["cmd", "package", "list", "packages"], None),
    ],
)
def test_parse_install_args(args: list[str], parsed: tuple[int, list[str]] | None) -> None:
    assert parse_install_args(args) == parsed


@pytest.mark.parametrize(
    "service",
    [
        "exec:cmd package install -r -S {size}",
        "exec:cmd package install -r -S {size} -",
        "abb_exec:package\0install\0-r\0-S\0{size}",
    ],
)
def test_streaming_install(device: SimulatedDevice, service: str) -> None:
    apk = pattern(1_500_000)
    with online_peer(device.address) as peer:
        stream = peer.open_ok(service.format(size=len(apk)))
        stream.write(apk)
        assert stream.read_all() == b"Success\n"
    data, size, options = standin(device).installs[-1]
    assert (data == apk, size) == (True, len(apk))
    assert "-r" in options


def test_install_failure_text(device: SimulatedDevice) -> None:
    standin(device).install_answer = (False, "Failure [INSTALL_FAILED_INVALID_APK: bad]")
    with online_peer(device.address) as peer:
        stream = peer.open_ok("exec:cmd package install -S 3")
        stream.write(b"abc")
        assert stream.read_all() == b"Failure [INSTALL_FAILED_INVALID_APK: bad]\n"


def test_abb_runs_cmd_with_the_shell_protocol(device: SimulatedDevice) -> None:
    with online_peer(device.address) as peer:
        output = peer.open_ok("abb:package\0list\0packages").read_all()
    assert standin(device).commands[-1] == ("cmd package list packages", False)
    assert output.endswith(b"\x03\x01\x00\x00\x00\x7f")  # the stand-in has no `cmd`: exit 127


@pytest.fixture
def echo_server() -> Iterator[int]:
    """A loopback TCP server that echoes in upper case, one connection at a time."""
    listener = socket.create_server(("127.0.0.1", 0))
    stop = threading.Event()

    def serve() -> None:
        while not stop.is_set():
            try:
                conn, _ = listener.accept()
            except OSError:
                return
            with conn:
                while data := conn.recv(65536):
                    conn.sendall(data.upper())

    thread = threading.Thread(target=serve, daemon=True)
    thread.start()
    yield listener.getsockname()[1]
    stop.set()
    listener.shutdown(socket.SHUT_RDWR)  # wakes accept() (closing alone does not on Linux)
    listener.close()
    thread.join(5)
    assert not thread.is_alive()


def test_tcp_forward_relays_both_ways(device: SimulatedDevice, echo_server: int) -> None:
    with online_peer(device.address) as peer:
        stream = peer.open_ok(f"tcp:{echo_server}")
        stream.write(b"hello over adb")
        assert stream.read_exactly(len(b"hello over adb")) == b"HELLO OVER ADB"
        big = pattern(500_000)
        stream.write(big)
        assert stream.read_exactly(len(big)) == big.upper()
        stream.close()


def test_a_target_that_half_closes_still_gets_what_the_device_took(
    device: SimulatedDevice,
) -> None:
    """As adbd: when the target's side ends (toybox nc at the end of its stdin), the host gets
    CLSE, but the bytes the device already took from the host still reach the target."""
    listener = socket.create_server(("127.0.0.1", 0))
    half_close = threading.Event()
    received = bytearray()

    def target() -> None:
        conn, _ = listener.accept()
        with conn:
            half_close.wait(30)  # read nothing until then: the device's queue fills up
            conn.shutdown(socket.SHUT_WR)
            while data := conn.recv(65536):
                received.extend(data)

    thread = threading.Thread(target=target, daemon=True)
    thread.start()
    sent = 0
    with online_peer(device.address) as peer:
        stream = peer.open_ok(f"tcp:{listener.getsockname()[1]}")
        chunk = pattern(peer.max_payload)
        for _ in range(400):  # until the device holds back its OKAY (at most 400 MiB)
            peer.send(P.A_WRTE, stream.local, stream.remote, chunk)
            sent += len(chunk)
            if peer.nothing_within(0.5):
                break
            assert peer.recv().command == P.A_OKAY
        half_close.set()
        while (answer := peer.recv()).command == P.A_OKAY:
            pass  # an OKAY the device owed may still come before its CLSE
        assert (answer.command, answer.arg1) == (P.A_CLSE, stream.local)
        thread.join(30)
    listener.close()
    assert not thread.is_alive()
    assert len(received) == sent, "every byte the device took reached the target"


def test_tcp_forward_to_a_closed_port_is_refused(device: SimulatedDevice) -> None:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        closed_port = probe.getsockname()[1]
    with online_peer(device.address) as peer:
        for service in (f"tcp:{closed_port}", "tcp:example.com:80", "tcp:0", "tcp:x"):
            _local, answer = peer.open(service)
            assert answer.command == P.A_CLSE, service


def test_source_and_sink(device: SimulatedDevice) -> None:
    with online_peer(device.address) as peer:
        assert peer.open_ok("source:2500000").read_all() == bytes(2_500_000)
        stream = peer.open_ok("sink:3000000")
        stream.write(b"z" * 3_000_000, wait_okay=False)
        assert stream.read_all() == b""
