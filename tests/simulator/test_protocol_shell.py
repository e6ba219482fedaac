"""shell: v1, shell,v2 (raw and pty), exec: — what each sends and how stdin reaches the command."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from adbwire.testing import DEVICE_FEATURES, DeviceOptions, SimulatedDevice
from adbwire.wire import packets as P
from tests.simulator.protocol_peer import online_peer, shell_packet, shell_packets
from tests.simulator.protocol_standin import StandinUserland, pattern

DeviceFactory = Callable[..., SimulatedDevice]
STDIN, STDOUT, STDERR, EXIT, CLOSE_STDIN, WINDOW = range(6)


@pytest.fixture
def device(sim_device_factory: DeviceFactory) -> SimulatedDevice:
    return sim_device_factory(DeviceOptions(accept_any_key=True), StandinUserland)


def run(device: SimulatedDevice, service: str) -> bytes:
    with online_peer(device.address) as peer:
        return peer.open_ok(service).read_all()


def test_v1_merges_stderr_and_has_no_exit_status(device: SimulatedDevice) -> None:
    assert run(device, "shell:echo out") == b"out\n"
    assert run(device, "shell:echo err >&2") == b"err\n"
    assert run(device, "shell:false") == b""
    assert run(device, "shell:nosuch") == b"/system/bin/sh: nosuch: inaccessible or not found\n"


@pytest.mark.parametrize(
    ("command", "expected"),
    [
        ("echo hi", [(STDOUT, b"hi\n"), (EXIT, b"\x00")]),
        ("echo oops >&2", [(STDERR, b"oops\n"), (EXIT, b"\x00")]),
        ("false", [(EXIT, b"\x01")]),
        ("exit 300", [(EXIT, bytes([300 & 0xFF]))]),
        (
            "nosuch",
            [(STDERR, b"/system/bin/sh: nosuch: inaccessible or not found\n"), (EXIT, b"\x7f")],
        ),
    ],
)
def test_v2_raw_separates_streams_and_ends_with_exit(
    device: SimulatedDevice, command: str, expected: list[tuple[int, bytes]]
) -> None:
    assert shell_packets(run(device, f"shell,v2,raw:{command}")) == expected


def test_v2_stdin_and_close_stdin(device: SimulatedDevice) -> None:
    with online_peer(device.address) as peer:
        stream = peer.open_ok("shell,v2,raw:cat")
        stream.write(shell_packet(STDIN, b"line one\n") + shell_packet(WINDOW, b"24x80,0x0\0"))
        stream.write(shell_packet(STDIN, b"line two\n"))
        stream.write(shell_packet(CLOSE_STDIN))
        packets = shell_packets(stream.read_all())
    stdout = b"".join(data for packet_id, data in packets if packet_id == STDOUT)
    assert stdout == b"line one\nline two\n"
    assert packets[-1] == (EXIT, b"\x00")


def test_v2_pty_merges_stderr_and_translates_newlines(device: SimulatedDevice) -> None:
    packets = shell_packets(run(device, "shell,v2,pty:echo warn >&2"))
    assert packets == [(STDOUT, b"warn\r\n"), (EXIT, b"\x00")]


def test_v2_without_a_mode_is_raw_for_a_command(device: SimulatedDevice) -> None:
    assert shell_packets(run(device, "shell,v2:echo x")) == [(STDOUT, b"x\n"), (EXIT, b"\x00")]


def test_v2_interactive_shell(device: SimulatedDevice) -> None:
    userland = device.userland
    assert isinstance(userland, StandinUserland)
    with online_peer(device.address) as peer:
        stream = peer.open_ok("shell,v2,raw:")
        stream.write(shell_packet(STDIN, b"echo first\nfalse\nexit\n"))
        packets = shell_packets(stream.read_all())
    assert packets == [(STDOUT, b"first\n"), (EXIT, b"\x01")]
    assert userland.commands[-1] == ("", False)


def test_empty_v1_command_is_an_interactive_pty(device: SimulatedDevice) -> None:
    userland = device.userland
    assert isinstance(userland, StandinUserland)
    with online_peer(device.address) as peer:
        stream = peer.open_ok("shell:")
        stream.write(b"echo hey\nexit\n")
        assert stream.read_all() == b"hey\r\n"
    assert userland.commands[-1] == ("", True)


def test_v1_stdin_is_the_stream(device: SimulatedDevice) -> None:
    with online_peer(device.address) as peer:
        stream = peer.open_ok("shell:head -c 5")
        stream.write(b"abcdefgh")
        assert stream.read_all() == b"abcde"


def test_exec_is_binary_safe(device: SimulatedDevice) -> None:
    size = 3 * 1024 * 1024 + 17
    data = run(device, f"exec:bytes {size}")
    assert data == pattern(size)


def test_exec_stdin_to_stdout(device: SimulatedDevice) -> None:
    payload = bytes(range(256)) * 4
    with online_peer(device.address) as peer:
        stream = peer.open_ok(f"exec:head -c {len(payload)}")
        stream.write(payload)
        assert stream.read_all() == payload


def test_device_without_shell_v2_ignores_the_v2_argument(sim_device_factory: DeviceFactory) -> None:
    features = tuple(f for f in DEVICE_FEATURES if f != "shell_v2")
    device = sim_device_factory(
        DeviceOptions(accept_any_key=True, features=features), StandinUserland
    )
    assert run(device, "shell,v2,raw:echo old") == b"old\n"


def test_a_crashing_userland_reports_on_stderr(sim_device_factory: DeviceFactory) -> None:
    class Broken(StandinUserland):
        def run(self, command_line: str, io: object, *, pty: bool = False) -> int:
            raise RuntimeError("boom")

    device = sim_device_factory(DeviceOptions(accept_any_key=True), Broken)
    packets = shell_packets(run(device, "shell,v2,raw:anything"))
    assert packets[0][0] == STDERR
    assert b"boom" in packets[0][1]
    assert packets[-1] == (EXIT, bytes([126]))


def test_closing_a_long_output_midway(device: SimulatedDevice) -> None:
    with online_peer(device.address) as peer:
        stream = peer.open_ok("exec:bytes 50000000")
        first = peer.expect(P.A_WRTE)
        assert first.payload == pattern(len(first.payload))
        stream.close()
        while (packet := peer.recv()).command != P.A_CLSE:
            pass
        assert packet.arg1 == stream.local
    assert device.wait_for_connections(0, 5)
