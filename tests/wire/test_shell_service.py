"""The shell service against the simulated device: stdin, exit codes, the v1 fallback."""

from __future__ import annotations

import math
import os
from collections.abc import Callable

import pytest

from adbwire.errors import ConnectionClosedError, Fault, UsageError
from adbwire.testing import SimulatedDevice
from adbwire.wire import packets as P
from adbwire.wire.client import AdbClient
from adbwire.wire.keys import AdbKey
from adbwire.wire.services.shell_protocol import ShellPacketId, encode
from adbwire.wire.timeouts import Timeouts

from .fake_peer import PeerSocket, fake_device

Factory = Callable[..., SimulatedDevice]


@pytest.mark.parametrize("features", [("shell_v2", "cmd"), ("shell_v2", "cmd", "delayed_ack")])
def test_large_stdin_is_fed_while_output_is_read(
    sim_device_factory: Factory, adb_key: AdbKey, features: tuple[str, ...]
) -> None:
    """`cat` answers as it reads: writing all input before reading would deadlock."""
    device = sim_device_factory(features=features)
    data = os.urandom(6 * 1024 * 1024)
    with AdbClient.connect_tcp(device.serial, [adb_key]) as client:
        result = client.shell("cat", stdin=data, timeout=30)
    assert result.exit_code == 0
    assert result.stdout == data


def test_input_a_command_does_not_read_is_not_an_error(
    sim_device: SimulatedDevice, adb_key: AdbKey
) -> None:
    with AdbClient.connect_tcp(sim_device.serial, [adb_key]) as client:
        result = client.shell("echo done", stdin=os.urandom(2 * 1024 * 1024), timeout=30)
    assert (result.stdout, result.exit_code) == (b"done\n", 0)


def test_v1_fallback_recovers_exit_codes_and_keeps_syntax_errors(
    sim_device_factory: Factory, adb_key: AdbKey
) -> None:
    device = sim_device_factory(features=("cmd",))
    with AdbClient.connect_tcp(device.serial, [adb_key]) as client:
        assert "shell_v2" not in client.features
        ok = client.shell("echo out; echo err >&2; exit 4")
        assert (ok.stdout, ok.exit_code) == (b"out\nerr\n", 4)
        broken = client.shell("echo 'unterminated")
    assert broken.exit_code == 255, "a command whose sentinel never ran has failed"
    assert broken.stdout, "the shell's own error message is kept"


def test_no_deadline_means_no_deadline(sim_device: SimulatedDevice, adb_key: AdbKey) -> None:
    timeouts = Timeouts(operation=math.inf)
    with AdbClient.connect_tcp(sim_device.serial, [adb_key], timeouts=timeouts) as client:
        assert client.shell("echo hi", timeout=math.inf).stdout == b"hi\n"


@pytest.mark.parametrize("value", [0.0, -1.0, math.nan])
def test_bad_timeouts_are_refused(value: float) -> None:
    with pytest.raises(UsageError, match="timeout"):
        Timeouts(operation=value)


def test_a_closed_client_says_it_was_closed_by_us(
    sim_device: SimulatedDevice, adb_key: AdbKey
) -> None:
    client = AdbClient.connect_tcp(sim_device.serial, [adb_key])
    stream = client.open_stream("shell:sleep 5")
    client.close()
    with pytest.raises(ConnectionClosedError) as caught:
        client.open_stream("shell:true")
    assert caught.value.fault is Fault.CALLER and not caught.value.retryable
    with pytest.raises(UsageError):
        stream.read(0)


def test_an_exit_packet_without_a_status_is_a_failure() -> None:
    def script(peer: PeerSocket) -> None:
        peer.accept_cnxn()
        opened = peer.recv_packet()
        peer.send(P.Packet(P.A_OKAY, 9, opened.arg0))
        body = encode(ShellPacketId.STDOUT, b"x") + bytes([99, 0, 0, 0, 0])  # unknown id 99
        peer.send(P.Packet(P.A_WRTE, 9, opened.arg0, body + encode(ShellPacketId.EXIT)))
        peer.send(P.Packet(P.A_CLSE, 9, opened.arg0))
        while True:
            peer.recv_packet()

    with fake_device(script) as (address, _), AdbClient.connect_tcp(address, []) as client:
        result = client.shell("true")
    assert (result.stdout, result.exit_code) == (b"x", 255)
