"""`adbwire reverse` against the simulated device: the foreground relay, and --list,
--remove, --remove-all asking the device."""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import sys
from collections.abc import Callable, Iterator

import pytest

from adbwire.testing import SimulatedDevice
from adbwire.wire.keys import AdbKey, default_key_path
from tests.conftest import CliRun
from tests.interop.adb_oracle import free_port
from tests.wire.services.loopback_servers import LoopbackServer, echo, loopback_server
from tests.wire.services.test_reverse import echo_through

Run = Callable[..., tuple[int, str, str]]
WAIT = 30.0


@pytest.fixture
def adbwire(run_cli: CliRun) -> Run:
    return run_cli


@pytest.fixture
def echo_server() -> Iterator[LoopbackServer]:
    with loopback_server(echo) as server:
        yield server


class Foreground:
    """`adbwire reverse ...` in a child process, its stderr read up to the ready line."""

    def __init__(self, serial: str, *args: str) -> None:
        self.process = subprocess.Popen(
            [sys.executable, "-m", "adbwire", "-s", serial, "reverse", *args],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            env={**os.environ, "PYTHONUNBUFFERED": "1"},
        )
        assert self.process.stderr is not None and self.process.stdout is not None
        self.ready = self.process.stderr.readline().decode()

    def interrupt(self) -> tuple[int, bytes, bytes]:
        self.process.send_signal(signal.SIGINT)
        out, err = self.process.communicate(timeout=WAIT)
        return self.process.returncode, out, err

    def kill(self) -> None:
        if self.process.poll() is None:
            self.process.kill()
            self.process.communicate(timeout=WAIT)


@pytest.fixture
def user_key(adb_key: AdbKey) -> None:
    default_key_path().parent.mkdir(parents=True, exist_ok=True)
    shutil.copy(adb_key.path, default_key_path())


@pytest.mark.usefixtures("user_key")
def test_reverse_relays_until_ctrl_c_then_the_device_stops_listening(
    adbwire: Run, sim_device: SimulatedDevice, echo_server: LoopbackServer
) -> None:
    device_port = free_port()
    running = Foreground(sim_device.serial, f"tcp:{device_port}", f"tcp:{echo_server.port}")
    try:
        assert running.ready.startswith(f"adbwire: reversing device tcp:{device_port} -> ")
        payload = os.urandom(500_000)
        assert echo_through(device_port, payload) == payload
        status, listing, _ = adbwire("-s", sim_device.serial, "reverse", "--list")
        assert status == 0
        assert listing.split()[1:] == [f"tcp:{device_port}", f"tcp:{echo_server.port}"]
        assert listing.endswith("\n\n"), "as adb: the listing ends with an empty line"
        status, out, err = running.interrupt()
        assert (status, out, err) == (130, b"", b"")
    finally:
        running.kill()
    assert adbwire("-s", sim_device.serial, "reverse", "--list") == (0, "\n", "")


@pytest.mark.usefixtures("user_key")
def test_reverse_tcp_0_prints_the_port_the_device_picked(
    sim_device: SimulatedDevice, echo_server: LoopbackServer
) -> None:
    running = Foreground(sim_device.serial, "tcp:0", f"tcp:{echo_server.port}")
    try:
        assert running.process.stdout is not None
        port = int(running.process.stdout.readline())
        assert echo_through(port, b"picked") == b"picked"
    finally:
        running.kill()


@pytest.mark.usefixtures("user_key")
def test_remove_and_remove_all_reach_a_listener_another_process_made(
    adbwire: Run, sim_device: SimulatedDevice, echo_server: LoopbackServer
) -> None:
    ports = free_port(), free_port()
    running = [
        Foreground(sim_device.serial, f"tcp:{port}", f"tcp:{echo_server.port}") for port in ports
    ]
    try:
        assert adbwire("-s", sim_device.serial, "reverse", "--remove", f"tcp:{ports[0]}") == (
            0,
            "",
            "",
        )
        _, listing, _ = adbwire("-s", sim_device.serial, "reverse", "--list")
        assert [line.split()[1] for line in listing.splitlines() if line] == [f"tcp:{ports[1]}"]
        assert adbwire("-s", sim_device.serial, "reverse", "--remove-all") == (0, "", "")
        assert adbwire("-s", sim_device.serial, "reverse", "--list") == (0, "\n", "")
    finally:
        for one in running:
            one.kill()


def test_reverse_errors_say_what_adbd_says(adbwire: Run, sim_device: SimulatedDevice) -> None:
    status, out, err = adbwire("-s", sim_device.serial, "reverse", "--remove", "tcp:1")
    assert (status, out, err) == (1, "", "adbwire: error: listener 'tcp:1' not found\n")


@pytest.mark.parametrize(
    "args",
    [
        ["udp:1", "tcp:1"],
        ["tcp:1", "tcp:0"],
        ["tcp:1"],
        ["--list", "tcp:1"],
        ["tcp:1", "tcp:2", "--max-connections", "0"],
    ],
)
def test_bad_arguments_exit_2(adbwire: Run, sim_device: SimulatedDevice, args: list[str]) -> None:
    assert adbwire("-s", sim_device.serial, "reverse", *args)[0] == 2


@pytest.mark.parametrize(
    "args",
    [["tcp:1"], ["--list", "tcp:1"], ["tcp:1", "tcp:2", "--max-connections", "0"]],
)
def test_bad_arguments_are_refused_before_connecting(adbwire: Run, args: list[str]) -> None:
    """Nothing listens on port 1: only a check made before connecting says usage."""
    status, out, err = adbwire("-s", "127.0.0.1:1", "reverse", *args)
    assert (status, out) == (2, "")
    assert "cannot connect" not in err
